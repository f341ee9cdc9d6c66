package bitpack

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/bitpack-go/bitpack/bitio"
)

// Sentinels. Every error Marshal, Unmarshal and their relatives return for
// bad data wraps one of them, so callers branch with errors.Is.
var (
	// ErrOverflow: the packet ends before the value does.
	ErrOverflow = bitio.ErrOverflow
	// ErrRange: a value outside what its tag allows, on either side: a
	// ranged integer, a string or slice longer than maxlen, a compressed
	// float out of bounds or NaN, a union index or sparse index out of
	// range, a quaternion that is not unit length.
	ErrRange = bitio.ErrRange
	// ErrPadding: non-zero alignment padding.
	ErrPadding = bitio.ErrPadding
	// ErrInvalidString: invalid UTF-8 or a NUL byte in a string.
	ErrInvalidString = bitio.ErrInvalidString
	// ErrTrailing: whole bytes left over after the value (Unmarshal only;
	// the padding bits of the last byte are not trailing data).
	ErrTrailing = errors.New("bitpack: trailing bytes after the value")
	// ErrDepth: nesting deeper than MaxDepth (64 levels), on decode
	// or on encode (a cyclic value).
	ErrDepth = errors.New("bitpack: nesting too deep")
)

// MaxDepth is the deepest struct nesting Marshal and Unmarshal follow. The
// top-level struct is level 1; each struct reached through a field, an
// element or a pointer adds one, and so does each pass through a recursive
// type that is not a struct (type P *P, type A [1]*A). Deeper values
// fail with ErrDepth, which stops cyclic values on encode and hostile
// nesting on decode.
const MaxDepth = 64

// Error is the error type of Marshal, Unmarshal and their relatives for bad
// data. It names the operation, the Go type, the field path and (when
// decoding) the bit offset, and unwraps to a sentinel (and to the error a
// custom MarshalBits/UnmarshalBits hook returned, if any).
type Error struct {
	Op     string       // "encode" or "decode"
	Type   reflect.Type // the top-level type being encoded or decoded
	Path   string       // field path such as "Players[3].Pos.X"; "" for the value itself
	Bit    int          // bit offset where the failing field starts (decode); -1 when not known
	Err    error        // the sentinel: ErrOverflow, ErrRange, ErrPadding, ErrInvalidString, ErrTrailing, ErrDepth or ErrCheck
	Detail string       // what is wrong, e.g. "value 1013 out of range [0, 1000]"
	Cause  error        // the error a custom hook returned, or nil

	// For a hook that passes the error on (see fromBitio): Bit is a
	// position in the Reader the hook was handed, not in a buffer of its
	// own; Type is the union member a Union decoded or encoded.
	inStream, member bool
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("bitpack: ")
	b.WriteString(e.Op)
	if e.Type != nil {
		b.WriteByte(' ')
		b.WriteString(e.Type.String())
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString("field ")
		b.WriteString(e.Path)
		if e.Bit >= 0 {
			fmt.Fprintf(&b, " at bit %d", e.Bit)
		}
		b.WriteString(": ")
	} else if e.Bit >= 0 {
		fmt.Fprintf(&b, "at bit %d: ", e.Bit)
	}
	b.WriteString(e.Detail)
	return b.String()
}

// Unwrap returns the sentinel and, for hook failures, the hook's own error.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

// TagError reports a struct tag or a field type bitpack cannot encode. It is
// found when a type's plan is compiled: by NewCodec, by Describe, or by the
// first Marshal or Unmarshal of the type.
type TagError struct {
	Type    reflect.Type // the struct type that declares the field (or the top-level type)
	Field   string       // the field's name; "" for the type itself
	Tag     string       // the bits tag text; "" when the field has none
	Problem string       // what is wrong
}

func (e *TagError) Error() string {
	var b strings.Builder
	b.WriteString("bitpack: type ")
	if e.Type != nil {
		b.WriteString(e.Type.String())
	}
	if e.Field != "" {
		b.WriteString(" field ")
		b.WriteString(e.Field)
	}
	if e.Tag != "" {
		fmt.Fprintf(&b, ": tag %q", e.Tag)
	}
	b.WriteString(": ")
	b.WriteString(e.Problem)
	return b.String()
}

// fieldError is an error found while running a plan, before it knows the
// top-level type and the full path. Sub-plans prepend their path segment
// while the error travels up; the public API turns it into an *Error.
type fieldError struct {
	path   string
	bit    int
	err    error
	detail string
	cause  error
}

func (e *fieldError) Error() string { return e.detail }

// withPrefix prepends a path segment: "Players[3]" + "." + "Pos.X".
func (e *fieldError) withPrefix(prefix string) *fieldError {
	e.path = prefixPath(prefix, e.path)
	return e
}

// prefixPath is path inside the field at prefix.
func prefixPath(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "":
		return prefix
	case path[0] == '[', path[0] == '(':
		return prefix + path
	}
	return prefix + "." + path
}

// newFieldError records a data error at path.
func newFieldError(path string, bit int, sentinel error, format string, args ...any) *fieldError {
	return &fieldError{path: path, bit: bit, err: sentinel, detail: fmt.Sprintf(format, args...)}
}

// fromBitio converts an error a bitio Writer or Reader recorded (or a hook
// returned) into a fieldError for path.
func fromBitio(path string, bit int, err error) *fieldError {
	var fe *fieldError
	if errors.As(err, &fe) {
		return fe
	}
	var be *bitio.Error
	if errors.As(err, &be) {
		if bit < 0 {
			return &fieldError{path: path, bit: -1, err: be.Err, detail: be.Detail}
		}
		return &fieldError{path: path, bit: be.Bit, err: be.Err, detail: be.Detail}
	}
	var pe *Error
	if errors.As(err, &pe) {
		// A hook that encoded or decoded a bitpack type itself: its error
		// names a field inside this one. Paths join (through the member
		// type, for a Union's error), and the detail and the innermost
		// hook's own error carry over, so nesting through hooks does not
		// nest messages. Its bit is the packet's when the hook decoded from
		// the Reader it was handed; from a buffer of its own (Unmarshal,
		// UnmarshalWithin), the hook's start is kept and the detail says
		// where in the buffer.
		fe := &fieldError{bit: bit, err: pe.Err, detail: pe.Detail, cause: pe.Cause}
		switch {
		case pe.Bit < 0 || bit < 0:
		case pe.inStream:
			fe.bit = pe.Bit
		default:
			fe.detail += fmt.Sprintf(" (at bit %d of the buffer the hook decoded)", pe.Bit)
		}
		fe.withPrefix(pe.Path)
		if pe.member && pe.Type != nil {
			fe.withPrefix("(" + pe.Type.String() + ")")
		}
		return fe.withPrefix(path)
	}
	for _, s := range []error{ErrOverflow, ErrRange, ErrPadding, ErrInvalidString, ErrTrailing, ErrDepth, ErrCheck} {
		if errors.Is(err, s) {
			return &fieldError{path: path, bit: bit, err: s, detail: err.Error(), cause: err}
		}
	}
	// A hook's own error that wraps no sentinel: the hook refused the value.
	return &fieldError{path: path, bit: bit, err: ErrRange, detail: "hook refused the value: " + err.Error(), cause: err}
}

// publicError turns an internal error into the *Error the API returns.
func publicError(op string, t reflect.Type, err error) error {
	var fe *fieldError
	if !errors.As(err, &fe) {
		return err
	}
	bit := fe.bit
	if op == "encode" {
		bit = -1
	}
	return &Error{Op: op, Type: t, Path: fe.path, Bit: bit, Err: fe.err, Detail: fe.detail, Cause: fe.cause}
}

// inStream marks err, an error of a decode that ran on a hook's Reader,
// as counting bits in that Reader (see fromBitio).
func inStream(err error) error {
	if pe, ok := err.(*Error); ok {
		pe.inStream = true
	}
	return err
}

// memberOf marks err, a Union's error about its member, as naming the
// member's type (see fromBitio).
func memberOf(err error) error {
	if pe, ok := err.(*Error); ok {
		pe.member = true
	}
	return err
}

package bitio

import (
	"errors"
	"fmt"
)

// The four sentinels. Every error a Writer or Reader reports wraps exactly
// one of them, so callers branch with errors.Is.
var (
	// ErrOverflow: a read needs more bits than the packet has left.
	ErrOverflow = errors.New("bitio: read past end of packet")
	// ErrRange: a value outside its declared range, on either side (a ranged
	// integer, a string length, a compressed-float code above M, a
	// quaternion code that is above M or not canonical, an int_relative
	// that does not increase), or an invalid argument
	// (n outside 0..64, min > max, bad compressed-float parameters).
	ErrRange = errors.New("bitio: value out of range")
	// ErrPadding: a non-zero bit in alignment padding.
	ErrPadding = errors.New("bitio: non-zero padding bits")
	// ErrInvalidString: a string that is not valid UTF-8 or holds a NUL byte.
	ErrInvalidString = errors.New("bitio: invalid string")
)

// Error is the concrete type of every error a Writer or Reader records. It
// says which operation failed, at which bit offset that operation started,
// and why, and it unwraps to one of the four sentinels.
type Error struct {
	Op     string // "read int", "write string", ...
	Bit    int    // bit offset (from the start of the packet) where Op began
	Err    error  // ErrOverflow, ErrRange, ErrPadding or ErrInvalidString
	Detail string // e.g. "value 1013 out of range [0, 1000]"
}

func (e *Error) Error() string {
	return fmt.Sprintf("bitio: %s at bit %d: %s", e.Op, e.Bit, e.Detail)
}

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }

func newError(op string, bit int, sentinel error, format string, args ...any) *Error {
	return &Error{Op: op, Bit: bit, Err: sentinel, Detail: fmt.Sprintf(format, args...)}
}

package gen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/bitpack-go/bitpack"
)

// What the C# and TypeScript emitters share: both write the same control
// flow (a read or write function per struct type, whose every step returns
// false on a refusal after naming its field), so a body, its loop
// variables and the path expressions of error messages are common.

// body collects the statements of a function body.
type body struct {
	b      strings.Builder
	ts     bool   // TypeScript: two-space indents, braces on the line they open
	indent int    // in indentation units
	loops  int    // loop variables in use: i0, i1, ...
	locals int    // locals declared (see local)
	temps  []bool // per temporary kind (see csTemp): used by the body
}

func (c *body) line(format string, args ...any) {
	unit := "    "
	if c.ts {
		unit = "  "
	}
	c.b.WriteString(strings.Repeat(unit, c.indent))
	fmt.Fprintf(&c.b, format, args...)
	c.b.WriteByte('\n')
}

func (c *body) open()  { c.line("{"); c.indent++ }
func (c *body) close() { c.indent--; c.line("}") }

// loop renders for (<decl> i = 0; i < n; i++) around body, with a fresh
// index variable: int in C#, let in TypeScript.
func (c *body) loop(n string, inner func(i string)) {
	i := "i" + strconv.Itoa(c.loops)
	c.loops++
	if c.ts {
		c.line("for (let %s = 0; %s < %s; %s++) {", i, i, n, i)
		c.indent++
	} else {
		c.line("for (int %s = 0; %s < %s; %s++)", i, i, n, i)
		c.open()
	}
	inner(i)
	c.close()
	c.loops--
}

// fresh returns a new local name with prefix (n0, p1, ...), unique among
// the loop levels in use.
func (c *body) fresh(prefix string) string { return prefix + strconv.Itoa(c.loops) }

// local returns a local name with prefix that no other local of the
// function has (a0, e1, ...): a value built inside another's block must
// not shadow it.
func (c *body) local(prefix string) string {
	c.locals++
	return prefix + strconv.Itoa(c.locals-1)
}

// pathExpr is the expression of a value's field path for an error
// message: its model path (Players[].Pos.X) with the loop indices in
// place of each [], e.g. "Players[" + i0 + "].Pos.X". The syntax is the
// same in C# and TypeScript.
func pathExpr(path string, idx []string) string {
	parts := strings.Split(path, "[]")
	if len(parts)-1 != len(idx) {
		panic(fmt.Sprintf("gen: path %q has %d indices, %d loop variables", path, len(parts)-1, len(idx)))
	}
	if len(idx) == 0 {
		return strconv.Quote(path)
	}
	var b strings.Builder
	for k, p := range parts {
		if k > 0 {
			fmt.Fprintf(&b, " + %s + ", idx[k-1])
			p = "]" + p
		}
		if k < len(parts)-1 {
			p += "["
		}
		b.WriteString(strconv.Quote(p))
	}
	return b.String()
}

// lengthBits is the width of a length prefix for maxlen: bits_required(0,
// maxlen), 0 for maxlen 0.
func lengthBits(maxlen int) int {
	n := 0
	for v := uint64(maxlen); v != 0; v >>= 1 {
		n++
	}
	return n
}

// elemBits is a value's minimum size for the length check, capped well
// inside a 32-bit int: an element of 2^30 bits fits in no packet anyway.
func elemBits(v *Value) int { return min(v.MinBits, 1<<30) }

// span is the width of a ranged integer's range, B - A, as an unsigned
// number.
func span(v *Value) uint64 {
	if v.Signed {
		return uint64(v.IntMax) - uint64(v.IntMin)
	}
	return v.UintMax - v.UintMin
}

// rangeBits is bits_required(A, B): the width of a ranged integer's offset.
func rangeBits(v *Value) int {
	n := 0
	for s := span(v); s != 0; s >>= 1 {
		n++
	}
	return n
}

// runtimeEnd closes the runtime part of a C# or TypeScript file.
const runtimeEnd = "// ---------------------------------------------------------------------------"

// stringKeys reports whether a map of the model has string keys: then
// the C# and TypeScript runtimes carry Go's quoting of them for error
// paths.
func (m *Model) stringKeys() bool {
	found := false
	var walk func(v *Value)
	walk = func(v *Value) {
		for ; v != nil; v = v.Elem {
			if v.Kind == bitpack.KindMap && v.Key.Kind == bitpack.KindString {
				found = true
			}
			for _, u := range v.Fields {
				walk(u.Value)
			}
		}
	}
	for _, t := range m.Types {
		for _, f := range t.Fields {
			walk(f.Value)
		}
	}
	return found
}

// printableRanges is the table of characters Go's strconv.IsPrint
// accepts, as the generated quoting code reads it: for each range of
// printable code points, its distance from the end of the range before
// and its length minus one, in hex, comma-separated.
func printableRanges() string {
	var parts []string
	end := 0
	for r := 0; r <= unicode.MaxRune; {
		if !strconv.IsPrint(rune(r)) {
			r++
			continue
		}
		start := r
		for r <= unicode.MaxRune && strconv.IsPrint(rune(r)) {
			r++
		}
		parts = append(parts, strconv.FormatInt(int64(start-end), 16), strconv.FormatInt(int64(r-1-start), 16))
		end = r - 1
	}
	return strings.Join(parts, ",")
}

// intBounds is the range of a signed integer's wire values (in units for
// unit=): its range=, or a raw field's two's complement range, with flip,
// the XOR that turns an offset from the lower bound into two's complement
// (0 for a ranged field).
func intBounds(v *Value) (lo, hi int64, flip uint64) {
	if v.Ranged {
		return v.IntMin, v.IntMax, 0
	}
	return -1 << (v.Bits - 1), int64(uint64(1)<<(v.Bits-1) - 1), 1 << (v.Bits - 1)
}

// uintBounds is the range of an unsigned integer's wire values.
func uintBounds(v *Value) (lo, hi uint64) {
	if v.Ranged {
		return v.UintMin, v.UintMax
	}
	return 0, math.MaxUint64 >> (64 - v.Bits)
}

// unitBits is an integer's wire width: bits_required of its range, or a
// raw field's bits.
func unitBits(v *Value) int {
	if v.Ranged {
		return rangeBits(v)
	}
	return v.Bits
}

// bounds is a compressed float's range as Go's refusals print it: the
// quantizer's bounds, in the field's precision, printed as float64s.
func bounds(v *Value) string {
	lo, hi := v.Min, v.Max
	if v.FloatBits == 32 {
		lo, hi = float64(float32(lo)), float64(float32(hi))
	}
	return fmt.Sprintf("[%v, %v]", lo, hi)
}

// delta is max - min as bitpack's quantizer computes it, in the field's
// precision.
func delta(v *Value) float64 {
	if v.FloatBits == 32 {
		return float64(float32(float32(v.Max) - float32(v.Min)))
	}
	return v.Max - v.Min
}

// f32bits and f64bits are the IEEE-754 bits of a compressed float's
// parameter, rounded to the field's precision for float32.
func f32bits(x float64) uint32 { return math.Float32bits(float32(x)) }
func f64bits(x float64) uint64 { return math.Float64bits(x) }

// encodingComment is a field's encoding in bitpack's words, containers
// included: "slice maxlen 4; struct".
func encodingComment(v *Value) string {
	var words []string
	for ; v != nil; v = v.Elem {
		switch {
		case v.Kind == bitpack.KindMap:
			words = append(words, v.Encoding+" ("+v.Key.Encoding+")")
		case v.Kind != bitpack.KindStruct:
			words = append(words, v.Encoding)
		case v.Fields != nil:
			words = append(words, "sent with this field's options")
		default:
			words = append(words, "struct")
		}
	}
	return strings.Join(words, "; ")
}

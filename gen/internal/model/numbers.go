package model

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bitpack-go/bitpack/internal/rules"
)

// Numbers every renderer needs, derived from a value's parameters.

// LengthBits is the width of a length prefix for maxlen: bits_required(0,
// maxlen), 0 for maxlen 0.
func LengthBits(maxlen int) int {
	n := 0
	for v := uint64(maxlen); v != 0; v >>= 1 {
		n++
	}
	return n
}

// Span is the width of a ranged integer's range, B - A, as an unsigned
// number.
func Span(v *Value) uint64 {
	if v.Signed {
		return uint64(v.IntMax) - uint64(v.IntMin)
	}
	return v.UintMax - v.UintMin
}

// RangeBits is bits_required(A, B): the width of a ranged integer's offset.
func RangeBits(v *Value) int {
	n := 0
	for s := Span(v); s != 0; s >>= 1 {
		n++
	}
	return n
}

// StringKeys reports whether a map of the model has string keys: then
// the C# and TypeScript runtimes carry Go's quoting of them for error
// paths.
func (m *Model) StringKeys() bool {
	return m.anyValue(func(v *Value) bool { return v.Op == OpMap && v.Key.Op == OpString })
}

// Times reports whether a value of the model is a time.Time: then the
// C#, TypeScript and Rust runtimes carry the wording of Go's time
// refusals.
func (m *Model) Times() bool {
	return m.anyValue(func(v *Value) bool { return v.Time })
}

// anyValue reports whether pred holds for a value of the model's types:
// a field's, or one below it through Elem and Fields (map keys are not
// walked: no predicate asks about what is inside them).
func (m *Model) anyValue(pred func(*Value) bool) bool {
	var walk func(v *Value) bool
	walk = func(v *Value) bool {
		for ; v != nil; v = v.Elem {
			if pred(v) {
				return true
			}
			for _, u := range v.Fields {
				if walk(u.Value) {
					return true
				}
			}
		}
		return false
	}
	for _, t := range m.Types {
		for _, f := range t.Fields {
			if walk(f.Value) {
				return true
			}
		}
	}
	return false
}

// IntBounds is the range of a signed integer's wire values (in units for
// unit=): its range=, or a raw field's two's complement range, with flip,
// the XOR that turns an offset from the lower bound into two's complement
// (0 for a ranged field).
func IntBounds(v *Value) (lo, hi int64, flip uint64) {
	if v.Ranged {
		return v.IntMin, v.IntMax, 0
	}
	return -1 << (v.Bits - 1), int64(uint64(1)<<(v.Bits-1) - 1), 1 << (v.Bits - 1)
}

// UintBounds is the range of an unsigned integer's wire values.
func UintBounds(v *Value) (lo, hi uint64) {
	if v.Ranged {
		return v.UintMin, v.UintMax
	}
	return 0, math.MaxUint64 >> (64 - v.Bits)
}

// UnitBits is an integer's wire width: bits_required of its range, or a
// raw field's bits.
func UnitBits(v *Value) int {
	if v.Ranged {
		return RangeBits(v)
	}
	return v.Bits
}

// Bounds is a compressed float's range as Go's refusals print it: the
// quantizer's bounds, in the field's precision, printed as float64s.
func Bounds(v *Value) string {
	lo, hi := v.Min, v.Max
	if v.FloatBits == 32 {
		lo, hi = float64(float32(lo)), float64(float32(hi))
	}
	return fmt.Sprintf("[%v, %v]", lo, hi)
}

// Delta is max - min as bitpack's quantizer computes it, in the field's
// precision.
func Delta(v *Value) float64 {
	if v.FloatBits == 32 {
		return float64(float32(float32(v.Max) - float32(v.Min)))
	}
	return v.Max - v.Min
}

// EncodingComment is a field's encoding in bitpack's words, containers
// included: "slice maxlen 4; struct" (for a client that holds a duration
// as Go's nanoseconds: Rust's).
func EncodingComment(v *Value) string {
	var words []string
	for ; v != nil; v = v.Elem {
		switch {
		case v.Op == OpMap:
			words = append(words, v.Encoding+" ("+v.Key.Encoding+")")
		case !v.Op.IsStruct():
			words = append(words, v.Encoding)
		case v.Fields != nil:
			words = append(words, "sent with this field's options")
		default:
			words = append(words, "struct")
		}
	}
	return strings.Join(words, "; ")
}

// FieldComment is a field's encoding in bitpack's words, containers
// included ("slice maxlen 4; struct"), for a client that holds durations
// and times counted in their units (Counted), which it says: "in units of
// 1ms (Go's time.Duration ÷ 1ms): int [0, 10000] × 1ms", "in units of 1s
// since 1970-01-01 UTC (Go's time.Time: its Unix time ÷ 1s): Unix time, int
// [0, 4102444800] × 1s".
func FieldComment(v *Value) string {
	var words []string
	for ; v != nil; v = v.Elem {
		switch {
		case v.Op == OpMap:
			words = append(words, v.Encoding+" ("+CountedWords(v.Key)+")")
		case !v.Op.IsStruct():
			words = append(words, CountedWords(v))
		case v.Fields != nil:
			words = append(words, "sent with this field's options")
		default:
			words = append(words, "struct")
		}
	}
	return strings.Join(words, "; ")
}

// CountedWords is a scalar's encoding in bitpack's words, and for a
// duration or time counted in its units what the client holds.
func CountedWords(v *Value) string {
	if v.Time {
		return "in units of " + v.UnitText + " since 1970-01-01 UTC (Go's time.Time: its Unix time ÷ " + v.UnitText + "): " + v.Encoding
	}
	if v.Counted {
		return "in units of " + v.UnitText + " (Go's time.Duration ÷ " + v.UnitText + "): " + v.Encoding
	}
	return v.Encoding
}

// SizeText words a struct type's size on the wire: "40 bits", "8 to 200
// bits", "8 bits or more".
func SizeText(t *Type) string {
	switch {
	case t.MaxBits < 0:
		return fmt.Sprintf("%d bits or more", t.MinBits)
	case t.MinBits == t.MaxBits:
		return fmt.Sprintf("%d bits", t.MinBits)
	}
	return fmt.Sprintf("%d to %d bits", t.MinBits, t.MaxBits)
}

// FullName is a Go type's name with its package's import path.
func FullName(t *Type) string {
	if t.Go.PkgPath() == "" || t.Go.Name() == "" {
		return t.Go.String()
	}
	return t.Go.PkgPath() + "." + t.Go.Name()
}

// TimeZero is the count a client holds, in time value v, for Go's zero
// time.Time (January 1 of year 1): the units bitpack's writer sends for
// it, or with clamp the nearer bound. It is the zero value's, so a
// stream's zero base holds it. 0 (the Unix epoch) where bitpack cannot
// encode the zero time: a type holding one there has no zero base.
func TimeZero(v *Value) int64 {
	units, _, ok := rules.UnixUnits(time.Time{}, v.Unit)
	lo, hi, _ := IntBounds(v)
	switch {
	case ok && units >= lo && units <= hi:
		return units
	case !v.Clamp:
		return 0
	case !ok || units < lo: // beyond ±2^63 units: year 1 is below any range
		return lo
	}
	return hi
}

// StartsAtTimeZero reports whether v is a time whose Go zero value (year
// 1) is a count other than 0 (TimeZero), so that a generated zero value
// must start at that count rather than at its language's default.
func StartsAtTimeZero(v *Value) bool { return v.Op == OpInt && v.Time && TimeZero(v) != 0 }

package model

import "github.com/bitpack-go/bitpack"

// The delta wire's language-neutral decisions (docs/wire.md, Delta
// encoding), in one place for the three renderers: which values are
// items, how bitpack unrolls arrays (it refuses an unrolled array's
// element that changes nothing at its index, and the clients place that
// refusal alike), the width of a number's short form and the range of its
// codes.

// FieldUses are the fields a struct value sends, in wire order: this
// use's, or its type's own.
func FieldUses(v *Value) []*FieldUse {
	if v.Fields != nil {
		return v.Fields
	}
	uses := make([]*FieldUse, 0, len(v.Type.Fields))
	for _, m := range v.Type.Fields {
		uses = append(uses, &FieldUse{Member: m, Value: m.Value})
	}
	return uses
}

// StructFields are the values of a struct value's FieldUses.
func StructFields(v *Value) []*Value {
	var out []*Value
	for _, u := range FieldUses(v) {
		out = append(out, u.Value)
	}
	return out
}

// IsItem reports whether a value that is not a struct takes part in
// deltas: checks, fixed-width values of 0 bits and arrays whose elements
// hold one value only (none, or of no items) do not.
func IsItem(v *Value) bool {
	switch v.Kind {
	case bitpack.KindCheck:
		return false
	case bitpack.KindBool, bitpack.KindInt, bitpack.KindUint, bitpack.KindFloat, bitpack.KindCompressedFloat:
		return v.Bits > 0
	case bitpack.KindArray:
		return v.Len > 0 && ItemCount(v.Elem) > 0
	}
	return true
}

// DeltaItems are v's items: v itself, or for a struct its fields' items,
// recursively.
func DeltaItems(v *Value) []*Value {
	if v.Kind != bitpack.KindStruct {
		if IsItem(v) {
			return []*Value{v}
		}
		return nil
	}
	var out []*Value
	for _, f := range StructFields(v) {
		out = append(out, DeltaItems(f)...)
	}
	return out
}

// ItemCount is the number of v's items.
func ItemCount(v *Value) int { return len(DeltaItems(v)) }

// unrollLimit is bitpack's: an array of at most this many ops is
// unrolled into its parent's ops.
const unrollLimit = 32

// opsOf is the number of ops bitpack compiles a value into.
func opsOf(v *Value) int {
	switch v.Kind {
	case bitpack.KindStruct:
		n := 0
		for _, f := range StructFields(v) {
			n += opsOf(f)
		}
		return n
	case bitpack.KindArray:
		if n := v.Len * opsOf(v.Elem); n <= unrollLimit {
			return n
		}
	}
	return 1
}

// UnrolledArray reports whether v is an array bitpack unrolls.
func UnrolledArray(v *Value) bool {
	return v.Kind == bitpack.KindArray && v.Len*opsOf(v.Elem) <= unrollLimit
}

// DeltaShortBits is the width of a b-bit number's short form: none under
// 4 bits, else half the bits rounded up, at most 8.
func DeltaShortBits(b int) int {
	if b < 4 {
		return 0
	}
	return min((b+1)/2, 8)
}

// ScalarCodes are a fixed-width field's codes: the largest offset code,
// the XOR from offset code to wire code (a raw signed integer's sign
// flip), and the integer value of offset code 0 (as a uint64).
func ScalarCodes(v *Value) (limit, flip, lo uint64) {
	switch v.Kind {
	case bitpack.KindBool:
		return 1, 0, 0
	case bitpack.KindInt:
		l, h, f := IntBounds(v)
		return uint64(h) - uint64(l), f, uint64(l)
	case bitpack.KindUint:
		l, h := UintBounds(v)
		return h - l, 0, l
	case bitpack.KindCompressedFloat:
		return uint64(v.Steps), 0, 0
	}
	return ^uint64(0) >> (64 - v.FloatBits), 0, 0 // raw floats: their bits
}

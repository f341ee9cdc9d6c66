package bitpacktest

import (
	"reflect"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/deepbits"
)

// go-cmp decides every comparison and explains every difference, but it is
// slow on deep values: its slice diffing compares each element twice per
// level, so nested slices cost exponentially in their depth. The walkers
// here are a fast first pass that is never more lenient than the go-cmp
// options they stand in for: when they say "equal", go-cmp would too; when
// they do not, go-cmp is asked (and has the final word).

// equal reports whether got matches want under the round-trip rules (see
// cmpOptions): wire fields only, floats by bits, quaternions within
// tolerance, nil and empty slices (and maps) alike, maps entry by entry.
// Custom types must be identical.
func equal(n *node, want, got reflect.Value) bool {
	switch n.kind {
	case bitpack.KindBool:
		return want.Bool() == got.Bool()
	case bitpack.KindInt:
		return want.Int() == got.Int()
	case bitpack.KindUint:
		return want.Uint() == got.Uint()
	case bitpack.KindTime: // the same instant: decoding gives UTC, without a monotonic reading
		return want.Interface().(time.Time).Equal(got.Interface().(time.Time))
	case bitpack.KindFloat, bitpack.KindCompressedFloat:
		return deepbits.SameFloat(want, got)
	case bitpack.KindString:
		return want.String() == got.String()
	case bitpack.KindQuat:
		return quatAngle(getQuat(want, n.f.QuatPaths), getQuat(got, n.f.QuatPaths)) <= n.quatTol
	case bitpack.KindBytes, bitpack.KindByteArray:
		return deepbits.Identical(want, got) || (want.Len() == 0 && got.Len() == 0)
	case bitpack.KindArray, bitpack.KindSlice, bitpack.KindSparse:
		if want.Len() != got.Len() {
			return false
		}
		for i := 0; i < want.Len(); i++ {
			if !equal(n.elem, want.Index(i), got.Index(i)) {
				return false
			}
		}
		return true
	case bitpack.KindMap:
		// By key (integers, strings and bools match exactly); nil and
		// empty alike.
		if want.Len() != got.Len() {
			return false
		}
		var it reflect.MapIter
		it.Reset(want)
		for it.Next() {
			g := got.MapIndex(it.Key())
			if !g.IsValid() || !equal(n.elem, it.Value(), g) {
				return false
			}
		}
		return true
	case bitpack.KindPointer:
		if want.IsNil() || got.IsNil() {
			return want.IsNil() && got.IsNil()
		}
		return equal(n.elem, want.Elem(), got.Elem())
	case bitpack.KindStruct:
		for _, c := range n.fields {
			if !equal(c, want.Field(c.index), got.Field(c.index)) {
				return false
			}
		}
		return true
	case bitpack.KindUnion:
		if want.IsNil() || got.IsNil() {
			return want.IsNil() && got.IsNil()
		}
		w, g := want.Elem(), got.Elem()
		if w.Type() != g.Type() {
			return false
		}
		for _, c := range n.members {
			if c.typ == w.Type() {
				return equal(c, w, g)
			}
		}
		return false
	case bitpack.KindCheck:
		return true
	}
	return deepbits.Identical(want, got)
}

package bitpacktest

import (
	"math"
	"reflect"
	"time"

	"github.com/bitpack-go/bitpack"
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
		return sameFloat(want, got)
	case bitpack.KindString:
		return want.String() == got.String()
	case bitpack.KindQuat:
		return quatAngle(getQuat(want, n.f.QuatPaths), getQuat(got, n.f.QuatPaths)) <= n.quatTol
	case bitpack.KindBytes, bitpack.KindByteArray:
		return identical(want, got, 0) || (want.Len() == 0 && got.Len() == 0)
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
	return identical(want, got, 0)
}

func sameFloat(a, b reflect.Value) bool {
	if a.Kind() == reflect.Float32 {
		return float32Bits(a) == float32Bits(b)
	}
	return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
}

// identical reports whether a and b (of one type) are the same in every
// field, exported or not: floats by bits, nil and empty slices (and maps)
// distinct, maps entry by entry. Values are trees; past 1000 levels
// identical gives up (false).
func identical(a, b reflect.Value, depth int) bool {
	if depth > 1000 {
		return false
	}
	switch a.Kind() {
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return sameFloat(a, b)
	case reflect.Complex64, reflect.Complex128:
		x, y := a.Complex(), b.Complex()
		return math.Float64bits(real(x)) == math.Float64bits(real(y)) && math.Float64bits(imag(x)) == math.Float64bits(imag(y))
	case reflect.String:
		return a.String() == b.String()
	case reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return false
		}
		fallthrough
	case reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !identical(a.Index(i), b.Index(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() && b.IsNil()
		}
		if a.Kind() == reflect.Interface && a.Elem().Type() != b.Elem().Type() {
			return false
		}
		return identical(a.Elem(), b.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !identical(a.Field(i), b.Field(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Map:
		return identicalMaps(a, b, depth)
	}
	// Channels, functions, maps with other keys: leave the verdict to go-cmp.
	return false
}

// identicalMaps is identical for maps whose keys are integers, strings or
// bools (bitpack's map keys), found by MapIndex exactly as go-cmp matches
// them (==). Other keys (a float key may be NaN, which no lookup finds)
// get no verdict: false, and go-cmp decides.
func identicalMaps(a, b reflect.Value, depth int) bool {
	switch a.Type().Key().Kind() {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
	default:
		return false
	}
	if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
		return false
	}
	var it reflect.MapIter
	it.Reset(a)
	for it.Next() {
		v := b.MapIndex(it.Key())
		if !v.IsValid() || !identical(it.Value(), v, depth+1) {
			return false
		}
	}
	return true
}

// Package deepbits compares values bit for bit: the fast first pass of the
// tests' comparisons (bitpacktest's, gen's), never more lenient than the
// go-cmp options it stands in for. When it says "identical", go-cmp with
// floats compared by bits (or NaNs equated, or time.Time's Equal) would
// too; when it does not, go-cmp is asked and has the final word. go-cmp
// alone is slow on deep values: its slice diffing compares each element
// twice per level.
package deepbits

import (
	"math"
	"reflect"
)

var float32Ptr = reflect.TypeFor[*float32]()

// SameFloat reports whether two floats (float32 or float64, named or
// not) have the same bits.
func SameFloat(a, b reflect.Value) bool {
	if a.Kind() == reflect.Float32 {
		return Float32Bits(a) == Float32Bits(b)
	}
	return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
}

// Identical reports whether a and b (of one type) are the same in every
// field, exported or not: floats by bits, nil and empty slices (and maps)
// distinct, maps entry by entry. Values are trees; past 1000 levels
// Identical gives up (false).
func Identical(a, b reflect.Value) bool { return identical(a, b, 0) }

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
		return SameFloat(a, b)
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

// Float32Bits reads a float32 (or a named float32) without going through
// float64, which quiets a signaling NaN on some machines.
func Float32Bits(v reflect.Value) uint32 {
	if v.CanAddr() && v.CanInterface() { // through a pointer: no allocation
		return math.Float32bits(*v.Addr().Convert(float32Ptr).Interface().(*float32))
	}
	if v.CanInterface() {
		return math.Float32bits(v.Convert(reflect.TypeFor[float32]()).Interface().(float32))
	}
	return math.Float32bits(float32(v.Float()))
}

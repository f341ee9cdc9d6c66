package gen

import (
	"math"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// diffBits is go-cmp's Diff of x and y with opts, or "" at once where
// sameBits finds them equal.
func diffBits(x, y any, opts ...cmp.Option) string {
	if sameBits(x, y) {
		return ""
	}
	return cmp.Diff(x, y, opts...)
}

// sameBits reports whether a and b hold the same bits: what
// reflect.DeepEqual checks, but floats by their bits (so -0 and +0
// differ, and a NaN equals the same NaN) and without Equal methods. The
// decode comparisons try it before go-cmp, which said the same of equal
// values in ten times the time: a value sameBits calls equal is equal by
// any of their go-cmp options (a float's bits, NaNs equal, time.Time's
// Equal), and any other pair goes to go-cmp, which decides and words the
// difference.
func sameBits(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.IsValid() == vb.IsValid() && (!va.IsValid() || sameValueBits(va, vb))
}

func sameValueBits(a, b reflect.Value) bool {
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32:
		return math.Float32bits(float32(a.Float())) == math.Float32bits(float32(b.Float()))
	case reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case reflect.String:
		return a.String() == b.String()
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		fallthrough
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			if !sameValueBits(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !sameValueBits(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() && b.IsNil()
		}
		return sameValueBits(a.Elem(), b.Elem())
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for it := a.MapRange(); it.Next(); {
			w := b.MapIndex(it.Key())
			if !w.IsValid() || !sameValueBits(it.Value(), w) {
				return false
			}
		}
		return true
	}
	return false // other kinds (funcs, channels, complex): left to go-cmp
}

func TestSameBits(t *testing.T) {
	type inner struct {
		f float32
		s []int8
	}
	type outer struct {
		P *inner
		M map[string]float64
		A [2]uint16
		I any
	}
	nan := math.Float64frombits(0x7ff8000000000001)
	for _, c := range []struct {
		name string
		a, b any
		same bool
	}{
		{"equal structs", outer{P: &inner{1.5, []int8{-1}}, M: map[string]float64{"a": 2}, A: [2]uint16{1, 2}, I: 3}, outer{P: &inner{1.5, []int8{-1}}, M: map[string]float64{"a": 2}, A: [2]uint16{1, 2}, I: 3}, true},
		{"-0 and +0", float32(math.Copysign(0, -1)), float32(0), false},
		{"the same NaN", nan, nan, true},
		{"two NaNs", nan, math.Float64frombits(0x7ff8000000000002), false},
		{"nil and empty slice", []int8(nil), []int8{}, false},
		{"nil and empty map", outer{}, outer{M: map[string]float64{}}, false},
		{"unexported float", inner{f: 1}, inner{f: 2}, false},
		{"pointee", outer{P: &inner{}}, outer{P: &inner{s: []int8{0}}}, false},
		{"nil pointer", outer{P: &inner{}}, outer{}, false},
		{"map value", map[string]float64{"a": 1}, map[string]float64{"a": 2}, false},
		{"map key", map[string]float64{"a": 1}, map[string]float64{"b": 1}, false},
		{"interface type", outer{I: int32(3)}, outer{I: int64(3)}, false},
		{"array element", [2]uint16{1, 2}, [2]uint16{1, 3}, false},
		{"nil", nil, nil, true},
		{"nil and zero", nil, 0, false},
		{"complex (go-cmp's)", complex64(1), complex64(1), false},
	} {
		if got := sameBits(c.a, c.b); got != c.same {
			t.Errorf("%s: sameBits = %v, want %v", c.name, got, c.same)
		}
	}
	// What sameBits leaves to go-cmp, go-cmp decides.
	if d := diffBits(1.0, 2.0); d == "" {
		t.Error("diffBits(1.0, 2.0) found no difference")
	}
	if d := diffBits(complex64(1), complex64(1)); d != "" {
		t.Errorf("diffBits of equal complex numbers: %s", d)
	}
}

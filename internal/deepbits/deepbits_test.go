package deepbits

import (
	"math"
	"reflect"
	"testing"
)

func TestIdentical(t *testing.T) {
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
	// A signaling float32 NaN and the quiet NaN a trip through float64
	// turns it into (on x86 and ARM): read without float64, they differ.
	snan1, snan2 := math.Float32frombits(0x7f800001), math.Float32frombits(0x7fc00001)
	for _, c := range []struct {
		name string
		a, b any
		same bool
	}{
		{"equal structs", outer{P: &inner{1.5, []int8{-1}}, M: map[string]float64{"a": 2}, A: [2]uint16{1, 2}, I: 3}, outer{P: &inner{1.5, []int8{-1}}, M: map[string]float64{"a": 2}, A: [2]uint16{1, 2}, I: 3}, true},
		{"-0 and +0", float32(math.Copysign(0, -1)), float32(0), false},
		{"the same NaN", nan, nan, true},
		{"two NaNs", nan, math.Float64frombits(0x7ff8000000000002), false},
		{"a signaling NaN and its quiet twin", snan1, snan2, false},
		{"nil and empty slice", []int8(nil), []int8{}, false},
		{"nil and empty map", outer{}, outer{M: map[string]float64{}}, false},
		{"unexported float", inner{f: 1}, inner{f: 2}, false},
		{"pointee", outer{P: &inner{}}, outer{P: &inner{s: []int8{0}}}, false},
		{"nil pointer", outer{P: &inner{}}, outer{}, false},
		{"map value", map[string]float64{"a": 1}, map[string]float64{"a": 2}, false},
		{"map key", map[string]float64{"a": 1}, map[string]float64{"b": 1}, false},
		{"float keys (no verdict)", map[float32]int8{1: 1}, map[float32]int8{1: 1}, false},
		{"interface type", outer{I: int32(3)}, outer{I: int64(3)}, false},
		{"array element", [2]uint16{1, 2}, [2]uint16{1, 3}, false},
		{"complex by bits", complex64(complex(1, math.Copysign(0, -1))), complex64(1), false},
		{"channels (no verdict)", make(chan int), make(chan int), false},
	} {
		if got := Identical(reflect.ValueOf(c.a), reflect.ValueOf(c.b)); got != c.same {
			t.Errorf("%s: Identical = %v, want %v", c.name, got, c.same)
		}
	}
	// A chain deeper than 1000 levels gets no verdict.
	type node struct{ Next *node }
	a, b := &node{}, &node{}
	for range 1100 {
		a, b = &node{a}, &node{b}
	}
	if Identical(reflect.ValueOf(a), reflect.ValueOf(b)) {
		t.Error("Identical gave a verdict on 1100 levels")
	}
}

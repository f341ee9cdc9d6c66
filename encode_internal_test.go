package bitpack

import (
	"math"
	"reflect"
	"testing"
)

// TestFloat32Bounds: the encode program tests a float32 field against its
// bounds in float32 (ceil32 and floor32 of the float64 bounds); for every
// float32 near the bounds the verdict must be the float64 one's.
func TestFloat32Bounds(t *testing.T) {
	for _, b := range [][3]float64{{-1024, 1024, 0.01}, {-0.1, 0.1, 0.001}, {0, 1, 0.3}, {-3.3, 7.7, 0.05}, {1e-3, 2e-3, 1e-6}, {-1, 1, 0.0001}} {
		p := prepareQuantizer(32, b[0], b[1], b[2])
		if p.err != nil {
			t.Fatal(p.err)
		}
		lo, hi := ceil32(p.lo), floor32(p.hi)
		for _, edge := range []float64{p.lo, p.hi} {
			at := math.Float32bits(float32(edge))
			for d := uint32(0); d < 1<<12; d++ {
				for _, f := range []float32{math.Float32frombits(at + d), math.Float32frombits(at - d)} {
					want := float64(f) >= p.lo && float64(f) <= p.hi
					if got := f >= lo && f <= hi; got != want {
						t.Fatalf("bounds %v: %v accepted=%v in float32, %v in float64 (lo %v hi %v)", b, f, got, want, p.lo, p.hi)
					}
				}
			}
		}
	}
}

type encodeGroupsGrunt struct {
	ID     uint16     `bits:"range=0..2047"`
	Pos    [3]float32 `bits:"float,min=-1024,max=1024,res=0.1"`
	Health uint8      `bits:"range=1..100"`
	Name   string     `bits:"maxlen=8"`
	Quat   [4]float32 `bits:"quat,bits=9"`
	Wide   [4]float32 `bits:"quat,bits=21"`
	Flags  [5]uint16
}

// TestEncodeGroups pins how the encode program packs fields: greedily into
// groups of at most 64 bits, a float vector as one step, every other op a
// step of its own (ending the group before it).
func TestEncodeGroups(t *testing.T) {
	p, err := planOf(reflect.TypeFor[encodeGroupsGrunt]())
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		kind               uint8
		shift, count, bits uint8
		last               bool
	}
	want := []step{
		{accU16, 0, 0, 0, false},
		{accQ32, 11, 3, 0, false}, // 15 bits each
		{accU8, 56, 0, 63, true},
		{accOp, 0, 0, 0, false},   // the string
		{accQuat, 0, 0, 29, true}, // 2 + 3×9 bits, alone: an op follows
		{accOp, 0, 0, 0, false},   // the 2 + 3×21-bit quaternion takes more than a word
		{accU16, 0, 0, 0, false},  // Flags, unrolled: four fill a word...
		{accU16, 16, 0, 0, false},
		{accU16, 32, 0, 0, false},
		{accU16, 48, 0, 64, true},
		{accU16, 0, 0, 16, true}, // ...and the fifth starts the next
	}
	var got []step
	for _, st := range p.enc {
		got = append(got, step{st.kind, st.shift, st.count, st.groupBits, st.last})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("encode program:\n got %v\nwant %v", got, want)
	}
}

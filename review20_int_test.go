package bitpack_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// r20Wide64 and r20Wide are alike on the wire (int and uint travel as 64
// bits everywhere): r20Wide64 writes values a 32-bit int cannot hold, and
// r20Wide must refuse them on a 32-bit host through every path that
// decodes an int: columns (slices of 4+ structs), raw slices, arrays, map
// keys and values, pointees, sparse slots, union-free deltas.
type r20Wide64 struct {
	A  int64
	S  []int64          `bits:"maxlen=8"`
	C  []r20Pair64      `bits:"maxlen=8"`
	Ar [3]uint64        //
	M  map[int64]uint64 `bits:"maxlen=4"`
	P  *int64           //
	Sp []*uint64        `bits:"sparse,maxlen=4"`
	R  int64            `bits:"range=0..5000000000"`
	Un int64            `bits:"unit=1000,range=-5000000..5000000"`
}

type r20Pair64 struct {
	X int64  `bits:"range=-5000000000..5000000000"`
	Y uint64 `bits:"range=0..5000000000"`
}

type r20Wide struct {
	A  int
	S  []int        `bits:"maxlen=8"`
	C  []r20Pair    `bits:"maxlen=8"`
	Ar [3]uint      //
	M  map[int]uint `bits:"maxlen=4"`
	P  *int         //
	Sp []*uint      `bits:"sparse,maxlen=4"`
	R  int          `bits:"range=0..5000000000"`
	Un int          `bits:"unit=1000,range=-5000000..5000000"`
}

type r20Pair struct {
	X int  `bits:"range=-5000000000..5000000000"`
	Y uint `bits:"range=0..5000000000"`
}

func r20Small() *r20Wide64 {
	one, two := int64(1), uint64(2)
	return &r20Wide64{A: 1, S: []int64{1, 2}, C: []r20Pair64{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}},
		Ar: [3]uint64{1, 2, 3}, M: map[int64]uint64{1: 1}, P: &one, Sp: []*uint64{nil, &two}, R: 5, Un: 3000}
}

func TestR20WideIntPaths(t *testing.T) {
	big := int64(1) << 33
	cases := []struct {
		name, field string
		set         func(v *r20Wide64)
	}{
		{"int", "field A", func(v *r20Wide64) { v.A = -big }},
		{"raw slice", "field S[1]", func(v *r20Wide64) { v.S[1] = big }},
		{"columns X", "field C[3].X", func(v *r20Wide64) { v.C[3].X = -big / 2 }},
		{"columns Y", "field C[4].Y", func(v *r20Wide64) { v.C[4].Y = uint64(big / 2) }},
		{"array", "field Ar[2]", func(v *r20Wide64) { v.Ar[2] = uint64(big) }},
		{"map key", "field M", func(v *r20Wide64) { v.M = map[int64]uint64{big: 1} }},
		{"map value", "field M", func(v *r20Wide64) { v.M = map[int64]uint64{1: uint64(big)} }},
		{"pointee", "field P", func(v *r20Wide64) { *v.P = big }},
		{"sparse", "field Sp[1]", func(v *r20Wide64) { *v.Sp[1] = uint64(big) }},
		{"range", "field R", func(v *r20Wide64) { v.R = big / 2 }},
		{"unit", "field Un", func(v *r20Wide64) { v.Un = -4000000000 }},
	}
	for _, c := range cases {
		cur := r20Small()
		c.set(cur)
		p, err := bitpack.Marshal(cur)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		d, err := bitpack.AppendDelta(nil, r20Small(), cur)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, way := range []string{"packet", "delta"} {
			var v r20Wide
			base := r20Wide{A: 7}
			var err error
			if way == "packet" {
				err = bitpack.Unmarshal(p, &v)
			} else {
				var b r20Wide
				if err := bitpack.Unmarshal(mustMarshal(t, r20Small()), &b); err != nil {
					t.Fatal(err)
				}
				v = base
				err = bitpack.UnmarshalDelta(d, &b, &v)
			}
			if strconv.IntSize == 64 {
				if err != nil {
					t.Errorf("%s, %s: %v", c.name, way, err)
				}
				continue
			}
			if !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), "does not fit a 32-bit") {
				t.Errorf("%s, %s on a 32-bit host: %v; want ErrRange at %s: does not fit a 32-bit ...", c.name, way, err, c.field)
			}
			if way == "delta" && v.A != 7 {
				t.Errorf("%s, delta: failed decode changed the value: %+v", c.name, v)
			}
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	p, err := bitpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestR20WideIntSameBytes: values a 32-bit int holds, negative ones
// included, encode and delta-encode as their int64 twins do.
func TestR20WideIntSameBytes(t *testing.T) {
	n1, u2 := -1, uint(2)
	a := &r20Wide{A: -5, S: []int{-1, 2147483647}, C: []r20Pair{{-2147483648, 4294967295}, {2, 2}, {3, 3}, {4, 4}},
		Ar: [3]uint{4294967295, 0, 1}, M: map[int]uint{-3: 4294967295, 5: 0}, P: &n1, Sp: []*uint{nil, &u2}, R: 2147483647, Un: -2147483000}
	m1, m2 := int64(-1), uint64(2)
	a64 := &r20Wide64{A: -5, S: []int64{-1, 2147483647}, C: []r20Pair64{{-2147483648, 4294967295}, {2, 2}, {3, 3}, {4, 4}},
		Ar: [3]uint64{4294967295, 0, 1}, M: map[int64]uint64{-3: 4294967295, 5: 0}, P: &m1, Sp: []*uint64{nil, &m2}, R: 2147483647, Un: -2147483000}
	if got, want := mustMarshal(t, a), mustMarshal(t, a64); string(got) != string(want) {
		t.Errorf("Marshal = %x, want %x (int64 twin)", got, want)
	}
	var b r20Wide
	if err := bitpack.Unmarshal(mustMarshal(t, r20Small()), &b); err != nil {
		t.Fatal(err)
	}
	got, err := bitpack.AppendDelta(nil, &b, a)
	if err != nil {
		t.Fatal(err)
	}
	want, err := bitpack.AppendDelta(nil, r20Small(), a64)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("AppendDelta = %x, want %x (int64 twin)", got, want)
	}
	var v r20Wide
	if err := bitpack.UnmarshalDelta(got, &b, &v); err != nil || v.A != -5 || v.Un != -2147483000 || v.C[0].X != -2147483648 || v.M[-3] != 4294967295 {
		t.Errorf("UnmarshalDelta = %+v, %v", v, err)
	}
}

package bitpack_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------------------
// Sparse arrays.

type obj struct {
	V uint8 `bits:"range=0..15"` // 4 bits
}

type tSparseArray struct {
	Objs [10]*obj `bits:"sparse"`
}

type tSparseSlice struct {
	Objs []*obj `bits:"sparse,maxlen=16"`
}

// rel is the test's own int_relative encoder (the table in docs/wire.md#int_relative), for expected
// bytes: the difference d = cur - prev picks a tier.
func rel(d uint64, cur uint64) []f {
	tiers := []struct{ lo, hi uint64 }{{2, 6}, {7, 23}, {24, 280}, {281, 4377}, {4378, 69914}}
	if d == 1 {
		return []f{{1, 1}}
	}
	out := []f{{0, 1}}
	for _, t := range tiers {
		if d <= t.hi {
			n := 0
			for span := t.hi - t.lo; span > 0; span >>= 1 {
				n++
			}
			return append(out, f{1, 1}, f{d - t.lo, n})
		}
		out = append(out, f{0, 1})
	}
	return append(out, f{cur, 32})
}

func TestSparseGolden(t *testing.T) {
	present := func(idx ...int) (a [10]*obj) {
		for k, i := range idx {
			a[i] = &obj{V: uint8(k + 1)}
		}
		return a
	}
	// Indices 0, 1, 5, 9 of 10: differences 1, 1, 4, 4, then the end marker 10-9 = 1.
	elems := bitsOf(rel(1, 0), f{1, 4}, rel(1, 1), f{2, 4}, rel(4, 5), f{3, 4}, rel(4, 9), f{4, 4}, rel(1, 10))
	tests := []struct {
		name string
		in   any
		want []byte
	}{
		{"array 0,1,5,9 of 10", &tSparseArray{present(0, 1, 5, 9)},
			bitsOf(f{1, 1}, f{1, 4}, f{1, 1}, f{2, 4}, f{0, 1}, f{1, 1}, f{2, 3}, f{3, 4}, f{0, 1}, f{1, 1}, f{2, 3}, f{4, 4}, f{1, 1})},
		{"empty array: only the marker int_relative(-1, 10)", &tSparseArray{}, bitsOf(f{0, 1}, f{0, 1}, f{1, 1}, f{4, 5})},
		{"slice 0,1,5,9 of 10", &tSparseSlice{func() []*obj { a := present(0, 1, 5, 9); return a[:] }()},
			append(bitsOf(f{10, 5}), 0)[:0:0]},
		{"empty slice", &tSparseSlice{}, bitsOf(f{0, 5}, f{1, 1})},
	}
	// The slice row: a 5-bit length, then the same element stream.
	tests[2].want = bitsOf(f{10, 5}, f{1, 1}, f{1, 4}, f{1, 1}, f{2, 4}, f{0, 1}, f{1, 1}, f{2, 3}, f{3, 4}, f{0, 1}, f{1, 1}, f{2, 3}, f{4, 4}, f{1, 1})
	if !bytes.Equal(elems, tests[0].want) {
		t.Fatalf("the rel helper disagrees with the written-down bits: %x vs %x", elems, tests[0].want)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := bitpack.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("Marshal = %x, want %x", got, tt.want)
			}
			out := reflect.New(reflect.TypeOf(tt.in).Elem())
			if err := bitpack.Unmarshal(got, out.Interface()); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.in, out.Interface()); diff != "" && !strings.Contains(tt.name, "empty slice") {
				t.Fatalf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSparseCost: a 4000-slot world with five objects costs a few bits per
// object instead of 4000 presence bits.
func TestSparseCost(t *testing.T) {
	type world struct {
		Objs [4000]*obj `bits:"sparse"`
	}
	type dense struct {
		Objs [4000]*obj
	}
	var w world
	var d dense
	idx := []int{17, 250, 1024, 2048, 3999}
	for _, i := range idx {
		w.Objs[i], d.Objs[i] = &obj{V: 9}, &obj{V: 9}
	}
	sparse, err := bitpack.Marshal(&w)
	if err != nil {
		t.Fatal(err)
	}
	// Differences 18, 233, 774, 1024, 1951, then 1 for the marker: tiers of
	// 8, 13, 18, 18, 18 and 1 bits, plus 4 bits per object.
	wantBits := 8 + 13 + 18 + 18 + 18 + 1 + 5*4
	if len(sparse) != (wantBits+7)/8 {
		t.Fatalf("sparse world is %d bytes, want %d (%d bits)", len(sparse), (wantBits+7)/8, wantBits)
	}
	full, err := bitpack.Marshal(&d)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != (4000+5*4+7)/8 {
		t.Fatalf("dense world is %d bytes", len(full))
	}
	t.Logf("4000 slots, 5 objects: sparse %d bytes, presence bits %d bytes", len(sparse), len(full))
	var back world
	if err := bitpack.Unmarshal(sparse, &back); err != nil {
		t.Fatal(err)
	}
	for i, o := range back.Objs {
		if (o != nil) != (w.Objs[i] != nil) {
			t.Fatalf("slot %d: got %v", i, o)
		}
	}
}

func TestSparseRefusals(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		msg  string
	}{
		// d = 12 from -1: index 11 of a 10-slot array.
		{"index beyond length", bitsOf(rel(12, 11)), "field Objs at bit 0: sparse index 11 out of range for length 10"},
		// Element 5, then the absolute tier claiming index 3.
		{"index not increasing", bitsOf(rel(6, 5), f{0, 4}, f{0, 6}, f{3, 32}), "current 3 is not greater than previous 5"},
		{"index repeated", bitsOf(rel(6, 5), f{0, 4}, f{0, 6}, f{5, 32}), "current 5 is not greater than previous 5"},
		{"absolute tier for a small step", bitsOf(rel(6, 5), f{0, 4}, f{0, 6}, f{9, 32}), "difference 4 sent in the absolute tier"},
		{"no end marker", bitsOf(rel(1, 0), f{0, 4}), "needs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tSparseArray{}
			v.Objs[2] = &obj{V: 7}
			err := bitpack.Unmarshal(tt.data, &v)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.msg)
			}
			if !errors.Is(err, bitpack.ErrRange) && !errors.Is(err, bitpack.ErrOverflow) {
				t.Fatalf("err = %v wraps neither ErrRange nor ErrOverflow", err)
			}
			if v.Objs[2] == nil || v.Objs[2].V != 7 || v.Objs[0] != nil {
				t.Fatal("failed decode changed the value")
			}
		})
	}
	// A slice longer than maxlen is refused on both sides.
	if _, err := bitpack.Marshal(&tSparseSlice{Objs: make([]*obj, 17)}); !errors.Is(err, bitpack.ErrRange) {
		t.Fatalf("encode: %v", err)
	}
	if err := bitpack.Unmarshal(bitsOf(f{17, 5}, f{1, 1}), new(tSparseSlice)); !errors.Is(err, bitpack.ErrRange) {
		t.Fatalf("decode: %v", err)
	}
}

package bitpack_test

import (
	"bytes"
	"testing"

	"github.com/bitpack-go/bitpack"
)

type itemsProbe struct {
	Small  [4]uint8                 `bits:"bits=3"`     // 4 ops: unrolled
	Large  [40]uint8                `bits:"bits=3"`     // 40 ops: a loop
	Nested [3][4]uint16             `bits:"bits=9"`     // 12 ops: unrolled, and its elements
	Empty  [0]uint32                ``                  // no elements: one value only
	Pinned uint8                    `bits:"range=5..5"` // 0 bits: one value only
	Voids  [3]struct{ X [0]uint16 } ``                  // elements without items
	Name   string                   `bits:"maxlen=4"`
	Start  bitpack.Check            `bits:"check=start"`
	Rows   [6][8]bool               `` // 48 ops: a loop of unrolled rows
}

// TestDeltaItemsOfLayout: Field.Unrolled says which arrays the compiler
// unrolls (at most 32 ops), Field.DeltaItem which values are items of
// their struct's delta; the delta encoding agrees (an unchanged item
// costs its changed bit, a value of one value costs nothing).
func TestDeltaItemsOfLayout(t *testing.T) {
	l, err := bitpack.Describe(&itemsProbe{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]bool{ // unrolled, item
		"Small": {true, true}, "Large": {false, true}, "Nested": {true, true}, "Empty": {true, false},
		"Pinned": {false, false}, "Voids": {true, false}, "Name": {false, true}, "Start": {false, false},
		"Rows": {false, true},
	}
	for _, f := range l.Root.Fields {
		w, ok := want[f.Name]
		if !ok {
			t.Errorf("unexpected field %s", f.Name)
			continue
		}
		if got := [2]bool{f.Unrolled(), f.DeltaItem()}; got != w {
			t.Errorf("%s: Unrolled, DeltaItem = %v, want %v", f.Name, got, w)
		}
	}
	if f := l.Root.Fields[2].Elem; !f.Unrolled() || !f.DeltaItem() {
		t.Errorf("Nested's element [4]uint16: Unrolled %v, DeltaItem %v; want both", f.Unrolled(), f.DeltaItem())
	}
	// Five items (Small, Large, Nested, Name, Rows): a delta that changes
	// only Name is its changed bit 1, the items' bits 0 0 0 1, Name's
	// length 3 in 3 bits (1 1 0), padding to the byte, "abc", then Rows'
	// bit 0 and padding.
	base := itemsProbe{Name: "ab"}
	next := base
	next.Name = "abc"
	d, err := bitpack.AppendDelta(nil, &base, &next)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{0x71, 'a', 'b', 'c', 0x00}; !bytes.Equal(d, want) {
		t.Errorf("delta % x, want % x", d, want)
	}
}

package bitpack_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// TestDescribeHandsOutCopies: a Layout is the caller's to change. Changing
// every field of every node of a returned layout — and of a Codec's —
// changes nothing bitpack uses: the Fingerprint, the next Describe, the
// bytes Marshal writes. (It used to hand out the plan's own tree: changing
// a range there changed the Fingerprint while Marshal kept the old bytes.)
func TestDescribeHandsOutCopies(t *testing.T) {
	v := Envelope{First: Move{X: 3}, Rest: []Msg{&Fire{Power: 2}}}
	before, err := bitpack.Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}
	fp, _ := bitpack.Fingerprint(&v)
	first, _ := bitpack.Describe(&v)
	text := first.String()
	schema := first.Schema()

	spoil := func(l bitpack.Layout) {
		seen := map[*bitpack.Field]bool{}
		var walk func(f *bitpack.Field)
		walk = func(f *bitpack.Field) {
			if f == nil || seen[f] {
				return
			}
			seen[f] = true
			for _, c := range f.Fields {
				walk(c)
			}
			for _, m := range f.Members {
				walk(m)
			}
			walk(f.Elem)
			f.Name, f.Bits, f.MaxLen, f.Len, f.IntMin, f.IntMax, f.UintMax = "spoiled", 99, 99, 99, -99, 99, 99
			f.Kind, f.MinBits, f.MaxBits = bitpack.KindBool, 1, 1
			f.Fields, f.Members, f.MemberTypes, f.Elem = nil, nil, nil, nil
		}
		walk(l.Root)
	}
	spoil(first)
	c, err := bitpack.NewCodec[Envelope]()
	if err != nil {
		t.Fatal(err)
	}
	spoil(c.Layout())

	if again, _ := bitpack.Fingerprint(&v); again != fp {
		t.Errorf("Fingerprint %08x became %08x", fp, again)
	}
	second, _ := bitpack.Describe(&v)
	if second.String() != text || second.Schema() != schema {
		t.Errorf("Describe changed:\n%s\nwant\n%s", second, text)
	}
	if reflect.ValueOf(second.Root).Pointer() == reflect.ValueOf(first.Root).Pointer() {
		t.Error("two Describes share their root")
	}
	if after, err := bitpack.Marshal(&v); err != nil || !bytes.Equal(after, before) {
		t.Errorf("Marshal = %x, %v; want %x", after, err, before)
	}
}

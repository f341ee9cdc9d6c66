package bitpack_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/zerobit"
)

// Packets that claim values taking no bits (issue 26, item 3): each is
// refused by the allowances (or a count check) with exactly the error the
// table in internal/zerobit gives, the one every generated client must
// give too, having allocated no more than its bits allow.
func TestZeroBitRefusals(t *testing.T) {
	for _, c := range zerobit.Cases() {
		v := reflect.New(reflect.TypeOf(c.Type))
		err := bitpack.Unmarshal(c.Packet, v.Interface())
		var e *bitpack.Error
		if !errors.As(err, &e) || !errors.Is(err, c.Err) || e.Path != c.Path || e.Bit != c.Bit || e.Detail != c.Detail {
			t.Errorf("%s: %v\nwant %v at %q, bit %d: %s", c.Name, err, c.Err, c.Path, c.Bit, c.Detail)
			continue
		}
		l, err := bitpack.Describe(c.Type)
		if err != nil {
			t.Fatal(err)
		}
		if want, ok := modelRefusal(l, c.Packet, false); !ok || want != (truncRefusal{c.Path, c.Bit, c.Detail}) {
			t.Errorf("%s: docs/wire.md's rules (the model) refuse it as %v (%v)", c.Name, want, ok)
		}
		if !v.Elem().IsZero() {
			t.Errorf("%s: the refused decode changed the value", c.Name)
		}
		if grew, most := allocatedBy(c.Type, func() { _ = bitpack.Unmarshal(c.Packet, v.Interface()) }), uint64(1<<20+64*8*len(c.Packet)); grew > most {
			t.Errorf("%s: the refusal allocated %d bytes, more than the %d its allowance has", c.Name, grew, most)
		}
	}
}

// TestZeroBitElementsPaidFor: 64 bytes pay for 575 elements that take no
// bits (2 values for Leaves' fields, then 64 each: 36802 of 4096 + 64 ×
// 512), which decode, and Marshal writes them as that packet; 576 are
// refused by both.
func TestZeroBitElementsPaidFor(t *testing.T) {
	packet := zerobit.LeavesPacket(575, 16, 64)
	var v zerobit.Leaves
	if err := bitpack.Unmarshal(packet, &v); err != nil || len(v.L) != 575 || len(v.Pad) != 61 {
		t.Fatalf("575 Leaves: %v, %d elements, %d pad bytes", err, len(v.L), len(v.Pad))
	}
	if p, err := bitpack.Marshal(&v); err != nil || !reflect.DeepEqual(p, packet) {
		t.Errorf("Marshal of the 575 Leaves: % x, %v; want % x", p, err, packet)
	}
	v.L = append(v.L, zerobit.Leaf{})
	want := "bitpack: encode zerobit.Leaves: field L: 36864 values would take the decode past the 36864 values it may visit for this input (4096 plus 64 per bit): the packet claims more values than its bits can pay for"
	if _, err := bitpack.Marshal(&v); err == nil || err.Error() != want {
		t.Errorf("Marshal of 576 Leaves: %v\nwant %s", err, want)
	}
}

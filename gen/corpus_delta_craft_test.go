package gen

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/rules"
)

// Deltas built by hand for the delta corpus: a fixed-width field's change
// out of its codes' range, on each of bitpack's decoders — inline (a
// value's own fields, a flat list's element while the packet holds its
// widest form) and the field's kind (unit= fields, an unrolled array's
// elements, a flat list's element near the packet's end) — which word it
// one way. The clients are compared with Go's words on each, and
// TestDeltaCrafts checks that Go gives the refusal each was built for.

type deltaCraft struct {
	name   string
	base   any     // a pointer to a value of a table type
	bits   []int64 // the delta: value, width pairs
	pad    int     // the packet's bytes (zeros after the bits)
	path   string
	bit    int
	detail string
}

func deltaCrafts() []deltaCraft {
	ranges := &Ranges{Health: 3, Fixed: 5, NegOne: -1, Upper: 3000000000, High: 18446744073709551000, Low: math.MinInt64, UintR: 100}
	units := &Units{Lvl: 1}
	low := &Containers{IDs: []uint32{5}}
	low.Ammo[0] = 3
	high := &Containers{IDs: []uint32{4294967290}}
	t0 := time.Unix(0, 0).UTC()
	stamps := &Stamps{At: t0, Born: t0, Deep: t0, Tick: t0, Fine: t0, Near: time.Unix(1500, 0).UTC(), Pair: [2]time.Time{t0, t0}}
	epochs := &Epochs{Edge: t0, Ns: t0, Big: t0, One: time.Unix(5*3600, 0).UTC(), Low: rules.TimeOfUnits(math.MinInt64, int64(time.Millisecond)),
		High: rules.TimeOfUnits(9223372036854775000, int64(time.Microsecond)), Odd: t0, Slow: t0}
	// Containers' IDs[0]: the root's changed bit, Ammo and Grid unchanged,
	// IDs changed, not resized, element 0 (int_relative from -1: 1), then
	// at bit 6 the short form (0) with e in 8 bits (h = 128).
	ids := func(e int64) []int64 { return []int64{1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, e, 8} }
	const idsBelow = "change -128 from code 5 leaves the range [0, 4294967295]"
	const idsAbove = "change +128 from code 4294967290 leaves the range [0, 4294967295]"
	hooked := &Hooked{At: Stamp{0x5a3}, N: 4}
	return []deltaCraft{
		// Root, At changed: from bit 2 its high 4 bits, 2 bits of padding,
		// its low 8 (14 bits, where on its own it writes 16), then N
		// unchanged. It is the base's value: not canonical.
		{"Hooked.At: the base's value sent again (a hook that aligns)", hooked, []int64{1, 1, 1, 1, 5, 4, 0, 2, 0xa3, 8, 0, 1}, 3,
			"At", 1, "the delta marks the value changed but it is the base's (not canonical)"},
		// Root, Health changed, then its short form (h = 16) or long form.
		{"Ranges.Health: short form below 0 (inline)", ranges, []int64{1, 1, 1, 1, 0, 1, 0, 5}, 2,
			"Health", 1, "change -16 from code 3 leaves the range [0, 1000]"},
		{"Ranges.Health: long form past the limit (inline)", ranges, []int64{1, 1, 1, 1, 1, 1, 1013, 10}, 2,
			"Health", 1, "value 1013 out of range [0, 1000]"},
		// Root, Timeout changed (16 bits of milliseconds: h = 128).
		{"Units.Timeout: short form below 0 (its kind: unit=)", units, []int64{1, 1, 1, 1, 0, 1, 0, 8}, 2,
			"Timeout", 1, "change -128 from code 0 leaves the range [0, 60000]"},
		{"Units.Timeout: long form past the limit (its kind: unit=)", units, []int64{1, 1, 1, 1, 1, 1, 65535, 16}, 3,
			"Timeout", 1, "value 65535 out of range [0, 60000]"},
		// Root, Ammo changed, element 0 (1), at bit 3 its 8 bits' short
		// form (h = 8) or long form.
		{"Containers.Ammo[0]: short form below 0 (unrolled: its kind)", low, []int64{1, 1, 1, 1, 1, 1, 0, 1, 0, 4}, 2,
			"Ammo[0]", 3, "change -8 from code 3 leaves the range [0, 200]"},
		{"Containers.Ammo[0]: long form past the limit (unrolled: its kind)", low, []int64{1, 1, 1, 1, 1, 1, 1, 1, 255, 8}, 2,
			"Ammo[0]", 3, "value 255 out of range [0, 200]"},
		// 10 bits after the element's start: fewer than its long form's 33.
		{"Containers.IDs[0]: short form below 0 near the end (its kind)", low, ids(0), 2, "IDs[0]", 6, idsBelow},
		{"Containers.IDs[0]: short form below 0 (inline)", low, ids(0), 8, "IDs[0]", 6, idsBelow},
		{"Containers.IDs[0]: short form past the limit near the end (its kind)", high, ids(255), 2, "IDs[0]", 6, idsAbove},
		{"Containers.IDs[0]: short form past the limit (inline)", high, ids(255), 8, "IDs[0]", 6, idsAbove},
		// Times (their kind): a code in units, refused in units. Stamps'
		// root, then At's changed bit and its short form (42 bits: h = 128)
		// or long form.
		{"Stamps.At: short form below 0", stamps, []int64{1, 1, 1, 1, 0, 1, 0, 8}, 2,
			"At", 1, "change -128 from code 0 leaves the range [0, 4102444800000]"},
		{"Stamps.At: long form past the limit", stamps, []int64{1, 1, 1, 1, 1, 1, 4102444800001, 42}, 6,
			"At", 1, "value 4102444800001 out of range [0, 4102444800000]"},
		// At to Fine unchanged, then Near (at +1000 units: code 2000) by its
		// 11 bits' short form (h = 32): e = 63 is +32.
		{"Stamps.Near: short form past the limit", stamps, []int64{1, 1, 0, 5, 1, 1, 0, 1, 63, 6}, 2,
			"Near", 6, "change +32 from code 2000 leaves the range [0, 2000]"},
		// Epochs' Edge (1970: code 2^63) by its long form, code 2^64-1: the
		// units math.MaxInt64, past the latest Unix second.
		{"Epochs.Edge: long form past the limit", epochs, []int64{1, 1, 1, 1, 1, 1, 0xffffffff, 32, 0xffffffff, 32}, 9,
			"Edge", 1, "value 9223372036854775807 out of range [-9223372036854775808, 9223371974719179007]"},
		// Edge, Ns and Big unchanged (One, of 0 bits, is no item), then Low
		// (at its lower bound: code 0) by its 10 bits' short form (h = 16).
		{"Epochs.Low: short form below 0", epochs, []int64{1, 1, 0, 3, 1, 1, 0, 1, 0, 5}, 2,
			"Low", 4, "change -16 from code 0 leaves the range [0, 808]"},
	}
}

// packet is the craft's delta.
func (cr deltaCraft) packet() []byte {
	var w bitio.Writer
	for i := 0; i < len(cr.bits); i += 2 {
		w.WriteBits(uint64(cr.bits[i]), int(cr.bits[i+1]))
	}
	for w.BitsWritten() < 8*cr.pad {
		w.WriteBits(0, 1)
	}
	if err := w.Err(); err != nil {
		panic(cr.name + ": " + err.Error())
	}
	return w.Bytes()
}

// deltaCrafted adds the D commands of the crafts against a value of table
// type k.
func (c *corpus) deltaCrafted(k int, typ reflect.Type) {
	for _, cr := range deltaCrafts() {
		if reflect.TypeOf(cr.base).Elem() == typ {
			c.deltaRead(k, typ, mustMarshal(cr.base), cr.packet(), "crafted: "+cr.name)
		}
	}
}

func TestDeltaCrafts(t *testing.T) {
	for _, cr := range deltaCrafts() {
		typ := reflect.TypeOf(cr.base).Elem()
		base := decodeFresh(typ, mustMarshal(cr.base))
		err := bitpack.UnmarshalDelta(cr.packet(), base.Interface(), reflect.New(typ).Interface())
		var e *bitpack.Error
		if !errors.As(err, &e) || !errors.Is(err, bitpack.ErrRange) || e.Path != cr.path || e.Bit != cr.bit || e.Detail != cr.detail {
			t.Errorf("%s: UnmarshalDelta(% x) = %v; want the range refusal of %s at bit %d: %s", cr.name, cr.packet(), err, cr.path, cr.bit, cr.detail)
		}
	}
}

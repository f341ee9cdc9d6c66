package gen

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/zerobit"
)

// Values that take no bits (docs/wire.md, "Limits of the Go decoder"):
// internal/zerobit's packets, which every decoder must refuse as Go does
// (issue 26, item 3), and their kin — the same Chunks reached through
// pointers and sparse slots, accepted values of every such type and the
// packets near them, and deltas that add such values — are reads and
// deltas of the corpus for every language. The types are roots of the
// corpus's model after the table's (zeroBitTypes, then in the full corpus
// the shapes of corpus_zerobit_shapes_test.go), with commands of their
// own: no random samples (a random value of them is rarely one Go can
// encode: a Chunk costs 4096 values, paid by no bits).

// ZeroPointees holds Chunks under pointers: each costs its presence bit.
type ZeroPointees struct {
	P []*zerobit.Chunk `bits:"maxlen=255"`
}

// ZeroSparse holds Chunks in a sparse slice: each costs its index.
type ZeroSparse struct {
	S []*zerobit.Chunk `bits:"maxlen=255,sparse"`
}

// zeroBitTypes are the corpus's zero-bit roots, with values of each that
// Go encodes (the packets near them are kin of zerobit's), at least two.
func zeroBitTypes() []zeroBitType {
	c5 := chunk5()
	return []zeroBitType{
		{zerobit.ZeroSlice{}, []any{zerobit.ZeroSlice{}, zerobit.ZeroSlice{C: []zerobit.Chunk{c5}}}},
		{zerobit.ZeroRows{}, []any{zerobit.ZeroRows{}, zerobit.ZeroRows{R: []zerobit.ZeroSlice{{}}},
			zerobit.ZeroRows{R: []zerobit.ZeroSlice{{}, {}}}, zerobit.ZeroRows{R: []zerobit.ZeroSlice{{C: []zerobit.Chunk{c5}}}}}},
		{zerobit.ZeroPair{}, []any{zerobit.ZeroPair{P: [2]zerobit.Chunk{c5, c5}, Label: "abcdefgh"},
			zerobit.ZeroPair{P: [2]zerobit.Chunk{c5, c5}, Label: "0123456789abcdef"}}},
		{zerobit.ZeroMap{}, []any{zerobit.ZeroMap{}, zerobit.ZeroMap{M: map[uint8]zerobit.Chunk{7: c5}}}},
		{zerobit.SoloStream{}, []any{zerobit.SoloStream{}, zerobit.SoloStream{M: []zerobit.Solo{zerobit.SoloChunk(c5)}}}},
		{zerobit.MixedStream{}, []any{zerobit.MixedStream{}, zerobit.MixedStream{M: []zerobit.Mixed{zerobit.Tick{T: 3}}},
			zerobit.MixedStream{M: []zerobit.Mixed{zerobit.Tick{T: 1}, c5}}, zerobit.MixedStream{M: []zerobit.Mixed{c5, zerobit.Tick{T: 2}, zerobit.Tick{T: 9}}}}},
		{zerobit.Leaves{}, []any{zerobit.Leaves{}, zerobit.Leaves{L: make([]zerobit.Leaf, 3), Pad: []byte("ab")}}},
		{zerobit.BoxedLeaves{}, []any{zerobit.BoxedLeaves{}, zerobit.BoxedLeaves{L: make([]zerobit.Boxed4, 2)}}},
		// Two Rows are 8066 values: 30 bytes of Pad pay for them.
		{zerobit.Rows{}, []any{zerobit.Rows{}, zerobit.Rows{R: []zerobit.Row{fullRow(true)}},
			zerobit.Rows{R: []zerobit.Row{fullRow(false), fullRow(true)}, Pad: []byte("0123456789abcdefghijklmnopqrst")}}},
		// A ZhDeepElem is 1090 values: a delta adding three pays for them
		// with the 30 bytes of Pad it sends.
		{ZhDeep{}, []any{ZhDeep{}, ZhDeep{L: make([]ZhDeepElem, 1)},
			ZhDeep{L: []ZhDeepElem{{B: true}, {}, {B: true}}, Pad: []byte("0123456789abcdefghijklmnopqrst")}}},
		// A MapsElem is 4096 values: likewise.
		{MapsList{}, []any{MapsList{}, MapsList{L: make([]MapsElem, 1)},
			MapsList{L: []MapsElem{{B: true}, {}}, Pad: []byte("0123456789abcdefghijklmnopqrst")}}},
		{ZeroPointees{}, []any{ZeroPointees{}, ZeroPointees{P: []*zerobit.Chunk{nil, &c5}}}},
		{ZeroSparse{}, []any{ZeroSparse{}, ZeroSparse{S: []*zerobit.Chunk{nil, &c5, nil}}}},
	}
}

type zeroBitType struct {
	proto  any
	values []any
}

// fullRow is a Row holding the one value a Cell can hold.
func fullRow(on bool) zerobit.Row {
	r := zerobit.Row{On: on}
	for i := range r.Cells {
		r.Cells[i].A = 5
	}
	return r
}

// chunk5 is the one value a Chunk can hold.
func chunk5() zerobit.Chunk {
	var c zerobit.Chunk
	for i := range c.Grid {
		c.Grid[i] = 5
	}
	return c
}

// zeroBitProtos are zeroBitTypes' types, for the corpus's model, then
// those of the shapes the full corpus holds (zeroBitShapesInCorpus).
func zeroBitProtos() []any {
	var out []any
	for _, z := range zeroBitTypes() {
		out = append(out, z.proto)
	}
	for _, s := range zeroBitShapesInCorpus() {
		out = append(out, s.proto)
	}
	return out
}

// zeroBitReads adds the read commands of the zero-bit roots, the first of
// which is root k0: zerobit's cases, the packets of the values that
// encode, each damaged as hostile damages the table's (a long packet only
// cut and flipped near its start), and random packets.
func (c *corpus) zeroBitReads(k0 int, rng *rand.Rand) {
	index := map[reflect.Type]int{}
	for i, z := range zeroBitTypes() {
		index[reflect.TypeOf(z.proto)] = k0 + i
	}
	damage := func(k int, typ reflect.Type, p []byte, what string) {
		c.read(k, typ, p, what)
		if len(p) > 16 {
			p = p[:16] // its kin: the first 16 bytes, cut and flipped
		}
		c.damaged(p, rng, func(q []byte, how string) { c.read(k, typ, q, what+" "+how) })
	}
	for _, zc := range zerobit.Cases() {
		typ := reflect.TypeOf(zc.Type)
		damage(index[typ], typ, zc.Packet, "zerobit: "+zc.Name)
	}
	for i, z := range zeroBitTypes() {
		typ := reflect.TypeOf(z.proto)
		for j, v := range z.values {
			damage(k0+i, typ, mustMarshal(v), fmt.Sprintf("%s zero-bit value %d", typ, j))
		}
		for j := 0; j < 12; j++ {
			p := make([]byte, rng.Intn(40))
			rng.Read(p)
			c.read(k0+i, typ, p, fmt.Sprintf("%s random packet %d", typ, j))
		}
	}
	c.zeroBitShapeReads(k0+len(zeroBitTypes()), rng)
}

// zeroBitDeltas adds the delta commands of the zero-bit roots, the first
// of which is root k0: pairs of their values (as the table's types
// have), and deltas built by hand that add what no bits pay for.
func (c *corpus) zeroBitDeltas(k0 int, rng *rand.Rand) {
	for i, z := range zeroBitTypes() {
		c.deltas(k0+i, reflect.TypeOf(z.proto), z.values, deltaPairsPerType, deltaHostilePerType, rng)
	}
	for _, cr := range zeroBitCrafts() {
		typ := reflect.TypeOf(cr.base).Elem()
		for i, z := range zeroBitTypes() {
			if reflect.TypeOf(z.proto) == typ {
				c.deltaRead(k0+i, typ, mustMarshal(cr.base), cr.packet(), "zero-bit craft: "+cr.name)
			}
		}
	}
	c.zeroBitShapeDeltas(k0+len(zeroBitTypes()), rng)
}

// zeroBitCrafts are deltas that add zero-bit values: every one is refused
// by the allowances, at the value past them (path and bit as Go's, which
// TestZeroBitCrafts checks).
func zeroBitCrafts() []deltaCraft {
	// A delta part of a slice that grows from 0 to 255 elements: resized,
	// the length, the end of the (empty) list of shared elements.
	grow := []int64{1, 1, 255, 8, 1, 1}
	mixed := append([]int64{1, 1}, grow...)
	for range 255 {
		mixed = append(mixed, 0, 1) // index 0: a Chunk
	}
	pointees := append([]int64{1, 1}, grow...)
	for range 255 {
		pointees = append(pointees, 1, 1) // present
	}
	return []deltaCraft{
		// Root changed; C (the one item) grows to 255 Chunks: 1044480
		// values at bit 1, where C's part starts.
		{name: "ZeroSlice grows to 255 Chunks", base: &zerobit.ZeroSlice{}, bits: append([]int64{1, 1}, grow...), pad: 2, path: "C", bit: 1},
		// R (the one item): not resized, element 0 changed, its C (its one
		// item) grows to 255 Chunks at bit 3.
		{name: "ZeroRows row 0 grows to 255 Chunks", base: &zerobit.ZeroRows{R: []zerobit.ZeroSlice{{}}},
			bits: append([]int64{1, 1, 0, 1, 1, 1}, grow...), pad: 3, path: "R[0].C", bit: 3},
		// M: entries 1 and 2 added, each a Chunk whole: the second, at
		// bit 10, is past 4096 + 64 × 24 values.
		{name: "ZeroMap gains two Chunks", base: &zerobit.ZeroMap{}, bits: []int64{1, 1, 1, 1, 1, 8, 1, 1, 2, 8, 0, 1}, pad: 3, path: "M[2]", bit: 10},
		// M grows to 255 union values of no bits, 64 values each: 16320
		// at bit 1, where M's part starts, past 4096 + 64 × 16.
		{name: "SoloStream grows to 255 Chunks", base: &zerobit.SoloStream{}, bits: append([]int64{1, 1}, grow...), pad: 2, path: "M", bit: 1},
		// 255 members, all Chunks (an index bit each, 0): 4096 + 64 × 272
		// values pay for five.
		{name: "MixedStream grows to 255 Chunks", base: &zerobit.MixedStream{}, bits: mixed, pad: 34, path: "M[5]", bit: 16},
		// 255 pointees, all present: five are paid for.
		{name: "ZeroPointees grows to 255 Chunks", base: &ZeroPointees{}, bits: pointees, pad: 34, path: "P[5]", bit: 16},
		// S grows to 255 slots, then slots 0 and 1 appear (an index of
		// difference 1 each, the Chunks whole), then the end marker.
		{name: "ZeroSparse grows and two Chunks appear", base: &ZeroSparse{}, bits: []int64{1, 1, 1, 1, 255, 8, 1, 1, 1, 1}, pad: 2, path: "S[1]", bit: 11},
	}
}

// TestZeroBitCrafts: Go refuses each of zeroBitCrafts by the work
// allowance, at the field and bit worked out for it by hand.
func TestZeroBitCrafts(t *testing.T) {
	for _, cr := range zeroBitCrafts() {
		typ := reflect.TypeOf(cr.base).Elem()
		base := decodeFresh(typ, mustMarshal(cr.base))
		err := bitpack.UnmarshalDelta(cr.packet(), base.Interface(), reflect.New(typ).Interface())
		var e *bitpack.Error
		if !errors.As(err, &e) || !errors.Is(err, bitpack.ErrRange) || e.Path != cr.path || e.Bit != cr.bit ||
			!strings.Contains(e.Detail, " values would take the decode past the ") {
			t.Errorf("%s: UnmarshalDelta(% x) = %v; want the work allowance's refusal of %s at bit %d", cr.name, cr.packet(), err, cr.path, cr.bit)
		}
	}
}

// TestZeroBitCorpus: the corpora hold every zerobit case, refused where
// Go refuses it, and reads and deltas of every zero-bit root.
func TestZeroBitCorpus(t *testing.T) {
	c := sharedCorpus(t)
	for _, zc := range zerobit.Cases() {
		found := false
		for _, cmd := range c.cmds {
			if strings.HasPrefix(cmd.what, "zerobit: "+zc.Name+": ") {
				found = true
				if cmd.err == nil || !errors.Is(cmd.err, zc.Err) || cmd.err.Path != zc.Path || cmd.err.Bit != zc.Bit || cmd.err.Detail != zc.Detail {
					t.Errorf("%s: the corpus's answer %s (%v), zerobit's %v at %s bit %d: %s", zc.Name, cmd.want, cmd.err, zc.Err, zc.Path, zc.Bit, zc.Detail)
				}
			}
		}
		if !found {
			t.Errorf("zerobit case %q is not in the corpus", zc.Name)
		}
	}
	d := sharedDeltaCorpus(t)
	k0 := len(table())
	for i, z := range zeroBitTypes() {
		var reads, deltas int
		for _, cmd := range c.cmds {
			if strings.HasPrefix(cmd.line, fmt.Sprintf("R %d ", k0+i)) {
				reads++
			}
		}
		for _, cmd := range d.cmds {
			if strings.HasPrefix(cmd.line, fmt.Sprintf("D %d ", k0+i)) {
				deltas++
			}
		}
		if c.m.Roots[k0+i].Go != reflect.TypeOf(z.proto) || reads < 30 || deltas < deltaPairsPerType {
			t.Errorf("root %d is %s, with %d reads and %d deltas; want %T, read and deltas", k0+i, c.m.Roots[k0+i].Go, reads, deltas, z.proto)
		}
	}
}

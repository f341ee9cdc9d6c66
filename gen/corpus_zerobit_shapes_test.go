package gen

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/zerobit"
)

// Zero-bit slice elements in the shapes the allowance rule must reach
// (each element that can take no bits charged at least 64 values, what
// one bit pays for): a slice of them inside an array, a slice, a
// pointee, a union member and a map value; slices of zero-bit unions, of
// elements holding only a hook, of pointers and sparse slots to them; and
// every zero-bit leaf kind as an element (maxlen=0 strings, byte slices,
// maps and slices, range=5..5 integers, range=0..0 times, empty arrays). Each root ends
// with Pad, so values reach the allowance at several packet sizes: the
// corpus holds, for each shape, the largest value Marshal accepts at
// each pad and the one below it, damaged bit by bit (the count's low bit
// flipped is one element past).
type (
	ZsRow struct {
		L []zerobit.Leaf `bits:"maxlen=600"`
	}
	ZsInArray struct {
		A   [2]ZsRow
		Pad []byte `bits:"maxlen=255"`
	}
	ZsInSlice struct {
		R   []ZsRow `bits:"maxlen=4"`
		Pad []byte  `bits:"maxlen=255"`
	}
	ZsInPointee struct {
		P   *ZsRow
		Pad []byte `bits:"maxlen=255"`
	}
	ZsInUnion struct {
		U   ZsU
		Pad []byte `bits:"maxlen=255"`
	}
	ZsInMap struct {
		M   map[uint8]ZsRow `bits:"maxlen=4"`
		Pad []byte          `bits:"maxlen=255"`
	}
	ZsSoloLeaves struct {
		M   []ZsSoloLeaf `bits:"maxlen=600"`
		Pad []byte       `bits:"maxlen=255"`
	}
	ZsSoloBits struct {
		M   []ZsSoloBit `bits:"maxlen=600"`
		Pad []byte      `bits:"maxlen=255"`
	}
	ZsStampElem struct{ At Stamp }
	ZsStamps    struct {
		L   []ZsStampElem `bits:"maxlen=600"`
		Pad []byte        `bits:"maxlen=255"`
	}
	ZsSparse struct {
		S   []*zerobit.Leaf `bits:"maxlen=600,sparse"`
		Pad []byte          `bits:"maxlen=255"`
	}
	ZsPtrs struct {
		P   []*zerobit.Leaf `bits:"maxlen=600"`
		Pad []byte          `bits:"maxlen=255"`
	}
	ZsStrings struct {
		S   []string `bits:"maxlen=600,elem.maxlen=0"`
		Pad []byte   `bits:"maxlen=255"`
	}
	ZsRanges struct {
		S   []int8 `bits:"maxlen=600,range=5..5"`
		Pad []byte `bits:"maxlen=255"`
	}
	ZsBytesElem struct {
		B []byte `bits:"maxlen=0"`
	}
	ZsBytesElems struct {
		L   []ZsBytesElem `bits:"maxlen=600"`
		Pad []byte        `bits:"maxlen=255"`
	}
	ZsMapElem struct {
		M map[uint8]uint8 `bits:"maxlen=0"`
	}
	ZsMapElems struct {
		L   []ZsMapElem `bits:"maxlen=600"`
		Pad []byte      `bits:"maxlen=255"`
	}
	ZsSliceElem struct {
		L []zerobit.Leaf `bits:"maxlen=0"`
	}
	ZsSliceElems struct {
		L   []ZsSliceElem `bits:"maxlen=600"`
		Pad []byte        `bits:"maxlen=255"`
	}
	ZsEmptyArrays struct {
		L   [][0]zerobit.Leaf `bits:"maxlen=600"`
		Pad []byte            `bits:"maxlen=255"`
	}
	ZsNested struct {
		L   [][]zerobit.Leaf `bits:"maxlen=8,elem.maxlen=600"`
		Pad []byte           `bits:"maxlen=255"`
	}
	ZsTimes struct {
		T   []time.Time `bits:"maxlen=600,unit=1s,range=0..0"`
		Pad []byte      `bits:"maxlen=255"`
	}
	ZsBoolBoxed struct {
		B bool
		W zerobit.Boxed4
	}
	ZsBoolBoxes struct {
		L   []ZsBoolBoxed `bits:"maxlen=4096"`
		Pad []byte        `bits:"maxlen=255"`
	}
)

// ZsU is a union of a row of Leaves (index 0) and a Tick (index 1).
type ZsU interface{ isZsU() }

// ZsSoloLeaf is a union of one member that takes no bits; ZsSoloBit one
// of one member of one bit (its index takes none: its count figure is 0).
type (
	ZsSoloLeaf interface{ isZsSoloLeaf() }
	ZsSoloBit  interface{ isZsSoloBit() }
)

type (
	ZsRowMember struct {
		L []zerobit.Leaf `bits:"maxlen=600"`
	}
	ZsTickMember struct{ T uint8 }
	ZsLeafMember struct {
		S string `bits:"maxlen=0"`
	}
	ZsBitMember struct{ B bool }
)

func (ZsRowMember) isZsU()         {}
func (ZsTickMember) isZsU()        {}
func (ZsLeafMember) isZsSoloLeaf() {}
func (ZsBitMember) isZsSoloBit()   {}

func init() {
	registerUnion[ZsU](ZsRowMember{}, ZsTickMember{})
	registerUnion[ZsSoloLeaf](ZsLeafMember{})
	registerUnion[ZsSoloBit](ZsBitMember{})
}

// zeroBitShape builds a value of a shape root holding n zero-bit
// elements (where they can be: n at most its maxlen) and pad bytes of Pad.
type zeroBitShape struct {
	proto any
	make  func(n, pad int) any
}

func leaves(n int) []zerobit.Leaf { return make([]zerobit.Leaf, n) }

func zeroBitShapes() []zeroBitShape {
	pad := func(n int) []byte { return bytes.Repeat([]byte{'p'}, n) }
	return []zeroBitShape{
		{ZsInArray{}, func(n, p int) any {
			return &ZsInArray{A: [2]ZsRow{{L: leaves(n / 2)}, {L: leaves(n - n/2)}}, Pad: pad(p)}
		}},
		{ZsInSlice{}, func(n, p int) any { return &ZsInSlice{R: []ZsRow{{}, {L: leaves(n)}}, Pad: pad(p)} }},
		{ZsInPointee{}, func(n, p int) any { return &ZsInPointee{P: &ZsRow{L: leaves(n)}, Pad: pad(p)} }},
		{ZsInUnion{}, func(n, p int) any { return &ZsInUnion{U: ZsRowMember{L: leaves(n)}, Pad: pad(p)} }},
		{ZsInMap{}, func(n, p int) any { return &ZsInMap{M: map[uint8]ZsRow{3: {L: leaves(n)}}, Pad: pad(p)} }},
		{ZsSoloLeaves{}, func(n, p int) any {
			v := &ZsSoloLeaves{Pad: pad(p)}
			for range n {
				v.M = append(v.M, ZsLeafMember{})
			}
			return v
		}},
		{ZsSoloBits{}, func(n, p int) any {
			v := &ZsSoloBits{Pad: pad(p)}
			for i := range n {
				v.M = append(v.M, ZsBitMember{B: i%3 == 0})
			}
			return v
		}},
		{ZsStamps{}, func(n, p int) any {
			v := &ZsStamps{L: make([]ZsStampElem, n), Pad: pad(p)}
			for i := range v.L {
				v.L[i].At = Stamp{uint16(i)}
			}
			return v
		}},
		{ZsSparse{}, func(n, p int) any {
			v := &ZsSparse{S: make([]*zerobit.Leaf, n), Pad: pad(p)}
			for i := range v.S {
				if i%2 == 1 {
					v.S[i] = &zerobit.Leaf{}
				}
			}
			return v
		}},
		{ZsPtrs{}, func(n, p int) any {
			v := &ZsPtrs{P: make([]*zerobit.Leaf, n), Pad: pad(p)}
			for i := range v.P {
				if i%2 == 1 {
					v.P[i] = &zerobit.Leaf{}
				}
			}
			return v
		}},
		{ZsStrings{}, func(n, p int) any { return &ZsStrings{S: make([]string, n), Pad: pad(p)} }},
		{ZsRanges{}, func(n, p int) any { return &ZsRanges{S: bytesOf5(n), Pad: pad(p)} }},
		{ZsBytesElems{}, func(n, p int) any { return &ZsBytesElems{L: make([]ZsBytesElem, n), Pad: pad(p)} }},
		{ZsMapElems{}, func(n, p int) any { return &ZsMapElems{L: make([]ZsMapElem, n), Pad: pad(p)} }},
		{ZsSliceElems{}, func(n, p int) any { return &ZsSliceElems{L: make([]ZsSliceElem, n), Pad: pad(p)} }},
		{ZsEmptyArrays{}, func(n, p int) any { return &ZsEmptyArrays{L: make([][0]zerobit.Leaf, n), Pad: pad(p)} }},
		{ZsNested{}, func(n, p int) any { return &ZsNested{L: [][]zerobit.Leaf{nil, leaves(n)}, Pad: pad(p)} }},
		{ZsTimes{}, func(n, p int) any {
			v := &ZsTimes{T: make([]time.Time, n), Pad: pad(p)}
			for i := range v.T {
				v.T[i] = time.Unix(0, 0).UTC()
			}
			return v
		}},
		{ZsBoolBoxes{}, func(n, p int) any {
			v := &ZsBoolBoxes{L: make([]ZsBoolBoxed, n), Pad: pad(p)}
			for i := range v.L {
				v.L[i].B = i%2 == 0
			}
			return v
		}},
	}
}

func bytesOf5(n int) []int8 {
	s := make([]int8, n)
	for i := range s {
		s[i] = 5
	}
	return s
}

// zeroBitShapePads are the pad lengths the shapes' boundary values take.
var zeroBitShapePads = []int{0, 1, 7, 40}

// largestEncoded is the largest n (at most 4096) for which Marshal
// accepts make(n, pad), or -1.
func largestEncoded(s zeroBitShape, pad int) int {
	best := -1
	for n := 0; n <= 4096; n++ {
		if _, err := bitpack.Marshal(s.make(n, pad)); err != nil {
			if best >= 0 {
				break
			}
			continue
		}
		best = n
	}
	return best
}

// zeroBitShapeTypes are the shapes as zeroBitTypes: their values are 0,
// 1 and 3 elements, and at each pad the largest value Marshal accepts
// and the one below it.
func zeroBitShapeTypes() []zeroBitType {
	var out []zeroBitType
	for _, s := range zeroBitShapes() {
		z := zeroBitType{proto: s.proto}
		for _, n := range []int{0, 1, 3} {
			z.values = append(z.values, reflect.ValueOf(s.make(n, 2)).Elem().Interface())
		}
		for _, p := range zeroBitShapePads {
			if n := largestEncoded(s, p); n > 0 {
				z.values = append(z.values, reflect.ValueOf(s.make(n, p)).Elem().Interface(), reflect.ValueOf(s.make(n-1, p)).Elem().Interface())
			}
		}
		out = append(out, z)
	}
	return out
}

// zeroBitShapeGrowths adds, for each shape, deltas from its empty value
// to the largest value AppendDelta accepts at each pad, and the one
// below, each damaged bit by bit.
func (c *corpus) zeroBitShapeGrowths(k0 int, rng *rand.Rand) {
	for i, s := range zeroBitShapes() {
		typ := reflect.TypeOf(s.proto)
		k := k0 + i
		basePacket := mustMarshal(s.make(0, 0))
		base := decodeFresh(typ, basePacket)
		for _, p := range zeroBitShapePads {
			best := -1
			for n := 0; n <= 4096; n++ {
				if _, err := bitpack.AppendDelta(nil, base.Interface(), s.make(n, p)); err != nil {
					if best >= 0 {
						break
					}
					continue
				}
				best = n
			}
			for _, n := range []int{best, best - 1} {
				if n < 0 {
					continue
				}
				d, err := bitpack.AppendDelta(nil, base.Interface(), s.make(n, p))
				if err != nil {
					panic(err)
				}
				what := fmt.Sprintf("%s grows to %d (pad %d)", typ, n, p)
				c.deltaRead(k, typ, basePacket, d, what)
				if len(d) > 16 {
					d = d[:16]
				}
				c.damaged(d, rng, func(q []byte, how string) { c.deltaRead(k, typ, basePacket, q, what+" "+how) })
			}
		}
	}
}

// TestZeroBitShapesRoundTrip: every shape value Marshal accepts, Unmarshal
// accepts and gives back; every delta AppendDelta makes from the empty
// value, UnmarshalDelta accepts.
func TestZeroBitShapesRoundTrip(t *testing.T) {
	for _, s := range zeroBitShapes() {
		typ := reflect.TypeOf(s.proto)
		base := decodeFresh(typ, mustMarshal(s.make(0, 0)))
		for _, p := range zeroBitShapePads {
			for n := 0; n <= 700; n++ {
				v := s.make(n, p)
				if pk, err := bitpack.Marshal(v); err == nil {
					got := reflect.New(typ)
					if err := bitpack.Unmarshal(pk, got.Interface()); err != nil {
						t.Errorf("%s n=%d pad=%d: Marshal gave % x, Unmarshal refuses it: %v", typ, n, p, pk, err)
					}
				}
				if d, err := bitpack.AppendDelta(nil, base.Interface(), v); err == nil {
					got := reflect.New(typ)
					if err := bitpack.UnmarshalDelta(d, base.Interface(), got.Interface()); err != nil {
						t.Errorf("%s n=%d pad=%d: AppendDelta gave % x, UnmarshalDelta refuses it: %v", typ, n, p, d, err)
					}
				}
			}
		}
	}
}

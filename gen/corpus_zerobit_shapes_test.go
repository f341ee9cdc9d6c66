package gen

import (
	"bytes"
	"fmt"
	"math/bits"
	"math/rand"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/zerobit"
)

// Zero-bit slice elements in the shapes the allowance rule must reach
// (each element that can take no bits charged at least 64 values, what
// one bit pays for): a slice of them inside an array, a slice, a
// pointee, a union member and a map value; slices of zero-bit unions, of
// elements holding only a hook, of pointers and sparse slots to them; and
// every zero-bit leaf kind as an element (maxlen=0 strings, byte slices,
// maps and slices, range=5..5 integers, range=0..0 times, empty arrays).
// Each root ends with Pad, so values reach the allowances at several
// packet sizes. The full corpora (BITPACK_FULL=1) hold, for each shape
// and pad, the packets of the most elements Marshal accepts, of one less
// and of one more (which every reader must refuse as Go does); deltas
// growing the empty value to the most elements Marshal accepts and one
// more, and to the most AppendDelta accepts and one less, and that last
// delta with its count raised by one; the packet and delta of the most
// damaged where it matters (sampleDamage). The quick corpora leave the
// shapes out: each packet at an edge makes every reader do the most work
// its bytes allow, and the 19 types are more code for every driver to
// compile (about 10 s of g++ CPU in the full run's two C++ builds).
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

// zeroBitShape is a shape root. make builds a value of it holding n
// zero-bit elements (n at most most) and pad bytes of Pad; the elements
// go to lists of at most listMax, whose counts take bits.Len(listMax)
// bits.
type zeroBitShape struct {
	proto         any
	listMax, most int
	make          func(n, pad int) any
}

// countBits is the width of the count of a list the shape's elements go to.
func (s zeroBitShape) countBits() int { return bits.Len(uint(s.listMax)) }

func leaves(n int) []zerobit.Leaf { return make([]zerobit.Leaf, n) }

func zeroBitShapes() []zeroBitShape {
	pad := func(n int) []byte { return bytes.Repeat([]byte{'p'}, n) }
	return []zeroBitShape{
		{ZsInArray{}, 600, 1200, func(n, p int) any {
			return &ZsInArray{A: [2]ZsRow{{L: leaves(n / 2)}, {L: leaves(n - n/2)}}, Pad: pad(p)}
		}},
		{ZsInSlice{}, 600, 600, func(n, p int) any { return &ZsInSlice{R: []ZsRow{{}, {L: leaves(n)}}, Pad: pad(p)} }},
		{ZsInPointee{}, 600, 600, func(n, p int) any { return &ZsInPointee{P: &ZsRow{L: leaves(n)}, Pad: pad(p)} }},
		{ZsInUnion{}, 600, 600, func(n, p int) any { return &ZsInUnion{U: ZsRowMember{L: leaves(n)}, Pad: pad(p)} }},
		{ZsInMap{}, 600, 600, func(n, p int) any { return &ZsInMap{M: map[uint8]ZsRow{3: {L: leaves(n)}}, Pad: pad(p)} }},
		{ZsSoloLeaves{}, 600, 600, func(n, p int) any {
			v := &ZsSoloLeaves{Pad: pad(p)}
			for range n {
				v.M = append(v.M, ZsLeafMember{})
			}
			return v
		}},
		{ZsSoloBits{}, 600, 600, func(n, p int) any {
			v := &ZsSoloBits{Pad: pad(p)}
			for i := range n {
				v.M = append(v.M, ZsBitMember{B: i%3 == 0})
			}
			return v
		}},
		{ZsStamps{}, 600, 600, func(n, p int) any {
			v := &ZsStamps{L: make([]ZsStampElem, n), Pad: pad(p)}
			for i := range v.L {
				v.L[i].At = Stamp{uint16(i)}
			}
			return v
		}},
		{ZsSparse{}, 600, 600, func(n, p int) any {
			v := &ZsSparse{S: make([]*zerobit.Leaf, n), Pad: pad(p)}
			for i := range v.S {
				if i%2 == 1 {
					v.S[i] = &zerobit.Leaf{}
				}
			}
			return v
		}},
		{ZsPtrs{}, 600, 600, func(n, p int) any {
			v := &ZsPtrs{P: make([]*zerobit.Leaf, n), Pad: pad(p)}
			for i := range v.P {
				if i%2 == 1 {
					v.P[i] = &zerobit.Leaf{}
				}
			}
			return v
		}},
		{ZsStrings{}, 600, 600, func(n, p int) any { return &ZsStrings{S: make([]string, n), Pad: pad(p)} }},
		{ZsRanges{}, 600, 600, func(n, p int) any { return &ZsRanges{S: bytesOf5(n), Pad: pad(p)} }},
		{ZsBytesElems{}, 600, 600, func(n, p int) any { return &ZsBytesElems{L: make([]ZsBytesElem, n), Pad: pad(p)} }},
		{ZsMapElems{}, 600, 600, func(n, p int) any { return &ZsMapElems{L: make([]ZsMapElem, n), Pad: pad(p)} }},
		{ZsSliceElems{}, 600, 600, func(n, p int) any { return &ZsSliceElems{L: make([]ZsSliceElem, n), Pad: pad(p)} }},
		{ZsEmptyArrays{}, 600, 600, func(n, p int) any { return &ZsEmptyArrays{L: make([][0]zerobit.Leaf, n), Pad: pad(p)} }},
		{ZsNested{}, 600, 600, func(n, p int) any { return &ZsNested{L: [][]zerobit.Leaf{nil, leaves(n)}, Pad: pad(p)} }},
		{ZsTimes{}, 600, 600, func(n, p int) any {
			v := &ZsTimes{T: make([]time.Time, n), Pad: pad(p)}
			for i := range v.T {
				v.T[i] = time.Unix(0, 0).UTC()
			}
			return v
		}},
		{ZsBoolBoxes{}, 4096, 4096, func(n, p int) any {
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

// zeroBitShapesInCorpus are the shapes the corpora hold: every one in the
// full corpora, none in the quick ones (see the top of this file).
func zeroBitShapesInCorpus() []zeroBitShape {
	if !fullSweeps() {
		return nil
	}
	return zeroBitShapes()
}

// zeroBitShapePads are the lengths of Pad at which each shape's edges are
// taken: none, and odd and long ones (the allowances grow with the
// packet's whole bytes).
var zeroBitShapePads = []int{0, 1, 7, 40}

// zeroBitEdge is where acceptance ends for a shape at a pad: Marshal
// accepts its values of n elements and refuses n+1 (unless n is the most
// it holds); AppendDelta, growing the empty value, likewise at delta.
type zeroBitEdge struct {
	pad, n, delta int
}

// zeroBitShapeEdges are each shape's edges at zeroBitShapePads, found
// once. A shape that holds its most elements at a pad (its elements take
// bits that pay for them) has that edge only: more Pad changes nothing.
var zeroBitShapeEdges = sync.OnceValue(func() [][]zeroBitEdge {
	var out [][]zeroBitEdge
	for _, s := range zeroBitShapes() {
		base := zeroBitShapeEmpty(s)
		var edges []zeroBitEdge
		for _, p := range zeroBitShapePads {
			marshals := func(n int) bool { _, err := bitpack.Marshal(s.make(n, p)); return err == nil }
			grows := func(n int) bool {
				_, err := bitpack.AppendDelta(nil, base.Interface(), s.make(n, p))
				return err == nil
			}
			e := zeroBitEdge{pad: p, n: acceptedUpTo(s.most, marshals), delta: acceptedUpTo(s.most, grows)}
			edges = append(edges, e)
			if e.n == s.most && e.delta == s.most {
				break
			}
		}
		out = append(out, edges)
	}
	return out
})

// readLabel says what the packet of the shape typ's value of n elements
// at e's pad is.
func (e zeroBitEdge) readLabel(typ reflect.Type, n int) string {
	role := map[int]string{e.n - 1: "one less than Marshal accepts", e.n: "the most Marshal accepts", e.n + 1: "one more than Marshal accepts"}[n]
	return fmt.Sprintf("%s of %d elements and %d bytes of Pad, %s", typ, n, e.pad, role)
}

// deltaLabel says what the delta growing the shape typ's empty value to
// n elements at e's pad is.
func (e zeroBitEdge) deltaLabel(typ reflect.Type, n int) string {
	var roles []string
	for _, r := range []struct {
		n    int
		role string
	}{{e.n, "the most Marshal accepts"}, {e.n + 1, "one more than Marshal accepts"}, {e.delta - 1, "one less than AppendDelta accepts"}, {e.delta, "the most AppendDelta accepts"}} {
		if r.n == n {
			roles = append(roles, r.role)
		}
	}
	return fmt.Sprintf("%s grows to %d elements and %d bytes of Pad, %s", typ, n, e.pad, strings.Join(roles, " and "))
}

// zeroBitShapeEmpty is the shape's value of no elements and no Pad, as
// decoded: the base its deltas grow.
func zeroBitShapeEmpty(s zeroBitShape) reflect.Value {
	return decodeFresh(reflect.TypeOf(s.proto), mustMarshal(s.make(0, 0)))
}

// acceptedUpTo is the n at which accepts stops accepting: accepts(n),
// and n is most or accepts(n+1) fails. It doubles n, then halves the gap,
// so it takes a score of calls where counting up takes hundreds, each
// encoding hundreds of elements; acceptance ends only once
// (TestZeroBitShapesRoundTrip checks every n in the full sweep), so n is
// the most it accepts.
func acceptedUpTo(most int, accepts func(n int) bool) int {
	if !accepts(0) {
		panic("a zero-bit shape's value of no elements is refused")
	}
	lo, hi := 0, 1 // accepted; not yet tried
	for ; hi <= most && accepts(hi); hi *= 2 {
		lo = hi
	}
	hi = min(hi, most+1) // refused, or past most
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; accepts(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// allowanceFiller is counted (a list of elements of no bits is not paid
// for by bits), so Encode checks what it charges, which is far less than
// its bytes pay for: an encode after it on the same Writer, sharing its
// allowances as decodes on one Reader share theirs, has what Marshal
// would refuse to spare.
type allowanceFiller struct {
	Z []zerobit.Leaf `bits:"maxlen=1"`
	B []byte         `bits:"maxlen=4095"` // aligned: it ends on a whole byte
}

// packetPast is the packet Marshal would write for v but for the
// allowances, by which it refuses v: v encoded after an allowanceFiller
// on one Writer.
func packetPast(v any) []byte {
	var w bitio.Writer
	w.Reset(nil)
	if err := bitpack.Encode(&w, &allowanceFiller{B: make([]byte, 4095)}); err != nil {
		panic(err)
	}
	start := w.BitsWritten()
	if err := bitpack.Encode(&w, v); err != nil || start%8 != 0 {
		panic(fmt.Sprintf("encoding %T after %d bits of filler: %v", v, start, err))
	}
	return bytes.Clone(w.Bytes()[start/8:])
}

// countAt is the bit where the count that grew starts in at, a packet or
// delta of one element more than below, and its value there: what comes
// before the count is alike in both, and counts of c and c-1 elements
// differ in their lowest bit, so the first bit where the two differ is
// the count's first.
func countAt(at, below []byte, width int) (bit int, count uint64) {
	for bit = 0; bit < 8*min(len(at), len(below)); bit++ {
		if bitOf(at, bit) != bitOf(below, bit) {
			break
		}
	}
	if bit+width > 8*min(len(at), len(below)) || fieldOf(at, bit, width) != fieldOf(below, bit, width)+1 {
		panic(fmt.Sprintf("no count of %d bits at bit %d of %x (%x one element less)", width, bit, at, below))
	}
	return bit, fieldOf(at, bit, width)
}

func bitOf(p []byte, bit int) uint64 { return uint64(p[bit/8]>>(bit%8)) & 1 }

// fieldOf reads width bits at bit, as the wire writes them: lowest first.
func fieldOf(p []byte, bit, width int) uint64 {
	var v uint64
	for i := range width {
		v |= bitOf(p, bit+i) << i
	}
	return v
}

// withField is p with width bits at bit set to v.
func withField(p []byte, bit, width int, v uint64) []byte {
	q := bytes.Clone(p)
	for i := range width {
		b := bit + i
		q[b/8] = q[b/8]&^(1<<(b%8)) | byte(v>>i&1)<<(b%8)
	}
	return q
}

// sampleDamage calls add with the damaged copies of p, a packet or delta
// at an edge whose grown count ends at bit header, that matter there — a
// few dozen where damaged makes hundreds, mostly of Pad's bytes: every
// bit before header flipped (the counts, presence bits, indexes and keys
// that say what follows; the count's lowest flipped is one element more
// or less), eight bits spread over the rest, cuts to no bytes, one, half
// and all but one, and bytes appended.
func sampleDamage(p []byte, header int, add func(q []byte, how string)) {
	flipped := map[int]bool{}
	flip := func(bit int) {
		if flipped[bit] || bit >= 8*len(p) {
			return
		}
		flipped[bit] = true
		q := bytes.Clone(p)
		q[bit/8] ^= 1 << (bit % 8)
		add(q, fmt.Sprintf("with bit %d flipped", bit))
	}
	for bit := range header {
		flip(bit)
	}
	if rest := 8*len(p) - header; rest > 0 {
		for j := range 8 {
			flip(header + (2*j+1)*rest/16)
		}
	}
	cut := map[int]bool{}
	for _, n := range []int{0, 1, len(p) / 2, len(p) - 1} {
		if n >= 0 && n < len(p) && !cut[n] {
			cut[n] = true
			add(p[:n], fmt.Sprintf("cut to %d bytes", n))
		}
	}
	for _, extra := range [][]byte{{0}, {0xff}, {0, 0}} {
		add(append(bytes.Clone(p), extra...), fmt.Sprintf("with %x appended", extra))
	}
}

// zeroBitShapeReads adds the read commands of the shapes the corpus
// holds, the first of which is root k0: values of 0, 1 and 3 elements;
// at each pad the packets of the most elements Marshal accepts (damaged
// by sampleDamage), of one less, and of one more (which Go refuses); and
// random packets.
func (c *corpus) zeroBitShapeReads(k0 int, rng *rand.Rand) {
	shapes := zeroBitShapesInCorpus()
	if len(shapes) == 0 {
		return
	}
	edges := zeroBitShapeEdges()
	for i, s := range shapes {
		k, typ := k0+i, reflect.TypeOf(s.proto)
		for _, n := range []int{0, 1, 3} {
			c.read(k, typ, mustMarshal(s.make(n, 2)), fmt.Sprintf("%s of %d elements", typ, n))
		}
		for _, e := range edges[i] {
			at := mustMarshal(s.make(e.n, e.pad))
			c.read(k, typ, at, e.readLabel(typ, e.n))
			if e.n > 0 {
				below := mustMarshal(s.make(e.n-1, e.pad))
				c.read(k, typ, below, e.readLabel(typ, e.n-1))
				bit, _ := countAt(at, below, s.countBits())
				sampleDamage(at, bit+s.countBits(), func(q []byte, how string) {
					c.read(k, typ, q, e.readLabel(typ, e.n)+", "+how)
				})
			}
			if e.n < s.most {
				c.read(k, typ, packetPast(s.make(e.n+1, e.pad)), e.readLabel(typ, e.n+1))
			}
		}
		for j := range 4 {
			p := make([]byte, rng.Intn(40))
			rng.Read(p)
			c.read(k, typ, p, fmt.Sprintf("%s random packet %d", typ, j))
		}
	}
}

// zeroBitShapePairs is how many pairs of each shape's values the delta
// corpus takes (as deltas does the table's), the first damaged.
const zeroBitShapePairs = 8

// zeroBitShapeDeltas adds the delta commands of the shapes the corpus
// holds, the first of which is root k0: pairs of their values; at each
// pad the deltas growing the empty value to the most elements Marshal
// accepts (written too) and to one more, to the most AppendDelta accepts
// (damaged by sampleDamage) and to one less, and that delta with its
// count raised by one, one element past what AppendDelta accepts.
func (c *corpus) zeroBitShapeDeltas(k0 int, rng *rand.Rand) {
	shapes := zeroBitShapesInCorpus()
	if len(shapes) == 0 {
		return
	}
	edges := zeroBitShapeEdges()
	for i, s := range shapes {
		k, typ := k0+i, reflect.TypeOf(s.proto)
		var values []any
		for _, n := range []int{0, 1, 3} {
			values = append(values, reflect.ValueOf(s.make(n, 2)).Elem().Interface())
		}
		for _, e := range edges[i] {
			values = append(values, reflect.ValueOf(s.make(e.n, e.pad)).Elem().Interface())
		}
		c.deltas(k, typ, values, zeroBitShapePairs, 1, rng)
		emptyPacket := mustMarshal(s.make(0, 0))
		base := zeroBitShapeEmpty(s)
		for _, e := range edges[i] {
			grow := func(n int) []byte {
				v := s.make(n, e.pad)
				if n <= e.n {
					v = decodeFresh(typ, mustMarshal(v)).Interface() // as a driver holds it
				}
				d, err := bitpack.AppendDelta(nil, base.Interface(), v)
				if err != nil {
					panic(fmt.Sprintf("%s growing to %d elements (Pad %d): %v", typ, n, e.pad, err))
				}
				return d
			}
			taken := map[int]bool{}
			for _, n := range []int{e.n, e.n + 1, e.delta - 1, e.delta} {
				if n < 0 || n > e.delta || taken[n] {
					continue // past AppendDelta's edge, or taken already
				}
				taken[n] = true
				d := grow(n)
				if n == e.n {
					c.deltaWrite(k, typ, emptyPacket, mustMarshal(s.make(n, e.pad)), d, e.deltaLabel(typ, n))
				}
				c.deltaRead(k, typ, emptyPacket, d, e.deltaLabel(typ, n))
			}
			if e.delta == 0 {
				continue
			}
			at := grow(e.delta)
			bit, count := countAt(at, grow(e.delta-1), s.countBits())
			sampleDamage(at, bit+s.countBits(), func(q []byte, how string) {
				c.deltaRead(k, typ, emptyPacket, q, e.deltaLabel(typ, e.delta)+", "+how)
			})
			if e.delta < s.most && count+1 < 1<<s.countBits() {
				c.deltaRead(k, typ, emptyPacket, withField(at, bit, s.countBits(), count+1), e.deltaLabel(typ, e.delta)+", with its count raised by one")
			}
		}
	}
}

// zeroBitShapeSweep are the element counts TestZeroBitShapesRoundTrip
// tries at edge e of a shape holding at most most, up to 64 past the
// later edge: those next to the edges, and in the full sweep every one up
// to 700 (past every edge but those of the shapes whose elements pay for
// themselves) and every 64th beyond.
func zeroBitShapeSweep(e zeroBitEdge, most int) []int {
	end := min(max(e.n, e.delta)+64, most+1)
	var ns []int
	for n := 0; n <= end; n++ {
		if n <= 2 || abs(n-e.n) <= 2 || abs(n-e.delta) <= 2 || fullSweeps() && (n <= 700 || n%64 == 0) {
			ns = append(ns, n)
		}
	}
	return ns
}

func abs(n int) int { return max(n, -n) }

// TestZeroBitShapesRoundTrip: Marshal accepts each shape's values up to
// the edges zeroBitShapeEdges found and refuses those past them, and
// Unmarshal gives back what it accepts; AppendDelta, growing the empty
// value, likewise, and UnmarshalDelta accepts what it writes. The full
// sweep tries every count up to the edges at the pads (so acceptance ends
// once there, and the edges are the most accepted), the quick one those
// next to them.
func TestZeroBitShapesRoundTrip(t *testing.T) {
	edges := zeroBitShapeEdges()
	for i, s := range zeroBitShapes() {
		typ := reflect.TypeOf(s.proto)
		base := zeroBitShapeEmpty(s)
		for _, e := range edges[i] {
			for _, n := range zeroBitShapeSweep(e, s.most) {
				v := s.make(n, e.pad)
				pk, err := bitpack.Marshal(v)
				if (err == nil) != (n <= e.n) {
					t.Errorf("%s of %d elements and %d bytes of Pad: Marshal gives %v; want it to accept up to %d elements", typ, n, e.pad, err, e.n)
				}
				if err == nil {
					got := reflect.New(typ)
					if err := bitpack.Unmarshal(pk, got.Interface()); err != nil {
						t.Errorf("%s of %d elements and %d bytes of Pad: Marshal gave % x, Unmarshal refuses it: %v", typ, n, e.pad, pk, err)
					} else if again, err := bitpack.Marshal(got.Interface()); !bytes.Equal(again, pk) {
						t.Errorf("%s of %d elements and %d bytes of Pad: % x decodes to a value encoded as % x (%v)", typ, n, e.pad, pk, again, err)
					}
				}
				d, err := bitpack.AppendDelta(nil, base.Interface(), v)
				if (err == nil) != (n <= e.delta) {
					t.Errorf("%s growing to %d elements and %d bytes of Pad: AppendDelta gives %v; want it to accept up to %d elements", typ, n, e.pad, err, e.delta)
				}
				if err == nil {
					got := reflect.New(typ)
					if err := bitpack.UnmarshalDelta(d, base.Interface(), got.Interface()); err != nil {
						t.Errorf("%s growing to %d elements and %d bytes of Pad: AppendDelta gave % x, UnmarshalDelta refuses it: %v", typ, n, e.pad, d, err)
					} else if again, err := bitpack.Marshal(got.Interface()); pk != nil && !bytes.Equal(again, pk) {
						t.Errorf("%s growing to %d elements and %d bytes of Pad: the delta % x gives a value encoded as % x (%v), want % x", typ, n, e.pad, d, again, err, pk)
					}
				}
			}
		}
	}
}

// TestZeroBitShapesCorpus: the full corpora hold each shape at every pad
// at its edges: the packet of the most elements Marshal accepts, which Go
// accepts, and of one more, which it refuses for the allowances; the
// delta growing to the most elements AppendDelta accepts, which Go
// accepts, and that delta with its count raised by one.
func TestZeroBitShapesCorpus(t *testing.T) {
	if !fullSweeps() {
		t.Skip("the corpora hold the zero-bit shapes with BITPACK_FULL=1")
	}
	c, dc := sharedCorpus(t), sharedDeltaCorpus(t)
	k0 := len(table()) + len(zeroBitTypes())
	answers := func(cmds []command, k int, what string) []command {
		var out []command
		for _, cmd := range cmds {
			if strings.HasPrefix(cmd.line, fmt.Sprintf("%c %d ", cmd.line[0], k)) && strings.HasPrefix(cmd.what, what+": ") {
				out = append(out, cmd)
			}
		}
		return out
	}
	refusedForAllowance := func(cmd command) bool {
		return cmd.want == "REFUSED" && cmd.err != nil && strings.Contains(cmd.err.Detail, " would take the decode past the ")
	}
	edges := zeroBitShapeEdges()
	for i, s := range zeroBitShapes() {
		k, typ := k0+i, reflect.TypeOf(s.proto)
		if c.m.Roots[k].Go != typ || dc.m.Roots[k].Go != typ {
			t.Fatalf("root %d is %s, want %s", k, c.m.Roots[k].Go, typ)
		}
		for _, e := range edges[i] {
			if got := answers(c.cmds, k, e.readLabel(typ, e.n)); len(got) != 1 || !strings.HasPrefix(got[0].want, "OK ") {
				t.Errorf("%s: %d reads, want 1 answered OK: %v", e.readLabel(typ, e.n), len(got), got)
			}
			if got := answers(c.cmds, k, e.readLabel(typ, e.n+1)); e.n < s.most && (len(got) != 1 || !refusedForAllowance(got[0])) {
				t.Errorf("%s: %d reads, want 1 refused for the allowances: %v", e.readLabel(typ, e.n+1), len(got), got)
			}
			if got := answers(dc.cmds, k, e.deltaLabel(typ, e.delta)); len(got) != 1 || !strings.HasPrefix(got[0].want, "OK") {
				t.Errorf("%s: %d deltas, want 1 answered OK: %v", e.deltaLabel(typ, e.delta), len(got), got)
			}
			if got := answers(dc.cmds, k, e.deltaLabel(typ, e.delta)+", with its count raised by one"); e.delta < s.most && (len(got) != 1 || !refusedForAllowance(got[0])) {
				t.Errorf("%s, with its count raised by one: %d deltas, want 1 refused for the allowances: %v", e.deltaLabel(typ, e.delta), len(got), got)
			}
		}
	}
}

package bitpack

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestFarApart: whenever farApart says two values are far apart, their
// codes differ by more than the short form reaches — the decoder skips
// the base's code then, so a wrong "far" would accept a long form the
// short form carries. Sampled around the reach's edge, for tags of
// several sizes (M from 16 to 2^20).
func TestFarApart(t *testing.T) {
	type tags struct {
		A float32 `bits:"float,min=-1024,max=1024,res=0.01"`
		B float32 `bits:"float,min=-1024,max=1024,res=0.1"`
		C float32 `bits:"float,min=0,max=1,res=0.001"`
		D float32 `bits:"float,min=-3,max=5,res=0.5"`
		E float32 `bits:"float,min=-8,max=8,res=0.0000153"`
		F float32 `bits:"float,min=-1000,max=1000,res=0.25,clamp"`
	}
	p, err := planOf(reflect.TypeFor[tags]())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	checked, far := 0, 0
	for i := range p.dsteps {
		st := &p.dsteps[i]
		if st.far == 0 {
			t.Errorf("field %d: no farApart (M = %d)", i, st.q.MaxCode())
			continue
		}
		m, h := st.q.MaxCode(), uint32(1)<<st.short>>1
		for range 200000 {
			c := uint32(rng.Uint64N(uint64(m) + 1))
			var b float32
			if rng.IntN(2) == 0 { // a quantized base, a few codes past the reach
				k := int64(c) + int64(h) + int64(rng.IntN(8)) - 2
				if rng.IntN(2) == 0 {
					k = int64(c) - int64(h) - int64(rng.IntN(8)) + 2
				}
				if k < 0 || k > int64(m) {
					continue
				}
				b = st.q.Dequantize(uint32(k))
			} else { // any value near there
				step := (st.q.Max() - st.q.Min()) / float32(m)
				b = st.q.Dequantize(c) + float32(rng.NormFloat64())*float32(h+3)*step
				if !(b >= st.lo && b <= st.hi) {
					continue
				}
			}
			checked++
			if !st.farApart(st.q.Dequantize(c), b) {
				continue
			}
			far++
			old := st.q.QuantizeInRange(b)
			if d := math.Abs(float64(old) - float64(c)); d <= float64(h) {
				t.Fatalf("field %d: code %d and a base %v of code %d are %v apart, within the reach %d, but farApart says far", i, c, b, old, d, h)
			}
		}
	}
	t.Logf("%d samples, %d far apart", checked, far)
	if far < checked/10 {
		t.Fatalf("only %d of %d samples far apart: the test does not reach the edge", far, checked)
	}
}

// flatElem has a field of every kind listFlat codes a column of: a bool,
// ints with no short form (2 and 3 bits), a signed raw int (its codes
// flipped), a ranged signed int, wide raw 64-bit ints (a long form past a
// word), a clamped float and one whose out-of-range values are refused.
type flatElem struct {
	On    bool
	Two   uint8 `bits:"range=0..3"`
	Three int16 `bits:"range=-3..4"`
	Raw   int8
	Temp  int32 `bits:"range=-40000..40000"`
	Big   uint64
	Neg   int64
	Pos   float32 `bits:"float,min=-1024,max=1024,res=0.1"`
	Vel   float32 `bits:"float,min=-3,max=5,res=0.01,clamp"`
}

type flatLists struct {
	Elems  []flatElem `bits:"maxlen=300"`
	Shorts []int16    `bits:"maxlen=200,range=-500..500"`
	Floats []float32  `bits:"maxlen=200,float,min=-10,max=10,res=0.001"`
	Flags  []bool     `bits:"maxlen=100"`
}

// TestListFlatMatchesSteps: listFlat, which codes a chunk of elements a
// column at a time, writes exactly the bytes (and refuses with exactly
// the error) that the element-at-a-time steps writes for the same lists,
// over random pairs in which elements are equal, move a little (the
// short form), jump (the long form), shift by one, or hold values out of
// range (clamped, or refused).
func TestListFlatMatchesSteps(t *testing.T) {
	typ := reflect.TypeFor[flatLists]()
	p, err := planOf(typ)
	if err != nil {
		t.Fatal(err)
	}
	elems := flatSliceElems(t, p)
	encode := func(flat bool, base, v *flatLists) string {
		for _, e := range elems {
			e.flat = flat
		}
		defer func() {
			for _, e := range elems {
				e.flat = true
			}
		}()
		b, err := appendDelta(nil, p, typ, pointerTo(base), pointerTo(v))
		if err != nil {
			return "error: " + err.Error()
		}
		return string(b)
	}
	rng := rand.New(rand.NewPCG(5, 8))
	compared, refused := 0, 0
	for round := range 400 {
		base, v := randFlatListsPair(rng, round)
		got, want := encode(true, &base, &v), encode(false, &base, &v)
		if got != want {
			t.Fatalf("round %d: listFlat writes %x, steps %x", round, got, want)
		}
		compared++
		if strings.HasPrefix(got, "error: ") {
			refused++
		}
	}
	if refused == 0 || refused > compared/5 {
		t.Fatalf("%d of %d pairs refused: want some, not most", refused, compared)
	}
}

// flatSliceElems returns the element plans of flatLists' four slices,
// failing t unless each is flat (coded by listFlat).
func flatSliceElems(t *testing.T, p *plan) []*plan {
	t.Helper()
	var elems []*plan
	for i := range p.ops {
		if o := &p.ops[i]; o.kind == KindSlice {
			if !o.elem.flat {
				t.Fatalf("%s: elements not flat", o.path)
			}
			elems = append(elems, o.elem)
		}
	}
	if len(elems) != 4 {
		t.Fatalf("%d slices, want 4", len(elems))
	}
	return elems
}

// randFlatElem draws a flatElem with every field in its range.
func randFlatElem(rng *rand.Rand) flatElem {
	return flatElem{
		On: rng.IntN(2) == 0, Two: uint8(rng.IntN(4)), Three: int16(rng.IntN(8) - 3),
		Raw: int8(rng.Uint32()), Temp: int32(rng.IntN(80001) - 40000),
		Big: rng.Uint64(), Neg: int64(rng.Uint64()),
		Pos: float32(rng.IntN(20481)-10240) / 10, Vel: float32(rng.IntN(801)-300) / 100,
	}
}

// moveFlatElem changes one field of e, a little or by a jump; odd 1 puts
// Vel out of range (clamped), odd 2 puts Pos out of range (refused).
func moveFlatElem(rng *rand.Rand, e flatElem, odd int) flatElem {
	switch rng.IntN(12) {
	case 0:
		e.On = !e.On
	case 1:
		e.Two = uint8(rng.IntN(4))
	case 2:
		e.Three = int16(rng.IntN(8) - 3)
	case 3:
		e.Raw += int8(rng.IntN(5) - 2)
	case 4:
		e.Temp = min(40000, max(-40000, e.Temp+int32(rng.IntN(300)-150)))
	case 5:
		e.Big ^= 1 << rng.IntN(64)
	case 6:
		e.Neg += int64(rng.IntN(9) - 4)
	case 7:
		e.Vel = min(5, max(-3, e.Vel+float32(rng.IntN(41)-20)/100))
	case 8:
		e.Pos += 0.01 // less than its quantum: mostly the same code
	default:
		e.Pos = min(1024, max(-1024, e.Pos+float32(rng.IntN(61)-30)/10))
	}
	if odd == 1 {
		e.Vel = 7 // clamped
	}
	if odd == 2 {
		e.Pos = 2000 // refused
	}
	return e
}

// randFlatListsPair draws a base and a value for round: elements equal,
// shifted or moved, and every tenth round a few out of range.
func randFlatListsPair(rng *rand.Rand, round int) (base, v flatLists) {
	n := rng.IntN(300)
	for range n {
		base.Elems = append(base.Elems, randFlatElem(rng))
	}
	odd := 0
	if round%10 == 9 {
		odd = 1 + rng.IntN(2)
	}
	for k, e := range base.Elems {
		switch r := rng.IntN(4); {
		case r == 0:
			v.Elems = append(v.Elems, e)
		case r == 1 && k+1 < len(base.Elems):
			v.Elems = append(v.Elems, base.Elems[k+1]) // shifted
		default:
			oddHere := 0
			if odd > 0 && rng.IntN(50) == 0 {
				oddHere = odd
			}
			v.Elems = append(v.Elems, moveFlatElem(rng, e, oddHere))
		}
	}
	for range rng.IntN(200) {
		s := int16(rng.IntN(1001) - 500)
		base.Shorts = append(base.Shorts, s)
		v.Shorts = append(v.Shorts, min(500, max(-500, s+int16(rng.IntN(7)-3)*int16(rng.IntN(40)))))
	}
	for range rng.IntN(200) {
		f := float32(rng.IntN(20001)-10000) / 1000
		base.Floats = append(base.Floats, f)
		v.Floats = append(v.Floats, min(10, max(-10, f+float32(rng.IntN(5)-2)*float32(rng.IntN(200))/1000)))
	}
	for range rng.IntN(100) {
		base.Flags = append(base.Flags, rng.IntN(2) == 0)
		v.Flags = append(v.Flags, rng.IntN(3) == 0)
	}
	return base, v
}

// TestSameWords: sameWords agrees with a byte-by-byte comparison for
// every length it takes (8 to 64), at every alignment, with the bytes
// equal, differing in any one byte, and differing only just outside the
// n bytes (which it must not look at as a difference).
func TestSameWords(t *testing.T) {
	var a, b [80]byte
	for n := uintptr(8); n <= 64; n++ {
		for off := uintptr(0); off < 8; off++ {
			for i := range a {
				a[i], b[i] = byte(i*7+1), byte(i*7+1)
			}
			pa, pb := pointerTo(&a).field(offset{n: off}), pointerTo(&b).field(offset{n: off})
			if !pa.sameWords(pb, n) {
				t.Fatalf("n %d at %d: equal bytes called different", n, off)
			}
			b[off+n] ^= 0xff // just past the end
			if off > 0 {
				b[off-1] ^= 0xff // just before
			}
			if !pa.sameWords(pb, n) {
				t.Fatalf("n %d at %d: a difference outside the bytes seen", n, off)
			}
			for i := uintptr(0); i < n; i++ {
				b[off+i] ^= 0x10
				if pa.sameWords(pb, n) {
					t.Fatalf("n %d at %d: byte %d differs, called equal", n, off, i)
				}
				b[off+i] ^= 0x10
			}
		}
	}
}

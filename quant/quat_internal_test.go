package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naturalByDefinition is Encode's step 2 as the package doc words it, with
// float compares and a loop: the reference the branch-free natural is
// checked against.
func naturalByDefinition(q *Quat, v [4]float32) (largest uint32, codes [3]uint32, ok bool) {
	best := float32(-1)
	for i, c := range v {
		if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
			return 0, codes, false
		}
		if a := float32(math.Abs(float64(c))); a >= best {
			best, largest = a, uint32(i)
		}
	}
	negate := math.Signbit(float64(v[largest]))
	k := 0
	for i, c := range v {
		if uint32(i) == largest {
			continue
		}
		if negate {
			c = -c
		}
		codes[k] = q.quantize(c)
		k++
	}
	return largest, codes, true
}

// TestNaturalMatchesDefinition compares the branch-free natural code with
// the definition on components drawn from values that stress every
// choice: ties of magnitude with either sign, ±0, subnormals, values beyond
// ±m and ±1, ±Inf and NaNs of both signs, and random unit quaternions.
func TestNaturalMatchesDefinition(t *testing.T) {
	special := []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 1, -1, QuatComponentMax, -QuatComponentMax, 0.9, -0.9,
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Float32frombits(0xffc00001)}
	r := rand.New(rand.NewPCG(1, 2))
	var inputs [][4]float32
	for _, a := range special {
		for _, b := range special {
			for i := 0; i < 8; i++ {
				v := [4]float32{special[r.IntN(len(special))], special[r.IntN(len(special))], a, b}
				r.Shuffle(4, func(i, j int) { v[i], v[j] = v[j], v[i] })
				inputs = append(inputs, v)
			}
		}
	}
	for i := 0; i < 100000; i++ {
		v := [4]float32{float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())}
		n := float32(math.Sqrt(float64(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3])))
		for k := range v {
			v[k] /= n
		}
		inputs = append(inputs, v)
	}
	for _, bits := range []int{2, 4, 9, 12, 20, 22} {
		q, err := NewQuat(bits)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range inputs {
			wl, wc, wok := naturalByDefinition(&q, v)
			l, c0, c1, c2, ok := q.natural(v[0], v[1], v[2], v[3])
			if l != wl || [3]uint32{c0, c1, c2} != wc || ok != wok {
				t.Fatalf("bits %d: natural(%v) = %d %v %v, the definition gives %d %v %v", bits, v, l, [3]uint32{c0, c1, c2}, ok, wl, wc, wok)
			}
		}
	}
}

// TestQuatComponentsCanonical: at every width NewQuat accepts, every
// component code dequantizes to a float that quantizes back to it, which
// is what lets Decode test canonicity by the index alone. At 23 bits it
// fails, which is why NewQuat stops at 22.
func TestQuatComponentsCanonical(t *testing.T) {
	for b := 2; b <= QuatMaxBits; b++ {
		q, _ := NewQuat(b)
		for c := uint32(0); c <= q.max; c++ {
			if back := q.quantize(q.dequantize(c)); back != c {
				t.Fatalf("b=%d: code %d decodes to %v, which quantizes to %d", b, c, q.dequantize(c), back)
			}
		}
	}
	wide := Quat{bits: 23, steps: float32(1<<23 - 2), max: 1<<23 - 2}
	for c := uint32(0); c <= wide.max; c++ {
		if wide.quantize(wide.dequantize(c)) != c {
			t.Logf("at 23 bits, code %d decodes to %v, which quantizes to %d", c, wide.dequantize(c), wide.quantize(wide.dequantize(c)))
			return
		}
	}
	t.Fatal("every 23-bit code is canonical: QuatMaxBits could be raised")
}

// TestSpread holds spread's estimate to the float32 arithmetic it stands
// in for: 1 - step²·spread within 2e-6 of rest - max(s_k²) as decode
// computes them, so that its verdicts (at most sure, at least never) agree
// with stable at every index. Every code triple up to 6 bits, and random
// and near-tie triples at every width.
func TestSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	check := func(q *Quat, codes [3]uint32) {
		s0, s1, s2 := q.dequantize(codes[0]), q.dequantize(codes[1]), q.dequantize(codes[2])
		top := max(s0*s0, s1*s1, s2*s2)
		// rest as decode computes it, then big² rather than rest: the
		// clamp at 0 is what the order sees.
		rest := max(float32(float32(float32(1-float32(s0*s0))-float32(s1*s1))-float32(s2*s2)), 0)
		big := float32(math.Sqrt(float64(rest)))
		exact := float64(big)*float64(big) - float64(top)
		step := float64(quatDelta) / float64(q.max)
		sp := q.spread(codes[0], codes[1], codes[2])
		if est := 1 - step*step*float64(sp); big > 0 && math.Abs(est-exact) > 2e-6 {
			t.Fatalf("b=%d %v: estimate %v, float32 %v", q.bits, codes, est, exact)
		}
		for l := uint32(0); l < 4; l++ {
			if st := q.stable(l, codes); sp <= q.sure && !st || sp >= q.never && st {
				t.Fatalf("b=%d %d %v: spread %d (sure %d, never %d) but stable %v", q.bits, l, codes, sp, q.sure, q.never, st)
			}
		}
	}
	for b := 2; b <= 6; b++ {
		q, _ := NewQuat(b)
		for c0 := uint32(0); c0 <= q.max; c0++ {
			for c1 := uint32(0); c1 <= q.max; c1++ {
				for c2 := uint32(0); c2 <= q.max; c2++ {
					check(&q, [3]uint32{c0, c1, c2})
				}
			}
		}
	}
	for b := 2; b <= QuatMaxBits; b++ {
		q, _ := NewQuat(b)
		for range 20000 {
			check(&q, [3]uint32{rng.Uint32N(q.max + 1), rng.Uint32N(q.max + 1), rng.Uint32N(q.max + 1)})
			// Near the ±1/2 fours, where the order is decided by a hair.
			var codes [3]uint32
			for k := range codes {
				h := int64(q.quantize(float32(0.5 - float64(rng.IntN(2)))))
				codes[k] = uint32(min(max(h+int64(rng.IntN(5))-2, 0), int64(q.max)))
			}
			check(&q, codes)
		}
	}
}

package quant_test

import (
	"math"
	"math/rand/v2"
)

// quatRef is the package doc's smallest-three algorithm written out step by
// step, with float compares and loops, and nothing taken from quat.go: the
// reference the tests hold Quat to. Its canonical test is the definition
// (decode, encode the result naturally, compare), not Decode's outranking
// rule.
type quatRef struct {
	bits int
	M    uint32 // 2^b - 2
}

const (
	refM     = float32(0.70710677) // bits 0x3f3504f3
	refDelta = float32(1.4142135)  // m - (-m), bits 0x3fb504f3
)

func newQuatRef(b int) quatRef { return quatRef{b, 1<<b - 2} }

func (r quatRef) mid() uint32 { return r.M / 2 }

func (r quatRef) quantize(f float32) uint32 {
	n := float32(float32(f-(-refM)) / refDelta)
	if !(n > 0) {
		n = 0
	}
	if n > 1 {
		n = 1
	}
	c := math.Floor(float64(float32(float32(n*float32(r.M)) + 0.5)))
	if c > float64(r.M) {
		c = float64(r.M)
	}
	return uint32(c)
}

func (r quatRef) dequantize(c uint32) float32 {
	n := float32(float32(c) / float32(r.M))
	return float32(float32(n*refDelta) + (-refM))
}

// decode is steps 2 and 3 of Decode: no acceptance test.
func (r quatRef) decode(largest uint32, codes [3]uint32) [4]float32 {
	var s [3]float32
	rest := float32(1)
	for k, c := range codes {
		s[k] = r.dequantize(c)
		rest = float32(rest - float32(s[k]*s[k]))
	}
	if !(rest > 0) {
		rest = 0
	}
	big := float32(math.Sqrt(float64(rest)))
	var out [4]float32
	k := 0
	for i := range out {
		if uint32(i) == largest {
			out[i] = big
		} else {
			out[i] = s[k]
			k++
		}
	}
	return out
}

// natural is step 2 of Encode.
func (r quatRef) natural(v [4]float32) (uint32, [3]uint32, bool) {
	var largest uint32
	best := float32(-1)
	for i, c := range v {
		if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
			return 0, [3]uint32{}, false
		}
		if a := float32(math.Abs(float64(c))); a >= best {
			best, largest = a, uint32(i)
		}
	}
	negate := math.Signbit(float64(v[largest]))
	var codes [3]uint32
	k := 0
	for i, c := range v {
		if uint32(i) == largest {
			continue
		}
		if negate {
			c = -c
		}
		codes[k] = r.quantize(c)
		k++
	}
	return largest, codes, true
}

// accepts is the definition of a canonical code: in range, and its decoded
// quaternion encodes naturally to it.
func (r quatRef) accepts(largest uint32, codes [3]uint32) bool {
	if largest > 3 || codes[0] > r.M || codes[1] > r.M || codes[2] > r.M {
		return false
	}
	l, c, ok := r.natural(r.decode(largest, codes))
	return ok && l == largest && c == codes
}

// encode is Encode, steps 1 to 5; moves counts step 5's loop.
func (r quatRef) encode(v [4]float32) (largest uint32, codes [3]uint32, ok bool, moves int) {
	largest, codes, ok = r.natural(v)
	if !ok || r.accepts(largest, codes) {
		return largest, codes, ok, 0
	}
	n2 := float32(0)
	for _, c := range v {
		n2 = float32(n2 + float32(c*c)) // 0 + x*x is x*x: the doc's sum exactly
	}
	norm := float32(math.Sqrt(float64(n2)))
	var u [4]float32
	for i, c := range v {
		u[i] = c / norm
	}
	largest, codes, _ = r.natural(u)
	for !r.accepts(largest, codes) {
		k, far := -1, int64(-1)
		for j, c := range codes {
			if d := int64(c) - int64(r.mid()); max(d, -d) > far {
				k, far = j, max(d, -d)
			}
		}
		if codes[k] > r.mid() {
			codes[k]--
		} else {
			codes[k]++
		}
		moves++
	}
	return largest, codes, true, moves
}

// quatAngle is the rotation angle in degrees between a and the direction of
// b (b is not normalised on decode).
func quatAngle(a, b [4]float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	c := math.Min(1, math.Abs(dot)/math.Sqrt(na*nb))
	return 2 * math.Acos(c) * 180 / math.Pi
}

// quatBound is the analytic worst case in degrees: each small component is
// off by at most e = m/M; the worst lands at a = b = c = L = 1/2, where the
// rebuilt component moves by 3e, giving an angle of 4·√3·e radians.
func quatBound(b int) float64 {
	e := float64(refM) / float64(uint32(1)<<b-2)
	return 4 * math.Sqrt(3) * e * 180 / math.Pi
}

func unit32(v [4]float64) [4]float32 {
	n := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3])
	return [4]float32{float32(v[0] / n), float32(v[1] / n), float32(v[2] / n), float32(v[3] / n)}
}

// quatTies returns every permutation and sign pattern of the tie values:
// ±1/2 fours, axis rotations, 90° (two at 1/√2), 120° (three at 1/√3),
// and 45° rotations (cos 22.5°, sin 22.5°), each as the float32 rounding of
// the float64 unit quaternion and, where that differs, of the raw values.
func quatTies() [][4]float32 {
	c, s, r3, h := math.Cos(math.Pi/8), math.Sin(math.Pi/8), 1/math.Sqrt(3), 1/math.Sqrt2
	bases := [][4]float64{{0.5, 0.5, 0.5, 0.5}, {1, 0, 0, 0}, {h, h, 0, 0}, {r3, r3, r3, 0}, {c, s, 0, 0}, {s, 0, 0, c}, {c, 0, s, 0}}
	seen := map[[4]float32]bool{}
	var out [][4]float32
	add := func(v [4]float32) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, base := range bases {
		for _, p := range permutations4 {
			for signs := 0; signs < 16; signs++ {
				var v [4]float64
				for i := range v {
					v[i] = base[p[i]]
					if signs>>i&1 == 1 {
						v[i] = -v[i]
					}
				}
				add(unit32(v))
				add([4]float32{float32(v[0]), float32(v[1]), float32(v[2]), float32(v[3])})
			}
		}
	}
	return out
}

var permutations4 = func() (out [][4]int) {
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			for c := 0; c < 4; c++ {
				d := 6 - a - b - c
				if a != b && a != c && b != c && d != a && d != b && d != c {
					out = append(out, [4]int{a, b, c, d})
				}
			}
		}
	}
	return out
}()

// nearTies returns n unit quaternions within a few steps of the ties.
func nearTies(rng *rand.Rand, ties [][4]float32, b, n int) [][4]float32 {
	e := float64(refM) / float64(uint32(1)<<b-2)
	out := make([][4]float32, n)
	for i := range out {
		t := ties[rng.IntN(len(ties))]
		scale := e * []float64{0.25, 1, 3}[i%3]
		var v [4]float64
		for k := range v {
			v[k] = float64(t[k]) + scale*rng.NormFloat64()
		}
		out[i] = unit32(v)
	}
	return out
}

func randomUnit(rng *rand.Rand) [4]float32 {
	return unit32([4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
}

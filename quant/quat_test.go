package quant_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/bitpack-go/bitpack/internal/sweeps"
	"github.com/bitpack-go/bitpack/quant"
)

func TestNewQuatValidation(t *testing.T) {
	for _, b := range []int{-1, 0, 1, 23, 32, 33} {
		want := fmt.Sprintf("quant: quaternion needs 2..22 bits per component, got %d (past 22, float32 cannot hold the distinct component values a canonical code needs)", b)
		if _, err := quant.NewQuat(b); err == nil || err.Error() != want {
			t.Errorf("NewQuat(%d): %v, want %q", b, err, want)
		}
	}
	for b := 2; b <= quant.QuatMaxBits; b++ {
		q, err := quant.NewQuat(b)
		if err != nil || q.Bits() != 2+3*b || q.ComponentBits() != b || q.MaxCode() != uint32(1<<b-2) {
			t.Errorf("NewQuat(%d): %v bits=%d max=%d", b, err, q.Bits(), q.MaxCode())
		}
	}
}

// TestQuatEncodeGolden: codes worked out by hand from the package doc's
// formulas (float32 at every step; the numbers in the comments are the
// float32 results).
func TestQuatEncodeGolden(t *testing.T) {
	m := quant.QuatComponentMax
	negZero := float32(math.Copysign(0, -1))
	tests := []struct {
		bits    int
		in      [4]float32
		largest uint32
		codes   [3]uint32
	}{
		// Zero is code M/2 = 255 of 510: (0 + m)/2m = 0.5 exactly, 255 + 0.5.
		{9, [4]float32{0, 0, 0, 1}, 3, [3]uint32{255, 255, 255}},
		{9, [4]float32{0, 0, 0, -1}, 3, [3]uint32{255, 255, 255}}, // negated: same rotation
		{9, [4]float32{1, 0, 0, 0}, 0, [3]uint32{255, 255, 255}},
		// All four tie at 0: the highest index wins, so Go's zero value is
		// the identity, whatever the signs of its zeros.
		{9, [4]float32{}, 3, [3]uint32{255, 255, 255}},
		{9, [4]float32{negZero, negZero, negZero, negZero}, 3, [3]uint32{255, 255, 255}},
		{9, [4]float32{0, negZero, 0, 0}, 3, [3]uint32{255, 255, 255}},
		{4, [4]float32{}, 3, [3]uint32{7, 7, 7}},
		// 0.5: (0.5 + m)/2m = 0.8535534, ×510 = 435.31, +0.5: 435. Decoded
		// 0.49913412 each, rebuilt sqrt(1 - 3×0.2491350) = 0.50258863:
		// larger, so the natural code stands. Tie of four: index 3.
		{9, [4]float32{0.5, 0.5, 0.5, 0.5}, 3, [3]uint32{435, 435, 435}},
		// -0.5: (-0.5 + m)/2m = 0.14644662, ×510 = 74.69, +0.5: 75.
		{9, [4]float32{-0.5, 0.5, -0.5, 0.5}, 3, [3]uint32{75, 435, 75}},
		{9, [4]float32{0.5, -0.5, 0.5, -0.5}, 3, [3]uint32{75, 435, 75}}, // largest negative: all flip
		// Above m clamps to M; the decoded (0, m, 0) rebuilds
		// sqrt(1 - 0.49999997) = sqrt(0.5) = 0.70710677 = m: a tie with
		// index 1, below 3, so index 3 stands.
		{9, [4]float32{0, 0.9, 0, 0.9}, 3, [3]uint32{255, 510, 255}},
		// 90° about x: x and w tie at m; index 3, x = m codes 510.
		{9, [4]float32{m, 0, 0, m}, 3, [3]uint32{510, 255, 255}},
		// At 4 bits (M = 14) 0.5 codes 12 (0.8535534×14 = 11.95, +0.5),
		// which decodes to 0.5050762; three of them rebuild
		// sqrt(1 - 3×0.25510200) = 0.48445222, smaller: unstable. The
		// input is unit (r = 1), so the candidate is the natural code, and
		// the first farthest code (all three are 5 from 7) moves to 11
		// (0.40406102): the rebuilt 0.57142866 now outranks 0.5050762.
		{4, [4]float32{0.5, 0.5, 0.5, 0.5}, 3, [3]uint32{11, 12, 12}},
		// At 5 bits (M = 30) 0.5 codes 26 (25.61 + 0.5), decoding to
		// 0.51854497; rebuilt 0.43968 < it. Moving c0 to 25 (0.4714045)
		// rebuilds 0.48990, still smaller; then c1 (the first farthest)
		// to 25: rebuilt 0.53541260 outranks 0.51854497.
		{5, [4]float32{0.5, 0.5, 0.5, 0.5}, 3, [3]uint32{25, 25, 26}},
	}
	for _, tt := range tests {
		q, _ := quant.NewQuat(tt.bits)
		l, c, ok := q.Encode(tt.in)
		if !ok || l != tt.largest || c != tt.codes {
			t.Errorf("%d bits: Encode(%v) = %d %v %v, want %d %v", tt.bits, tt.in, l, c, ok, tt.largest, tt.codes)
		}
	}
	q, _ := quant.NewQuat(9)
	for _, bad := range [][4]float32{{float32(math.NaN()), 0, 0, 1}, {0, float32(math.Inf(-1)), 0, 0}} {
		if _, _, ok := q.Encode(bad); ok {
			t.Errorf("Encode(%v) accepted", bad)
		}
	}
}

// TestQuatDecodeGolden: decoded values and refusals, worked out by hand.
func TestQuatDecodeGolden(t *testing.T) {
	q, _ := quant.NewQuat(9)
	m := quant.QuatComponentMax
	accepted := []struct {
		largest uint32
		codes   [3]uint32
		want    [4]float32
	}{
		{3, [3]uint32{255, 255, 255}, [4]float32{0, 0, 0, 1}},
		{1, [3]uint32{255, 255, 255}, [4]float32{0, 1, 0, 0}},
		{3, [3]uint32{435, 435, 435}, [4]float32{0.49913412, 0.49913412, 0.49913412, 0.50258863}},
		{0, [3]uint32{435, 435, 435}, [4]float32{0.50258863, 0.49913412, 0.49913412, 0.49913412}},
		// Rebuilt m ties |-m| at index 0, below 3: accepted.
		{3, [3]uint32{0, 255, 255}, [4]float32{-m, 0, 0, m}},
	}
	for _, tt := range accepted {
		v, err := q.Decode(tt.largest, tt.codes)
		if err != nil || v != tt.want {
			t.Errorf("Decode(%d, %v) = %v, %v; want %v", tt.largest, tt.codes, v, err, tt.want)
		}
	}
	refused := []struct {
		largest uint32
		codes   [3]uint32
		msg     string
	}{
		{3, [3]uint32{511, 255, 255}, "quaternion component code 511 out of range [0, 510]"},
		{0, [3]uint32{255, 255, 511}, "quaternion component code 511 out of range [0, 510]"},
		{4, [3]uint32{255, 255, 255}, "quaternion index 4 out of range [0, 3]"},
		// The same tie with the rebuilt component at index 0: index 1 wins.
		{0, [3]uint32{0, 255, 255}, "quaternion code (index 0, codes 0 255 255) is not canonical: it decodes to [0.70710677 -0.70710677 0 0], which encodes with index 1"},
		// Squares summing past 1: rebuilt 0, and of the three that tie at
		// m the highest index wins.
		{0, [3]uint32{510, 510, 510}, "quaternion code (index 0, codes 510 510 510) is not canonical: it decodes to [0 0.70710677 0.70710677 0.70710677], which encodes with index 3"},
		// Three codes 436 decode to 0.50190717 and rebuild 0.49423435,
		// smaller (three 435s rebuild 0.50258863, accepted above).
		{0, [3]uint32{436, 436, 436}, "quaternion code (index 0, codes 436 436 436) is not canonical: it decodes to [0.49423435 0.50190717 0.50190717 0.50190717], which encodes with index 3"},
	}
	for _, tt := range refused {
		v, err := q.Decode(tt.largest, tt.codes)
		var qe *quant.QuatCodeError
		if !errors.As(err, &qe) || err.Error() != tt.msg || v != [4]float32{} {
			t.Errorf("Decode(%d, %v) = %v, %v\nwant the error %q", tt.largest, tt.codes, v, err, tt.msg)
		}
	}
}

// TestQuatIdentityEveryWidth: the identity, its negation and every
// all-zero quaternion encode as index 3 with codes M/2, which decode to
// exactly (0, 0, 0, 1), at every width; code 2^b - 1 is refused in each
// position.
func TestQuatIdentityEveryWidth(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for b := 2; b <= quant.QuatMaxBits; b++ {
		q, _ := quant.NewQuat(b)
		mid := uint32(1<<(b-1) - 1)
		for _, in := range [][4]float32{{0, 0, 0, 1}, {0, 0, 0, -1}, {}, {negZero, negZero, negZero, negZero}, {negZero, 0, 0, negZero}} {
			l, c, ok := q.Encode(in)
			if !ok || l != 3 || c != [3]uint32{mid, mid, mid} {
				t.Fatalf("b=%d: Encode(%v) = %d %v %v, want 3 [%d %d %d]", b, in, l, c, ok, mid, mid, mid)
			}
			v, err := q.Decode(l, c)
			if err != nil || v != [4]float32{0, 0, 0, 1} || math.Signbit(float64(v[0])) {
				t.Fatalf("b=%d: Decode(3, %v) = %v, %v", b, c, v, err)
			}
		}
		bad := uint32(1<<b - 1)
		for k := range 3 {
			codes := [3]uint32{mid, mid, mid}
			codes[k] = bad
			want := fmt.Sprintf("quaternion component code %d out of range [0, %d]", bad, bad-1)
			if _, err := q.Decode(3, codes); err == nil || err.Error() != want {
				t.Fatalf("b=%d: Decode(3, %v) = %v, want %q", b, codes, err, want)
			}
		}
	}
}

// exhaustiveBits is the widest quaternion TestQuatExhaustive walks: 7 with
// BITPACK_FULL=1 (as .ci/run sets; 8 takes about 10 s), 6 without (an
// eighth of 7's codes), 5 with -short, or QUAT_EXHAUSTIVE_BITS for a long
// run.
func exhaustiveBits(t *testing.T) int {
	if s := os.Getenv("QUAT_EXHAUSTIVE_BITS"); s != "" {
		b, err := strconv.Atoi(s)
		if err != nil || b < 2 || b > quant.QuatMaxBits {
			t.Fatalf("QUAT_EXHAUSTIVE_BITS=%q: want 2..%d", s, quant.QuatMaxBits)
		}
		return b
	}
	return sweeps.Count(7, 5, 6)
}

// TestQuatExhaustive walks every code of every width up to exhaustiveBits
// (index 0..3, each component code 0..2^b-1): Decode accepts exactly the
// codes the reference calls canonical, with the reference's value, which
// is unit length with a rebuilt component of at least 1/2; the
// encoder gives every accepted code back from its decoded value; and the
// encoder's code for every decoded value, accepted or not (those of
// refused codes are not unit length, or sit on the wrong side of a tie),
// is one the reference accepts.
func TestQuatExhaustive(t *testing.T) {
	for b := 2; b <= exhaustiveBits(t); b++ {
		q, _ := quant.NewQuat(b)
		r := newQuatRef(b)
		accepted, total := 0, 0
		for l := uint32(0); l < 4; l++ {
			for c0 := uint32(0); c0 <= r.M+1; c0++ {
				for c1 := uint32(0); c1 <= r.M+1; c1++ {
					for c2 := uint32(0); c2 <= r.M+1; c2++ {
						codes := [3]uint32{c0, c1, c2}
						v, err := q.Decode(l, codes)
						ok := r.accepts(l, codes)
						total++
						if ok != (err == nil) {
							t.Fatalf("b=%d: Decode(%d, %v): %v; the reference accepts: %v", b, l, codes, err, ok)
						}
						if c0 > r.M || c1 > r.M || c2 > r.M {
							continue
						}
						want := r.decode(l, codes)
						if ok {
							accepted++
							if v != want {
								t.Fatalf("b=%d: Decode(%d, %v) = %v, the reference %v", b, l, codes, v, want)
							}
							// What the sum-of-squares check once refused
							// cannot pass: unit length, rebuilt >= 1/2.
							n2 := float64(v[0])*float64(v[0]) + float64(v[1])*float64(v[1]) + float64(v[2])*float64(v[2]) + float64(v[3])*float64(v[3])
							if math.Abs(n2-1) > 1e-6 || v[l] < 0.5-1e-6 {
								t.Fatalf("b=%d: accepted %d %v decodes to %v (norm² %v)", b, l, codes, v, n2)
							}
						}
						el, ec, eok := q.Encode(want)
						if !eok || (ok && (el != l || ec != codes)) || !r.accepts(el, ec) {
							t.Fatalf("b=%d: code %d %v decodes to %v, which encodes to %d %v %v (reference accepts %v)", b, l, codes, want, el, ec, eok, r.accepts(el, ec))
						}
					}
				}
			}
		}
		t.Logf("b=%d: %d of %d codes accepted", b, accepted, total)
	}
}

// TestQuatEncodeMatchesReference compares Encode and EncodeWord with the
// reference at every width on random unit quaternions, every tie and its
// neighbourhood, quaternions up to 1% off unit length, and extreme
// components; every code must be one the reference accepts. Step 5's loop
// runs at most three times for a unit quaternion (the package doc says
// so).
func TestQuatEncodeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	ties := quatTies()
	special := []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 1, -1, quant.QuatComponentMax, 0.9, -0.9,
		math.SmallestNonzeroFloat32, -math.MaxFloat32, 1e19, float32(math.Inf(1)), float32(math.NaN())}
	n := 4000
	if testing.Short() {
		n = 500
	}
	for b := 2; b <= quant.QuatMaxBits; b++ {
		q, _ := quant.NewQuat(b)
		r := newQuatRef(b)
		maxMoves, moved := 0, 0
		check := func(v [4]float32, unit bool) {
			l, c, ok := q.Encode(v)
			rl, rc, rok, moves := r.encode(v)
			if l != rl || c != rc || ok != rok {
				t.Fatalf("b=%d: Encode(%v) = %d %v %v, the reference %d %v %v", b, v, l, c, ok, rl, rc, rok)
			}
			if !ok {
				return
			}
			if !r.accepts(l, c) {
				t.Fatalf("b=%d: Encode(%v) = %d %v, which the reference refuses", b, v, l, c)
			}
			if b <= 20 {
				bb := uint(b)
				want := uint64(l) | uint64(c[0])<<2 | uint64(c[1])<<(2+bb) | uint64(c[2])<<(2+2*bb)
				if word, ok := q.EncodeWord(v[0], v[1], v[2], v[3]); !ok || word != want {
					t.Fatalf("b=%d: EncodeWord(%v) = %#x %v, want %#x", b, v, word, ok, want)
				}
			}
			if unit {
				maxMoves = max(maxMoves, moves)
				if moves > 0 {
					moved++
				}
			}
		}
		for _, v := range ties {
			check(v, true)
		}
		for _, v := range nearTies(rng, ties, b, n) {
			check(v, true)
		}
		for range n {
			check(randomUnit(rng), true)
			v := randomUnit(rng)
			s := float32(math.Sqrt(1 + 0.02*(rng.Float64()-0.5)))
			check([4]float32{v[0] * s, v[1] * s, v[2] * s, v[3] * s}, false)
			check([4]float32{special[rng.IntN(len(special))], special[rng.IntN(len(special))], special[rng.IntN(len(special))], special[rng.IntN(len(special))]}, false)
		}
		if maxMoves > 3 {
			t.Errorf("b=%d: step 5 moved a unit quaternion's codes %d times; the package doc says at most 3", b, maxMoves)
		}
		t.Logf("b=%d: %d unit quaternions needed step 5, at most %d moves", b, moved, maxMoves)
	}
}

// TestQuatAngularError measures the worst angular error at 9, 10 and 12
// bits: random unit quaternions, then a climb (random steps of a few
// quanta, kept when the error grows) from 40 starts near the analytic
// worst case, the ±1/2 fours. It holds the result to the bound in the
// package doc, and checks that the search gets close to it.
func TestQuatAngularError(t *testing.T) {
	for _, b := range []int{9, 10, 12} {
		q, _ := quant.NewQuat(b)
		rng := rand.New(rand.NewPCG(42, uint64(b)))
		angle := func(v [4]float32) float64 {
			l, c, _ := q.Encode(v)
			back, err := q.Decode(l, c)
			if err != nil {
				t.Fatal(err)
			}
			return quatAngle(v, back)
		}
		worst, worstV := 0.0, [4]float32{}
		for range 100000 {
			v := randomUnit(rng)
			if a := angle(v); a > worst {
				worst, worstV = a, v
			}
		}
		e := float64(quant.QuatComponentMax) / float64(q.MaxCode())
		for range 40 {
			var v [4]float64
			for k := range v {
				v[k] = float64(1-2*rng.IntN(2))*0.5 + 0.03*rng.NormFloat64()
			}
			cur := unit32(v)
			at := angle(cur)
			for i := range 5000 {
				step := e * []float64{3, 1, 0.3, 0.05}[i%4]
				for k := range v {
					v[k] = float64(cur[k]) + step*rng.NormFloat64()
				}
				if u := unit32(v); angle(u) > at {
					cur, at = u, angle(u)
				}
			}
			if at > worst {
				worst, worstV = at, cur
			}
		}
		if worst > quatBound(b) {
			t.Errorf("b=%d: worst %.5f° exceeds the bound %.5f°", b, worst, quatBound(b))
		}
		if worst < quatBound(b)*0.97 {
			t.Errorf("b=%d: worst %.5f° is far below the bound %.5f°: is the search reaching the worst case?", b, worst, quatBound(b))
		}
		t.Logf("b=%d: worst measured %.5f° at %v, analytic bound %.5f°", b, worst, worstV, quatBound(b))
	}
}

// TestQuatEveryWidth round-trips random unit quaternions and the ties at
// every width from 4 to 22 bits within the analytic bound (plus float32
// slack at high widths, where the steps approach float32's own).
func TestQuatEveryWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 32))
	ties := quatTies()
	for b := 4; b <= quant.QuatMaxBits; b++ {
		q, _ := quant.NewQuat(b)
		limit := quatBound(b) + 1e-4
		try := func(in [4]float32) {
			l, c, ok := q.Encode(in)
			if !ok {
				t.Fatalf("b=%d: Encode(%v) refused", b, in)
			}
			back, err := q.Decode(l, c)
			if err != nil {
				t.Fatalf("b=%d: Encode(%v) = %d %v, which Decode refuses: %v", b, in, l, c, err)
			}
			if a := quatAngle(in, back); a > limit {
				t.Fatalf("b=%d: %v decodes %.4f° away (limit %.4f°): %v", b, in, a, limit, back)
			}
		}
		for _, in := range ties {
			try(in)
		}
		for range 2000 {
			try(randomUnit(rng))
		}
	}
}

// TestQuatDecodeHostile walks every index against the extreme and a spread
// of codes at every width: whatever bits a hostile packet carries, Decode
// refuses them or returns a finite quaternion of unit length whose rebuilt
// component is at least 1/2 (each to float32 rounding).
func TestQuatDecodeHostile(t *testing.T) {
	for b := 2; b <= quant.QuatMaxBits; b++ {
		q, _ := quant.NewQuat(b)
		max := q.MaxCode()
		codes := []uint32{0, 1, max / 2, max/2 + 1, max - 1, max, max + 1, max / 3, 2 * (max / 3), 1<<32 - 1}
		for largest := uint32(0); largest < 5; largest++ {
			for _, a := range codes {
				for _, bb := range codes {
					for _, c := range codes {
						out, err := q.Decode(largest, [3]uint32{a, bb, c})
						if err != nil {
							continue
						}
						n2 := 0.0
						for i, v := range out {
							if math.IsNaN(float64(v)) || math.Abs(float64(v)) > 1 {
								t.Fatalf("b=%d largest=%d codes=%v: component %d = %v", b, largest, [3]uint32{a, bb, c}, i, v)
							}
							n2 += float64(v) * float64(v)
						}
						if out[largest] < 0.5-1e-6 || math.Abs(n2-1) > 1e-6 {
							t.Fatalf("b=%d: accepted %d %v decodes to %v (norm² %v)", b, largest, [3]uint32{a, bb, c}, out, n2)
						}
					}
				}
			}
		}
	}
}

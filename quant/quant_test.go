package quant_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack/quant"
)

func TestNewFloatValidation(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	tests := []struct {
		min, max, res float32
		msg           string
	}{
		{10, -10, 0.01, "min must be < max"},
		{1, 1, 0.01, "min must be < max"},
		{0, 10, 0, "resolution must be finite and > 0"},
		{0, 10, -1, "resolution must be finite and > 0"},
		{0, 10, nan, "resolution"},
		{0, 10, inf, "resolution"},
		{nan, 10, 1, "bounds must be finite"},
		{0, inf, 1, "bounds must be finite"},
		{-3e38, 3e38, 1, "overflows float32"},
	}
	for _, tt := range tests {
		_, err := quant.NewFloat(tt.min, tt.max, tt.res)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("NewFloat(%v, %v, %v) = %v, want error containing %q", tt.min, tt.max, tt.res, err, tt.msg)
		}
	}
}

func TestFloatParams(t *testing.T) {
	tests := []struct {
		min, max, res float32
		maxCode       uint32
		bits          int
	}{
		{0, 10, 0.01, 1000, 10},
		{-1024, 1024, 0.01, 204800, 18},
		{-1, 1, 0.0001, 20000, 15},
		{0, 1, 2, 1, 1},                   // delta/res < 1 clamps to one step
		{0, 1e10, 1, quant.MaxSteps, 32},  // clamps to the largest float below 2^32
		{0, 1, 1e-30, quant.MaxSteps, 32}, // delta/res overflows to +Inf, clamps too
		{0, 8388609, 1, 8388609, 24},
	}
	for _, tt := range tests {
		q, err := quant.NewFloat(tt.min, tt.max, tt.res)
		if err != nil {
			t.Fatal(err)
		}
		if q.MaxCode() != tt.maxCode || q.Bits() != tt.bits {
			t.Errorf("[%v,%v] res %v: M=%d bits=%d, want M=%d bits=%d", tt.min, tt.max, tt.res, q.MaxCode(), q.Bits(), tt.maxCode, tt.bits)
		}
	}
}

func TestQuantizeEdges(t *testing.T) {
	q, _ := quant.NewFloat(-10, 10, 0.01) // M = 2000
	tests := []struct {
		v    float32
		code uint32
	}{
		{-10, 0}, {10, 2000}, {0, 1000}, {-11, 0}, {11, 2000},
		{float32(math.Inf(1)), 2000}, {float32(math.Inf(-1)), 0}, {float32(math.NaN()), 0},
		{-9.995, 1}, {0.004, 1000}, {0.005, 1000}, {0.0051, 1001}, // 0.005 rounds below the half in float32
	}
	for _, tt := range tests {
		if got := q.Quantize(tt.v); got != tt.code {
			t.Errorf("Quantize(%v) = %d, want %d", tt.v, got, tt.code)
		}
	}
	if got := q.Dequantize(0); got != -10 {
		t.Errorf("Dequantize(0) = %v", got)
	}
	if got := q.Dequantize(2000); got != 10 {
		t.Errorf("Dequantize(M) = %v", got)
	}
}

// TestQuantizeInRange: the unclamped coder agrees with Quantize on every
// value it is specified for: the bounds, the decoded extremes (which may lie
// a rounding past max), their float32 neighbours inside, every decoded
// value and random values, for declarations with few and many steps.
func TestQuantizeInRange(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, p := range [][3]float32{{-10, 10, 0.01}, {-1024, 1024, 0.01}, {-1, 1, 0.0001}, {0.1, 0.7, 0.003}, {-3e9, 3e9, 1}, {0, 1e10, 1}, {-5, 3, 0.5}, {1e-30, 3e-30, 1e-32}} {
		q, err := quant.NewFloat(p[0], p[1], p[2])
		if err != nil {
			t.Fatal(err)
		}
		top := max(q.Max(), q.Dequantize(q.MaxCode()))
		check := func(f float32) {
			t.Helper()
			if f < q.Min() || f > top {
				return
			}
			if got, want := q.QuantizeInRange(f), q.Quantize(f); got != want {
				t.Fatalf("%v: QuantizeInRange(%v) = %d, Quantize = %d", p, f, got, want)
			}
		}
		for _, f := range []float32{q.Min(), q.Max(), top, math.Nextafter32(q.Max(), -1), math.Nextafter32(top, -1), math.Nextafter32(q.Min(), top)} {
			check(f)
		}
		for c := uint32(0); c <= min(q.MaxCode(), 1<<16); c++ {
			check(q.Dequantize(c))
			check(q.Dequantize(q.MaxCode() - c))
		}
		for range 100000 {
			check(q.Min() + float32(r.Float64())*(top-q.Min()))
		}
	}
}

func TestCheckCanonical(t *testing.T) {
	tests := []struct {
		min, max, res float32
		bad           bool
		code          uint32 // first failing code (python float32 oracle)
		back          uint32
	}{
		{0, 10, 0.01, false, 0, 0},
		{-1024, 1024, 0.01, false, 0, 0},
		{-1, 1, 0.0001, false, 0, 0},
		{0, 8388608, 1, false, 0, 0},
		{1000, 1001, 1e-5, true, 1, 0},            // ulp at 1000 is 6e-5 > res
		{0, 16777216, 1, true, 8388609, 8388610},  // odd integers above 2^23 round to even
		{0, 100000, 0.01, true, 3276829, 3276830}, // 10^7 steps: finer than float32 holds at 32768
	}
	for _, tt := range tests {
		q, err := quant.NewFloat(tt.min, tt.max, tt.res)
		if err != nil {
			t.Fatal(err)
		}
		err = q.CheckCanonical()
		if !tt.bad {
			if err != nil {
				t.Errorf("[%v,%v] res %v: %v", tt.min, tt.max, tt.res, err)
			}
			continue
		}
		var ce *quant.CanonicalError
		if !errors.As(err, &ce) || ce.Code != tt.code || ce.Back != tt.back || ce.Unproven {
			t.Errorf("[%v,%v] res %v: %v, want code %d -> %d", tt.min, tt.max, tt.res, err, tt.code, tt.back)
		}
	}
}

func TestFloat64(t *testing.T) {
	q, err := quant.NewFloat64(-1e6, 1e6, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	if q.MaxCode() != 2000000000 || q.Bits() != 31 {
		t.Fatalf("M=%d bits=%d", q.MaxCode(), q.Bits())
	}
	if err := q.CheckCanonical(); err != nil {
		t.Fatalf("proven-canonical declaration refused: %v", err)
	}
	// Spot-check the proof on both ends and a random sample.
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 100000; i++ {
		c := rng.Uint32N(q.MaxCode() + 1)
		if i < 1000 {
			c = uint32(i)
		} else if i < 2000 {
			c = q.MaxCode() - uint32(i-1000)
		}
		if back := q.Quantize(q.Dequantize(c)); back != c {
			t.Fatalf("code %d came back as %d", c, back)
		}
	}
	// Expected codes from a float64 oracle (Python).
	for _, tt := range []struct {
		v    float64
		code uint32
	}{{0.0015, 1000000001}, {0.0016, 1000000002}, {123.4567, 1000123457}} {
		if got := q.Quantize(tt.v); got != tt.code {
			t.Errorf("Quantize(%v) = %d, want %d", tt.v, got, tt.code)
		}
	}
	// A range far narrower than its magnitude: float64 cannot hold 1e-3 at 1e15.
	bad, err := quant.NewFloat64(1e15, 1e15+1, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	var ce *quant.CanonicalError
	if err := bad.CheckCanonical(); !errors.As(err, &ce) || ce.Unproven {
		t.Fatalf("want a failing code, got %v", err)
	}
	if ce.Back == ce.Code {
		t.Fatalf("witness does not fail: %+v", ce)
	}
	for _, tt := range []struct{ min, max, res float64 }{{1, 0, 1}, {0, 1, 0}, {math.NaN(), 1, 1}, {-math.MaxFloat64, math.MaxFloat64, 1}} {
		if _, err := quant.NewFloat64(tt.min, tt.max, tt.res); err == nil {
			t.Errorf("NewFloat64(%v) accepted", tt)
		}
	}
}

func TestNewQuatValidation(t *testing.T) {
	for _, b := range []int{-1, 0, 1, 33} {
		if _, err := quant.NewQuat(b); err == nil {
			t.Errorf("NewQuat(%d) accepted", b)
		}
	}
	for b := 2; b <= 32; b++ {
		q, err := quant.NewQuat(b)
		if err != nil || q.Bits() != 2+3*b || q.MaxCode() != uint32(1<<b-1) {
			t.Errorf("NewQuat(%d): %v bits=%d max=%d", b, err, q.Bits(), q.MaxCode())
		}
	}
}

func TestQuatEncode(t *testing.T) {
	q, _ := quant.NewQuat(9)
	tests := []struct {
		in      [4]float32
		largest uint32
		codes   [3]uint32
	}{
		// 0 sits exactly mid-range: (m/2m)*511 + 0.5 = 256.
		{[4]float32{0, 0, 0, 1}, 3, [3]uint32{256, 256, 256}},
		{[4]float32{0, 0, 0, -1}, 3, [3]uint32{256, 256, 256}}, // negated: same rotation
		{[4]float32{1, 0, 0, 0}, 0, [3]uint32{256, 256, 256}},
		{[4]float32{0.5, 0.5, 0.5, 0.5}, 0, [3]uint32{436, 436, 436}}, // tie: lowest index wins
		{[4]float32{-0.5, 0.5, -0.5, 0.5}, 0, [3]uint32{75, 436, 75}}, // largest negative: all flip
		{[4]float32{0, 0.9, 0, 0.9}, 1, [3]uint32{256, 256, 511}},     // component above m clamps
	}
	for _, tt := range tests {
		l, c, ok := q.Encode(tt.in)
		if !ok || l != tt.largest || c != tt.codes {
			t.Errorf("Encode(%v) = %d %v %v, want %d %v", tt.in, l, c, ok, tt.largest, tt.codes)
		}
	}
	for _, bad := range [][4]float32{{float32(math.NaN()), 0, 0, 1}, {0, float32(math.Inf(-1)), 0, 0}} {
		if _, _, ok := q.Encode(bad); ok {
			t.Errorf("Encode(%v) accepted", bad)
		}
	}
}

// TestQuatDecodeNeverNaN walks every largest index against the extreme and
// a spread of codes at every width: any bits a hostile packet can carry
// decode to a finite quaternion whose rebuilt component is in [0, 1].
func TestQuatDecodeNeverNaN(t *testing.T) {
	for b := 2; b <= 32; b++ {
		q, _ := quant.NewQuat(b)
		max := q.MaxCode()
		codes := []uint32{0, 1, max / 2, max/2 + 1, max - 1, max, max / 3, 2 * (max / 3)}
		for largest := uint32(0); largest < 4; largest++ {
			for _, a := range codes {
				for _, bb := range codes {
					for _, c := range codes {
						out := q.Decode(largest, [3]uint32{a, bb, c})
						for i, v := range out {
							if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) || math.Abs(float64(v)) > 1 {
								t.Fatalf("b=%d largest=%d codes=%v: component %d = %v", b, largest, [3]uint32{a, bb, c}, i, v)
							}
						}
						if out[largest] < 0 {
							t.Fatalf("rebuilt component negative: %v", out)
						}
					}
				}
			}
		}
	}
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
// off by at most e = m/(2^b-1); the worst lands at a = b = c = L = 1/2, where
// the rebuilt component moves by 3e, giving an angle of 4·√3·e radians.
func quatBound(b int) float64 {
	e := float64(quant.QuatComponentMax) / float64(uint32(1)<<b-1)
	return 4 * math.Sqrt(3) * e * 180 / math.Pi
}

// TestQuatAngularError measures the worst angular error over random unit
// quaternions plus the neighbourhood of the analytic worst case, and checks
// it against the bound the package doc states (0.55°, 0.28°, 0.069° at 9,
// 10, 12 bits).
func TestQuatAngularError(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 9))
	documented := map[int]float64{9: 0.55, 10: 0.28, 12: 0.069}
	for _, b := range []int{9, 10, 12} {
		q, _ := quant.NewQuat(b)
		worst := 0.0
		try := func(v [4]float64) {
			n := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3])
			var in [4]float32
			for k := range v {
				in[k] = float32(v[k] / n)
			}
			l, c, _ := q.Encode(in)
			worst = math.Max(worst, quatAngle(in, q.Decode(l, c)))
		}
		for i := 0; i < 200000; i++ {
			try([4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
			j := 0.02
			try([4]float64{0.5 + j*rng.NormFloat64(), 0.5 + j*rng.NormFloat64(), -0.5 + j*rng.NormFloat64(), -0.5 + j*rng.NormFloat64()})
		}
		if worst > quatBound(b)*1.01 || worst > documented[b] {
			t.Errorf("b=%d: worst %.4f° exceeds the bound %.4f° / documented %.3f°", b, worst, quatBound(b), documented[b])
		}
		if worst < quatBound(b)*0.8 {
			t.Errorf("b=%d: worst %.4f° is far below the bound %.4f°: is the measurement reaching the worst case?", b, worst, quatBound(b))
		}
		t.Logf("b=%d: worst measured %.4f°, analytic bound %.4f°", b, worst, quatBound(b))
	}
}

func TestVerifyReciprocal(t *testing.T) {
	for _, p := range [][3]float32{{-1024, 1024, 0.01}, {-1, 1, 0.0001}, {0, 10, 0.01}, {0, 8388608, 1}, {-5, 3, 0.5}} {
		slow, _ := quant.NewFloat(p[0], p[1], p[2])
		fast := slow
		// For these declarations (the ones the tests and benchmarks use)
		// the float64 reciprocal is exact for every code; a change that
		// loses that would silently slow Dequantize down.
		if !fast.VerifyReciprocal() {
			t.Errorf("%v: reciprocal not verified; division kept", p)
		}
		// And every code decodes identically.
		for c := uint32(0); c <= slow.MaxCode(); c++ {
			if math.Float32bits(fast.Dequantize(c)) != math.Float32bits(slow.Dequantize(c)) {
				t.Fatalf("%v: code %d decodes to %v, want %v", p, c, fast.Dequantize(c), slow.Dequantize(c))
			}
		}
	}
	huge, _ := quant.NewFloat(0, 1e10, 1)
	if huge.VerifyReciprocal() {
		t.Fatal("verified a declaration above the limit")
	}
}

// TestQuatEveryWidth round-trips random unit quaternions and the axis
// rotations (components at exactly ±m, where codes reach M) at every width
// from 4 to 32 bits, within the analytic bound (plus float32 slack at high
// widths, where quantization is finer than float32 itself).
func TestQuatEveryWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 32))
	m := float32(quant.QuatComponentMax)
	special := [][4]float32{
		{m, 0, m, 0}, {m, m, 0, 0}, {0, m, 0, -m}, {-m, 0, 0, m}, {0, 0, 0, 1}, {0.5, 0.5, 0.5, 0.5}, {-0.5, 0.5, -0.5, 0.5},
	}
	for b := 4; b <= 32; b++ {
		q, _ := quant.NewQuat(b)
		limit := quatBound(b) + 1e-4
		try := func(in [4]float32) {
			l, c, ok := q.Encode(in)
			if !ok {
				t.Fatalf("b=%d: Encode(%v) refused", b, in)
			}
			for _, code := range c {
				if code > q.MaxCode() {
					t.Fatalf("b=%d: code %d above M for %v", b, code, in)
				}
			}
			if a := quatAngle(in, q.Decode(l, c)); a > limit {
				t.Fatalf("b=%d: %v decodes %.4f° away (limit %.4f°): %v", b, in, a, limit, q.Decode(l, c))
			}
		}
		for _, in := range special {
			try(in)
		}
		for i := 0; i < 2000; i++ {
			v := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			n := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3])
			try([4]float32{float32(v[0] / n), float32(v[1] / n), float32(v[2] / n), float32(v[3] / n)})
		}
	}
}

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

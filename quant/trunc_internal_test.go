package quant

import (
	"math"
	"testing"
)

// TestTruncCode checks the truncating code conversion against the floor it
// replaced: for every float32 the quantizers can produce before it (from 0.5
// to 2^32, the largest step count rounded up, plus one half) and a little
// beyond, and, for smaller maxima, every float32 near the maximum. With
// -short (CI's emulated 32-bit platform, twenty times slower) the wide sweep
// takes every 37th float32 and every float32 within 2^12 of a power of two,
// where the conversion's edges are; the tests step runs every one.
func TestTruncCode(t *testing.T) {
	var bad float32 // a failing input, reported once the loops are done
	var badMax uint32
	stride := uint32(1)
	if testing.Short() {
		stride = 37
	}
	check := func(b uint32) {
		if s := math.Float32frombits(b); truncCode(s, math.MaxUint32) != clampCode(math.Floor(float64(s)), math.MaxUint32) {
			bad, badMax = s, math.MaxUint32
		}
	}
	for b := math.Float32bits(0.5); b <= math.Float32bits(1<<33); b += stride {
		check(b)
	}
	for e := -1; stride > 1 && e <= 33; e++ {
		at := math.Float32bits(float32(math.Ldexp(1, e)))
		for b := at - 1<<12; b <= at+1<<12; b++ {
			if b >= math.Float32bits(0.5) {
				check(b)
			}
		}
	}
	for _, max := range []uint32{1, 2, 1000, 1<<24 - 1, 1 << 24, 1<<24 + 1, MaxSteps} {
		at := math.Float32bits(float32(max))
		for b := at - 1<<16; b <= at+1<<16; b++ {
			if s := math.Float32frombits(b); s >= 0.5 && truncCode(s, max) != clampCode(math.Floor(float64(s)), max) {
				bad, badMax = s, max
			}
		}
	}
	if bad != 0 {
		t.Fatalf("truncCode(%v, %d) = %d, floor gives %d", bad, badMax, truncCode(bad, badMax), clampCode(math.Floor(float64(bad)), badMax))
	}
}

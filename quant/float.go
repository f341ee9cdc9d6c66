package quant

import (
	"fmt"
	"math"
	"math/bits"
)

// MaxSteps is the largest number of quantization steps a compressed float
// may have: the largest float32 below 2^32. delta/res is clamped to it, so a
// code always fits in 32 bits.
const MaxSteps = 4294967040

// Float holds the precomputed parameters of a compressed float32: the bounds,
// the resolution, and what follows from them (delta, the largest code M and
// the number of bits a code takes). Build it once per field with NewFloat;
// Quantize and Dequantize are then branch-light pure functions.
//
// The zero Float is not valid; use NewFloat.
type Float struct {
	min, max, res float32
	delta         float32 // max - min, rounded to float32
	steps         float32 // float32(M), the factor Quantize multiplies by
	maxCode       uint32  // M: codes run from 0 to M inclusive
	nbits         int     // bits_required(0, M)
	inv           float64 // 1/M, used by Dequantize only when fastInv was verified
	fastInv       bool
}

// NewFloat validates min, max and res and precomputes the compressed-float
// parameters. It fails when a bound or res is not finite, min >= max, res <= 0,
// or max - min overflows float32.
func NewFloat(min, max, res float32) (Float, error) {
	switch {
	case !finite32(min) || !finite32(max):
		return Float{}, fmt.Errorf("quant: bounds must be finite, got [%v, %v]", min, max)
	case !(min < max):
		return Float{}, fmt.Errorf("quant: min must be < max, got [%v, %v]", min, max)
	case !finite32(res) || !(res > 0):
		return Float{}, fmt.Errorf("quant: resolution must be finite and > 0, got %v", res)
	}
	delta := float32(max - min)
	if !finite32(delta) {
		return Float{}, fmt.Errorf("quant: max - min overflows float32 for [%v, %v]", min, max)
	}
	values := float32(delta / res)
	maxCode := stepsFor32(values)
	return Float{
		min: min, max: max, res: res,
		delta:   delta,
		steps:   float32(maxCode),
		maxCode: maxCode,
		nbits:   bits.Len32(maxCode),
		inv:     1 / float64(maxCode),
	}, nil
}

// stepsFor32 is M = uint32(ceil(values)) with values clamped to
// [1, MaxSteps]; NaN counts as 1.
func stepsFor32(values float32) uint32 {
	if !(values >= 1) { // also catches NaN
		return 1
	}
	if values > MaxSteps {
		return MaxSteps
	}
	return uint32(math.Ceil(float64(values))) // float32 -> float64 is exact; so is ceil
}

// Min returns the lower bound.
func (q *Float) Min() float32 { return q.min }

// Max returns the upper bound.
func (q *Float) Max() float32 { return q.max }

// Res returns the requested resolution.
func (q *Float) Res() float32 { return q.res }

// MaxCode returns M, the largest code; codes run from 0 to M.
func (q *Float) MaxCode() uint32 { return q.maxCode }

// Bits returns the number of bits a code occupies on the wire.
func (q *Float) Bits() int { return q.nbits }

// Quantize returns the code for f. Values outside [min, max] clamp to the
// nearest bound and NaN maps to code 0, exactly as the reference writer
// behaves; callers that must refuse such values check them first.
//
// Every step rounds to float32; the explicit conversions stop the compiler
// from fusing the multiply and the add (the Go spec allows fusion otherwise,
// and it changes the bytes).
func (q *Float) Quantize(f float32) uint32 {
	n := float32(float32(f-q.min) / q.delta)
	if !(n > 0) { // also NaN
		n = 0
	} else if n > 1 {
		n = 1
	}
	scaled := float32(n * q.steps)
	// Above 2^23 steps the float32 sum can round past M; bitpack's own rule
	// clamps here so the reader never refuses what the writer produced.
	return truncCode(float32(scaled+0.5), q.maxCode)
}

// QuantizeInRange returns Quantize(f) for f from Min up to the larger of
// Max and Dequantize(MaxCode): the values an encoder accepts without
// clamping. It skips the clamping of (f-min)/delta that only values below
// or well above those bounds need (two compares and branches); for them,
// NaN and infinities its code is unspecified.
//
// Why it agrees: f >= min makes f-min >= 0, so the ratio needs no lower
// clamp. Above 1 (possible only within a rounding of the upper bound) the
// ratio gives a sum at or above float32(M)+0.5, which truncates to at
// least M, and truncCode clamps that to M, as Quantize's clamp to 1 does.
func (q *Float) QuantizeInRange(f float32) uint32 {
	n := float32(float32(f-q.min) / q.delta)
	scaled := float32(n * q.steps)
	return truncCode(float32(scaled+0.5), q.maxCode)
}

// Dequantize returns the float a code stands for. code must be at most
// MaxCode (readers refuse larger codes before calling this).
func (q *Float) Dequantize(code uint32) float32 {
	var n float32
	if q.fastInv {
		n = float32(float64(code) * q.inv) // proven equal to the division below, for every code
	} else {
		n = float32(float32(code) / q.steps)
	}
	return float32(float32(n*q.delta) + q.min)
}

// fastInvLimit bounds the codes VerifyReciprocal checks one by one.
const fastInvLimit = 1 << 24

// VerifyReciprocal checks, for every code in [0, M], that multiplying by
// a float64 reciprocal of M rounds to the same float32 as the pinned
// float32 division code/M, and if so makes Dequantize use the multiply (a
// division's latency is several times a multiply's). The results are bit
// for bit the same either way; only M up to 2^24 is checked, so larger
// declarations keep the division. It reports whether the multiply is used.
// Call it once, when a declaration is set up, before sharing q.
func (q *Float) VerifyReciprocal() bool {
	if q.maxCode > fastInvLimit {
		return false
	}
	for c := uint32(0); ; c++ {
		if float32(float64(c)*q.inv) != float32(float32(c)/q.steps) {
			return false
		}
		if c == q.maxCode {
			break
		}
	}
	q.fastInv = true
	return true
}

// CheckCanonical reports whether every code in [0, M] decodes to a float
// that quantizes back to the same code, so that every packet a reader accepts
// re-encodes to the same bytes. If not, the error names the first code that
// fails. The check is exhaustive; it always ends by about 2^24 codes, because
// beyond that float32(code) itself collides. Callers cache the result per
// (min, max, res).
func (q *Float) CheckCanonical() error {
	for c := uint32(0); ; c++ {
		v := q.Dequantize(c)
		if back := q.Quantize(v); back != c {
			return &CanonicalError{Code: c, Value: float64(v), Back: back}
		}
		if c == q.maxCode {
			return nil
		}
	}
}

// CanonicalError describes a quantizer that is not canonical: code Code
// decodes to Value, which quantizes to Back instead. Unproven is set when no
// failing code was found but canonicity could not be proven either (only for
// float64 declarations whose range is tiny next to its magnitude; see
// Float64.CheckCanonical); Code is then the largest code.
type CanonicalError struct {
	Code     uint32
	Value    float64
	Back     uint32
	Unproven bool
}

func (e *CanonicalError) Error() string {
	if e.Unproven {
		return fmt.Sprintf("quant: cannot prove that all %d codes round-trip: the range is too narrow for its magnitude at this resolution", uint64(e.Code)+1)
	}
	return fmt.Sprintf("quant: code %d decodes to %v, which quantizes back to %d", e.Code, e.Value, e.Back)
}

// clampCode converts a floored, non-negative code to uint32, clamped to max
// in floating point first: float32(2^32-1) rounds up to 2^32, which does not
// fit a uint32 (converting it would wrap to 0).
func clampCode(f float64, max uint32) uint32 {
	if f >= float64(max) {
		return max
	}
	return uint32(f)
}

// truncCode is floor(s) clamped to max, for s in [0.5, 2^32] (n in [0, 1]
// times at most 2^32 steps, plus one half). s is positive, so truncating is
// flooring, and it fits an int64: one truncating conversion and an integer
// compare do the work of math.Floor, a float64 compare and a conversion
// (TestTruncCode checks every such s against the floor). Generated Go code
// repeats it (bitpackTrunc), and the arithmetic of Float and Float64: the
// rules' version (bitpack's internal/rules, Version) hashes this package's
// code, so a change here makes every generated Go file stale.
func truncCode(s float32, max uint32) uint32 {
	if c := uint64(int64(s)); c < uint64(max) {
		return uint32(c)
	}
	return max
}

func finite32(f float32) bool {
	return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0)
}

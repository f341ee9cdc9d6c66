package quant

import (
	"fmt"
	"math"
	"math/bits"
)

// Float64 is Float for float64 fields: the same formula evaluated in
// float64, with the same clamp of delta/res to [1, MaxSteps] so codes fit in
// 32 bits. The serialize 1.0 family has no double-precision compressed float,
// so these bytes are bitpack's own: they interoperate with bitpack, not with
// the C++ reference.
type Float64 struct {
	min, max, res float64
	delta         float64
	steps         float64
	maxCode       uint32
	nbits         int
}

// NewFloat64 validates and precomputes like NewFloat, in float64.
func NewFloat64(min, max, res float64) (Float64, error) {
	switch {
	case !finite64(min) || !finite64(max):
		return Float64{}, fmt.Errorf("quant: bounds must be finite, got [%v, %v]", min, max)
	case !(min < max):
		return Float64{}, fmt.Errorf("quant: min must be < max, got [%v, %v]", min, max)
	case !finite64(res) || !(res > 0):
		return Float64{}, fmt.Errorf("quant: resolution must be finite and > 0, got %v", res)
	}
	delta := max - min
	if !finite64(delta) {
		return Float64{}, fmt.Errorf("quant: max - min overflows float64 for [%v, %v]", min, max)
	}
	values := delta / res
	var maxCode uint32
	switch {
	case !(values >= 1):
		maxCode = 1
	case values > MaxSteps:
		maxCode = MaxSteps
	default:
		maxCode = uint32(math.Ceil(values))
	}
	return Float64{
		min: min, max: max, res: res,
		delta:   delta,
		steps:   float64(maxCode),
		maxCode: maxCode,
		nbits:   bits.Len32(maxCode),
	}, nil
}

// Min returns the lower bound.
func (q *Float64) Min() float64 { return q.min }

// Max returns the upper bound.
func (q *Float64) Max() float64 { return q.max }

// Res returns the requested resolution.
func (q *Float64) Res() float64 { return q.res }

// MaxCode returns M, the largest code.
func (q *Float64) MaxCode() uint32 { return q.maxCode }

// Bits returns the number of bits a code occupies on the wire.
func (q *Float64) Bits() int { return q.nbits }

// Quantize returns the code for f, clamping like Float.Quantize.
func (q *Float64) Quantize(f float64) uint32 {
	n := float64(f-q.min) / q.delta
	if !(n > 0) {
		n = 0
	} else if n > 1 {
		n = 1
	}
	scaled := float64(n * q.steps)
	return clampCode(math.Floor(float64(scaled+0.5)), q.maxCode)
}

// Dequantize returns the float a code (at most MaxCode) stands for.
func (q *Float64) Dequantize(code uint32) float64 {
	n := float64(code) / q.steps
	return float64(n*q.delta) + q.min
}

// exhaustiveLimit64 bounds the brute-force part of Float64.CheckCanonical.
const exhaustiveLimit64 = 1 << 24

// CheckCanonical is Float.CheckCanonical for float64. With up to 2^32 codes
// an exhaustive scan is too slow, so it first tries a proof: with unit
// roundoff u = 2^-53, the round trip of code c lands within
//
//	6·u·M + (delta + |min| + |max|)·u·M/delta + 2^-20
//
// of c (five roundings relative to c, the absolute error of adding and
// removing min, and the rounding of +0.5), and floor(x + 0.5) recovers c when
// that is below 1/2. For every practical declaration the bound is tiny. When
// it does not hold, codes are checked one by one if M <= 2^24; above that
// both ends of the range are searched for a failing code, and without one
// the declaration is reported as unprovable.
func (q *Float64) CheckCanonical() error {
	const u = 0x1p-53
	m := q.steps
	// Each product rounded on its own (no fused multiply-add), so every
	// platform reaches the same verdict.
	bound := float64(6*u*m) + float64(float64((q.delta+math.Abs(q.min)+math.Abs(q.max))*u)*m)/q.delta + 0x1p-20
	if bound < 0.5 {
		return nil
	}
	fail := func(c uint32) error {
		v := q.Dequantize(c)
		if back := q.Quantize(v); back != c {
			return &CanonicalError{Code: c, Value: v, Back: back}
		}
		return nil
	}
	if q.maxCode <= exhaustiveLimit64 {
		for c := uint32(0); ; c++ {
			if err := fail(c); err != nil {
				return err
			}
			if c == q.maxCode {
				return nil
			}
		}
	}
	for c := uint32(0); c < exhaustiveLimit64/2; c++ {
		if err := fail(c); err != nil {
			return err
		}
		if err := fail(q.maxCode - c); err != nil {
			return err
		}
	}
	return &CanonicalError{Code: q.maxCode, Value: q.Dequantize(q.maxCode), Back: q.maxCode, Unproven: true}
}

func finite64(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

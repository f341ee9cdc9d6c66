package quant

import (
	"fmt"
	"math"
)

// QuatComponentMax is m = float32(1/√2): in a unit quaternion, every
// component other than the largest lies in [-m, +m].
const QuatComponentMax = float32(0.70710677)

// Quat holds the parameters of a smallest-three quaternion with b bits per
// component (2 <= b <= 32). On the wire: 2 bits for the index of the largest
// component, then the other three in order, each a compressed float over
// [-m, +m] with M = 2^b - 1 steps. Total 2 + 3b bits.
type Quat struct {
	bits  int
	steps float32 // float32(2^b - 1)
	max   uint32  // 2^b - 1
}

// Component arithmetic: delta = float32(m - (-m)), exactly like a compressed
// float over [-m, +m].
const (
	quatMin   = -QuatComponentMax
	quatDelta = QuatComponentMax - quatMin // constant-folded exactly: 2m, representable
)

// NewQuat returns the parameters for b bits per component.
func NewQuat(b int) (Quat, error) {
	if b < 2 || b > 32 {
		return Quat{}, fmt.Errorf("quant: quaternion needs 2..32 bits per component, got %d", b)
	}
	max := uint32(1<<b - 1)
	return Quat{bits: b, steps: float32(max), max: max}, nil
}

// ComponentBits returns b, the bits per smallest component.
func (q *Quat) ComponentBits() int { return q.bits }

// Bits returns the total wire size, 2 + 3b.
func (q *Quat) Bits() int { return 2 + 3*q.bits }

// MaxCode returns 2^b - 1, the largest component code.
func (q *Quat) MaxCode() uint32 { return q.max }

// Encode returns the index of the largest-magnitude component (the lowest
// index on a tie) and the codes of the other three in order. If the largest
// component is negative, all four are negated first (q and -q are the same
// rotation). ok is false when a component is NaN or infinite; nothing is
// normalised, so callers pass unit quaternions.
func (q *Quat) Encode(v [4]float32) (largest uint32, codes [3]uint32, ok bool) {
	best := float32(-1)
	for i, c := range v {
		if !finite32(c) {
			return 0, codes, false
		}
		if a := abs32(c); a > best {
			best, largest = a, uint32(i)
		}
	}
	negate := v[largest] < 0
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

// Decode rebuilds the quaternion from the largest index (0..3) and three
// codes (each at most MaxCode; larger codes are clamped). The largest
// component is sqrt(max(0, 1 - a² - b² - c²)) in float32; the result is not
// normalised and is never NaN.
func (q *Quat) Decode(largest uint32, codes [3]uint32) [4]float32 {
	var small [3]float32
	rest := float32(1) // ((1 - a²) - b²) - c², each step rounded
	for i, c := range codes {
		if c > q.max {
			c = q.max
		}
		s := q.dequantize(c)
		small[i] = s
		rest = float32(rest - float32(s*s))
	}
	if !(rest > 0) {
		rest = 0
	}
	big := float32(math.Sqrt(float64(rest))) // sqrt is correctly rounded, so this equals a float32 sqrt
	var out [4]float32
	k := 0
	for i := range out {
		if uint32(i) == largest&3 {
			out[i] = big
			continue
		}
		out[i] = small[k]
		k++
	}
	return out
}

func (q *Quat) quantize(f float32) uint32 {
	n := float32(float32(f-quatMin) / quatDelta)
	if !(n > 0) {
		n = 0
	} else if n > 1 {
		n = 1
	}
	return truncCode(float32(float32(n*q.steps)+0.5), q.max)
}

func (q *Quat) dequantize(code uint32) float32 {
	n := float32(float32(code) / q.steps)
	return float32(float32(n*quatDelta) + quatMin)
}

func abs32(f float32) float32 { return math.Float32frombits(math.Float32bits(f) &^ (1 << 31)) }

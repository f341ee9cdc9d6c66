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
	largest, codes[0], codes[1], codes[2], ok = q.encode(v[0], v[1], v[2], v[3])
	return largest, codes, ok
}

// EncodeWord returns what Encode does for (x, y, z, w) as the quaternion's
// wire bits in one word, least significant first: the index in 2 bits,
// then the three codes in b bits each. It needs Bits() <= 64, that is
// b <= 20 (wider quaternions take more than a word). ok is false as for
// Encode. The components are separate arguments so that they travel in
// registers (Go passes arrays in memory).
func (q *Quat) EncodeWord(x, y, z, w float32) (word uint64, ok bool) {
	largest, c0, c1, c2, ok := q.encode(x, y, z, w)
	b := uint(q.bits) & 63
	return uint64(largest) | uint64(c0)<<2 | uint64(c1)<<(2+b) | uint64(c2)<<(2+2*b), ok
}

func (q *Quat) encode(x, y, z, w float32) (largest, c0, c1, c2 uint32, ok bool) {
	// Integer work on the bit patterns, so that the compiler picks with
	// conditional moves instead of branches that a stream of rotations
	// would mispredict: for finite floats, the order of |x| is the order
	// of the patterns without the sign bit.
	b0, b1, b2, b3 := math.Float32bits(x), math.Float32bits(y), math.Float32bits(z), math.Float32bits(w)
	const absMask, signBit, inf = 1<<31 - 1, 1 << 31, 0x7f800000
	best, l := b0&absMask, b0
	if a := b1 & absMask; a > best {
		best, largest, l = a, 1, b1
	}
	if a := b2 & absMask; a > best {
		best, largest, l = a, 2, b2
	}
	if a := b3 & absMask; a > best {
		best, largest, l = a, 3, b3
	}
	if best >= inf { // the largest magnitude is infinite or NaN (NaN patterns sort above ±Inf)
		return 0, 0, 0, 0, false
	}
	// The three others, in order.
	s0, s1, s2 := b0, b1, b2
	if largest == 0 {
		s0 = b1
	}
	if largest <= 1 {
		s1 = b2
	}
	if largest <= 2 {
		s2 = b3
	}
	// A negative largest component negates all four (a float's negation
	// flips its sign bit). A largest of -0 flips the others too, though -0
	// is not negative: they are all ±0 then, which code alike.
	if l&signBit != 0 {
		s0, s1, s2 = s0^signBit, s1^signBit, s2^signBit
	}
	return largest, q.quantize(math.Float32frombits(s0)), q.quantize(math.Float32frombits(s1)), q.quantize(math.Float32frombits(s2)), true
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

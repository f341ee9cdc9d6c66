package quant

import (
	"fmt"
	"math"
)

// QuatComponentMax is m = float32(1/√2): in a unit quaternion, every
// component other than the largest lies in [-m, +m].
const QuatComponentMax = float32(0.70710677)

// QuatMaxBits is the most bits per component NewQuat accepts. At 23 bits
// the step 2m/M is finer than float32 can resolve near ±m, so two codes
// decode to the same float and quaternions could not be canonical.
const QuatMaxBits = 22

// Quat holds the parameters of a smallest-three quaternion with b bits per
// component (2 <= b <= QuatMaxBits). On the wire: 2 bits for the index of
// the largest component, then the other three in order, each a code in
// [0, M] with M = 2^b - 2. The package doc gives the exact algorithm.
type Quat struct {
	bits  int
	steps float32 // float32(M), exact
	max   uint32  // M = 2^b - 2; code 2^b - 1 is never valid
	mid   uint32  // M/2, the code of 0
	// Bounds on spread (see there): at most sure, the code is stable at
	// any index; at least never, it is stable at none.
	sure, never uint64
}

// Component arithmetic: delta = float32(m - (-m)), exactly like a compressed
// float over [-m, +m].
const (
	quatMin   = -QuatComponentMax
	quatDelta = QuatComponentMax - quatMin // constant-folded exactly: 2m, representable
)

// NewQuat returns the parameters for b bits per component.
func NewQuat(b int) (Quat, error) {
	if b < 2 || b > QuatMaxBits {
		return Quat{}, fmt.Errorf("quant: quaternion needs 2..%d bits per component, got %d (past %d, float32 cannot hold the distinct component values a canonical code needs)", QuatMaxBits, b, QuatMaxBits)
	}
	max := uint32(1<<b - 2)
	step := float64(quatDelta) / float64(max)
	k := step * step
	return Quat{bits: b, steps: float32(max), max: max, mid: max / 2,
		sure: uint64((1 - spreadMargin) / k), never: uint64(math.Ceil((1 + spreadMargin) / k))}, nil
}

// ComponentBits returns b, the bits per smallest component.
func (q *Quat) ComponentBits() int { return q.bits }

// Bits returns the total wire size, 2 + 3b.
func (q *Quat) Bits() int { return 2 + 3*q.bits }

// MaxCode returns M = 2^b - 2, the largest valid component code. The code
// M/2 is the component 0.
func (q *Quat) MaxCode() uint32 { return q.max }

// Encode returns the canonical code of v = (x, y, z, w): the index of the
// largest component and the codes of the other three in order, chosen so
// that decoding them and encoding the result gives them back (the package
// doc has the algorithm). The all-zero quaternion codes as the identity
// (0, 0, 0, 1). ok is false when a component is NaN or infinite. v should
// be a unit quaternion: the code of any other finite v is canonical too,
// but its rotation is v's only as far as v is near unit length.
func (q *Quat) Encode(v [4]float32) (largest uint32, codes [3]uint32, ok bool) {
	largest, codes[0], codes[1], codes[2], ok = q.natural(v[0], v[1], v[2], v[3])
	if q.spread(codes[0], codes[1], codes[2]) > q.sure && ok {
		largest, codes = q.encodeUnsure(v[0], v[1], v[2], v[3], largest, codes)
	}
	return largest, codes, ok
}

// EncodeWord returns what Encode does for (x, y, z, w) as the quaternion's
// wire bits in one word, least significant first: the index in 2 bits,
// then the three codes in b bits each. It needs Bits() <= 64, that is
// b <= 20 (wider quaternions take more than a word). ok is false as for
// Encode. The components are separate arguments so that they travel in
// registers (Go passes arrays in memory).
func (q *Quat) EncodeWord(x, y, z, w float32) (word uint64, ok bool) {
	largest, c0, c1, c2, ok := q.natural(x, y, z, w)
	if q.spread(c0, c1, c2) > q.sure && ok {
		var codes [3]uint32
		largest, codes = q.encodeUnsure(x, y, z, w, largest, [3]uint32{c0, c1, c2})
		c0, c1, c2 = codes[0], codes[1], codes[2]
	}
	b := uint(q.bits) & 63
	return uint64(largest) | uint64(c0)<<2 | uint64(c1)<<(2+b) | uint64(c2)<<(2+2*b), ok
}

// encodeUnsure finishes Encode and EncodeWord when spread cannot vouch
// for the natural code: the code is near a tie, or out of order. (The
// exact test, stable, divides three times and takes a square root; spread
// settles the common case with integer arithmetic, in a branch that a
// stream of rotations rarely mispredicts.)
func (q *Quat) encodeUnsure(x, y, z, w float32, largest uint32, codes [3]uint32) (uint32, [3]uint32) {
	if q.spread(codes[0], codes[1], codes[2]) >= q.never || !q.stable(largest, codes) {
		return q.canonicalize(x, y, z, w)
	}
	return largest, codes
}

// natural is the plain smallest-three code of (x, y, z, w): the largest
// magnitude (the highest index on a tie) is dropped, all four negated first
// if it is negative, and the others quantized.
func (q *Quat) natural(x, y, z, w float32) (largest, c0, c1, c2 uint32, ok bool) {
	// Integer work on the bit patterns, so that the compiler picks with
	// conditional moves instead of branches that a stream of rotations
	// would mispredict: for finite floats, the order of |x| is the order
	// of the patterns without the sign bit.
	b0, b1, b2, b3 := math.Float32bits(x), math.Float32bits(y), math.Float32bits(z), math.Float32bits(w)
	const absMask, signBit, inf = 1<<31 - 1, 1 << 31, 0x7f800000
	best, l := b0&absMask, b0
	if a := b1 & absMask; a >= best {
		best, largest, l = a, 1, b1
	}
	if a := b2 & absMask; a >= best {
		best, largest, l = a, 2, b2
	}
	if a := b3 & absMask; a >= best {
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

// spread returns d0² + d1² + d2² + max(d_k²) for d_k = c_k - M/2: with
// step = delta/M, each code decodes to s_k = d_k·step before float32
// rounding, so 1 - step²·spread is rest - max(s_k²) as decode computes
// it, to within 2e-6 (each s_k is within 2e-7 of d_k·step, its square
// within 3e-7, rest within 1e-6). NewQuat sets sure and never where that
// difference passes ±spreadMargin: then the rebuilt component exceeds all
// three, or one of them exceeds it, whatever the index.
func (q *Quat) spread(c0, c1, c2 uint32) uint64 {
	d0, d1, d2 := int64(c0)-int64(q.mid), int64(c1)-int64(q.mid), int64(c2)-int64(q.mid)
	a0, a1, a2 := uint64(d0*d0), uint64(d1*d1), uint64(d2*d2)
	top := a0
	if a1 > top {
		top = a1
	}
	if a2 > top {
		top = a2
	}
	return a0 + a1 + a2 + top
}

const spreadMargin = 1.0 / (1 << 16)

// stable reports whether codes (each at most M) with index largest are
// canonical, that is whether the rebuilt component outranks the other three.
func (q *Quat) stable(largest uint32, codes [3]uint32) bool {
	_, _, _, _, ok := q.decode(largest, codes[0], codes[1], codes[2])
	return ok
}

// decode rebuilds the quaternion of three codes (each at most M) with
// index largest, and reports whether they are canonical: whether the
// rebuilt component outranks the other three as the encoder ranks them
// (larger in magnitude, or equal at the higher index). One function, so
// that Decode's hot path makes no further calls, returning scalars, which
// travel in registers (arrays go through memory).
func (q *Quat) decode(largest, c0, c1, c2 uint32) (x, y, z, w float32, ok bool) {
	s0, s1, s2 := q.dequantize(c0), q.dequantize(c1), q.dequantize(c2)
	// big = sqrt(max(0, ((1 - s0²) - s1²) - s2²)), each step rounded.
	rest := float32(float32(float32(1-float32(s0*s0))-float32(s1*s1)) - float32(s2*s2))
	if !(rest > 0) {
		rest = 0
	}
	big := float32(math.Sqrt(float64(rest))) // sqrt is correctly rounded, so this equals a float32 sqrt

	// The order on the bit patterns (for floats of one sign, the order of
	// the patterns is the order of the values): a small component at an
	// index above largest must be below big, one below largest at most
	// equal. t_k is 1 where a tie would go to small component k.
	const absMask = 1<<31 - 1
	b0, b1, b2, b := math.Float32bits(s0), math.Float32bits(s1), math.Float32bits(s2), math.Float32bits(big)
	var t0, t1, t2 uint32
	if largest == 0 {
		t0 = 1
	}
	if largest <= 1 {
		t1 = 1
	}
	if largest <= 2 {
		t2 = 1
	}
	top := b0&absMask + t0
	if a := b1&absMask + t1; a > top {
		top = a
	}
	if a := b2&absMask + t2; a > top {
		top = a
	}

	// big at index largest, the others around it in order: conditional
	// moves rather than branches on largest.
	o0, o1, o2, o3 := b0, b1, b2, b2
	if largest == 0 {
		o0, o1 = b, b0
	}
	if largest == 1 {
		o1 = b
	}
	if largest < 2 {
		o2 = b1
	}
	if largest == 2 {
		o2 = b
	}
	if largest == 3 {
		o3 = b
	}
	return math.Float32frombits(o0), math.Float32frombits(o1), math.Float32frombits(o2), math.Float32frombits(o3), top <= b
}

// canonicalize is encode's slow path, for the rare v whose natural code is
// not stable: v is normalised, then the natural code of the result moves
// one component code at a time toward the middle until it is stable.
func (q *Quat) canonicalize(x, y, z, w float32) (uint32, [3]uint32) {
	// The natural code was unstable, so some decoded |s_k| >= 1/2 and
	// that component of v exceeds m/2 in magnitude: n2 > 1/8, and the
	// division is finite (if n2 overflows, r is +Inf and v becomes all
	// zeros, which codes as the identity).
	n2 := float32(float32(float32(float32(x*x)+float32(y*y))+float32(z*z)) + float32(w*w))
	r := float32(math.Sqrt(float64(n2)))
	largest, c0, c1, c2, _ := q.natural(x/r, y/r, z/r, w/r)
	codes := [3]uint32{c0, c1, c2}
	// Each move brings a code closer to the middle, and three middle codes
	// decode to (0, 0, 0, 1) with the index anywhere: the loop ends.
	for !q.stable(largest, codes) {
		k, far := 0, distance(codes[0], q.mid)
		for j := 1; j < 3; j++ {
			if d := distance(codes[j], q.mid); d > far {
				k, far = j, d
			}
		}
		if codes[k] > q.mid {
			codes[k]--
		} else {
			codes[k]++
		}
	}
	return largest, codes
}

func distance(c, mid uint32) uint32 {
	if c > mid {
		return c - mid
	}
	return mid - c
}

// Decode rebuilds the quaternion from the largest index and three codes,
// or refuses a code no encoder writes with a *QuatCodeError: an index
// above 3, a component code above MaxCode, or a code that is not canonical
// (its decoded quaternion would encode to another code). An accepted
// code's quaternion has its largest component rebuilt as
// sqrt(((1 - a²) - b²) - c²) in float32, outranking the other three (so
// at least 1/2, up to float32 rounding); it is unit length up to float32
// rounding and is not normalised.
func (q *Quat) Decode(largest uint32, codes [3]uint32) ([4]float32, error) {
	if largest > 3 || codes[0] > q.max || codes[1] > q.max || codes[2] > q.max {
		return [4]float32{}, &QuatCodeError{Largest: largest, Codes: codes, Max: q.max}
	}
	x, y, z, w, ok := q.decode(largest, codes[0], codes[1], codes[2])
	if !ok {
		return [4]float32{}, disorder(largest, codes, q.max, [4]float32{x, y, z, w})
	}
	return [4]float32{x, y, z, w}, nil
}

// disorder is Decode's error for a code whose decoded quaternion v does
// not have its largest component at index largest.
func disorder(largest uint32, codes [3]uint32, max uint32, v [4]float32) error {
	back, best := uint32(0), float32(-1)
	for i, c := range v {
		if a := float32(math.Abs(float64(c))); a >= best {
			back, best = uint32(i), a
		}
	}
	return &QuatCodeError{Largest: largest, Codes: codes, Max: max, Value: v, Back: back}
}

// QuatCodeError describes a quaternion code that Decode refuses. If
// Largest is above 3 or a code above Max, the code is out of range;
// otherwise it is not canonical: it decodes to Value, whose largest
// component (as the encoder ranks them) is at index Back, not Largest.
// The message has no package prefix, as bitio and bitpack wrap it.
type QuatCodeError struct {
	Largest uint32
	Codes   [3]uint32
	Max     uint32
	Value   [4]float32
	Back    uint32
}

func (e *QuatCodeError) Error() string {
	if e.Largest > 3 {
		return fmt.Sprintf("quaternion index %d out of range [0, 3]", e.Largest)
	}
	for _, c := range e.Codes {
		if c > e.Max {
			return fmt.Sprintf("quaternion component code %d out of range [0, %d]", c, e.Max)
		}
	}
	return fmt.Sprintf("quaternion code (index %d, codes %d %d %d) is not canonical: it decodes to %v, which encodes with index %d",
		e.Largest, e.Codes[0], e.Codes[1], e.Codes[2], e.Value, e.Back)
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

package bitpacktest

import (
	"math"
	"reflect"
)

// Floats and quaternions: generation, and reading and writing them
// without losing bits.

// setFloat32 stores f with every bit intact: SetFloat would go through
// float64, which quiets a signaling NaN on some machines.
func setFloat32(dst reflect.Value, f float32) {
	dst.Set(reflect.ValueOf(f).Convert(dst.Type()))
}

// floatBits returns the bits of a float32 (width 32) or float64: random
// patterns, special values and ordinary numbers, in about equal parts.
func (st *genState) floatBits(width int) uint64 {
	r := st.rng
	sign := uint64(r.Intn(2))
	if width == 32 {
		sign <<= 31
		switch r.Intn(8) {
		case 0, 1, 2:
			return uint64(r.Uint32())
		case 3, 4:
			specials := [...]uint64{0, 0x3f800000, 0x7f800000, 0x7fc00000, 0x00000001, 0x007fffff, 0x00800000, 0x7f7fffff,
				0x7f800000 | (uint64(r.Uint32())&0x7fffff | 1)} // a NaN with a random payload, signaling or quiet
			return sign | specials[r.Intn(len(specials))]
		}
		return uint64(math.Float32bits(float32(st.ordinary())))
	}
	sign <<= 63
	switch r.Intn(8) {
	case 0, 1, 2:
		return r.Uint64()
	case 3, 4:
		specials := [...]uint64{0, 0x3ff0000000000000, 0x7ff0000000000000, 0x7ff8000000000000, 1, 0x000fffffffffffff,
			0x0010000000000000, 0x7fefffffffffffff, 0x7ff0000000000000 | (r.Uint64()&(1<<52-1) | 1)}
		return sign | specials[r.Intn(len(specials))]
	}
	return math.Float64bits(st.ordinary())
}

// ordinary returns a float of an everyday magnitude, 1e-4 to 1e4.
func (st *genState) ordinary() float64 {
	return st.rng.NormFloat64() * math.Pow(10, float64(st.rng.Intn(9)-4))
}

// compressed returns a value for a compressed float: an edge (the bounds,
// zero, a quantum, the midpoint of two quanta), rarely an out-of-range
// value when the field clamps, else a uniform one. float32 fields get
// float32 values.
func (st *genState) compressed(n *node) float64 {
	r := st.rng
	lo, hi := n.fmin, n.fmax
	round := func(x float64) float64 {
		if n.q32 != nil {
			x = float64(float32(x))
		}
		return min(hi, max(lo, x))
	}
	switch k := r.Intn(16); {
	case k < 5:
		res := n.f.Res
		c := uint32(r.Int63n(int64(maxCode(n)) + 1))
		switch r.Intn(7) {
		case 0:
			return lo
		case 1:
			return hi
		case 2:
			return round(0)
		case 3:
			return round(lo + res)
		case 4:
			return round(hi - res)
		case 5:
			return round(dequantize(n, c))
		default:
			if c == maxCode(n) {
				c--
			}
			return round((dequantize(n, c) + dequantize(n, c+1)) / 2)
		}
	case k == 5 && n.f.Clamp:
		// Outside the range: clamp fields take any finite value.
		var x float64
		switch r.Intn(3) {
		case 0:
			x = lo - math.Abs(r.NormFloat64())*(hi-lo) - n.f.Res
		case 1:
			x = hi + math.Abs(r.NormFloat64())*(hi-lo) + n.f.Res
		default:
			x = math.MaxFloat64
			if n.q32 != nil {
				x = math.MaxFloat32
			}
			if r.Intn(2) == 0 {
				x = -x
			}
		}
		if n.q32 != nil {
			f := float32(x)
			if math.IsInf(float64(f), 0) {
				f = float32(math.Copysign(math.MaxFloat32, x))
			}
			return float64(f)
		}
		if math.IsInf(x, 0) { // a huge range: stay finite, as the tag requires
			x = math.Copysign(math.MaxFloat64, x)
		}
		return x
	}
	return round(lo + r.Float64()*(hi-lo))
}

func maxCode(n *node) uint32 {
	if n.q32 != nil {
		return n.q32.MaxCode()
	}
	return n.q64.MaxCode()
}

func dequantize(n *node, c uint32) float64 {
	if n.q32 != nil {
		return float64(n.q32.Dequantize(c))
	}
	return n.q64.Dequantize(c)
}

// quantum returns the value a compressed float decodes as: the quantum of
// the code it encodes to.
func quantum(n *node, v float64) float64 {
	if n.q32 != nil {
		return float64(n.q32.Dequantize(n.q32.Quantize(float32(v))))
	}
	return n.q64.Dequantize(n.q64.Quantize(v))
}

// quat returns a unit quaternion (x, y, z, w): a special rotation (the
// identity and half-turns, ties between components) or a uniformly random
// one (four normal samples, normalised).
func (st *genState) quat() [4]float64 {
	r := st.rng
	if r.Intn(8) == 0 {
		const s = math.Sqrt2 / 2
		specials := [...][4]float64{{0, 0, 0, 1}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, -1},
			{.5, .5, .5, .5}, {-.5, .5, -.5, .5}, {s, s, 0, 0}, {0, -s, s, 0}, {s, 0, 0, -s}}
		return specials[r.Intn(len(specials))]
	}
	for {
		var q [4]float64
		norm := 0.0
		for i := range q {
			q[i] = r.NormFloat64()
			norm += q[i] * q[i]
		}
		if norm = math.Sqrt(norm); norm > 1e-6 {
			for i := range q {
				q[i] /= norm
			}
			return q
		}
	}
}

// setQuat stores q, (x, y, z, w), into a quaternion value whose
// components are at paths (bitpack's Field.QuatPaths).
func setQuat(dst reflect.Value, paths [4][]int, q [4]float64) {
	for i, c := range q {
		quatComponent(dst, paths[i]).SetFloat(c)
	}
}

// getQuat reads a quaternion stored as setQuat stores it.
func getQuat(v reflect.Value, paths [4][]int) [4]float64 {
	var q [4]float64
	for i := range q {
		q[i] = quatComponent(v, paths[i]).Float()
	}
	return q
}

// quatComponent follows path (a field index in a struct, an element index
// in an array, per step) from v.
func quatComponent(v reflect.Value, path []int) reflect.Value {
	for _, step := range path {
		if v.Kind() == reflect.Array {
			v = v.Index(step)
		} else {
			v = v.Field(step)
		}
	}
	return v
}

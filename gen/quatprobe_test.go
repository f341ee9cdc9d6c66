package gen

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// QuatProbe pins the quaternion arithmetic code by code, as Pinned does
// the compressed floats': A at 4 bits per component, whose every code the
// probes decode; B at 9 and C (float64 components) at 13, decoded from
// random codes and encoded from values near the ties where a rounding
// step done differently (a fused multiply-add, a double kept for a float)
// changes a code.
type QuatProbe struct {
	A [4]float32 `bits:"quat,bits=4"`
	B [4]float32 `bits:"quat,bits=9"`
	C [4]float64 `bits:"quat,bits=13"`
}

// quatProbes adds the quaternion probes: Q <hex> decodes a QuatProbe packet
// and answers the bits of its twelve components; E <twelve hex bit
// patterns> writes a QuatProbe.
func (c *corpus) quatProbes() {
	rng := rand.New(rand.NewSource(23))
	qa, qb, qc := mustQuat(4), mustQuat(9), mustQuat(13)
	valid := func(q quant.Quat) (uint32, [3]uint32) {
		l, codes, _ := q.Encode(randomUnit(rng))
		return l, codes
	}
	random := func(q quant.Quat) (uint32, [3]uint32) {
		b := q.ComponentBits()
		return uint32(rng.Intn(4)), [3]uint32{uint32(rng.Intn(1 << b)), uint32(rng.Intn(1 << b)), uint32(rng.Intn(1 << b))}
	}
	decode := func(a, b, cc func(quant.Quat) (uint32, [3]uint32), what string) {
		var w bitio.Writer
		for _, q := range []quant.Quat{qa, qb, qc} {
			f := map[int]func(quant.Quat) (uint32, [3]uint32){4: a, 9: b, 13: cc}[q.ComponentBits()]
			l, codes := f(q)
			w.WriteBits(uint64(l), 2)
			for _, code := range codes {
				w.WriteBits(uint64(code), q.ComponentBits())
			}
		}
		c.quatDecode(w.Bytes(), what)
	}
	// Every code of A (codes 15, past M = 14, included); every 7th without
	// BITPACK_FULL.
	for code := 0; code < 4<<12; code += sweep(1, 7) {
		l, c0, c1, c2 := uint32(code>>12), uint32(code>>8&15), uint32(code>>4&15), uint32(code&15)
		decode(func(quant.Quat) (uint32, [3]uint32) { return l, [3]uint32{c0, c1, c2} }, valid, valid, fmt.Sprintf("A code %d %d %d %d", l, c0, c1, c2))
	}
	for i := 0; i < sweep(1500, 400); i++ {
		decode(valid, random, valid, "random B code")
		decode(valid, valid, random, "random C code")
	}
	for i := 0; i < sweep(4000, 1000); i++ {
		var v QuatProbe
		switch i % 4 {
		case 0: // random rotations
			v = QuatProbe{A: randomUnit(rng), B: randomUnit(rng), C: widen(randomUnit(rng))}
		case 1: // near the ties
			v = QuatProbe{A: nearTie(rng), B: nearTie(rng), C: widen(nearTie(rng))}
		case 2: // within the norm's tolerance, or just past it
			s := float32(1 + (rng.Float64()*2-1)*0.0101)
			v = QuatProbe{A: scaled(nearTie(rng), s), B: scaled(randomUnit(rng), s), C: widen(scaled(nearTie(rng), s))}
		default: // one quaternion of random bits: words for every kind of float
			v = QuatProbe{A: randomUnit(rng), B: randomUnit(rng), C: widen(randomUnit(rng))}
			junk := [4]float32{}
			for k := range junk {
				junk[k] = math.Float32frombits(rng.Uint32())
				if rng.Intn(3) == 0 {
					junk[k] = randomUnit(rng)[k]
				}
			}
			switch rng.Intn(3) {
			case 0:
				v.A = junk
			case 1:
				v.B = junk
			default:
				v.C = widen(junk)
				if rng.Intn(2) == 0 { // float64s past float32's range, and with low bits float32 drops
					v.C[rng.Intn(4)] = math.Float64frombits(rng.Uint64())
				}
			}
		}
		c.quatEncode(v)
	}
}

func mustQuat(bits int) quant.Quat {
	q, err := quant.NewQuat(bits)
	if err != nil {
		panic(err)
	}
	return q
}

// randomUnit is a random rotation, rounded to float32.
func randomUnit(rng *rand.Rand) [4]float32 {
	var v [4]float64
	n := 0.0
	for k := range v {
		v[k] = rng.NormFloat64()
		n += v[k] * v[k]
	}
	n = math.Sqrt(n)
	return [4]float32{float32(v[0] / n), float32(v[1] / n), float32(v[2] / n), float32(v[3] / n)}
}

// nearTie is a quaternion whose largest components tie, or nearly: two,
// three or four equal magnitudes (1/√2, 1/√3, 1/2, each a few float32
// steps either way), signs and places random, the rest filled to unit
// length.
func nearTie(rng *rand.Rand) [4]float32 {
	ties := [][]float64{{math.Sqrt2 / 2, math.Sqrt2 / 2}, {1 / math.Sqrt(3), 1 / math.Sqrt(3), 1 / math.Sqrt(3)}, {0.5, 0.5, 0.5, 0.5}, {1}}
	t := ties[rng.Intn(len(ties))]
	var v [4]float32
	rest := 1.0
	for _, k := range rng.Perm(4)[:len(t)] {
		x := float32(t[0])
		for n := rng.Intn(7) - 3; n != 0; n -= sign(n) {
			x = math.Nextafter32(x, float32(math.Inf(sign(n))))
		}
		if rng.Intn(2) == 0 {
			x = -x
		}
		v[k] = x
		rest -= float64(x) * float64(x)
	}
	for k := range v {
		if v[k] == 0 && rest > 0 {
			x := math.Sqrt(rest) * rng.Float64()
			v[k], rest = float32(x), rest-x*x
		}
	}
	return v
}

func scaled(v [4]float32, s float32) [4]float32 {
	return [4]float32{v[0] * s, v[1] * s, v[2] * s, v[3] * s}
}

func widen(v [4]float32) [4]float64 {
	return [4]float64{float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3])}
}

// quatDecode adds a Q probe: Go's answer is the components' bits.
func (c *corpus) quatDecode(p []byte, what string) {
	cmd := command{line: fmt.Sprintf("Q %x", p), what: "QuatProbe " + what + " decodes: packet " + fmt.Sprintf("%x", p), exact: true}
	var v QuatProbe
	if err := bitpack.Unmarshal(p, &v); err != nil {
		cmd.want = "REFUSED"
		errors.As(err, &cmd.err)
	} else {
		cmd.want = quatProbeBits(v)
	}
	c.add(cmd)
	c.probes++
}

// quatEncode adds an E probe: Go's answer is Marshal's.
func (c *corpus) quatEncode(v QuatProbe) {
	cmd := command{line: "E " + quatProbeBits(v), what: fmt.Sprintf("QuatProbe%v encodes", v), exact: true}
	b, err := bitpack.Marshal(&v)
	if err != nil {
		cmd.want = "REFUSED"
		errors.As(err, &cmd.err)
	} else {
		cmd.want = fmt.Sprintf("OK %x", b)
	}
	c.add(cmd)
	c.probes++
}

func quatProbeBits(v QuatProbe) string {
	var f []string
	for _, x := range v.A {
		f = append(f, fmt.Sprintf("%08x", math.Float32bits(x)))
	}
	for _, x := range v.B {
		f = append(f, fmt.Sprintf("%08x", math.Float32bits(x)))
	}
	for _, x := range v.C {
		f = append(f, fmt.Sprintf("%016x", math.Float64bits(x)))
	}
	return strings.Join(f, " ")
}

package quant_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bitpack-go/bitpack/quant"
)

// benchRotations returns n unit quaternions from a fixed seed: half
// uniformly random rotations, half yaws about Z (a game's common case).
func benchRotations(n int) [][4]float32 {
	rng := rand.New(rand.NewPCG(3, 14))
	out := make([][4]float32, n)
	for i := range out {
		var v [4]float64
		if i%2 == 0 {
			v = [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		} else {
			half := math.Pi * rng.Float64()
			v = [4]float64{0, 0, math.Sin(half), math.Cos(half)}
		}
		norm := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3])
		for k := range v {
			out[i][k] = float32(v[k] / norm)
		}
	}
	return out
}

var benchSink uint64

// BenchmarkQuat measures the smallest-three encoder and decoder at 9 bits
// per component over 1024 rotations; ns/op is per quaternion.
func BenchmarkQuat(b *testing.B) {
	q, _ := quant.NewQuat(9)
	rots := benchRotations(1024)
	b.Run("EncodeWord", func(b *testing.B) {
		var acc uint64
		i := 0
		for b.Loop() {
			v := &rots[i&1023]
			w, _ := q.EncodeWord(v[0], v[1], v[2], v[3])
			acc += w
			i++
		}
		benchSink = acc
	})
	b.Run("Encode", func(b *testing.B) {
		var acc uint64
		i := 0
		for b.Loop() {
			l, c, _ := q.Encode(rots[i&1023])
			acc += uint64(l) + uint64(c[0])
			i++
		}
		benchSink = acc
	})
	type code struct {
		l uint32
		c [3]uint32
	}
	codes := make([]code, len(rots))
	for i, v := range rots {
		codes[i].l, codes[i].c, _ = q.Encode(v)
	}
	b.Run("Decode", func(b *testing.B) {
		var acc float32
		i := 0
		for b.Loop() {
			c := &codes[i&1023]
			v, _ := q.Decode(c.l, c.c)
			acc += v[0]
			i++
		}
		benchSink = uint64(acc)
	})
}

package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// encodeByDefinition is smallest-three exactly as SPEC §4 words it, with
// float compares and a loop: the reference the branch-free encoder is
// checked against.
func encodeByDefinition(q *Quat, v [4]float32) (largest uint32, codes [3]uint32, ok bool) {
	best := float32(-1)
	for i, c := range v {
		if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
			return 0, codes, false
		}
		if a := float32(math.Abs(float64(c))); a > best {
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

// TestEncodeMatchesDefinition compares Encode and EncodeWord with the
// definition on components drawn from values that stress every choice:
// ties of magnitude with either sign, ±0, subnormals, values beyond ±m and
// ±1, ±Inf and NaNs of both signs, and random unit quaternions.
func TestEncodeMatchesDefinition(t *testing.T) {
	special := []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 1, -1, QuatComponentMax, -QuatComponentMax, 0.9, -0.9,
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Float32frombits(0xffc00001)}
	r := rand.New(rand.NewPCG(1, 2))
	var inputs [][4]float32
	for _, a := range special {
		for _, b := range special {
			for i := 0; i < 8; i++ {
				v := [4]float32{special[r.IntN(len(special))], special[r.IntN(len(special))], a, b}
				r.Shuffle(4, func(i, j int) { v[i], v[j] = v[j], v[i] })
				inputs = append(inputs, v)
			}
		}
	}
	for i := 0; i < 100000; i++ {
		v := [4]float32{float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())}
		n := float32(math.Sqrt(float64(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3])))
		for k := range v {
			v[k] /= n
		}
		inputs = append(inputs, v)
	}
	for _, bits := range []int{2, 4, 9, 12, 20} {
		q, err := NewQuat(bits)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range inputs {
			wl, wc, wok := encodeByDefinition(&q, v)
			l, c, ok := q.Encode(v)
			if l != wl || c != wc || ok != wok {
				t.Fatalf("bits %d: Encode(%v) = %d %v %v, the definition gives %d %v %v", bits, v, l, c, ok, wl, wc, wok)
			}
			b := uint(bits)
			want := uint64(wl) | uint64(wc[0])<<2 | uint64(wc[1])<<(2+b) | uint64(wc[2])<<(2+2*b)
			if word, ok := q.EncodeWord(v[0], v[1], v[2], v[3]); ok != wok || (ok && word != want) {
				t.Fatalf("bits %d: EncodeWord(%v) = %#x %v, want %#x %v", bits, v, word, ok, want, wok)
			}
		}
	}
}

package bitpack

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestFarApart: whenever farApart says two values are far apart, their
// codes differ by more than the short form reaches — the decoder skips
// the base's code then, so a wrong "far" would accept a long form the
// short form carries. Sampled around the reach's edge, for tags of
// several sizes (M from 16 to 2^20).
func TestFarApart(t *testing.T) {
	type tags struct {
		A float32 `bits:"float,min=-1024,max=1024,res=0.01"`
		B float32 `bits:"float,min=-1024,max=1024,res=0.1"`
		C float32 `bits:"float,min=0,max=1,res=0.001"`
		D float32 `bits:"float,min=-3,max=5,res=0.5"`
		E float32 `bits:"float,min=-8,max=8,res=0.0000153"`
		F float32 `bits:"float,min=-1000,max=1000,res=0.25,clamp"`
	}
	p, err := planOf(reflect.TypeFor[tags]())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	checked, far := 0, 0
	for i := range p.dsteps {
		st := &p.dsteps[i]
		if st.far == 0 {
			t.Errorf("field %d: no farApart (M = %d)", i, st.q.MaxCode())
			continue
		}
		m, h := st.q.MaxCode(), uint32(1)<<st.short>>1
		for range 200000 {
			c := uint32(rng.Uint64N(uint64(m) + 1))
			var b float32
			if rng.IntN(2) == 0 { // a quantized base, a few codes past the reach
				k := int64(c) + int64(h) + int64(rng.IntN(8)) - 2
				if rng.IntN(2) == 0 {
					k = int64(c) - int64(h) - int64(rng.IntN(8)) + 2
				}
				if k < 0 || k > int64(m) {
					continue
				}
				b = st.q.Dequantize(uint32(k))
			} else { // any value near there
				step := (st.q.Max() - st.q.Min()) / float32(m)
				b = st.q.Dequantize(c) + float32(rng.NormFloat64())*float32(h+3)*step
				if !(b >= st.lo && b <= st.hi) {
					continue
				}
			}
			checked++
			if !st.farApart(st.q.Dequantize(c), b) {
				continue
			}
			far++
			old := st.q.QuantizeInRange(b)
			if d := math.Abs(float64(old) - float64(c)); d <= float64(h) {
				t.Fatalf("field %d: code %d and a base %v of code %d are %v apart, within the reach %d, but farApart says far", i, c, b, old, d, h)
			}
		}
	}
	t.Logf("%d samples, %d far apart", checked, far)
	if far < checked/10 {
		t.Fatalf("only %d of %d samples far apart: the test does not reach the edge", far, checked)
	}
}

package bitpack

import (
	"errors"
	"math"
	"reflect"
	"sync"

	"github.com/bitpack-go/bitpack/quant"
)

// Floats: raw IEEE-754 bits, and compressed floats (float,min,max,res).

// ceil32 returns the smallest float32 at or above x, and floor32 the
// largest at or below it (x within the float32 range): for a float32 f,
// f >= x exactly when f >= ceil32(x), and f <= x when f <= floor32(x).
func ceil32(x float64) float32 {
	c := float32(x)
	if float64(c) < x {
		c = math.Nextafter32(c, float32(math.Inf(1)))
	}
	return c
}

func floor32(x float64) float32 {
	c := float32(x)
	if float64(c) > x {
		c = math.Nextafter32(c, float32(math.Inf(-1)))
	}
	return c
}

// Quantizers are prepared once per declaration (width, min, max, res) and
// shared: preparing one checks every code for canonicity and, for float32,
// whether decoding may multiply by 1/M instead of dividing — exhaustive
// checks that may take tens of milliseconds for large step counts.
var quantizers sync.Map // [4]float64 -> *prepared

type prepared struct {
	q32    quant.Float
	q64    quant.Float64
	lo, hi float64 // what encode accepts without clamp: the bounds, widened to the decoded extremes
	err    error   // from NewFloat/NewFloat64 or the canonical check
}

func prepareQuantizer(width int, min, max, res float64) *prepared {
	key := [4]float64{float64(width), min, max, res}
	if v, ok := quantizers.Load(key); ok {
		return v.(*prepared)
	}
	p := new(prepared)
	// Decoded extremes may land a rounding outside the tag's bounds; encode
	// accepts them so every decoded value re-encodes.
	if width == 32 {
		if p.q32, p.err = quant.NewFloat(float32(min), float32(max), float32(res)); p.err == nil {
			if p.err = p.q32.CheckCanonical(); p.err == nil {
				p.q32.VerifyReciprocal()
			}
			p.lo = math.Min(min, float64(p.q32.Dequantize(0)))
			p.hi = math.Max(max, float64(p.q32.Dequantize(p.q32.MaxCode())))
		}
	} else if p.q64, p.err = quant.NewFloat64(min, max, res); p.err == nil {
		p.err = p.q64.CheckCanonical()
		p.lo = math.Min(min, p.q64.Dequantize(0))
		p.hi = math.Max(max, p.q64.Dequantize(p.q64.MaxCode()))
	}
	v, _ := quantizers.LoadOrStore(key, p)
	return v.(*prepared)
}

func (c *compiler) appendFloat(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	width := t.Bits()
	if !f.inherited && !only(o, func(r *tagOptions) {
		r.float, r.minSet, r.maxSet, r.resSet, r.min, r.max, r.res, r.clamp = false, false, false, false, "", "", "", false
	}) {
		return nil, f.notApplicable(o, t)
	}
	if !o.float {
		base.kind, base.bits = opFloat32, 32
		if width == 64 {
			base.kind, base.bits = opFloat64, 64
		}
		*ops = append(*ops, base)
		return &Field{Type: t, Kind: KindFloat, Bits: base.bits}, nil
	}
	if f.use != nil {
		f.use.floats = true
	}
	min, max, res, err := o.floatParams(width)
	if err != nil {
		return nil, f.tagged(o, "%v", err)
	}
	base.clamp = o.clamp
	pq := prepareQuantizer(width, min, max, res)
	var ce *quant.CanonicalError
	switch {
	case errors.As(pq.err, &ce) && width == 32:
		return nil, f.tagged(o, "float32 cannot hold res=%s canonically over [%s, %s] (%v); use a coarser res or a float64 field", o.res, o.min, o.max, pq.err)
	case errors.As(pq.err, &ce):
		return nil, f.tagged(o, "float64 cannot hold res=%s canonically over [%s, %s] (%v); use a coarser res", o.res, o.min, o.max, pq.err)
	case pq.err != nil:
		return nil, f.tagged(o, "%v", pq.err)
	case width == 32:
		base.kind, base.bits, base.qf, base.qp = opQFloat32, pq.q32.Bits(), &pq.q32, pq
		base.lo, base.hi = pq.lo, pq.hi
	default:
		base.kind, base.bits, base.qf64, base.qp = opQFloat64, pq.q64.Bits(), &pq.q64, pq
		base.lo, base.hi = pq.lo, pq.hi
	}
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindCompressedFloat, Bits: base.bits, FloatMin: min, FloatMax: max, Res: res, Clamp: o.clamp}, nil
}

// floatColumn codes the st.count float32 fields of step st in m values.
func floatColumn(col []uint64, g int, at pointer, stride uintptr, m int, st *encStep) bool {
	q, lo, hi, clamp, shift := st.q, st.lo, st.hi, st.clamp, st.shift
	for j := range uintptr(st.count) {
		for k := 0; k < m; k++ {
			f := loadAs[float32](at.at(uintptr(k)*stride + 4*j))
			var c uint32
			switch {
			case f >= lo && f <= hi:
				c = q.QuantizeInRange(f)
			case clamp && f-f == 0: // outside the bounds: refused unless clamping a finite value
				c = q.Quantize(f)
			default:
				return false
			}
			col[k*g] |= uint64(c) << (shift & 63)
		}
		shift += st.width
	}
	return true
}

// floatRefusal explains why a compressed float outside its declared range
// cannot be encoded, or returns nil when the field clamps it.
func floatRefusal(o *op, v float64) *fieldError {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return newFieldError(o.path, -1, ErrRange, "value %v cannot be quantized (NaN and ±Inf are never encoded)", v)
	}
	if o.clamp {
		return nil
	}
	var lo, hi float64
	if o.qf != nil {
		lo, hi = float64(o.qf.Min()), float64(o.qf.Max())
	} else {
		lo, hi = o.qf64.Min(), o.qf64.Max()
	}
	return newFieldError(o.path, -1, ErrRange, "value %v out of range [%v, %v] (add clamp to the tag to clamp instead)", v, lo, hi)
}

package bitpack

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"

	"github.com/bitpack-go/bitpack/quant"
)

// Floats: raw IEEE-754 bits (run as integers: kind_int.go), and
// compressed floats (float,min,max,res), whose codes come from package
// quant with the arithmetic pinned there.

var (
	floatKind = kindFuncs{name: "float", fixed: true,
		describe: func(f *Field) string { return fmt.Sprintf("float%d raw", f.Bits) },
		schema:   func(s *schemaWriter, f *Field) { s.write("f" + strconv.Itoa(f.Bits)) },
		maxBits:  fixedBits, minBits: fixedBits}
	compressedFloatKind = kindFuncs{name: "compressed float", fixed: true,
		describe: describeQuantized, schema: schemaQuantized, maxBits: fixedBits, minBits: fixedBits}
)

// The accept/refuse decision of a compressed float32 field, shared by
// every executor: a value inside the quantizer's float32 bounds [lo, hi]
// (prepared.lo32, hi32; lo is its min, so such a value needs no clamp)
// has the code QuantizeInRange gives (float32InRange, small enough to
// inline in the encoder's loops); one outside is clamped when the field
// clamps and the value is finite, else refused (float32Outside, out of
// line). float32Code is the two together.

func float32InRange(q *quant.Float, lo, hi float32, f float32) (uint32, bool) {
	if f >= lo && f <= hi {
		return q.QuantizeInRange(f), true
	}
	return 0, false
}

//go:noinline
func float32Outside(q *quant.Float, clamp bool, f float32) (uint32, bool) {
	if clamp && f-f == 0 { // f-f is 0 exactly when f is finite
		return q.Quantize(f), true
	}
	return 0, false
}

func float32Code(q *quant.Float, lo, hi float32, clamp bool, f float32) (uint32, bool) {
	if c, ok := float32InRange(q, lo, hi, f); ok {
		return c, true
	}
	return float32Outside(q, clamp, f)
}

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
	q32        quant.Float
	q64        quant.Float64
	lo, hi     float64 // what encode accepts without clamp: the bounds, widened to the decoded extremes
	lo32, hi32 float32 // for float32 fields, the same rounded inwards: the same verdict for every float32
	err        error   // from NewFloat/NewFloat64 or the canonical check
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
			p.lo32, p.hi32 = ceil32(p.lo), floor32(p.hi)
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
		// Its bit pattern, as an unsigned integer: any bits are valid.
		base.kind, base.bits, base.access = KindFloat, width, accessOf(t.Size(), false)
		base.limit = math.MaxUint64 >> (64 - width)
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
	case width == 32 && referenceOverflows(pq.q32.MaxCode()):
		m := pq.q32.MaxCode()
		return nil, f.tagged(o, "%d steps: serialize's C++ writer codes the largest value as floor(float32(M + 0.5)) = %d, past M, so a C++ client could not write it; use a coarser res", m, uint64(float32(float32(m)+0.5)))
	case width == 32:
		base.kind, base.bits, base.qp, base.access, base.limit = KindCompressedFloat, pq.q32.Bits(), pq, accQ32, uint64(pq.q32.MaxCode())
	default:
		base.kind, base.bits, base.qp, base.access, base.limit = KindCompressedFloat, pq.q64.Bits(), pq, accQ64, uint64(pq.q64.MaxCode())
	}
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindCompressedFloat, Bits: base.bits, FloatMin: min, FloatMax: max, Res: res, Clamp: o.clamp}, nil
}

// referenceOverflows reports whether the reference C++ writer, which codes
// a value as floor(float32(n·M + 0.5)) without bitpack's clamp to M (see
// quant), writes the largest value (n = 1) as M + 1: float32(M + 0.5) ties
// to an even number above M when M is odd and 2^23 < M < 2^24. bitpack
// refuses such tags, so that a tag it accepts is writable by the C++
// side too.
func referenceOverflows(m uint32) bool { return uint64(float32(float32(m)+0.5)) > uint64(m) }

// quantizedCode codes the compressed float o at at, or words its refusal.
func quantizedCode(o *op, at pointer) (uint64, *fieldError) {
	if o.access == accQ32 {
		f := *at.float32()
		if c, ok := float32Code(&o.qp.q32, o.qp.lo32, o.qp.hi32, o.clamp, f); ok {
			return uint64(c), nil
		}
		return 0, floatRefusal(o, float64(f), float64(o.qp.q32.Min()), float64(o.qp.q32.Max()))
	}
	f := *at.float64()
	if !(f >= o.qp.lo && f <= o.qp.hi) && (!o.clamp || f-f != 0) {
		return 0, floatRefusal(o, f, o.qp.q64.Min(), o.qp.q64.Max())
	}
	return uint64(o.qp.q64.Quantize(f)), nil
}

// floatRefusal explains why a compressed float outside its declared range
// [lo, hi] cannot be encoded.
func floatRefusal(o *op, v, lo, hi float64) *fieldError {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return newFieldError(o.path, -1, ErrRange, "value %v cannot be quantized (NaN and ±Inf are never encoded)", v)
	}
	return newFieldError(o.path, -1, ErrRange, "value %v out of range [%v, %v] (add clamp to the tag to clamp instead)", v, lo, hi)
}

// storeQuantized checks the code c read at bit for the compressed float o
// and stores its value at at.
func storeQuantized(o *op, c uint64, at pointer, bit int) *fieldError {
	if c > o.limit {
		return newFieldError(o.path, bit, ErrRange, "compressed float code %d out of range [0, %d]", c, o.limit)
	}
	if o.access == accQ32 {
		*at.float32() = o.qp.q32.Dequantize(uint32(c))
	} else {
		*at.float64() = o.qp.q64.Dequantize(uint32(c))
	}
	return nil
}

// floatColumn codes the st.count float32 fields of step st in m values.
func floatColumn(col []uint64, g int, at pointer, stride uintptr, m int, st *encStep) bool {
	q, lo, hi, clamp, shift := &st.q, st.lo, st.hi, st.clamp, st.shift
	for j := range int(st.count) {
		for k := 0; k < m; k++ {
			f := loadAs[float32](at.index(k, stride).index(j, 4))
			c, ok := float32InRange(q, lo, hi, f)
			if !ok {
				if c, ok = float32Outside(q, clamp, f); !ok {
					return false
				}
			}
			col[k*g] |= uint64(c) << (shift & 63)
		}
		shift += st.width
	}
	return true
}

// Layout.

func describeQuantized(f *Field) string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, floatPrecision(f)) }
	s := fmt.Sprintf("compressed float [%s, %s] res %s", g(f.FloatMin), g(f.FloatMax), g(f.Res))
	if f.Clamp {
		s += " clamp"
	}
	return s
}

func schemaQuantized(s *schemaWriter, f *Field) {
	prec := floatPrecision(f)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, prec) }
	s.write("q" + strconv.Itoa(prec) + "(" + g(f.FloatMin) + "," + g(f.FloatMax) + "," + g(f.Res) + ")")
}

// floatPrecision is the precision a compressed float's tag numbers were
// parsed at: 32 for a float32 field, so that they print that way.
func floatPrecision(f *Field) int {
	if f.Type != nil && f.Type.Kind() == reflect.Float32 {
		return 32
	}
	return 64
}

package bitpack

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// Quaternions: smallest-three (quat,bits=B). The encoder's programs
// gather float32 quaternions of at most 64 bits into their groups
// (accQuat, quatWord); the rest are fields of their own.

var quatKind = kindFuncs{name: "quat",
	describe: func(f *Field) string { return fmt.Sprintf("quat smallest-three, %d bits/component", f.Bits) },
	schema:   func(s *schemaWriter, f *Field) { s.write("Q" + strconv.Itoa(f.Bits)) },
	maxBits:  quatBits, minBits: quatBits}

// quatBits is a quaternion's size: the largest component's index, then
// three components of Bits each.
func quatBits(f *Field, _ func(*Field) int64) int64 { return 2 + 3*int64(f.Bits) }

// isQuatShaped reports whether t is [4]float32/64 or a struct of exactly
// four exported float fields of one kind.
func isQuatShaped(t reflect.Type) bool {
	_, ok := quatOffsets(t)
	return ok
}

// hasFourFloats reports whether struct t has exactly four fields, all
// floats of one kind: meant to be a quaternion, whether or not it can be.
func hasFourFloats(t reflect.Type) bool {
	if t.NumField() != 4 {
		return false
	}
	k := t.Field(0).Type.Kind()
	for i := range 4 {
		if t.Field(i).Type.Kind() != k || (k != reflect.Float32 && k != reflect.Float64) {
			return false
		}
	}
	return true
}

func quatOffsets(t reflect.Type) (offs [4]offset, ok bool) {
	switch t.Kind() {
	case reflect.Array:
		k := t.Elem().Kind()
		if t.Len() != 4 || (k != reflect.Float32 && k != reflect.Float64) {
			return offs, false
		}
		for i := range offs {
			offs[i] = elemOffset(i, t.Elem().Size())
		}
		return offs, true
	case reflect.Struct:
		if t.NumField() != 4 {
			return offs, false
		}
		k0 := t.Field(0).Type.Kind()
		for i := range offs {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Type.Kind() != k0 || (k0 != reflect.Float32 && k0 != reflect.Float64) {
				return offs, false
			}
			if _, tagged := sf.Tag.Lookup("bits"); tagged {
				// Its own tags would say how to send the component; a
				// quaternion sends all four its own way. Not quat-shaped.
				return offs, false
			}
			offs[i] = fieldOffset(sf)
		}
		return offs, true
	}
	return offs, false
}

func (c *compiler) appendQuat(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	offs, ok := quatOffsets(t)
	if !ok {
		return nil, f.tagged(o, "quat applies to [4]float32, [4]float64 or a struct of four untagged exported float fields of one type, not %s", t)
	}
	if !f.inherited && !only(o, func(r *tagOptions) { r.quat, r.bitsSet, r.bits = false, false, 0 }) {
		return nil, f.tagged(o, "quat does not combine with other options")
	}
	if o.bits < minQuatBits || o.bits > 32 {
		return nil, f.tagged(o, "quat bits=%d: each component needs %d..32 bits (fewer cannot keep decoded quaternions unit length)", o.bits, minQuatBits)
	}
	q, err := quant.NewQuat(o.bits)
	if err != nil {
		return nil, f.tagged(o, "%v", err)
	}
	if f.use != nil {
		f.use.quats = true
	}
	comp := t.Elem
	if t.Kind() == reflect.Struct {
		comp = func() reflect.Type { return t.Field(0).Type }
	}
	base.kind, base.qq, base.offs, base.f64, base.bits = KindQuat, &q, offs, comp().Kind() == reflect.Float64, q.Bits()
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindQuat, Bits: o.bits}, nil
}

// quatWord returns the wire word of the quaternion o at at, coded by qq (at
// most 64 bits), or its refusal. (A call of its own: inline, its registers
// would crowd encodeValues' loop.)
func quatWord(o *op, qq *quant.Quat, at pointer) (uint64, *fieldError) {
	x, y, z, w := *at.field(o.offs[0]).float32(), *at.field(o.offs[1]).float32(), *at.field(o.offs[2]).float32(), *at.field(o.offs[3]).float32()
	word, ok := qq.EncodeWord(x, y, z, w)
	// A NaN or infinite component makes the norm NaN or infinite too, so
	// this test admits exactly what checkQuat does.
	if !ok || !(math.Abs(quatNorm2(x, y, z, w)-1) <= quatNormTolerance) {
		if err := checkQuat(o, [4]float32{x, y, z, w}); err != nil {
			return 0, err
		}
	}
	return word, nil
}

// quatColumn codes the quaternion o of step st in m values.
func quatColumn(o *op, col []uint64, g int, at pointer, stride uintptr, m int, st *encStep) bool {
	for k := 0; k < m; k++ {
		v := at.index(k, stride)
		x, y, z, w := loadAs[float32](v.field(o.offs[0])), loadAs[float32](v.field(o.offs[1])), loadAs[float32](v.field(o.offs[2])), loadAs[float32](v.field(o.offs[3]))
		word, ok := st.qq.EncodeWord(x, y, z, w)
		if !ok || !(math.Abs(quatNorm2(x, y, z, w)-1) <= quatNormTolerance) {
			return false
		}
		col[k*g] |= word << (st.shift & 63)
	}
	return true
}

// checkQuat refuses quaternions that cannot be encoded meaningfully: a NaN
// or infinite component, or a norm far from 1 (smallest-three rebuilds the
// largest component from the unit-length assumption, so a zero or scaled
// quaternion would decode as a different rotation).
func checkQuat(o *op, v [4]float32) *fieldError {
	for _, c := range v {
		if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
			return newFieldError(o.path, -1, ErrRange, "quaternion %v has a component that is not finite", v)
		}
	}
	if n2 := quatNorm2(v[0], v[1], v[2], v[3]); !(math.Abs(n2-1) <= quatNormTolerance) {
		return newFieldError(o.path, -1, ErrRange, "quaternion %v is not unit length (norm %.4g): normalise it", v, math.Sqrt(n2))
	}
	return nil
}

// quatNorm2 is the squared norm of (x, y, z, w), summed in float64 in
// that order. Each product is rounded before it is added (no fused
// multiply-add), so the verdict is the same on every platform.
func quatNorm2(x, y, z, w float32) float64 {
	xx, yy := float64(float64(x)*float64(x)), float64(float64(y)*float64(y))
	zz, ww := float64(float64(z)*float64(z)), float64(float64(w)*float64(w))
	return float64(float64(xx+yy)+zz) + ww
}

// quatNormTolerance bounds |‖q‖² − 1| for encodable quaternions: loose
// enough for float32 drift over many multiplications, tight enough to
// catch zero and unnormalised quaternions.
const quatNormTolerance = 0.01

// quatDecodeSlack is the float32 rounding allowed above 1 in a decoded
// quaternion's squared norm (a few ulps of 1).
const quatDecodeSlack = 1e-6

// minQuatBits is the fewest bits per component a quat tag may ask for.
// Below 4, quantization alone can push the three decoded components of a
// unit quaternion past unit length (at 3 bits, 0.5 decodes as 0.505 and
// (0.5, 0.5, 0.5) to a sum of squares of 1.08), so decoded values would not
// be unit quaternions and neither the round trip nor the decoder's check
// could hold.
const minQuatBits = 4

func loadQuat(o *op, at pointer) [4]float32 {
	var v [4]float32
	for i, off := range o.offs {
		if o.f64 {
			v[i] = float32(*at.field(off).float64())
		} else {
			v[i] = *at.field(off).float32()
		}
	}
	return v
}

func encodeQuat(w *bitio.Writer, o *op, at pointer, _ int) *fieldError {
	v := loadQuat(o, at)
	if err := checkQuat(o, v); err != nil {
		return err
	}
	w.WriteQuat(o.qq, v)
	return nil
}

func decodeQuat(d *decoder, o *op, at pointer, start, _ int) *fieldError {
	v := d.r.ReadQuat(o.qq)
	if d.r.Err() != nil {
		return nil
	}
	if err := checkDecodedQuat(o, v, start); err != nil {
		return err
	}
	storeQuat(o, at, v)
	return nil
}

// checkDecodedQuat refuses smallest-three codes no unit quaternion
// produces. The three smaller components of a unit quaternion have squares
// summing to at most 3/4 (the largest is at least 1/2); with 4 or more bits
// per component the quantization error keeps the decoded sum below 0.9. A
// sum above 1 is therefore hostile: it would decode (with the rebuilt
// component clamped to 0) to a quaternion that is not unit length, which
// encode refuses. v's squared norm is that sum whenever it exceeds 1.
func checkDecodedQuat(o *op, v [4]float32, bit int) *fieldError {
	var sum float32
	for _, c := range v {
		sum = float32(sum + float32(c*c))
	}
	if sum > 1+quatDecodeSlack {
		return newFieldError(o.path, bit, ErrRange, "smallest-three components %v are not those of a unit quaternion (squares sum to %.4g)", v, sum)
	}
	return nil
}

func storeQuat(o *op, at pointer, v [4]float32) {
	for i, off := range o.offs {
		if o.f64 {
			*at.field(off).float64() = float64(v[i])
		} else {
			*at.field(off).float32() = v[i]
		}
	}
}

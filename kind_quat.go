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
	// M = 2^bits - 2 names the canonical wire (the earlier one, M =
	// 2^bits - 1 and not canonical, was Q<bits>).
	schema:  func(s *schemaWriter, f *Field) { s.write("Q" + strconv.Itoa(f.Bits) + "/" + strconv.Itoa(1<<f.Bits-2)) },
	maxBits: quatBits, minBits: quatBits}

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
	if o.bits < minQuatBits || o.bits > maxQuatBits {
		return nil, f.tagged(o, "quat bits=%d: each component needs %d..%d bits (fewer allow errors past 45°; with more, float32 cannot hold every code's own value, so decoded quaternions would not re-encode to the same bytes)", o.bits, minQuatBits, maxQuatBits)
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
	if !ok || !quatEncodable(x, y, z, w) {
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
		if !ok || !quatEncodable(x, y, z, w) {
			return false
		}
		col[k*g] |= word << (st.shift & 63)
	}
	return true
}

// quatEncodable is the one rule for which quaternions encode: unit length
// within quatNormTolerance (smallest-three rebuilds the largest component
// from the unit-length assumption, so a scaled quaternion would decode as
// a different rotation), or all four components ±0 — Go's zero value,
// which encodes as the identity. A NaN or infinite component makes the
// norm NaN or infinite, so it is refused too. checkQuat words the refusal.
func quatEncodable(x, y, z, w float32) bool {
	return math.Abs(quatNorm2(x, y, z, w)-1) <= quatNormTolerance || zeroQuat(x, y, z, w)
}

// checkQuat refuses, with its reason, a quaternion quatEncodable refuses.
func checkQuat(o *op, v [4]float32) *fieldError {
	if quatEncodable(v[0], v[1], v[2], v[3]) {
		return nil
	}
	for _, c := range v {
		if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
			return newFieldError(o.path, -1, ErrRange, "quaternion %v has a component that is not finite", v)
		}
	}
	n2 := quatNorm2(v[0], v[1], v[2], v[3])
	return newFieldError(o.path, -1, ErrRange, "quaternion %v is not unit length (norm %.4g): normalise it", v, math.Sqrt(n2))
}

// zeroQuat reports whether all four components are ±0.
func zeroQuat(x, y, z, w float32) bool {
	return (math.Float32bits(x)|math.Float32bits(y)|math.Float32bits(z)|math.Float32bits(w))<<1 == 0
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
// catch unnormalised ones.
const quatNormTolerance = 0.01

// minQuatBits and maxQuatBits bound the bits per component a quat tag may
// ask for. Below 4 the angular error can pass 45° (the bound 4√3·m/M rad
// is 47° at 3 bits), which no rotation wants. Past 22 (quant's limit),
// neighbouring codes decode to the same float32 near ±m, so a decoded
// quaternion could not re-encode to the same bytes.
const (
	minQuatBits = 4
	maxQuatBits = quant.QuatMaxBits
)

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

func decodeQuat(d *decoder, o *op, at pointer, _, _ int) *fieldError {
	v := d.r.ReadQuat(o.qq) // refuses codes that are not canonical
	if d.r.Err() != nil {
		return nil
	}
	storeQuat(o, at, v)
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

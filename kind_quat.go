package bitpack

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/rules"
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

// Quaternion shapes. A quaternion's components are found, in x, y, z, w
// order, in:
//
//   - [4]float32 or [4]float64: elements 0..3 are x, y, z, w (with wxyz:
//     w, x, y, z);
//   - a struct of four exported, untagged float fields of one type: named
//     W, X, Y and Z (in any case and order), by name; otherwise the tag
//     says their order, xyzw or wxyz (gonum's quat.Number{Real, Imag,
//     Jmag, Kmag} is wxyz): a guess would send the wrong rotation;
//   - a struct of a float w and a vector of three (x, y, z), both exported
//     and untagged, in either order: go-gl/mathgl's Quat{W float32; V
//     Vec3}. The vector is a [3]float or a struct of three float fields
//     (named X, Y, Z by name, else in order), of the scalar's type.
//
// Anything else tagged quat is refused, saying which shapes are.

// quatShape is where the components are: their offsets within the value,
// and their paths for Field.QuatPaths.
type quatShape struct {
	offs  [4]offset
	paths [4][]int
	named bool // the shape itself says which component is w (names, or a scalar and a vector)
}

const quatShapes = "[4]float32, [4]float64, a struct of four untagged exported float fields of one type (named W, X, Y, Z, or in the order xyzw or wxyz says), or a struct of a float w and a vector of three (mathgl's Quat{W; V})"

// isQuatShaped reports whether t holds a quaternion in one of the shapes
// (a struct of four floats not named W, X, Y, Z counts: the tag must then
// say their order, see quatShapeOf).
func isQuatShaped(t reflect.Type) bool {
	_, ok, _ := quatShapeOf(t, quatOrderFromTag)
	return ok
}

// quatOrder is what a tag says of a quaternion's component order.
type quatOrder uint8

const (
	quatOrderFromTag quatOrder = iota // none given (isQuatShaped: either)
	quatOrderXYZW
	quatOrderWXYZ
)

// looksLikeQuat reports whether struct t is meant to be a quaternion (four
// floats of one kind, or a float and a vector), whether or not it can be:
// such a struct tagged quat gets appendQuat's explanation.
func looksLikeQuat(t reflect.Type) bool {
	switch t.NumField() {
	case 4:
		k := t.Field(0).Type.Kind()
		for i := range 4 {
			if t.Field(i).Type.Kind() != k || !isFloatKind(k) {
				return false
			}
		}
		return true
	case 2:
		a, b := t.Field(0).Type, t.Field(1).Type
		return isFloatKind(a.Kind()) && !isFloatKind(b.Kind()) || isFloatKind(b.Kind()) && !isFloatKind(a.Kind())
	}
	return false
}

func isFloatKind(k reflect.Kind) bool { return k == reflect.Float32 || k == reflect.Float64 }

// plainFloats returns the fields of struct t if there are n, all exported,
// untagged floats of kind k; else nil.
func plainFloats(t reflect.Type, n int, k reflect.Kind) []reflect.StructField {
	if t.Kind() != reflect.Struct || t.NumField() != n {
		return nil
	}
	fs := make([]reflect.StructField, n)
	for i := range fs {
		sf := t.Field(i)
		if _, tagged := sf.Tag.Lookup("bits"); !sf.IsExported() || tagged || sf.Type.Kind() != k {
			// A component's own tag would say how to send it; a
			// quaternion sends all four its own way.
			return nil
		}
		fs[i] = sf
	}
	return fs
}

// byNames returns the positions of the fields named names (any case, each
// once), or nil.
func byNames(fs []reflect.StructField, names string) []int {
	pos := make([]int, len(names))
	for i := range pos {
		pos[i] = -1
	}
	for j, sf := range fs {
		i := strings.IndexByte(names, byte(unicode.ToUpper(rune(sf.Name[0]))))
		if len(sf.Name) != 1 || i < 0 || pos[i] >= 0 {
			return nil
		}
		pos[i] = j
	}
	return pos
}

// quatShapeOf finds the components of a quaternion of type t (see above)
// in the order the tag gives, where the shape does not say. needOrder: a
// struct of four unnamed floats, which needs xyzw or wxyz.
func quatShapeOf(t reflect.Type, given quatOrder) (q quatShape, ok, needOrder bool) {
	order := []int{0, 1, 2, 3} // the position of x, y, z, w
	if given == quatOrderWXYZ {
		order = []int{1, 2, 3, 0}
	}
	switch t.Kind() {
	case reflect.Array:
		if t.Len() != 4 || !isFloatKind(t.Elem().Kind()) {
			return q, false, false
		}
		for c, i := range order {
			q.offs[c], q.paths[c] = elemOffset(i, t.Elem().Size()), []int{i}
		}
		return q, true, false
	case reflect.Struct:
		if t.NumField() == 0 {
			return q, false, false
		}
		if fs := plainFloats(t, 4, t.Field(0).Type.Kind()); fs != nil && isFloatKind(fs[0].Type.Kind()) {
			if named := byNames(fs, "XYZW"); named != nil {
				order, q.named = named, true
			} else if given == quatOrderFromTag {
				return q, true, true
			}
			for c, i := range order {
				q.offs[c], q.paths[c] = fieldOffset(fs[i]), []int{i}
			}
			return q, true, false
		}
		q, ok = vectorQuat(t)
		return q, ok, false
	}
	return q, false, false
}

// vectorQuat finds a quaternion made of a float w and a vector of three.
func vectorQuat(t reflect.Type) (quatShape, bool) {
	q := quatShape{named: true}
	if t.NumField() != 2 {
		return q, false
	}
	for w := range 2 {
		ws, vs := t.Field(w), t.Field(1-w)
		k := ws.Type.Kind()
		if _, tagged := ws.Tag.Lookup("bits"); !isFloatKind(k) || !ws.IsExported() || tagged {
			continue
		}
		if _, tagged := vs.Tag.Lookup("bits"); !vs.IsExported() || tagged {
			return q, false
		}
		q.offs[3], q.paths[3] = fieldOffset(ws), []int{w}
		vt := vs.Type
		switch {
		case vt.Kind() == reflect.Array && vt.Len() == 3 && vt.Elem().Kind() == k:
			for c := range 3 {
				q.offs[c], q.paths[c] = fieldOffset(vs).plus(elemOffset(c, vt.Elem().Size())), []int{1 - w, c}
			}
			return q, true
		case vt.Kind() == reflect.Struct:
			fs := plainFloats(vt, 3, k)
			if fs == nil {
				return q, false
			}
			order := byNames(fs, "XYZ")
			if order == nil {
				order = []int{0, 1, 2}
			}
			for c, i := range order {
				q.offs[c], q.paths[c] = fieldOffset(vs).plus(fieldOffset(fs[i])), []int{1 - w, i}
			}
			return q, true
		}
		return q, false
	}
	return q, false
}

func (c *compiler) appendQuat(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	given := quatOrderFromTag
	switch {
	case o.wxyz:
		given = quatOrderWXYZ
	case o.xyzw:
		given = quatOrderXYZW
	}
	shape, ok, needOrder := quatShapeOf(t, given)
	switch {
	case !ok:
		return nil, f.tagged(o, "quat applies to %s, not %s", quatShapes, t)
	case needOrder:
		return nil, f.tagged(o, "the fields of %s are not named W, X, Y and Z, so which one is w is not known: add wxyz (w first, then x, y, z) or xyzw (x, y, z, then w) to the tag", t)
	case given != quatOrderFromTag && (shape.named || t.Kind() == reflect.Struct && t.NumField() == 2):
		return nil, f.tagged(o, "%s does not apply to %s: its fields say which component is w", map[bool]string{true: "wxyz", false: "xyzw"}[o.wxyz], t)
	}
	if !f.inherited && !only(o, func(r *tagOptions) { r.quat, r.wxyz, r.xyzw, r.bitsSet, r.bits = false, false, false, false, 0 }) {
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
	w := t
	for _, step := range shape.paths[3] { // the type of w
		if w.Kind() == reflect.Array {
			w = w.Elem()
		} else {
			w = w.Field(step).Type
		}
	}
	base.kind, base.qq, base.offs, base.f64, base.bits = KindQuat, &q, shape.offs, w.Kind() == reflect.Float64, q.Bits()
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindQuat, Bits: o.bits, QuatPaths: shape.paths}, nil
}

// quatWord returns the wire word of the quaternion o at at, coded by qq (at
// most 64 bits), or its refusal. (A call of its own: inline, its registers
// would crowd encodeValue's loop.)
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

// quatNormTolerance bounds |‖q‖² − 1| for encodable quaternions (its
// home is package rules, which every generated runtime takes it from).
const quatNormTolerance = rules.QuatNormTolerance

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

func decodeQuat(d *decoder, o *op, at pointer, start, _ int) *fieldError {
	r := d.r
	if o.bits <= fuseBits && o.bits <= r.BitsRemaining() {
		// The whole code in one read (what ReadQuat reads in four: the
		// index, then the three codes), split here.
		if storeQuatWord(o, at, r.ReadBits(o.bits)) {
			return nil
		}
		r.Rewind(start) // ReadQuat words the refusal
	}
	v := r.ReadQuat(o.qq) // refuses codes that are not canonical
	if r.Err() != nil {
		return nil
	}
	storeQuat(o, at, v)
	return nil
}

// storeQuatWord stores the quaternion quat field o's wire code w (all of
// its bits, read at once) stands for at at, and reports whether it did:
// false for a code no encoder writes, which it leaves to ReadQuat to word.
func storeQuatWord(o *op, at pointer, w uint64) bool {
	b := o.qq.ComponentBits()
	m := uint64(1)<<b - 1
	v, err := o.qq.Decode(uint32(w&3), [3]uint32{uint32(w >> 2 & m), uint32(w >> (2 + b) & m), uint32(w >> (2 + 2*b) & m)})
	if err != nil {
		return false
	}
	storeQuat(o, at, v)
	return true
}

func storeQuat(o *op, at pointer, v [4]float32) {
	if !o.f64 {
		for i, off := range o.offs {
			*at.field(off).float32() = v[i]
		}
		return
	}
	for i, off := range o.offs {
		*at.field(off).float64() = float64(v[i])
	}
}

// Deltas: a quaternion is compared by its code (the index of the largest
// component and the three others' codes, canonical: decoding a code and
// encoding the result gives it back), and a changed one is sent whole.

// quatCode returns the code of the quaternion o at at, or its refusal.
func quatCode(o *op, at pointer) (uint32, [3]uint32, *fieldError) {
	v := loadQuat(o, at)
	if err := checkQuat(o, v); err != nil {
		return 0, [3]uint32{}, err
	}
	largest, codes, _ := o.qq.Encode(v) // checkQuat refused what Encode does
	return largest, codes, nil
}

func encodeQuatDelta(e *deltaEncoder, o *op, at, bt pointer, bit bool) (bool, *fieldError) {
	if at.sameBytes(bt, o.size) {
		return e.same(bit)
	}
	if !o.f64 && o.bits <= 64 { // the common case: codes as wire words
		wv, err := quatWord(o, o.qq, at)
		if err != nil {
			return false, err
		}
		wb, err := quatWord(o, o.qq, bt)
		if err != nil {
			return false, baseError(err)
		}
		if wv == wb {
			return e.same(bit)
		}
		if bit {
			e.w.WriteBits(1, 1)
		}
		e.w.WriteBits(wv, o.bits)
		return true, nil
	}
	lv, cv, err := quatCode(o, at)
	if err != nil {
		return false, err
	}
	lb, cb, err := quatCode(o, bt)
	if err != nil {
		return false, baseError(err)
	}
	if lv == lb && cv == cb {
		return e.same(bit)
	}
	if bit {
		e.w.WriteBits(1, 1)
	}
	e.w.WriteQuat(o.qq, loadQuat(o, at))
	return true, nil
}

// decodeQuatDelta reads a changed quaternion: a code no encoder writes is
// refused, as ReadQuat does, and so is the base's own code.
func decodeQuatDelta(d *decoder, o *op, at pointer, start int, bit bool) (bool, *fieldError) {
	r := d.r
	if !d.changedBit(bit) {
		return false, nil
	}
	b := o.qq.ComponentBits()
	largest := uint32(r.ReadBits(2))
	var codes [3]uint32
	for i := range codes {
		codes[i] = uint32(r.ReadBits(b))
	}
	if r.Err() != nil {
		return false, nil
	}
	v, qerr := o.qq.Decode(largest, codes)
	if qerr != nil {
		return false, newFieldError(o.path, start, ErrRange, "%v", qerr)
	}
	lb, cb, err := quatCode(o, at)
	if err != nil {
		err.bit = start
		return false, baseError(err)
	}
	if lb == largest && cb == codes {
		return false, unchangedError(o.path, start)
	}
	d.saveBytes(at, int(o.size))
	storeQuat(o, at, v)
	return true, nil
}

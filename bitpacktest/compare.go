package bitpacktest

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/deepbits"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Comparing a decoded value with what went in. The rules come from
// bitpack's round-trip guarantee (its package doc, Guarantees): everything
// is equal exactly — raw floats by bit pattern, so NaN payloads and −0
// count — except that compressed floats come back as their quantum (the
// expected value is built with the quantum in place, then compared
// exactly) and clamped integers at the nearer bound, quaternions come back
// within the documented angle (a comparer applied only at the quaternion
// fields' paths, map values included), and nil and empty slices and maps
// are the same on the wire. Fields that are not on the wire are ignored.

// cmpOptions returns the go-cmp options for comparing values of m's type.
func (m *model) cmpOptions(cfg *config) []cmp.Option {
	opts := []cmp.Option{
		cmpopts.EquateEmpty(),
		// Unexported fields are compared too: an unexported embedded
		// struct's exported fields are on the wire, and a custom type keeps
		// its state in unexported fields.
		cmp.Exporter(func(reflect.Type) bool { return true }),
		cmp.FilterPath(func(p cmp.Path) bool {
			_, off := m.resolve(p)
			return off
		}, cmp.Ignore()),
	}
	opts = append(opts, m.floatComparers()...)
	// One comparer per quaternion type, bit width and component order
	// (wxyz puts the same type's components elsewhere).
	type quatKey struct {
		t     reflect.Type
		bits  int
		paths string
	}
	keyOf := func(n *node) quatKey { return quatKey{n.typ, n.f.Bits, fmt.Sprint(n.f.QuatPaths)} }
	quats := map[quatKey]*node{}
	for _, n := range m.nodes {
		if n.kind == bitpack.KindQuat {
			quats[keyOf(n)] = n
		}
	}
	for k, q := range quats {
		tol, paths := q.quatTol, q.f.QuatPaths
		opts = append(opts, cmp.FilterPath(func(p cmp.Path) bool {
			n, _ := m.resolve(p)
			return n != nil && n.kind == bitpack.KindQuat && keyOf(n) == k
		}, cmp.Comparer(makeComparer(k.t, func(a, b reflect.Value) bool {
			return quatAngle(getQuat(a, paths), getQuat(b, paths)) <= tol
		}))))
	}
	return append(opts, cfg.cmpOpts...)
}

// floatComparers compare floats by bits. go-cmp matches comparers by exact
// type, so there is one per float type in the layout (named types and
// quaternion components included), plus float32 and float64.
func (m *model) floatComparers() []cmp.Option {
	types := map[reflect.Type]bool{}
	for _, n := range m.nodes {
		t := n.typ
		switch {
		case n.kind == bitpack.KindQuat && t.Kind() == reflect.Array:
			t = t.Elem()
		case n.kind == bitpack.KindQuat:
			t = t.Field(0).Type
		}
		if k := t.Kind(); k == reflect.Float32 || k == reflect.Float64 {
			types[t] = true
		}
	}
	opts := []cmp.Option{
		cmp.Comparer(func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }),
		cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }),
	}
	for t := range types {
		if t == reflect.TypeFor[float32]() || t == reflect.TypeFor[float64]() {
			continue // the typed comparers above: much cheaper to call
		}
		opts = append(opts, cmp.Comparer(makeComparer(t, deepbits.SameFloat)))
	}
	return opts
}

// makeComparer builds a func(t, t) bool for go-cmp from an untyped one.
func makeComparer(t reflect.Type, eq func(a, b reflect.Value) bool) any {
	ft := reflect.FuncOf([]reflect.Type{t, t}, []reflect.Type{reflect.TypeFor[bool]()}, false)
	return reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		return []reflect.Value{reflect.ValueOf(eq(args[0], args[1]))}
	}).Interface()
}

// quatAngle returns the angle in radians between the rotations a and b
// (q and −q are the same rotation). It uses the chord between the
// normalised quaternions, which stays accurate for tiny angles where
// acos(dot) does not.
func quatAngle(a, b [4]float64) float64 {
	norm := func(q [4]float64) ([4]float64, bool) {
		s := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
		if !(s > 0) || math.IsInf(s, 0) {
			return q, false
		}
		for i := range q {
			q[i] /= s
		}
		return q, true
	}
	a, okA := norm(a)
	b, okB := norm(b)
	if !okA || !okB {
		return math.Inf(1)
	}
	var minus, plus float64
	for i := range a {
		minus += (a[i] - b[i]) * (a[i] - b[i])
		plus += (a[i] + b[i]) * (a[i] + b[i])
	}
	chord := math.Sqrt(min(minus, plus)) // 2·sin(θ/4) for a rotation by θ
	return 4 * math.Asin(min(1, chord/2))
}

// resolve maps a go-cmp path onto the layout. It returns the node the
// path reaches (nil below a custom type, inside bytes, or after a
// transformation), and whether the path ends at a struct field that is not
// on the wire.
func (m *model) resolve(p cmp.Path) (*node, bool) {
	n := m.root
	for _, step := range p[1:] {
		if n == nil {
			return nil, false
		}
		switch s := step.(type) {
		case cmp.StructField:
			if n.kind != bitpack.KindStruct {
				return nil, false
			}
			c, ok := n.byIdx[s.Index()]
			if !ok {
				return nil, true
			}
			n = c
		case cmp.MapIndex:
			if n.kind != bitpack.KindMap {
				return nil, false
			}
			n = n.elem
		case cmp.SliceIndex:
			if n.kind != bitpack.KindArray && n.kind != bitpack.KindSlice && n.kind != bitpack.KindSparse {
				return nil, false
			}
			n = n.elem
		case cmp.TypeAssertion:
			if n.kind != bitpack.KindUnion {
				return nil, false
			}
			var member *node
			for _, c := range n.members {
				if c.typ == s.Type() {
					member = c
				}
			}
			n = member
		case cmp.Indirect:
			if n.kind != bitpack.KindPointer {
				return nil, false
			}
			n = n.elem
		default:
			return nil, false
		}
	}
	return n, false
}

// expected returns what v must decode as: a deep copy with every
// compressed float replaced by its quantum and every clamped integer
// clamped.
func (m *model) expected(v reflect.Value) reflect.Value {
	c := deepCopy(v)
	quantize(m.root, c)
	return c
}

// quantize replaces, in place, every compressed float under n by its
// quantum and every out-of-range integer of a clamp field by the nearer
// bound (values in whole units, as Gen makes them). v is addressable.
func quantize(n *node, v reflect.Value) {
	switch n.kind {
	case bitpack.KindCompressedFloat:
		v.SetFloat(quantum(n, v.Float()))
	case bitpack.KindInt:
		if n.f.Clamp {
			v.SetInt(unord(min(n.hi, max(n.lo, ord(v.Int()/n.unit)))) * n.unit)
		}
	case bitpack.KindUint:
		if n.f.Clamp {
			v.SetUint(min(n.hi, max(n.lo, v.Uint()/uint64(n.unit))) * uint64(n.unit))
		}
	case bitpack.KindTime:
		// To its nearest unit, as encoding rounds it (and with clamp to
		// the nearer bound): the time decoding gives.
		switch c, neg, ok := timeCode(n, v); {
		case ok && (n.f.Clamp || c >= n.lo && c <= n.hi):
			setTime(n, v, min(n.hi, max(n.lo, c)))
		case !ok && n.f.Clamp && neg:
			setTime(n, v, n.lo)
		case !ok && n.f.Clamp:
			setTime(n, v, n.hi)
		}
	case bitpack.KindMap:
		// Map values are not addressable: quantize copies. (Keys hold
		// neither floats nor clamped integers.)
		var it reflect.MapIter
		it.Reset(v)
		for it.Next() {
			e := reflect.New(n.elem.typ).Elem()
			e.Set(it.Value())
			quantize(n.elem, e)
			v.SetMapIndex(it.Key(), e)
		}
	case bitpack.KindArray, bitpack.KindSlice, bitpack.KindSparse:
		for i := 0; i < v.Len(); i++ {
			quantize(n.elem, v.Index(i))
		}
	case bitpack.KindUnion:
		if v.IsNil() {
			return
		}
		// An interface holds its value unaddressably: quantize a copy.
		for _, c := range n.members {
			if c.typ == v.Elem().Type() {
				e := reflect.New(c.typ).Elem()
				e.Set(v.Elem())
				quantize(c, e)
				v.Set(e)
			}
		}
	case bitpack.KindPointer:
		if !v.IsNil() {
			quantize(n.elem, v.Elem())
		}
	case bitpack.KindStruct:
		for _, c := range n.fields {
			quantize(c, v.Field(c.index))
		}
	}
}

// deepCopy returns a copy of v that shares no pointer, slice or map with
// it (within exported fields and unexported embedded structs; other
// unexported fields are copied shallowly, and bitpack never touches them).
// Values must be trees: deepCopy does not follow cycles.
func deepCopy(v reflect.Value) reflect.Value {
	c := reflect.New(v.Type()).Elem()
	copyInto(c, v)
	return c
}

func copyInto(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			dst.Set(reflect.Zero(dst.Type()))
			return
		}
		p := reflect.New(src.Type().Elem())
		copyInto(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Slice:
		if src.IsNil() {
			dst.Set(reflect.Zero(dst.Type()))
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := 0; i < src.Len(); i++ {
			copyInto(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Array:
		for i := 0; i < src.Len(); i++ {
			copyInto(dst.Index(i), src.Index(i))
		}
	case reflect.Struct:
		if dst.CanSet() && src.CanInterface() {
			dst.Set(src) // unexported fields, shallowly
		}
		for i := 0; i < src.NumField(); i++ {
			df, sf := dst.Field(i), src.Field(i)
			if (df.CanSet() && sf.CanInterface()) || sf.Kind() == reflect.Struct {
				copyInto(df, sf)
			}
		}
	case reflect.Map:
		if src.IsNil() {
			dst.Set(reflect.Zero(dst.Type()))
			return
		}
		mm := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			mm.SetMapIndex(deepCopy(it.Key()), deepCopy(it.Value()))
		}
		dst.Set(mm)
	case reflect.Interface:
		if src.IsNil() {
			dst.Set(reflect.Zero(dst.Type()))
			return
		}
		dst.Set(deepCopy(src.Elem()))
	default:
		if dst.CanSet() && src.CanInterface() {
			dst.Set(src)
		}
	}
}

// show formats a value for failure messages: like %+v, but it follows
// pointers, quotes strings and prints floats exactly (NaN with its bits).
func show(v reflect.Value) string {
	var b strings.Builder
	writeValue(&b, v, 0)
	return b.String()
}

func writeValue(b *strings.Builder, v reflect.Value, depth int) {
	if depth > 32 {
		b.WriteString("…")
		return
	}
	if !v.IsValid() {
		b.WriteString("<nil>")
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32:
		writeFloat32(b, v)
	case reflect.Float64:
		writeFloat64(b, v)
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteByte('&')
		writeValue(b, v.Elem(), depth+1)
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		writeValue(b, v.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		writeSeq(b, v, depth)
	case reflect.Map:
		writeMap(b, v, depth)
	case reflect.Struct:
		writeStruct(b, v, depth)
	default:
		if v.CanInterface() {
			fmt.Fprintf(b, "%v", v.Interface())
		} else {
			fmt.Fprintf(b, "<%s>", v.Type())
		}
	}
}

// writeFloat32 writes a float32 read by its bits, a NaN with its payload.
func writeFloat32(b *strings.Builder, v reflect.Value) {
	bits := deepbits.Float32Bits(v)
	f := math.Float32frombits(bits)
	if f != f {
		fmt.Fprintf(b, "NaN(%#08x)", bits)
	} else {
		b.WriteString(strconv.FormatFloat(float64(f), 'g', -1, 32))
	}
}

// writeFloat64 writes a float64, a NaN with its payload.
func writeFloat64(b *strings.Builder, v reflect.Value) {
	f := v.Float()
	if f != f {
		fmt.Fprintf(b, "NaN(%#016x)", math.Float64bits(f))
	} else {
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	}
}

// writeSeq writes a slice or array: bytes as a quoted string, other
// elements one by one.
func writeSeq(b *strings.Builder, v reflect.Value, depth int) {
	if v.Kind() == reflect.Slice && v.IsNil() {
		b.WriteString("nil")
		return
	}
	if v.Type().Elem().Kind() == reflect.Uint8 {
		bs := make([]byte, v.Len())
		for i := range bs {
			bs[i] = byte(v.Index(i).Uint())
		}
		fmt.Fprintf(b, "%s(%q)", v.Type(), bs)
		return
	}
	b.WriteByte('[')
	for i := 0; i < v.Len(); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		writeValue(b, v.Index(i), depth+1)
	}
	b.WriteByte(']')
}

// writeMap writes a map's entries in a fixed order.
func writeMap(b *strings.Builder, v reflect.Value, depth int) {
	if v.IsNil() {
		b.WriteString("nil")
		return
	}
	keys := v.MapKeys() // in wire order for bitpack's keys, else by text
	if k := v.Type().Key().Kind(); (k >= reflect.Bool && k <= reflect.Uintptr) || k == reflect.String {
		slices.SortFunc(keys, compareKeys)
	} else {
		slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(show(x), show(y)) })
	}
	b.WriteString("map[")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		writeValue(b, k, depth+1)
		b.WriteByte(':')
		writeValue(b, v.MapIndex(k), depth+1)
	}
	b.WriteByte(']')
}

// writeStruct writes a struct's fields by name.
func writeStruct(b *strings.Builder, v reflect.Value, depth int) {
	t := v.Type()
	if t.Name() != "" {
		b.WriteString(t.Name())
	}
	b.WriteByte('{')
	for i := 0; i < v.NumField(); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.Field(i).Name)
		b.WriteByte(':')
		writeValue(b, v.Field(i), depth+1)
	}
	b.WriteByte('}')
}

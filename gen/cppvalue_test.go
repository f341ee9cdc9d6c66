package gen

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/bitpack-go/bitpack"
)

// assigner writes C++ statements that store a Go value of a model type
// into the C++ struct the emitter declares for it (a write case of the
// cross-language test). Values the C++ fields cannot hold as such are
// stored as the C++ code would see them: a string longer than maxlen
// fills its char array with no terminator, a slice longer than maxlen
// gets its true count and maxlen elements, a nil union member an index
// past the last member.
type assigner struct {
	e     *cppEmitter
	lines []string
}

func (a *assigner) add(format string, args ...any) {
	a.lines = append(a.lines, fmt.Sprintf(format, args...))
}

// structFields assigns the fields of struct value rv, of model type t,
// at prefix (such as "v->" or "v->Pos.").
func (a *assigner) structFields(t *Type, uses []*FieldUse, rv reflect.Value, prefix string) {
	if uses == nil {
		for _, m := range t.Fields {
			uses = append(uses, &FieldUse{Member: m, Value: m.Value})
		}
	}
	for _, u := range uses {
		cm := a.e.members[u.Member]
		a.value(u.Value, rv.Field(u.Member.Index), place{prefix: prefix, name: cm.name, comps: cm.comps})
	}
}

func (a *assigner) value(v *Value, rv reflect.Value, p place) {
	x := p.expr()
	switch v.Kind {
	case bitpack.KindBool:
		a.add("%s = %t;", x, rv.Bool())
	case bitpack.KindInt:
		a.add("%s = %s;", x, cppInt(rv.Int()))
	case bitpack.KindUint:
		a.add("%s = %s;", x, cppUint(rv.Uint()))
	case bitpack.KindFloat, bitpack.KindCompressedFloat:
		if v.FloatBits == 32 {
			a.add("set_f32( %s, %#08xu );", x, float32Bits(rv))
		} else {
			a.add("set_f64( %s, UINT64_C( %#016x ) );", x, math.Float64bits(rv.Float()))
		}
	case bitpack.KindString:
		s := rv.String()
		if len(s) <= v.MaxLen {
			a.add("set_bytes( %s, %s, %d );", x, cString(s+"\x00"), len(s)+1)
		} else {
			a.add("set_bytes( %s, %s, %d );", x, cString(s[:v.MaxLen+1]), v.MaxLen+1)
		}
	case bitpack.KindBytes:
		n, p := p.take()
		a.add("%s = %d;", n, rv.Len())
		if k := min(rv.Len(), v.MaxLen); k > 0 {
			a.add("set_bytes( %s, %s, %d );", p.expr(), cString(string(rv.Bytes()[:k])), k)
		}
	case bitpack.KindByteArray:
		if v.Len > 0 {
			b := make([]byte, v.Len)
			reflect.Copy(reflect.ValueOf(b), rv)
			a.add("set_bytes( %s, %s, %d );", x, cString(string(b)), v.Len)
		}
	case bitpack.KindArray:
		for i := 0; i < rv.Len(); i++ {
			a.value(v.Elem, rv.Index(i), p.index(strconv.Itoa(i)))
		}
	case bitpack.KindSlice:
		n, p := p.take()
		a.add("%s = %d;", n, rv.Len())
		for i := 0; i < min(rv.Len(), v.MaxLen); i++ {
			a.value(v.Elem, rv.Index(i), p.index(strconv.Itoa(i)))
		}
	case bitpack.KindPointer:
		present, p := p.take()
		a.add("%s = %t;", present, !rv.IsNil())
		if !rv.IsNil() {
			a.value(v.Elem, rv.Elem(), p)
		}
	case bitpack.KindSparse:
		if rv.Kind() == reflect.Slice {
			var n string
			n, p = p.take()
			a.add("%s = %d;", n, rv.Len())
		}
		present, p := p.take()
		for i := 0; i < min(rv.Len(), sparseLen(v)); i++ {
			if e := rv.Index(i); !e.IsNil() {
				a.add("%s[%d] = true;", present, i)
				a.value(v.Elem, e.Elem(), p.index(strconv.Itoa(i)))
			}
		}
	case bitpack.KindStruct:
		a.structFields(v.Type, v.Fields, rv, x+".")
	case bitpack.KindUnion:
		a.union(v.Type, rv, x)
	case bitpack.KindCustom:
		// The table's only hook type, Stamp, keeps its value in field v.
		a.add("%s.v = %d;", x, rv.Field(0).Uint())
	case bitpack.KindCheck:
	default:
		panic(fmt.Sprintf("assigner: %s: kind %s", v.Path, v.Kind))
	}
}

func (a *assigner) union(t *Type, rv reflect.Value, x string) {
	if rv.IsNil() {
		a.add("%s.type = %d;", x, len(t.Members))
		return
	}
	dyn := rv.Elem()
	if dyn.Kind() == reflect.Pointer {
		dyn = dyn.Elem()
	}
	for i, mt := range t.Members {
		if mt.Go == dyn.Type() {
			a.add("%s.type = %d;", x, i)
			a.structFields(mt, nil, dyn, x+"."+a.e.typeNames[mt]+".")
			return
		}
	}
	panic("assigner: " + dyn.Type().String() + " is not a member of " + t.Go.String())
}

// float32Bits reads a float32's bits from memory when it can: rv.Float()
// converts to float64, which quiets a signalling NaN on amd64.
func float32Bits(rv reflect.Value) uint32 {
	if rv.CanAddr() {
		return *(*uint32)(unsafe.Pointer(rv.UnsafeAddr()))
	}
	return math.Float32bits(float32(rv.Float()))
}

// cString is a C string literal of s, every byte escaped.
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "\\x%02x", s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// spoiler enumerates the ways to make one leaf of a value invalid, in a
// fixed order, and applies the k-th: a ranged integer just outside its
// range, an integer one past its bits, a compressed float NaN, infinite or
// outside its bounds (clamp tags accept those that are finite), a string
// too long or not UTF-8, a slice one past maxlen, a nil union, a hook
// value its MarshalBits refuses.
type spoiler struct {
	target, n int
	done      bool
	what      string
}

func (s *spoiler) site(what string, apply func()) {
	if s.n == s.target && !s.done {
		apply()
		s.done, s.what = true, what
	}
	s.n++
}

func (s *spoiler) structFields(t *Type, uses []*FieldUse, rv reflect.Value) {
	if uses == nil {
		for _, m := range t.Fields {
			uses = append(uses, &FieldUse{Member: m, Value: m.Value})
		}
	}
	for _, u := range uses {
		s.value(u.Value, settable(rv.Field(u.Member.Index)))
	}
}

func (s *spoiler) value(v *Value, rv reflect.Value) {
	switch v.Kind {
	case bitpack.KindInt, bitpack.KindUint:
		s.integer(v, rv)
	case bitpack.KindCompressedFloat:
		span := v.Max - v.Min
		for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), v.Max + span, v.Min - span, v.Hi, v.Lo, nextUp(v)} {
			s.site(fmt.Sprintf("%s = %v", v.Path, f), func() { rv.SetFloat(f) })
		}
	case bitpack.KindString:
		for _, str := range []string{strings.Repeat("a", v.MaxLen+1), "\xff", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "a\xe2\x82"} {
			if len(str) <= v.MaxLen || str[0] == 'a' && len(str) == v.MaxLen+1 {
				s.site(fmt.Sprintf("%s = %q", v.Path, str), func() { rv.SetString(str) })
			}
		}
	case bitpack.KindBytes, bitpack.KindSlice:
		s.site(fmt.Sprintf("%s: %d elements", v.Path, v.MaxLen+1), func() {
			rv.Set(reflect.MakeSlice(rv.Type(), v.MaxLen+1, v.MaxLen+1))
		})
		for i := 0; i < rv.Len() && v.Kind == bitpack.KindSlice; i++ {
			s.value(v.Elem, rv.Index(i))
		}
	case bitpack.KindArray:
		for i := 0; i < rv.Len(); i++ {
			s.value(v.Elem, rv.Index(i))
		}
	case bitpack.KindPointer:
		if !rv.IsNil() {
			s.value(v.Elem, rv.Elem())
		}
	case bitpack.KindSparse:
		if rv.Kind() == reflect.Slice {
			s.site(fmt.Sprintf("%s: %d slots", v.Path, v.MaxLen+1), func() {
				rv.Set(reflect.MakeSlice(rv.Type(), v.MaxLen+1, v.MaxLen+1))
			})
		}
		for i := 0; i < rv.Len(); i++ {
			if e := rv.Index(i); !e.IsNil() {
				s.value(v.Elem, e.Elem())
			}
		}
	case bitpack.KindStruct:
		s.structFields(v.Type, v.Fields, rv)
	case bitpack.KindUnion:
		s.site(v.Path+" = nil", func() { rv.Set(reflect.Zero(rv.Type())) })
		if rv.IsNil() {
			return
		}
		dyn := rv.Elem()
		if dyn.Kind() == reflect.Pointer {
			s.structFields(memberOf(v.Type, dyn.Elem().Type()), nil, dyn.Elem())
			return
		}
		c := reflect.New(dyn.Type()).Elem()
		c.Set(dyn)
		s.structFields(memberOf(v.Type, dyn.Type()), nil, c)
		rv.Set(c)
	case bitpack.KindCustom:
		s.site(v.Path+".v = 5000", func() { settable(rv.Field(0)).SetUint(5000) })
	}
}

func memberOf(u *Type, t reflect.Type) *Type {
	for _, m := range u.Members {
		if m.Go == t {
			return m
		}
	}
	panic(t.String() + " is not a member of " + u.Go.String())
}

// nextUp is the float just above a compressed float's upper accepted bound.
func nextUp(v *Value) float64 {
	if v.FloatBits == 32 {
		return float64(math.Nextafter32(float32(v.Hi), float32(math.Inf(1))))
	}
	return math.Nextafter(v.Hi, math.Inf(1))
}

func (s *spoiler) integer(v *Value, rv reflect.Value) {
	typeMin, typeMax := int64(-1)<<(v.GoBits-1), int64(uint64(1)<<(v.GoBits-1)-1)
	set := func(what string, f func()) { s.site(v.Path+" = "+what, f) }
	switch {
	case v.Signed && v.Ranged:
		if v.IntMin > typeMin {
			set(strconv.FormatInt(v.IntMin-1, 10), func() { rv.SetInt(v.IntMin - 1) })
		}
		if v.IntMax < typeMax {
			set(strconv.FormatInt(v.IntMax+1, 10), func() { rv.SetInt(v.IntMax + 1) })
		}
	case v.Ranged:
		if v.UintMin > 0 {
			set(strconv.FormatUint(v.UintMin-1, 10), func() { rv.SetUint(v.UintMin - 1) })
		}
		if v.UintMax < math.MaxUint64>>(64-v.GoBits) {
			set(strconv.FormatUint(v.UintMax+1, 10), func() { rv.SetUint(v.UintMax + 1) })
		}
	case v.Signed && v.Bits < v.GoBits:
		lim := int64(1) << (v.Bits - 1)
		set(strconv.FormatInt(lim, 10), func() { rv.SetInt(lim) })
		set(strconv.FormatInt(-lim-1, 10), func() { rv.SetInt(-lim - 1) })
	case !v.Signed && v.Bits < v.GoBits:
		set(strconv.FormatUint(1<<v.Bits, 10), func() { rv.SetUint(1 << v.Bits) })
	}
}

// settable returns rv, made settable when it was reached through an
// unexported field (an unexported embedded struct's fields, a hook's
// state): the spoiler changes values the encoder reads through those.
func settable(rv reflect.Value) reflect.Value {
	if rv.CanSet() || !rv.CanAddr() {
		return rv
	}
	return reflect.NewAt(rv.Type(), unsafe.Pointer(rv.UnsafeAddr())).Elem()
}

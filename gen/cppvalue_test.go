package gen

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/cpp"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/internal/rules"
)

// assigner writes C++ statements that store a Go value of a model type
// into the C++ struct the emitter declares for it (a write case of the
// cross-language test). Values the C++ fields cannot hold as such are
// stored as the C++ code would see them: a string longer than maxlen
// fills its char array with no terminator, a slice longer than maxlen
// gets its true count and maxlen elements, a nil union member an index
// past the last member.
type assigner struct {
	e     *cpp.Emitter
	lines []string
}

func (a *assigner) add(format string, args ...any) {
	a.lines = append(a.lines, fmt.Sprintf(format, args...))
}

// structFields assigns the fields of struct value rv, of model type t,
// at prefix (such as "v->" or "v->Pos.").
func (a *assigner) structFields(t *model.Type, uses []*model.FieldUse, rv reflect.Value, prefix string) {
	if uses == nil {
		for _, m := range t.Fields {
			uses = append(uses, &model.FieldUse{Member: m, Value: m.Value})
		}
	}
	for _, u := range uses {
		name, comps := a.e.Member(u.Member)
		a.value(u.Value, rv.Field(u.Member.Index), place{prefix: prefix, name: name, comps: comps})
	}
}

func (a *assigner) value(v *model.Value, rv reflect.Value, p place) {
	x := p.expr()
	switch v.Kind {
	case bitpack.KindBool:
		a.add("%s = %t;", x, rv.Bool())
	case bitpack.KindInt, bitpack.KindUint, bitpack.KindTime:
		var lit string
		switch {
		case v.Kind == bitpack.KindUint:
			lit = cpp.UintLiteral(rv.Uint())
		case v.Time: // the count Go rounds the time to
			lit = cpp.IntLiteral(timeCount(v, rv))
		case v.Counted: // the count Go rounds the duration to
			lit = cpp.IntLiteral(int64(rules.UnitsSigned(rv.Int(), v.Unit)))
		default:
			lit = cpp.IntLiteral(rv.Int())
		}
		if v.Enum != nil { // an enum class takes no integer without a cast
			lit = "static_cast<" + a.e.TypeName(v.Enum) + ">( " + lit + " )"
		}
		a.add("%s = %s;", x, lit)
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
		for i := 0; i < min(rv.Len(), max(v.Len, v.MaxLen)); i++ {
			if e := rv.Index(i); !e.IsNil() {
				a.add("%s[%d] = true;", present, i)
				a.value(v.Elem, e.Elem(), p.index(strconv.Itoa(i)))
			}
		}
	case bitpack.KindStruct:
		a.structFields(v.Type, v.Fields, rv, x+".")
	case bitpack.KindQuat:
		for _, steps := range v.Comps {
			a.value(&model.Value{Kind: bitpack.KindFloat, FloatBits: v.FloatBits}, quatComponent(rv, steps), place{name: x + a.e.QuatComp(steps)})
		}
	case bitpack.KindMap:
		n, p := p.take()
		keys, p := p.take()
		a.add("%s = %d;", n, rv.Len())
		for i, k := range mapFillOrder(rv) {
			if i == v.MaxLen {
				break
			}
			a.value(v.Key, k, place{name: keys}.index(strconv.Itoa(i)))
			a.value(v.Elem, mapValue(rv, k), p.index(strconv.Itoa(i)))
		}
	case bitpack.KindUnion:
		a.union(v.Type, rv, x)
	case bitpack.KindCustom:
		// The table's hook types, Stamp and Nib, keep their value in field v.
		a.add("%s.v = %d;", x, rv.Field(0).Uint())
	case bitpack.KindCheck:
	default:
		panic(fmt.Sprintf("assigner: %s: kind %s", v.Path, v.Kind))
	}
}

func (a *assigner) union(t *model.Type, rv reflect.Value, x string) {
	if rv.IsNil() {
		a.add("%s.type = %d;", x, noMember(t))
		return
	}
	dyn := rv.Elem()
	if dyn.Kind() == reflect.Pointer {
		dyn = dyn.Elem()
	}
	for i, mt := range t.Members {
		if mt.Go == dyn.Type() {
			a.add("%s.type = %d;", x, t.Indices[i])
			a.structFields(mt, nil, dyn, x+"."+a.e.TypeName(mt)+".")
			return
		}
	}
	panic("assigner: " + dyn.Type().String() + " is not a member of " + t.Go.String())
}

// noMember is a type index no member of union t has, within its width.
func noMember(t *model.Type) uint64 {
	for i := uint64(0); ; i++ {
		if !slices.Contains(t.Indices, i) {
			return i
		}
	}
}

// mapFillOrder is the order the write cases fill a map in: descending
// keys (the reverse of the wire's), so that writers which must sort do.
func mapFillOrder(rv reflect.Value) []reflect.Value {
	keys := sortedKeys(rv)
	slices.Reverse(keys)
	return keys
}

// mapValue is rv's value at key k, in an addressable copy (so raw float32
// bits are read from memory, see float32Bits).
func mapValue(rv, k reflect.Value) reflect.Value {
	c := reflect.New(rv.Type().Elem()).Elem()
	c.Set(rv.MapIndex(k))
	return c
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

// place is where a value lives in a C++ struct the header declares:
// prefix.name followed by the indices of the loops around it, and the
// companions of the member the value and its elements still have to use,
// outermost first (as the generated code names them).
type place struct {
	prefix string
	name   string
	comps  []string
	idx    string
}

func (p place) expr() string { return p.prefix + p.name + p.idx }

// take returns the expression of the next companion and the place without it.
func (p place) take() (string, place) {
	c := p.prefix + p.comps[0] + p.idx
	p.comps = p.comps[1:]
	return c, p
}

func (p place) index(i string) place {
	p.idx += "[" + i + "]"
	return p
}

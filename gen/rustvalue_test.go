package gen

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/gen/internal/rust"
	"github.com/bitpack-go/bitpack/internal/rules"
)

// rsValue renders a Go value of a model type as a Rust expression of the
// generated types (a write case of the cross-language test), the table
// module being table. Two Go values have no Rust form: a nil union (an
// enum always holds a member) and a string that is not UTF-8 (a Rust
// String is); such a value's why says so, and its case is not written.
type rsValue struct {
	e   *rust.Emitter
	why string // why the value has no Rust form ("" when it has one)
}

func (a *rsValue) structValue(t *model.Type, uses []*model.FieldUse, rv reflect.Value) string {
	var fields []string
	for _, m := range t.Fields {
		if m.Value.Kind == bitpack.KindCheck {
			continue
		}
		v := m.Value
		for _, u := range uses {
			if u.Member == m {
				v = u.Value
			}
		}
		fields = append(fields, a.e.FieldName(m)+": "+a.value(v, rv.Field(m.Index)))
	}
	return "table::" + a.e.TypeName(t) + " { " + strings.Join(fields, ", ") + " }"
}

// integer renders an integer: a duration counted in units as its count
// (rounded as Go rounds it), a value of an enum in its newtype (it may be
// one no constant names).
func (a *rsValue) integer(v *model.Value, rv reflect.Value) string {
	var lit string
	switch {
	case v.Kind == bitpack.KindUint:
		lit = strconv.FormatUint(rv.Uint(), 10)
	case v.Time:
		lit = strconv.FormatInt(timeCount(v, rv), 10)
	case v.Counted:
		lit = strconv.FormatInt(int64(rules.UnitsSigned(rv.Int(), v.Unit)), 10)
	default:
		lit = strconv.FormatInt(rv.Int(), 10)
	}
	if v.Enum == nil {
		return lit
	}
	return "table::" + a.e.TypeName(v.Enum) + "(" + lit + ")"
}

func (a *rsValue) value(v *model.Value, rv reflect.Value) string {
	switch v.Kind {
	case bitpack.KindBool:
		return strconv.FormatBool(rv.Bool())
	case bitpack.KindInt, bitpack.KindUint, bitpack.KindTime:
		return a.integer(v, rv)
	case bitpack.KindFloat, bitpack.KindCompressedFloat:
		if v.FloatBits == 32 {
			return fmt.Sprintf("f32::from_bits(%#08x)", float32Bits(rv))
		}
		return fmt.Sprintf("f64::from_bits(%#016x)", math.Float64bits(rv.Float()))
	case bitpack.KindString:
		if !utf8.ValidString(rv.String()) {
			a.why = "a string that is not UTF-8"
		}
		return rust.Quote(strings.ToValidUTF8(rv.String(), "?")) + ".to_string()"
	case bitpack.KindBytes:
		return "vec![" + a.elems(rv, func(e reflect.Value) string { return strconv.FormatUint(e.Uint(), 10) }) + "]"
	case bitpack.KindByteArray:
		return "[" + a.elems(rv, func(e reflect.Value) string { return strconv.FormatUint(e.Uint(), 10) }) + "]"
	case bitpack.KindArray:
		return "[" + a.elems(rv, func(e reflect.Value) string { return a.value(v.Elem, e) }) + "]"
	case bitpack.KindSlice:
		return "vec![" + a.elems(rv, func(e reflect.Value) string { return a.value(v.Elem, e) }) + "]"
	case bitpack.KindPointer:
		return a.optional(v.Elem, rv)
	case bitpack.KindSparse:
		list := a.elems(rv, func(e reflect.Value) string { return a.optional(v.Elem, e) })
		if rv.Kind() == reflect.Slice {
			return "vec![" + list + "]"
		}
		return "[" + list + "]"
	case bitpack.KindStruct:
		return a.structValue(v.Type, v.Fields, rv)
	case bitpack.KindUnion:
		if rv.IsNil() {
			a.why = "a nil union"
			return "Default::default()"
		}
		dyn := rv.Elem()
		if dyn.Kind() == reflect.Pointer {
			dyn = dyn.Elem()
		}
		mt := memberOf(v.Type, dyn.Type())
		return fmt.Sprintf("table::%s::%s(%s)", a.e.TypeName(v.Type), a.e.TypeName(mt), a.structValue(mt, nil, dyn))
	case bitpack.KindCustom:
		// The table's hook types, Stamp and Nib, keep their value in field v.
		return fmt.Sprintf("crate::%s { v: %d }", rv.Type().Name(), rv.Field(0).Uint())
	case bitpack.KindQuat:
		if v.Type != nil {
			return a.structValue(v.Type, nil, rv)
		}
		return "[" + a.elems(rv, func(e reflect.Value) string {
			return a.value(&model.Value{Kind: bitpack.KindFloat, FloatBits: v.FloatBits}, e)
		}) + "]"
	case bitpack.KindMap:
		var entries []string
		for _, k := range sortedKeys(rv) {
			entries = append(entries, "("+a.value(v.Key, k)+", "+a.value(v.Elem, mapValue(rv, k))+")")
		}
		return "std::collections::BTreeMap::from([" + strings.Join(entries, ", ") + "])"
	}
	panic(fmt.Sprintf("rsValue: %s: kind %s", v.Path, v.Kind))
}

func (a *rsValue) optional(v *model.Value, rv reflect.Value) string {
	if rv.IsNil() {
		return "None"
	}
	return "Some(Box::new(" + a.value(v, rv.Elem()) + "))"
}

func (a *rsValue) elems(rv reflect.Value, f func(reflect.Value) string) string {
	parts := make([]string, rv.Len())
	for i := range parts {
		parts[i] = f(rv.Index(i))
	}
	return strings.Join(parts, ", ")
}

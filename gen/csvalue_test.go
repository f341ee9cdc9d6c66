package gen

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/csharp"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/internal/rules"
)

// csValue renders a Go value of a model type as a C# expression that
// builds the same value in the generated classes (a write case of the
// cross-language test): new T { F = ..., ... }. Go values C# cannot hold
// become what C# code would hold instead: invalid UTF-8 in a string is a
// lone surrogate per byte (refused too), a nil slice is null (written as
// empty), a nil union or pointer is null.
type csValue struct{ e *csharp.Emitter }

func (a csValue) structValue(t *model.Type, rv reflect.Value) string {
	var fields []string
	for _, m := range t.Fields {
		if m.Value.Kind == bitpack.KindCheck {
			continue
		}
		fields = append(fields, a.e.MemberName(m)+" = "+a.value(m.Value, rv.Field(m.Index)))
	}
	return "new " + a.e.TypeName(t) + " { " + strings.Join(fields, ", ") + " }"
}

func (a csValue) value(v *model.Value, rv reflect.Value) string {
	switch v.Kind {
	case bitpack.KindBool:
		return strconv.FormatBool(rv.Bool())
	case bitpack.KindInt, bitpack.KindUint, bitpack.KindTime:
		return a.integer(v, rv)
	case bitpack.KindFloat, bitpack.KindCompressedFloat:
		if v.FloatBits == 32 {
			return fmt.Sprintf("Bitpack.Float32FromBits(%#08xu)", float32Bits(rv))
		}
		return fmt.Sprintf("Bitpack.Float64FromBits(%#016xUL)", math.Float64bits(rv.Float()))
	case bitpack.KindString:
		return csStringOf(rv.String())
	case bitpack.KindBytes, bitpack.KindByteArray:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return "null"
		}
		return "new byte[] { " + a.elems(v, rv, func(e reflect.Value) string { return strconv.FormatUint(e.Uint(), 10) }) + " }"
	case bitpack.KindArray, bitpack.KindSlice:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return "null"
		}
		return "new " + a.e.Type(v) + " { " + a.elems(v, rv, func(e reflect.Value) string { return a.value(v.Elem, e) }) + " }"
	case bitpack.KindPointer:
		return a.optional(v.Elem, rv)
	case bitpack.KindSparse:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return "null"
		}
		return "new " + a.e.Type(v) + " { " + a.elems(v, rv, func(e reflect.Value) string { return a.optional(v.Elem, e) }) + " }"
	case bitpack.KindStruct:
		return a.structValue(v.Type, rv)
	case bitpack.KindUnion:
		if rv.IsNil() {
			return "null"
		}
		dyn := rv.Elem()
		if dyn.Kind() == reflect.Pointer {
			dyn = dyn.Elem()
		}
		return a.structValue(memberOf(v.Type, dyn.Type()), dyn)
	case bitpack.KindCustom:
		// The table's hook types, Stamp and Nib, keep their value in field v.
		return fmt.Sprintf("new %s { v = %d }", a.e.TypeName(v.Type), rv.Field(0).Uint())
	case bitpack.KindQuat:
		return a.quat(v, rv)
	case bitpack.KindMap:
		if rv.IsNil() {
			return "null"
		}
		var entries []string
		for _, k := range mapFillOrder(rv) {
			entries = append(entries, "{ "+a.value(v.Key, k)+", "+a.value(v.Elem, mapValue(rv, k))+" }")
		}
		return "new " + a.e.Type(v) + " { " + strings.Join(entries, ", ") + " }"
	}
	panic(fmt.Sprintf("csValue: %s: kind %s", v.Path, v.Kind))
}

// integer renders an integer: a duration counted in units as its count
// (rounded as Go rounds it), a value of an enum as a cast (it may be one
// no member names).
func (a csValue) integer(v *model.Value, rv reflect.Value) string {
	var lit string
	switch {
	case v.Kind == bitpack.KindUint:
		lit = strconv.FormatUint(rv.Uint(), 10)
	case v.Time:
		lit = strconv.FormatInt(timeCount(v, rv), 10)
		if lit == "-9223372036854775808" {
			lit = "long.MinValue"
		}
	case v.Counted:
		lit = strconv.FormatInt(int64(rules.UnitsSigned(rv.Int(), v.Unit)), 10)
	case rv.Int() == math.MinInt64:
		lit = "long.MinValue"
	default:
		lit = strconv.FormatInt(rv.Int(), 10)
	}
	if v.Enum == nil {
		return lit
	}
	return "(" + a.e.Type(v) + ")(" + lit + ")"
}

// quat renders a quaternion holder: its own form (raw floats) holds the
// components where they are.
func (a csValue) quat(v *model.Value, rv reflect.Value) string {
	if v.Type != nil {
		return a.structValue(v.Type, rv)
	}
	return "new " + a.e.Type(v) + " { " + a.elems(v, rv, func(e reflect.Value) string {
		return a.value(&model.Value{Kind: bitpack.KindFloat, FloatBits: v.FloatBits}, e)
	}) + " }"
}

// optional renders a pointer rv to a value of v: null, the value, or a
// box around a pointer.
func (a csValue) optional(v *model.Value, rv reflect.Value) string {
	if rv.IsNil() {
		return "null"
	}
	if v.Kind == bitpack.KindPointer {
		return "new " + a.e.Optional(v) + "(" + a.value(v, rv.Elem()) + ")"
	}
	return a.value(v, rv.Elem())
}

func (a csValue) elems(v *model.Value, rv reflect.Value, f func(reflect.Value) string) string {
	parts := make([]string, rv.Len())
	for i := range parts {
		parts[i] = f(rv.Index(i))
	}
	return strings.Join(parts, ", ")
}

// csStringOf is a C# string literal holding s, with a lone surrogate
// (U+DC80 + the byte) for each byte that is not part of valid UTF-8.
func csStringOf(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, "\\u%04x", 0xdc80+int(s[i]))
		case r > 0xffff:
			fmt.Fprintf(&b, "\\U%08x", r)
		case r < 0x20 || r > 0x7e || r == '"' || r == '\\':
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

package gen

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/gen/internal/typescript"
	"github.com/bitpack-go/bitpack/internal/rules"
)

// tsValue renders a Go value of a model type as a TypeScript expression
// of the generated interfaces (a write case of the cross-language test),
// with the table module imported as t. Go values JavaScript cannot hold
// become what JavaScript code would hold instead: invalid UTF-8 in a
// string is a lone surrogate per byte (refused too), a nil union is null.
type tsValue struct {
	e *typescript.Emitter
	m *model.Model
}

func (a tsValue) structValue(t *model.Type, rv reflect.Value) string {
	var fields []string
	for _, m := range t.Fields {
		if m.Value.Kind == bitpack.KindCheck {
			continue
		}
		fields = append(fields, m.Name+": "+a.value(m.Value, rv.Field(m.Index)))
	}
	return "{ " + strings.Join(fields, ", ") + " }"
}

func (a tsValue) value(v *model.Value, rv reflect.Value) string {
	switch v.Kind {
	case bitpack.KindBool:
		return strconv.FormatBool(rv.Bool())
	case bitpack.KindInt, bitpack.KindUint, bitpack.KindTime:
		return a.integer(v, rv)
	case bitpack.KindFloat, bitpack.KindCompressedFloat:
		if v.FloatBits == 32 {
			return fmt.Sprintf("t.float32FromBits(%#08x)", float32Bits(rv))
		}
		return fmt.Sprintf("t.float64FromBits(%#016xn)", math.Float64bits(rv.Float()))
	case bitpack.KindString:
		return tsStringOf(rv.String())
	case bitpack.KindBytes, bitpack.KindByteArray:
		return "new Uint8Array([" + a.elems(rv, func(e reflect.Value) string { return strconv.FormatUint(e.Uint(), 10) }) + "])"
	case bitpack.KindArray, bitpack.KindSlice:
		return "[" + a.elems(rv, func(e reflect.Value) string { return a.value(v.Elem, e) }) + "]"
	case bitpack.KindPointer:
		return a.optional(v.Elem, rv)
	case bitpack.KindSparse:
		return "[" + a.elems(rv, func(e reflect.Value) string { return a.optional(v.Elem, e) }) + "]"
	case bitpack.KindStruct:
		return a.structValue(v.Type, rv)
	case bitpack.KindUnion:
		if rv.IsNil() {
			return "null as unknown as t." + a.e.TypeName(v.Type)
		}
		dyn := rv.Elem()
		if dyn.Kind() == reflect.Pointer {
			dyn = dyn.Elem()
		}
		mt := memberOf(v.Type, dyn.Type())
		return fmt.Sprintf("{ type: %q, value: %s }", a.e.TypeName(mt), a.structValue(mt, dyn))
	case bitpack.KindCustom:
		// The table's hook types, Stamp and Nib, keep their value in field v.
		return fmt.Sprintf("{ v: %d }", rv.Field(0).Uint())
	case bitpack.KindQuat:
		if v.Type != nil {
			return a.structValue(v.Type, rv)
		}
		return "[" + a.elems(rv, func(e reflect.Value) string {
			return a.value(&model.Value{Kind: bitpack.KindFloat, FloatBits: v.FloatBits}, e)
		}) + "]"
	case bitpack.KindMap:
		var entries []string
		for _, k := range mapFillOrder(rv) {
			entries = append(entries, "["+a.value(v.Key, k)+", "+a.value(v.Elem, mapValue(rv, k))+"]")
		}
		return fmt.Sprintf("new Map<%s, %s>([%s])", a.qualified(v.Key), a.qualified(v.Elem), strings.Join(entries, ", "))
	}
	panic(fmt.Sprintf("tsValue: %s: kind %s", v.Path, v.Kind))
}

// integer is an integer's literal: a bigint where the field is one, a
// duration counted in units as its count (rounded as Go rounds it), a
// value of an enum asserted to be one (through number or bigint: the
// value may be one no constant names).
func (a tsValue) integer(v *model.Value, rv reflect.Value) string {
	var lit string
	switch {
	case v.Time:
		lit = strconv.FormatInt(timeCount(v, rv), 10)
	case v.Counted:
		lit = strconv.FormatInt(int64(rules.UnitsSigned(rv.Int(), v.Unit)), 10)
	case v.Kind == bitpack.KindInt:
		lit = strconv.FormatInt(rv.Int(), 10)
	default:
		lit = strconv.FormatUint(rv.Uint(), 10)
	}
	big := a.e.Type(v) == "bigint" || v.Enum != nil && v.GoBits == 64
	if big {
		lit += "n"
	}
	if v.Enum == nil {
		return lit
	}
	through := "number"
	if big {
		through = "bigint"
	}
	return "(" + lit + " as " + through + " as t." + a.e.TypeName(v.Enum) + ")"
}

// qualified is a value's TypeScript type as the test driver names it: the
// table's types (hook types included) through the module's import, t.
func (a tsValue) qualified(v *model.Value) string {
	typ := a.e.Type(v)
	for _, t := range slices.Concat(a.m.Enums, a.m.Types, a.m.Hooks) {
		n := a.e.TypeName(t)
		typ = regexp.MustCompile(`\b`+n+`\b`).ReplaceAllString(typ, "t."+n)
	}
	return typ
}

func (a tsValue) optional(v *model.Value, rv reflect.Value) string {
	if rv.IsNil() {
		return "null"
	}
	if v.Kind == bitpack.KindPointer {
		return "{ value: " + a.value(v, rv.Elem()) + " }"
	}
	return a.value(v, rv.Elem())
}

func (a tsValue) elems(rv reflect.Value, f func(reflect.Value) string) string {
	parts := make([]string, rv.Len())
	for i := range parts {
		parts[i] = f(rv.Index(i))
	}
	return strings.Join(parts, ", ")
}

// tsStringOf is a TypeScript string literal holding s, with a lone
// surrogate (U+DC80 + the byte) for each byte that is not valid UTF-8.
func tsStringOf(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, "\\u%04x", 0xdc80+int(s[i]))
		case r > 0xffff:
			fmt.Fprintf(&b, "\\u{%x}", r)
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

package model

import (
	"fmt"
	"go/token"
	"reflect"
)

// An EnumSpec is a Go named integer type's constants, as the package
// declares them: the type by its package's import path and its name, and
// each constant's name and value (an unsigned type's as the bits of an
// int64), in declaration order.
type EnumSpec struct {
	PkgPath   string
	Name      string
	Constants []SpecConstant
}

// A SpecConstant is one constant of an EnumSpec.
type SpecConstant struct {
	Name  string
	Value int64
}

// A Constant is one named value of an enum: Int holds it for a signed
// type, Uint for an unsigned one.
type Constant struct {
	Name string
	Int  int64
	Uint uint64
}

// Value is the constant's value in words ("-3", "18446744073709551615").
func (c Constant) Value(signed bool) string {
	if signed {
		return fmt.Sprint(c.Int)
	}
	return fmt.Sprint(c.Uint)
}

// enumType returns the enum type of integer type t, building it on first
// use: nil when t's constants were not given.
func (b *builder) enumType(t reflect.Type) (*Type, error) {
	if et, ok := b.byType[t]; ok {
		return et, nil
	}
	if t.Name() == "" || t.PkgPath() == "" {
		return nil, nil
	}
	spec, ok := b.enums[t.PkgPath()+"."+t.Name()]
	if !ok {
		return nil, nil
	}
	if t == durationType {
		return nil, fmt.Errorf("gen: time.Duration's constants cannot name its values: it is a duration (see unit=), not an enum")
	}
	et := &Type{Kind: TypeEnum, Go: t, Signed: t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64, GoBits: t.Bits()}
	if len(spec.Constants) == 0 {
		return nil, fmt.Errorf("gen: the constants of %s.%s: none given (an enum names at least one value)", spec.PkgPath, spec.Name)
	}
	seen := map[string]bool{}
	for _, c := range spec.Constants {
		if !token.IsIdentifier(c.Name) || seen[c.Name] {
			return nil, fmt.Errorf("gen: the constants of %s.%s: %q is not a Go identifier, or is given twice", spec.PkgPath, spec.Name, c.Name)
		}
		seen[c.Name] = true
		k := Constant{Name: c.Name, Int: c.Value, Uint: uint64(c.Value)}
		if et.Signed && et.GoBits < 64 && (c.Value < -1<<(et.GoBits-1) || c.Value >= 1<<(et.GoBits-1)) ||
			!et.Signed && et.GoBits < 64 && uint64(c.Value) >= 1<<et.GoBits {
			return nil, fmt.Errorf("gen: the constants of %s.%s: %s = %s does not fit %s", spec.PkgPath, spec.Name, c.Name, k.Value(et.Signed), t.Kind())
		}
		et.Constants = append(et.Constants, k)
	}
	b.byType[t] = et
	b.order = append(b.order, et)
	b.done = append(b.done, et)
	return et, nil
}

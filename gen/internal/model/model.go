// Package model is what every generator renders: the types a generated
// file declares and how each of their values travels, built from
// bitpack's exported layouts.
package model

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/quant"
)

// The model is what every emitter renders: the types to declare, in
// dependency order, and for each the ordered steps its wire form takes.
// It is built only from bitpack's exported description of the compiled
// plans (Describe and Fingerprint), so the plan stays the single source of
// truth, and it holds nothing specific to one target language: names are
// the Go names made unique (each emitter adapts them to its language's
// rules), and numbers are the tags' own.

// TypeKind tells the three kinds of declared type apart.
type TypeKind uint8

const (
	// TypeStruct is a Go struct type: its fields in wire order.
	TypeStruct TypeKind = iota + 1
	// TypeUnion is an interface type registered with bitpack.RegisterUnion:
	// a type index, then one of Members.
	TypeUnion
	// TypeHook is a type with MarshalBits/UnmarshalBits: Go code that no
	// generator can translate, so the target language's programmer
	// provides it.
	TypeHook
	// TypeEnum is a Go named integer type whose constants name its values
	// (given to Build: reflection cannot see constants). Integer values of
	// the type name it (Value.Enum); the wire is the integer's.
	TypeEnum
)

// A Type is one type the generated code declares (or, for hooks, expects).
type Type struct {
	Kind TypeKind
	Go   reflect.Type
	// Name is unique among the model's types: the Go type's name, made an
	// identifier (generic arguments and package qualifiers flattened to
	// underscores), or for an anonymous struct the name of the first field
	// that holds it, prefixed by its owner's name. Emitters may still
	// have to adapt it to their language's reserved words.
	Name string

	// TypeStruct: every field on the wire, in order, in the type's own
	// form (its fields' own tags, none from a field that holds it), and
	// the type's bitpack.Fingerprint.
	Fields      []*Member
	Fingerprint uint32
	MinBits     int
	MaxBits     int // -1: unbounded
	// Charge is what the Go decoder's allowances charge for a value of
	// the type (its layout root's bitpack.Field.Charge): its Work when a
	// decode of it starts, and its Work and Bytes for a union member of
	// it, when its index is read (see Charge).
	Charge Charge

	// TypeUnion: the member struct types in the order NewUnion took them,
	// the type index each has on the wire (its position unless the union
	// numbers them with At), and the width of the index
	// (bits_required(0, the largest index), or IndexBits). Numbered says
	// some index is not its member's position: bitpack then words the
	// refusal of an unknown index by listing the indices.
	Members   []*Type
	Indices   []uint64
	IndexBits int
	Numbered  bool

	// TypeEnum: the constants, in declaration order, and the integer type
	// (signed or not, its Go width: 64 for int and uint).
	Constants []Constant
	Signed    bool
	GoBits    int

	suggest string // an anonymous struct's name before collisions are resolved
	value   *Value // TypeStruct: a value of the type in its own form
}

// Value is a value of struct type t in its own form: what a field of the
// type holds when no tag of the field's changes how it travels.
func (t *Type) Value() *Value { return t.value }

// A Member is a field of a struct type in the type's own form.
type Member struct {
	Name     string // the Go field name (the type's name for an embedded struct)
	Index    int    // the field's index in the Go struct
	Embedded bool
	Value    *Value
}

// A Value is how one Go value travels: a wire kind and every parameter of
// it. Values form a tree through Elem (arrays, slices, pointers, sparse
// arrays) and Fields (a struct used under a tag of its own); a struct,
// union or hook value names its Type.
type Value struct {
	// Kind is bitpack's kind of the layout node the value was built from;
	// renderers take the value's step (Op) instead.
	Kind bitpack.Kind
	Go   reflect.Type // the value's Go type
	// Path names the value for messages, relative to the type that holds
	// it: "Pos.X", "Players[].Health".
	Path string
	// Encoding is bitpack's own words for the encoding ("int [0, 1000]").
	Encoding string

	Bits int // bool 1; integers: the wire width; compressed floats: code bits; quat: bits per component
	// MinBits is the fewest bits the value takes on the wire (alignment
	// padding counted as none).
	MinBits int
	// CountBits is the value's count figure (bitpack.Field.CountBits):
	// the fewest bits it takes with a union counted as its index alone,
	// at most 2^53-1, which a count of such values is checked against
	// (docs/wire.md, "Truncated packets").
	CountBits int64
	// Cost is the layout's bitpack.Field.Charge of this node itself (the
	// Rust runtime's figures; Charge below is what a step charges for the
	// values it brings, for the C++, C# and TypeScript generators).
	Cost bitpack.Charge

	// Integers: Signed for Go's signed kinds; GoBits is the Go width (64
	// for int and uint, which are 64 bits on the wire on every platform).
	// Ranged integers carry their range in IntMin/IntMax (signed) or
	// UintMin/UintMax (unsigned); raw ones their Bits. Unit (unit=, 0 for
	// none) is the Go value of one unit on the wire: writers divide,
	// rounding half away from zero, readers multiply; ranges and bits bound
	// the units. UnitText words the unit as bitpack's messages do ("1ms",
	// "5"), and Duration says the Go type is time.Duration, whose values
	// those messages print as durations. Clamp (integers and compressed
	// floats) replaces an out-of-range value by the nearer bound on write.
	// Counted (a time.Duration with unit=, a time.Time) says a client
	// holds the count of units the wire carries, not nanoseconds, where
	// its language has no Duration or Time of Go's (C++ int64_t, C# long,
	// TypeScript number or bigint, Rust i64): its range is IntBounds, in
	// units, and its writers neither divide nor round. Time says the Go
	// type is time.Time (bitpack's KindTime): a signed 64-bit integer on
	// the wire, the Unix time in units of Unit (1 for unit=1ns), counted
	// in every client; Go's refusals print its values as times. Enum is
	// the value's named type when its constants were given to Build
	// (TypeEnum).
	Signed           bool
	GoBits           int
	Ranged           bool
	IntMin, IntMax   int64
	UintMin, UintMax uint64
	Unit             int64
	UnitText         string
	Duration         bool
	Counted          bool
	Time             bool
	Enum             *Type

	// Floats (raw, compressed, quaternion components): 32 or 64.
	FloatBits int
	// Quaternions: Bits per component code, Steps is M = 2^Bits - 2 (codes
	// run 0..M), and Comps locates x, y, z and w within the value, each a
	// path of steps from it (Type is the struct type holding them, nil for
	// an array).
	Comps [4][]QuatStep
	// Compressed floats: the tag's bounds and resolution, whether
	// out-of-range values clamp, and what follows (the same numbers
	// package quant derives): Steps is M, codes run 0..M in Bits bits;
	// Lo and Hi bound what an encoder accepts without clamp (the bounds,
	// widened to the decoded extremes).
	Min, Max, Res float64
	Clamp         bool
	Steps         uint32
	Lo, Hi        float64

	MaxLen int // strings, byte slices, slices, sparse slices
	Len    int // byte arrays, arrays, sparse arrays
	Sparse bool

	Elem *Value
	// Maps: the keys (an integer, string or bool value); Elem is the
	// values, MaxLen the most entries, Bits the width of the count.
	Key *Value

	// Struct values: the struct type, and when this use differs from the
	// type's own form (a tag on the field reached its leaves, or embedding
	// hid some of its fields) the fields as this use sends them. Fields is
	// nil when the use is the type's own form. Unions and hooks: Type.
	// Quaternions: the struct type holding the four components, if the Go
	// type is a struct (nil for [4]float32/[4]float64).
	Type   *Type
	Fields []*FieldUse

	CheckName string
	CheckHash uint32

	// The step (steps.go): Op, and what it needs. Prefix is the length
	// prefix of strings, byte slices, slices, sparse slices and maps;
	// Code the code of a fixed-width value; Each the count figure of one
	// element of a slice or entry of a map, which its count is checked
	// against (docs/wire.md, "Truncated packets"); Charge what the
	// allowances charge for each value the step brings (see Charge);
	// Slots a sparse array's slots (Len, or MaxLen for a slice);
	// Unrolled, for an array, that bitpack unrolls it into its parent's
	// ops (a delta then refuses a listed element that changes nothing
	// where its index is read); Order a map's key order.
	Op       Op
	Prefix   *Count
	Code     Code
	Each     int64
	Charge   Charge
	Slots    int
	Unrolled bool
	Order    KeyOrder
	item     bool // an item of its struct's delta (see IsItem)
}

// A QuatStep is one step towards a quaternion component: into member
// Member of a struct, or, when Member is nil, to element Index of an
// array.
type QuatStep struct {
	Member *Member
	Index  int
}

// A FieldUse is one field of a struct value sent in a form other than its
// type's own: the member of the type it stores into, and how it travels.
type FieldUse struct {
	Member *Member
	Value  *Value
}

// A Model is everything a generated file declares.
type Model struct {
	Types []*Type // dependency order: a type follows every type its fields hold
	Roots []*Type // the types asked for, in order
	Hooks []*Type // types the target language's programmer must supply
	Enums []*Type // the named integer types of values whose constants were given, in the order found
}

// builder turns layouts into a model.
type builder struct {
	byType  map[reflect.Type]*Type
	onStack map[reflect.Type]bool
	enums   map[string]EnumSpec // by the type's package path and name
	order   []*Type             // discovery order, for naming
	done    []*Type             // post-order: dependency order
}

// Build returns the model of values' types. Each value is a struct value
// or a pointer to one (a nil pointer of the type is enough). enums are
// named integer types' constants; those of types the values hold become
// the model's Enums (the others are not used).
func Build(values []any, enums ...EnumSpec) (*Model, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("gen: no types given")
	}
	b := &builder{byType: map[reflect.Type]*Type{}, onStack: map[reflect.Type]bool{}, enums: map[string]EnumSpec{}}
	for _, e := range enums {
		k := e.PkgPath + "." + e.Name
		if _, dup := b.enums[k]; dup {
			return nil, fmt.Errorf("gen: the constants of %s are given twice", k)
		}
		b.enums[k] = e
	}
	m := &Model{}
	seen := map[*Type]bool{}
	for i, v := range values {
		t := reflect.TypeOf(v)
		if t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			return nil, fmt.Errorf("gen: argument %d is %v, not a struct or a pointer to one", i, reflect.TypeOf(v))
		}
		st, err := b.structType(t, "")
		if err != nil {
			return nil, err
		}
		if !seen[st] {
			seen[st] = true
			m.Roots = append(m.Roots, st)
		}
	}
	if err := b.name(); err != nil {
		return nil, err
	}
	for _, t := range b.done {
		switch t.Kind {
		case TypeHook:
			m.Hooks = append(m.Hooks, t)
		case TypeEnum:
			m.Enums = append(m.Enums, t)
		default:
			m.Types = append(m.Types, t)
		}
	}
	return m, nil
}

// structType returns the model of struct type t in its own form, building
// it (and everything its fields hold) on first use. suggest names an
// anonymous struct after the field that first holds it.
func (b *builder) structType(t reflect.Type, suggest string) (*Type, error) {
	if st, ok := b.byType[t]; ok {
		return st, nil
	}
	if b.onStack[t] {
		return nil, fmt.Errorf("gen: %s contains itself (through a pointer, slice, map or union): recursive types have no fixed-size form in the generated code, which stores everything inline", t)
	}
	b.onStack[t] = true
	defer delete(b.onStack, t)
	proto := reflect.New(t).Interface()
	l, err := bitpack.Describe(proto)
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	fp, err := bitpack.Fingerprint(proto)
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	st := &Type{Kind: TypeStruct, Go: t, Fingerprint: fp, MinBits: l.MinBits, MaxBits: l.MaxBits, suggest: suggest, Charge: chargeOf(l.Root)}
	st.value = &Value{Kind: bitpack.KindStruct, Op: OpStruct, Go: t, Type: st, MinBits: l.MinBits, CountBits: l.Root.CountBits, Cost: l.Root.Charge, Encoding: l.Root.Encoding()}
	b.order = append(b.order, st)
	if l.Root.Kind != bitpack.KindStruct {
		// A struct type with hooks encodes itself.
		return nil, fmt.Errorf("gen: %s encodes itself with MarshalBits; generate the types that hold it", t)
	}
	for _, f := range l.Root.Fields {
		v, err := b.value(f, f.Name, st)
		if err != nil {
			return nil, err
		}
		st.Fields = append(st.Fields, &Member{Name: f.Name, Index: f.Index[0], Embedded: isEmbedded(t, f.Index[0]), Value: v})
	}
	b.byType[t] = st
	b.done = append(b.done, st)
	return st, nil
}

func isEmbedded(t reflect.Type, i int) bool { return t.Field(i).Anonymous }

// value models layout node f, found at path inside owner.
func (b *builder) value(f *bitpack.Field, path string, owner *Type) (*Value, error) {
	v := &Value{Kind: f.Kind, Go: f.Type, Path: path, Bits: f.Bits, MinBits: f.MinBits, CountBits: f.CountBits, Cost: f.Charge, Encoding: f.Encoding()}
	var err error
	switch f.Kind {
	case bitpack.KindBool:
	case bitpack.KindInt, bitpack.KindUint:
		integer(v, f)
		v.Enum, err = b.enumType(f.Type)
	case bitpack.KindTime:
		timeValue(v, f)
	case bitpack.KindFloat:
		v.FloatBits = f.Type.Bits()
	case bitpack.KindCompressedFloat:
		err = compressed(v, f)
	case bitpack.KindString, bitpack.KindBytes:
		v.MaxLen = f.MaxLen
	case bitpack.KindByteArray:
		v.Len = f.Len
	case bitpack.KindArray, bitpack.KindSlice, bitpack.KindPointer, bitpack.KindSparse:
		v.Len, v.MaxLen = f.Len, f.MaxLen
		v.Sparse = f.Kind == bitpack.KindSparse
		elemPath := path + "[]"
		if f.Kind == bitpack.KindPointer {
			elemPath = path
		}
		v.Elem, err = b.value(f.Elem, elemPath, owner)
	case bitpack.KindStruct:
		err = b.structValue(v, f, path, owner)
	case bitpack.KindQuat:
		err = b.quat(v, f, path, owner)
	case bitpack.KindMap:
		v.MaxLen = f.MaxLen
		if v.Key, err = b.value(f.Key, path+"[]", owner); err == nil {
			v.Elem, err = b.value(f.Elem, path+"[]", owner)
		}
	case bitpack.KindCustom:
		v.Type = b.hookType(f.Type)
	case bitpack.KindUnion:
		v.Type, err = b.unionType(f)
	case bitpack.KindCheck:
		v.CheckName, v.CheckHash = f.CheckName, f.CheckHash
	default:
		err = fmt.Errorf("gen: field %s of %s: %s fields are not supported yet", path, owner.Go, f.Kind)
	}
	if err != nil {
		return nil, err
	}
	step(v, f)
	return v, nil
}

var durationType = reflect.TypeFor[time.Duration]()

// integer fills an integer's parameters.
func integer(v *Value, f *bitpack.Field) {
	v.Signed = f.Kind == bitpack.KindInt
	v.GoBits = f.Type.Bits()
	if k := f.Type.Kind(); k == reflect.Int || k == reflect.Uint {
		v.GoBits = 64
	}
	v.Ranged, v.Clamp = f.Ranged, f.Clamp
	if f.Ranged {
		v.IntMin, v.IntMax, v.UintMin, v.UintMax = f.IntMin, f.IntMax, f.UintMin, f.UintMax
	}
	if f.Unit > 1 {
		v.Unit, v.UnitText = f.Unit, strconv.FormatInt(f.Unit, 10)
		if f.Type == durationType {
			v.Duration, v.Counted, v.UnitText = true, true, time.Duration(f.Unit).String()
		}
	}
}

// timeValue fills a time.Time's parameters: a signed integer of 64 bits,
// its Unix time counted in units of f.Unit nanoseconds, whatever the
// unit (1ns included: the count is still not a Go value).
func timeValue(v *Value, f *bitpack.Field) {
	v.Signed, v.GoBits, v.Ranged, v.Clamp = true, 64, f.Ranged, f.Clamp
	if f.Ranged {
		v.IntMin, v.IntMax = f.IntMin, f.IntMax
	}
	v.Unit, v.UnitText, v.Counted, v.Time = f.Unit, time.Duration(f.Unit).String(), true, true
}

// quat fills a quaternion's parameters: its codes, and where its
// components are (bitpack's QuatPaths, as steps through the model's
// struct members).
func (b *builder) quat(v *Value, f *bitpack.Field, path string, owner *Type) error {
	v.Steps = uint32(1)<<f.Bits - 2
	if f.Type.Kind() == reflect.Struct {
		st, err := b.structType(f.Type, anonName(owner, path))
		if err != nil {
			return err
		}
		v.Type = st
	}
	for c, steps := range f.QuatPaths {
		t, st := f.Type, v.Type
		for _, i := range steps {
			if t.Kind() == reflect.Array {
				v.Comps[c] = append(v.Comps[c], QuatStep{Index: i})
				t = t.Elem()
				continue
			}
			var m *Member
			for _, fm := range st.Fields {
				if fm.Index == i {
					m = fm
				}
			}
			if m == nil { // not expected: a component is an exported, untagged float
				return fmt.Errorf("gen: field %s of %s: quaternion component %s.%s is not a field of %s's own form", path, owner.Go, t, t.Field(i).Name, t)
			}
			v.Comps[c] = append(v.Comps[c], QuatStep{Member: m})
			t, st = t.Field(i).Type, m.Value.Type
		}
		v.FloatBits = t.Bits()
	}
	return nil
}

// compressed fills a compressed float's parameters, derived with package
// quant exactly as the plan compiler derives them.
func compressed(v *Value, f *bitpack.Field) error {
	v.FloatBits = f.Type.Bits()
	v.Min, v.Max, v.Res, v.Clamp = f.FloatMin, f.FloatMax, f.Res, f.Clamp
	if v.FloatBits == 32 {
		q, err := quant.NewFloat(float32(f.FloatMin), float32(f.FloatMax), float32(f.Res))
		if err != nil {
			return fmt.Errorf("gen: %s: %w", v.Path, err)
		}
		v.Steps = q.MaxCode()
		v.Lo = math.Min(f.FloatMin, float64(q.Dequantize(0)))
		v.Hi = math.Max(f.FloatMax, float64(q.Dequantize(q.MaxCode())))
		return nil
	}
	q, err := quant.NewFloat64(f.FloatMin, f.FloatMax, f.Res)
	if err != nil {
		return fmt.Errorf("gen: %s: %w", v.Path, err)
	}
	v.Steps = q.MaxCode()
	v.Lo = math.Min(f.FloatMin, q.Dequantize(0))
	v.Hi = math.Max(f.FloatMax, q.Dequantize(q.MaxCode()))
	return nil
}

// structValue models a struct-typed value: its type in its own form, and
// this use's fields when they differ from it.
func (b *builder) structValue(v *Value, f *bitpack.Field, path string, owner *Type) error {
	st, err := b.structType(f.Type, anonName(owner, path))
	if err != nil {
		return err
	}
	v.Type = st
	byIndex := map[int]*Member{}
	for _, m := range st.Fields {
		byIndex[m.Index] = m
	}
	var uses []*FieldUse
	for _, c := range f.Fields {
		m := byIndex[c.Index[0]]
		if m == nil {
			// Not expected: a use sends a subset of the type's own fields.
			return fmt.Errorf("gen: field %s of %s sends %s.%s, which %s's own form does not", path, owner.Go, f.Type, c.Name, f.Type)
		}
		cv, err := b.value(c, path+"."+c.Name, owner)
		if err != nil {
			return err
		}
		uses = append(uses, &FieldUse{Member: m, Value: cv})
	}
	if !sameForm(uses, st.Fields) {
		v.Fields = uses
	}
	return nil
}

// sameForm reports whether a use's fields travel exactly as the type's own.
func sameForm(uses []*FieldUse, own []*Member) bool {
	if len(uses) != len(own) {
		return false
	}
	for i, u := range uses {
		if u.Member != own[i] || signature(u.Value) != signature(own[i].Value) {
			return false
		}
	}
	return true
}

// signature is a text that differs whenever two values travel differently
// (paths and wording aside).
func signature(v *Value) string {
	var b strings.Builder
	var walk func(v *Value)
	walk = func(v *Value) {
		fmt.Fprintf(&b, "(%d %s %d %t %d %t %d %d %d %d %d %d %v %v %v %t %d %d %t %d %q %d %v",
			v.Kind, v.Go, v.Bits, v.Signed, v.GoBits, v.Ranged, v.IntMin, v.IntMax, v.UintMin, v.UintMax, v.Unit,
			v.FloatBits, v.Min, v.Max, v.Res, v.Clamp, v.MaxLen, v.Len, v.Sparse, v.CheckHash, v.CheckName, len(v.Fields), v.Comps)
		if v.Type != nil {
			b.WriteString(" " + v.Type.Go.String())
		}
		for _, u := range v.Fields {
			b.WriteString(" " + strconv.Itoa(u.Member.Index))
			walk(u.Value)
		}
		if v.Key != nil {
			walk(v.Key)
		}
		if v.Elem != nil {
			walk(v.Elem)
		}
		b.WriteString(")")
	}
	walk(v)
	return b.String()
}

// anonName suggests a name for an anonymous struct found at path in owner:
// Owner_Field_Sub.
func anonName(owner *Type, path string) string {
	base := owner.Go.Name()
	if base == "" {
		base = owner.suggest
	}
	p := strings.NewReplacer("[]", "", ".", "_").Replace(path)
	return base + "_" + p
}

// hookType returns the model of a type with custom hooks.
func (b *builder) hookType(t reflect.Type) *Type {
	if ht, ok := b.byType[t]; ok {
		return ht
	}
	ht := &Type{Kind: TypeHook, Go: t}
	b.byType[t] = ht
	b.order = append(b.order, ht)
	b.done = append(b.done, ht)
	return ht
}

// unionType returns the model of the union a KindUnion node encodes.
func (b *builder) unionType(f *bitpack.Field) (*Type, error) {
	if ut, ok := b.byType[f.Type]; ok {
		return ut, nil
	}
	if b.onStack[f.Type] {
		return nil, fmt.Errorf("gen: union %s has a member that contains it: recursive types have no fixed-size form in the generated code", f.Type)
	}
	b.onStack[f.Type] = true
	defer delete(b.onStack, f.Type)
	ut := &Type{Kind: TypeUnion, Go: f.Type, IndexBits: f.Bits}
	for i, idx := range f.MemberIndex {
		ut.Indices = append(ut.Indices, uint64(idx))
		ut.Numbered = ut.Numbered || idx != i
	}
	b.order = append(b.order, ut)
	for _, mt := range f.MemberTypes {
		if mt.Kind() == reflect.Pointer {
			mt = mt.Elem()
		}
		st, err := b.structType(mt, "")
		if err != nil {
			return nil, err
		}
		ut.Members = append(ut.Members, st)
	}
	b.byType[f.Type] = ut
	b.done = append(b.done, ut)
	return ut, nil
}

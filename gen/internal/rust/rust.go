// Package rust renders a model as one self-contained Rust module
// (gen.Rust): the types, and for each the static steps of gen's model,
// which the module's runtime (module wire, the .rs files beside this one)
// reads and writes through one trait, Wire.
package rust

import (
	"bytes"
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/internal/snapwire"
)

// The runtime every module carries, in parts.
var (
	//go:embed core.rs
	rsCore string
	//go:embed values.rs
	rsValues string
	//go:embed containers.rs
	rsContainers string
	//go:embed extra.rs
	rsExtra string
	//go:embed macros.rs
	rsMacros string
	//go:embed time.rs
	rsTime string

	// runtime is the runtime of a module without times, timeRuntime of
	// one with: time.rs, and the arm of Wire's integer refusals that
	// words a time's (placeholder {{TIME_REFUSAL}}, a line of its own).
	runtime     = runtimeOf(false)
	timeRuntime = runtimeOf(true)
)

// timeRefusal is the arm of int_code's refusals for a time.Time's step:
// counted, but no duration.
const timeRefusal = `                // Go words the time the count stands for, when it has one.
                _ if s.counted && !s.duration => format!("value {} is {} units of {}, out of range [{}, {}]", time_text(v, s.unit, s.text), u, s.text, s.lo, s.hi),
`

func runtimeOf(times bool) string {
	arm, extra := "", ""
	if times {
		arm, extra = timeRefusal, rsTime
	}
	return strings.NewReplacer("{{PRINTABLE}}", code.PrintableRanges(), "{{SNAPSHOT_WORDS}}", snapshotWords(), "                {{TIME_REFUSAL}}\n", arm).
		Replace(code.Rules(rsCore + rsValues + rsContainers + rsExtra + extra + rsMacros))
}

// snapshotWords are package snapshot's refusal formats (internal/snapwire)
// as Rust constants named in SCREAMING_SNAKE_CASE (TooShort is TOO_SHORT),
// and the texts of the sentinels the refusals wrap.
func snapshotWords() string {
	var b strings.Builder
	for _, w := range snapwire.Words {
		fmt.Fprintf(&b, "    const %s: &str = %s;\n", strings.ToUpper(snake(w.Name)), code.Quote(w.Format))
	}
	for _, s := range []struct{ name, text string }{
		{"OVERFLOW_TEXT", bitpack.ErrOverflow.Error()}, {"RANGE_TEXT", bitpack.ErrRange.Error()}, {"NO_BASE_TEXT", snapwire.NoBase},
	} {
		fmt.Fprintf(&b, "    const %s: &str = %s;\n", s.name, code.Quote(s.text))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Emitter renders a model as a Rust module.
type Emitter struct {
	m      *model.Model
	types  map[*model.Type]string
	fields map[*model.Member]string
	b      bytes.Buffer
}

// keywords are Rust's; a field so named gets an underscore, and so does
// a type named like a keyword or like std's and the runtime's names the
// module uses (taken).
var keywords, taken = map[string]bool{}, map[string]bool{}

func init() {
	for _, w := range strings.Fields(`as break const continue crate else enum extern false fn for if impl in let loop
		match mod move mut pub ref return self Self static struct super trait true type unsafe use where while async
		await dyn abstract become box do final macro override priv typeof unsized virtual yield try union`) {
		keywords[w], taken[w] = true, true
	}
	for _, w := range strings.Fields(`Option Some None Result Ok Err Vec String Box Default Clone Debug PartialEq Eq
		Ord Copy Send Sync Sized Drop Fn FnMut FnOnce Iterator ToString From Into std core alloc bool char str f32 f64
		i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize wire steps Error ErrorKind Reader Writer Receiver Hook`) {
		taken[w] = true
	}
}

func ident(n string, reserved map[string]bool) string {
	if reserved[n] {
		return n + "_"
	}
	return n
}

// snake is a Go field name in snake_case, runs of capitals kept
// together: ID is id, MaxHP max_hp, HTTPServer http_server.
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 && rs[i-1] != '_' &&
			(!unicode.IsUpper(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// New prepares the module of model m: the Rust names of its types and
// fields.
func New(m *model.Model) *Emitter {
	e := &Emitter{m: m, types: map[*model.Type]string{}, fields: map[*model.Member]string{}}
	for _, t := range append(append(append([]*model.Type{}, m.Hooks...), m.Enums...), m.Types...) {
		e.types[t] = ident(t.Name, taken)
		used := map[string]bool{}
		for _, f := range t.Fields {
			n := ident(snake(f.Name), keywords)
			for k := 2; used[n]; k++ {
				n = ident(snake(f.Name), keywords) + "_" + strconv.Itoa(k)
			}
			used[n] = true
			e.fields[f] = n
		}
	}
	return e
}

func (e *Emitter) printf(format string, args ...any) { fmt.Fprintf(&e.b, format, args...) }

// File renders the whole module.
func (e *Emitter) File() []byte {
	e.printf("%s", code.Preamble("Rust (edition 2021, std only) readers and writers for these Go types,\ngenerated from the plans bitpack compiles for them (github.com/bitpack-go/bitpack/gen):", e.m.Roots))
	e.printf(`//
// For each struct T: T::read(packet) reads a whole packet as bitpack.Unmarshal
// does, t.write() writes bitpack.Marshal's bytes, T::read_delta(packet, base) and
// t.write_delta(base) are bitpack.UnmarshalDelta and AppendDelta; each refuses
// what bitpack refuses, the Go decoder's allowances included, with an Error
// naming the field and bit as bitpack's errors do. T::FINGERPRINT is
// bitpack.Fingerprint (mix it into the protocol id for seal and open, as the Go
// side does); Receiver<T> reads package snapshot's streams.
`)
	e.printf("%s", code.HookList("generator can translate: declare each in this module's parent, with\n"+
		"Clone, Debug, Default and PartialEq, and implement wire::Hook for it:", e.m.Hooks, e.types))
	rt := runtime
	if e.m.Times() {
		rt = timeRuntime
	}
	e.printf("\n%s\n", rt)
	e.printf("#[allow(unused_imports)]\npub use wire::{open, seal, Error, ErrorKind, Hook, Reader, Receiver, Writer};\n")
	for _, t := range e.m.Hooks {
		e.printf("\nuse super::%s;\nbitpack_hook!(%s);\n", e.types[t], e.types[t])
	}
	for _, t := range e.m.Enums {
		e.enumType(t)
	}
	var steps strings.Builder
	for _, t := range e.m.Types {
		n := e.types[t]
		switch t.Kind {
		case model.TypeStruct:
			e.structType(t)
			fmt.Fprintf(&steps, "    pub const %s: S = %s;\n", n, e.step(t.Value(), "", -1))
		case model.TypeUnion:
			e.unionType(t)
		}
	}
	e.printf("\n/// The steps of each type, as gen's model decided them.\n#[allow(non_upper_case_globals)]\nmod steps {\n")
	e.printf("    use super::wire::{Op, S, S0};\n%s}\n", steps.String())
	return e.b.Bytes()
}

// structType renders a struct type and its Wire.
func (e *Emitter) structType(t *model.Type) {
	n := e.types[t]
	e.printf("\n/// Go's %s: %s.\n#[allow(dead_code)]\n", t.Go, model.SizeText(t))
	var decl, zero, members []string
	big, times := false, false
	for i, f := range t.Fields {
		if f.Value.Op == model.OpCheck {
			decl = append(decl, fmt.Sprintf("    // %s: %s (nothing stored)", f.Name, f.Value.Encoding))
			continue
		}
		typ := e.rustType(f.Value)
		big = big || regexp.MustCompile(`; (\d\d\d+|3[3-9]|[4-9]\d)\]`).MatchString(typ)
		decl = append(decl, fmt.Sprintf("    pub %s: %s, // %s", e.fields[f], typ, model.FieldComment(f.Value)))
		z, ok := timeZero(f.Value)
		times = times || ok
		zero = append(zero, fmt.Sprintf("            %s: %s,", e.fields[f], z))
		members = append(members, fmt.Sprintf("%d %s", i, e.fields[f]))
	}
	derive := "Clone, Debug, Default, PartialEq"
	if big || times { // std has no Default for arrays of more than 32; a time may start at year 1
		derive = "Clone, Debug, PartialEq"
	}
	if strings.Contains(n, "_") || !unicode.IsUpper(rune(n[0])) {
		e.printf("#[allow(non_camel_case_types)]\n")
	}
	e.printf("#[derive(%s)]\npub struct %s {\n%s\n}\n", derive, n, strings.Join(decl, "\n"))
	if big || times {
		e.printf("\nimpl Default for %s {\n    fn default() -> %s {\n        %s {\n%s\n        }\n    }\n}\n", n, n, n, strings.Join(zero, "\n"))
	}
	e.printf("\nbitpack_struct!(%s, steps::%s, %s, %#08x; %s);\n", n, n, quote(t.Go.String()), t.Fingerprint, strings.Join(members, " "))
}

// timeZero is the expression of value v in its struct's Default, Go's
// zero value: a time.Time (or arrays of them) whose tag encodes Go's zero
// time (year 1) as a count other than 0 holds that count
// (model.ZeroTime), and ok says so; every other value is its
// wire::Wire::zero().
func timeZero(v *model.Value) (expr string, ok bool) {
	zero, lens, ok := model.ZeroTime(v)
	if !ok {
		return "wire::Wire::zero()", false
	}
	expr = strconv.FormatInt(zero, 10)
	for i := len(lens) - 1; i >= 0; i-- {
		expr = fmt.Sprintf("[%s; %d]", expr, lens[i])
	}
	return expr, true
}

// enumType renders a Go named integer type with constants as a newtype
// of its integer with the constants as associated consts, named as in Go.
// Not a Rust enum: Go's wire carries every value of the integer, named or
// not, and so must the Rust value, or a packet Go reads would be refused.
func (e *Emitter) enumType(t *model.Type) {
	n, base := e.types[t], "u"+strconv.Itoa(t.GoBits)
	if t.Signed {
		base = "i" + strconv.Itoa(t.GoBits)
	}
	e.printf("\n/// Go's %s: any %s, the values its constants name among them.\n", t.Go, base)
	e.printf("#[allow(dead_code, non_camel_case_types)]\n#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]\n")
	e.printf("pub struct %s(pub %s);\n\n#[allow(dead_code, non_upper_case_globals)]\nimpl %s {\n", n, base, n)
	for _, c := range t.Constants {
		e.printf("    pub const %s: %s = %s(%s);\n", ident(c.Name, keywords), n, n, c.Value(t.Signed))
	}
	e.printf("}\n\nbitpack_enum!(%s);\n", n)
}

// unionType renders a union as an enum of its members.
func (e *Emitter) unionType(t *model.Type) {
	n := e.types[t]
	var variants, members []string
	for i, mt := range t.Members {
		variants = append(variants, fmt.Sprintf("    %s(%s),", e.types[mt], e.types[mt]))
		members = append(members, fmt.Sprintf("%d %s", i, e.types[mt]))
	}
	e.printf("\n/// Go's interface %s: the type index in %d bits, then the member.\n", t.Go, t.IndexBits)
	e.printf("#[allow(dead_code, non_camel_case_types, clippy::large_enum_variant)]\n#[derive(Clone, Debug, PartialEq)]\n")
	e.printf("pub enum %s {\n%s\n}\n\nbitpack_union!(%s; %s);\n", n, strings.Join(variants, "\n"), n, strings.Join(members, " "))
}

// rustType is the Rust type of a value.
func (e *Emitter) rustType(v *model.Value) string {
	switch v.Op {
	case model.OpBool:
		return "bool"
	case model.OpInt:
		if v.Enum != nil {
			return e.types[v.Enum]
		}
		if v.Signed {
			return "i" + strconv.Itoa(v.GoBits)
		}
		return "u" + strconv.Itoa(v.GoBits)
	case model.OpFloat, model.OpCompressed:
		return "f" + strconv.Itoa(v.FloatBits)
	case model.OpString:
		return "String"
	case model.OpBytes:
		return "Vec<u8>"
	case model.OpByteArray:
		return fmt.Sprintf("[u8; %d]", v.Len)
	case model.OpArray:
		return fmt.Sprintf("[%s; %d]", e.rustType(v.Elem), v.Len)
	case model.OpSlice:
		return "Vec<" + e.rustType(v.Elem) + ">"
	case model.OpPointer:
		return "Option<Box<" + e.rustType(v.Elem) + ">>"
	case model.OpSparse:
		if v.Prefix != nil {
			return "Vec<Option<Box<" + e.rustType(v.Elem) + ">>>"
		}
		return fmt.Sprintf("[Option<Box<%s>>; %d]", e.rustType(v.Elem), v.Len)
	case model.OpQuat:
		if v.Type == nil {
			return fmt.Sprintf("[f%d; 4]", v.FloatBits)
		}
		return e.types[v.Type]
	case model.OpMap:
		return "std::collections::BTreeMap<" + e.rustType(v.Key) + ", " + e.rustType(v.Elem) + ">"
	}
	return e.types[v.Type] // structs, unions, hooks
}

// stepOps names each op's variant of the runtime's Op (a type's own
// fields and a field list are both Struct).
var stepOps = map[model.Op]string{model.OpBool: "Bool", model.OpInt: "Int", model.OpFloat: "Float", model.OpCompressed: "Comp",
	model.OpString: "Str", model.OpBytes: "Bytes", model.OpByteArray: "ByteArray", model.OpArray: "Array",
	model.OpSlice: "Slice", model.OpPointer: "Ptr", model.OpSparse: "Sparse", model.OpStruct: "Struct",
	model.OpFields: "Struct", model.OpUnion: "Union", model.OpHook: "Hook", model.OpMap: "Map", model.OpQuat: "Quat",
	model.OpCheck: "Check"}

// stepLiteral is the fields of a wire::S literal, in the order written;
// the literal ends in ..S0, which gives every field left out.
type stepLiteral []string

// set adds field k: val unless val is its zero (false, 0, or the Rust
// literal of 0, 0.0 or ""): ..S0 gives those, and the tables stay short.
func (f *stepLiteral) set(k string, val any) {
	switch x := val.(type) {
	case bool:
		if !x {
			return
		}
	case int:
		if x == 0 {
			return
		}
	case int64:
		if x == 0 {
			return
		}
	case uint64:
		if x == 0 {
			return
		}
	case string:
		if x == "" || x == "0" || x == "0.0" || x == `""` {
			return
		}
	}
	*f = append(*f, fmt.Sprintf("%s: %v", k, val))
}

// step is the Rust expression of a value's step (a wire::S), named when
// it is a struct's field (member: its position among the type's fields).
func (e *Emitter) step(v *model.Value, name string, member int) string {
	f := stepLiteral{"op: Op::" + stepOps[v.Op]}
	if name != "" {
		f = append(f, "name: "+quote(name), "member: "+strconv.Itoa(member))
	}
	c := v.Code
	f.set("bits", c.Bits)
	f.set("short", c.Short)
	f.set("flip", c.Flip)
	f.set("limit", c.Limit)
	if v.Prefix != nil {
		f.set("bits", v.Prefix.Bits)
		f.set("len", v.Prefix.Max)
	}
	e.opStepFields(&f, v)
	if v.Key != nil {
		f = append(f, "key: Some(&"+e.step(v.Key, "", -1)+")")
	}
	if v.Elem != nil {
		f = append(f, "elem: Some(&"+e.step(v.Elem, "", -1)+")")
	}
	f.set("items", model.ItemCount(v))
	f.set("count", v.CountBits)
	f.set("work", v.Cost.Work)
	f.set("bytes", v.Cost.Bytes)
	f.set("partial", v.Cost.Partial)
	return "S { " + strings.Join(append(f, "..S0"), ", ") + " }"
}

// opStepFields adds the fields of v's step that only its op has, after
// the wire code's and before the element's (the order the tables read in).
func (e *Emitter) opStepFields(f *stepLiteral, v *model.Value) {
	switch v.Op {
	case model.OpInt:
		intStepFields(f, v)
	case model.OpCompressed:
		compressedStepFields(f, v)
	case model.OpArray:
		f.set("unrolled", v.Unrolled)
	case model.OpSlice:
		f.set("each", v.Charge.Work)
	case model.OpSparse:
		if v.Prefix == nil {
			f.set("len", v.Slots)
		}
	case model.OpStruct, model.OpFields:
		*f = append(*f, e.stepFieldList(v))
	case model.OpUnion:
		e.unionStepFields(f, v)
	case model.OpQuat:
		f.set("bits", v.Bits)
		*f = append(*f, quatComps(v))
	case model.OpCheck:
		f.set("limit", uint64(v.CheckHash))
		f.set("text", quote(v.CheckName))
	}
}

// intStepFields adds an integer's range, unit and the flags that choose
// its refusal's wording.
func intStepFields(f *stepLiteral, v *model.Value) {
	c := v.Code
	lo, hi := int128(v, int64(c.Lo)), int128(v, int64(c.Lo+c.Limit))
	f.set("lo", lo)
	f.set("hi", hi)
	f.set("unit", strconv.FormatInt(v.Unit, 10))
	f.set("clamp", v.Clamp)
	f.set("ranged", v.Ranged)
	f.set("signed", v.Signed)
	f.set("duration", v.Duration)
	f.set("counted", v.Counted)
	f.set("text", quote(v.UnitText))
}

// compressedStepFields adds a compressed float's quantization: its
// minimum as the float the value holds (a float32's rounded), its step,
// and its bounds for the refusal.
func compressedStepFields(f *stepLiteral, v *model.Value) {
	lo := v.Min
	if v.FloatBits == 32 {
		lo = float64(float32(lo))
	}
	f.set("min", float(lo))
	f.set("delta", float(model.Delta(v)))
	f.set("flo", float(v.Lo))
	f.set("fhi", float(v.Hi))
	f.set("clamp", v.Clamp)
	f.set("text", quote(model.Bounds(v)))
}

// stepFieldList is the fields field of a struct's step: a reference to
// its type's steps when it is a use of that whole type, else the steps of
// the fields it uses, in place (a type's own steps a line a field).
func (e *Emitter) stepFieldList(v *model.Value) string {
	var fs []string
	for _, u := range model.FieldUses(v) {
		fs = append(fs, e.step(u.Value, u.Member.Name, position(v.Type, u.Member)))
	}
	switch {
	case v.Fields == nil && v != v.Type.Value():
		return "fields: " + e.types[v.Type] + ".fields"
	case v == v.Type.Value() && len(fs) > 0: // a type's own steps: a line a field
		return "fields: &[\n        " + strings.Join(fs, ",\n        ") + ",\n    ]"
	default:
		return "fields: &[" + strings.Join(fs, ", ") + "]"
	}
}

// unionStepFields adds a union's members' steps and their wire indices.
func (e *Emitter) unionStepFields(f *stepLiteral, v *model.Value) {
	var ms, idx []string
	for i, mt := range v.Type.Members {
		ms = append(ms, "&"+e.types[mt])
		idx = append(idx, strconv.FormatUint(v.Type.Indices[i], 10))
	}
	f.set("bits", v.Type.IndexBits)
	*f = append(*f, "members: &["+strings.Join(ms, ", ")+"]", "indices: &["+strings.Join(idx, ", ")+"]")
	f.set("text", quote(v.Type.Go.String()))
}

// quatComps is the comps field of a quaternion's step: each component's
// path from the quaternion's type, a field's position or an index a step.
func quatComps(v *model.Value) string {
	var cs []string
	for _, steps := range v.Comps {
		var p []string
		t := v.Type
		for _, s := range steps {
			if s.Member != nil {
				p = append(p, strconv.Itoa(position(t, s.Member)))
				t = s.Member.Value.Type
			} else {
				p = append(p, strconv.Itoa(s.Index))
			}
		}
		cs = append(cs, "&["+strings.Join(p, ", ")+"]")
	}
	return "comps: [" + strings.Join(cs, ", ") + "]"
}

// position is member m's position among its type's fields.
func position(t *model.Type, m *model.Member) int {
	for i, f := range t.Fields {
		if f == m {
			return i
		}
	}
	panic("gen: no field of " + t.Name + " is " + m.Name)
}

// int128 is an integer's bound as the runtime's i128 holds it.
func int128(v *model.Value, x int64) string {
	if v.Signed {
		return strconv.FormatInt(x, 10)
	}
	return strconv.FormatUint(uint64(x), 10)
}

// float is a Rust f64 literal of x.
func float(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// The names the module gives things, for code that writes Rust against
// it.

// TypeName is the Rust name of type t.
func (e *Emitter) TypeName(t *model.Type) string { return e.types[t] }

// FieldName is the Rust name of struct field m.
func (e *Emitter) FieldName(m *model.Member) string { return e.fields[m] }

// Quote is a Rust string literal of s.
func Quote(s string) string { return quote(s) }

// quote is a Rust string literal of s.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u{%x}", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

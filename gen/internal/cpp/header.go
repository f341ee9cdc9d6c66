// Package cpp renders a model as a C++11 header for serialize (gen.CPP).
package cpp

import (
	"bytes"
	_ "embed"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// Options configures a generated header.
type Options struct {
	Namespace string // C++ namespace for everything generated; "" = none
	Include   string // the serialize header to #include; "" = "serialize.h"
}

// The runtime block every header carries, by concern, in the order it is
// printed: numbers (the block's guard and includes, integers, units,
// compressed floats), allowances (what a packet may make a read visit),
// text (strings, sparse indices, checks), framing
// (Seal and Open, and the macros of all three), quaternions and map keys,
// deltas, the snapshot stream's Receiver (which closes the guard). Each
// part but the first continues the one before: they are one block, split
// where its subjects change.
var (
	//go:embed runtime_numbers.h
	runtimeNumbers string
	//go:embed runtime_allowance.h
	runtimeAllowance string
	//go:embed runtime_text.h
	runtimeText string
	//go:embed runtime_framing.h
	runtimeFraming string
	//go:embed runtime_quat_keys.h
	runtimeQuatKeys string
	//go:embed runtime_delta.h
	runtimeDelta string
	//go:embed runtime_snapshot.h
	runtimeSnapshot string

	cppRuntime = code.Rules(runtimeNumbers + runtimeAllowance + runtimeText + runtimeFraming + runtimeQuatKeys + runtimeDelta + runtimeSnapshot)
)

// Emitter renders a model as a C++ header.
type Emitter struct {
	m         *model.Model
	opts      Options
	spaces    []string               // the namespace's parts
	typeNames map[*model.Type]string // C++ names of the model's types
	members   map[*model.Member]*cppMember
	b         bytes.Buffer
}

// cppMember is how a model member is stored in its C++ struct: its name
// and the names of its companions (counts of slices, presence flags of
// pointers), in the order the member's value meets them.
type cppMember struct {
	name  string
	comps []string
}

// New prepares the header of model m: the C++ names of its types and
// members.
func New(m *model.Model, opts Options) (*Emitter, error) {
	e := &Emitter{m: m, opts: opts, typeNames: map[*model.Type]string{}, members: map[*model.Member]*cppMember{}}
	if e.opts.Include == "" {
		e.opts.Include = "serialize.h"
	}
	if strings.ContainsAny(e.opts.Include, "\"\n") {
		return nil, fmt.Errorf("gen: Include %q: a file name cannot hold quotes or newlines", e.opts.Include)
	}
	if opts.Namespace != "" {
		for _, part := range strings.Split(opts.Namespace, "::") {
			if part == "" || model.Identifier(part) != part || cppReserved[part] {
				return nil, fmt.Errorf("gen: Namespace %q: %q is not a C++ identifier bitpack can use", opts.Namespace, part)
			}
			e.spaces = append(e.spaces, part)
		}
	}
	used := map[string]bool{}
	for _, t := range append(append(append([]*model.Type{}, m.Hooks...), m.Enums...), m.Types...) {
		n := cppIdent(t.Name)
		e.typeNames[t] = n
		used[n] = true
	}
	for _, t := range m.Types {
		if t.Kind != model.TypeStruct {
			continue
		}
		if n := e.fingerprintName(t); used[n] {
			return nil, fmt.Errorf("gen: the fingerprint constant %s of %s has the name of a type; rename one of them", n, t.Go)
		}
		e.nameMembers(t)
	}
	return e, nil
}

// nameMembers chooses the C++ names of t's members and their companions:
// Go names (adapted to C++: reserved words get an underscore), then
// Name_count for a slice's length and Name_present for a pointer's
// presence (Name_count2 and so on when one member needs several), each
// made unique in the struct.
func (e *Emitter) nameMembers(t *model.Type) {
	used := map[string]bool{}
	for _, m := range t.Fields {
		n := cppIdent(m.Name)
		for used[n] {
			n += "_"
		}
		used[n] = true
		e.members[m] = &cppMember{name: n}
	}
	for _, m := range t.Fields {
		cm := e.members[m]
		seen := map[string]int{}
		for _, kind := range companionKinds(m.Value) {
			seen[kind]++
			n := cm.name + "_" + kind
			if seen[kind] > 1 {
				n += fmt.Sprint(seen[kind])
			}
			for used[n] {
				n += "_"
			}
			used[n] = true
			cm.comps = append(cm.comps, n)
		}
	}
}

// companionKinds lists the companions a value needs, outermost first: a
// count for each slice (and []byte, and sparse slice), a presence flag for
// each pointer (and each sparse slot), a count and the keys of each map.
func companionKinds(v *model.Value) []string {
	var kinds []string
	for ; v != nil; v = v.Elem {
		switch v.Op {
		case model.OpBytes, model.OpSlice:
			kinds = append(kinds, "count")
		case model.OpPointer:
			kinds = append(kinds, "present")
		case model.OpSparse:
			if v.Prefix != nil {
				kinds = append(kinds, "count")
			}
			kinds = append(kinds, "present")
		case model.OpMap:
			kinds = append(kinds, "count", "keys")
		}
	}
	return kinds
}

func (e *Emitter) printf(format string, args ...any) { fmt.Fprintf(&e.b, format, args...) }

// File renders the whole header.
func (e *Emitter) File() []byte {
	e.preamble()
	e.printf("#include \"%s\"\n\n", e.opts.Include)
	e.b.WriteString(cppRuntime)
	e.printf("\n")
	for _, s := range e.spaces {
		e.printf("namespace %s\n{\n", s)
	}
	if len(e.spaces) > 0 {
		e.printf("\n")
	}
	for _, t := range e.m.Hooks {
		e.printf("struct %s; // yours: define it before including this header (see above)\n\n", e.typeNames[t])
	}
	for _, t := range e.m.Enums {
		e.enumType(t)
	}
	for _, t := range e.m.Types {
		switch t.Kind {
		case model.TypeStruct:
			e.structType(t)
		case model.TypeUnion:
			e.unionType(t)
		}
	}
	for i := len(e.spaces) - 1; i >= 0; i-- {
		e.printf("} // namespace %s\n", e.spaces[i])
	}
	if len(e.spaces) > 0 {
		e.printf("\n")
	}
	e.printf("#endif // %s\n", e.guard())
	return e.b.Bytes()
}

// guard is the include guard: a hash of the namespace, the root types and
// their fingerprints, so headers generated from other types can be
// included side by side.
func (e *Emitter) guard() string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s;", e.opts.Namespace)
	for _, t := range e.m.Roots {
		fmt.Fprintf(h, "%s %08x;", t.Go, t.Fingerprint)
	}
	return fmt.Sprintf("BITPACK_GENERATED_%08X_H", h.Sum32())
}

func (e *Emitter) preamble() {
	e.printf("%s", code.Preamble("C++11 serialize functions for these Go types, generated from the plans\nbitpack compiles for them (github.com/bitpack-go/bitpack/gen):", e.m.Roots))
	e.printf(`//
// Each struct's Serialize reads and writes exactly bitpack's bytes. Read a
// packet with bitpack::read_packet(stream, packet_bytes, value): it refuses
// every packet bitpack.Unmarshal refuses, trailing whole bytes and what the
// packet claims past bitpack's decoder allowances included (see
// bitpack::Allowance: a read of your own must open one). A refused read
// leaves the value partly overwritten: read into a scratch value. A write
// refuses every value bitpack.Marshal refuses (out of range, too long,
// invalid UTF-8, NaN), where serialize's macros would assert or clamp.
//
// Every container is a fixed-size array (a string is char[maxlen + 1], a
// slice a count and an array of maxlen, a pointer a presence flag and the
// value), so no packet can make this code allocate or recurse; a read
// charges what the packet claims to loop over as Go's decoder charges it.
//
// Mix a type's fingerprint constant into the protocol id exactly as the Go
// side does (bitpack.Seal(dst, appID^fp, payload)); bitpack::seal and
// bitpack::open are Seal and Open. Float arithmetic is pinned as in Go (no
// fused multiply-add, whatever the flags); -ffast-math is not supported.
//
// Each struct's SerializeDelta(stream, base) writes its delta against base
// (bitpack.AppendDelta's bytes) or reads one, making the value base with
// the delta's changes (bitpack::read_delta checks a whole delta packet). A
// read refuses what bitpack.UnmarshalDelta refuses; like a refused
// Serialize, a refused delta leaves the value partly written, and reading
// into base itself is refused.
//
// bitpack::Receiver<T, History> reads a Go snapshot.Sender's stream (see
// the class): a refused packet changes nothing, and result() says why.
`)
	if e.m.ZeroTimes() {
		e.printf(`//
// A time member whose tag holds Go's zero time.Time (year 1) as a count
// other than 0 starts at that count (its default member initializer), so
// that a value-initialised struct (T(), T{}) is Go's zero value, the base
// a snapshot stream starts from; memset would make it 1970 instead.
`)
	}
	if len(e.m.Hooks) > 0 {
		e.printf("%s", code.HookList("generator can translate. Define each, with a member\n"+
			"template <typename Stream> bool Serialize(Stream & stream) that reads and\n"+
			"writes the same bits, before including this header"+e.inNamespace()+":", e.m.Hooks, e.typeNames))
		e.printf("//\n// A hook that reads a generated type itself charges it as bitpack.Decode\n")
		e.printf("// would in Go: bitpack::charge_root( value ) before its Serialize.\n")
	}
	e.printf("\n#ifndef %s\n#define %s\n\n", e.guard(), e.guard())
}

func (e *Emitter) inNamespace() string {
	if len(e.spaces) == 0 {
		return ""
	}
	return ", in namespace " + strings.Join(e.spaces, "::")
}

// typeRef names type t inside a struct whose members are named members:
// qualified from the global namespace when a member has the type's name
// (C++ forbids a member to change the meaning of a name its class uses).
func (e *Emitter) typeRef(t *model.Type, members map[string]bool) string {
	n := e.typeNames[t]
	if !members[n] {
		return n
	}
	q := "::"
	for _, s := range e.spaces {
		q += s + "::"
	}
	return q + n
}

// qualified names type t from the global namespace, as a member
// function's body names an enum (a member of the struct may have its name).
func (e *Emitter) qualified(t *model.Type) string {
	return e.typeRef(t, map[string]bool{e.typeNames[t]: true})
}

// enumType renders a Go named integer type with constants as an enum
// class of the same underlying type whose members carry Go's values. A
// field of it may hold a value no member names (a cast of any value its
// tags allow), which is read and written as any other, as Go does.
func (e *Emitter) enumType(t *model.Type) {
	e.printf("// %s is Go's %s (%s), by its constants. A field of it may hold a value no\n", e.typeNames[t], t.Go, t.Go.Kind())
	e.printf("// member names (static_cast<%s>( 7 )): it is read and written as it is.\n", e.typeNames[t])
	e.printf("enum class %s : %s\n{\n", e.typeNames[t], intType(t.Signed, t.GoBits))
	for _, c := range t.Constants {
		v := cppUint(c.Uint)
		if t.Signed {
			v = cppInt(c.Int)
		}
		e.printf("    %s = %s,\n", cppIdent(c.Name), v)
	}
	e.printf("};\n\n")
}

func (e *Emitter) fingerprintName(t *model.Type) string { return e.typeNames[t] + "_fingerprint" }

// structType renders a struct type: its fields, its Serialize, its
// fingerprint constant.
func (e *Emitter) structType(t *model.Type) {
	names := map[string]bool{}
	for _, m := range t.Fields {
		names[e.members[m].name] = true
		for _, c := range e.members[m].comps {
			names[c] = true
		}
	}
	size := fmt.Sprintf("%d to %d bits", t.MinBits, t.MaxBits)
	switch {
	case t.MaxBits < 0:
		size = fmt.Sprintf("%d bits or more", t.MinBits)
	case t.MinBits == t.MaxBits:
		size = fmt.Sprintf("%d bits", t.MinBits)
	}
	e.printf("// %s is Go's %s: %s.\n", e.typeNames[t], t.Go, size)
	e.printf("struct %s\n{\n", e.typeNames[t])
	for _, m := range t.Fields {
		e.declare(m, names)
	}
	if len(t.Fields) > 0 {
		e.printf("\n")
	}
	body := &cppBody{indent: 2}
	for _, m := range t.Fields {
		cm := e.members[m]
		e.step(body, m.Value, place{name: cm.name, comps: cm.comps})
	}
	e.serializeFunc(body)
	e.printf("\n    // bp_work is the values a read of a whole %s visits, its variable\n", e.typeNames[t])
	e.printf("    // parts aside: what bitpack::read_packet charges first (see Allowance).\n")
	e.printf("    static int64_t bp_work() { return %s; }\n", cppInt(t.Charge.Work))
	e.copyFrom(t)
	e.structDelta(t)
	e.printf("};\n\n")
	e.printf("const uint32_t %s = %#08xu; // bitpack.Fingerprint(%s)\n\n", e.fingerprintName(t), t.Fingerprint, t.Go)
}

// serializeFunc renders the Serialize member function around body.
func (e *Emitter) serializeFunc(body *cppBody) {
	e.printf("    template <typename Stream> bool Serialize( Stream & stream )\n    {\n")
	if body.b.Len() == 0 {
		e.printf("        (void) stream;\n")
	}
	e.b.WriteString(body.b.String())
	e.printf("        return true;\n    }\n")
}

// unionType renders a registered interface type: the type index, a
// member of each member type, and a Serialize that sends the one the
// index names.
func (e *Emitter) unionType(t *model.Type) {
	names := map[string]bool{"type": true}
	for _, mt := range t.Members {
		names[e.typeNames[mt]] = true
	}
	types := "types"
	if len(t.Members) == 1 {
		types = "type"
	}
	e.printf("// %s is Go's interface %s, a union of %d %s: the type index in %d bits, then the member.\n",
		e.typeNames[t], t.Go, len(t.Members), types, t.IndexBits)
	e.printf("struct %s\n{\n", e.typeNames[t])
	var which []string
	for i, mt := range t.Members {
		which = append(which, fmt.Sprintf("%d %s", t.Indices[i], e.typeNames[mt]))
	}
	e.printf("    uint32_t type; // the member the value holds, by its type index: %s\n", strings.Join(which, ", "))
	for _, mt := range t.Members {
		e.printf("    %s %s;\n", e.typeRef(mt, names), e.typeNames[mt])
	}
	e.printf("\n")
	body := &cppBody{indent: 2}
	e.unionIndex(body, t)
	body.line("switch ( type )")
	body.line("{")
	for i, mt := range t.Members {
		body.line("case %d:", t.Indices[i])
		body.indent++
		chargeValue(body, mt.Charge)
		body.line("serialize_object( stream, %s );", e.typeNames[mt])
		body.line("break;")
		body.indent--
	}
	body.line("default: return false;")
	body.line("}")
	e.serializeFunc(body)
	e.unionCopyFrom(t)
	e.unionDelta(t)
	e.printf("};\n\n")
}

// The names the header gives things, for code that writes C++ against it.

// TypeName is the C++ name of type t.
func (e *Emitter) TypeName(t *model.Type) string { return e.typeNames[t] }

// Member is the C++ name of member m and the names of its companions
// (counts, presence flags, map keys), outermost first.
func (e *Emitter) Member(m *model.Member) (name string, companions []string) {
	cm := e.members[m]
	return cm.name, cm.comps
}

// QuatComp is the C++ expression of a quaternion component's place within
// its holder: .X, .V.Y, [3].
func (e *Emitter) QuatComp(steps []model.QuatStep) string { return e.quatComp(steps) }

// IntLiteral and UintLiteral are C++ literals of v that keep their value
// in any integer context.
func IntLiteral(v int64) string   { return cppInt(v) }
func UintLiteral(v uint64) string { return cppUint(v) }

// Package csharp renders a model as one self-contained C# file
// (gen.CSharp).
package csharp

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/internal/snapwire"
)

// The runtime every C# file carries, in parts; quote.cs only where
// maps have string keys, time.cs where values are times.
var (
	//go:embed reader.cs
	csReader string
	//go:embed allowance.cs
	csAllowance string
	//go:embed writer.cs
	csWriter string
	//go:embed bitpack.cs
	csBitpack string
	//go:embed format.cs
	csFormat string
	//go:embed quat.cs
	csQuat string
	//go:embed quote.cs
	csQuote string
	//go:embed time.cs
	csTime string
	//go:embed delta.cs
	csDelta string
	//go:embed snapshot.cs
	csSnapshot string

	csRuntime = code.Rules(csReader + csAllowance + csWriter + csBitpack + csFormat + csQuat + csDelta + snapshotRuntime())
)

// snapshotRuntime is snapshot.cs with package snapshot's words
// (internal/snapwire) filled in as the constants of
// BitpackReceiverState.Words, and the texts of the sentinels its refusals
// wrap.
func snapshotRuntime() string {
	var b strings.Builder
	for _, w := range snapwire.Words {
		fmt.Fprintf(&b, "        internal const string %s = %s;\n", w.Name, code.Quote(w.Format))
	}
	for _, s := range []struct{ kind, text string }{
		{"Overflow", bitpack.ErrOverflow.Error()}, {"Range", bitpack.ErrRange.Error()}, {"NoBase", snapwire.NoBase},
	} {
		fmt.Fprintf(&b, "        internal const string %s = %s; // the sentinel's text\n", s.kind, code.Quote(s.text))
	}
	return strings.Replace(csSnapshot, "{{SNAPSHOT_WORDS}}\n", b.String(), 1)
}

// Emitter renders a model as a C# file.
type Emitter struct {
	m         *model.Model
	namespace string
	typeNames map[*model.Type]string
	members   map[*model.Member]string
	unionsOf  map[*model.Type][]*model.Type // a struct type's unions, for its interface list
	// valueStructs are the struct types rendered as C# structs
	// (valuestruct.go).
	valueStructs map[*model.Type]bool
	b            bytes.Buffer
	consts       []string          // the class being rendered: its private constants
	constName    map[string]string // and their names by declaration
}

// New prepares the C# file of model m, in namespace ("" = the global
// namespace): the C# names of its types and members.
func New(m *model.Model, namespace string) (*Emitter, error) {
	e := &Emitter{m: m, namespace: namespace, typeNames: map[*model.Type]string{}, members: map[*model.Member]string{}, unionsOf: map[*model.Type][]*model.Type{}}
	if namespace != "" {
		for _, part := range strings.Split(namespace, ".") {
			if part == "" || model.Identifier(part) != part || csKeywords[part] {
				return nil, fmt.Errorf("gen: Namespace %q: %q is not a C# identifier bitpack can use", namespace, part)
			}
		}
	}
	for _, t := range append(append(append([]*model.Type{}, m.Hooks...), m.Enums...), m.Types...) {
		e.typeNames[t] = csIdent(t.Name)
	}
	for _, t := range m.Types {
		switch t.Kind {
		case model.TypeStruct:
			e.nameMembers(t)
		case model.TypeUnion:
			for _, mt := range t.Members {
				e.unionsOf[mt] = append(e.unionsOf[mt], t)
			}
		}
	}
	e.valueStructs = findValueStructs(m, e.unionsOf)
	return e, nil
}

// nameMembers chooses the C# names of t's fields: Go's, with an
// underscore after a C# keyword, a name the generated class uses itself
// (TryRead, Fingerprint, ...), or the class's own name (C# forbids it).
func (e *Emitter) nameMembers(t *model.Type) {
	used := map[string]bool{e.typeNames[t]: true}
	for n := range csMemberNames {
		used[n] = true
	}
	for _, m := range t.Fields {
		n := csIdent(m.Name)
		for used[n] {
			n += "_"
		}
		used[n] = true
		e.members[m] = n
	}
}

func (e *Emitter) printf(format string, args ...any) { fmt.Fprintf(&e.b, format, args...) }

// File renders the whole file.
func (e *Emitter) File() []byte {
	e.preamble()
	indent := ""
	if e.namespace != "" {
		e.printf("namespace %s\n{\n", e.namespace)
		indent = "    "
	}
	var src bytes.Buffer
	src.WriteString(csRuntime)
	if e.m.StringKeys() {
		src.WriteString(strings.Replace(csQuote, "{{PRINTABLE}}", code.PrintableRanges(), 1))
	}
	if e.m.Times() {
		src.WriteString(code.Rules(csTime))
	}
	src.WriteString(code.RuntimeEnd + "\n")
	for _, t := range e.m.Hooks {
		e.hookType(&src, t)
	}
	for _, t := range e.m.Enums {
		e.enumType(&src, t)
	}
	for _, t := range e.m.Types {
		switch t.Kind {
		case model.TypeStruct:
			src.Write(e.structType(t))
		case model.TypeUnion:
			e.unionType(&src, t)
		}
	}
	for _, t := range e.m.Roots {
		e.receiverType(&src, t)
	}
	text := strings.TrimSuffix(src.String(), "\n")
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			e.printf("\n")
			continue
		}
		e.printf("%s%s\n", indent, line)
	}
	if e.namespace != "" {
		e.printf("}\n")
	}
	return e.b.Bytes()
}

func (e *Emitter) preamble() {
	e.printf("%s", code.Preamble("C# (7.2) readers and writers for these Go types, generated from the plans\nbitpack compiles for them (github.com/bitpack-go/bitpack/gen):", e.m.Roots))
	e.printf(`//
// T.TryRead reads a whole packet exactly as bitpack.Unmarshal does and
// refuses every packet it refuses (trailing whole bytes included), with an
// error naming the field and bit; T.TryWrite writes bitpack.Marshal's bytes
// and refuses every value it refuses but one: a value its packet could not
// pay for (Marshal applies its decoder's allowances; TryWrite does not). No
// allocation on the read path but the values themselves. A read charges
// what the packet brings against bitpack's decoder allowances (its work and
// allocation limits, with the Go decoder's numbers), before it allocates or
// loops, so it refuses what bitpack refuses for claiming more than its bits
// pay for.
//
// T.TryReadDelta applies a delta (bitpack.AppendDelta's bytes) to a base
// this client decoded, as bitpack.UnmarshalDelta does, into a new value
// or one you own (the base is never changed); T.TryWriteDelta writes
// AppendDelta's bytes. TReceiver, for each root type, reads a Go
// snapshot.Sender's stream as snapshot.Receiver does. Reads and writes
// over (byte[], offset, count) and ArraySegment<byte>, into your values
// and buffers, allocate nothing once the values' shapes are stable.
// Types of fixed-width fields only are structs where that is safe.
//
// Mix a type's Fingerprint into the protocol id exactly as the Go side does
// (bitpack.Seal(dst, appID^fp, payload)); Bitpack.Seal and Bitpack.Open are
// Seal and Open. Float arithmetic is pinned as in Go: every step is rounded
// to float, so runtimes that keep float in double precision (mono
// -O=-float32) give the same bytes. Raw float fields keep every bit pattern
// but NaN payloads: some runtimes quiet a signalling NaN.
`)
	e.printf("%s", code.HookList("generator can translate: each is declared here as a partial class, and\n"+
		"yours completes it, in the same namespace, with\n"+
		"  public static bool Read(ref BitpackReader r, out T value)\n"+
		"  public bool WriteTo(ref BitpackWriter w)\n"+
		"reading and writing the same bits as its Go methods:", e.m.Hooks, e.typeNames))
	e.printf("\n")
}

func (e *Emitter) hookType(b *bytes.Buffer, t *model.Type) {
	fmt.Fprintf(b, "/// <summary>Go's %s, which encodes itself: complete this partial class (see the top of the file).</summary>\n", t.Go)
	fmt.Fprintf(b, "public sealed partial class %s\n{\n}\n\n", e.typeNames[t])
}

// enumType renders a Go named integer type with constants as a C# enum of
// the same underlying type, its members Go's constants. A field of it may
// hold a value no member names (a cast of any value the tags allow), which
// is read and written as any other, as Go does.
func (e *Emitter) enumType(b *bytes.Buffer, t *model.Type) {
	fmt.Fprintf(b, "/// <summary>Go's %s (%s), by its constants. A value the wire carries may be one no member names: it is read and written as it is.</summary>\n", t.Go, t.Go.Kind())
	fmt.Fprintf(b, "public enum %s : %s\n{\n", e.typeNames[t], csIntType(t.Signed, t.GoBits))
	for _, c := range t.Constants {
		v := csUlong(c.Uint)
		if t.Signed {
			v = csLong(c.Int)
		}
		fmt.Fprintf(b, "    %s = %s,\n", csIdent(c.Name), strings.TrimSuffix(v, "UL"))
	}
	fmt.Fprintf(b, "}\n\n")
	// A map's keys are sorted without allocating (Bitpack.SortKeys), by a
	// comparer struct: an enum has no IComparable<T> to sort by.
	fmt.Fprintf(b, "public static partial class Bitpack\n{\n")
	fmt.Fprintf(b, "    /// <summary>Orders %[1]s's values as numbers (a map's keys), without boxing.</summary>\n", e.typeNames[t])
	fmt.Fprintf(b, "    internal struct %[1]s : global::System.Collections.Generic.IComparer<%[2]s>\n    {\n", enumOrder(e.typeNames[t]), e.typeNames[t])
	fmt.Fprintf(b, "        public int Compare(%[1]s a, %[1]s b) { return ((%[2]s)a).CompareTo((%[2]s)b); }\n    }\n}\n\n", e.typeNames[t], csIntType(t.Signed, t.GoBits))
}

// enumOrder names the comparer of enum n's values, in class Bitpack (no
// name of the runtime's starts with Order_).
func enumOrder(n string) string { return "Order_" + n }

// unionType renders a registered interface as a C# interface its member
// classes implement.
func (e *Emitter) unionType(b *bytes.Buffer, t *model.Type) {
	var names []string
	for _, mt := range t.Members {
		names = append(names, e.typeNames[mt])
	}
	fmt.Fprintf(b, "/// <summary>Go's interface %s, a union of %s: the type index in %d bits, then the member.</summary>\n",
		t.Go, strings.Join(names, ", "), t.IndexBits)
	fmt.Fprintf(b, "public interface %s\n{\n}\n\n", e.typeNames[t])
}

// structType renders a struct type as a class.
func (e *Emitter) structType(t *model.Type) []byte {
	name := e.typeNames[t]
	e.consts, e.constName = nil, map[string]string{}
	read := e.readFunc(t)
	write := e.writeFunc(t)
	if e.valueStructs[t] {
		return e.valueStructType(t, read, write, e.valueDeltaMethods(t))
	}
	delta := e.deltaMethods(t) // before the constants are declared: it declares some
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("/// <summary>Go's %s: %s.</summary>\n", t.Go, model.SizeText(t))
	p("public sealed class %s", name)
	if us := e.unionsOf[t]; len(us) > 0 {
		var names []string
		for _, u := range us {
			names = append(names, e.typeNames[u])
		}
		p(" : %s", strings.Join(names, ", "))
	}
	p("\n{\n")
	p("    /// <summary>bitpack.Fingerprint(%s): mix it into the protocol id as the Go side does.</summary>\n", t.Go)
	p("    public const uint Fingerprint = %#08xu;\n\n", t.Fingerprint)
	for _, m := range t.Fields {
		if m.Value.Op == model.OpCheck {
			p("    // %s: %s (nothing stored)\n", e.members[m], m.Value.Encoding)
			continue
		}
		p("    public %s %s; // %s\n", e.csType(m.Value), e.members[m], model.FieldComment(m.Value))
	}
	if len(t.Fields) > 0 {
		p("\n")
	}
	ctor := &body{indent: 2}
	for _, m := range t.Fields {
		e.initValue(ctor, m.Value, "this."+e.members[m])
	}
	p("    /// <summary>A value as Go's zero value is: empty strings and slices, arrays of their length.</summary>\n")
	p("    public %s()\n    {\n%s    }\n\n", name, ctor.b.String())
	for _, c := range e.consts {
		p("    %s\n", c)
	}
	if len(e.consts) > 0 {
		p("\n")
	}
	goName := code.Quote(t.Go.String())
	p(`    /// <summary>
    /// Reads a whole packet as bitpack.Unmarshal does: false, with bitpack's
    /// error, for every packet it refuses (whole bytes after the value too).
    /// </summary>
    public static bool TryRead(byte[] packet, out %[1]s value, out string error)
    {
        BitpackReader r = new BitpackReader(packet);
        %[1]s v;
        if (!Read(ref r, out v) || !r.Finish())
        {
            value = null;
            error = r.Error(%[2]s);
            return false;
        }
        value = v;
        error = null;
        return true;
    }

%[3]s    /// <summary>
    /// Reads one value from r, leaving r after it (no check for what
    /// follows), as bitpack.Decode does: the value's own %[4]d values are
    /// charged to r's allowances first.
    /// </summary>
    public static bool Read(ref BitpackReader r, out %[1]s value)
    {
        value = null;
        if (!r.ChargeRoot(%[4]d))
            return false;
        value = new %[1]s();
        if (value.ReadFrom(ref r))
            return true;
        value = null;
        return false;
    }

`, name, goName, tryWrite(t), t.Charge.Work)
	b.Write(read)
	b.Write(write)
	b.Write(delta)
	b.WriteString(e.copyMethod(t))
	b.WriteString(e.ownedMethods(t))
	p("}\n\n")
	return b.Bytes()
}

// tryWrite is a type's TryWrite, the same in a class and a struct:
// bitpack.Marshal's packet or its error, from a writer of the type's
// initial capacity.
func tryWrite(t *model.Type) string {
	return fmt.Sprintf(`    /// <summary>Writes the packet bitpack.Marshal writes: false, with its error, for every value it refuses.</summary>
    public bool TryWrite(out byte[] packet, out string error)
    {
        BitpackWriter w = new BitpackWriter(%d);
        if (!WriteTo(ref w))
        {
            packet = null;
            error = w.Error(%s);
            return false;
        }
        packet = w.ToArray();
        error = null;
        return true;
    }

`, initialCapacity(t), code.Quote(t.Go.String()))
}

// initialCapacity is the writer's first buffer: the largest packet when
// that is small, else a start it grows from.
func initialCapacity(t *model.Type) int {
	if t.MaxBits >= 0 && t.MaxBits <= 8*1024 {
		return max((t.MaxBits+7)/8, 8)
	}
	return 256
}

func (e *Emitter) readFunc(t *model.Type) []byte {
	c := &body{indent: 2, temps: make([]bool, csTempCount)}
	for _, m := range t.Fields {
		e.read(c, m.Value, "this."+e.members[m], nil)
	}
	var b bytes.Buffer
	b.WriteString("    /// <summary>Reads this value's fields from r (a value its constructor made, or an earlier read left), charging what they bring but not the value's own values (Read does).</summary>\n")
	b.WriteString("    public bool ReadFrom(ref BitpackReader r)\n    {\n")
	b.WriteString(csTempDecls(c))
	b.WriteString(c.b.String())
	b.WriteString("        return true;\n    }\n\n")
	return b.Bytes()
}

func (e *Emitter) writeFunc(t *model.Type) []byte {
	c := &body{indent: 2}
	for _, m := range t.Fields {
		e.write(c, m.Value, "this."+e.members[m], nil)
	}
	var b bytes.Buffer
	b.WriteString("    /// <summary>Writes this value to w.</summary>\n")
	b.WriteString("    public bool WriteTo(ref BitpackWriter w)\n    {\n")
	b.WriteString(c.b.String())
	b.WriteString("        return true;\n    }\n")
	return b.Bytes()
}

// csKeywords are C#'s keywords; csRuntimeNames the names the runtime
// declares; a Go name among either gets an underscore.
var csKeywords, csRuntimeNames, csMemberNames = map[string]bool{}, map[string]bool{}, map[string]bool{}

func init() {
	for _, w := range strings.Fields(`abstract as base bool break byte case catch char checked class const continue
		decimal default delegate do double else enum event explicit extern false finally fixed float for foreach
		goto if implicit in int interface internal is lock long namespace new null object operator out override
		params private protected public readonly ref return sbyte sealed short sizeof stackalloc static string
		struct switch this throw true try typeof uint ulong unchecked unsafe ushort using virtual void volatile
		while var dynamic async await nameof when yield value global partial where get set add remove`) {
		csKeywords[w] = true
	}
	for _, w := range strings.Fields(`Bitpack BitpackReader BitpackWriter BitpackBox BitpackErrorKind BitpackSnapshotHeader BitpackReceiverState System r w v`) {
		csRuntimeNames[w] = true
	}
	for _, w := range strings.Fields(`Fingerprint TryRead TryWrite Read ReadFrom WriteTo Equals GetHashCode
		ToString GetType MemberwiseClone Finalize ReferenceEquals TryReadDelta TryWriteDelta ReadDelta WriteDelta
		ReadDeltaBody WriteDeltaBody ReadDeltaItems WriteDeltaItems Clone CopyFrom`) {
		csMemberNames[w] = true
	}
}

// csIdent adapts a model name to C#.
func csIdent(n string) string {
	if csKeywords[n] || csRuntimeNames[n] || code.IsLoopName(n) || isTempName(n) || strings.HasPrefix(n, "bp_") {
		return n + "_"
	}
	return n
}

// isTempName reports whether n is shaped like a local the generated
// code declares (t0, n0, e0, k0, ...): types so named get an underscore.
func isTempName(n string) bool {
	if len(n) < 2 || !strings.ContainsRune("tnekmsxuqyd", rune(n[0])) {
		return false
	}
	for _, r := range n[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// The names the file gives things, for code that writes C# against it.

// TypeName is the C# name of type t.
func (e *Emitter) TypeName(t *model.Type) string { return e.typeNames[t] }

// MemberName is the C# name of member m.
func (e *Emitter) MemberName(m *model.Member) string { return e.members[m] }

// Type is the C# type of a value, and Optional the type of one that may
// be absent (a pointer's or a sparse slot's).
func (e *Emitter) Type(v *model.Value) string     { return e.csType(v) }
func (e *Emitter) Optional(v *model.Value) string { return e.optional(v) }

// Package typescript renders a model as one self-contained TypeScript
// module (gen.TypeScript).
package typescript

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

// The runtime every TypeScript module carries, in parts; quote.ts only
// where maps have string keys, time.ts where values are times.
var (
	//go:embed common.ts
	tsCommon string
	//go:embed format.ts
	tsFormat string
	//go:embed quat.ts
	tsQuat string
	//go:embed reader.ts
	tsReader string
	//go:embed writer.ts
	tsWriter string
	//go:embed quote.ts
	tsQuote string
	//go:embed time.ts
	tsTime string
	//go:embed delta.ts
	tsDelta string
	//go:embed snapshot.ts
	tsSnapshot string

	tsRuntime = code.Rules(tsCommon + tsFormat + tsQuat + tsReader + tsWriter + tsDelta + snapshotRuntime())
)

// snapshotRuntime is snapshot.ts with snapshot's header rules and words
// (internal/snapwire) filled in, and the texts of the sentinels its
// refusals wrap.
func snapshotRuntime() string {
	var b strings.Builder
	b.WriteString("{\n")
	for _, w := range snapwire.Words {
		fmt.Fprintf(&b, "  %s: %s,\n", w.Name, code.Quote(w.Format))
	}
	for _, s := range []struct{ kind, text string }{
		{"Overflow", bitpack.ErrOverflow.Error()}, {"Range", bitpack.ErrRange.Error()}, {"NoBase", snapwire.NoBase},
	} {
		fmt.Fprintf(&b, "  %s: %s, // the sentinel's text\n", s.kind, code.Quote(s.text))
	}
	b.WriteString("}")
	constants := fmt.Sprintf(`const snapshotShortHeader = %d;
const snapshotLongHeader = %d;
const snapshotZeroHeader = %d;
const snapshotMaxShort = %d;
const snapshotMinHistory = %d;
const snapshotMaxHistory = %d;
const snapshotMinPacket = %d;
const snapshotDefaultHistory = %d;
const snapshotLeftStreams = %d;
const snapshotNoAck = %d;
const snapshotSeqHalf = %d;`, snapwire.ShortHeader, snapwire.LongHeader, snapwire.ZeroHeader, snapwire.MaxShort,
		snapwire.MinHistory, snapwire.MaxHistory, snapwire.MinPacket, snapwire.DefaultHistory, snapwire.LeftStreams,
		snapwire.NoAck, snapwire.SeqHalf)
	return strings.NewReplacer("{{SNAPSHOT_WORDS}}", b.String(), "{{SNAPSHOT_CONSTANTS}}", constants).Replace(tsSnapshot)
}

// Emitter renders a model as a TypeScript module.
type Emitter struct {
	m         *model.Model
	typeNames map[*model.Type]string
	b         bytes.Buffer
}

// New prepares the module of model m: the TypeScript names of its types,
// refusing names that collide.
func New(m *model.Model) (*Emitter, error) {
	e := &Emitter{m: m, typeNames: map[*model.Type]string{}}
	exported := map[string]*model.Type{}
	for _, t := range append(append(append([]*model.Type{}, m.Hooks...), m.Enums...), m.Types...) {
		n := tsIdent(t.Name)
		e.typeNames[t] = n
		exported[n] = t
	}
	// The functions and constants each type exports must not take the
	// name of another type (or of another type's functions).
	for _, t := range m.Types {
		if t.Kind != model.TypeStruct {
			continue
		}
		for _, n := range e.exports(t)[1:] {
			if o, ok := exported[n]; ok {
				return nil, fmt.Errorf("gen: %s, which TypeScript declares for %s, is also the name of %s; rename one of them", n, t.Go, o.Go)
			}
			if tsReserved[n] {
				return nil, fmt.Errorf("gen: %s, which TypeScript declares for %s, is a name the module's runtime declares; rename %s", n, t.Go, t.Go)
			}
			exported[n] = t
		}
	}
	return e, nil
}

// exports are the names a struct type's part of the module declares: what
// it exports (the receiver for a root type that has one), then its own.
func (e *Emitter) exports(t *model.Type) []string {
	n := e.typeNames[t]
	names := []string{n, n + "Fingerprint", "new" + n, "read" + n, "write" + n, "read" + n + "From", "read" + n + "Fields", "write" + n + "To",
		"clone" + n, "copy" + n, "read" + n + "Delta", "write" + n + "Delta", "read" + n + "DeltaFrom", "write" + n + "DeltaTo",
		"read" + n + "DeltaItems", "write" + n + "DeltaItems"}
	if e.receives(t) {
		names = append(names, n+"Receiver")
	}
	return names
}

// receives reports whether root type t gets a receiver of snapshot
// streams: whether package snapshot takes it (its zero value encodes).
func (e *Emitter) receives(t *model.Type) bool {
	for _, r := range e.m.Roots {
		if r == t {
			return t.ZeroEncodes()
		}
	}
	return false
}

func (e *Emitter) printf(format string, args ...any) { fmt.Fprintf(&e.b, format, args...) }

// File renders the whole module.
func (e *Emitter) File() []byte {
	e.preamble()
	e.b.WriteString(tsRuntime)
	if e.m.StringKeys() {
		e.b.WriteString(strings.Replace(tsQuote, "{{PRINTABLE}}", code.PrintableRanges(), 1))
	}
	if e.m.Times() {
		e.b.WriteString(code.Rules(tsTime))
	}
	e.printf("%s\n", code.RuntimeEnd)
	if len(e.m.Hooks) > 0 {
		e.hooks()
	}
	for _, t := range e.m.Enums {
		e.enumType(t)
	}
	for _, t := range e.m.Types {
		switch t.Kind {
		case model.TypeStruct:
			e.structType(t)
			e.deltaStruct(t)
		case model.TypeUnion:
			e.unionType(t)
			e.deltaUnion(t)
		}
	}
	for _, t := range e.m.Roots {
		if e.receives(t) {
			e.receiver(t)
		}
	}
	return e.b.Bytes()
}

// receiver renders TReceiver, the runtime's BitpackReceiver of root type
// t's snapshot streams.
func (e *Emitter) receiver(t *model.Type) {
	e.printf(`/**
 * Reads the packets of a Go snapshot.Sender[%[2]s] exactly as
 * snapshot.Receiver[%[2]s] does: read(packet) returns the packet's sequence
 * and view, or throws BitpackError; ack is what to acknowledge. history
 * must be the Sender's (omitted or 0: Go's default). The view is the
 * receiver's, valid until its history evicts it: see BitpackReceiver.
 */
export class %[1]sReceiver extends BitpackReceiver<%[1]s> {
  constructor(history?: number) {
    super({ name: %[3]s, zero: new%[1]s, readDelta: read%[1]sDeltaFrom }, history);
  }
}

`, e.typeNames[t], t.Go, code.Quote(t.Go.String()))
}

func (e *Emitter) preamble() {
	e.printf("%s", code.Preamble("TypeScript (ES2020) readers and writers for these Go types, generated\nfrom the plans bitpack compiles for them (github.com/bitpack-go/bitpack/gen):", e.m.Roots))
	e.printf(`//
// readT reads a whole packet exactly as bitpack.Unmarshal does and throws a
// BitpackError (field path and bit as bitpack's) for every packet it refuses,
// trailing whole bytes included; writeT writes bitpack.Marshal's bytes and
// throws for every value it refuses but one: a value its packet could not pay
// for (Marshal applies its decoder's allowances; writeT does not). A read
// charges what the packet brings against bitpack's decoder allowances (its
// work and allocation limits, with the Go decoder's numbers), before it
// allocates or loops, so it refuses what bitpack refuses for claiming more
// than its bits pay for.
//
// Integers of up to 32 bits are numbers, 64-bit ones bigint; a Go named
// integer type with constants is a union of its values (an as-const object
// names them as Go does), and a time.Duration with unit=U is its count of
// U, as the wire carries it (a number, a bigint where the count's range
// passes 2^53). float32 fields are rounded to float32 when written (as
// storing them in Go would), and float32 arithmetic goes through
// Math.fround at every step, as bitpack pins it. Raw float fields keep
// every bit pattern (-0, denormals, infinities) but NaN payloads: a
// JavaScript number may turn a signalling NaN quiet.
// Strings are UTF-8 exactly as Go sees them (a leading U+FEFF is kept).
//
// readTDelta(packet, base) applies a delta as bitpack.UnmarshalDelta does, to a
// copy of base (cloneT), which it returns; base is never changed, and a
// refused delta throws before anything is returned. writeTDelta(base, value)
// writes bitpack.AppendDelta's bytes. readTDeltaFrom(r, base, into) and
// writeTDeltaTo(w, base, value) read and write a delta where a stream is (after
// a header of your own, say); copyT(src, dst) copies a value into another,
// reusing its objects.
//
// TReceiver (for each root type whose zero value bitpack encodes) reads the
// packets of a Go snapshot.Sender[T] as snapshot.Receiver[T] does: new
// TReceiver(history), read(packet) -> { seq, value }, ack, reset(). The value
// is the receiver's and stays valid until its history evicts it (see
// BitpackReceiver).
//
// writeT, writeTDelta and seal return BitpackBytes: a Uint8Array over an
// ArrayBuffer of its own, which WebSocket.send, fetch and Blob take.
//
// Mix a type's fingerprint into the protocol id exactly as the Go side does
// (bitpack.Seal(dst, appID^fp, payload)): seal and open are Seal and Open.
`)
	e.printf("%s", code.HookList("generator can translate: set hooks.T to a Hook<T> reading and writing the\n"+
		"same bits before reading or writing a type that holds one, and describe\n"+
		"the type's fields by augmenting its interface (declare module):", e.m.Hooks, e.typeNames))
	e.printf("\n")
}

func (e *Emitter) hooks() {
	var fields []string
	for _, t := range e.m.Hooks {
		n := e.typeNames[t]
		e.printf("/** Go's %s, which encodes itself: augment this interface with its fields. */\n", t.Go)
		e.printf("export interface %s {}\n\n", n)
		fields = append(fields, fmt.Sprintf("  %s: Hook<%s> | null;", n, n))
	}
	e.printf("/** The code of the types that encode themselves: set each before use. */\n")
	e.printf("export const hooks: {\n%s\n} = {\n", strings.Join(fields, "\n"))
	for _, t := range e.m.Hooks {
		e.printf("  %s: null,\n", e.typeNames[t])
	}
	e.printf("};\n\n")
}

// enumType renders a Go named integer type with constants: an as-const
// object of its values by their Go names, and the union of those values
// under the same name (erasable syntax: no enum), so that a value no
// constant names does not compile where a Team is wanted. A reader still
// hands out whatever value the tags allow, named or not, as Go does.
func (e *Emitter) enumType(t *model.Type) {
	n := e.typeNames[t]
	e.printf("/** Go's %s (%s): its constants. The wire carries any value its fields' tags allow: a value no constant names is read as it is. */\n", t.Go, t.Go.Kind())
	e.printf("export const %s = {\n", n)
	for _, c := range t.Constants {
		e.printf("  %s: %s,\n", c.Name, tsEnumLiteral(t, c))
	}
	e.printf("} as const;\n\n")
	e.printf("/** Go's %s: one of the values of %s. */\n", t.Go, n)
	e.printf("export type %s = (typeof %s)[keyof typeof %s];\n\n", n, n, n)
}

// tsEnumLiteral is the literal of an enum's constant: a bigint for a
// 64-bit type, as its fields are.
func tsEnumLiteral(t *model.Type, c model.Constant) string {
	if t.GoBits == 64 {
		return c.Value(t.Signed) + "n"
	}
	return c.Value(t.Signed)
}

// unionType renders a registered interface as a union of its members,
// each under its name.
func (e *Emitter) unionType(t *model.Type) {
	var cases []string
	for _, mt := range t.Members {
		n := e.typeNames[mt]
		cases = append(cases, fmt.Sprintf("  | { type: %q; value: %s }", n, n))
	}
	e.printf("/** Go's interface %s: the type index in %d bits, then the member. */\n", t.Go, t.IndexBits)
	e.printf("export type %s =\n%s;\n\n", e.typeNames[t], strings.Join(cases, "\n"))
}

// structType renders an interface, its fingerprint and its functions.
func (e *Emitter) structType(t *model.Type) {
	n := e.typeNames[t]
	goName := code.Quote(t.Go.String())
	e.printf("/** Go's %s: %s. */\nexport interface %s {\n", t.Go, model.SizeText(t), n)
	var zero []string
	for _, m := range t.Fields {
		if m.Value.Op == model.OpCheck {
			e.printf("  // %s: %s (nothing stored)\n", m.Name, m.Value.Encoding)
			continue
		}
		e.printf("  %s: %s; // %s\n", m.Name, e.tsType(m.Value), model.FieldComment(m.Value))
		zero = append(zero, fmt.Sprintf("    %s: %s,", m.Name, e.zero(m.Value)))
	}
	e.printf("}\n\n")
	e.printf("/** bitpack.Fingerprint(%s): mix it into the protocol id as the Go side does. */\n", t.Go)
	e.printf("export const %sFingerprint = %#08x;\n\n", n, t.Fingerprint)
	e.printf("/** A %s as Go's zero value is. */\nexport function new%s(): %s {\n", n, n, n)
	if len(zero) == 0 {
		e.printf("  return {};\n}\n\n")
	} else {
		e.printf("  return {\n%s\n  };\n}\n\n", strings.Join(zero, "\n"))
	}
	e.printf(`/** Reads a whole packet as bitpack.Unmarshal does; throws BitpackError for every packet it refuses. */
export function read%[1]s(packet: Uint8Array): %[1]s {
  const r = new BitReader(packet);
  if (!r.chargeRoot(%[3]d)) {
    throw r.error(%[2]s);
  }
  const v = new%[1]s();
  if (!read%[1]sFields(r, v) || !r.finish()) {
    throw r.error(%[2]s);
  }
  return v;
}

/** Writes the packet bitpack.Marshal writes; throws BitpackError for every value it refuses. */
export function write%[1]s(value: %[1]s): BitpackBytes {
  const w = takeWriter();
  const ok = write%[1]sTo(w, value);
  const out = ok ? w.bytes() : w.error(%[2]s);
  giveWriter(w);
  if (out instanceof BitpackError) {
    throw out;
  }
  return out;
}

`, n, goName, t.Charge.Work)
	c := &body{indent: 1}
	for _, m := range t.Fields {
		e.read(c, m.Value, "v."+m.Name, nil, false)
	}
	e.printf("/** Reads a value into v from r, leaving r after it (no check for what follows), as bitpack.Decode does: the value's own %d values are charged to r's allowances first. */\n", t.Charge.Work)
	e.printf("export function read%sFrom(r: BitReader, v: %s): boolean {\n  return r.chargeRoot(%d) && read%sFields(r, v);\n}\n\n", n, n, t.Charge.Work, n)
	e.printf("/** Reads v's fields from r, charging what they bring but not the value's own values. */\n")
	e.printf("function read%sFields(r: BitReader, v: %s): boolean {\n%s  return true;\n}\n\n", n, n, c.b.String())
	c = &body{indent: 1}
	for _, m := range t.Fields {
		e.write(c, m.Value, "v."+m.Name, nil)
	}
	e.printf("/** Writes v to w. */\n")
	e.printf("export function write%sTo(w: BitWriter, v: %s): boolean {\n", n, n)
	e.printf("  if (absent(w, v, %s)) return false;\n%s  return true;\n}\n\n", code.Quote(n), c.b.String())
}

// tsReserved are the names a Go type cannot keep in the module: the
// language's keywords and built-in types, and what the runtime exports.
var tsReserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`break case catch class const continue debugger default delete do else enum
		export extends false finally for function if import in instanceof new null return super switch this
		throw true try typeof var void while with as implements interface let package private protected public
		static yield any boolean number string symbol bigint unknown never object undefined type declare
		namespace module abstract async await constructor get set of readonly keyof infer is asserts
		Array ReadonlyArray Uint8Array Uint32Array ArrayBuffer DataView Math Number BigInt String Boolean Object
		Error Symbol Promise Record Partial Required Readonly Pick Omit Map Set Date JSON Function RegExp
		BitpackError BitpackErrorKind BitpackBytes BitReader BitWriter BitpackBox Hook hooks hook absent seal open crc32
		float32FromBits float32Bits float64FromBits float64Bits deltaScratch deltaCodes deltaCodeBytes
		deltaCodeReader deltaUnchangedText deltaUnchanged deltaBaseRefusal deltaAdopt readDeltaCode
		readDeltaCodeBig writeDeltaCode writeDeltaCodeBig deltaSameBits deltaSameWritten deltaSameBytes deltaLength
		quatIn deltaCodeReaders flatCopy mapSetEntry mapDropMissing BitpackReceiver BitpackView BitpackSnapshotType goFormat
		snapshotWords snapshotRefusal crc32Word seqNewer snapshotShortHeader snapshotLongHeader snapshotZeroHeader
		snapshotMaxShort snapshotMinHistory snapshotMaxHistory snapshotMinPacket snapshotDefaultHistory snapshotLeftStreams
		snapshotNoAck snapshotSeqHalf
		roundAlloc maxFigure`) {
		tsReserved[w] = true
	}
}

func tsIdent(n string) string {
	if tsReserved[n] {
		return n + "_"
	}
	return n
}

// The names the module gives things, for code that writes TypeScript
// against it.

// TypeName is the TypeScript name of type t.
func (e *Emitter) TypeName(t *model.Type) string { return e.typeNames[t] }

// Type is the TypeScript type of a value.
func (e *Emitter) Type(v *model.Value) string { return e.tsType(v) }

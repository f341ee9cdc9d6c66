package typescript

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// Deltas in TypeScript (docs/wire.md, "Delta encoding"): for each struct
// type T
//
//	export function readTDelta(packet: Uint8Array, base: T): T
//	export function writeTDelta(base: T, value: T): BitpackBytes
//	export function readTDeltaFrom(r: BitReader, base: T, into: T): boolean
//	export function writeTDeltaTo(w: BitWriter, base: T, value: T): boolean
//
// readTDelta applies the delta to cloneT(base), a copy of its own, so base
// is never touched and a refusal throws before anything is returned. The
// stream-level readTDeltaFrom and writeTDeltaTo read and write a delta
// where a stream is, after whatever came before it (a header), as
// readTFrom and writeTTo do a whole value. Under them, readTDeltaItems
// and writeTDeltaItems (the module's own) read or write T's items (its
// fields, structs flattened into theirs), each after a changed bit when
// bit is set, and say whether any changed: what the types that hold a T
// call.

// typeItems counts a struct type's items in its own form.
func typeItems(t *model.Type) int {
	return len(model.DeltaItems(t.Value()))
}

// scalarRead is the expression reading v from reader q.
func (e *Emitter) scalarRead(v *model.Value, q string) string {
	switch v.Op {
	case model.OpBool:
		return q + ".readBool()"
	case model.OpInt:
		return e.intValue(v, e.readInt(v, q))
	case model.OpFloat:
		return fmt.Sprintf("%s.readFloat%d()", q, v.FloatBits)
	}
	lo := v.Min
	if v.FloatBits == 32 {
		lo = float64(float32(lo))
	}
	return fmt.Sprintf("%s.readCompressed%d(%d, %d, %s, %s)", q, v.FloatBits, v.Bits, v.Steps, tsNum(model.Delta(v)), tsNum(lo))
}

// scalarWrite is the call writing x as v into writer s.
func (e *Emitter) scalarWrite(v *model.Value, x, s string) string {
	switch v.Op {
	case model.OpBool:
		return s + ".writeBool(" + x + ")"
	case model.OpInt:
		if v.Time {
			return e.writeTime(v, x, s)
		}
		return s + "." + strings.TrimPrefix(e.writeInt(v, x), "w.")
	case model.OpFloat:
		return fmt.Sprintf("%s.writeFloat%d(%s)", s, v.FloatBits, x)
	}
	lo := v.Min
	if v.FloatBits == 32 {
		lo = float64(float32(lo))
	}
	return fmt.Sprintf("%s.writeCompressed%d(%s, %s, %s, %d, %d, %s, %s, %t, %s)", s, v.FloatBits, x, tsNum(lo), tsNum(model.Delta(v)),
		v.Steps, v.Bits, tsNum(v.Lo), tsNum(v.Hi), v.Clamp, code.Quote(model.Bounds(v)))
}

// codeArgs are a scalar's width, short form, limit and flip as
// readDeltaCode (big: readDeltaCodeBig) takes them.
func codeArgs(v *model.Value) (n, s int, limit, flip string, big bool) {
	c := v.Code
	if c.Bits > 32 {
		return c.Bits, c.Short, tsBig(c.Limit), tsBig(c.Flip), true
	}
	return c.Bits, c.Short, strconv.FormatUint(c.Limit, 10), strconv.FormatUint(c.Flip, 10), false
}

// dctx is where an item is read or written: its changed bit ("bit",
// "true" or "false") and the variable that records a change.
type dctx struct {
	bit, ch string
}

// deltaStruct renders T's delta functions.
func (e *Emitter) deltaStruct(t *model.Type) {
	n := e.typeNames[t]
	goName := code.Quote(t.Go.String())
	root := typeItems(t) > 1
	self := t.Value()
	e.printf("/** A copy of v that shares nothing with it but hook values (which deltas replace whole, never change). */\n")
	e.printf("export function clone%s(v: %s): %s {\n", n, n, n)
	var fields []string
	for _, m := range t.Fields {
		if m.Value.Op != model.OpCheck {
			fields = append(fields, fmt.Sprintf("    %s: %s,", m.Name, e.cloneExpr(m.Value, "v."+m.Name, 0)))
		}
	}
	if len(fields) == 0 {
		e.printf("  return {};\n}\n\n")
	} else {
		e.printf("  return {\n%s\n  };\n}\n\n", strings.Join(fields, "\n"))
	}
	e.copyStruct(t)
	e.printf(`/**
 * Applies a delta packet (bitpack.AppendDelta's) to base as bitpack.UnmarshalDelta
 * does and returns the result, a new value (see clone%[1]s); base is untouched.
 * Throws BitpackError for every delta bitpack refuses, trailing bytes included.
 */
export function read%[1]sDelta(packet: Uint8Array, base: %[1]s): %[1]s {
  const r = new BitReader(packet);
  const v = clone%[1]s(base);
  if (!read%[1]sDeltaFrom(r, v, v) || !r.finish()) {
    throw r.error(%[2]s);
  }
  return v;
}

/** Writes value's delta against base, bitpack.AppendDelta's bytes; throws BitpackError for every value it refuses. */
export function write%[1]sDelta(base: %[1]s, value: %[1]s): BitpackBytes {
  const w = takeWriter();
  const out = write%[1]sDeltaTo(w, base, value) ? w.bytes() : w.error(%[2]s);
  giveWriter(w);
  if (out instanceof BitpackError) {
    throw out;
  }
  return out;
}

/**
 * Reads a delta (bitpack.AppendDelta's bits) from r where it is, after
 * whatever r read before (a header, say), and leaves r after it: into
 * becomes base with the delta applied, as bitpack.UnmarshalDelta makes it.
 * into is first made a copy of base (copy%[1]s: its objects reused), unless
 * into is base, to which the delta is then applied in place. Returns false
 * when the delta is refused: r.failed is set, r.error(type) is the
 * BitpackError readTDelta would throw (its bits counted from where r
 * began), and into holds part of the delta (base, only if it is into).
 * Whole bytes left after the delta are the caller's: r.finish() refuses
 * them as read%[1]sDelta does.
 */
export function read%[1]sDeltaFrom(r: BitReader, base: %[1]s, into: %[1]s): boolean {
  const start = r.bitsRead;
  if (into !== base) {
    copy%[1]s(base, into);
  }
  if (r.readBits(1) === 1 && !read%[1]sDeltaItems(r, into, %[3]t) && !r.failed) {
    deltaUnchanged(r, start);
  }
  return !r.failed;
}

/**
 * Writes value's delta against base (bitpack.AppendDelta's bits) to w
 * where it is, after whatever w holds; returns false when value or base
 * is refused (w.failed is set, w.error(type) the BitpackError).
 */
export function write%[1]sDeltaTo(w: BitWriter, base: %[1]s, value: %[1]s): boolean {
  const start = w.bitsWritten;
  if (value === base) {
    w.writeBits(0, 1);
    return !w.failed;
  }
  w.writeBits(1, 1);
  if (!write%[1]sDeltaItems(w, value, base, %[3]t) && !w.failed) {
    w.rewind(start);
    w.writeBits(0, 1);
  }
  return !w.failed;
}

`, n, goName, root)
	c := &body{indent: 1}
	d := dctx{bit: "bit", ch: "changed"}
	for _, f := range model.StructFields(self) {
		e.dItems(c, d, f, "v."+fieldName(t, f), nil)
	}
	e.printf("/** Applies the delta of v's items (each after a changed bit when bit) to v; reports whether any changed (false on a refusal too: see r.failed). */\n")
	e.printf("function read%sDeltaItems(r: BitReader, v: %s, bit: boolean): boolean {\n", n, n)
	e.printf("  let changed = false;\n%s  return changed;\n}\n\n", c.b.String())
	c = &body{indent: 1}
	for _, f := range model.StructFields(self) {
		x := "v." + fieldName(t, f)
		e.dwItems(c, d, f, x, "b."+fieldName(t, f), nil)
	}
	e.printf("/** Writes the delta of v's items against b's (each after a changed bit when bit); reports whether any changed (false on a refusal too: see w.failed). */\n")
	e.printf("function write%sDeltaItems(w: BitWriter, v: %s, b: %s, bit: boolean): boolean {\n", n, n, n)
	e.printf("  if (absent(w, v, %s)) return false;\n  let changed = false;\n%s  return changed;\n}\n\n", code.Quote(n), c.b.String())
}

// fieldName is the name of the member of t whose value f is.
func fieldName(t *model.Type, f *model.Value) string {
	for _, m := range t.Fields {
		if m.Value == f {
			return m.Name
		}
	}
	panic("gen: no member of " + t.Name + " holds " + f.Path)
}

// deltaUnion renders a union's clone function.
func (e *Emitter) deltaUnion(t *model.Type) {
	n := e.typeNames[t]
	e.printf("/** A copy of u that shares nothing with it. */\nexport function clone%s(u: %s): %s {\n  switch (u.type) {\n", n, n, n)
	for _, mt := range t.Members {
		mn := e.typeNames[mt]
		e.printf("    case %q:\n      return { type: %q, value: clone%s(u.value) };\n", mn, mn, mn)
	}
	e.printf("  }\n  return u;\n}\n\n")
}

// cloneExpr is an expression copying x, a value of v; depth names the
// arrow functions' parameters apart.
func (e *Emitter) cloneExpr(v *model.Value, x string, depth int) string {
	p := "e" + strconv.Itoa(depth)
	switch v.Op {
	case model.OpBytes, model.OpByteArray:
		return x + ".slice()"
	case model.OpArray, model.OpSlice:
		if tsPrimitive(v.Elem) && v.Elem.Op != model.OpPointer {
			return x + ".slice()"
		}
		return fmt.Sprintf("%s.map((%s) => %s)", x, p, e.cloneExpr(v.Elem, p, depth+1))
	case model.OpPointer:
		return fmt.Sprintf("%s === null ? null : %s", x, e.clonePresent(v.Elem, x, depth))
	case model.OpSparse:
		return fmt.Sprintf("%s.map((%s) => (%s === null ? null : %s))", x, p, p, e.clonePresent(v.Elem, p, depth+1))
	case model.OpStruct, model.OpFields, model.OpUnion:
		return "clone" + e.typeNames[v.Type] + "(" + x + ")"
	case model.OpQuat:
		if v.Type != nil {
			return "clone" + e.typeNames[v.Type] + "(" + x + ")"
		}
		return x + ".slice()"
	case model.OpMap:
		k := "k" + strconv.Itoa(depth)
		return fmt.Sprintf("new %s(Array.from(%s, ([%s, %s]): [%s, %s] => [%s, %s]))", e.tsType(v), x, k, p, e.tsType(v.Key), e.tsType(v.Elem), k, e.cloneExpr(v.Elem, p, depth+1))
	}
	return x // numbers, bigints, booleans, strings; hooks' values are shared
}

// clonePresent copies the value of a pointer or sparse slot x, not null.
func (e *Emitter) clonePresent(v *model.Value, x string, depth int) string {
	if v.Op == model.OpPointer {
		return "{ value: " + e.cloneExpr(v, x+".value", depth) + " }"
	}
	return e.cloneExpr(v, x, depth)
}

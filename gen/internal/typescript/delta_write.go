package typescript

import (
	"fmt"
	"strconv"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// The statements of writeTDeltaItems: each item's changed bit and part, the
// value x against the base b, as bitpack.AppendDelta writes them. A part
// whose change is known only once it is written (a container's, a
// quaternion's, a hook's) is written as if it changed and taken back
// (w.rewind) when nothing did.

// bitLine renders writing the changed bit v (0 or 1), if the item has one.
func tsBitLine(c *body, d dctx, v int) {
	switch d.bit {
	case "true":
		c.line("w.writeBits(%d, 1);", v)
	case "false":
	default:
		c.line("if (%s) w.writeBits(%d, 1);", d.bit, v)
	}
}

// dwItems renders the items of v at x against b.
func (e *Emitter) dwItems(c *body, d dctx, v *model.Value, x, b string, idx []string) {
	p := code.PathExpr(v.Path, idx)
	if v.Op.IsStruct() {
		if len(model.DeltaItems(v)) == 0 {
			return
		}
		if v.Fields == nil {
			c.line("if (write%sDeltaItems(w, %s, %s, %s)) %s = true;", e.typeNames[v.Type], x, b, d.bit, d.ch)
			c.line("if (w.failed) return w.at(%s);", p)
			return
		}
		c.line("if (absent(w, %s, %s)) return w.at(%s);", x, code.Quote(e.typeNames[v.Type]), p)
		for _, u := range v.Fields {
			e.dwItems(c, d, u.Value, x+"."+u.Member.Name, b+"."+u.Member.Name, idx)
		}
		return
	}
	if len(model.DeltaItems(v)) > 0 {
		c.open()
		e.dwPart(c, d, v, x, b, idx)
		c.close()
	}
}

// dwPart renders item v's changed bit and part.
func (e *Emitter) dwPart(c *body, d dctx, v *model.Value, x, b string, idx []string) {
	p := code.PathExpr(v.Path, idx)
	same := func(cond string, changed func()) {
		c.line("if (%s) {", cond)
		c.indent++
		tsBitLine(c, d, 0)
		c.indent--
		c.line("} else {")
		c.indent++
		changed()
		c.close()
	}
	switch v.Op {
	case model.OpFloat:
		e.dwScalar(c, d, v, x, b, p) // by their bits: NaNs with other payloads differ, as in Go
	case model.OpBool, model.OpInt, model.OpCompressed:
		same(fmt.Sprintf("Object.is(%s, %s)", x, b), func() { e.dwScalar(c, d, v, x, b, p) })
	case model.OpString:
		same(x+" === "+b, func() {
			tsBitLine(c, d, 1)
			e.write(c, v, x, idx)
			c.line("%s = true;", d.ch)
		})
	case model.OpBytes, model.OpByteArray:
		same(fmt.Sprintf("deltaSameBytes(%s, %s)", x, b), func() {
			tsBitLine(c, d, 1)
			e.write(c, v, x, idx)
			c.line("%s = true;", d.ch)
		})
	case model.OpQuat:
		e.dwWhole(c, d, v, x, b, idx, p)
	case model.OpHook:
		// The same object is unchanged, unwritten (C#'s ReferenceEquals):
		// Go's values the same in memory are, a value its hook refuses
		// included.
		same(x+" === "+b, func() { e.dwWhole(c, d, v, x, b, idx, p) })
	case model.OpArray:
		va, vb := c.local("a"), c.local("b")
		c.line("const %s = %s;", va, x)
		c.line("const %s = %s;", vb, b)
		same(va+" === "+vb, func() {
			c.line("if (!w.fixedLength(%s, %d)) return w.at(%s);", va, v.Len, p)
			st := c.local("x")
			c.line("const %s = w.bitsWritten;", st)
			tsBitLine(c, d, 1)
			prev := e.dwList(c, v, va, vb, strconv.Itoa(v.Len), idx)
			e.dwUnchanged(c, d, prev+" < 0", st)
		})
	case model.OpSlice:
		e.dwSlice(c, d, v, x, b, idx, p)
	case model.OpPointer:
		e.dwPointer(c, d, v, x, b, idx)
	case model.OpSparse:
		e.dwSparse(c, d, v, x, b, idx, p)
	case model.OpUnion:
		e.dwUnion(c, d, v, x, b, p)
	case model.OpMap:
		e.dwMap(c, d, v, x, b, idx, p)
	default:
		panic("gen: TypeScript has no delta of " + v.Op.String())
	}
}

// dwUnchanged renders the end of a speculative part: when cond holds,
// nothing changed, and what was written since st is taken back.
func (e *Emitter) dwUnchanged(c *body, d dctx, cond, st string) {
	c.line("if (%s) {", cond)
	c.indent++
	c.line("w.rewind(%s);", st)
	tsBitLine(c, d, 0)
	c.indent--
	c.line("} else {")
	c.line("  %s = true;", d.ch)
	c.line("}")
}

// dwScalar renders a fixed-width field that differs in memory: both
// codes (the value's refusal first, then the base's), then its change.
func (e *Emitter) dwScalar(c *body, d dctx, v *model.Value, x, b, p string) {
	n, s, _, flip, big := codeArgs(v)
	cw, cv, cb := c.local("w"), c.local("c"), c.local("c")
	word := "codeWord()"
	if big {
		word = "codeBig()"
	}
	c.line("const %s = deltaCodes();", cw)
	c.line("if (!%s) return deltaAdopt(w, %s, \"\") || w.at(%s);", e.scalarWrite(v, x, cw), cw, p)
	c.line("const %s = %s.%s;", cv, cw, word)
	c.line("%s.reset();", cw)
	c.line("if (!%s) return deltaAdopt(w, %s, \"base value: \") || w.at(%s);", e.scalarWrite(v, b, cw), cw, p)
	c.line("const %s = %s.%s;", cb, cw, word)
	c.line("if (%s !== %s) {", cv, cb)
	if big {
		c.line("  writeDeltaCodeBig(w, %s, %s, %d, %d, %s, %s);", cv, cb, n, s, flip, d.bit)
	} else {
		c.line("  writeDeltaCode(w, %s, %s, %d, %d, %s, %s);", cv, cb, n, s, flip, d.bit)
	}
	c.line("  %s = true;", d.ch)
	if d.bit != "false" {
		c.line("} else {")
		c.indent++
		tsBitLine(c, d, 0)
		c.indent--
	}
	c.line("}")
}

// dwWhole renders a quaternion or hook field, sent whole when its bits
// differ from the base's.
func (e *Emitter) dwWhole(c *body, d dctx, v *model.Value, x, b string, idx []string, p string) {
	st, from, s := c.local("x"), c.local("y"), c.local("w")
	c.line("const %s = w.bitsWritten;", st)
	tsBitLine(c, d, 1)
	if v.Op == model.OpQuat {
		c.line("const %s = w.bitsWritten;", from)
	}
	e.write(c, v, x, idx)
	if v.Op == model.OpQuat {
		l := c.local("e")
		c.line("const %s = deltaCodes();", s)
		c.line("const %s = %s;", l, b)
		var comps [4]string
		for k, steps := range v.Comps {
			comps[k] = l + e.quatComp(steps, true)
		}
		c.line("if (!%s.writeQuat(%s, %s, %s, %s, %d)) return deltaAdopt(w, %s, \"base value: \") || w.at(%s);", s, comps[0], comps[1], comps[2], comps[3], v.Bits, s, p)
		e.dwUnchanged(c, d, fmt.Sprintf("deltaSameWritten(w, %s, %s)", from, s), st)
		return
	}
	// A hook's value is compared with the base's as Go compares them: by
	// the bits each writes on its own (its bits in the packet can differ
	// when the hook aligns).
	n, own := e.typeNames[v.Type], c.local("w")
	c.line("const %s = new BitWriter(16);", s)
	c.line("if (!hook(hooks.%s, %q).write(%s, %s)) return deltaAdopt(w, %s, \"base value: \") || w.at(%s);", n, n, s, b, s, p)
	c.line("const %s = new BitWriter(16);", own)
	c.line("hook(hooks.%s, %q).write(%s, %s);", n, n, own, x)
	e.dwUnchanged(c, d, fmt.Sprintf("deltaSameWritten(%s, 0, %s)", own, s), st)
}

// dwBody renders the body of a value against its base and returns the
// variable saying whether it changed.
func (e *Emitter) dwBody(c *body, v *model.Value, x, b string, idx []string) string {
	ch := c.local("c")
	c.line("let %s = false;", ch)
	d := dctx{bit: strconv.FormatBool(len(model.DeltaItems(v)) > 1), ch: ch}
	if v.Op.IsStruct() {
		e.dwItems(c, d, v, x, b, idx)
	} else if len(model.DeltaItems(v)) > 0 {
		c.open()
		e.dwPart(c, d, v, x, b, idx)
		c.close()
	}
	return ch
}

// dwList renders the list of changed elements among the first m of va
// against vb, with its end marker, and returns the variable holding the
// last index listed.
func (e *Emitter) dwList(c *body, v *model.Value, va, vb, m string, idx []string) string {
	prev, pos := c.local("p"), c.local("x")
	k := "k" + strconv.Itoa(c.loops)
	c.loops++
	c.line("let %s = -1;", prev)
	c.line("for (let %s = 0; %s < %s; %s++) {", k, k, m, k)
	c.indent++
	c.line("const %s = w.bitsWritten;", pos)
	c.line("w.writeIntRelative(%s, %s);", prev, k)
	ch := e.dwBody(c, v.Elem, elem(va, k), elem(vb, k), withIdx(idx, k))
	c.line("if (%s) %s = %s;", ch, prev, k)
	c.line("else w.rewind(%s);", pos)
	c.close()
	c.loops--
	c.line("w.writeIntRelative(%s, %s);", prev, m)
	return prev
}

func (e *Emitter) dwSlice(c *body, d dctx, v *model.Value, x, b string, idx []string, p string) {
	va, vb, n, nb := c.local("a"), c.local("b"), c.local("n"), c.local("n")
	c.line("const %s = %s;", va, x)
	c.line("const %s = %s;", vb, b)
	c.line("const %s = deltaLength(w, %s, %d);", n, va, v.MaxLen)
	c.line("if (%s < 0) return w.at(%s);", n, p)
	c.line("const %s = %s.length;", nb, vb)
	c.line("if (%s === %s && (%s === 0 || %s === %s)) {", n, nb, n, va, vb)
	c.indent++
	tsBitLine(c, d, 0)
	c.indent--
	c.line("} else {")
	c.indent++
	st := c.local("x")
	c.line("const %s = w.bitsWritten;", st)
	tsBitLine(c, d, 1)
	c.line("if (%s !== %s) {", n, nb)
	c.line("  w.writeBits(1, 1);")
	c.line("  w.writeBits(%s, %d);", n, v.Prefix.Bits)
	c.line("} else {")
	c.line("  w.writeBits(0, 1);")
	c.line("}")
	prev := e.dwList(c, v, va, vb, fmt.Sprintf("Math.min(%s, %s)", n, nb), idx)
	c.line("if (%s === %s && %s < 0) {", n, nb, prev)
	c.indent++
	c.line("w.rewind(%s);", st)
	tsBitLine(c, d, 0)
	c.indent--
	c.line("} else {")
	c.indent++
	i := "i" + strconv.Itoa(c.loops)
	c.loops++
	c.line("for (let %s = %s; %s < %s; %s++) {", i, nb, i, n, i)
	c.indent++
	e.write(c, v.Elem, elem(va, i), withIdx(idx, i))
	c.close()
	c.loops--
	c.line("%s = true;", d.ch)
	c.close()
	c.close()
}

func (e *Emitter) dwPointer(c *body, d dctx, v *model.Value, x, b string, idx []string) {
	pv, pb := c.local("e"), c.local("e")
	c.line("const %s = %s;", pv, x)
	c.line("const %s = %s;", pb, b)
	c.line("if (%s === null || %s === undefined) {", pv, pv)
	c.indent++
	c.line("if (%s === null) {", pb)
	c.indent++
	tsBitLine(c, d, 0)
	c.indent--
	c.line("} else {")
	c.indent++
	tsBitLine(c, d, 1)
	c.line("w.writeBits(0, 1);")
	c.line("%s = true;", d.ch)
	c.close()
	c.indent--
	c.line("} else if (%s === null) {", pb)
	c.indent++
	tsBitLine(c, d, 1)
	e.write(c, v.Elem, e.present(v.Elem, pv), idx)
	c.line("%s = true;", d.ch)
	c.indent--
	c.line("} else if (%s === %s) {", pv, pb)
	c.indent++
	tsBitLine(c, d, 0)
	c.indent--
	c.line("} else {")
	c.indent++
	st := c.local("x")
	c.line("const %s = w.bitsWritten;", st)
	tsBitLine(c, d, 1)
	c.line("w.writeBits(1, 1);")
	ch := e.dwBody(c, v.Elem, e.present(v.Elem, pv), e.present(v.Elem, pb), idx)
	e.dwUnchanged(c, d, "!"+ch, st)
	c.close()
}

func (e *Emitter) dwSparse(c *body, d dctx, v *model.Value, x, b string, idx []string, p string) {
	va, vb, n, nb := c.local("a"), c.local("b"), c.local("n"), c.local("n")
	c.line("const %s = %s;", va, x)
	c.line("const %s = %s;", vb, b)
	cond := va + " === " + vb
	if v.Prefix != nil {
		c.line("const %s = deltaLength(w, %s, %d);", n, va, v.MaxLen)
		c.line("if (%s < 0) return w.at(%s);", n, p)
		c.line("const %s = %s.length;", nb, vb)
		cond = fmt.Sprintf("%s === %s && (%s === 0 || %s)", n, nb, n, cond)
	} else {
		c.line("if (!w.fixedLength(%s, %d)) return w.at(%s);", va, v.Len, p)
		c.line("const %s = %d;", n, v.Len)
		c.line("const %s = %d;", nb, v.Len)
	}
	c.line("if (%s) {", cond)
	c.indent++
	tsBitLine(c, d, 0)
	c.indent--
	c.line("} else {")
	c.indent++
	st := c.local("x")
	c.line("const %s = w.bitsWritten;", st)
	tsBitLine(c, d, 1)
	if v.Prefix != nil {
		c.line("if (%s !== %s) {", n, nb)
		c.line("  w.writeBits(1, 1);")
		c.line("  w.writeBits(%s, %d);", n, v.Prefix.Bits)
		c.line("} else {")
		c.line("  w.writeBits(0, 1);")
		c.line("}")
	}
	prev, pos, ev, eb := c.local("p"), c.local("x"), c.local("e"), c.local("e")
	k := "k" + strconv.Itoa(c.loops)
	c.loops++
	c.line("let %s = -1;", prev)
	c.line("for (let %s = 0; %s < %s; %s++) {", k, k, n, k)
	c.indent++
	c.line("const %s = %s[%s];", ev, va, k)
	c.line("const %s = %s < %s ? %s[%s] : null;", eb, k, nb, vb, k)
	c.line("const %s = w.bitsWritten;", pos)
	c.line("if (%s === null || %s === undefined) {", ev, ev)
	c.line("  if (%s === null || %s === undefined) continue;", eb, eb)
	c.line("  w.writeIntRelative(%s, %s);", prev, k)
	c.line("  w.writeBits(0, 1);")
	c.line("} else if (%s === null || %s === undefined) {", eb, eb)
	c.indent++
	c.line("w.writeIntRelative(%s, %s);", prev, k)
	e.write(c, v.Elem, e.present(v.Elem, ev), withIdx(idx, k))
	c.indent--
	c.line("} else if (%s === %s) {", ev, eb)
	c.line("  continue;")
	c.line("} else {")
	c.indent++
	c.line("w.writeIntRelative(%s, %s);", prev, k)
	c.line("w.writeBits(1, 1);")
	ch := e.dwBody(c, v.Elem, e.present(v.Elem, ev), e.present(v.Elem, eb), withIdx(idx, k))
	c.line("if (!%s) {", ch)
	c.line("  w.rewind(%s);", pos)
	c.line("  continue;")
	c.line("}")
	c.close()
	c.line("%s = %s;", prev, k)
	c.close()
	c.loops--
	c.line("if (%s === %s && %s < 0) {", n, nb, prev)
	c.indent++
	c.line("w.rewind(%s);", st)
	tsBitLine(c, d, 0)
	c.indent--
	c.line("} else {")
	c.line("  w.writeIntRelative(%s, %s);", prev, n)
	c.line("  %s = true;", d.ch)
	c.line("}")
	c.close()
}

func (e *Emitter) dwUnion(c *body, d dctx, v *model.Value, x, b, p string) {
	u, ub := c.local("u"), c.local("u")
	c.line("const %s = %s;", u, x)
	c.line("const %s = %s;", ub, b)
	c.line("if (%s === %s) {", u, ub)
	c.indent++
	tsBitLine(c, d, 0)
	c.indent--
	c.line("} else {")
	c.indent++
	c.line("if (%s === null || %s === undefined) {", u, u)
	c.line("  return w.fail(\"Range\", %s) || w.at(%s);", code.Quote(fmt.Sprintf("nil %s: a union field must hold one of its members", v.Type.Go)), p)
	c.line("}")
	c.line("switch (%s.type) {", u)
	for i, mt := range v.Type.Members {
		n, st := e.typeNames[mt], c.local("x")
		c.line("  case %q: {", n)
		c.indent += 2
		c.line("const %s = w.bitsWritten;", st)
		tsBitLine(c, d, 1)
		c.line("w.writeBits(%d, %d);", v.Type.Indices[i], v.Type.IndexBits)
		c.line("if (%s !== null && %s !== undefined && %s.type === %q) {", ub, ub, ub, n)
		c.indent++
		ch := c.local("c")
		c.line("const %s = write%sDeltaItems(w, %s.value, %s.value, %t);", ch, n, u, ub, typeItems(mt) > 1)
		c.line("if (w.failed) return w.at(%s);", p)
		e.dwUnchanged(c, d, "!"+ch, st)
		c.indent--
		c.line("} else {")
		c.line("  if (!write%sTo(w, %s.value)) return w.at(%s);", n, u, p)
		c.line("  %s = true;", d.ch)
		c.line("}")
		c.line("break;")
		c.indent -= 2
		c.line("  }")
	}
	c.line("  default:")
	c.line("    return w.fail(\"Range\", \"type \" + String((%s as { type: unknown }).type) + %s) || w.at(%s);", u, code.Quote(" is not a member of "+v.Type.Go.String()), p)
	c.line("}")
	c.close()
}

func (e *Emitter) dwMap(c *body, d dctx, v *model.Value, x, b string, idx []string, p string) {
	m, mb, ks, kb, cmp, st, any := c.local("m"), c.local("m"), c.local("y"), c.local("y"), c.local("o"), c.local("x"), c.local("c")
	kt, vt := e.tsType(v.Key), e.tsType(v.Elem)
	c.line("const %s = %s;", m, x)
	c.line("const %s = %s;", mb, b)
	c.line("if (!(%s instanceof Map)) return w.fail(\"Range\", \"value \" + show(%s) + \" is not a Map\") || w.at(%s);", m, m, p)
	c.line("if (%s.size > %d) return w.fail(\"Range\", %s.size + \" entries exceed maxlen %d\") || w.at(%s);", m, v.MaxLen, m, v.MaxLen, p)
	c.line("if (%s === %s || (%s.size === 0 && %s.size === 0)) {", m, mb, m, mb)
	c.indent++
	tsBitLine(c, d, 0)
	c.indent--
	c.line("} else {")
	c.indent++
	switch v.Order {
	case model.KeysBytewise:
		c.line("const %s = compareKeys;", cmp)
	case model.KeysFalseFirst:
		c.line("const %s = (a: %s, b: %s): number => Number(a) - Number(b);", cmp, kt, kt)
	default:
		c.line("const %s = (a: %s, b: %s): number => (a < b ? -1 : a > b ? 1 : 0);", cmp, kt, kt)
	}
	c.line("const %s = Array.from(%s.keys()).sort(%s);", ks, m, cmp)
	c.line("const %s = Array.from(%s.keys()).sort(%s);", kb, mb, cmp)
	c.line("const %s = w.bitsWritten;", st)
	tsBitLine(c, d, 1)
	c.line("let %s = false;", any)
	i, j := "i"+strconv.Itoa(c.loops), "j"+strconv.Itoa(c.loops)
	c.loops++
	o, pos, k := c.local("o"), c.local("x"), c.local("k")
	c.line("for (let %s = 0, %s = 0; %s < %s.length || %s < %s.length; ) {", i, j, i, ks, j, kb)
	c.indent++
	c.line("const %s = %s === %s.length ? 1 : %s < %s.length ? %s(%s, %s) : -1;", o, i, ks, j, kb, cmp, elem(ks, i), elem(kb, j))
	c.line("const %s = w.bitsWritten;", pos)
	c.line("w.writeBits(1, 1);")
	c.line("const %s = %s <= 0 ? %s : %s;", k, o, elem(ks, i), elem(kb, j))
	at := withIdx(idx, tsKeyText(v.Key, k))
	e.write(c, v.Key, k, at)
	c.line("if (%s < 0) {", o)
	c.indent++
	val := c.local("e")
	c.line("const %s = %s.get(%s) as %s;", val, m, k, vt)
	e.write(c, v.Elem, val, at)
	c.line("%s++;", i)
	c.indent--
	c.line("} else if (%s > 0) {", o)
	c.line("  w.writeBits(0, 1);")
	c.line("  %s++;", j)
	c.line("} else {")
	c.indent++
	c.line("w.writeBits(1, 1);")
	c.line("%s++;", i)
	c.line("%s++;", j)
	ch := e.dwBody(c, v.Elem, fmt.Sprintf("(%s.get(%s) as %s)", m, k, vt), fmt.Sprintf("(%s.get(%s) as %s)", mb, k, vt), at)
	c.line("if (!%s) {", ch)
	c.line("  w.rewind(%s);", pos)
	c.line("  continue;")
	c.line("}")
	c.close()
	c.line("%s = true;", any)
	c.close()
	c.loops--
	c.line("if (!%s) {", any)
	c.indent++
	c.line("w.rewind(%s);", st)
	tsBitLine(c, d, 0)
	c.indent--
	c.line("} else {")
	c.line("  w.writeBits(0, 1);")
	c.line("  %s = true;", d.ch)
	c.line("}")
	c.close()
}

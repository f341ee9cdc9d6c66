package typescript

import (
	"fmt"
	"strconv"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// The statements of readTDeltaItems: each item's changed bit and part,
// applied to x, which holds the base's value (a copy of its own), with
// refusals worded and placed as bitpack.UnmarshalDelta's.

// dItems renders the items of v at x.
func (e *Emitter) dItems(c *body, d dctx, v *model.Value, x string, idx []string) {
	if v.Op.IsStruct() {
		if len(model.DeltaItems(v)) == 0 {
			return
		}
		if v.Fields == nil {
			c.line("if (read%sDeltaItems(r, %s, %s)) %s = true;", e.typeNames[v.Type], x, d.bit, d.ch)
			c.line("if (r.failed) return r.at(%s);", code.PathExpr(v.Path, idx))
			return
		}
		for _, u := range v.Fields {
			e.dItems(c, d, u.Value, x+"."+u.Member.Name, idx)
		}
		return
	}
	if len(model.DeltaItems(v)) == 0 {
		return
	}
	start := c.local("x")
	c.line("const %s = r.bitsRead;", start)
	switch d.bit {
	case "false":
		c.open()
	case "true":
		c.line("if (r.readBits(1) === 0) {")
		c.line("  if (r.failed) return r.at(%s);", code.PathExpr(v.Path, idx))
		c.line("} else {")
		c.indent++
	default:
		c.line("if (%s && r.readBits(1) === 0) {", d.bit)
		c.line("  if (r.failed) return r.at(%s);", code.PathExpr(v.Path, idx))
		c.line("} else {")
		c.indent++
	}
	e.dPart(c, v, x, x, idx, start)
	c.line("%s = true;", d.ch)
	c.close()
}

// dPart renders the part of item v, its changed bit read: x is where the
// new value goes, cur the value it holds (the base's), start the bit
// where the item began.
func (e *Emitter) dPart(c *body, v *model.Value, x, cur string, idx []string, start string) {
	p := code.PathExpr(v.Path, idx)
	switch v.Op {
	case model.OpBool:
		c.line("%s = !%s;", x, cur)
	case model.OpInt, model.OpFloat, model.OpCompressed:
		e.dScalar(c, v, x, cur, p, start)
	case model.OpString:
		s := c.local("s")
		c.line("const %s = r.readStringDelta(%s, %d, %d, %s);", s, start, v.Prefix.Bits, v.MaxLen, cur)
		c.line("if (r.failed) return r.at(%s);", p)
		c.line("%s = %s;", x, s)
	case model.OpBytes:
		s := c.local("s")
		c.line("const %s = r.readByteSliceDelta(%s, %d, %d, %s);", s, start, v.Prefix.Bits, v.MaxLen, cur)
		c.line("if (r.failed) return r.at(%s);", p)
		c.line("%s = %s;", x, s)
	case model.OpByteArray:
		s := c.local("s")
		c.line("const %s = r.readByteArrayDelta(%s, %s);", s, start, cur)
		c.line("if (r.failed) return r.at(%s);", p)
		c.line("%s = %s;", x, s)
	case model.OpQuat:
		e.dQuat(c, v, x, cur, p, start)
	case model.OpHook:
		n, hb, y, s := e.typeNames[v.Type], c.local("h"), c.local("y"), c.local("s")
		c.line("const %s = new BitWriter(16);", hb)
		c.line("if (!hook(hooks.%s, %q).write(%s, %s)) return deltaBaseRefusal(r, %s, %s) || r.at(%s);", n, n, hb, cur, hb, start, p)
		c.line("const %s = r.bitsRead;", y)
		c.line("if (!r.chargeHook(%d, %d, %s)) return r.at(%s);", v.Charge.Work, v.Charge.Bytes, y, p)
		c.line("const %s = hook(hooks.%s, %q).read(r);", s, n, n)
		c.line("if (r.failed) return r.at(%s);", p)
		// Compared with the base's as Go compares them: by the bits each
		// writes on its own (its bits in the packet can differ when the
		// hook aligns); a value that cannot be written is a change.
		own := c.local("w")
		c.line("const %s = new BitWriter(16);", own)
		c.line("if (hook(hooks.%s, %q).write(%s, %s) && deltaSameWritten(%s, 0, %s)) return deltaUnchanged(r, %s) || r.at(%s);", n, n, own, s, own, hb, start, p)
		c.line("%s = %s;", x, s)
	case model.OpArray:
		a := c.local("a")
		c.line("const %s = %s;", a, cur)
		prev := e.dList(c, v, a, strconv.Itoa(v.Len), idx, p)
		c.line("if (%s < 0) return deltaUnchanged(r, %s) || r.at(%s);", prev, start, p)
	case model.OpSlice:
		e.dSlice(c, v, cur, idx, p, start)
	case model.OpPointer:
		l := c.local("e")
		c.line("const %s = %s;", l, cur)
		c.line("if (%s === null) {", l)
		c.indent++
		c.line("if (!r.chargeValue(%d, %d, %s)) return r.at(%s);", v.Charge.Work, v.Charge.Bytes, start, p)
		e.readPresent(c, v.Elem, x, idx)
		c.indent--
		c.line("} else if (r.readBits(1) === 0) {")
		c.line("  if (r.failed) return r.at(%s);", p)
		c.line("  %s = null;", x)
		c.line("} else {")
		c.indent++
		e.dBody(c, v.Elem, e.presentTarget(v.Elem, x, l), e.present(v.Elem, l), idx, "")
		c.close()
	case model.OpSparse:
		e.dSparse(c, v, cur, idx, p, start)
	case model.OpUnion:
		e.dUnion(c, v, x, cur, p)
	case model.OpMap:
		e.dMap(c, v, cur, idx, p, start)
	default:
		panic("gen: TypeScript has no delta of " + v.Op.String())
	}
}

// presentTarget is where a pointer's (or slot's) new value goes: a box's
// value, or the pointer itself.
func (e *Emitter) presentTarget(v *model.Value, x, l string) string {
	if v.Op == model.OpPointer {
		return l + ".value"
	}
	return x
}

// dScalar renders a fixed-width field's change: the base's code, the
// new one read, the new value read back from it by the full reader.
func (e *Emitter) dScalar(c *body, v *model.Value, x, cur, p, start string) {
	n, s, limit, flip, big := codeArgs(v)
	w, k, q := c.local("w"), c.local("c"), c.local("q")
	c.line("const %s = deltaCodes();", w)
	c.line("if (!%s) return deltaBaseRefusal(r, %s, %s) || r.at(%s);", e.scalarWrite(v, cur, w), w, start, p)
	if big {
		c.line("const %s = readDeltaCodeBig(r, %s.codeBig() ^ %s, %d, %d, %s, %s, %s);", k, w, flip, n, s, limit, flip, start)
		c.line("if (%s < 0n) return r.at(%s);", k, p)
		c.line("const %s = deltaCodeReader(%s ^ %s, %d);", q, k, flip, n)
	} else {
		old, code := w+".codeWord()", k
		if flip != "0" {
			old, code = fmt.Sprintf("(%s ^ %s) >>> 0", old, flip), fmt.Sprintf("(%s ^ %s) >>> 0", k, flip)
		}
		c.line("const %s = readDeltaCode(r, %s, %d, %d, %s, %s, %s);", k, old, n, s, limit, flip, start)
		c.line("if (%s < 0) return r.at(%s);", k, p)
		c.line("const %s = deltaCodeReader(%s, %d);", q, code, n)
	}
	c.line("%s = %s;", x, e.scalarRead(v, q))
	c.line("if (%s.failed) return r.fail(%s.kind, %s, %s.errorDetail) || r.at(%s);", q, q, start, q, p)
}

// dQuat renders a changed quaternion: its code whole, refused as the full
// reader refuses it (at the item's start) and when it is the base's.
func (e *Emitter) dQuat(c *body, v *model.Value, x, cur, p, start string) {
	w, y, l := c.local("w"), c.local("y"), c.local("e")
	c.line("const %s = deltaCodes();", w)
	c.line("const %s = %s;", l, cur)
	var comps [4]string
	for k, steps := range v.Comps {
		comps[k] = l + e.quatComp(steps, true)
	}
	c.line("if (!%s.writeQuat(%s, %s, %s, %s, %d)) return deltaBaseRefusal(r, %s, %s) || r.at(%s);", w, comps[0], comps[1], comps[2], comps[3], v.Bits, w, start, p)
	c.line("const %s = r.bitsRead;", y)
	c.line("if (!r.readQuat(%d)) {", v.Bits)
	c.line("  if (r.kind === \"Range\") r.errorBit = %s;", start)
	c.line("  return r.at(%s);", p)
	c.line("}")
	c.line("if (deltaSameBits(r, %s, %s)) return deltaUnchanged(r, %s) || r.at(%s);", y, w, start, p)
	for k, steps := range v.Comps { // into the value x holds: a copy of its own
		c.line("%s%s = quatOut[%d];", l, e.quatComp(steps, false), k)
	}
}

// dBody renders the body of a value (an element, a pointee, a member, a
// map value) at x (cur: its value now), which must change; unchangedAt
// is where bitpack places that refusal, when not at the body's start.
func (e *Emitter) dBody(c *body, v *model.Value, x, cur string, idx []string, unchangedAt string) {
	p := code.PathExpr(v.Path, idx)
	y, ch := c.local("y"), c.local("c")
	c.line("const %s = r.bitsRead;", y)
	c.line("let %s = false;", ch)
	d := dctx{bit: strconv.FormatBool(len(model.DeltaItems(v)) > 1), ch: ch}
	if v.Op.IsStruct() {
		e.dItems(c, d, v, cur, idx)
	} else if len(model.DeltaItems(v)) > 0 {
		c.open()
		e.dPart(c, v, x, cur, idx, y)
		c.line("%s = true;", ch)
		c.close()
	}
	if unchangedAt == "" {
		unchangedAt = y
	}
	c.line("if (!%s) return deltaUnchanged(r, %s) || r.at(%s);", ch, unchangedAt, p)
}

// dList renders a list of changed elements among the first m of array a
// (see deltaEncoder.list) and returns the variable holding the last
// index listed (-1: none).
func (e *Emitter) dList(c *body, v *model.Value, a, m string, idx []string, p string) string {
	prev, pos := c.local("p"), c.local("x")
	k := "k" + strconv.Itoa(c.loops)
	c.loops++
	c.line("let %s = -1;", prev)
	c.line("for (;;) {")
	c.indent++
	c.line("const %s = r.bitsRead;", pos)
	c.line("const %s = r.readIntRelative(%s);", k, prev)
	c.line("if (r.failed) return r.at(%s);", p)
	c.line("if (%s > %s) return r.fail(\"Range\", %s, \"element index \" + %s + \" out of range for \" + %s + \" elements\") || r.at(%s);", k, m, pos, k, m, p)
	c.line("if (%s === %s) break;", k, m)
	at := ""
	if v.Unrolled {
		at = pos // bitpack places an unrolled element's refusal at its index
	}
	x := elem(a, k) // filled in place
	if v.Elem.Op == model.OpPointer {
		x = a + "[" + k + "]" // only assigned
	}
	e.dBody(c, v.Elem, x, elem(a, k), withIdx(idx, k), at)
	c.line("%s = %s;", prev, k)
	c.close()
	c.loops--
	return prev
}

// dSlice renders a slice's part: whether it was resized, its new length,
// the list of changed elements it shares with the base, then the
// elements it gained, whole.
func (e *Emitter) dSlice(c *body, v *model.Value, cur string, idx []string, p, start string) {
	a, nb, n, rs := c.local("a"), c.local("n"), c.local("n"), c.local("z")
	c.line("const %s = %s;", a, cur)
	c.line("const %s = %s.length;", nb, a)
	c.line("let %s = %s;", n, nb)
	c.line("const %s = r.readBits(1);", rs)
	c.line("if (r.failed) return r.at(%s);", p)
	c.line("if (%s === 1) {", rs)
	c.indent++
	e.dLength(c, v, n, nb, p, false)
	c.close()
	m := c.local("m")
	c.line("const %s = Math.min(%s, %s);", m, n, nb)
	prev := e.dList(c, v, a, m, idx, p)
	c.line("if (%s === 0 && %s < 0) return deltaUnchanged(r, %s) || r.at(%s);", rs, prev, start, p)
	// The elements it gains, checked and charged as a slice's (from the bit
	// after the list; charged where the part starts).
	c.line("if (%s > %s && !(r.checkCount(%s - %s, %d, \"element\", \"elements\") && r.chargeValues(%s - %s, %s, %s))) return r.at(%s);", n, nb, n, nb, v.Each, n, nb, eachCharge(v), start, p)
	c.line("%s.length = Math.min(%s, %s);", a, n, nb)
	i := "i" + strconv.Itoa(c.loops)
	c.loops++
	c.line("for (let %s = %s; %s < %s; %s++) {", i, nb, i, n, i)
	c.indent++
	e.read(c, v.Elem, a+"["+i+"]", withIdx(idx, i), true)
	c.close()
	c.loops--
}

// dLength reads a resized slice's new length into n (nb: the base's); for
// a sparse slice (slots), the slots it gains are charged at the length.
func (e *Emitter) dLength(c *body, v *model.Value, n, nb, p string, slots bool) {
	pos, l := c.local("x"), c.local("l")
	c.line("const %s = r.bitsRead;", pos)
	c.line("const %s = r.readBits(%d);", l, v.Prefix.Bits)
	c.line("if (r.failed) return r.at(%s);", p)
	c.line("if (%s > %d) return r.fail(\"Range\", %s, \"length \" + %s + \" exceeds maxlen %d\") || r.at(%s);", l, v.MaxLen, pos, l, v.MaxLen, p)
	c.line("if (%s === %s) return r.fail(\"Range\", %s, \"new length \" + %s + \" is the base's (not canonical)\") || r.at(%s);", l, nb, pos, l, p)
	if slots {
		c.line("if (%s > %s && !r.chargeSlots(%s - %s, %s)) return r.at(%s);", l, nb, l, nb, pos, p)
	}
	c.line("%s = %s;", n, l)
}

// dSparse renders a sparse array's or slice's part.
func (e *Emitter) dSparse(c *body, v *model.Value, cur string, idx []string, p, start string) {
	a, n, rs := c.local("a"), c.local("n"), c.local("z")
	c.line("const %s = %s;", a, cur)
	c.line("let %s = %d;", n, v.Len)
	c.line("let %s = 0;", rs)
	if v.Prefix != nil {
		nb := c.local("n")
		c.line("const %s = %s.length;", nb, a)
		c.line("%s = %s;", n, nb)
		c.line("%s = r.readBits(1);", rs)
		c.line("if (r.failed) return r.at(%s);", p)
		c.line("if (%s === 1) {", rs)
		c.indent++
		e.dLength(c, v, n, nb, p, true)
		c.line("%s.length = %s;", a, n)
		c.line("%s.fill(null, %s);", a, nb)
		c.close()
	}
	prev, pos := c.local("p"), c.local("x")
	k := "k" + strconv.Itoa(c.loops)
	c.loops++
	c.line("for (let %s = -1; ; ) {", prev)
	c.indent++
	c.line("const %s = r.bitsRead;", pos)
	c.line("const %s = r.readIntRelative(%s);", k, prev)
	c.line("if (r.failed) return r.at(%s);", p)
	c.line("if (%s > %s) return r.fail(\"Range\", %s, \"sparse index \" + %s + \" out of range for length \" + %s) || r.at(%s);", k, n, pos, k, n, p)
	c.line("if (%s === %s) {", k, n)
	c.line("  if (%s === 0 && %s < 0) return deltaUnchanged(r, %s) || r.at(%s);", rs, prev, start, p)
	c.line("  break;")
	c.line("}")
	l := c.local("e")
	c.line("const %s = %s[%s];", l, a, k)
	c.line("if (%s === null || %s === undefined) {", l, l)
	c.indent++
	c.line("if (!r.chargeValue(%d, %d, %s)) return r.at(%s);", v.Charge.Work, v.Charge.Bytes, pos, code.PathExpr(v.Elem.Path, withIdx(idx, k)))
	e.readPresent(c, v.Elem, a+"["+k+"]", withIdx(idx, k))
	c.indent--
	c.line("} else if (r.readBits(1) === 0) {")
	c.line("  if (r.failed) return r.at(%s);", code.PathExpr(v.Elem.Path, withIdx(idx, k)))
	c.line("  %s[%s] = null;", a, k)
	c.line("} else {")
	c.indent++
	e.dBody(c, v.Elem, e.presentTarget(v.Elem, a+"["+k+"]", l), e.present(v.Elem, l), withIdx(idx, k), "")
	c.close()
	c.line("%s = %s;", prev, k)
	c.close()
	c.loops--
}

// dUnion renders a union's part: the member's index, then its body when
// the base holds that member, else the member whole.
func (e *Emitter) dUnion(c *body, v *model.Value, x, cur, p string) {
	u, start := c.local("u"), c.local("x")
	c.line("const %s = r.bitsRead;", start)
	if v.Type.Numbered {
		c.line("const %s = r.readBits(%d);", u, v.Type.IndexBits)
		c.line("if (r.failed) return r.at(%s);", p)
		c.line("switch (%s) {", u)
		defer func(known string) {
			c.line("  default:")
			c.line("    return r.fail(\"Range\", %s, \"union index \" + %s + %s) || r.at(%s);", start, u, code.Quote(" names no member ("+known+")"), p)
			c.line("}")
		}(unionIndices(v.Type))
	} else {
		c.line("const %s = r.readIndex(%d, %d);", u, v.Type.IndexBits, len(v.Type.Members))
		c.line("switch (%s) {", u)
		defer func() {
			c.line("  default:")
			c.line("    return r.at(%s);", p)
			c.line("}")
		}()
	}
	for i, mt := range v.Type.Members {
		n, h, m := e.typeNames[mt], c.local("h"), c.local("m")
		c.line("  case %d: {", v.Type.Indices[i])
		c.indent += 2
		c.line("const %s = %s;", h, cur)
		c.line("if (%s.type === %q) {", h, n)
		c.indent++
		y, ch := c.local("y"), c.local("c")
		c.line("const %s = r.bitsRead;", y)
		c.line("const %s = read%sDeltaItems(r, %s.value, %t);", ch, n, h, typeItems(mt) > 1)
		c.line("if (r.failed) return r.at(%s);", p)
		c.line("if (!%s) return deltaUnchanged(r, %s) || r.at(%s);", ch, y, p)
		c.indent--
		c.line("} else {")
		c.line("  if (!r.chargeValue(%d, %d, %s)) return r.at(%s);", mt.Charge.Work, mt.Charge.Bytes, start, p)
		c.line("  const %s = new%s();", m, n)
		c.line("  if (!read%sFields(r, %s)) return r.at(%s);", n, m, p)
		c.line("  %s = { type: %q, value: %s };", x, n, m)
		c.line("}")
		c.line("break;")
		c.indent -= 2
		c.line("  }")
	}
}

func unionIndices(t *model.Type) string {
	s := ""
	for i, idx := range t.Indices {
		if i > 0 {
			s += ", "
		}
		s += strconv.FormatUint(idx, 10)
	}
	return s
}

// dMap renders a map's part: its changed entries in ascending key order,
// each added whole, removed, or its value's body.
func (e *Emitter) dMap(c *body, v *model.Value, cur string, idx []string, p, start string) {
	m, prev, key, pos, val := c.local("m"), c.local("s"), c.local("y"), c.local("x"), c.local("e")
	k := "i" + strconv.Itoa(c.loops)
	c.loops++
	c.line("const %s = %s;", m, cur)
	c.line("let %s: %s = %s;", prev, e.tsType(v.Key), e.zero(v.Key))
	c.line("for (let %s = 0; ; %s++) {", k, k)
	c.indent++
	c.line("const %s = r.bitsRead;", pos)
	c.line("if (r.readBits(1) === 0) {")
	c.line("  if (r.failed) return r.at(%s);", p)
	c.line("  if (%s === 0) return deltaUnchanged(r, %s) || r.at(%s);", k, start, p)
	c.line("  if (%s.size > %d) return r.fail(\"Range\", %s, \"the delta leaves \" + %s.size + \" entries, more than maxlen %d\") || r.at(%s);", m, v.MaxLen, pos, m, v.MaxLen, p)
	c.line("  break;")
	c.line("}")
	c.line("let %s: %s = %s;", key, e.tsType(v.Key), e.zero(v.Key))
	e.read(c, v.Key, key, withIdx(idx, `"key " + `+k), false)
	c.line("if (%s > 0 && %s) {", k, tsKeyNotAbove(v.Order, key, prev))
	c.line("  return r.fail(\"Range\", %s, \"key \" + %s + \" does not follow key \" + %s + \": a map's changed entries travel in ascending key order, each once\") || r.at(%s);", pos, tsKeyText(v.Key, key), tsKeyText(v.Key, prev), p)
	c.line("}")
	at := withIdx(idx, tsKeyText(v.Key, key))
	c.line("if (!%s.has(%s)) {", m, key)
	c.indent++
	c.line("if (!r.chargeEntry(%d, %d, %s)) return r.at(%s);", v.Charge.Work, v.Charge.Bytes, pos, code.PathExpr(v.Elem.Path, at))
	c.line("let %s: %s = %s;", val, e.tsType(v.Elem), e.zero(v.Elem))
	e.read(c, v.Elem, val, at, false)
	c.line("%s.set(%s, %s);", m, key, val)
	c.indent--
	c.line("} else if (r.readBits(1) === 0) {")
	c.line("  if (r.failed) return r.at(%s);", code.PathExpr(v.Elem.Path, at))
	c.line("  %s.delete(%s);", m, key)
	c.line("} else {")
	c.indent++
	c.line("let %s = %s.get(%s) as %s;", val, m, key, e.tsType(v.Elem))
	e.dBody(c, v.Elem, val, val, at, "")
	c.line("%s.set(%s, %s);", m, key, val)
	c.close()
	c.line("%s = %s;", prev, key)
	c.close()
	c.loops--
}

// withIdx is idx and one more loop index, in an array of its own.
func withIdx(idx []string, i string) []string {
	return append(append(make([]string, 0, len(idx)+1), idx...), i)
}

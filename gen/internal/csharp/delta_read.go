package csharp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// The C# delta reader (see delta.go): each item's changed bit and part,
// applied to a copy of the base; every part must change what it names,
// and its refusals are bitpack's, word for word.

// dReadItems renders the reads of items: bit ("true" or "false") says
// whether each has a changed bit; changed names the bool set when an item
// changed.
func (e *Emitter) dReadItems(c *body, items []csItem, bit, changed string) {
	for _, it := range items {
		e.dReadItem(c, it, bit, changed)
	}
}

func (e *Emitter) dReadItem(c *body, it csItem, bit, changed string) {
	v := it.v
	p := code.PathExpr(v.Path, it.idx)
	ret := csRet("r", p)
	start := c.local("d")
	c.open()
	c.line("int %s = r.BitsRead;", start)
	if bit == "true" { // else the value's only item, which changed
		f := c.local("d")
		c.line("bool %s;", f)
		c.line("if (!r.ReadBool(out %s))", f)
		c.line("    %s", ret)
		c.line("if (%s)", f)
		c.open()
	}
	e.dReadPart(c, it, start, p, ret)
	c.line("%s = true;", changed)
	if bit == "true" {
		c.close()
	}
	c.close()
}

// dReadPart renders the read of a changed item's part, which starts (its
// changed bit included) at the bit in start.
func (e *Emitter) dReadPart(c *body, it csItem, start, p, ret string) {
	v := it.v
	refuse := func(cond, bitAt, msg string) {
		c.line("if (%s)", cond)
		c.open()
		c.line("r.Fail(BitpackErrorKind.Range, %s, %s);", bitAt, msg)
		c.line("%s", ret)
		c.close()
	}
	switch v.Op {
	case model.OpBool, model.OpInt, model.OpFloat, model.OpCompressed:
		limit, flip, lo := v.Code.Limit, v.Code.Flip, v.Code.Lo
		code := c.local("d")
		c.line("ulong %s;", code)
		c.line("if (!r.ReadScalarDelta(%s, %d, %s, %s, %s, %s, %s, out %s))", start, v.Bits, e.oldCode(v, it.get), csUlong(limit), csUlong(flip), scalarKind(v), csUlong(lo), code)
		c.line("    %s", ret)
		c.line("%s = %s;", it.set, e.fromCode(v, code))
	case model.OpQuat:
		var g [4]string
		for k, steps := range v.Comps {
			g[k] = it.get + e.quatComp(steps)
			if v.FloatBits == 64 {
				g[k] = "(float)" + g[k]
			}
		}
		l, q := c.local("d"), c.local("d")
		c.line("uint %s0, %s1, %s2, %s3;", l, l, l, l)
		c.line("float %s0, %s1, %s2, %s3;", q, q, q, q)
		c.line("Bitpack.QuatEncode(%s, %s, %s, %s, %du, out %s0, out %s1, out %s2, out %s3);", g[0], g[1], g[2], g[3], v.Steps, l, l, l, l)
		c.line("if (!r.ReadQuatDelta(%s, %d, %s0, %s1, %s2, %s3, out %s0, out %s1, out %s2, out %s3))", start, v.Bits, l, l, l, l, q, q, q, q)
		c.line("    %s", ret)
		for k, steps := range v.Comps {
			c.line("%s%s = %s%d;", it.get, e.quatComp(steps), q, k)
		}
	case model.OpString:
		s := c.local("d")
		c.line("string %s;", s)
		c.line("if (!r.ReadStringDelta(%s, %d, %d, %s, out %s))", start, v.Prefix.Bits, v.MaxLen, it.get, s)
		c.line("    %s", ret)
		c.line("%s = %s;", it.set, s)
	case model.OpBytes:
		s := c.local("d")
		c.line("byte[] %s;", s)
		c.line("if (!r.ReadByteSliceDelta(%s, %d, %d, %s, out %s))", start, v.Prefix.Bits, v.MaxLen, it.get, s)
		c.line("    %s", ret)
		c.line("%s = %s;", it.set, s)
	case model.OpByteArray:
		c.line("if (!r.ReadByteArrayDelta(%s, %s))", start, it.get)
		c.line("    %s", ret)
	case model.OpArray:
		prev := e.dReadList(c, it, strconv.Itoa(v.Len), v.Unrolled, csRet("r", p))
		c.line("if (%s < 0)", prev)
		c.line("    return r.Unchanged(%s) || r.At(%s);", start, p)
	case model.OpSlice:
		e.dReadSlice(c, it, start, p, ret, refuse)
	case model.OpPointer:
		c.line("if (%s == null)", it.get)
		c.open()
		c.line("if (!r.ChargeValue(%d, %d, %s))", v.Charge.Work, v.Charge.Bytes, start)
		c.line("    %s", ret)
		e.readPresent(c, v.Elem, it.set, it.idx)
		c.close()
		c.line("else")
		c.open()
		e.dReadOptional(c, v.Elem, it.set, it.get, it.idx, ret)
		c.close()
	case model.OpSparse:
		e.dReadSparse(c, it, start, p, ret, refuse)
	case model.OpUnion:
		e.dReadUnion(c, it, p, ret)
	case model.OpMap:
		e.dReadMap(c, it, start, p, ret, refuse)
	case model.OpHook:
		// The value read is compared with the base's as Go compares them:
		// by the bits each writes on its own (its bits in the packet can
		// differ when the hook aligns); one that cannot be written is a
		// change.
		name, tmp, at, nv, now := e.typeNames[v.Type], c.local("d"), c.local("d"), c.local("d"), c.local("d")
		c.line("BitpackWriter %s = new BitpackWriter(16);", tmp)
		c.line("if (%s != null && !%s.WriteTo(ref %s))", it.get, it.get, tmp)
		c.line("    return r.Fail(%s.ErrorKind, %s, \"base value: \" + %s.ErrorDetail) || r.At(%s);", tmp, start, tmp, p)
		c.line("int %s = r.BitsRead;", at)
		c.line("%s %s;", name, nv)
		c.line("if (!r.ChargeHook(%d, %d, %s) || !%s.Read(ref r, out %s))", v.Charge.Work, v.Charge.Bytes, at, name, nv)
		c.line("    %s", ret)
		c.line("BitpackWriter %s = new BitpackWriter(16);", now)
		c.line("if (%s != null && %s.WriteTo(ref %s) && %s.BitsWritten == %s.BitsWritten && %s.SameBits(0, %s.Buffer, %s.BitsWritten))", nv, nv, now, now, tmp, now, tmp, tmp)
		c.line("    return r.Unchanged(%s) || r.At(%s);", start, p)
		c.line("%s = %s;", it.set, nv)
	default:
		panic("gen: C# has no delta of " + v.Op.String())
	}
}

// dReadOptional reads the rest of a pointer's or a full sparse slot's
// part (a bit: 0, it is absent now; 1, the body of its value, which must
// change), x holding it.
func (e *Emitter) dReadOptional(c *body, ev *model.Value, set, get string, idx []string, ret string) {
	pr := c.local("d")
	c.line("bool %s;", pr)
	c.line("if (!r.ReadBool(out %s))", pr)
	c.line("    %s", ret)
	c.line("if (!%s)", pr)
	c.line("    %s = null;", set)
	c.line("else")
	c.open()
	eget := e.present(ev, get)
	eset := set
	if ev.Op == model.OpPointer {
		eset = eget
	}
	e.dReadSub(c, ev, eset, eget, idx)
	c.close()
}

// dReadSub reads the body of a value that is a delta of its own (an
// element, a pointee, a union member, a map value), which must change it;
// its refusals name its path.
func (e *Emitter) dReadSub(c *body, v *model.Value, set, get string, idx []string) {
	p := code.PathExpr(v.Path, idx)
	bs, ch := c.local("d"), c.local("d")
	c.line("int %s = r.BitsRead;", bs)
	c.line("bool %s = false;", ch)
	if v.Op.IsStruct() && v.Fields == nil {
		c.line("if (!%s.ReadDeltaBody(ref r, out %s))", get, ch)
		c.line("    %s", csRet("r", p))
	} else {
		items := csItems(e, v, set, get, "", idx)
		e.dReadItems(c, items, strconv.FormatBool(countItems(items) > 1), ch)
	}
	c.line("if (!%s)", ch)
	c.line("    return r.Unchanged(%s) || r.At(%s);", bs, p)
}

// dReadList reads the list of changed elements among the first m of an
// array or slice (each index as int_relative from the previous, its
// body; the end marker m), applying each to its element. It returns the
// variable holding the last index listed (-1: none). unrolledArray: an
// array bitpack unrolls into its parent's ops, which refuses an element
// that does not change at its index.
func (e *Emitter) dReadList(c *body, it csItem, m string, unrolledArray bool, ret string) string {
	v := it.v
	prev, q, i := c.local("d"), c.local("d"), c.local("d")
	c.line("int %s = -1;", prev)
	c.line("for (;;)")
	c.open()
	c.line("int %s = r.BitsRead, %s;", q, i)
	c.line("if (!r.ReadIntRelative(%s, out %s))", prev, i)
	c.line("    %s", ret)
	c.line("if (%s > %s)", i, m)
	c.open()
	c.line("r.Fail(BitpackErrorKind.Range, %s, \"element index \" + %s + \" out of range for \" + %s + \" elements\");", q, i, m)
	c.line("%s", ret)
	c.close()
	c.line("if (%s == %s)", i, m)
	c.line("    break;")
	idx := append(append([]string{}, it.idx...), i)
	eget := it.get + "[" + i + "]"
	if unrolledArray {
		ch := c.local("d")
		c.line("bool %s = false;", ch)
		items := csItems(e, v.Elem, eget, eget, "", idx)
		e.dReadItems(c, items, strconv.FormatBool(countItems(items) > 1), ch)
		c.line("if (!%s)", ch)
		c.line("    return r.Unchanged(%s) || r.At(%s + \"[\" + %s + \"]\");", q, code.PathExpr(v.Path, it.idx), i)
	} else {
		e.dReadSub(c, v.Elem, eget, eget, idx)
	}
	c.line("%s = %s;", prev, i)
	c.close()
	return prev
}

func (e *Emitter) dReadSlice(c *body, it csItem, start, p, ret string, refuse func(cond, bitAt, msg string)) {
	v := it.v
	nb, n, m := c.local("d"), c.local("d"), c.local("d")
	c.line("int %s = %s == null ? 0 : %s.Length, %s = %s;", nb, it.get, it.get, n, nb)
	rs := e.dReadLength(c, v, nb, n, ret, refuse, false)
	c.line("int %s = %s < %s ? %s : %s;", m, n, nb, n, nb)
	prev := e.dReadList(c, it, m, false, ret)
	c.line("if (!%s && %s < 0)", rs, prev)
	c.line("    return r.Unchanged(%s) || r.At(%s);", start, p)
	c.line("if (%s != %s)", n, nb)
	c.open()
	// The elements it gains, checked and charged as a slice's (from the
	// bit after the list; charged where the part starts).
	c.line("if (%s > %s && (!r.CheckCount(%s - %s, %d, \"element\", \"elements\") || !r.ChargeValues(%s - %s, %s, %s)))", n, nb, n, nb, v.Each, n, nb, eachCharge(v), start)
	c.line("    %s", ret)
	a := c.local("d")
	c.line("%s %s = %s;", e.csType(v), a, newArray(e.csType(v.Elem), n))
	c.line("if (%s > 0)", m)
	c.line("    global::System.Array.Copy(%s, %s, %s);", it.get, a, m)
	c.line("%s = %s;", it.set, a)
	i := "i" + strconv.Itoa(c.loops)
	c.loops++
	c.line("for (int %s = %s; %s < %s; %s++)", i, nb, i, n, i)
	c.open()
	e.readInto(c, v.Elem, a+"["+i+"]", append(append([]string{}, it.idx...), i), true, true)
	c.close()
	c.loops--
	c.close()
}

// dReadLength reads a slice's resized bit and, when set, its new length
// into n (nb: the base's length), refusing one past maxlen or the base's;
// for a sparse slice (slots), the slots it gains are charged at the
// length. It returns the variable holding the bit.
func (e *Emitter) dReadLength(c *body, v *model.Value, nb, n, ret string, refuse func(cond, bitAt, msg string), slots bool) string {
	rs, q, l := c.local("d"), c.local("d"), c.local("d")
	c.line("bool %s;", rs)
	c.line("if (!r.ReadBool(out %s))", rs)
	c.line("    %s", ret)
	c.line("if (%s)", rs)
	c.open()
	c.line("int %s = r.BitsRead;", q)
	c.line("uint %s;", l)
	c.line("if (!r.ReadBits(%d, out %s))", v.Prefix.Bits, l)
	c.line("    %s", ret)
	refuse(fmt.Sprintf("%s > %du", l, v.MaxLen), q, fmt.Sprintf("\"length \" + %s + \" exceeds maxlen %d\"", l, v.MaxLen))
	refuse(fmt.Sprintf("%s == %s", l, nb), q, fmt.Sprintf("\"new length \" + %s + \" is the base's (not canonical)\"", l))
	if slots {
		c.line("if (%s > %s && !r.ChargeSlots(%s - %s, %s))", l, nb, l, nb, q)
		c.line("    %s", ret)
	}
	c.line("%s = (int)%s;", n, l)
	c.close()
	return rs
}

func (e *Emitter) dReadSparse(c *body, it csItem, start, p, ret string, refuse func(cond, bitAt, msg string)) {
	v := it.v
	slot := e.optional(v.Elem)
	n, rs := c.local("d"), "false"
	if v.Prefix != nil {
		nb := c.local("d")
		c.line("int %s = %s == null ? 0 : %s.Length, %s = %s;", nb, it.get, it.get, n, nb)
		rs = e.dReadLength(c, v, nb, n, ret, refuse, true)
		c.line("if (%s)", rs)
		c.open()
		a := c.local("d")
		c.line("%s[] %s = %s;", slot, a, newArray(slot, n))
		c.line("if (%s > 0)", nb)
		c.line("    global::System.Array.Copy(%s, %s, %s < %s ? %s : %s);", it.get, a, n, nb, n, nb)
		c.line("%s = %s;", it.set, a)
		c.close()
	} else {
		c.line("int %s = %d;", n, v.Len)
	}
	prev, q, i := c.local("d"), c.local("d"), c.local("d")
	c.line("int %s = -1;", prev)
	c.line("for (;;)")
	c.open()
	c.line("int %s = r.BitsRead, %s;", q, i)
	c.line("if (!r.ReadIntRelative(%s, out %s))", prev, i)
	c.line("    %s", ret)
	refuse(i+" > "+n, q, fmt.Sprintf("\"sparse index \" + %s + \" out of range for length \" + %s", i, n))
	c.line("if (%s == %s)", i, n)
	c.open()
	cond := prev + " < 0"
	if rs != "false" {
		cond = "!" + rs + " && " + cond
	}
	c.line("if (%s)", cond)
	c.line("    return r.Unchanged(%s) || r.At(%s);", start, p)
	c.line("break;")
	c.close()
	idx := append(append([]string{}, it.idx...), i)
	sx := it.set + "[" + i + "]"
	c.line("if (%s == null)", sx)
	c.open()
	c.line("if (!r.ChargeValue(%d, %d, %s))", v.Charge.Work, v.Charge.Bytes, q)
	c.line("    %s", csRet("r", code.PathExpr(v.Elem.Path, idx)))
	e.readPresent(c, v.Elem, sx, idx)
	c.close()
	c.line("else")
	c.open()
	e.dReadOptional(c, v.Elem, sx, sx, idx, csRet("r", code.PathExpr(v.Elem.Path, idx)))
	c.close()
	c.line("%s = %s;", prev, i)
	c.close()
}

func (e *Emitter) dReadUnion(c *body, it csItem, p, ret string) {
	v := it.v
	q, k := c.local("d"), c.local("d")
	c.line("int %s = r.BitsRead, %s;", q, k)
	if v.Type.Numbered {
		u := c.local("d")
		c.line("uint %s;", u)
		c.line("if (!r.ReadBits(%d, out %s))", v.Type.IndexBits, u)
		c.line("    %s", ret)
		c.line("switch (%s)", u)
		c.open()
		var known []string
		for i, idx := range v.Type.Indices {
			c.line("case %du: %s = %d; break;", idx, k, i)
			known = append(known, strconv.FormatUint(idx, 10))
		}
		c.line("default:")
		c.line("    r.Fail(BitpackErrorKind.Range, %s, \"union index \" + %s + %s);", q, u, code.Quote(" names no member ("+strings.Join(known, ", ")+")"))
		c.line("    %s", ret)
		c.close()
	} else {
		c.line("if (!r.ReadIndex(%d, %d, out %s))", v.Type.IndexBits, len(v.Type.Members), k)
		c.line("    %s", ret)
	}
	c.line("switch (%s)", k)
	c.open()
	for i, mt := range v.Type.Members {
		name, m := e.typeNames[mt], c.local("d")
		c.line("case %d:", i)
		c.open()
		c.line("%s %s = %s as %s;", name, m, it.get, name)
		c.line("if (%s != null)", m)
		c.open()
		bs, ch := c.local("d"), c.local("d")
		c.line("int %s = r.BitsRead;", bs)
		c.line("bool %s;", ch)
		c.line("if (!%s.ReadDeltaBody(ref r, out %s))", m, ch)
		c.line("    %s", ret)
		c.line("if (!%s)", ch)
		c.line("    return r.Unchanged(%s) || r.At(%s);", bs, p)
		c.close()
		c.line("else")
		c.open()
		c.line("if (!r.ChargeValue(%d, %d, %s))", mt.Charge.Work, mt.Charge.Bytes, q)
		c.line("    %s", ret)
		c.line("%s = new %s();", m, name)
		c.line("if (!%s.ReadFrom(ref r))", m)
		c.line("    %s", ret)
		c.line("%s = %s;", it.set, m)
		c.close()
		c.line("break;")
		c.close()
	}
	c.close()
}

func (e *Emitter) dReadMap(c *body, it csItem, start, p, ret string, refuse func(cond, bitAt, msg string)) {
	v := it.v
	ktype, vtype := e.csType(v.Key), e.csType(v.Elem)
	k, prev, q, more, key, cur := c.local("d"), c.local("d"), c.local("d"), c.local("d"), c.local("d"), c.local("d")
	c.line("if (%s == null)", it.set)
	c.line("    %s = new %s();", it.set, e.csType(v))
	c.line("%s %s = default(%s);", ktype, prev, ktype)
	c.line("for (int %s = 0; ; %s++)", k, k)
	c.open()
	c.line("int %s = r.BitsRead;", q)
	c.line("bool %s;", more)
	c.line("if (!r.ReadBool(out %s))", more)
	c.line("    %s", ret)
	c.line("if (!%s)", more)
	c.open()
	c.line("if (%s == 0)", k)
	c.line("    return r.Unchanged(%s) || r.At(%s);", start, p)
	refuse(fmt.Sprintf("%s.Count > %d", it.get, v.MaxLen), q, fmt.Sprintf("\"the delta leaves \" + %s.Count + \" entries, more than maxlen %d\"", it.get, v.MaxLen))
	c.line("break;")
	c.close()
	c.line("%s %s;", ktype, key)
	e.readInto(c, v.Key, key, append(append([]string{}, it.idx...), `"key " + `+k), true, true)
	refuse(fmt.Sprintf("%s > 0 && %s", k, csKeyNotAbove(v.Order, key, prev)), q,
		fmt.Sprintf("\"key \" + %s + \" does not follow key \" + %s + \": a map's changed entries travel in ascending key order, each once\"", e.keyText(v.Key, key), e.keyText(v.Key, prev)))
	idx := append(append([]string{}, it.idx...), e.keyText(v.Key, key))
	c.line("%s %s;", vtype, cur)
	c.line("if (!%s.TryGetValue(%s, out %s))", it.get, key, cur)
	c.open()
	c.line("if (!r.ChargeEntry(%d, %d, %s))", v.Charge.Work, v.Charge.Bytes, q)
	c.line("    %s", csRet("r", code.PathExpr(v.Elem.Path, idx)))
	e.readInto(c, v.Elem, cur, idx, true, true)
	c.line("%s.Add(%s, %s);", it.get, key, cur)
	c.close()
	c.line("else")
	c.open()
	pr := c.local("d")
	c.line("bool %s;", pr)
	c.line("if (!r.ReadBool(out %s))", pr)
	c.line("    %s", csRet("r", code.PathExpr(v.Elem.Path, idx)))
	c.line("if (!%s)", pr)
	c.line("    %s.Remove(%s);", it.get, key)
	c.line("else")
	c.open()
	e.dReadSub(c, v.Elem, cur, cur, idx)
	c.line("%s[%s] = %s;", it.get, key, cur)
	c.close()
	c.close()
	c.line("%s = %s;", prev, key)
	c.close()
}

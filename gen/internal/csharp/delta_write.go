package csharp

import (
	"fmt"
	"strconv"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// The C# delta writer (see delta.go) and Clone. A write checks what
// it sends as bitpack.AppendDelta does: each value that differs from the
// base's, and the base's value when its code is needed (refused as
// "base value: ..."); a value the same as the base's is unchanged,
// unchecked. A container whose change is known only once its parts are
// compared is written as changed and taken back (Rewind) when nothing was.

// bitLine writes a changed bit of value b when bit ("true" or "false")
// says the item has one.
func csBitLine(c *body, bit, b string) {
	if bit == "true" {
		c.line("w.WriteBits(%s, 1);", b)
	}
}

// dWriteItems renders the writes of items against their base's (bit: see
// dReadItems).
func (e *Emitter) dWriteItems(c *body, items []csItem, bit, changed string) {
	for _, it := range items {
		e.dWriteItem(c, it, bit, changed)
	}
}

// absentChecks refuses a null object of v (a class: struct, hook,
// quaternion holder) in the value, then in the base.
func (e *Emitter) absentChecks(c *body, v *model.Value, g, b, p string) {
	if e.valueStruct(v) {
		return // a struct: never null
	}
	what := code.Quote("null " + e.typeNames[v.Type] + ": only a Go pointer may be absent")
	for k, x := range []string{g, b} {
		c.line("if (%s == null)", x)
		c.open()
		c.line("w.Fail(BitpackErrorKind.Range, %s);", what)
		if k == 0 {
			c.line("%s", csRet("w", p))
		} else {
			c.line("return w.BaseValue() || w.At(%s);", p)
		}
		c.close()
	}
}

// lengthChecks refuses a fixed-size array of another length than n in the
// value, then in the base.
func lengthChecks(c *body, g, b string, n int, p string) {
	c.line("if (!Bitpack.FixedLength(ref w, %s, %d))", g, n)
	c.line("    %s", csRet("w", p))
	c.line("if (!Bitpack.FixedLength(ref w, %s, %d))", b, n)
	c.line("    return w.BaseValue() || w.At(%s);", p)
}

// changedPart renders a part that changed for sure once reached: its
// changed bit, the part, changed set.
func changedPart(c *body, bit, changed string, part func()) {
	c.line("else")
	c.open()
	csBitLine(c, bit, "1")
	part()
	c.line("%s = true;", changed)
	c.close()
}

// maybePart renders a part whose change is known once it is written: its
// changed bit as 1, the part (which sets ch when it changed), then either
// changed set or everything taken back and the changed bit 0.
func maybePart(c *body, bit, changed string, part func(ch string)) {
	start, ch := c.local("d"), c.local("d")
	c.line("else")
	c.open()
	c.line("int %s = w.BitsWritten;", start)
	c.line("bool %s = false;", ch)
	csBitLine(c, bit, "1")
	part(ch)
	c.line("if (%s)", ch)
	c.line("    %s = true;", changed)
	c.line("else")
	c.open()
	c.line("w.Rewind(%s);", start)
	csBitLine(c, bit, "0")
	c.close()
	c.close()
}

func (e *Emitter) dWriteItem(c *body, it csItem, bit, changed string) {
	for _, o := range it.objs {
		e.absentChecks(c, o.v, o.get, o.base, code.PathExpr(o.v.Path, o.idx))
	}
	v, g, b := it.v, it.get, it.base
	p := code.PathExpr(v.Path, it.idx)
	ret := csRet("w", p)
	same := func(cond string) {
		c.line("if (%s)", cond)
		c.open()
		if bit == "false" {
			c.line("// the same: nothing to write")
		}
		csBitLine(c, bit, "0")
		c.close()
	}
	switch v.Op {
	case model.OpBool, model.OpInt, model.OpFloat, model.OpCompressed:
		same(sameValue(v, g, b))
		c.line("else")
		c.open()
		cv, cb := c.local("d"), c.local("d")
		c.line("ulong %s, %s;", cv, cb)
		if call := e.codeCall(v, g, cv); call != "" {
			c.line("if (!%s)", call)
			c.line("    %s", ret)
			c.line("if (!%s)", e.codeCall(v, b, cb))
			c.line("    return w.BaseValue() || w.At(%s);", p)
		} else {
			c.line("%s = %s;", cv, e.oldCode(v, g))
			c.line("%s = %s;", cb, e.oldCode(v, b))
		}
		flip := v.Code.Flip
		c.line("if (w.WriteScalarDelta(%s, %s, %s, %d, %s))", bit, cv, cb, v.Bits, csUlong(flip))
		c.line("    %s = true;", changed)
		c.close()
	case model.OpQuat:
		e.dWriteQuat(c, it, bit, changed, p, same)
	case model.OpString:
		same(fmt.Sprintf("(%s ?? \"\") == (%s ?? \"\")", g, b))
		changedPart(c, bit, changed, func() {
			c.line("if (!w.WriteString(%s, %d, %d))", g, v.MaxLen, v.Prefix.Bits)
			c.line("    %s", ret)
		})
	case model.OpBytes:
		same(fmt.Sprintf("Bitpack.SameBytes(%s, %s)", g, b))
		changedPart(c, bit, changed, func() {
			c.line("if (!w.WriteByteSlice(%s, %d, %d))", g, v.MaxLen, v.Prefix.Bits)
			c.line("    %s", ret)
		})
	case model.OpByteArray:
		same(fmt.Sprintf("Bitpack.SameBytes(%s, %s)", g, b))
		changedPart(c, bit, changed, func() {
			c.line("if (!w.WriteByteArray(%s, %d))", g, v.Len)
			c.line("    %s", ret)
		})
	case model.OpArray:
		lengthChecks(c, g, b, v.Len, p)
		same(fmt.Sprintf("ReferenceEquals(%s, %s)", g, b))
		maybePart(c, bit, changed, func(ch string) {
			prev := e.dWriteList(c, it, strconv.Itoa(v.Len))
			c.line("if (%s >= 0)", prev)
			c.open()
			c.line("w.WriteIntRelative(%s, %d);", prev, v.Len)
			c.line("%s = true;", ch)
			c.close()
		})
	case model.OpSlice:
		e.dWriteSlice(c, it, bit, changed, p, same)
	case model.OpPointer:
		e.dWritePointer(c, it, bit, changed, p, same)
	case model.OpSparse:
		e.dWriteSparse(c, it, bit, changed, p, same)
	case model.OpUnion:
		e.dWriteUnion(c, it, bit, changed, p, same)
	case model.OpMap:
		e.dWriteMap(c, it, bit, changed, p, same)
	case model.OpHook:
		same(fmt.Sprintf("ReferenceEquals(%s, %s)", g, b))
		maybePart(c, bit, changed, func(ch string) {
			e.dWriteHook(c, v, g, b, p, ch)
		})
	default:
		panic("gen: C# has no delta of " + v.Op.String())
	}
}

func (e *Emitter) dWriteQuat(c *body, it csItem, bit, changed, p string, same func(string)) {
	v, g, b := it.v, it.get, it.base
	if v.Type != nil {
		e.absentChecks(c, v, g, b, p)
	} else {
		lengthChecks(c, g, b, 4, p)
	}
	var gv, gb [4]string
	var eq string
	for k, steps := range v.Comps {
		gv[k], gb[k] = g+e.quatComp(steps), b+e.quatComp(steps)
		if k > 0 {
			eq += " && "
		}
		eq += sameValue(&model.Value{Op: model.OpFloat, FloatBits: v.FloatBits}, gv[k], gb[k])
		if v.FloatBits == 64 {
			gv[k], gb[k] = "(float)"+gv[k], "(float)"+gb[k]
		}
	}
	same(eq)
	c.line("else")
	c.open()
	l, m := c.local("d"), c.local("d")
	c.line("uint %s0, %s1, %s2, %s3, %s0, %s1, %s2, %s3;", l, l, l, l, m, m, m, m)
	c.line("if (!w.CodeQuat(%s, %s, %s, %s, %du, out %s0, out %s1, out %s2, out %s3))", gv[0], gv[1], gv[2], gv[3], v.Steps, l, l, l, l)
	c.line("    %s", csRet("w", p))
	c.line("if (!w.CodeQuat(%s, %s, %s, %s, %du, out %s0, out %s1, out %s2, out %s3))", gb[0], gb[1], gb[2], gb[3], v.Steps, m, m, m, m)
	c.line("    return w.BaseValue() || w.At(%s);", p)
	same(fmt.Sprintf("%s0 == %s0 && %s1 == %s1 && %s2 == %s2 && %s3 == %s3", l, m, l, m, l, m, l, m))
	changedPart(c, bit, changed, func() {
		c.line("w.WriteBits(%s0, 2);", l)
		for k := 1; k <= 3; k++ {
			c.line("w.WriteBits(%s%d, %d);", l, k, v.Bits)
		}
	})
	c.close()
}

// dWriteList writes the changed ones among the first m elements of an
// array or slice (see dReadList), without the end marker, and returns the
// variable holding the last index listed (-1: none).
func (e *Emitter) dWriteList(c *body, it csItem, m string) string {
	v := it.v
	prev, i, pos := c.local("d"), c.local("d"), c.local("d")
	c.line("int %s = -1;", prev)
	c.line("for (int %s = 0; %s < %s; %s++)", i, i, m, i)
	c.open()
	c.line("int %s = w.BitsWritten;", pos)
	c.line("w.WriteIntRelative(%s, %s);", prev, i)
	idx := append(append([]string{}, it.idx...), i)
	ch := e.dWriteSub(c, v.Elem, it.get+"["+i+"]", it.base+"["+i+"]", idx)
	c.line("if (!%s)", ch)
	c.line("    w.Rewind(%s);", pos)
	c.line("else")
	c.line("    %s = %s;", prev, i)
	c.close()
	return prev
}

// dWriteSub writes the body of a value that is a delta of its own (an
// element, a pointee, a union member, a map value) against b, and returns
// the variable that says whether it changed.
func (e *Emitter) dWriteSub(c *body, v *model.Value, g, b string, idx []string) string {
	ch := c.local("d")
	c.line("bool %s = false;", ch)
	if v.Op.IsStruct() && v.Fields == nil {
		p := code.PathExpr(v.Path, idx)
		e.absentChecks(c, v, g, b, p)
		c.line("if (!%s.WriteDeltaBody(ref w, %s, out %s))", g, b, ch)
		c.line("    %s", csRet("w", p))
		return ch
	}
	items := csItems(e, v, g, g, b, idx)
	e.dWriteItems(c, items, strconv.FormatBool(countItems(items) > 1), ch)
	return ch
}

func (e *Emitter) dWriteSlice(c *body, it csItem, bit, changed, p string, same func(string)) {
	v, g, b := it.v, it.get, it.base
	n, nb, m := c.local("d"), c.local("d"), c.local("d")
	c.line("int %s = %s == null ? 0 : %s.Length, %s = %s == null ? 0 : %s.Length;", n, g, g, nb, b, b)
	c.line("if (%s > %d)", n, v.MaxLen)
	c.open()
	c.line("w.Fail(BitpackErrorKind.Range, \"slice of \" + %s + \" elements exceeds maxlen %d\");", n, v.MaxLen)
	c.line("%s", csRet("w", p))
	c.close()
	same(fmt.Sprintf("%s == %s && (%s == 0 || ReferenceEquals(%s, %s))", n, nb, n, g, b))
	maybePart(c, bit, changed, func(ch string) {
		c.line("w.WriteBool(%s != %s);", n, nb)
		c.line("if (%s != %s)", n, nb)
		c.line("    w.WriteBits((uint)%s, %d);", n, v.Prefix.Bits)
		c.line("int %s = %s < %s ? %s : %s;", m, n, nb, n, nb)
		prev := e.dWriteList(c, it, m)
		c.line("w.WriteIntRelative(%s, %s);", prev, m)
		c.line("if (%s != %s || %s >= 0)", n, nb, prev)
		c.open()
		i := "i" + strconv.Itoa(c.loops)
		c.loops++
		c.line("for (int %s = %s; %s < %s; %s++)", i, nb, i, n, i)
		c.open()
		e.write(c, v.Elem, g+"["+i+"]", append(append([]string{}, it.idx...), i))
		c.close()
		c.loops--
		c.line("%s = true;", ch)
		c.close()
	})
}

// sameOptional is the C# condition that two pointers or sparse slots of
// v are the same: both absent, or the same object.
func (e *Emitter) sameOptional(ev *model.Value, g, b string) string {
	if csValueType(ev) {
		return fmt.Sprintf("(%s == null && %s == null)", g, b)
	}
	return fmt.Sprintf("ReferenceEquals(%s, %s)", g, b)
}

func (e *Emitter) dWritePointer(c *body, it csItem, bit, changed, p string, same func(string)) {
	v, g, b := it.v, it.get, it.base
	same(e.sameOptional(v.Elem, g, b))
	c.line("else if (%s == null)", b)
	c.open()
	csBitLine(c, bit, "1")
	e.write(c, v.Elem, e.present(v.Elem, g), it.idx)
	c.line("%s = true;", changed)
	c.close()
	c.line("else if (%s == null)", g)
	c.open()
	csBitLine(c, bit, "1")
	c.line("w.WriteBits(0, 1);")
	c.line("%s = true;", changed)
	c.close()
	maybePart(c, bit, changed, func(ch string) {
		c.line("w.WriteBits(1, 1);")
		sub := e.dWriteSub(c, v.Elem, e.present(v.Elem, g), e.present(v.Elem, b), it.idx)
		c.line("%s = %s;", ch, sub)
	})
}

func (e *Emitter) dWriteSparse(c *body, it csItem, bit, changed, p string, same func(string)) {
	v, g, b := it.v, it.get, it.base
	n, nb := c.local("d"), c.local("d")
	slice := v.Prefix != nil
	if slice {
		c.line("int %s = %s == null ? 0 : %s.Length, %s = %s == null ? 0 : %s.Length;", n, g, g, nb, b, b)
		c.line("if (%s > %d)", n, v.MaxLen)
		c.open()
		c.line("w.Fail(BitpackErrorKind.Range, \"slice of \" + %s + \" elements exceeds maxlen %d\");", n, v.MaxLen)
		c.line("%s", csRet("w", p))
		c.close()
		same(fmt.Sprintf("%s == %s && (%s == 0 || ReferenceEquals(%s, %s))", n, nb, n, g, b))
	} else {
		lengthChecks(c, g, b, v.Len, p)
		c.line("int %s = %d, %s = %d;", n, v.Len, nb, v.Len)
		same(fmt.Sprintf("ReferenceEquals(%s, %s)", g, b))
	}
	maybePart(c, bit, changed, func(ch string) {
		if slice {
			c.line("w.WriteBool(%s != %s);", n, nb)
			c.line("if (%s != %s)", n, nb)
			c.line("    w.WriteBits((uint)%s, %d);", n, v.Prefix.Bits)
		}
		prev, i, pos, sb := c.local("d"), c.local("d"), c.local("d"), c.local("d")
		slot := e.optional(v.Elem)
		c.line("int %s = -1;", prev)
		c.line("for (int %s = 0; %s < %s; %s++)", i, i, n, i)
		c.open()
		gs := g + "[" + i + "]"
		c.line("%s %s = null;", slot, sb)
		c.line("if (%s < %s)", i, nb)
		c.line("    %s = %s[%s];", sb, b, i)
		c.line("if (%s)", e.sameOptional(v.Elem, gs, sb))
		c.line("    continue;")
		c.line("int %s = w.BitsWritten;", pos)
		c.line("w.WriteIntRelative(%s, %s);", prev, i)
		idx := append(append([]string{}, it.idx...), i)
		c.line("if (%s == null)", sb)
		c.open()
		e.write(c, v.Elem, e.present(v.Elem, gs), idx)
		c.close()
		c.line("else if (%s == null)", gs)
		c.line("    w.WriteBits(0, 1);")
		c.line("else")
		c.open()
		c.line("w.WriteBits(1, 1);")
		sub := e.dWriteSub(c, v.Elem, e.present(v.Elem, gs), e.present(v.Elem, sb), idx)
		c.line("if (!%s)", sub)
		c.open()
		c.line("w.Rewind(%s);", pos)
		c.line("continue;")
		c.close()
		c.close()
		c.line("%s = %s;", prev, i)
		c.close()
		c.line("if (%s != %s || %s >= 0)", n, nb, prev)
		c.open()
		c.line("w.WriteIntRelative(%s, %s);", prev, n)
		c.line("%s = true;", ch)
		c.close()
	})
}

func (e *Emitter) dWriteUnion(c *body, it csItem, bit, changed, p string, same func(string)) {
	v, g, b := it.v, it.get, it.base
	ret := csRet("w", p)
	same(fmt.Sprintf("ReferenceEquals(%s, %s)", g, b))
	c.line("else if (%s == null)", g)
	c.open()
	c.line("w.Fail(BitpackErrorKind.Range, %s);", code.Quote(fmt.Sprintf("nil %s: a union field must hold one of its members", v.Type.Go)))
	c.line("%s", ret)
	c.close()
	for i, mt := range v.Type.Members {
		name := e.typeNames[mt]
		c.line("else if (%s is %s)", g, name)
		c.open()
		m, mb, start := c.local("d"), c.local("d"), c.local("d")
		c.line("%s %s = (%s)%s, %s = %s as %s;", name, m, name, g, mb, b, name)
		c.line("int %s = w.BitsWritten;", start)
		csBitLine(c, bit, "1")
		c.line("w.WriteBits(%du, %d);", v.Type.Indices[i], v.Type.IndexBits)
		c.line("if (%s == null)", mb)
		c.open()
		c.line("if (!%s.WriteTo(ref w))", m)
		c.line("    %s", ret)
		c.line("%s = true;", changed)
		c.close()
		c.line("else")
		c.open()
		ch := c.local("d")
		c.line("bool %s;", ch)
		c.line("if (!%s.WriteDeltaBody(ref w, %s, out %s))", m, mb, ch)
		c.line("    %s", ret)
		c.line("if (%s)", ch)
		c.line("    %s = true;", changed)
		c.line("else")
		c.open()
		c.line("w.Rewind(%s);", start)
		csBitLine(c, bit, "0")
		c.close()
		c.close()
		c.close()
	}
	c.line("else")
	c.open()
	c.line("w.Fail(BitpackErrorKind.Range, %s.GetType() + \" is not a member of %s\");", g, v.Type.Go)
	c.line("%s", ret)
	c.close()
}

func (e *Emitter) dWriteMap(c *body, it csItem, bit, changed, p string, same func(string)) {
	v, g, b := it.v, it.get, it.base
	ktype := e.csType(v.Key)
	n, nb := c.local("d"), c.local("d")
	c.line("int %s = %s == null ? 0 : %s.Count, %s = %s == null ? 0 : %s.Count;", n, g, g, nb, b, b)
	c.line("if (%s > %d)", n, v.MaxLen)
	c.open()
	c.line("w.Fail(BitpackErrorKind.Range, %s + \" entries exceed maxlen %d\");", n, v.MaxLen)
	c.line("%s", csRet("w", p))
	c.close()
	same(fmt.Sprintf("%s == 0 && %s == 0 || ReferenceEquals(%s, %s)", n, nb, g, b))
	maybePart(c, bit, changed, func(ch string) {
		kv, kb, i, j, cmp, pos, key := c.local("d"), c.local("d"), c.local("d"), c.local("d"), c.local("d"), c.local("d"), c.local("d")
		for _, k := range [][3]string{{kv, n, g}, {kb, nb, b}} {
			c.line("%s[] %s = Bitpack.TakeKeys<%s>(%s);", ktype, k[0], ktype, k[1])
		}
		c.line("try")
		c.open()
		for _, k := range [][3]string{{kv, n, g}, {kb, nb, b}} {
			c.line("if (%s > 0)", k[1])
			c.open()
			c.line("Bitpack.CopyKeys(%s, %s);", k[2], k[0])
			e.sortKeys(c, v, k[0], k[1])
			c.close()
		}
		compare := fmt.Sprintf("%s[%s].CompareTo(%s[%s])", kv, i, kb, j)
		if v.Order == model.KeysBytewise {
			compare = fmt.Sprintf("Bitpack.CompareKeys(%s[%s], %s[%s])", kv, i, kb, j)
		}
		c.line("for (int %s = 0, %s = 0; %s < %s || %s < %s; )", i, j, i, n, j, nb)
		c.open()
		c.line("int %s = %s == %s ? 1 : %s == %s ? -1 : %s;", cmp, i, n, j, nb, compare)
		c.line("int %s = w.BitsWritten;", pos)
		c.line("w.WriteBits(1, 1);")
		c.line("%s %s = %s < 0 ? %s[%s] : %s[%s];", ktype, key, cmp, kv, i, kb, j)
		idx := append(append([]string{}, it.idx...), e.keyText(v.Key, key))
		e.write(c, v.Key, key, idx)
		c.line("if (%s < 0)", cmp)
		c.open()
		val := c.local("d")
		c.line("%s %s = %s[%s];", e.csType(v.Elem), val, g, key)
		e.write(c, v.Elem, val, idx)
		c.line("%s++;", i)
		c.close()
		c.line("else if (%s > 0)", cmp)
		c.open()
		c.line("w.WriteBits(0, 1);")
		c.line("%s++;", j)
		c.close()
		c.line("else")
		c.open()
		c.line("w.WriteBits(1, 1);")
		sub := e.dWriteSub(c, v.Elem, g+"["+key+"]", b+"["+key+"]", idx)
		c.line("%s++;", i)
		c.line("%s++;", j)
		c.line("if (!%s)", sub)
		c.open()
		c.line("w.Rewind(%s);", pos)
		c.line("continue;")
		c.close()
		c.close()
		c.line("%s = true;", ch)
		c.close()
		c.line("if (%s)", ch)
		c.line("    w.WriteBits(0, 1);")
		c.close()
		c.line("finally")
		c.open()
		c.line("Bitpack.ReleaseKeys<%s>();", ktype)
		c.line("Bitpack.ReleaseKeys<%s>();", ktype)
		c.close()
	})
}

// dWriteHook writes a hook value after its changed bit and takes it back
// when its bits are the base's. Both are written apart to compare, as Go
// compares them: the value's bits in the packet can differ from its own
// when the hook aligns.
func (e *Emitter) dWriteHook(c *body, v *model.Value, g, b, p, ch string) {
	e.absentChecks(c, v, g, b, p)
	tmp, now := c.local("d"), c.local("d")
	c.line("if (!%s.WriteTo(ref w))", g)
	c.line("    %s", csRet("w", p))
	c.line("BitpackWriter %s = new BitpackWriter(16);", tmp)
	c.line("if (!%s.WriteTo(ref %s))", b, tmp)
	c.open()
	c.line("w.Fail(%s.ErrorKind, \"base value: \" + %s.ErrorDetail);", tmp, tmp)
	c.line("%s", csRet("w", p))
	c.close()
	c.line("BitpackWriter %s = new BitpackWriter(16);", now)
	c.line("%s.WriteTo(ref %s);", g, now)
	c.line("%s = %s.BitsWritten != %s.BitsWritten || !%s.SameBits(0, %s.Buffer, %s.BitsWritten);", ch, now, tmp, now, tmp, tmp)
}

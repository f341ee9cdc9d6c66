package gen

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack"
)

// write renders the statements that write value v, the C# expression x
// (of type csType(v)).
func (e *csEmitter) write(c *body, v *Value, x string, idx []string) {
	p := pathExpr(v.Path, idx)
	fail := func(call string) { c.line("if (!%s)", call); c.line("    return w.At(%s);", p) }
	absent := func(what string) {
		c.line("if (%s == null)", x)
		c.open()
		c.line("w.Fail(BitpackErrorKind.Range, %s);", csString(what))
		c.line("return w.At(%s);", p)
		c.close()
	}
	switch v.Kind {
	case bitpack.KindBool:
		c.line("w.WriteBool(%s);", x)
	case bitpack.KindInt, bitpack.KindUint:
		e.writeInt(c, v, x, fail)
	case bitpack.KindFloat:
		if v.FloatBits == 32 {
			c.line("w.WriteFloat32(%s);", x)
		} else {
			c.line("w.WriteFloat64(%s);", x)
		}
	case bitpack.KindCompressedFloat:
		lo, dl, low, high := e.floatConsts(v)
		fn := "WriteCompressed32"
		if v.FloatBits == 64 {
			fn = "WriteCompressed64"
		}
		fail(fmt.Sprintf("w.%s(%s, %s, %s, %du, %d, %s, %s, %t, %s)", fn, x, lo, dl, v.Steps, v.Bits, low, high, v.Clamp, csString(bounds(v))))
	case bitpack.KindString:
		fail(fmt.Sprintf("w.WriteString(%s, %d, %d)", x, v.MaxLen, lengthBits(v.MaxLen)))
	case bitpack.KindBytes:
		fail(fmt.Sprintf("w.WriteByteSlice(%s, %d, %d)", x, v.MaxLen, lengthBits(v.MaxLen)))
	case bitpack.KindByteArray:
		fail(fmt.Sprintf("w.WriteByteArray(%s, %d)", x, v.Len))
	case bitpack.KindArray:
		fail(fmt.Sprintf("Bitpack.FixedLength(ref w, %s, %d)", x, v.Len))
		c.loop(strconv.Itoa(v.Len), func(i string) { e.write(c, v.Elem, x+"["+i+"]", append(idx, i)) })
	case bitpack.KindSlice:
		n := c.fresh("n")
		c.open()
		c.line("int %s = %s == null ? 0 : %s.Length;", n, x, x)
		fail(fmt.Sprintf("w.WriteLength(%s, %d, %d)", n, v.MaxLen, lengthBits(v.MaxLen)))
		c.loop(n, func(i string) { e.write(c, v.Elem, x+"["+i+"]", append(idx, i)) })
		c.close()
	case bitpack.KindPointer:
		c.line("w.WriteBool(%s != null);", x)
		c.line("if (%s != null)", x)
		c.open()
		e.write(c, v.Elem, e.present(v.Elem, x), idx)
		c.close()
	case bitpack.KindStruct:
		absent("null " + e.typeNames[v.Type] + ": only a Go pointer may be absent")
		if v.Fields == nil {
			fail(x + ".WriteTo(ref w)")
			return
		}
		for _, u := range v.Fields {
			e.write(c, u.Value, x+"."+e.members[u.Member], idx)
		}
	case bitpack.KindUnion:
		e.writeUnion(c, v, x, p, absent)
	case bitpack.KindCustom:
		absent("null " + e.typeNames[v.Type] + ": only a Go pointer may be absent")
		fail(x + ".WriteTo(ref w)")
	case bitpack.KindSparse:
		e.writeSparse(c, v, x, idx, p)
	case bitpack.KindCheck:
		c.line("w.WriteCheck(%#08xu); // check %s", v.CheckHash, csString(v.CheckName))
	default:
		panic("gen: C# cannot write " + v.Kind.String())
	}
}

// present is the value an optional x holds (x non-null).
func (e *csEmitter) present(v *Value, x string) string {
	if v.Kind == bitpack.KindPointer || csValueType(v) {
		return x + ".Value"
	}
	return x
}

// writeInt renders an integer: unchecked when every value of the C# type
// fits the wire, else through a helper that refuses what Marshal refuses.
func (e *csEmitter) writeInt(c *body, v *Value, x string, fail func(string)) {
	switch {
	case v.Ranged && v.Signed:
		fail(fmt.Sprintf("w.WriteIntRange(%s, %s, %s, %d)", x, csLong(v.IntMin), csUlong(span(v)), rangeBits(v)))
	case v.Ranged:
		fail(fmt.Sprintf("w.WriteUintRange(%s, %s, %s, %d)", x, csUlong(v.UintMin), csUlong(span(v)), rangeBits(v)))
	case v.Bits < v.GoBits && v.Signed:
		fail(fmt.Sprintf("w.WriteSigned(%s, %d)", x, v.Bits))
	case v.Bits < v.GoBits:
		fail(fmt.Sprintf("w.WriteUnsigned(%s, %d)", x, v.Bits))
	case v.Bits == 64 && v.Signed:
		c.line("w.WriteBits64((ulong)%s, 64);", x)
	case v.Bits == 64:
		c.line("w.WriteBits64(%s, 64);", x)
	case v.Signed:
		c.line("w.WriteBits((uint)%s, %d);", x, v.Bits)
	default:
		c.line("w.WriteBits(%s, %d);", x, v.Bits)
	}
}

func (e *csEmitter) writeUnion(c *body, v *Value, x, p string, absent func(string)) {
	absent(fmt.Sprintf("nil %s: a union field must hold one of its members", v.Type.Go))
	for i, mt := range v.Type.Members {
		name := e.typeNames[mt]
		if i == 0 {
			c.line("if (%s is %s)", x, name)
		} else {
			c.line("else if (%s is %s)", x, name)
		}
		c.open()
		c.line("w.WriteBits(%d, %d);", i, v.Type.IndexBits)
		c.line("if (!((%s)%s).WriteTo(ref w))", name, x)
		c.line("    return w.At(%s);", p)
		c.close()
	}
	c.line("else")
	c.open()
	c.line("w.Fail(BitpackErrorKind.Range, %s.GetType() + \" is not a member of %s\");", x, v.Type.Go)
	c.line("return w.At(%s);", p)
	c.close()
}

// writeSparse writes the index of each present slot as int_relative from
// the previous one (from -1), its value, and the length as the end marker.
func (e *csEmitter) writeSparse(c *body, v *Value, x string, idx []string, p string) {
	k := strconv.Itoa(c.loops)
	n, prev, i := "n"+k, "s"+k, "i"+k
	c.loops++
	c.open()
	if v.Go.Kind() == reflect.Slice {
		c.line("int %s = %s == null ? 0 : %s.Length;", n, x, x)
		c.line("if (!w.WriteLength(%s, %d, %d))", n, v.MaxLen, lengthBits(v.MaxLen))
		c.line("    return w.At(%s);", p)
	} else {
		c.line("const int %s = %d;", n, v.Len)
		c.line("if (!Bitpack.FixedLength(ref w, %s, %s))", x, n)
		c.line("    return w.At(%s);", p)
	}
	c.line("int %s = -1;", prev)
	c.line("for (int %s = 0; %s < %s; %s++)", i, i, n, i)
	c.open()
	c.line("if (%s[%s] == null)", x, i)
	c.line("    continue;")
	c.line("w.WriteIntRelative(%s, %s);", prev, i)
	e.write(c, v.Elem, e.present(v.Elem, x+"["+i+"]"), append(idx, i))
	c.line("%s = %s;", prev, i)
	c.close()
	c.line("w.WriteIntRelative(%s, %s);", prev, n)
	c.close()
	c.loops--
}

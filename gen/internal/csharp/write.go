package csharp

import (
	"fmt"
	"strconv"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// write renders the statements that write value v, the C# expression x
// (of type csType(v)).
func (e *Emitter) write(c *body, v *model.Value, x string, idx []string) {
	p := code.PathExpr(v.Path, idx)
	fail := func(call string) { c.line("if (!%s)", call); c.line("    return w.At(%s);", p) }
	absent := func(what string) {
		if e.valueStruct(v) {
			return // a struct: never null
		}
		c.line("if (%s == null)", x)
		c.open()
		c.line("w.Fail(BitpackErrorKind.Range, %s);", code.Quote(what))
		c.line("return w.At(%s);", p)
		c.close()
	}
	switch v.Op {
	case model.OpBool:
		c.line("w.WriteBool(%s);", x)
	case model.OpInt:
		e.writeInt(c, v, x, fail)
	case model.OpFloat:
		if v.FloatBits == 32 {
			c.line("w.WriteFloat32(%s);", x)
		} else {
			c.line("w.WriteFloat64(%s);", x)
		}
	case model.OpCompressed:
		lo, dl, low, high := e.floatConsts(v)
		fn := "WriteCompressed32"
		if v.FloatBits == 64 {
			fn = "WriteCompressed64"
		}
		fail(fmt.Sprintf("w.%s(%s, %s, %s, %du, %d, %s, %s, %t, %s)", fn, x, lo, dl, v.Steps, v.Bits, low, high, v.Clamp, code.Quote(model.Bounds(v))))
	case model.OpString:
		fail(fmt.Sprintf("w.WriteString(%s, %d, %d)", x, v.MaxLen, v.Prefix.Bits))
	case model.OpBytes:
		fail(fmt.Sprintf("w.WriteByteSlice(%s, %d, %d)", x, v.MaxLen, v.Prefix.Bits))
	case model.OpByteArray:
		fail(fmt.Sprintf("w.WriteByteArray(%s, %d)", x, v.Len))
	case model.OpArray:
		fail(fmt.Sprintf("Bitpack.FixedLength(ref w, %s, %d)", x, v.Len))
		c.loop(strconv.Itoa(v.Len), func(i string) { e.write(c, v.Elem, x+"["+i+"]", append(idx, i)) })
	case model.OpSlice:
		n := c.fresh("n")
		c.open()
		c.line("int %s = %s == null ? 0 : %s.Length;", n, x, x)
		fail(fmt.Sprintf("w.WriteLength(%s, %d, %d)", n, v.MaxLen, v.Prefix.Bits))
		c.loop(n, func(i string) { e.write(c, v.Elem, x+"["+i+"]", append(idx, i)) })
		c.close()
	case model.OpPointer:
		c.line("w.WriteBool(%s != null);", x)
		c.line("if (%s != null)", x)
		c.open()
		e.write(c, v.Elem, e.present(v.Elem, x), idx)
		c.close()
	case model.OpStruct, model.OpFields:
		absent("null " + e.typeNames[v.Type] + ": only a Go pointer may be absent")
		if v.Fields == nil {
			fail(x + ".WriteTo(ref w)")
			return
		}
		for _, u := range v.Fields {
			e.write(c, u.Value, x+"."+e.members[u.Member], idx)
		}
	case model.OpUnion:
		e.writeUnion(c, v, x, p, absent)
	case model.OpHook:
		absent("null " + e.typeNames[v.Type] + ": only a Go pointer may be absent")
		fail(x + ".WriteTo(ref w)")
	case model.OpSparse:
		e.writeSparse(c, v, x, idx, p)
	case model.OpCheck:
		c.line("w.WriteCheck(%#08xu); // check %s", v.CheckHash, code.Quote(v.CheckName))
	case model.OpQuat:
		e.writeQuat(c, v, x, p, fail, absent)
	case model.OpMap:
		e.writeMap(c, v, x, idx, p, fail)
	default:
		panic("gen: C# cannot write " + v.Op.String())
	}
}

// present is the value an optional x holds (x non-null).
func (e *Emitter) present(v *model.Value, x string) string {
	if v.Op == model.OpPointer || csValueType(v) {
		return x + ".Value"
	}
	return x
}

// writeInt renders an integer: unchecked when every value of the C# type
// fits the wire, else through a helper that refuses what Marshal refuses.
func (e *Emitter) writeInt(c *body, v *model.Value, x string, fail func(string)) {
	unit := max(v.Unit, 1)
	x = e.num(v, x)
	switch {
	case v.Time:
		lo, hi, flip := model.IntBounds(v)
		fail(fmt.Sprintf("w.WriteTime(%s, %s, %s, %d, %s, %s, %t, %s)", x, csLong(lo), csLong(hi), model.UnitBits(v), csUlong(flip), csLong(unit), v.Clamp, code.Quote(v.UnitText)))
	case v.Counted:
		lo, hi, flip := model.IntBounds(v)
		fail(fmt.Sprintf("w.WriteCounted(%s, %s, %s, %d, %s, %s, %t, %s)", x, csLong(lo), csLong(hi), model.UnitBits(v), csUlong(flip), csLong(unit), v.Clamp, code.Quote(v.UnitText)))
	case (v.Unit > 1 || v.Clamp) && v.Signed:
		lo, hi, flip := model.IntBounds(v)
		fail(fmt.Sprintf("w.WriteUnits(%s, %s, %s, %d, %s, %s, %t, %s, %t)", x, csLong(lo), csLong(hi), model.UnitBits(v), csUlong(flip), csLong(unit), v.Clamp, code.Quote(v.UnitText), v.Duration))
	case v.Unit > 1 || v.Clamp:
		lo, hi := model.UintBounds(v)
		fail(fmt.Sprintf("w.WriteUnitsU(%s, %s, %s, %d, %s, %t, %s)", x, csUlong(lo), csUlong(hi), model.UnitBits(v), csUlong(uint64(unit)), v.Clamp, code.Quote(v.UnitText)))
	case v.Ranged && v.Signed:
		fail(fmt.Sprintf("w.WriteIntRange(%s, %s, %s, %d)", x, csLong(v.IntMin), csUlong(model.Span(v)), model.RangeBits(v)))
	case v.Ranged:
		fail(fmt.Sprintf("w.WriteUintRange(%s, %s, %s, %d)", x, csUlong(v.UintMin), csUlong(model.Span(v)), model.RangeBits(v)))
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

func (e *Emitter) writeUnion(c *body, v *model.Value, x, p string, absent func(string)) {
	absent(fmt.Sprintf("nil %s: a union field must hold one of its members", v.Type.Go))
	for i, mt := range v.Type.Members {
		name := e.typeNames[mt]
		if i == 0 {
			c.line("if (%s is %s)", x, name)
		} else {
			c.line("else if (%s is %s)", x, name)
		}
		c.open()
		c.line("w.WriteBits(%du, %d);", v.Type.Indices[i], v.Type.IndexBits)
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
func (e *Emitter) writeSparse(c *body, v *model.Value, x string, idx []string, p string) {
	k := strconv.Itoa(c.loops)
	n, prev, i := "n"+k, "s"+k, "i"+k
	c.loops++
	c.open()
	if v.Prefix != nil {
		c.line("int %s = %s == null ? 0 : %s.Length;", n, x, x)
		c.line("if (!w.WriteLength(%s, %d, %d))", n, v.MaxLen, v.Prefix.Bits)
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

// writeQuat writes a quaternion: its holder and the vector inside it must
// be there (and arrays of their length), then the components, as float
// (Go's float32(x) for float64 ones).
func (e *Emitter) writeQuat(c *body, v *model.Value, x, p string, fail func(string), absent func(string)) {
	if v.Type != nil {
		absent("null " + e.typeNames[v.Type] + ": only a Go pointer may be absent")
	} else {
		fail(fmt.Sprintf("Bitpack.FixedLength(ref w, %s, 4)", x))
	}
	for _, steps := range v.Comps {
		if len(steps) == 2 { // a vector of three: checked once, by x's component
			vec := x + "." + e.members[steps[0].Member]
			if vt := steps[0].Member.Value; vt.Op == model.OpArray {
				fail(fmt.Sprintf("Bitpack.FixedLength(ref w, %s, 3)", vec))
			} else {
				c.line("if (%s == null)", vec)
				c.open()
				c.line("w.Fail(BitpackErrorKind.Range, %s);", code.Quote("null "+e.typeNames[vt.Type]+": only a Go pointer may be absent"))
				c.line("return w.At(%s);", p)
				c.close()
			}
			break
		}
	}
	var comps [4]string
	for k, steps := range v.Comps {
		comps[k] = x + e.quatComp(steps)
		if v.FloatBits == 64 {
			comps[k] = "(float)" + comps[k]
		}
	}
	fail(fmt.Sprintf("w.WriteQuat(%s, %s, %s, %s, %d)", comps[0], comps[1], comps[2], comps[3], v.Bits))
}

// writeMap writes a map: its count (null is empty), then its entries in
// ascending key order (the keys copied and sorted), each key then value.
// Errors name an entry by its key, as bitpack's do.
func (e *Emitter) writeMap(c *body, v *model.Value, x string, idx []string, p string, fail func(string)) {
	k := strconv.Itoa(c.loops)
	m, n, keys, i, val := "m"+k, "n"+k, "y"+k, "i"+k, "e"+k
	ktype := e.csType(v.Key)
	c.loops++
	c.open()
	c.line("%s %s = %s;", e.csType(v), m, x)
	c.line("int %s = %s == null ? 0 : %s.Count;", n, m, m)
	fail(fmt.Sprintf("w.WriteCount(%s, %d, %d)", n, v.MaxLen, v.Prefix.Bits))
	c.line("if (%s > 0)", n)
	c.open()
	c.line("%s %s = Bitpack.TakeKeys<%s>(%s);", ktype+"[]", keys, ktype, n)
	c.line("try")
	c.open()
	c.line("Bitpack.CopyKeys(%s, %s);", m, keys)
	e.sortKeys(c, v, keys, n)
	c.line("for (int %s = 0; %s < %s; %s++)", i, i, n, i)
	c.open()
	at := append(idx, e.keyText(v.Key, keys+"["+i+"]"))
	e.write(c, v.Key, keys+"["+i+"]", at)
	c.line("%s %s = %s[%s[%s]];", e.csType(v.Elem), val, m, keys, i)
	e.write(c, v.Elem, val, at)
	c.close()
	c.close()
	c.line("finally")
	c.open()
	c.line("Bitpack.ReleaseKeys<%s>();", ktype)
	c.close()
	c.close()
	c.close()
	c.loops--
}

// sortKeys sorts the first n keys of array keys in bitpack's order.
func (e *Emitter) sortKeys(c *body, v *model.Value, keys, n string) {
	switch {
	case v.Order == model.KeysBytewise:
		c.line("Bitpack.SortStringKeys(%s, %s);", keys, n)
	case v.Key.Enum != nil:
		c.line("Bitpack.SortKeys(%s, %s, new Bitpack.%s());", keys, n, enumOrder(e.typeNames[v.Key.Enum]))
	default:
		c.line("Bitpack.SortKeys(%s, %s);", keys, n)
	}
}

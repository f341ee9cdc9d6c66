package typescript

import (
	"fmt"
	"strconv"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// write renders the statements that write value v, the TypeScript
// expression x (of type tsType(v)).
func (e *Emitter) write(c *body, v *model.Value, x string, idx []string) {
	p := code.PathExpr(v.Path, idx)
	fail := func(call string) { c.line("if (!%s) return w.at(%s);", call, p) }
	switch v.Op {
	case model.OpBool:
		fail("w.writeBool(" + x + ")")
	case model.OpInt:
		fail(e.writeInt(v, x))
	case model.OpFloat:
		fail(fmt.Sprintf("w.writeFloat%d(%s)", v.FloatBits, x))
	case model.OpCompressed:
		lo := v.Min
		if v.FloatBits == 32 {
			lo = float64(float32(lo))
		}
		fail(fmt.Sprintf("w.writeCompressed%d(%s, %s, %s, %d, %d, %s, %s, %t, %s)", v.FloatBits, x, tsNum(lo), tsNum(model.Delta(v)),
			v.Steps, v.Bits, tsNum(v.Lo), tsNum(v.Hi), v.Clamp, code.Quote(model.Bounds(v))))
	case model.OpString:
		fail(fmt.Sprintf("w.writeString(%s, %d, %d)", x, v.MaxLen, v.Prefix.Bits))
	case model.OpBytes:
		fail(fmt.Sprintf("w.writeByteSlice(%s, %d, %d)", x, v.MaxLen, v.Prefix.Bits))
	case model.OpByteArray:
		fail(fmt.Sprintf("w.writeByteArray(%s, %d)", x, v.Len))
	case model.OpArray:
		fail(fmt.Sprintf("w.fixedLength(%s, %d)", x, v.Len))
		c.loop(strconv.Itoa(v.Len), func(i string) { e.write(c, v.Elem, elem(x, i), append(idx, i)) })
	case model.OpSlice:
		fail(fmt.Sprintf("w.writeLength(%s, %d, %d)", x, v.MaxLen, v.Prefix.Bits))
		c.loop(x+".length", func(i string) { e.write(c, v.Elem, elem(x, i), append(idx, i)) })
	case model.OpPointer:
		l := c.local("e")
		c.line("const %s = %s;", l, x)
		c.line("if (%s === null || %s === undefined) {", l, l)
		c.line("  w.writeBits(0, 1);")
		c.line("} else {")
		c.indent++
		c.line("w.writeBits(1, 1);")
		e.write(c, v.Elem, e.present(v.Elem, l), idx)
		c.close()
	case model.OpStruct, model.OpFields:
		n := e.typeNames[v.Type]
		if v.Fields == nil {
			fail(fmt.Sprintf("write%sTo(w, %s)", n, x))
			return
		}
		l := c.local("e")
		c.line("const %s = %s;", l, x)
		c.line("if (absent(w, %s, %s)) return w.at(%s);", l, code.Quote(n), p)
		for _, u := range v.Fields {
			e.write(c, u.Value, l+"."+u.Member.Name, idx)
		}
	case model.OpUnion:
		e.writeUnion(c, v, x, p)
	case model.OpHook:
		n := e.typeNames[v.Type]
		fail(fmt.Sprintf("hook(hooks.%s, %q).write(w, %s)", n, n, x))
	case model.OpSparse:
		e.writeSparse(c, v, x, idx, p)
	case model.OpCheck:
		c.line("w.writeCheck(%#08x); // check %s", v.CheckHash, code.Quote(v.CheckName))
	case model.OpQuat:
		e.writeQuat(c, v, x, p, fail)
	case model.OpMap:
		e.writeMap(c, v, x, idx, p, fail)
	default:
		panic("gen: TypeScript cannot write " + v.Op.String())
	}
}

// writeTime is the call writing time x (its count of units) as v into
// writer w: a function of time.ts, not a method of w's.
func (e *Emitter) writeTime(v *model.Value, x, w string) string {
	lo, hi, flip := model.IntBounds(v)
	return fmt.Sprintf("writeTime(%s, %s, %t, %s, %s, %d, %s, %s, %t, %s)", w, x, tsBigInt(v), tsBigS(lo), tsBigS(hi), model.UnitBits(v), tsBig(flip), tsBigS(v.Unit), v.Clamp, code.Quote(v.UnitText))
}

func (e *Emitter) writeInt(v *model.Value, x string) string {
	unit := max(v.Unit, 1)
	switch {
	case v.Time:
		return e.writeTime(v, x, "w")
	case v.Counted:
		lo, hi, flip := model.IntBounds(v)
		return fmt.Sprintf("w.writeCounted(%s, %t, %s, %s, %d, %s, %s, %t, %s)", x, tsBigInt(v), tsBigS(lo), tsBigS(hi), model.UnitBits(v), tsBig(flip), tsBigS(unit), v.Clamp, code.Quote(v.UnitText))
	case (v.Unit > 1 || v.Clamp) && v.GoBits == 64 && v.Signed:
		lo, hi, flip := model.IntBounds(v)
		return fmt.Sprintf("w.writeUnitsBig(%s, true, %s, %s, %d, %s, %s, %t, %s, %t)", x, tsBigS(lo), tsBigS(hi), model.UnitBits(v), tsBig(flip), tsBigS(unit), v.Clamp, code.Quote(v.UnitText), v.Duration)
	case (v.Unit > 1 || v.Clamp) && v.GoBits == 64:
		lo, hi := model.UintBounds(v)
		return fmt.Sprintf("w.writeUnitsBig(%s, false, %s, %s, %d, 0n, %s, %t, %s, false)", x, tsBig(lo), tsBig(hi), model.UnitBits(v), tsBigS(unit), v.Clamp, code.Quote(v.UnitText))
	case (v.Unit > 1 || v.Clamp) && v.Signed:
		lo, hi, flip := model.IntBounds(v)
		return fmt.Sprintf("w.writeUnits(%s, %d, %d, %d, %d, %d, %d, %d, %t, %s)", x, int64(-1)<<(v.GoBits-1), int64(1)<<(v.GoBits-1)-1, lo, hi, model.UnitBits(v), flip, unit, v.Clamp, code.Quote(v.UnitText))
	case v.Unit > 1 || v.Clamp:
		lo, hi := model.UintBounds(v)
		return fmt.Sprintf("w.writeUnits(%s, 0, %d, %d, %d, %d, 0, %d, %t, %s)", x, uint64(1)<<v.GoBits-1, lo, hi, model.UnitBits(v), unit, v.Clamp, code.Quote(v.UnitText))
	case v.Ranged && v.GoBits == 64 && v.Signed:
		return fmt.Sprintf("w.writeRangeBig(%s, %s, %s, %d, true)", x, tsBigS(v.IntMin), tsBig(model.Span(v)), model.RangeBits(v))
	case v.Ranged && v.GoBits == 64:
		return fmt.Sprintf("w.writeRangeBig(%s, %s, %s, %d, false)", x, tsBig(v.UintMin), tsBig(model.Span(v)), model.RangeBits(v))
	case v.Ranged && v.Signed:
		return fmt.Sprintf("w.writeRange(%s, %d, %d, %d)", x, v.IntMin, model.Span(v), model.RangeBits(v))
	case v.Ranged:
		return fmt.Sprintf("w.writeRange(%s, %d, %d, %d)", x, v.UintMin, model.Span(v), model.RangeBits(v))
	case v.GoBits == 64 && v.Signed:
		return fmt.Sprintf("w.writeSignedBig(%s, %d)", x, v.Bits)
	case v.GoBits == 64:
		return fmt.Sprintf("w.writeUnsignedBig(%s, %d)", x, v.Bits)
	case v.Signed:
		return fmt.Sprintf("w.writeSigned(%s, %d)", x, v.Bits)
	}
	return fmt.Sprintf("w.writeUnsigned(%s, %d)", x, v.Bits)
}

// present is the value an optional l holds (l neither null nor undefined).
func (e *Emitter) present(v *model.Value, l string) string {
	if v.Op == model.OpPointer {
		return l + ".value"
	}
	return l
}

func (e *Emitter) writeUnion(c *body, v *model.Value, x, p string) {
	u := c.local("u")
	c.line("const %s = %s;", u, x)
	c.line("if (%s === null || %s === undefined) {", u, u)
	c.line("  w.fail(\"Range\", %s);", code.Quote(fmt.Sprintf("nil %s: a union field must hold one of its members", v.Type.Go)))
	c.line("  return w.at(%s);", p)
	c.line("}")
	c.line("switch (%s.type) {", u)
	for i, mt := range v.Type.Members {
		n := e.typeNames[mt]
		c.line("  case %q:", n)
		c.line("    w.writeBits(%d, %d);", v.Type.Indices[i], v.Type.IndexBits)
		c.line("    if (!write%sTo(w, %s.value)) return w.at(%s);", n, u, p)
		c.line("    break;")
	}
	c.line("  default:")
	c.line("    w.fail(\"Range\", \"type \" + String((%s as { type: unknown }).type) + %s);", u, code.Quote(" is not a member of "+v.Type.Go.String()))
	c.line("    return w.at(%s);", p)
	c.line("}")
}

// writeSparse writes the index of each present slot as int_relative from
// the previous one (from -1), its value, and the length as the end marker.
func (e *Emitter) writeSparse(c *body, v *model.Value, x string, idx []string, p string) {
	s, prev, i, l := c.local("s"), c.local("p"), "i"+strconv.Itoa(c.loops), c.local("e")
	c.loops++
	c.line("const %s = %s;", s, x)
	if v.Prefix != nil {
		c.line("if (!w.writeLength(%s, %d, %d)) return w.at(%s);", s, v.MaxLen, v.Prefix.Bits, p)
	} else {
		c.line("if (!w.fixedLength(%s, %d)) return w.at(%s);", s, v.Len, p)
	}
	c.line("let %s = -1;", prev)
	c.line("for (let %s = 0; %s < %s.length; %s++) {", i, i, s, i)
	c.indent++
	c.line("const %s = %s[%s];", l, s, i)
	c.line("if (%s === null || %s === undefined) continue;", l, l)
	c.line("w.writeIntRelative(%s, %s);", prev, i)
	e.write(c, v.Elem, e.present(v.Elem, l), append(idx, i))
	c.line("%s = %s;", prev, i)
	c.close()
	c.line("w.writeIntRelative(%s, %s.length);", prev, s)
	c.loops--
}

// writeQuat writes a quaternion: its holder and the vector inside it must
// be there (and arrays of their length), then the components.
func (e *Emitter) writeQuat(c *body, v *model.Value, x, p string, fail func(string)) {
	l := c.local("e")
	c.line("const %s = %s;", l, x)
	if v.Type != nil {
		c.line("if (absent(w, %s, %s)) return w.at(%s);", l, code.Quote(e.typeNames[v.Type]), p)
	} else {
		fail(fmt.Sprintf("w.fixedLength(%s, 4)", l))
	}
	for _, steps := range v.Comps {
		if len(steps) == 2 { // a vector of three: checked once
			vec := l + "." + steps[0].Member.Name
			if vt := steps[0].Member.Value; vt.Op == model.OpArray {
				fail(fmt.Sprintf("w.fixedLength(%s, 3)", vec))
			} else {
				c.line("if (absent(w, %s, %s)) return w.at(%s);", vec, code.Quote(e.typeNames[vt.Type]), p)
			}
			break
		}
	}
	var comps [4]string
	for k, steps := range v.Comps {
		comps[k] = l + e.quatComp(steps, true)
	}
	fail(fmt.Sprintf("w.writeQuat(%s, %s, %s, %s, %d)", comps[0], comps[1], comps[2], comps[3], v.Bits))
}

// writeMap writes a map: its count, then its entries in ascending key
// order, each key then value. Errors name an entry by its key, as
// bitpack's do.
func (e *Emitter) writeMap(c *body, v *model.Value, x string, idx []string, p string, fail func(string)) {
	m, keys := c.local("m"), c.local("y")
	c.line("const %s = %s;", m, x)
	fail(fmt.Sprintf("w.writeCount(%s, %d, %d)", m, v.MaxLen, v.Prefix.Bits))
	order := "(a, b) => (a < b ? -1 : a > b ? 1 : 0)"
	switch v.Order {
	case model.KeysBytewise:
		order = "compareKeys"
	case model.KeysFalseFirst:
		order = "(a, b) => Number(a) - Number(b)"
	}
	c.line("const %s = Array.from(%s.keys()).sort(%s);", keys, m, order)
	c.loop(keys+".length", func(i string) {
		k, val := c.local("k"), c.local("e")
		c.line("const %s = %s;", k, elem(keys, i))
		at := append(idx, tsKeyText(v.Key, k))
		e.write(c, v.Key, k, at)
		c.line("const %s = %s.get(%s) as %s;", val, m, k, e.tsType(v.Elem))
		e.write(c, v.Elem, val, at)
	})
}

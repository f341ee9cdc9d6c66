package typescript

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// The statements of the TypeScript readTFrom and writeTTo functions, value
// by value: the same steps as the C# ones (package csharp), with every
// refusal "return r.at(path)" after the reader or writer recorded it.

// tsType is the TypeScript type of a value.
func (e *Emitter) tsType(v *model.Value) string {
	switch v.Op {
	case model.OpBool:
		return "boolean"
	case model.OpInt:
		switch {
		case v.Enum != nil:
			return e.typeNames[v.Enum]
		case tsBigInt(v):
			return "bigint"
		}
		return "number"
	case model.OpFloat, model.OpCompressed:
		return "number"
	case model.OpString:
		return "string"
	case model.OpBytes, model.OpByteArray:
		return "Uint8Array"
	case model.OpArray, model.OpSlice:
		return e.elemType(e.tsType(v.Elem)) + "[]"
	case model.OpPointer:
		return e.optional(v.Elem)
	case model.OpSparse:
		return "(" + e.optional(v.Elem) + ")[]"
	case model.OpStruct, model.OpFields, model.OpUnion, model.OpHook:
		return e.typeNames[v.Type]
	case model.OpQuat:
		if v.Type != nil {
			return e.typeNames[v.Type]
		}
		return "number[]"
	case model.OpMap:
		return "Map<" + e.tsType(v.Key) + ", " + e.tsType(v.Elem) + ">"
	}
	panic("gen: no TypeScript type for " + v.Op.String())
}

// elemType parenthesizes a union type used as an array's element.
func (e *Emitter) elemType(t string) string {
	for _, r := range t {
		if r == '|' {
			return "(" + t + ")"
		}
	}
	return t
}

// optional is the type of a value that may be absent: T | null, and a
// BitpackBox around a pointer, whose null inside means something else.
func (e *Emitter) optional(v *model.Value) string {
	if v.Op == model.OpPointer {
		return "BitpackBox<" + e.tsType(v) + "> | null"
	}
	return e.tsType(v) + " | null"
}

// zero is the expression of a value as Go's zero value is.
func (e *Emitter) zero(v *model.Value) string {
	switch v.Op {
	case model.OpBool:
		return "false"
	case model.OpInt:
		var n int64 // a time's is Go's zero time, year 1, where it is not 0
		if v.Time {
			n = model.TimeZero(v)
		}
		z := strconv.FormatInt(n, 10)
		if tsBigInt(v) {
			z += "n"
		}
		if v.Enum != nil {
			return e.enumCast(v, z)
		}
		return z
	case model.OpFloat, model.OpCompressed:
		return "0"
	case model.OpString:
		return `""`
	case model.OpBytes:
		// Shared, as every empty byte slice a reader returns is (a
		// Uint8Array of none cannot change): a zero value costs no
		// allocation for it.
		return "noBytes"
	case model.OpByteArray:
		return fmt.Sprintf("new Uint8Array(%d)", v.Len)
	case model.OpArray:
		z := e.zero(v.Elem)
		// Up to 16 elements as a literal, each its own value: V8 builds
		// Array.from({ length }, f) slowly (about a microsecond for one
		// element), and a zero value of arrays of one-element arrays of
		// structs cost 3 µs an element (a packet's elements that take no
		// bits each build one).
		switch {
		case v.Len <= 16:
			return "[" + strings.TrimSuffix(strings.Repeat(z+", ", v.Len), ", ") + "]"
		case !tsPrimitive(v.Elem):
			return fmt.Sprintf("Array.from({ length: %d }, (): %s => %s)", v.Len, e.tsType(v.Elem), z)
		}
		return fmt.Sprintf("new Array<%s>(%d).fill(%s)", e.tsType(v.Elem), v.Len, z)
	case model.OpSlice:
		return "[]"
	case model.OpSparse:
		if v.Prefix != nil {
			return "[]"
		}
		return fmt.Sprintf("new Array<%s>(%d).fill(null)", e.optional(v.Elem), v.Len)
	case model.OpPointer:
		return "null"
	case model.OpUnion:
		// Go's zero, a nil interface, is no value Marshal writes: the
		// first member's zero value is.
		n := e.typeNames[v.Type.Members[0]]
		return fmt.Sprintf("{ type: %q, value: new%s() }", n, n)
	case model.OpStruct, model.OpFields:
		return "new" + e.typeNames[v.Type] + "()"
	case model.OpHook:
		n := e.typeNames[v.Type]
		return fmt.Sprintf("hook(hooks.%s, %q).zero()", n, n)
	case model.OpQuat:
		if v.Type != nil {
			return "new" + e.typeNames[v.Type] + "()"
		}
		return "[0, 0, 0, 0]"
	case model.OpMap:
		return "new " + e.tsType(v) + "()"
	}
	panic("gen: no TypeScript zero for " + v.Op.String())
}

func tsBig(v uint64) string  { return strconv.FormatUint(v, 10) + "n" }
func tsBigS(v int64) string  { return strconv.FormatInt(v, 10) + "n" }
func tsNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// read renders the statements that read v into x. fresh says x holds
// nothing yet (under a pointer, a slice, a union), so containers and
// structs are built; otherwise x is a field or element newT made, filled
// in place.
func (e *Emitter) read(c *body, v *model.Value, x string, idx []string, fresh bool) {
	p := code.PathExpr(v.Path, idx)
	check := func() { c.line("if (r.failed) return r.at(%s);", p) }
	set := func(call string) { c.line("%s = %s;", x, call); check() }
	switch v.Op {
	case model.OpBool:
		set("r.readBool()")
	case model.OpInt:
		set(e.intValue(v, e.readInt(v, "r")))
	case model.OpFloat:
		set(fmt.Sprintf("r.readFloat%d()", v.FloatBits))
	case model.OpCompressed:
		d, lo := model.Delta(v), v.Min
		if v.FloatBits == 32 {
			lo = float64(float32(lo))
		}
		set(fmt.Sprintf("r.readCompressed%d(%d, %d, %s, %s)", v.FloatBits, v.Bits, v.Steps, tsNum(d), tsNum(lo)))
	case model.OpString:
		set(fmt.Sprintf("r.readString(%d, %d)", v.Prefix.Bits, v.MaxLen))
	case model.OpBytes:
		set(fmt.Sprintf("r.readByteSlice(%d, %d)", v.Prefix.Bits, v.MaxLen))
	case model.OpByteArray:
		set(fmt.Sprintf("r.readByteArray(%d)", v.Len))
	case model.OpArray:
		e.built(c, fresh, x, fmt.Sprintf("new Array<%s>(%d)", e.tsType(v.Elem), v.Len), func(a string) {
			c.loop(strconv.Itoa(v.Len), func(i string) {
				at := elem(a, i) // filled in place unless fresh
				if fresh || v.Elem.Op == model.OpPointer {
					at = a + "[" + i + "]" // only assigned
				}
				e.read(c, v.Elem, at, append(idx, i), fresh)
			})
		})
	case model.OpSlice:
		n := c.local("n")
		c.line("const %s = r.readLength(%d, %d, %s);", n, v.Prefix.Bits, v.MaxLen, elemsCharge(v))
		check()
		e.built(c, true, x, fmt.Sprintf("new Array<%s>(%s)", e.tsType(v.Elem), n), func(a string) {
			c.loop(n, func(i string) { e.read(c, v.Elem, a+"["+i+"]", append(idx, i), true) })
		})
	case model.OpPointer:
		c.line("if (!r.readPresence(%d, %d)) {", v.Charge.Work, v.Charge.Bytes)
		c.indent++
		check()
		c.line("%s = null;", x)
		c.indent--
		c.line("} else {")
		c.indent++
		e.readPresent(c, v.Elem, x, idx)
		c.close()
	case model.OpStruct, model.OpFields:
		e.readStruct(c, v, x, idx, fresh)
	case model.OpUnion:
		e.readUnion(c, v, x, p)
	case model.OpHook:
		n := e.typeNames[v.Type]
		c.line("if (!r.chargeHook(%d, %d, r.bitsRead)) return r.at(%s);", v.Charge.Work, v.Charge.Bytes, p)
		set(fmt.Sprintf("hook(hooks.%s, %q).read(r)", n, n))
	case model.OpSparse:
		e.readSparse(c, v, x, idx, fresh)
	case model.OpCheck:
		c.line("if (!r.readCheck(%#08x, %s)) return r.at(%s);", v.CheckHash, code.Quote(v.CheckName), p)
	case model.OpQuat:
		c.line("if (!r.readQuat(%d)) return r.at(%s);", v.Bits, p)
		e.built(c, fresh, x, e.zero(v), func(a string) {
			for k, steps := range v.Comps {
				c.line("%s%s = quatOut[%d];", a, e.quatComp(steps, false), k)
			}
		})
	case model.OpMap:
		e.readMap(c, v, x, idx, fresh)
	default:
		panic("gen: TypeScript cannot read " + v.Op.String())
	}
}

// tsBigInt reports whether an integer is a bigint: a 64-bit one, but a
// duration counted in units whose range in units stays within 2^53,
// which is a number.
func tsBigInt(v *model.Value) bool {
	if v.Counted {
		lo, hi, _ := model.IntBounds(v)
		return lo < -(1<<53) || hi > 1<<53
	}
	return v.GoBits == 64
}

// intValue is the value of an integer whose wire value (in units) read
// is: times its unit (but for a duration counted in units), as its enum.
func (e *Emitter) intValue(v *model.Value, read string) string {
	switch {
	case v.Unit > 1 && !v.Counted && v.GoBits == 64:
		read = fmt.Sprintf("%s * %dn", read, v.Unit)
	case v.Unit > 1 && !v.Counted:
		read = fmt.Sprintf("%s * %d", read, v.Unit)
	}
	if v.Enum != nil {
		return read + " as " + e.typeNames[v.Enum]
	}
	return read
}

// enumCast is the number or bigint literal z as a value of v's enum: the
// constant that has it, else z asserted (through number or bigint when
// no constant has it, which TypeScript requires).
func (e *Emitter) enumCast(v *model.Value, z string) string {
	t := v.Enum
	for _, c := range t.Constants {
		if tsEnumLiteral(t, c) == z {
			return e.typeNames[t] + "." + c.Name
		}
	}
	through := "number"
	if t.GoBits == 64 {
		through = "bigint"
	}
	return "(" + z + " as " + through + " as " + e.typeNames[t] + ")"
}

func (e *Emitter) readInt(v *model.Value, r string) string {
	if v.Counted && !tsBigInt(v) {
		return e.readCount(v, r)
	}
	switch {
	case v.Ranged && v.GoBits == 64 && v.Signed:
		return fmt.Sprintf("%s.readRangeBig(%d, %s, %s, true)", r, model.RangeBits(v), tsBigS(v.IntMin), tsBig(model.Span(v)))
	case v.Ranged && v.GoBits == 64:
		return fmt.Sprintf("%s.readRangeBig(%d, %s, %s, false)", r, model.RangeBits(v), tsBig(v.UintMin), tsBig(model.Span(v)))
	case v.Ranged && v.Signed:
		return fmt.Sprintf("%s.readRange(%d, %d, %d)", r, model.RangeBits(v), v.IntMin, model.Span(v))
	case v.Ranged:
		return fmt.Sprintf("%s.readRange(%d, %d, %d)", r, model.RangeBits(v), v.UintMin, model.Span(v))
	case v.GoBits == 64 && v.Signed:
		return fmt.Sprintf("%s.readSignedBig(%d)", r, v.Bits)
	case v.GoBits == 64:
		return fmt.Sprintf("%s.readBig(%d)", r, v.Bits)
	case v.Signed:
		return fmt.Sprintf("%s.readSigned(%d)", r, v.Bits)
	}
	return fmt.Sprintf("%s.readBits(%d)", r, v.Bits)
}

// readCount reads a duration counted in units that is a number: as an
// integer of up to 32 bits where its wire value is one, else as a bigint
// made a number (exact: the range is within 2^53).
func (e *Emitter) readCount(v *model.Value, r string) string {
	switch {
	case v.Ranged && model.RangeBits(v) <= 32:
		return fmt.Sprintf("%s.readRange(%d, %d, %d)", r, model.RangeBits(v), v.IntMin, model.Span(v))
	case v.Ranged:
		return fmt.Sprintf("Number(%s.readRangeBig(%d, %s, %s, true))", r, model.RangeBits(v), tsBigS(v.IntMin), tsBig(model.Span(v)))
	case v.Bits <= 32:
		return fmt.Sprintf("%s.readSigned(%d)", r, v.Bits)
	}
	return fmt.Sprintf("Number(%s.readSignedBig(%d))", r, v.Bits)
}

// elemsCharge is the arguments of readLength after maxlen: a slice's count
// figure of an element, then its elements' charge (see eachCharge).
func elemsCharge(v *model.Value) string { return fmt.Sprintf("%d, %s", v.Each, eachCharge(v)) }

// eachCharge is the arguments of chargeValues after the count: the values
// and bytes of each element of slice v, and 2 for elements whose memory is
// charged twice (see model.Charge).
func eachCharge(v *model.Value) string {
	times := 1
	if v.Charge.Twice {
		times = 2
	}
	return fmt.Sprintf("%d, %d, %d", v.Charge.Work, v.Charge.Bytes, times)
}

// built fills x, or, when fresh, a new value (made by expr) in a local
// that x takes at the end: TypeScript does not narrow x[i] after an
// assignment, so nothing is read through x while it may be null.
func (e *Emitter) built(c *body, fresh bool, x, expr string, fill func(a string)) {
	if !fresh {
		fill(x)
		return
	}
	a := c.local("a")
	c.line("const %s = %s;", a, expr)
	fill(a)
	c.line("%s = %s;", x, a)
}

// readPresent reads a pointer's or sparse slot's value into x.
func (e *Emitter) readPresent(c *body, v *model.Value, x string, idx []string) {
	if v.Op != model.OpPointer {
		e.read(c, v, x, idx, true)
		return
	}
	e.built(c, true, x, "{ value: null } as BitpackBox<"+e.tsType(v)+">", func(a string) { e.read(c, v, a+".value", idx, true) })
}

func (e *Emitter) readStruct(c *body, v *model.Value, x string, idx []string, fresh bool) {
	p := code.PathExpr(v.Path, idx)
	n := e.typeNames[v.Type]
	e.built(c, fresh, x, "new"+n+"()", func(a string) {
		if v.Fields == nil {
			c.line("if (!read%sFields(r, %s)) return r.at(%s);", n, a, p)
			return
		}
		for _, u := range v.Fields {
			e.read(c, u.Value, a+"."+u.Member.Name, idx, false)
		}
	})
}

func (e *Emitter) readUnion(c *body, v *model.Value, x, p string) {
	start, u := c.local("x"), ""
	c.line("const %s = r.bitsRead;", start)
	if v.Type.Numbered {
		// The protocol's own indices (At): any other is refused as bitpack
		// words it, listing them.
		u = c.local("u")
		c.line("const %s = r.readBits(%d);", u, v.Type.IndexBits)
		c.line("if (r.failed) return r.at(%s);", p)
		c.line("switch (%s) {", u)
	} else {
		c.line("switch (r.readIndex(%d, %d)) {", v.Type.IndexBits, len(v.Type.Members))
	}
	for i, mt := range v.Type.Members {
		n := e.typeNames[mt]
		m := c.local("m")
		c.line("  case %d: {", v.Type.Indices[i])
		c.line("    if (!r.chargeValue(%d, %d, %s)) return r.at(%s);", mt.Charge.Work, mt.Charge.Bytes, start, p)
		c.line("    const %s = new%s();", m, n)
		c.line("    if (!read%sFields(r, %s)) return r.at(%s);", n, m, p)
		c.line("    %s = { type: %q, value: %s };", x, n, m)
		c.line("    break;")
		c.line("  }")
	}
	c.line("  default:")
	if v.Type.Numbered {
		var known []string
		for _, idx := range v.Type.Indices {
			known = append(known, strconv.FormatUint(idx, 10))
		}
		c.line("    r.fail(\"Range\", %s, \"union index \" + %s + %s);", start, u, code.Quote(" names no member ("+strings.Join(known, ", ")+")"))
	}
	c.line("    return r.at(%s);", p)
	c.line("}")
}

// readSparse reads a sparse array or slice: each present element's index
// as int_relative from the previous one (from -1), the element, and the
// length as the end marker.
func (e *Emitter) readSparse(c *body, v *model.Value, x string, idx []string, fresh bool) {
	p := code.PathExpr(v.Path, idx)
	k := strconv.Itoa(c.loops)
	n, prev, i, start, a := c.local("n"), "s"+k, "i"+k, "x"+k, c.local("a")
	c.loops++
	if v.Prefix != nil {
		c.line("const %s = r.readSlots(%d, %d);", n, v.Prefix.Bits, v.MaxLen)
		c.line("if (r.failed) return r.at(%s);", p)
		c.line("const %s = new Array<%s>(%s).fill(null);", a, e.optional(v.Elem), n)
	} else {
		c.line("const %s = %d;", n, v.Len)
		if fresh {
			c.line("const %s = new Array<%s>(%s).fill(null);", a, e.optional(v.Elem), n)
		} else {
			c.line("const %s = %s.fill(null); // newT made it", a, x)
		}
	}
	c.line("for (let %s = -1; ; ) {", prev)
	c.indent++
	c.line("const %s = r.bitsRead;", start)
	c.line("const %s = r.readIntRelative(%s);", i, prev)
	c.line("if (r.failed) return r.at(%s);", p)
	c.line("if (%s > %s) {", i, n)
	c.line("  r.fail(\"Range\", %s, \"sparse index \" + %s + \" out of range for length \" + %s);", start, i, n)
	c.line("  return r.at(%s);", p)
	c.line("}")
	c.line("if (%s === %s) break;", i, n)
	c.line("if (!r.chargeValue(%d, %d, %s)) return r.at(%s);", v.Charge.Work, v.Charge.Bytes, start, code.PathExpr(v.Elem.Path, append(idx, i)))
	e.readPresent(c, v.Elem, a+"["+i+"]", append(idx, i))
	c.line("%s = %s;", prev, i)
	c.close()
	c.line("%s = %s;", x, a)
	c.loops--
}

// tsPrimitive reports whether a value's zero is a primitive, which array
// elements can share.
func tsPrimitive(v *model.Value) bool {
	switch v.Op {
	case model.OpBool, model.OpInt, model.OpFloat, model.OpCompressed,
		model.OpString, model.OpPointer, model.OpSparse:
		return v.Op != model.OpSparse
	}
	return false
}

// quatComp is the TypeScript expression of a quaternion component's place
// within its holder: .X, .V.Y, [3]; read says the component is read
// (an element read gets the "!" of elem).
func (e *Emitter) quatComp(steps []model.QuatStep, read bool) string {
	var b strings.Builder
	for _, s := range steps {
		switch {
		case s.Member != nil:
			b.WriteString("." + s.Member.Name)
		case read:
			b.WriteString(elem("", strconv.Itoa(s.Index)))
		default:
			fmt.Fprintf(&b, "[%d]", s.Index)
		}
	}
	return b.String()
}

// readMap reads a map: its count, then each entry, a key above the one
// before it (else refused as bitpack refuses it), then its value, into a
// new Map. Errors name a key being read by its position ("[key 2]") and a
// value by its key, as bitpack's do.
func (e *Emitter) readMap(c *body, v *model.Value, x string, idx []string, fresh bool) {
	p := code.PathExpr(v.Path, idx)
	n, key, prev, val, start := c.local("n"), c.local("y"), c.local("s"), c.local("e"), c.local("x")
	c.line("const %s = r.readCount(%d, %d, %d, %d, %d);", n, v.Prefix.Bits, v.MaxLen, v.Each, v.Charge.Work, v.Charge.Bytes)
	c.line("if (r.failed) return r.at(%s);", p)
	e.built(c, true, x, "new "+e.tsType(v)+"()", func(a string) {
		c.line("let %s: %s = %s;", prev, e.tsType(v.Key), e.zero(v.Key))
		c.loop(n, func(i string) {
			c.line("const %s = r.bitsRead;", start)
			c.line("let %s: %s = %s;", key, e.tsType(v.Key), e.zero(v.Key))
			e.read(c, v.Key, key, append(idx, `"key " + `+i), false)
			c.line("if (%s > 0 && %s) {", i, tsKeyNotAbove(v.Order, key, prev))
			c.line("  r.fail(\"Range\", %s, \"key \" + %s + \" does not follow key \" + %s + \": map keys travel in ascending order, each once\");", start, tsKeyText(v.Key, key), tsKeyText(v.Key, prev))
			c.line("  return r.at(%s);", p)
			c.line("}")
			c.line("let %s: %s = %s;", val, e.tsType(v.Elem), e.zero(v.Elem))
			e.read(c, v.Elem, val, append(idx, tsKeyText(v.Key, key)), false)
			c.line("%s.set(%s, %s);", a, key, val)
			c.line("%s = %s;", prev, key)
		})
	})
}

// tsKeyNotAbove is the condition that key does not follow prev in
// bitpack's order: numbers by value, false before true, strings by their
// UTF-8 bytes.
func tsKeyNotAbove(order model.KeyOrder, key, prev string) string {
	switch order {
	case model.KeysBytewise:
		return "compareKeys(" + prev + ", " + key + ") >= 0"
	case model.KeysFalseFirst:
		return "Number(" + key + ") <= Number(" + prev + ")"
	}
	return key + " <= " + prev
}

// tsKeyText is the expression of a key as Go words it in an error's path.
func tsKeyText(v *model.Value, key string) string {
	if v.Op == model.OpString {
		return "keyText(" + key + ")"
	}
	return "String(" + key + ")"
}

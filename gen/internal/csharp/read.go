package csharp

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// The statements of the C# ReadFrom and WriteTo methods, value by value.
// Every step that can refuse is "if (!call) return r.At(path);": the
// reader or writer recorded what is wrong, and each function on the way
// out prefixes its part of the field path.

// Temporaries the read steps store into before converting to a field's
// type, declared at the top of ReadFrom when used.
const (
	tBool = iota
	tUint
	tUlong
	tLong
	tFloat
	tDouble
	tString
	tInt
	csTempCount
)

var csTempTypes = [csTempCount]string{"bool", "uint", "ulong", "long", "float", "double", "string", "int"}

func (c *body) temp(k int) string {
	c.temps[k] = true
	return "t" + strconv.Itoa(k)
}

func csTempDecls(c *body) string {
	var b strings.Builder
	for k, used := range c.temps {
		if used {
			fmt.Fprintf(&b, "        %s t%d;\n", csTempTypes[k], k)
		}
	}
	return b.String()
}

// csType is the C# type of a value.
func (e *Emitter) csType(v *model.Value) string {
	switch v.Op {
	case model.OpBool:
		return "bool"
	case model.OpInt:
		if v.Enum != nil {
			return e.typeNames[v.Enum]
		}
		return csIntType(v.Signed, v.GoBits)
	case model.OpFloat, model.OpCompressed:
		if v.FloatBits == 32 {
			return "float"
		}
		return "double"
	case model.OpString:
		return "string"
	case model.OpBytes, model.OpByteArray:
		return "byte[]"
	case model.OpArray, model.OpSlice:
		return e.csType(v.Elem) + "[]"
	case model.OpPointer:
		return e.optional(v.Elem)
	case model.OpSparse:
		return e.optional(v.Elem) + "[]"
	case model.OpStruct, model.OpFields, model.OpUnion, model.OpHook:
		return e.typeNames[v.Type]
	case model.OpQuat:
		if v.Type != nil {
			return e.typeNames[v.Type]
		}
		if v.FloatBits == 32 {
			return "float[]"
		}
		return "double[]"
	case model.OpMap:
		return "global::System.Collections.Generic.Dictionary<" + e.csType(v.Key) + ", " + e.csType(v.Elem) + ">"
	}
	panic("gen: no C# type for " + v.Op.String())
}

// optional is the type of a value that may be absent (a pointer's or a
// sparse slot's): null for classes, strings and arrays, T? for C# value
// types, and a BitpackBox for a pointer to a pointer, whose null inside
// means something else than its null outside.
func (e *Emitter) optional(v *model.Value) string {
	switch {
	case v.Op == model.OpPointer:
		return "BitpackBox<" + e.csType(v) + ">"
	case csValueType(v):
		return e.csType(v) + "?"
	}
	return e.csType(v)
}

func csValueType(v *model.Value) bool {
	switch v.Op {
	case model.OpBool, model.OpInt, model.OpFloat, model.OpCompressed:
		return true
	}
	return false
}

// num is x, a value of integer v, as a number: an enum's cast to its
// underlying type (C# converts an enum to no number implicitly).
func (e *Emitter) num(v *model.Value, x string) string {
	if v.Enum == nil {
		return x
	}
	return "((" + csIntType(v.Signed, v.GoBits) + ")" + x + ")"
}

// keyText is the expression of map key x of v as Go words it in an
// error's path.
func (e *Emitter) keyText(v *model.Value, x string) string {
	return "Bitpack.KeyText(" + e.num(v, x) + ")"
}

func csIntType(signed bool, bits int) string {
	names := map[int][2]string{8: {"byte", "sbyte"}, 16: {"ushort", "short"}, 32: {"uint", "int"}, 64: {"ulong", "long"}}
	if signed {
		return names[bits][1]
	}
	return names[bits][0]
}

// newArray is the C# expression of a new array of n elements of type
// elem: new int[n], and for an element that is itself an array, new
// int[n][] (the new dimension comes first).
func newArray(elem, n string) string {
	base, suffix := elem, ""
	for strings.HasSuffix(base, "[]") {
		base, suffix = strings.TrimSuffix(base, "[]"), suffix+"[]"
	}
	return "new " + base + "[" + n + "]" + suffix
}

// initValue renders the statements that give a new value's field x what
// its Go zero value means: empty strings and slices, arrays of their
// length, the objects of struct fields; pointers and unions stay null.
func (e *Emitter) initValue(c *body, v *model.Value, x string) {
	switch v.Op {
	case model.OpInt:
		if model.StartsAtTimeZero(v) { // Go's zero time, year 1
			c.line("%s = %s;", x, csLong(model.TimeZero(v)))
		}
	case model.OpString:
		c.line("%s = \"\";", x)
	case model.OpBytes:
		c.line("%s = Bitpack.NoBytes;", x)
	case model.OpByteArray:
		c.line("%s = new byte[%d];", x, v.Len)
	case model.OpSlice:
		c.line("%s = global::System.Array.Empty<%s>();", x, e.csType(v.Elem))
	case model.OpSparse:
		if v.Prefix != nil {
			c.line("%s = global::System.Array.Empty<%s>();", x, e.optional(v.Elem))
		} else {
			c.line("%s = %s;", x, newArray(e.optional(v.Elem), strconv.Itoa(v.Len)))
		}
	case model.OpArray:
		c.line("%s = %s;", x, newArray(e.csType(v.Elem), strconv.Itoa(v.Len)))
		if e.needsInit(v.Elem) {
			c.loop(strconv.Itoa(v.Len), func(i string) { e.initValue(c, v.Elem, x+"["+i+"]") })
		}
	case model.OpStruct, model.OpFields, model.OpHook, model.OpQuat, model.OpMap:
		if e.needsInit(v) {
			c.line("%s = %s;", x, e.newValue(v))
		}
	}
}

// newValue is a new quaternion holder or map: Go's zero value.
func (e *Emitter) newValue(v *model.Value) string {
	if v.Op.IsStruct() || v.Op == model.OpHook {
		return "new " + e.typeNames[v.Type] + "()"
	}
	if v.Op == model.OpQuat && v.Type == nil {
		return newArray(e.csType(v)[:len(e.csType(v))-2], "4")
	}
	return "new " + e.csType(v) + "()"
}

// needsInit reports whether a new value of v needs more than C#'s
// default (null, zero): a value struct does not, a time whose count for
// Go's zero time is not 0 does.
func (e *Emitter) needsInit(v *model.Value) bool {
	if e.valueStruct(v) {
		return false
	}
	switch v.Op {
	case model.OpInt:
		return model.StartsAtTimeZero(v)
	case model.OpString, model.OpBytes, model.OpByteArray, model.OpSlice, model.OpSparse,
		model.OpArray, model.OpStruct, model.OpFields, model.OpHook, model.OpQuat, model.OpMap:
		return true
	}
	return false
}

// constant declares a private static constant of the class being
// rendered, from its IEEE-754 bits (a decimal literal could be rounded
// twice by a compiler that parses through double), and returns its name.
func (e *Emitter) constant(typ string, bits uint64, value float64) string {
	var init string
	if typ == "float" {
		init = fmt.Sprintf("Bitpack.Float32FromBits(%#08xu)", uint32(bits))
	} else {
		init = fmt.Sprintf("Bitpack.Float64FromBits(%#016xUL)", bits)
	}
	if name, ok := e.constName[init]; ok {
		return name
	}
	name := "k" + strconv.Itoa(len(e.consts))
	e.constName[init] = name
	e.consts = append(e.consts, fmt.Sprintf("private static readonly %s %s = %s; // %s", typ, name, init, strconv.FormatFloat(value, 'g', -1, 64)))
	return name
}

// f32bits and f64bits are the IEEE-754 bits of a compressed float's
// parameter, rounded to the field's precision for float32.
func f32bits(x float64) uint32 { return math.Float32bits(float32(x)) }
func f64bits(x float64) uint64 { return math.Float64bits(x) }

// floatConsts declares a compressed float's min, delta, lo and hi.
func (e *Emitter) floatConsts(v *model.Value) (lo, dl, low, high string) {
	typ := "double"
	bitsOf := f64bits
	if v.FloatBits == 32 {
		typ, bitsOf = "float", func(x float64) uint64 { return uint64(f32bits(x)) }
	}
	lo = e.constant(typ, bitsOf(v.Min), v.Min)
	dl = e.constant(typ, bitsOf(model.Delta(v)), model.Delta(v))
	low = e.constant("double", f64bits(v.Lo), v.Lo)
	high = e.constant("double", f64bits(v.Hi), v.Hi)
	return
}

func csLong(v int64) string {
	if v == math.MinInt64 {
		return "long.MinValue"
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return strconv.FormatInt(v, 10) + "L"
	}
	return strconv.FormatInt(v, 10)
}

func csUlong(v uint64) string { return strconv.FormatUint(v, 10) + "UL" }

// read renders the statements that read v into x. fresh says x holds no
// object yet (under a pointer, a slice, a union); otherwise x is a struct
// field or array element its class's constructor made, filled in place.
func (e *Emitter) read(c *body, v *model.Value, x string, idx []string) {
	e.readInto(c, v, x, idx, true, false)
}

// readInto is read with direct: x's type is exactly csType(v), so an
// out argument can name it; otherwise scalars go through a temporary.
func (e *Emitter) readInto(c *body, v *model.Value, x string, idx []string, direct, fresh bool) {
	p := code.PathExpr(v.Path, idx)
	fail := func(call string) { c.line("if (!%s)", call); c.line("    return r.At(%s);", p) }
	if k, call, _, ok := e.scalarRead(v); ok && v.Unit > 1 && !v.Counted {
		t := c.temp(k)
		fail(fmt.Sprintf(call, "out "+t))
		if v.Signed {
			c.line("%s = (%s)(%s * %s);", x, e.csType(v), t, csLong(v.Unit))
		} else {
			c.line("%s = (%s)((ulong)%s * %s);", x, e.csType(v), t, csUlong(uint64(v.Unit)))
		}
		return
	}
	if k, call, conv, ok := e.scalarRead(v); ok {
		if direct && conv == "" {
			fail(fmt.Sprintf(call, "out "+x))
			return
		}
		t := c.temp(k)
		fail(fmt.Sprintf(call, "out "+t))
		c.line("%s = %s%s;", x, conv, t)
		return
	}
	switch v.Op {
	case model.OpBytes:
		if fresh {
			c.line("%s = null;", x)
		}
		fail(fmt.Sprintf("r.ReadByteSlice(%d, %d, ref %s)", v.Prefix.Bits, v.MaxLen, x))
	case model.OpByteArray:
		if fresh {
			c.line("%s = new byte[%d];", x, v.Len)
		}
		fail("r.ReadByteArray(" + x + ")")
	case model.OpArray:
		if fresh {
			c.line("%s = %s;", x, newArray(e.csType(v.Elem), strconv.Itoa(v.Len)))
		}
		c.loop(strconv.Itoa(v.Len), func(i string) {
			e.readInto(c, v.Elem, x+"["+i+"]", append(idx, i), true, fresh)
		})
	case model.OpSlice:
		n := c.fresh("n")
		c.open()
		c.line("int %s;", n)
		fail(fmt.Sprintf("r.ReadLength(%d, %d, %s, out %s)", v.Prefix.Bits, v.MaxLen, elemsCharge(v), n))
		if fresh {
			c.line("%s = %s;", x, newArray(e.csType(v.Elem), n))
		} else {
			c.line("if (%s == null || %s.Length != %s)", x, x, n)
			c.line("    %s = %s;", x, newArray(e.csType(v.Elem), n))
		}
		c.loop(n, func(i string) { e.readInto(c, v.Elem, x+"["+i+"]", append(idx, i), true, true) })
		c.close()
	case model.OpPointer:
		t := c.temp(tBool)
		fail(fmt.Sprintf("r.ReadPresence(%d, %d, out %s)", v.Charge.Work, v.Charge.Bytes, t))
		c.line("if (!%s)", t)
		c.line("    %s = null;", x)
		c.line("else")
		c.open()
		e.readPresent(c, v.Elem, x, idx)
		c.close()
	case model.OpStruct, model.OpFields:
		e.readStruct(c, v, x, idx, fresh)
	case model.OpUnion:
		e.readUnion(c, v, x, idx)
	case model.OpHook:
		fail(fmt.Sprintf("r.ChargeHook(%d, %d, r.BitsRead)", v.Charge.Work, v.Charge.Bytes))
		fail(fmt.Sprintf("%s.Read(ref r, out %s)", e.typeNames[v.Type], x))
	case model.OpSparse:
		e.readSparse(c, v, x, idx, fresh)
	case model.OpCheck:
		fail(fmt.Sprintf("r.ReadCheck(%#08xu, %s)", v.CheckHash, code.Quote(v.CheckName)))
	case model.OpQuat:
		c.open()
		c.line("float q0, q1, q2, q3;")
		fail(fmt.Sprintf("r.ReadQuat(%d, out q0, out q1, out q2, out q3)", v.Bits))
		if fresh {
			c.line("%s = %s;", x, e.newValue(v))
		}
		for k, steps := range v.Comps {
			c.line("%s%s = q%d;", x, e.quatComp(steps), k)
		}
		c.close()
	case model.OpMap:
		e.readMap(c, v, x, idx, fresh)
	default:
		panic("gen: C# cannot read " + v.Op.String())
	}
}

// scalarRead is how a scalar value is read: the temporary kind the
// reader's method stores into, the call (with %s for the out argument),
// and the conversion to the field's type ("" when the types are the
// same). ok is false for the other kinds.
func (e *Emitter) scalarRead(v *model.Value) (k int, call, conv string, ok bool) {
	cast := func(k int) string {
		if typ := e.csType(v); typ != csTempTypes[k] {
			return "(" + typ + ")"
		}
		return ""
	}
	switch v.Op {
	case model.OpBool:
		return tBool, "r.ReadBool(%s)", "", true
	case model.OpInt:
		switch {
		case v.Ranged && v.Signed:
			return tLong, fmt.Sprintf("r.ReadIntRange(%d, %s, %s, %%s)", model.RangeBits(v), csLong(v.IntMin), csUlong(model.Span(v))), cast(tLong), true
		case v.Ranged:
			return tUlong, fmt.Sprintf("r.ReadUintRange(%d, %s, %s, %%s)", model.RangeBits(v), csUlong(v.UintMin), csUlong(model.Span(v))), cast(tUlong), true
		case v.Signed:
			return tLong, fmt.Sprintf("r.ReadSigned(%d, %%s)", v.Bits), cast(tLong), true
		case v.Bits > 32:
			return tUlong, fmt.Sprintf("r.ReadBits64(%d, %%s)", v.Bits), cast(tUlong), true
		}
		return tUint, fmt.Sprintf("r.ReadBits(%d, %%s)", v.Bits), cast(tUint), true
	case model.OpFloat:
		if v.FloatBits == 32 {
			return tFloat, "r.ReadFloat32(%s)", "", true
		}
		return tDouble, "r.ReadFloat64(%s)", "", true
	case model.OpCompressed:
		lo, dl, _, _ := e.floatConsts(v)
		k, fn := tFloat, "ReadCompressed32"
		if v.FloatBits == 64 {
			k, fn = tDouble, "ReadCompressed64"
		}
		return k, fmt.Sprintf("r.%s(%d, %du, %s, %s, %%s)", fn, v.Bits, v.Steps, dl, lo), "", true
	case model.OpString:
		return tString, fmt.Sprintf("r.ReadString(%d, %d, %%s)", v.Prefix.Bits, v.MaxLen), "", true
	}
	return 0, "", "", false
}

// elemsCharge is the arguments of ReadLength after maxlen: a slice's count
// figure of an element, then its elements' charge (see eachCharge).
func elemsCharge(v *model.Value) string { return fmt.Sprintf("%d, %s", v.Each, eachCharge(v)) }

// eachCharge is the arguments of ChargeValues after the count: the values
// and bytes of each element of slice v, and 2 for elements whose memory is
// charged twice (see model.Charge).
func eachCharge(v *model.Value) string {
	times := 1
	if v.Charge.Twice {
		times = 2
	}
	return fmt.Sprintf("%d, %d, %d", v.Charge.Work, v.Charge.Bytes, times)
}

// readPresent reads a pointer's or sparse slot's value into x, whose type
// is optional(v).
func (e *Emitter) readPresent(c *body, v *model.Value, x string, idx []string) {
	if v.Op == model.OpPointer {
		c.line("%s = new %s();", x, e.optional(v))
		e.readInto(c, v, x+".Value", idx, false, true)
		return
	}
	e.readInto(c, v, x, idx, !csValueType(v), true)
}

func (e *Emitter) readStruct(c *body, v *model.Value, x string, idx []string, fresh bool) {
	p := code.PathExpr(v.Path, idx)
	name := e.typeNames[v.Type]
	if v.Fields == nil {
		if fresh {
			c.line("%s = new %s();", x, name)
		}
		c.line("if (!%s.ReadFrom(ref r))", x)
		c.line("    return r.At(%s);", p)
		return
	}
	if fresh {
		c.line("%s = new %s();", x, name)
	}
	for _, u := range v.Fields {
		e.readInto(c, u.Value, x+"."+e.members[u.Member], idx, true, false)
	}
}

func (e *Emitter) readUnion(c *body, v *model.Value, x string, idx []string) {
	p := code.PathExpr(v.Path, idx)
	t, start := c.temp(tInt), "x"+strconv.Itoa(c.loops)
	c.open()
	c.line("int %s = r.BitsRead;", start)
	if v.Type.Numbered {
		// The protocol's own indices (At): any other is refused as bitpack
		// words it, listing them.
		u := c.temp(tUint)
		c.open()
		c.line("if (!r.ReadBits(%d, out %s))", v.Type.IndexBits, u)
		c.line("    return r.At(%s);", p)
		c.line("switch (%s)", u)
		c.open()
		var known []string
		for i, idx := range v.Type.Indices {
			c.line("case %du: %s = %d; break;", idx, t, i)
			known = append(known, strconv.FormatUint(idx, 10))
		}
		c.line("default:")
		c.line("    r.Fail(BitpackErrorKind.Range, %s, \"union index \" + %s + %s);", start, u, code.Quote(" names no member ("+strings.Join(known, ", ")+")"))
		c.line("    return r.At(%s);", p)
		c.close()
		c.close()
	} else {
		c.line("if (!r.ReadIndex(%d, %d, out %s))", v.Type.IndexBits, len(v.Type.Members), t)
		c.line("    return r.At(%s);", p)
	}
	c.line("switch (%s)", t)
	c.open()
	for i, mt := range v.Type.Members {
		name := e.typeNames[mt]
		m := "m" + strconv.Itoa(c.loops)
		c.line("case %d:", i)
		c.open()
		c.line("%s %s;", name, m)
		c.line("if (!r.ChargeValue(%d, %d, %s))", mt.Charge.Work, mt.Charge.Bytes, start)
		c.line("    return r.At(%s);", p)
		c.line("%s = new %s();", m, name)
		c.line("if (!%s.ReadFrom(ref r))", m)
		c.line("    return r.At(%s);", p)
		c.line("%s = %s;", x, m)
		c.line("break;")
		c.close()
	}
	c.close()
	c.close()
}

// readSparse reads a sparse array or slice: each present element's index
// as int_relative from the previous one (from -1), the element, and the
// length as the end marker.
func (e *Emitter) readSparse(c *body, v *model.Value, x string, idx []string, fresh bool) {
	p := code.PathExpr(v.Path, idx)
	k := strconv.Itoa(c.loops)
	n, prev, i, start := "n"+k, "s"+k, "i"+k, "x"+k
	c.loops++
	c.open()
	slot := e.optional(v.Elem)
	if v.Prefix != nil {
		c.line("int %s;", n)
		c.line("if (!r.ReadSlots(%d, %d, out %s))", v.Prefix.Bits, v.MaxLen, n)
		c.line("    return r.At(%s);", p)
		c.line("%s = %s;", x, newArray(slot, n))
	} else {
		c.line("const int %s = %d;", n, v.Len)
		if fresh {
			c.line("%s = %s;", x, newArray(slot, n))
		} else {
			c.line("global::System.Array.Clear(%s, 0, %s);", x, n)
		}
	}
	c.line("int %s = -1;", prev)
	c.line("for (;;)")
	c.open()
	c.line("int %s = r.BitsRead, %s;", start, i)
	c.line("if (!r.ReadIntRelative(%s, out %s))", prev, i)
	c.line("    return r.At(%s);", p)
	c.line("if (%s > %s)", i, n)
	c.open()
	c.line("r.Fail(BitpackErrorKind.Range, %s, \"sparse index \" + %s + \" out of range for length \" + %s);", start, i, n)
	c.line("return r.At(%s);", p)
	c.close()
	c.line("if (%s == %s)", i, n)
	c.line("    break;")
	c.line("if (!r.ChargeValue(%d, %d, %s))", v.Charge.Work, v.Charge.Bytes, start)
	c.line("    return r.At(%s);", code.PathExpr(v.Elem.Path, append(idx, i)))
	e.readPresent(c, v.Elem, x+"["+i+"]", append(idx, i))
	c.line("%s = %s;", prev, i)
	c.close()
	c.close()
	c.loops--
}

// quatComp is the C# expression of a quaternion component's place within
// its holder: .X, .V.Y, [3].
func (e *Emitter) quatComp(steps []model.QuatStep) string {
	var b strings.Builder
	for _, s := range steps {
		if s.Member != nil {
			b.WriteString("." + e.members[s.Member])
		} else {
			fmt.Fprintf(&b, "[%d]", s.Index)
		}
	}
	return b.String()
}

// readMap reads a map: its count, then each entry, a key above the one
// before it (else refused as bitpack refuses it), then its value, into a
// Dictionary (the one x holds, cleared, unless x is fresh or null).
// Errors name a key being read by its position ("[key 2]") and a value by
// its key, as bitpack's do.
func (e *Emitter) readMap(c *body, v *model.Value, x string, idx []string, fresh bool) {
	p := code.PathExpr(v.Path, idx)
	k := strconv.Itoa(c.loops)
	n, i, key, prev, val, start := "n"+k, "i"+k, "y"+k, "s"+k, "e"+k, "x"+k
	ktype, vtype := e.csType(v.Key), e.csType(v.Elem)
	c.loops++
	c.open()
	c.line("int %s;", n)
	c.line("if (!r.ReadCount(%d, %d, %d, %d, %d, out %s))", v.Prefix.Bits, v.MaxLen, v.Each, v.Charge.Work, v.Charge.Bytes, n)
	c.line("    return r.At(%s);", p)
	if fresh {
		c.line("%s = new %s(%s);", x, e.csType(v), n)
	} else {
		c.line("if (%s == null)", x)
		c.line("    %s = new %s(%s);", x, e.csType(v), n)
		c.line("else")
		c.line("    %s.Clear();", x)
	}
	c.line("%s %s = default(%s);", ktype, prev, ktype)
	c.line("for (int %s = 0; %s < %s; %s++)", i, i, n, i)
	c.open()
	c.line("int %s = r.BitsRead;", start)
	c.line("%s %s;", ktype, key)
	e.readInto(c, v.Key, key, append(idx, `"key " + `+i), true, true)
	c.line("if (%s > 0 && %s)", i, csKeyNotAbove(v.Order, key, prev))
	c.open()
	c.line("r.Fail(BitpackErrorKind.Range, %s, \"key \" + %s + \" does not follow key \" + %s + \": map keys travel in ascending order, each once\");", start, e.keyText(v.Key, key), e.keyText(v.Key, prev))
	c.line("return r.At(%s);", p)
	c.close()
	c.line("%s %s = default(%s);", vtype, val, vtype)
	e.readInto(c, v.Elem, val, append(idx, e.keyText(v.Key, key)), true, true)
	c.line("%s.Add(%s, %s);", x, key, val)
	c.line("%s = %s;", prev, key)
	c.close()
	c.close()
	c.loops--
}

// csKeyNotAbove is the C# condition that key does not follow prev in
// bitpack's order: numbers by value, false before true, strings by their
// UTF-8 bytes.
func csKeyNotAbove(order model.KeyOrder, key, prev string) string {
	switch order {
	case model.KeysFalseFirst:
		return "(" + prev + " || !" + key + ")"
	case model.KeysBytewise:
		return "Bitpack.CompareKeys(" + prev + ", " + key + ") >= 0"
	}
	return key + " <= " + prev
}

package csharp

import (
	"fmt"
	"strconv"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// The C# delta methods (docs/wire.md, "Delta encoding"): per class,
// ReadDeltaBody and WriteDeltaBody walk the class's delta items (its wire
// fields, a struct field's fields in its place), each after its changed
// bit when the value has two or more; the rest are built on them.
// A read applies the delta to a copy of the base (Clone), so the base is
// never touched; a write compares each field with the base's by its wire
// code, as bitpack does.

// csItem is one delta item of a value being read or written: a field
// that is not a struct (structs' fields are items in their place). set is
// where a read stores the item's new value, get the value (the base's, in
// a read), base the base's value in a write; idx are the loop variables
// of its path.
type csItem struct {
	v              *model.Value
	set, get, base string
	idx            []string
	objs           []csItem // the structs whose first item this is: a write refuses them null first
}

// csItems returns the delta items of v (a struct's fields in its place,
// recursively), in wire order; none for a value that holds one value
// only (see itemCount).
func csItems(e *Emitter, v *model.Value, set, get, base string, idx []string) []csItem {
	if v.Op.IsStruct() {
		var out []csItem
		if v.Fields == nil {
			for _, m := range v.Type.Fields {
				n := "." + e.members[m]
				out = append(out, csItems(e, prefixValue(m.Value, v.Path), get+n, get+n, base+n, idx)...)
			}
		} else {
			for _, u := range v.Fields {
				n := "." + e.members[u.Member]
				out = append(out, csItems(e, u.Value, get+n, get+n, base+n, idx)...)
			}
		}
		if len(out) > 0 {
			out[0].objs = append([]csItem{{v: v, get: get, base: base, idx: idx}}, out[0].objs...)
		}
		return out
	}
	if model.ItemCount(v) == 0 {
		return nil
	}
	return []csItem{{v: v, set: set, get: get, base: base, idx: idx}}
}

// typeItems are a struct type's own items, on this and on b.
func (e *Emitter) typeItems(t *model.Type) []csItem {
	var out []csItem
	for _, m := range t.Fields {
		n := e.members[m]
		out = append(out, csItems(e, m.Value, "this."+n, "this."+n, "b."+n, nil)...)
	}
	return out
}

// prefixValue is v with every path in it under prefix: the fields of a
// struct in its own form, named from the value that holds it.
func prefixValue(v *model.Value, prefix string) *model.Value {
	if v == nil || prefix == "" {
		return v
	}
	c := *v
	switch {
	case v.Path == "":
		c.Path = prefix
	case v.Path[0] == '[':
		c.Path = prefix + v.Path
	default:
		c.Path = prefix + "." + v.Path
	}
	c.Elem, c.Key = prefixValue(v.Elem, prefix), prefixValue(v.Key, prefix)
	if v.Fields != nil {
		c.Fields = make([]*model.FieldUse, len(v.Fields))
		for i, u := range v.Fields {
			c.Fields[i] = &model.FieldUse{Member: u.Member, Value: prefixValue(u.Value, prefix)}
		}
	}
	return &c
}

// countItems is the number of items a list of csItems stands for.
func countItems(items []csItem) int {
	n := 0
	for _, it := range items {
		n += model.ItemCount(it.v)
	}
	return n
}

// csRet is the statement that returns a refusal, naming path p.
func csRet(side, p string) string { return "return " + side + ".At(" + p + ");" }

// ---------------------------------------------------------------------------
// The methods.

// deltaMethods renders a class's delta methods: over whole packets, over
// a stream, the bodies those are built on, then Clone, which a delta read
// copies the base with.
func (e *Emitter) deltaMethods(t *model.Type) []byte {
	name, goName := e.typeNames[t], code.Quote(t.Go.String())
	return []byte("\n" + deltaPacketMethods(name, goName) + deltaStreamMethods(name) + e.deltaBodyMethods(t) + e.cloneMethod(t))
}

// deltaPacketMethods renders TryReadDelta and TryWriteDelta, a delta as a
// whole packet in a new array, for class name (goName: its Go type, as
// errors name it).
func deltaPacketMethods(name, goName string) string {
	return fmt.Sprintf(`    /// <summary>
    /// Applies a delta (bitpack.AppendDelta's bytes) to baseValue as
    /// bitpack.UnmarshalDelta does, refusing every delta it refuses, with its
    /// error (whole bytes after the delta too). value is a new object:
    /// baseValue is never changed, on success or refusal (then value is
    /// null), and value shares nothing with it but strings and hook objects,
    /// which a delta replaces and never changes, so value is safe to keep as
    /// the next base. baseValue must be a value this client decoded (the
    /// server encodes against what the client holds).
    /// </summary>
    public static bool TryReadDelta(byte[] packet, %[1]s baseValue, out %[1]s value, out string error)
    {
        BitpackReader r = new BitpackReader(packet);
        %[1]s v;
        if (!ReadDelta(ref r, baseValue, out v) || !r.Finish())
        {
            value = null;
            error = r.Error(%[2]s);
            return false;
        }
        value = v;
        error = null;
        return true;
    }

    /// <summary>
    /// Writes this value's delta against baseValue, the bytes
    /// bitpack.AppendDelta writes (00 when nothing changed on the wire): false,
    /// with its error, for every pair it refuses.
    /// </summary>
    public bool TryWriteDelta(%[1]s baseValue, out byte[] packet, out string error)
    {
        BitpackWriter w = new BitpackWriter(16);
        if (!WriteDelta(ref w, baseValue))
        {
            packet = null;
            error = w.Error(%[2]s);
            return false;
        }
        packet = w.ToArray();
        error = null;
        return true;
    }

`, name, goName)
}

// deltaStreamMethods renders ReadDelta and WriteDelta: a delta's changed
// bit, then its body, on a stream (a body that changes nothing is taken
// back, leaving a 0 bit).
func deltaStreamMethods(name string) string {
	return fmt.Sprintf(`    /// <summary>Reads one delta from r (its changed bit, then its body) into a copy of baseValue (no check for what follows).</summary>
    public static bool ReadDelta(ref BitpackReader r, %[1]s baseValue, out %[1]s value)
    {
        if (baseValue == null)
            throw new global::System.ArgumentNullException("baseValue");
        value = null;
        int start = r.BitsRead;
        bool changed;
        if (!r.ReadBool(out changed))
            return false;
        %[1]s v = baseValue.Clone();
        if (changed)
        {
            bool any;
            if (!v.ReadDeltaBody(ref r, out any))
                return false;
            if (!any)
                return r.Unchanged(start);
        }
        value = v;
        return true;
    }

    /// <summary>Writes this value's delta against baseValue to w: its changed bit, then its body.</summary>
    public bool WriteDelta(ref BitpackWriter w, %[1]s baseValue)
    {
        if (baseValue == null)
            throw new global::System.ArgumentNullException("baseValue");
        int start = w.BitsWritten;
        bool changed = false;
        w.WriteBits(1, 1);
        if (!ReferenceEquals(this, baseValue) && !WriteDeltaBody(ref w, baseValue, out changed))
            return false;
        if (!changed)
        {
            w.Rewind(start);
            w.WriteBits(0, 1);
        }
        return true;
    }

`, name)
}

// deltaBodyMethods renders ReadDeltaBody and WriteDeltaBody, which walk
// t's delta items. It declares the constants their code uses.
func (e *Emitter) deltaBodyMethods(t *model.Type) string {
	items := e.typeItems(t)
	bit := strconv.FormatBool(countItems(items) > 1)
	rc := &body{indent: 2, temps: make([]bool, csTempCount)}
	e.dReadItems(rc, items, bit, "changed")
	wc := &body{indent: 2}
	e.dWriteItems(wc, items, bit, "changed")
	return fmt.Sprintf(`    /// <summary>
    /// Reads a delta body (of a changed value, element, pointee or member of
    /// this type: its items, each after its changed bit when it has two or
    /// more) and applies it to this value, a copy of the base; changed says
    /// whether it changed anything (a body must).
    /// </summary>
    public bool ReadDeltaBody(ref BitpackReader r, out bool changed)
    {
        changed = false;
%[2]s%[3]s        return true;
    }

    /// <summary>Writes this value's delta body against b; changed says whether it wrote any change (else the caller takes its bits back).</summary>
    public bool WriteDeltaBody(ref BitpackWriter w, %[1]s b, out bool changed)
    {
        changed = false;
%[4]s        return true;
    }

`, e.typeNames[t], csTempDecls(rc), rc.b.String(), wc.b.String())
}

// ---------------------------------------------------------------------------
// Fixed-width fields' codes.

// scalarKind says how ReadScalarDelta words a code past a fixed-width
// field's limit, as bitpack's kinds do: 1, an unsigned integer from min;
// 2, a signed one; 3, a compressed float's code.
func scalarKind(v *model.Value) string {
	switch {
	case v.Op == model.OpCompressed:
		return "3"
	case v.Op == model.OpInt && v.Signed:
		return "2"
	}
	return "1"
}

// oldCode is the C# expression of the offset code of x, a value of v
// the reader holds (decoded: in range).
func (e *Emitter) oldCode(v *model.Value, x string) string {
	lo := v.Code.Lo
	if v.Op == model.OpInt {
		x = e.num(v, x)
	}
	switch {
	case v.Op == model.OpBool:
		return "(" + x + " ? 1UL : 0UL)"
	case v.Op == model.OpInt && v.Signed:
		if v.Unit > 1 && !v.Counted {
			return fmt.Sprintf("((ulong)Bitpack.Units(%s, %s) - %s)", x, csLong(v.Unit), csUlong(lo))
		}
		return fmt.Sprintf("((ulong)(long)%s - %s)", x, csUlong(lo))
	case v.Op == model.OpInt:
		if v.Unit > 1 {
			return fmt.Sprintf("(Bitpack.UnitsU(%s, %s) - %s)", x, csUlong(uint64(v.Unit)), csUlong(lo))
		}
		return fmt.Sprintf("((ulong)%s - %s)", x, csUlong(lo))
	case v.Op == model.OpCompressed:
		min, dl, _, _ := e.floatConsts(v)
		if v.FloatBits == 32 {
			return fmt.Sprintf("Bitpack.Quantize32(%s, %s, %s, %du)", x, min, dl, v.Steps)
		}
		return fmt.Sprintf("Bitpack.Quantize64(%s, %s, %s, %du)", x, min, dl, v.Steps)
	}
	if v.FloatBits == 32 {
		return "(ulong)Bitpack.Float32Bits(" + x + ")"
	}
	return "(ulong)global::System.BitConverter.DoubleToInt64Bits(" + x + ")"
}

// fromCode is the C# expression of the value of offset code code.
func (e *Emitter) fromCode(v *model.Value, code string) string {
	lo := v.Code.Lo
	switch {
	case v.Op == model.OpBool:
		return code + " != 0"
	case v.Op == model.OpInt && v.Signed:
		typ := e.csType(v)
		if v.Unit > 1 && !v.Counted {
			return fmt.Sprintf("(%s)((long)(%s + %s) * %s)", typ, code, csUlong(lo), csLong(v.Unit))
		}
		return fmt.Sprintf("(%s)(long)(%s + %s)", typ, code, csUlong(lo))
	case v.Op == model.OpInt:
		typ := e.csType(v)
		if v.Unit > 1 {
			return fmt.Sprintf("(%s)((%s + %s) * %s)", typ, code, csUlong(lo), csUlong(uint64(v.Unit)))
		}
		return fmt.Sprintf("(%s)(%s + %s)", typ, code, csUlong(lo))
	case v.Op == model.OpCompressed:
		min, dl, _, _ := e.floatConsts(v)
		if v.FloatBits == 32 {
			return fmt.Sprintf("Bitpack.Dequantize32(%s, %du, %s, %s)", code, v.Steps, dl, min)
		}
		return fmt.Sprintf("Bitpack.Dequantize64(%s, %du, %s, %s)", code, v.Steps, dl, min)
	}
	if v.FloatBits == 32 {
		return "Bitpack.Float32FromBits((uint)" + code + ")"
	}
	return "Bitpack.Float64FromBits(" + code + ")"
}

// codeCall is the C# call that stores the offset code of x, a value of v
// a writer is given, into out, refusing what Marshal refuses; "" when
// every value has one, which oldCode computes.
func (e *Emitter) codeCall(v *model.Value, x, out string) string {
	switch v.Op {
	case model.OpInt:
		unit := max(v.Unit, 1)
		x = e.num(v, x)
		switch {
		case v.Time:
			lo, hi, _ := model.IntBounds(v)
			return fmt.Sprintf("w.CodeTime(%s, %s, %s, %s, %t, %s, out %s)", x, csLong(lo), csLong(hi), csLong(unit), v.Clamp, code.Quote(v.UnitText), out)
		case v.Counted:
			lo, hi, _ := model.IntBounds(v)
			return fmt.Sprintf("w.CodeCounted(%s, %s, %s, %s, %t, %s, out %s)", x, csLong(lo), csLong(hi), csLong(unit), v.Clamp, code.Quote(v.UnitText), out)
		case (v.Unit > 1 || v.Clamp) && v.Signed:
			lo, hi, _ := model.IntBounds(v)
			return fmt.Sprintf("w.CodeUnits(%s, %s, %s, %s, %t, %s, %t, out %s)", x, csLong(lo), csLong(hi), csLong(unit), v.Clamp, code.Quote(v.UnitText), v.Duration, out)
		case v.Unit > 1 || v.Clamp:
			lo, hi := model.UintBounds(v)
			return fmt.Sprintf("w.CodeUnitsU(%s, %s, %s, %s, %t, %s, out %s)", x, csUlong(lo), csUlong(hi), csUlong(uint64(unit)), v.Clamp, code.Quote(v.UnitText), out)
		case v.Ranged && v.Signed:
			return fmt.Sprintf("w.CodeIntRange(%s, %s, %s, out %s)", x, csLong(v.IntMin), csUlong(model.Span(v)), out)
		case v.Ranged:
			return fmt.Sprintf("w.CodeUintRange(%s, %s, %s, out %s)", x, csUlong(v.UintMin), csUlong(model.Span(v)), out)
		case v.Bits < v.GoBits && v.Signed:
			return fmt.Sprintf("w.CodeSigned(%s, %d, out %s)", x, v.Bits, out)
		case v.Bits < v.GoBits:
			return fmt.Sprintf("w.CodeUnsigned(%s, %d, out %s)", x, v.Bits, out)
		}
	case model.OpCompressed:
		lo, dl, low, high := e.floatConsts(v)
		fn := "CodeCompressed32"
		if v.FloatBits == 64 {
			fn = "CodeCompressed64"
		}
		return fmt.Sprintf("w.%s(%s, %s, %s, %du, %s, %s, %t, %s, out %s)", fn, x, lo, dl, v.Steps, low, high, v.Clamp, code.Quote(model.Bounds(v)), out)
	}
	return ""
}

// sameValue is the C# condition that two values of a fixed-width field
// are the same in memory (floats by their bits, as Go compares them).
func sameValue(v *model.Value, a, b string) string {
	switch {
	case (v.Op == model.OpFloat || v.Op == model.OpCompressed) && v.FloatBits == 32:
		return "Bitpack.Float32Bits(" + a + ") == Bitpack.Float32Bits(" + b + ")"
	case v.Op == model.OpFloat || v.Op == model.OpCompressed:
		return "global::System.BitConverter.DoubleToInt64Bits(" + a + ") == global::System.BitConverter.DoubleToInt64Bits(" + b + ")"
	}
	return a + " == " + b
}

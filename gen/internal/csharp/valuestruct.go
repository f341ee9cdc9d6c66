package csharp

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// Value structs: a Go struct type whose fields are all fixed-width
// (booleans, integers, floats, and structs that are value structs
// themselves) is a C# struct where that keeps the API safe (gen/README.md,
// "Structs"): default(T) is then Go's zero value, a copy shares nothing,
// and no null can be written. It stays a class when it is a root (the
// type packets, receivers and reads into a caller's value are about), a
// union's member (an interface would box it) or a pointee or sparse slot
// anywhere (T? could not be changed in place).

// findValueStructs decides which struct types of m are C# structs.
func findValueStructs(m *model.Model, unionsOf map[*model.Type][]*model.Type) map[*model.Type]bool {
	vs := map[*model.Type]bool{}
	for _, t := range m.Types {
		if t.Kind == model.TypeStruct && len(unionsOf[t]) == 0 {
			vs[t] = true
		}
	}
	for _, r := range m.Roots {
		delete(vs, r)
	}
	var optional func(v *model.Value)
	optional = func(v *model.Value) {
		if v == nil {
			return
		}
		if (v.Op == model.OpPointer || v.Op == model.OpSparse) && v.Elem.Type != nil {
			delete(vs, v.Elem.Type)
		}
		optional(v.Elem)
		optional(v.Key)
		for _, u := range v.Fields {
			optional(u.Value)
		}
	}
	for _, t := range m.Types {
		for _, f := range t.Fields {
			optional(f.Value)
		}
	}
	for changed := true; changed; {
		changed = false
		for t := range vs {
			for _, f := range t.Fields {
				if !fixedWidth(f.Value, vs) {
					delete(vs, t)
					changed = true
					break
				}
			}
		}
	}
	return vs
}

// fixedWidth reports whether v is a value a value struct may hold.
func fixedWidth(v *model.Value, vs map[*model.Type]bool) bool {
	switch v.Op {
	case model.OpInt: // but a time whose zero is year 1: default(T) would hold 1970
		return !model.StartsAtTimeZero(v)
	case model.OpBool, model.OpFloat, model.OpCompressed, model.OpCheck:
		return true
	case model.OpStruct, model.OpFields:
		return vs[v.Type]
	}
	return false
}

// valueStruct reports whether v holds a value struct (a struct, or a
// quaternion's holder).
func (e *Emitter) valueStruct(v *model.Value) bool {
	return v.Type != nil && e.valueStructs[v.Type]
}

// valueStructType renders a value struct: its fields, the stream-level
// methods the types holding it call, whole-packet TryRead and TryWrite,
// and equality.
func (e *Emitter) valueStructType(t *model.Type, read, write, delta []byte) []byte {
	name, goName := e.typeNames[t], code.Quote(t.Go.String())
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("/// <summary>Go's %s: %s. A struct: default(%s) is Go's zero value.</summary>\n", t.Go, model.SizeText(t), name)
	p("public struct %s : global::System.IEquatable<%s>\n{\n", name, name)
	p("    /// <summary>bitpack.Fingerprint(%s): mix it into the protocol id as the Go side does.</summary>\n", t.Go)
	p("    public const uint Fingerprint = %#08xu;\n\n", t.Fingerprint)
	var same, hash []string
	for _, m := range t.Fields {
		if m.Value.Op == model.OpCheck {
			p("    // %s: %s (nothing stored)\n", e.members[m], m.Value.Encoding)
			continue
		}
		p("    public %s %s; // %s\n", e.csType(m.Value), e.members[m], model.EncodingComment(m.Value))
		n := e.members[m]
		switch {
		case m.Value.Op == model.OpFloat || m.Value.Op == model.OpCompressed:
			same = append(same, sameValue(m.Value, n, "other."+n))
			if m.Value.FloatBits == 32 {
				hash = append(hash, "(int)Bitpack.Float32Bits("+n+")")
			} else {
				hash = append(hash, "global::System.BitConverter.DoubleToInt64Bits("+n+").GetHashCode()")
			}
		case m.Value.Op.IsStruct():
			same = append(same, n+".Equals(other."+n+")")
			hash = append(hash, n+".GetHashCode()")
		default:
			same = append(same, n+" == other."+n)
			hash = append(hash, n+".GetHashCode()")
		}
	}
	if len(t.Fields) > 0 {
		p("\n")
	}
	for _, c := range e.consts {
		p("    %s\n", c)
	}
	if len(e.consts) > 0 {
		p("\n")
	}
	if len(same) == 0 {
		same, hash = []string{"true"}, []string{"0"}
	}
	p(`    /// <summary>Reads a whole packet as bitpack.Unmarshal does: false, with bitpack's error, for every packet it refuses.</summary>
    public static bool TryRead(byte[] packet, out %[1]s value, out string error)
    {
        BitpackReader r = new BitpackReader(packet);
        value = default(%[1]s);
        if (!r.ChargeRoot(%[6]d) || !value.ReadFrom(ref r) || !r.Finish())
        {
            value = default(%[1]s);
            error = r.Error(%[2]s);
            return false;
        }
        error = null;
        return true;
    }

%[3]s    /// <summary>Reads one value from r, leaving r after it (no check for what follows), its own values charged to r's allowances first.</summary>
    public static bool Read(ref BitpackReader r, out %[1]s value)
    {
        value = default(%[1]s);
        if (r.ChargeRoot(%[6]d) && value.ReadFrom(ref r))
            return true;
        value = default(%[1]s);
        return false;
    }

    /// <summary>Whether every field holds the same value (floats: the same bits, as a delta compares them).</summary>
    public bool Equals(%[1]s other)
    {
        return %[4]s;
    }

    public override bool Equals(object obj) { return obj is %[1]s && Equals((%[1]s)obj); }

    public override int GetHashCode()
    {
        int h = 17;
%[5]s        return h;
    }

    public static bool operator ==(%[1]s a, %[1]s b) { return a.Equals(b); }

    public static bool operator !=(%[1]s a, %[1]s b) { return !a.Equals(b); }

`, name, goName, tryWrite(t), strings.Join(same, " && "), hashLines(hash), t.Charge.Work)
	b.Write(read)
	b.Write(write)
	b.Write(delta)
	p("}\n\n")
	return b.Bytes()
}

func hashLines(hash []string) string {
	var b strings.Builder
	for _, h := range hash {
		fmt.Fprintf(&b, "        h = h * 31 + %s;\n", h)
	}
	return b.String()
}

// valueDeltaMethods renders a value struct's delta methods: the bodies the
// types holding it call (a value struct is never a packet's root).
func (e *Emitter) valueDeltaMethods(t *model.Type) []byte {
	name := e.typeNames[t]
	items := e.typeItems(t)
	bit := fmt.Sprint(countItems(items) > 1)
	rc := &body{indent: 2, temps: make([]bool, csTempCount)}
	e.dReadItems(rc, items, bit, "changed")
	wc := &body{indent: 2}
	e.dWriteItems(wc, items, bit, "changed")
	return []byte(fmt.Sprintf(`
    /// <summary>Reads a delta body (its items, each after its changed bit when it has two or more) and applies it to this value; changed says whether it changed anything (a body must).</summary>
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
`, name, csTempDecls(rc), rc.b.String(), wc.b.String()))
}

package model

import (
	"fmt"
	"strings"
)

// Dump is the model in words, one line per step: every type's steps with
// the numbers they need, and each struct's delta items. It is what the
// renderers are given, for reading and for the model's golden tests.
func (m *Model) Dump() string {
	var b strings.Builder
	for _, t := range m.Hooks {
		fmt.Fprintf(&b, "hook %s (%s): the programmer's code\n\n", t.Name, t.Go)
	}
	for _, t := range m.Enums {
		var names []string
		for _, c := range t.Constants {
			names = append(names, c.Name+" "+c.Value(t.Signed))
		}
		fmt.Fprintf(&b, "enum %s (%s, %s): %s\n\n", t.Name, t.Go, t.Go.Kind(), strings.Join(names, ", "))
	}
	for _, t := range m.Types {
		switch t.Kind {
		case TypeUnion:
			fmt.Fprintf(&b, "union %s (%s): the type index in %d bits, then the member", t.Name, t.Go, t.IndexBits)
			for i, mt := range t.Members {
				fmt.Fprintf(&b, "; %d %s", t.Indices[i], mt.Name)
			}
			if t.Numbered {
				b.WriteString(" (numbered: another index is refused by listing these)")
			}
			b.WriteString("\n\n")
		case TypeStruct:
			fmt.Fprintf(&b, "struct %s (%s): %s, fingerprint %#08x, %s\n", t.Name, t.Go, SizeText(t), t.Fingerprint, chargeText(t.Charge))
			for _, f := range t.Fields {
				dumpValue(&b, f.Value, 1)
			}
			items := DeltaItems(t.Value())
			switch len(items) {
			case 0:
				b.WriteString("  delta: no items (a changed body is refused)")
			case 1:
				b.WriteString("  delta: 1 item, with no changed bit")
			default:
				fmt.Fprintf(&b, "  delta: %d items, each after its changed bit", len(items))
			}
			b.WriteString("\n")
			for _, it := range items {
				fmt.Fprintf(&b, "    %s\n", it.Path)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// dumpValue writes v's step at depth, then its parts' steps.
func dumpValue(b *strings.Builder, v *Value, depth int) {
	fmt.Fprintf(b, "%s%s: %s\n", strings.Repeat("  ", depth), v.Path, stepText(v))
	switch v.Op {
	case OpFields:
		for _, u := range v.Fields {
			dumpValue(b, u.Value, depth+1)
		}
	case OpMap:
		dumpValue(b, v.Key, depth+1)
		dumpValue(b, v.Elem, depth+1)
	case OpArray, OpSlice, OpPointer, OpSparse:
		dumpValue(b, v.Elem, depth+1)
	}
}

// chargeText words a charge's figures.
func chargeText(c Charge) string {
	s := fmt.Sprintf("charged %d values, %d bytes", c.Work, c.Bytes)
	if c.Twice {
		s += " twice"
	}
	return s
}

// stepText words v's step and its numbers.
func stepText(v *Value) string {
	var w []string
	add := func(format string, args ...any) { w = append(w, fmt.Sprintf(format, args...)) }
	add("%s", v.Op)
	if v.Prefix != nil {
		add("prefix %d bits (0..%d)", v.Prefix.Bits, v.Prefix.Max)
	}
	switch v.Op {
	case OpBool, OpInt, OpFloat, OpCompressed:
		c := v.Code
		add("code %d bits, offset %#x, limit %#x", c.Bits, c.Lo, c.Limit)
		if c.Flip != 0 {
			add("flip %#x", c.Flip)
		}
		if c.Short > 0 {
			add("short form %d bits", c.Short)
		}
		if v.Unit > 1 || v.Time {
			add("unit %s", v.UnitText)
		}
		if v.Time {
			add("Unix time")
		}
		if v.Counted {
			add("counted in units")
		}
		if v.Enum != nil {
			add("enum %s", v.Enum.Name)
		}
		if v.Clamp {
			add("clamp")
		}
	case OpString, OpBytes, OpByteArray:
		if v.Op == OpByteArray {
			add("%d bytes", v.Len)
		}
		add("aligned")
	case OpArray:
		add("%d elements", v.Len)
		if v.Unrolled {
			add("unrolled")
		}
	case OpSlice:
		add("elements of at least %d bits", v.Each)
		add("each %s", chargeText(v.Charge))
	case OpPointer:
		add("the pointee %s", chargeText(v.Charge))
	case OpSparse:
		add("%d slots", v.Slots)
		add("each element %s", chargeText(v.Charge))
	case OpStruct, OpUnion:
		add("%s", v.Type.Name)
	case OpHook:
		add("%s", v.Type.Name)
		add("each call %s", chargeText(v.Charge))
	case OpFields:
		add("%s's fields in place", v.Type.Name)
	case OpMap:
		add("entries of at least %d bits", v.Each)
		add("each entry charged %d values, a slot of %d bytes", v.Charge.Work, v.Charge.Bytes)
		add("keys %s", [...]string{KeysNumeric: "ascending", KeysFalseFirst: "false first", KeysBytewise: "by bytes"}[v.Order])
	case OpQuat:
		add("%d bits a component, codes 0..%d", v.Bits, v.Steps)
	case OpCheck:
		add("hash %#08x of %q", v.CheckHash, v.CheckName)
	}
	if !v.Op.IsStruct() && IsItem(v) {
		add("delta item")
	}
	return strings.Join(w, "; ")
}

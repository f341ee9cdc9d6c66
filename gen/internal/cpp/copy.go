package cpp

import (
	"strconv"

	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// CopyFrom in the generated C++: a copy of a value that costs what the
// value holds, not what its arrays could hold. A slice is a count and an
// array of maxlen elements, so *this = source copies every slot of every
// array: 266 MB for a ZeroRows (255 rows of up to 255 Chunks of 4 KB) that
// holds none. CopyFrom copies what the generated code reads of a value:
//
//   - a slice, byte slice or map: its count and its first count elements
//     (keys and values), each copied as CopyFrom copies it;
//   - a string: its text and terminator;
//   - a pointer: its presence flag, and the pointee when present;
//   - a sparse array or slice: a sparse slice's count, and for each of its
//     slots (a slice's first count) the presence flag and, when present,
//     the element;
//   - a union: its type index and the member it holds;
//   - a struct: its type's CopyFrom;
//   - everything of a fixed size (numbers, enums, times, byte arrays,
//     quaternions, hook types): whole.
//
// No generated code reads what it leaves out: Serialize, DeltaChanged and
// a delta's write walk counts, presence flags and the union's type; a
// read sets a count before it reads up to it, and reads an element past
// the base's count (a slice or sparse slice that grows, a pointee or slot
// the base has empty, a union member the base does not hold, a map entry
// the base lacks) whole, through the element's Serialize, never against
// what the target held there.

// copyFrom renders struct type t's CopyFrom.
func (e *Emitter) copyFrom(t *model.Type) {
	name := e.typeNames[t]
	e.printf("\n    // CopyFrom makes *this a copy of source at the cost of what source holds,\n")
	e.printf("    // not of its capacity (*this = source copies every array whole): of each\n")
	e.printf("    // container, only the part the generated code reads.\n")
	e.printf("    void CopyFrom( const %s & source )\n    {\n", name)
	body := &cppBody{indent: 2}
	for _, m := range t.Fields {
		cm := e.members[m]
		e.copyValue(body, m.Value, place{name: cm.name, comps: cm.comps}, place{prefix: "source.", name: cm.name, comps: cm.comps})
	}
	if body.b.Len() == 0 {
		body.line("(void) source;")
	}
	e.b.WriteString(body.b.String())
	e.printf("    }\n")
}

// unionCopyFrom renders union type t's CopyFrom: the type index, and the
// member of that index (no other member is read while the index stands).
func (e *Emitter) unionCopyFrom(t *model.Type) {
	name := e.typeNames[t]
	e.printf("\n    // CopyFrom makes *this a copy of source: its type index and the member of\n")
	e.printf("    // that index (see the structs' CopyFrom).\n")
	e.printf("    void CopyFrom( const %s & source )\n    {\n", name)
	e.printf("        type = source.type;\n")
	e.printf("        switch ( type )\n        {\n")
	for i, mt := range t.Members {
		mn := e.typeNames[mt]
		e.printf("        case %d: %s.CopyFrom( source.%s ); break;\n", t.Indices[i], mn, mn)
	}
	e.printf("        default: break;\n        }\n    }\n")
}

// copyValue renders the copy of value v at sp (the source's) into p: see
// CopyFrom above.
func (e *Emitter) copyValue(c *cppBody, v *model.Value, p, sp place) {
	x, sx := p.expr(), sp.expr()
	switch v.Op {
	case model.OpCheck:
		// no storage
	case model.OpStruct, model.OpFields, model.OpUnion:
		// A struct under tags of its own is stored as its type: the
		// type's CopyFrom copies every member, as the type's counts say.
		c.line("%s.CopyFrom( %s );", x, sx)
	case model.OpString:
		c.line("bitpack::copy_text( %s, %s, %d );", x, sx, v.MaxLen)
	case model.OpBytes:
		n, p := p.take()
		sn, sp := sp.take()
		c.line("%s = %s;", n, sn)
		c.line("memcpy( %s, %s, size_t( bitpack::live_count( %s, %d ) ) );", p.expr(), sp.expr(), sn, v.MaxLen)
	case model.OpArray:
		if wholeCopy(v) {
			c.line("bitpack::copy_value( %s, %s );", x, sx)
			return
		}
		e.loop(c, strconv.Itoa(v.Len), func(i string) { e.copyValue(c, v.Elem, p.index(i), sp.index(i)) })
	case model.OpSlice:
		n, p := p.take()
		sn, sp := sp.take()
		c.line("%s = %s;", n, sn)
		e.loop(c, liveCount(c, sn, v.MaxLen), func(i string) { e.copyValue(c, v.Elem, p.index(i), sp.index(i)) })
	case model.OpPointer:
		present, p := p.take()
		spresent, sp := sp.take()
		c.line("%s = %s;", present, spresent)
		c.line("if ( %s )", spresent)
		c.open()
		e.copyValue(c, v.Elem, p, sp)
		c.close()
	case model.OpSparse:
		slots := strconv.Itoa(v.Len)
		if v.Prefix != nil {
			var n, sn string
			n, p = p.take()
			sn, sp = sp.take()
			c.line("%s = %s;", n, sn)
			slots = liveCount(c, sn, v.Slots)
		}
		present, p := p.take()
		spresent, sp := sp.take()
		e.loop(c, slots, func(i string) {
			c.line("%s[%s] = %s[%s];", present, i, spresent, i)
			c.line("if ( %s[%s] )", spresent, i)
			c.open()
			e.copyValue(c, v.Elem, p.index(i), sp.index(i))
			c.close()
		})
	case model.OpMap:
		n, p := p.take()
		keys, p := p.take()
		sn, sp := sp.take()
		skeys, sp := sp.take()
		c.line("%s = %s;", n, sn)
		e.loop(c, liveCount(c, sn, v.MaxLen), func(i string) {
			e.copyValue(c, v.Key, place{name: keys}.index(i), place{name: skeys}.index(i))
			e.copyValue(c, v.Elem, p.index(i), sp.index(i))
		})
	default: // numbers, enums, times, byte arrays, quaternions, hooks
		c.line("bitpack::copy_value( %s, %s );", x, sx)
	}
}

// liveCount renders a local holding how many of an array's capacity
// elements the source's count sn says are live, and returns its name.
func liveCount(c *cppBody, sn string, capacity int) string {
	n := c.local("live")
	c.line("const int %s = bitpack::live_count( %s, %d );", n, sn, capacity)
	return n
}

// wholeCopy reports whether value v is copied whole: it holds no count,
// presence flag, union or struct (a struct's CopyFrom decides for it).
func wholeCopy(v *model.Value) bool {
	switch v.Op {
	case model.OpBool, model.OpInt, model.OpFloat, model.OpCompressed, model.OpByteArray, model.OpQuat, model.OpHook:
		return true
	case model.OpArray:
		return wholeCopy(v.Elem)
	}
	return false
}

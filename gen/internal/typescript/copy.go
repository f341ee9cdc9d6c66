package typescript

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// copyT(src, dst): dst made a copy of src in place, reusing its objects
// (structs, arrays, boxes, maps) wherever src has a value of the same
// shape, so that a receiver decoding packet after packet into the views
// its history evicts makes no new object for what did not appear. Byte
// arrays and hook values are shared: every reader replaces them whole and
// never writes into them. A map's entries are walked with forEach and a
// function of the module (no closure, no iterator: nothing per entry).

// copyStruct renders copyT for struct type t, and the map entry functions
// its fields need.
func (e *Emitter) copyStruct(t *model.Type) {
	n := e.typeNames[t]
	c := &body{indent: 1}
	var entries []string
	for _, m := range t.Fields {
		if m.Value.Op != model.OpCheck {
			e.copyValue(c, m.Value, "src."+m.Name, "d."+m.Name, n, &entries)
		}
	}
	for _, f := range entries {
		e.b.WriteString(f)
	}
	e.printf(`/**
 * Makes dst a copy of src and returns it, reusing dst's objects (its
 * structs, arrays, boxes and maps) where src has the same, or a new value
 * when dst is null or undefined. The copy shares byte arrays and hook
 * values with src, which readers replace whole and never change.
 */
export function copy%[1]s(src: %[1]s, dst: %[1]s | null | undefined): %[1]s {
  const d = dst ?? new%[1]s();
%[2]s  return d;
}

`, n, c.b.String())
}

// copyValue renders making d (an assignable expression holding a value of
// v's type, a stale one, or nothing) a copy of s, a value of v. entries
// collects the map entry functions it needs; owner names them.
func (e *Emitter) copyValue(c *body, v *model.Value, s, d, owner string, entries *[]string) {
	switch v.Op {
	case model.OpBool, model.OpInt, model.OpFloat, model.OpCompressed, model.OpString,
		model.OpBytes, model.OpByteArray, model.OpHook:
		c.line("%s = %s;", d, s)
	case model.OpStruct, model.OpFields, model.OpUnion:
		if v.Op == model.OpUnion {
			e.copyUnion(c, v, s, d)
			return
		}
		c.line("%s = copy%s(%s, %s);", d, e.typeNames[v.Type], s, d)
	case model.OpQuat:
		if v.Type != nil {
			c.line("%s = copy%s(%s, %s);", d, e.typeNames[v.Type], s, d)
			return
		}
		c.line("%s = flatCopy(%s, %s);", d, s, d)
	case model.OpArray, model.OpSlice, model.OpSparse:
		if copiesFlat(v.Elem) && (v.Op != model.OpSparse || v.Elem.Op != model.OpPointer) {
			c.line("%s = flatCopy(%s, %s);", d, s, d)
			return
		}
		sa, da := c.local("a"), c.local("b")
		c.line("const %s = %s;", sa, s)
		c.line("const %s = %s ?? [];", da, d)
		c.line("if (%s.length > %s.length) %s.length = %s.length;", da, sa, da, sa)
		c.loop(sa+".length", func(i string) {
			if v.Op == model.OpSparse {
				e.copyOptional(c, v.Elem, sa+"["+i+"]", da+"["+i+"]", owner, entries)
				return
			}
			e.copyValue(c, v.Elem, elem(sa, i), da+"["+i+"]", owner, entries)
		})
		c.line("%s = %s;", d, da)
	case model.OpPointer:
		e.copyOptional(c, v.Elem, s, d, owner, entries)
	case model.OpMap:
		sm, dm := c.local("m"), c.local("m")
		c.line("const %s = %s;", sm, s)
		c.line("const %s = %s ?? new %s();", dm, d, e.tsType(v))
		c.line("%s.forEach(%s, %s);", sm, e.copyEntry(v, owner, entries), dm)
		c.line("if (%s.size !== %s.size) %s.forEach(mapDropMissing, %s);", dm, sm, dm, sm)
		c.line("%s = %s;", d, dm)
	default:
		panic("gen: TypeScript cannot copy " + v.Op.String())
	}
}

// copyOptional renders copying a pointer's or sparse slot's value s (v:
// the pointee) into d: null, or the pointee copied into what d holds.
func (e *Emitter) copyOptional(c *body, v *model.Value, s, d, owner string, entries *[]string) {
	if copiesFlat(v) && v.Op != model.OpPointer {
		c.line("%s = %s;", d, s)
		return
	}
	l := c.local("e")
	c.line("const %s = %s;", l, s)
	c.line("if (%s === null || %s === undefined) {", l, l)
	c.line("  %s = null;", d)
	c.line("} else {")
	c.indent++
	if v.Op == model.OpPointer { // a box around a pointer that may itself be null
		b := c.local("x")
		c.line("const %s = %s ?? ({ value: null } as BitpackBox<%s>);", b, d, e.tsType(v))
		e.copyOptional(c, v.Elem, l+".value", b+".value", owner, entries)
		c.line("%s = %s;", d, b)
	} else {
		e.copyValue(c, v, l, d, owner, entries)
	}
	c.close()
}

// copyUnion renders copying union s into d: the member copied into d's
// when d holds the same member, else a new value.
func (e *Emitter) copyUnion(c *body, v *model.Value, s, d string) {
	su, du := c.local("u"), c.local("u")
	c.line("const %s = %s;", su, s)
	c.line("const %s = %s;", du, d)
	c.line("switch (%s.type) {", su)
	for _, mt := range v.Type.Members {
		n := e.typeNames[mt]
		c.line("  case %q:", n)
		c.line("    if (%s !== null && %s !== undefined && %s.type === %q) copy%s(%s.value, %s.value);", du, du, du, n, n, su, du)
		c.line("    else %s = { type: %q, value: copy%s(%s.value, null) };", d, n, n, su)
		c.line("    break;")
	}
	c.line("}")
}

// copyEntry returns the function forEach calls to copy each entry of a
// map of v into the map it is given as this: mapSetEntry when values are
// shared, else a function of the module, rendered into entries. Its name
// holds a $, which no Go name does.
func (e *Emitter) copyEntry(v *model.Value, owner string, entries *[]string) string {
	if copiesFlat(v.Elem) {
		return "mapSetEntry"
	}
	name := fmt.Sprintf("copyEntry$%s$%d", owner, len(*entries))
	c := &body{indent: 1}
	c.line("let d = this.get(k);")
	inner := []string{}
	e.copyValue(c, v.Elem, "s", "d", owner+"$"+strconv.Itoa(len(*entries)), &inner)
	c.line("this.set(k, d);")
	kt, vt := e.tsType(v.Key), e.tsType(v.Elem)
	f := fmt.Sprintf("function %s(this: Map<%s, %s>, s: %s, k: %s): void {\n%s}\n\n", name, kt, vt, vt, kt, c.b.String())
	*entries = append(*entries, strings.Join(inner, "")+f)
	return name
}

// copiesFlat reports whether a value of v is copied by assignment: a
// primitive, a byte array, a hook's value, a pointer to one of those.
func copiesFlat(v *model.Value) bool {
	switch v.Op {
	case model.OpBool, model.OpInt, model.OpFloat, model.OpCompressed, model.OpString,
		model.OpBytes, model.OpByteArray, model.OpHook:
		return true
	case model.OpPointer:
		return copiesFlat(v.Elem) && v.Elem.Op != model.OpPointer
	}
	return false
}

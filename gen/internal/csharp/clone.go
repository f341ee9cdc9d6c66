package csharp

import (
	"fmt"

	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// Clone: the copy of a base a delta read changes, so the base stays as
// it was.

// cloneMethod renders Clone: a copy of the value that shares nothing
// mutable with it (strings and hook objects are shared: a delta replaces
// them whole).
func (e *Emitter) cloneMethod(t *model.Type) string {
	name := e.typeNames[t]
	c := &body{indent: 2}
	for _, m := range t.Fields {
		if m.Value.Op == model.OpCheck || !e.deepValue(m.Value) {
			continue
		}
		n := e.members[m]
		e.cloneTo(c, m.Value, "copy."+n, "this."+n)
	}
	return fmt.Sprintf(`    /// <summary>A copy of this value sharing nothing a delta changes (strings and hook objects, which it replaces whole, are shared).</summary>
    public %[1]s Clone()
    {
        %[1]s copy = (%[1]s)MemberwiseClone();
%[2]s        return copy;
    }
`, name, c.b.String())
}

// deepValue reports whether a copy of v must copy more than v itself.
func (e *Emitter) deepValue(v *model.Value) bool {
	if e.valueStruct(v) {
		return false // a struct: copied by assignment
	}
	switch v.Op {
	case model.OpBool, model.OpInt, model.OpFloat, model.OpCompressed,
		model.OpString, model.OpHook, model.OpCheck:
		return false
	case model.OpPointer:
		return !csValueType(v.Elem)
	}
	return true
}

// cloneTo renders dst = a copy of src (values of v).
func (e *Emitter) cloneTo(c *body, v *model.Value, dst, src string) {
	if !e.deepValue(v) {
		c.line("%s = %s;", dst, src)
		return
	}
	switch v.Op {
	case model.OpBytes, model.OpByteArray:
		c.line("%s = %s == null ? null : (byte[])%s.Clone();", dst, src, src)
	case model.OpStruct, model.OpFields:
		c.line("%s = %s == null ? null : %s.Clone();", dst, src, src)
	case model.OpQuat:
		if v.Type != nil {
			c.line("%s = %s == null ? null : %s.Clone();", dst, src, src)
		} else {
			c.line("%s = %s == null ? null : (%s)%s.Clone();", dst, src, e.csType(v), src)
		}
	case model.OpArray, model.OpSlice, model.OpSparse:
		typ, elemDeep := e.csType(v), e.deepValue(v.Elem)
		if v.Op == model.OpSparse {
			elemDeep = !csValueType(v.Elem)
		}
		if !elemDeep {
			c.line("%s = %s == null ? null : (%s)%s.Clone();", dst, src, typ, src)
			return
		}
		a, i := c.local("d"), c.local("d")
		c.line("if (%s == null)", src)
		c.line("    %s = null;", dst)
		c.line("else")
		c.open()
		elem := e.csType(v.Elem)
		if v.Op == model.OpSparse {
			elem = e.optional(v.Elem)
		}
		c.line("%s %s = %s;", elem+"[]", a, newArray(elem, src+".Length"))
		c.line("for (int %s = 0; %s < %s.Length; %s++)", i, i, a, i)
		c.open()
		if v.Op == model.OpSparse {
			e.cloneOptional(c, v.Elem, a+"["+i+"]", src+"["+i+"]")
		} else {
			e.cloneTo(c, v.Elem, a+"["+i+"]", src+"["+i+"]")
		}
		c.close()
		c.line("%s = %s;", dst, a)
		c.close()
	case model.OpPointer:
		e.cloneOptional(c, v.Elem, dst, src)
	case model.OpUnion:
		for i, mt := range v.Type.Members {
			name := e.typeNames[mt]
			if i > 0 {
				c.line("else if (%s is %s)", src, name)
			} else {
				c.line("if (%s is %s)", src, name)
			}
			c.line("    %s = ((%s)%s).Clone();", dst, name, src)
		}
		c.line("else")
		c.line("    %s = %s;", dst, src)
	case model.OpMap:
		m, kv, val := c.local("d"), c.local("d"), c.local("d")
		c.line("if (%s == null)", src)
		c.line("    %s = null;", dst)
		c.line("else")
		c.open()
		c.line("%s %s = new %s(%s.Count);", e.csType(v), m, e.csType(v), src)
		c.line("foreach (var %s in %s)", kv, src)
		c.open()
		c.line("%s %s;", e.csType(v.Elem), val)
		e.cloneTo(c, v.Elem, val, kv+".Value")
		c.line("%s.Add(%s.Key, %s);", m, kv, val)
		c.close()
		c.line("%s = %s;", dst, m)
		c.close()
	default:
		panic("gen: C# cannot copy " + v.Op.String())
	}
}

// cloneOptional renders dst = a copy of src, a pointer's or sparse slot's
// value (of type optional(ev)).
func (e *Emitter) cloneOptional(c *body, ev *model.Value, dst, src string) {
	switch {
	case ev.Op == model.OpPointer:
		c.line("if (%s == null)", src)
		c.line("    %s = null;", dst)
		c.line("else")
		c.open()
		c.line("%s = new %s();", dst, e.optional(ev))
		e.cloneOptional(c, ev.Elem, dst+".Value", src+".Value")
		c.close()
	case csValueType(ev) || !e.deepValue(ev):
		c.line("%s = %s;", dst, src)
	default:
		c.line("if (%s == null)", src)
		c.line("    %s = null;", dst)
		c.line("else")
		c.open()
		e.cloneTo(c, ev, dst, src)
		c.close()
	}
}

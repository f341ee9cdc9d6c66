package csharp

import (
	"fmt"

	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// CopyFrom: a deep copy into a value that reuses its objects, arrays and
// dictionaries where they have the source's shape, so that copying a
// world into a value that held one of the same shape allocates nothing
// (a receiver's scratch view, a caller's value); a dictionary's values
// are reused by key.

// copyMethod renders CopyFrom.
func (e *Emitter) copyMethod(t *model.Type) string {
	name := e.typeNames[t]
	c := &body{indent: 2}
	for _, m := range t.Fields {
		if m.Value.Op == model.OpCheck {
			continue
		}
		n := e.members[m]
		e.copyInto(c, m.Value, "this."+n, "source."+n)
	}
	return fmt.Sprintf(`
    /// <summary>
    /// Makes this value a copy of source that shares nothing a delta changes
    /// with it, as Clone does, reusing this value's objects, arrays and
    /// dictionaries where they have the source's shape: a copy into a value
    /// of the same shape (the same pointers and sparse slots present, the
    /// same lengths and map keys) allocates nothing.
    /// </summary>
    public void CopyFrom(%[1]s source)
    {
        if (source == null)
            throw new global::System.ArgumentNullException("source");
        if (ReferenceEquals(this, source))
            return;
%[2]s    }
`, name, c.b.String())
}

// copyInto renders dst = a copy of src (values of v), reusing what dst
// holds.
func (e *Emitter) copyInto(c *body, v *model.Value, dst, src string) {
	if !e.deepValue(v) {
		c.line("%s = %s;", dst, src)
		return
	}
	switch v.Op {
	case model.OpBytes, model.OpByteArray:
		e.copyArray(c, "byte", dst, src)
	case model.OpStruct, model.OpFields:
		e.copyObject(c, e.typeNames[v.Type], dst, src)
	case model.OpQuat:
		if v.Type != nil {
			e.copyObject(c, e.typeNames[v.Type], dst, src)
		} else {
			typ := e.csType(v)
			e.copyArray(c, typ[:len(typ)-2], dst, src)
		}
	case model.OpArray, model.OpSlice, model.OpSparse:
		elem, deep := e.csType(v.Elem), e.deepValue(v.Elem)
		if v.Op == model.OpSparse {
			elem, deep = e.optional(v.Elem), !csValueType(v.Elem)
		}
		if !deep {
			e.copyArray(c, elem, dst, src)
			return
		}
		a, i := c.local("c"), c.local("c")
		c.line("if (%s == null)", src)
		c.line("    %s = null;", dst)
		c.line("else")
		c.open()
		c.line("%s[] %s = %s;", elem, a, dst)
		c.line("if (%s == null || %s.Length != %s.Length)", a, a, src)
		c.line("    %s = %s = %s.Length == 0 ? %s : %s;", dst, a, src, src, newArray(elem, src+".Length"))
		c.line("for (int %s = 0; %s < %s.Length; %s++)", i, i, a, i)
		c.open()
		if v.Op == model.OpSparse {
			e.copyOptional(c, v.Elem, a+"["+i+"]", src+"["+i+"]")
		} else {
			e.copyInto(c, v.Elem, a+"["+i+"]", src+"["+i+"]")
		}
		c.close()
		c.close()
	case model.OpPointer:
		e.copyOptional(c, v.Elem, dst, src)
	case model.OpUnion:
		for i, mt := range v.Type.Members {
			name, d := e.typeNames[mt], c.local("c")
			if i > 0 {
				c.line("else if (%s is %s)", src, name)
			} else {
				c.line("if (%s is %s)", src, name)
			}
			c.open()
			c.line("%s %s = %s as %s;", name, d, dst, name)
			c.line("if (%s == null)", d)
			c.line("    %s = %s = new %s();", dst, d, name)
			c.line("%s.CopyFrom((%s)%s);", d, name, src)
			c.close()
		}
		c.line("else")
		c.line("    %s = %s;", dst, src)
	case model.OpMap:
		e.copyMap(c, v, dst, src)
	default:
		panic("gen: C# cannot copy " + v.Op.String())
	}
}

// copyArray renders dst = a copy of src, an array of elem values a copy
// need not look into: into dst when it has src's length. An empty array
// is shared (nothing can change in it).
func (e *Emitter) copyArray(c *body, elem, dst, src string) {
	c.line("if (%s == null)", src)
	c.line("    %s = null;", dst)
	c.line("else")
	c.open()
	c.line("if (%s == null || %s.Length != %s.Length)", dst, dst, src)
	c.line("    %s = %s.Length == 0 ? %s : %s;", dst, src, src, newArray(elem, src+".Length"))
	c.line("global::System.Array.Copy(%s, %s, %s.Length);", src, dst, src)
	c.close()
}

// copyObject renders dst = a copy of src, an object of a generated class,
// into dst's object when there is one.
func (e *Emitter) copyObject(c *body, name, dst, src string) {
	c.line("if (%s == null)", src)
	c.line("    %s = null;", dst)
	c.line("else")
	c.open()
	c.line("if (%s == null)", dst)
	c.line("    %s = new %s();", dst, name)
	c.line("%s.CopyFrom(%s);", dst, src)
	c.close()
}

// copyOptional renders dst = a copy of src, a pointer's or sparse slot's
// value (of type optional(ev)).
func (e *Emitter) copyOptional(c *body, ev *model.Value, dst, src string) {
	switch {
	case ev.Op == model.OpPointer:
		c.line("if (%s == null)", src)
		c.line("    %s = null;", dst)
		c.line("else")
		c.open()
		c.line("if (%s == null)", dst)
		c.line("    %s = new %s();", dst, e.optional(ev))
		e.copyOptional(c, ev.Elem, dst+".Value", src+".Value")
		c.close()
	case csValueType(ev) || !e.deepValue(ev):
		c.line("%s = %s;", dst, src)
	default:
		e.copyInto(c, ev, dst, src)
	}
}

// copyMap renders dst = a copy of src, a dictionary: into dst's, whose
// entries of keys src lacks are removed and whose values are reused for
// the keys both have.
func (e *Emitter) copyMap(c *body, v *model.Value, dst, src string) {
	d, kv, gone, n, i, val := c.local("c"), c.local("c"), c.local("c"), c.local("c"), c.local("c"), c.local("c")
	typ, ktype, vtype := e.csType(v), e.csType(v.Key), e.csType(v.Elem)
	c.line("if (%s == null)", src)
	c.line("    %s = null;", dst)
	c.line("else if (!ReferenceEquals(%s, %s))", dst, src)
	c.open()
	c.line("%s %s = %s;", typ, d, dst)
	c.line("if (%s == null)", d)
	c.line("    %s = %s = new %s(%s.Count);", dst, d, typ, src)
	c.line("if (%s.Count > 0)", d)
	c.open()
	c.line("%s[] %s = Bitpack.TakeKeys<%s>(%s.Count);", ktype, gone, ktype, d)
	c.line("try")
	c.open()
	c.line("int %s = 0;", n)
	c.line("foreach (var %s in %s)", kv, d)
	c.open()
	c.line("if (!%s.ContainsKey(%s.Key))", src, kv)
	c.line("    %s[%s++] = %s.Key;", gone, n, kv)
	c.close()
	c.line("for (int %s = 0; %s < %s; %s++)", i, i, n, i)
	c.line("    %s.Remove(%s[%s]);", d, gone, i)
	c.close()
	c.line("finally")
	c.open()
	c.line("Bitpack.ReleaseKeys<%s>();", ktype)
	c.close()
	c.close()
	c.line("foreach (var %s in %s)", kv, src)
	c.open()
	if !e.deepValue(v.Elem) {
		c.line("%s[%s.Key] = %s.Value;", d, kv, kv)
	} else {
		c.line("%s %s;", vtype, val)
		c.line("if (!%s.TryGetValue(%s.Key, out %s))", d, kv, val)
		c.line("    %s = default(%s);", val, vtype)
		e.copyInto(c, v.Elem, val, kv+".Value")
		c.line("%s[%s.Key] = %s;", d, kv, val)
	}
	c.close()
	c.close()
}

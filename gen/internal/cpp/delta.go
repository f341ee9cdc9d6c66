package cpp

import (
	"fmt"
	"strconv"

	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// Deltas in the generated C++ (docs/wire.md, "Delta encoding"). Each
// struct type gets, beside Serialize:
//
//   - DeltaChanged(base): whether the value differs from base on the wire,
//     comparing codes as bitpack does (or cannot be written: then writing
//     the delta refuses it);
//   - SerializeDeltaBody(stream, base): the body of a changed value, its
//     items against base's (a changed bit each when there are several);
//   - SerializeDelta(stream, base): the delta packet, in serialize's style:
//     one function for both directions. Writing, it writes the value's
//     delta against base; reading, the value becomes base (copied in
//     first by CopyFrom, at the cost of what base holds: see copy.go)
//     with the delta's changes applied in place.
//
// A union type gets DeltaChanged and SerializeDeltaPart (its part as an
// item). A serialize write stream cannot take bits back, so where Go
// writes a container optimistically and rewinds when nothing changed, the
// C++ asks DeltaChanged-style questions first: a value's changed bit, a
// list's next changed element, a map's next changed entry. Both sides of
// a read stay in the value's fixed arrays: a map is rebuilt in ascending
// key order from base's entries and the delta's, so its size is checked
// against maxlen entry by entry.

// dItem is one item of a delta: a value that is not a struct (structs are
// flattened into their fields, recursively), at this value's place p and
// the base's place bp.
type dItem struct {
	v     *model.Value
	p, bp place
}

// items lists the items of value v at p (the base's at bp).
func (e *Emitter) items(v *model.Value, p, bp place) []dItem {
	if !v.Op.IsStruct() {
		if model.IsItem(v) {
			return []dItem{{v: v, p: p, bp: bp}}
		}
		return nil
	}
	x, bx := p.expr(), bp.expr()
	var out []dItem
	for _, u := range model.FieldUses(v) {
		cm := e.members[u.Member]
		out = append(out, e.items(u.Value, place{prefix: x + ".", name: cm.name, comps: cm.comps}, place{prefix: bx + ".", name: cm.name, comps: cm.comps})...)
	}
	return out
}

// local returns a name for a local of the function c renders, unique in
// it: bp_<prefix><n>.
func (c *cppBody) local(prefix string) string {
	c.locals++
	return "bp_" + prefix + strconv.Itoa(c.locals-1)
}

// structDelta renders the delta members of struct type t.
func (e *Emitter) structDelta(t *model.Type) {
	name := e.typeNames[t]
	var items []dItem
	for _, m := range t.Fields {
		cm := e.members[m]
		items = append(items, e.items(m.Value, place{name: cm.name, comps: cm.comps}, place{prefix: "base.", name: cm.name, comps: cm.comps})...)
	}
	e.printf("\n    // DeltaChanged reports whether *this differs from base on the wire (or\n")
	e.printf("    // cannot be written: then SerializeDelta refuses it).\n")
	e.printf("    bool DeltaChanged( const %s & base ) const\n    {\n", name)
	changed := &cppBody{indent: 2}
	for _, it := range items {
		e.changed(changed, it.v, it.p, it.bp)
	}
	if len(items) == 0 {
		changed.line("(void) base;")
	}
	changed.line("return false;")
	e.b.WriteString(changed.b.String())
	e.printf("    }\n\n")

	e.printf("    // SerializeDeltaBody reads or writes the items of a value that changed\n")
	e.printf("    // (%d: %s).\n", len(items), itemsWord(len(items)))
	e.printf("    template <typename Stream> bool SerializeDeltaBody( Stream & stream, const %s & base )\n    {\n", name)
	body := &cppBody{indent: 2}
	if len(items) == 0 {
		body.line("(void) stream;")
		body.line("(void) base;")
	}
	e.itemsBody(body, items)
	if len(items) > 0 {
		body.line("return true;")
	}
	e.b.WriteString(body.b.String())
	e.printf("    }\n\n")

	e.printf(`    // SerializeDelta writes *this as a delta against base, or reads a delta
    // against base into *this: *this becomes base with the delta's changes.
    // A read refuses every delta bitpack.UnmarshalDelta refuses but trailing
    // bytes (see bitpack::read_delta), and a *this that is base itself.
    template <typename Stream> bool SerializeDelta( Stream & stream, const %s & base )
    {
        bool bp_changed = false;
        if ( Stream::IsWriting )
            bp_changed = DeltaChanged( base );
        else if ( this == &base )
            return false;
        else
            CopyFrom( base );
        serialize_bool( stream, bp_changed );
        if ( bp_changed && !SerializeDeltaBody( stream, base ) )
            return false;
        return true;
    }
`, name)
}

func itemsWord(n int) string {
	switch n {
	case 0:
		return "nothing can change, so a body is always refused"
	case 1:
		return "the item alone, with no changed bit"
	}
	return "each after its changed bit"
}

// itemsBody renders the body of a changed value whose items are items:
// refused on read when it changes nothing.
func (e *Emitter) itemsBody(c *cppBody, items []dItem) {
	if len(items) == 0 {
		c.line("return false; // nothing to change")
		return
	}
	any := c.local("any")
	c.line("bool %s = false;", any)
	for _, it := range items {
		e.deltaItem(c, it, len(items) > 1, any)
	}
	c.refuse("Stream::IsReading && !%s", any)
}

// deltaBody renders the body of value v at p against bp (an element, a
// pointee, a map's value): its type's SerializeDeltaBody, or its items.
func (e *Emitter) deltaBody(c *cppBody, v *model.Value, p, bp place) {
	if v.Op.IsStruct() && v.Fields == nil {
		c.refuse("!%s.SerializeDeltaBody( stream, %s )", p.expr(), bp.expr())
		return
	}
	c.open()
	e.itemsBody(c, e.items(v, p, bp))
	c.close()
}

// deltaItem renders one item: its changed bit when bit, then its part
// when it changed, which sets any.
func (e *Emitter) deltaItem(c *cppBody, it dItem, bit bool, any string) {
	v, p, bp := it.v, it.p, it.bp
	x, bx := p.expr(), bp.expr()
	switch v.Op {
	case model.OpInt:
		if v.Enum != nil {
			n, bn, typ := c.local("n"), c.local("n"), intType(v.Signed, v.GoBits)
			c.open()
			c.line("%s %s = static_cast<%s>( %s );", typ, n, typ, x)
			c.line("const %s %s = static_cast<%s>( %s );", typ, bn, typ, bx)
			c.line("bitpack_delta_scalar( stream, %s, %s, %s, %t, %s );", scalarField(v), n, bn, bit, any)
			c.line("%s = static_cast< %s >( %s );", x, e.qualified(v.Enum), n)
			c.close()
			return
		}
		c.line("bitpack_delta_scalar( stream, %s, %s, %s, %t, %s );", scalarField(v), x, bx, bit, any)
		return
	case model.OpBool, model.OpFloat, model.OpCompressed:
		c.line("bitpack_delta_scalar( stream, %s, %s, %s, %t, %s );", scalarField(v), x, bx, bit, any)
		return
	case model.OpQuat:
		q, bq := e.quatComps(v, x), e.quatComps(v, bx)
		c.line("bitpack_delta_quat( stream, %s, %s, %s, %s, %s, %s, %s, %s, %d, %t, %s );", q[0], q[1], q[2], q[3], bq[0], bq[1], bq[2], bq[3], v.Bits, bit, any)
		return
	}
	if !bit { // the value's only item: it changed
		c.line("%s = true;", any)
		e.deltaPart(c, v, p, bp)
		return
	}
	c.open()
	ch := c.local("c")
	c.line("bool %s = false;", ch)
	c.line("if ( Stream::IsWriting )")
	c.open()
	c.line("%s = %s;", ch, e.changedCond(c, v, p, bp))
	c.close()
	c.line("serialize_bool( stream, %s );", ch)
	c.line("if ( %s )", ch)
	c.open()
	c.line("%s = true;", any)
	e.deltaPart(c, v, p, bp)
	c.close()
	c.close()
}

func (e *Emitter) quatComps(v *model.Value, x string) [4]string {
	var comps [4]string
	for k, steps := range v.Comps {
		comps[k] = x + e.quatComp(steps)
	}
	return comps
}

// scalarField is the C++ description of a fixed-width field's codes (see
// the runtime's BoolField, UnsignedField, ...).
func scalarField(v *model.Value) string {
	switch v.Op {
	case model.OpBool:
		return "bitpack::BoolField()"
	case model.OpInt:
		unit := countUnit(v)
		if v.Signed {
			lo, hi, flip := model.IntBounds(v)
			return fmt.Sprintf("bitpack::SignedField( %s, %s, %d, %s, %s, %t )", cppInt(lo), cppInt(hi), model.UnitBits(v), cppUint(flip), cppInt(unit), v.Clamp)
		}
		lo, hi := model.UintBounds(v)
		return fmt.Sprintf("bitpack::UnsignedField( %s, %s, %d, %s, %t )", cppUint(lo), cppUint(hi), model.UnitBits(v), cppUint(uint64(unit)), v.Clamp)
	case model.OpFloat:
		if v.FloatBits == 32 {
			return "bitpack::Float32Field()"
		}
		return "bitpack::Float64Field()"
	case model.OpCompressed:
		if v.FloatBits == 32 {
			return fmt.Sprintf("bitpack::CompressedFloatField( %s, %s, %s, %t )", cppFloat32(v.Min), cppFloat32(v.Max), cppFloat32(v.Res), v.Clamp)
		}
		return fmt.Sprintf("bitpack::CompressedDoubleField( %s, %s, %s, %t )", cppFloat64(v.Min), cppFloat64(v.Max), cppFloat64(v.Res), v.Clamp)
	}
	panic("gen: no delta field for " + v.Op.String())
}

// changedCond returns a condition that holds when value v at p differs
// from bp's on the wire (or cannot be written), rendering first the
// statements it needs: a container's comparison is a lambda.
func (e *Emitter) changedCond(c *cppBody, v *model.Value, p, bp place) string {
	x, bx := p.expr(), bp.expr()
	switch {
	case v.Op.IsStruct() && v.Fields == nil, v.Op == model.OpUnion:
		return fmt.Sprintf("%s.DeltaChanged( %s )", x, bx)
	case v.Op.IsStruct():
	case !model.IsItem(v):
		return "false"
	default:
		if cond, ok := e.simpleChanged(v, p, bp); ok {
			return cond
		}
	}
	ch := c.local("c")
	c.line("const bool %s = [&]() -> bool", ch)
	c.open()
	e.changed(c, v, p, bp)
	c.line("return false;")
	c.indent--
	c.line("}();")
	return ch
}

// simpleChanged is changedCond for the items compared by one expression.
func (e *Emitter) simpleChanged(v *model.Value, p, bp place) (string, bool) {
	x, bx := p.expr(), bp.expr()
	switch v.Op {
	case model.OpBool, model.OpInt, model.OpFloat, model.OpCompressed:
		if v.Enum != nil {
			typ := intType(v.Signed, v.GoBits)
			x, bx = fmt.Sprintf("static_cast<%s>( %s )", typ, x), fmt.Sprintf("static_cast<%s>( %s )", typ, bx)
		}
		return fmt.Sprintf("bitpack::scalar_changed( %s, %s, %s )", scalarField(v), x, bx), true
	case model.OpQuat:
		q, bq := e.quatComps(v, x), e.quatComps(v, bx)
		return fmt.Sprintf("bitpack::quat_changed( %s, %s, %s, %s, %s, %s, %s, %s, %d )", q[0], q[1], q[2], q[3], bq[0], bq[1], bq[2], bq[3], v.Bits), true
	case model.OpString:
		return fmt.Sprintf("!bitpack::text_same( %s, %s, %d )", x, bx, v.MaxLen), true
	case model.OpBytes:
		n, p := p.take()
		bn, bp := bp.take()
		return fmt.Sprintf("bitpack::bytes_changed( %s, %s, %s, %s, %d )", p.expr(), n, bp.expr(), bn, v.MaxLen), true
	case model.OpByteArray:
		if v.Len == 0 {
			return "false", true
		}
		return fmt.Sprintf("memcmp( %s, %s, %d ) != 0", x, bx, v.Len), true
	case model.OpHook:
		// The same in memory is unchanged, unwritten, as Go's sameBytes
		// has it (a value its hook refuses included).
		return fmt.Sprintf("!bitpack::same_bits( %s, %s ) && bitpack::hook_differs( %s, %s ) != 0", x, bx, x, bx), true
	case model.OpUnion:
		return fmt.Sprintf("%s.DeltaChanged( %s )", x, bx), true
	}
	return "", false
}

// changed renders statements that return true when value v at p differs
// from bp's on the wire, or cannot be written.
func (e *Emitter) changed(c *cppBody, v *model.Value, p, bp place) {
	x, bx := p.expr(), bp.expr()
	if v.Op.IsStruct() {
		if v.Fields == nil {
			c.refuseTrue("%s.DeltaChanged( %s )", x, bx)
			return
		}
		for _, it := range e.items(v, p, bp) {
			e.changed(c, it.v, it.p, it.bp)
		}
		return
	}
	if !model.IsItem(v) {
		return
	}
	if cond, ok := e.simpleChanged(v, p, bp); ok {
		c.refuseTrue("%s", cond)
		return
	}
	switch v.Op {
	case model.OpArray:
		e.loop(c, strconv.Itoa(v.Len), func(i string) { e.changed(c, v.Elem, p.index(i), bp.index(i)) })
	case model.OpSlice:
		n, p := p.take()
		bn, bp := bp.take()
		c.refuseTrue("%s != %s || %s < 0 || %s > %d", n, bn, n, n, v.MaxLen)
		if model.ItemCount(v.Elem) > 0 {
			e.loop(c, n, func(i string) { e.changed(c, v.Elem, p.index(i), bp.index(i)) })
		}
	case model.OpPointer:
		present, p := p.take()
		bpresent, bp := bp.take()
		c.refuseTrue("%s != %s", present, bpresent)
		c.line("if ( %s )", present)
		c.open()
		e.changed(c, v.Elem, p, bp)
		c.close()
	case model.OpSparse:
		e.sparseChanged(c, v, p, bp)
	case model.OpMap:
		e.mapChanged(c, v, p, bp)
	}
}

// refuseTrue writes "if ( cond ) return true;".
func (c *cppBody) refuseTrue(format string, args ...any) {
	c.line("if ( "+format+" )", args...)
	c.line("    return true;")
}

// deltaPart renders the part of an item that changed (not a fixed-width
// field or a quaternion: their helpers write their parts).
func (e *Emitter) deltaPart(c *cppBody, v *model.Value, p, bp place) {
	x, bx := p.expr(), bp.expr()
	switch v.Op {
	case model.OpString:
		e.step(c, v, p)
		c.refuse("Stream::IsReading && bitpack::text_same( %s, %s, %d )", x, bx, v.MaxLen)
	case model.OpBytes:
		cond, _ := e.simpleChanged(v, p, bp)
		e.step(c, v, p)
		c.refuse("Stream::IsReading && !%s", cond)
	case model.OpByteArray:
		e.step(c, v, p)
		c.refuse("Stream::IsReading && memcmp( %s, %s, %d ) == 0", x, bx, v.Len)
	case model.OpHook:
		// Written only when changed (hook_differs compared both): a base
		// its Serialize refuses is refused here, as Go refuses it; a
		// value it refuses, by the write itself.
		c.refuse("Stream::IsWriting && bitpack::hook_measure( %s ) < 0", bx)
		e.hook(c, v, x)
		c.refuse("Stream::IsReading && !bitpack::hook_read_changed( %s, %s )", x, bx)
	case model.OpUnion:
		c.refuse("!%s.SerializeDeltaPart( stream, %s )", x, bx)
	case model.OpArray:
		e.deltaList(c, v.Elem, p, bp, strconv.Itoa(v.Len), "")
	case model.OpSlice:
		e.sliceDelta(c, v, p, bp)
	case model.OpPointer:
		e.pointerDelta(c, v, p, bp)
	case model.OpSparse:
		e.sparseDelta(c, v, p, bp)
	case model.OpMap:
		e.mapDelta(c, v, p, bp)
	default:
		panic("gen: no delta part for " + v.Op.String())
	}
}

// deltaList renders a list of the changed elements among the first m of
// an array or slice (elements elem at p, the base's at bp): each one's
// index as int_relative from the previous (from -1) and its body, then
// int_relative(previous, m). Writing finds each next changed element;
// reading refuses an index past m and, unless resized (a C++ condition;
// "" for never), an empty list.
func (e *Emitter) deltaList(c *cppBody, elem *model.Value, p, bp place, m, resized string) {
	k := strconv.Itoa(c.loops)
	i, prev := "i"+k, "p"+k
	c.loops++
	c.open()
	c.line("int32_t %s = -1, %s = 0;", prev, i)
	c.line("for ( ;; )")
	c.open()
	c.line("if ( Stream::IsWriting )")
	c.open()
	c.line("for ( %s = %s + 1; %s < %s; %s++ )", i, prev, i, m, i)
	c.open()
	cond := e.changedCond(c, elem, p.index(i), bp.index(i))
	c.line("if ( %s )", cond)
	c.line("    break;")
	c.close()
	c.close()
	c.line("bitpack_int_relative( stream, %s, %s );", prev, i)
	c.refuse("%s > %s", i, m)
	c.line("if ( %s == %s )", i, m)
	c.line("    break;")
	e.deltaBody(c, elem, p.index(i), bp.index(i))
	c.line("%s = %s;", prev, i)
	c.close()
	if resized == "" {
		c.refuse("Stream::IsReading && %s < 0", prev)
	} else {
		c.refuse("Stream::IsReading && !%s && %s < 0", resized, prev)
	}
	c.close()
	c.loops--
}

// resize renders a slice's (or sparse slice's) resized bit and new length
// at n, the base's being bn: it returns the bit's variable. Reading
// refuses a new length equal to the base's; both sides refuse a base
// length outside [0, maxlen].
func (e *Emitter) resize(c *cppBody, n, bn string, maxlen int) string {
	rs := c.local("resized")
	c.refuse("%s < 0 || %s > %d", bn, bn, maxlen)
	c.line("bool %s = false;", rs)
	c.line("if ( Stream::IsWriting )")
	c.open()
	c.refuse("%s < 0 || %s > %d", n, n, maxlen)
	c.line("%s = %s != %s;", rs, n, bn)
	c.close()
	c.line("serialize_bool( stream, %s );", rs)
	c.line("if ( %s )", rs)
	c.open()
	e.count(c, n, maxlen)
	c.refuse("Stream::IsReading && %s == %s", n, bn)
	c.close()
	return rs
}

// sliceDelta renders a changed slice: its resized bit (and length), the
// list of changed elements among those it shares with the base, then the
// elements past the base's, whole.
func (e *Emitter) sliceDelta(c *cppBody, v *model.Value, p, bp place) {
	n, p := p.take()
	bn, bp := bp.take()
	c.open()
	rs := e.resize(c, n, bn, v.MaxLen)
	m := c.local("shared")
	c.line("const int %s = %s < %s ? %s : %s;", m, n, bn, n, bn)
	e.deltaList(c, v.Elem, p, bp, m, rs)
	c.line("if ( %s > %s )", n, bn)
	c.indent++
	e.chargeElems(c, v, n+" - "+bn)
	c.indent--
	k := strconv.Itoa(c.loops)
	i := "i" + k
	c.loops++
	c.line("for ( int %s = %s; %s < %s; %s++ )", i, bn, i, n, i)
	c.open()
	e.step(c, v.Elem, p.index(i))
	c.close()
	c.loops--
	c.close()
}

// pointerDelta renders a changed pointer: the pointee whole when the base
// has none; else a bit, 0 for none now, 1 then the pointee's body.
func (e *Emitter) pointerDelta(c *cppBody, v *model.Value, p, bp place) {
	present, p := p.take()
	bpresent, bp := bp.take()
	c.line("if ( !%s )", bpresent)
	c.open()
	c.line("if ( Stream::IsReading )")
	c.line("    %s = true;", present)
	chargeValue(c, v.Charge)
	e.step(c, v.Elem, p)
	c.close()
	c.line("else")
	c.open()
	keep := c.local("keep")
	c.line("bool %s = %s;", keep, present)
	c.line("serialize_bool( stream, %s );", keep)
	c.line("if ( Stream::IsReading )")
	c.line("    %s = %s;", present, keep)
	c.line("if ( %s )", keep)
	c.open()
	e.deltaBody(c, v.Elem, p, bp)
	c.close()
	c.close()
}

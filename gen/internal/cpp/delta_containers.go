package cpp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// Sparse arrays, maps and unions in the generated C++ deltas (see
// delta.go).

// mapPlaces takes a map's companions: its count and keys (expressions of
// this value's and the base's), and the places of its values.
type mapPlaces struct {
	count, keys, bcount, bkeys string
	p, bp                      place
}

func takeMap(p, bp place) mapPlaces {
	var m mapPlaces
	m.count, p = p.take()
	m.keys, p = p.take()
	m.bcount, bp = bp.take()
	m.bkeys, bp = bp.take()
	m.p, m.bp = p, bp
	return m
}

// mapChanged renders the comparison of a map: the counts, then each
// entry's key found among the base's and its value compared.
func (e *Emitter) mapChanged(c *cppBody, v *model.Value, p, bp place) {
	m := takeMap(p, bp)
	c.refuseTrue("%s != %s || %s < 0 || %s > %d || !bitpack::keys_distinct( %s, %s )", m.count, m.bcount, m.count, m.count, v.MaxLen, m.keys, m.count)
	e.loop(c, m.count, func(i string) {
		j := c.local("j")
		c.line("const int %s = bitpack::find_key( %s, %s, %s[%s], %s );", j, m.bkeys, m.bcount, m.keys, i, i)
		c.refuseTrue("%s < 0", j)
		e.changed(c, v.Elem, m.p.index(i), m.bp.index(j))
	})
}

// copyEntry renders the copy of the base's entry src into entry dst of
// this value's map (map v): its key and its value with the value's
// companions, as CopyFrom copies them (what they hold, not their arrays'
// capacity).
func (e *Emitter) copyEntry(c *cppBody, v *model.Value, m mapPlaces, dst, src string) {
	e.copyValue(c, v.Key, place{name: m.keys}.index(dst), place{name: m.bkeys}.index(src))
	e.copyValue(c, v.Elem, m.p.index(dst), m.bp.index(src))
}

// mapDelta renders a changed map: its changed entries in ascending key
// order, each after a 1 bit: the key, then for a key the base holds a bit
// (0 removed, 1 the value's body follows), for one it does not the value
// whole; a 0 bit ends the list. Writing walks both maps' entries in key
// order (by index when the keys ascend, else by a scan). Reading rebuilds
// the map from the base's entries and the delta's in key order, so it is
// stored ascending, and refuses an entry past maxlen as it comes: the
// entries kept so far are those of the result up to the last key.
func (e *Emitter) mapDelta(c *cppBody, v *model.Value, p, bp place) {
	m := takeMap(p, bp)
	k := strconv.Itoa(c.locals)
	c.locals++
	w := mapWalk{n: "bp_n" + k, bn: "bp_bn" + k, sorted: "bp_sorted" + k, bsorted: "bp_bsorted" + k,
		ei: "bp_e" + k, bj: "bp_j" + k, out: "bp_out" + k, listed: "bp_listed" + k,
		key: "bp_key" + k, prev: "bp_prev" + k, cmp: "bp_cmp" + k, slot: "bp_slot" + k, v: v}
	c.open()
	c.line("const int %s = %s, %s = %s;", w.n, m.count, w.bn, m.bcount)
	c.refuse("%s < 0 || %s > %d || !bitpack::keys_distinct( %s, %s )", w.bn, w.bn, v.MaxLen, m.bkeys, w.bn)
	c.refuse("Stream::IsWriting && ( %s < 0 || %s > %d || !bitpack::keys_distinct( %s, %s ) )", w.n, w.n, v.MaxLen, m.keys, w.n)
	c.line("const bool %s = Stream::IsWriting && bitpack::keys_ascending( %s, %s );", w.sorted, m.keys, w.n)
	c.line("const bool %s = bitpack::keys_ascending( %s, %s );", w.bsorted, m.bkeys, w.bn)
	c.line("int %s = Stream::IsWriting ? %s : -1;", w.ei, w.next(m, false, "-1"))
	c.line("int %s = %s;", w.bj, w.next(m, true, "-1"))
	c.line("int %s = 0, %s = 0;", w.out, w.listed)
	ktype, kdims := e.scalarType(v.Key, nil)
	c.line("%s %s%s = {}, %s%s = {};", ktype, w.key, kdims, w.prev, kdims)
	c.line("for ( ;; )")
	c.open()
	more := "bp_more" + k
	c.line("bool %s = false;", more)
	c.line("int %s = -1;", w.cmp)
	c.line("if ( Stream::IsWriting )")
	c.open()
	e.nextChangedEntry(c, v, m, w)
	c.line("%s = %s >= 0 || %s >= 0;", more, w.ei, w.bj)
	c.line("if ( %s > 0 )", w.cmp)
	c.line("    bitpack::copy_value( %s, %s[%s] );", w.key, m.bkeys, w.bj)
	c.line("else if ( %s )", more)
	c.line("    bitpack::copy_value( %s, %s[%s] );", w.key, m.keys, w.ei)
	c.close()
	c.line("serialize_bool( stream, %s );", more)
	c.line("if ( !%s )", more)
	c.line("    break;")
	e.step(c, v.Key, place{name: w.key})
	c.line("int %s = %s;", w.slot, w.ei)
	e.mapReadKey(c, m, w)
	c.line("%s++;", w.listed)
	e.mapEntry(c, v, m, w)
	c.close()
	c.line("if ( Stream::IsReading )")
	c.open()
	c.refuse("%s == 0", w.listed)
	c.line("while ( %s >= 0 )", w.bj)
	c.open()
	e.keepBaseEntry(c, m, w)
	c.close()
	c.line("%s = %s;", m.count, w.out)
	c.close()
	c.close()
}

// mapWalk names the locals of a map's delta: the entry counts (this
// value's and the base's), whether their keys ascend, the next entry of
// each in key order, the entries of the result so far and of the delta,
// the key read or written and the one before, how the next listed key
// compares (below 0: this value's only, added; 0: both's; above:
// the base's only, removed) and the entry that holds its value; and the
// map.
type mapWalk struct {
	n, bn, sorted, bsorted, ei, bj, out, listed, key, prev, cmp, slot string
	v                                                                 *model.Value
}

// next is the entry after entry at of this value's map (base: the base's).
func (w mapWalk) next(m mapPlaces, base bool, at string) string {
	if base {
		return fmt.Sprintf("bitpack::entry_after( %s, %s, %s, %s )", m.bkeys, w.bn, w.bsorted, at)
	}
	return fmt.Sprintf("bitpack::entry_after( %s, %s, %s, %s )", m.keys, w.n, w.sorted, at)
}

// keepBaseEntry renders the reader's copy of the base's next entry into
// the result.
func (e *Emitter) keepBaseEntry(c *cppBody, m mapPlaces, w mapWalk) {
	c.refuse("%s == %d", w.out, w.v.MaxLen)
	e.copyEntry(c, w.v, m, w.out, w.bj)
	c.line("%s++;", w.out)
	c.line("%s = %s;", w.bj, w.next(m, true, w.bj))
}

// mapReadKey renders the reader's checks of a key it read (above the one
// before) and its catching up with the base: the base's entries below the
// key are kept, and cmp says whether the base holds the key.
func (e *Emitter) mapReadKey(c *cppBody, m mapPlaces, w mapWalk) {
	c.line("if ( Stream::IsReading )")
	c.open()
	c.refuse("%s > 0 && !bitpack::key_less( %s, %s )", w.listed, w.prev, w.key)
	c.line("bitpack::copy_value( %s, %s );", w.prev, w.key)
	c.line("while ( %s >= 0 && bitpack::key_less( %s[%s], %s ) )", w.bj, m.bkeys, w.bj, w.key)
	c.open()
	e.keepBaseEntry(c, m, w)
	c.close()
	c.line("%s = %s >= 0 && !bitpack::key_less( %s, %s[%s] ) ? 0 : -1;", w.cmp, w.bj, w.key, m.bkeys, w.bj)
	c.close()
}

// mapEntry renders what follows a listed key: an added entry's value
// whole; else the kept bit and, when kept, the value's body.
func (e *Emitter) mapEntry(c *cppBody, v *model.Value, m mapPlaces, w mapWalk) {
	c.line("if ( %s < 0 )", w.cmp)
	c.open()
	c.line("if ( Stream::IsReading )")
	c.open()
	c.refuse("%s == %d", w.out, w.v.MaxLen)
	c.line("bitpack_charge( bitpack::charge_entry( %s, %s ) );", cppInt(v.Charge.Work), cppInt(v.Charge.Bytes))
	c.line("bitpack::copy_value( %s[%s], %s );", m.keys, w.out, w.key)
	c.line("%s = %s++;", w.slot, w.out)
	c.close()
	e.step(c, v.Elem, m.p.index(w.slot))
	c.line("if ( Stream::IsWriting )")
	c.line("    %s = %s;", w.ei, w.next(m, false, w.ei))
	c.close()
	c.line("else")
	c.open()
	keep := c.local("keep")
	c.line("bool %s = %s == 0;", keep, w.cmp)
	c.line("serialize_bool( stream, %s );", keep)
	c.line("if ( %s )", keep)
	c.open()
	c.line("if ( Stream::IsReading )")
	c.open()
	c.refuse("%s == %d", w.out, w.v.MaxLen)
	e.copyEntry(c, v, m, w.out, w.bj)
	c.line("%s = %s++;", w.slot, w.out)
	c.close()
	e.deltaBody(c, v.Elem, m.p.index(w.slot), m.bp.index(w.bj))
	c.line("if ( Stream::IsWriting )")
	c.line("    %s = %s;", w.ei, w.next(m, false, w.ei))
	c.close()
	c.line("%s = %s;", w.bj, w.next(m, true, w.bj))
	c.close()
}

// nextChangedEntry renders the writer's walk to the next entry the delta
// lists: it stops at a key only one map holds (cmp < 0: added, > 0:
// removed) or at one both hold whose value changed (cmp 0), passing the
// others; with none left, both indices are -1.
func (e *Emitter) nextChangedEntry(c *cppBody, v *model.Value, m mapPlaces, w mapWalk) {
	c.line("while ( %s >= 0 || %s >= 0 )", w.ei, w.bj)
	c.open()
	c.line("%s = %s < 0 ? 1 : %s < 0 ? -1 : bitpack::key_compare( %s[%s], %s[%s] );", w.cmp, w.ei, w.bj, m.keys, w.ei, m.bkeys, w.bj)
	c.line("if ( %s != 0 )", w.cmp)
	c.line("    break;")
	cond := e.changedCond(c, v.Elem, m.p.index(w.ei), m.bp.index(w.bj))
	c.line("if ( %s )", cond)
	c.line("    break;")
	c.line("%s = %s;", w.ei, w.next(m, false, w.ei))
	c.line("%s = %s;", w.bj, w.next(m, true, w.bj))
	c.close()
}

// unionIndex renders a union's type index (both directions): refused on
// write when no member has it; read, checked by the switch that follows.
func (e *Emitter) unionIndex(body *cppBody, t *model.Type) {
	n := len(t.Members)
	switch {
	case t.Numbered:
		// Indices of the protocol's own (At): any other is refused, before
		// serialize_bits could see a value wider than its bits.
		body.line("if ( Stream::IsWriting )")
		body.open()
		body.line("switch ( type )")
		body.line("{")
		var cases []string
		for _, idx := range t.Indices {
			cases = append(cases, fmt.Sprintf("case %d:", idx))
		}
		body.line("%s break;", strings.Join(cases, " "))
		body.line("default: return false;")
		body.line("}")
		body.close()
		body.line("serialize_bits( stream, type, %d );", t.IndexBits)
	case t.IndexBits == 0:
		body.line("if ( Stream::IsWriting && type != 0 )")
		body.line("    return false;")
		body.line("if ( Stream::IsReading )")
		body.line("    type = 0;")
	case t.IndexBits == model.LengthBits(n-1):
		body.line("if ( Stream::IsWriting && type > %d )", n-1)
		body.line("    return false;")
		body.line("serialize_int( stream, type, 0, %d );", n-1)
	default: // IndexBits wider than the members need: indices past them are refused
		body.line("if ( Stream::IsWriting && type > %d )", n-1)
		body.line("    return false;")
		body.line("serialize_bits( stream, type, %d );", t.IndexBits)
	}
}

// unionDelta renders a union's delta members: DeltaChanged, and
// SerializeDeltaPart, its part as an item: the type index, then the
// member's body when the base holds a member of that index (it must
// change), else the member whole.
func (e *Emitter) unionDelta(t *model.Type) {
	name := e.typeNames[t]
	e.printf("\n    // DeltaChanged reports whether *this differs from base on the wire (or\n")
	e.printf("    // cannot be written).\n")
	e.printf("    bool DeltaChanged( const %s & base ) const\n    {\n", name)
	e.printf("        if ( type != base.type )\n            return true;\n")
	e.printf("        switch ( type )\n        {\n")
	for i, mt := range t.Members {
		e.printf("        case %d: return %s.DeltaChanged( base.%s );\n", t.Indices[i], e.typeNames[mt], e.typeNames[mt])
	}
	e.printf("        default: return true;\n        }\n    }\n\n")
	e.printf("    // SerializeDeltaPart reads or writes the union's part of a delta: the\n")
	e.printf("    // type index, then the member's body when base holds that member, else\n")
	e.printf("    // the member whole.\n")
	e.printf("    template <typename Stream> bool SerializeDeltaPart( Stream & stream, const %s & base )\n    {\n", name)
	body := &cppBody{indent: 2}
	e.unionIndex(body, t)
	body.line("const bool bp_held = type == base.type;")
	body.line("switch ( type )")
	body.line("{")
	for i, mt := range t.Members {
		mn := e.typeNames[mt]
		body.line("case %d:", t.Indices[i])
		body.indent++
		body.line("if ( !bp_held )")
		body.open()
		chargeValue(body, mt.Charge)
		body.line("serialize_object( stream, %s );", mn)
		body.close()
		body.line("else if ( !%s.SerializeDeltaBody( stream, base.%s ) )", mn, mn)
		body.line("    return false;")
		body.line("break;")
		body.indent--
	}
	body.line("default: return false;")
	body.line("}")
	body.line("return true;")
	e.b.WriteString(body.b.String())
	e.printf("    }\n")
}

// sparseLens returns the slot counts of a sparse value and of its base
// (expressions), with the places after its length companions.
func sparseLens(v *model.Value, p, bp place) (string, string, place, place) {
	if v.Prefix == nil {
		return strconv.Itoa(v.Len), strconv.Itoa(v.Len), p, bp
	}
	n, p := p.take()
	bn, bp := bp.take()
	return n, bn, p, bp
}

// sparseChanged renders the comparison of a sparse array or slice: the
// length, then each slot's presence and element.
func (e *Emitter) sparseChanged(c *cppBody, v *model.Value, p, bp place) {
	n, bn, p, bp := sparseLens(v, p, bp)
	if v.Prefix != nil {
		c.refuseTrue("%s != %s || %s < 0 || %s > %d", n, bn, n, n, v.MaxLen)
	}
	present, p := p.take()
	bpresent, bp := bp.take()
	e.loop(c, n, func(i string) {
		c.refuseTrue("%s[%s] != %s[%s]", present, i, bpresent, i)
		c.line("if ( %s[%s] )", present, i)
		c.open()
		e.changed(c, v.Elem, p.index(i), bp.index(i))
		c.close()
	})
}

// sparseDelta renders a changed sparse array or slice: a slice's resized
// bit (and length); then the changed slots, each its index as
// int_relative from the previous (from -1), then the element whole for a
// slot the base has empty (or has not), else a bit, 0 for empty now, 1
// then the element's body; then int_relative(previous, slots).
func (e *Emitter) sparseDelta(c *cppBody, v *model.Value, p, bp place) {
	c.open()
	n, bn, p, bp := sparseLens(v, p, bp)
	rs := ""
	if v.Prefix != nil {
		rs = e.resize(c, n, bn, v.MaxLen)
	}
	present, p := p.take()
	bpresent, bp := bp.take()
	if rs != "" {
		c.line("if ( Stream::IsReading )")
		c.open()
		c.line("if ( %s > %s )", n, bn)
		c.line("    bitpack_charge( bitpack::charge_slots( %s - %s ) );", n, bn)
		c.line("for ( int k = %s; k < %s; k++ )", bn, n)
		c.line("    %s[k] = false;", present)
		c.close()
	}
	k := strconv.Itoa(c.loops)
	i, prev := "i"+k, "p"+k
	c.loops++
	held := fmt.Sprintf("%s[%s]", bpresent, i)
	if rs != "" {
		held = fmt.Sprintf("( %s < %s && %s[%s] )", i, bn, bpresent, i)
	}
	c.line("int32_t %s = -1, %s = 0;", prev, i)
	c.line("for ( ;; )")
	c.open()
	c.line("if ( Stream::IsWriting )")
	c.open()
	c.line("for ( %s = %s + 1; %s < %s; %s++ )", i, prev, i, n, i)
	c.open()
	c.line("if ( %s[%s] != %s )", present, i, held)
	c.line("    break;")
	c.line("if ( %s[%s] )", present, i)
	c.open()
	cond := e.changedCond(c, v.Elem, p.index(i), bp.index(i))
	c.line("if ( %s )", cond)
	c.line("    break;")
	c.close()
	c.close()
	c.close()
	c.line("bitpack_int_relative( stream, %s, %s );", prev, i)
	c.refuse("%s > %s", i, n)
	c.line("if ( %s == %s )", i, n)
	c.line("    break;")
	c.line("if ( !%s )", held)
	c.open()
	c.line("if ( Stream::IsReading )")
	c.line("    %s[%s] = true;", present, i)
	chargeValue(c, v.Charge)
	e.step(c, v.Elem, p.index(i))
	c.close()
	c.line("else")
	c.open()
	keep := c.local("keep")
	c.line("bool %s = %s[%s];", keep, present, i)
	c.line("serialize_bool( stream, %s );", keep)
	c.line("if ( Stream::IsReading )")
	c.line("    %s[%s] = %s;", present, i, keep)
	c.line("if ( %s )", keep)
	c.open()
	e.deltaBody(c, v.Elem, p.index(i), bp.index(i))
	c.close()
	c.close()
	c.line("%s = %s;", prev, i)
	c.close()
	if rs == "" {
		c.refuse("Stream::IsReading && %s < 0", prev)
	} else {
		c.refuse("Stream::IsReading && !%s && %s < 0", rs, prev)
	}
	c.loops--
	c.close()
}

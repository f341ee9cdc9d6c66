package bitpack

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/bitpack-go/bitpack/bitio"
)

// Union fields: an interface type registered with RegisterUnion travels
// as its member's type index, then the member (union.go has the Union).

var unionKind = kindFuncs{name: "union",
	describe: func(f *Field) string {
		names := make([]string, len(f.MemberTypes))
		for i, t := range f.MemberTypes {
			names[i] = t.String()
		}
		return fmt.Sprintf("union of %d: %s", len(names), strings.Join(names, " | "))
	},
	schema: func(s *schemaWriter, f *Field) {
		// A union numbered its own way (IndexBits, At) says how; the
		// default numbering adds nothing, so fingerprints stay as they were.
		fixed := f.union != nil && f.union.fixed
		s.write("U")
		if fixed {
			s.write(strconv.Itoa(f.Bits))
		}
		s.write("(")
		for i, m := range f.Members {
			if i > 0 {
				s.write("|")
			}
			if fixed {
				s.write(strconv.Itoa(f.MemberIndex[i]) + ":")
			}
			s.walk(m)
		}
		s.write(")")
	},
	maxBits: func(f *Field, maxOf func(*Field) int64) int64 {
		var most int64 // the largest member
		for _, m := range f.Members {
			most = max(most, maxOf(m))
		}
		return satAdd(int64(f.Bits), most)
	},
	minBits: func(f *Field, minOf func(*Field) int64) int64 {
		if len(f.Members) == 0 {
			return int64(f.Bits) // members not attached: see minsOf
		}
		least := int64(saturated) // the cheapest member
		for _, m := range f.Members {
			least = min(least, minOf(m))
		}
		return satAdd(int64(f.Bits), least)
	}}

// appendUnion compiles a field of interface type t whose union is u (nil
// when checkTags compiles a placeholder for an interface not registered
// yet).
func (c *compiler) appendUnion(ops *[]op, t reflect.Type, u *Union, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	if !f.inherited && !o.isZero() {
		return nil, f.notApplicable(o, t)
	}
	base.kind, base.union, base.typ = KindUnion, u, t
	if u != nil {
		base.bits = u.bits
		for i := range u.members {
			base.ifaces = append(base.ifaces, ifaceWordOf(t, u.members[i].form()))
		}
	}
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindUnion, Bits: base.bits, union: u}, nil
}

// encodeUnion writes the type index of the value an interface field holds,
// then the value.
func encodeUnion(w *bitio.Writer, o *op, at pointer, depth int) *fieldError {
	iv := at.value(o.typ).Elem()
	if iv.IsNil() {
		return newFieldError(o.path, -1, ErrRange, "nil %s: a union field must hold one of its members", o.typ)
	}
	idx, base, err := o.union.find(iv.Elem())
	if err != nil {
		return newFieldError(o.path, -1, ErrRange, "%v (interface %s)", err, o.typ)
	}
	mp, err := o.union.member(idx)
	if err != nil {
		return memberError(o.path, -1, err)
	}
	w.WriteBits(o.union.members[idx].index, o.bits)
	if err := encodeSub(w, mp, o.level, base, depth); err != nil {
		return err.withPrefix(o.path)
	}
	return nil
}

// union reads a type index and the member it names into an interface
// field: into the *T the field already holds when it is the same type and
// the member was registered as a pointer, else into a new value.
func decodeUnion(d *decoder, o *op, at pointer, _, depth int) *fieldError {
	r := d.r
	start := r.BitsRead()
	idx := r.ReadBits(o.bits)
	if r.Err() != nil {
		return nil
	}
	u := o.union
	pos, ok := u.lookup(idx)
	if !ok {
		return newFieldError(o.path, start, ErrRange, "%s", u.indexRefusal(idx))
	}
	return decodeMember(d, o, at, pos, start, depth)
}

// decodeMember reads member pos of the union field o (its index read at
// bit start) into at.
func decodeMember(d *decoder, o *op, at pointer, pos, start, depth int) *fieldError {
	u := o.union
	m := &u.members[pos]
	mp, err := u.member(pos)
	if err != nil {
		return memberError(o.path, start, err)
	}
	work, bytes := memberCharge(mp)
	if err := d.charge(work, bytes, 1, uintptr(mp.bytes), start); err != nil {
		return err.withPrefix(o.path)
	}
	// Into the *T the field holds when it is one of this member's type;
	// else into a new value, which the field then holds as it is (no
	// second copy for a member in value form: see setIface).
	if cur, ok := at.ifaceHolds(o.ifaces[pos]); ok && m.pointer {
		if err := d.sub(mp, o.level, cur, depth); err != nil {
			return err.withPrefix(o.path)
		}
		return nil
	}
	fresh := newValue(mp)
	if err := d.sub(mp, o.level, fresh, depth); err != nil {
		return err.withPrefix(o.path)
	}
	at.setIface(o.ifaces[pos], fresh)
	d.grow(1, m.typ.Size())
	return nil
}

// commitUnion commits an interface field o: into the *T d holds when s
// holds a member of that type in pointer form, else by handing over s's
// value, settled (the caller held no member it could fill).
func commitUnion(o *op, d, s pointer) {
	for i := range o.ifaces {
		sv, ok := s.ifaceHolds(o.ifaces[i])
		if !ok {
			continue
		}
		mp := o.union.members[i].plan.Load()
		if dv, same := d.ifaceHolds(o.ifaces[i]); same && o.union.members[i].pointer {
			commit(mp, dv, sv)
			return
		}
		if v, ok := s.ifaceValue(o.ifaces[i]); ok && mp != nil {
			settle(mp, v)
		}
		break
	}
	d.moveIface(s)
}

// Deltas. A union field that changed sends its member's type index; if it
// is the index of the member the base holds, the member's body follows
// (see deltaEncoder.body), else the member whole. A base holding no
// member (nil) takes a member whole.

// heldMember returns the position of the member the interface field o
// at at holds, and the member's address, or false.
func heldMember(o *op, at pointer) (int, pointer, bool) {
	for i := range o.ifaces {
		if v, ok := at.ifaceValue(o.ifaces[i]); ok {
			return i, v, true
		}
	}
	return 0, pointer{}, false
}

// unionRefusal words why the interface field o at at holds no member.
func unionRefusal(o *op, at pointer) *fieldError {
	iv := at.value(o.typ).Elem()
	if iv.IsNil() {
		return newFieldError(o.path, -1, ErrRange, "nil %s: a union field must hold one of its members", o.typ)
	}
	_, _, err := o.union.find(iv.Elem())
	return newFieldError(o.path, -1, ErrRange, "%v (interface %s)", err, o.typ)
}

func encodeUnionDelta(e *deltaEncoder, o *op, at, bt pointer, depth int, bit bool) (bool, *fieldError) {
	if at.sameIface(bt) {
		return e.same(bit)
	}
	i, v, ok := heldMember(o, at)
	if !ok {
		return false, unionRefusal(o, at)
	}
	u := o.union
	mp, err := u.member(i)
	if err != nil {
		return false, memberError(o.path, -1, err)
	}
	w := e.w
	start := e.begin(bit)
	w.WriteBits(u.members[i].index, o.bits)
	if ib, b, same := heldMember(o, bt); same && ib == i {
		changed, err := e.sub(mp, o.level, v, b, depth)
		if err != nil {
			return false, err.withPrefix(o.path)
		}
		if !changed {
			return e.unchanged(start, bit)
		}
		return true, nil
	}
	e.charge(memberCharge(mp))
	e.full(mp, v, depth+1)
	if err := encodeSub(w, mp, o.level, v, depth); err != nil {
		return false, err.withPrefix(o.path)
	}
	return true, nil
}

// decodeUnionDelta changes the member the scratch value holds in place:
// clone gave it a value of its own, whichever form the member takes. In
// the base itself, a member held by value is changed in a copy.
func decodeUnionDelta(d *decoder, o *op, at pointer, start, depth int, bit bool) (bool, *fieldError) {
	r := d.r
	if !d.changedBit(bit) {
		return false, nil
	}
	pos := r.BitsRead()
	idx := r.ReadBits(o.bits)
	if r.Err() != nil {
		return false, nil
	}
	u := o.union
	i, ok := u.lookup(idx)
	if !ok {
		return false, newFieldError(o.path, pos, ErrRange, "%s", u.indexRefusal(idx))
	}
	cur, holds := at.ifaceValue(o.ifaces[i])
	if !holds {
		d.saveIface(at)
		return true, decodeMember(d, o, at, i, pos, depth)
	}
	mp, err := u.member(i)
	if err != nil {
		return false, memberError(o.path, pos, err)
	}
	if d.undo != nil && !u.members[i].pointer && !o.ifaces[i].deref {
		// In place, a member held by value is changed in a copy: its box
		// may be shared by copies of the interface.
		box := newValue(mp)
		if err := cloneSub(mp, o.level, box, cur, nil, depth); err != nil {
			return false, err.in(o.path).fieldError()
		}
		d.saveIface(at)
		at.setIface(o.ifaces[i], box)
		cur = box
	}
	return true, d.deltaSub(mp, o.level, cur, depth, o.path, -1)
}

// cloneUnion makes the interface at d hold a copy of the member the one
// at s holds, of its own (see clone): the pointee d holds when it is a
// pointer to the same type, else a new value. An interface holding no
// member is copied as it is.
func cloneUnion(o *op, d, s pointer, sc *scratch, depth int) *cloneError {
	i, sv, ok := heldMember(o, s)
	var mp *plan
	if ok {
		mp, _ = o.union.member(i) // compiled when the base was encoded or decoded
	}
	if mp == nil {
		d.value(o.typ).Elem().Set(s.value(o.typ).Elem())
		return nil
	}
	dv, same := d.ifaceValue(o.ifaces[i])
	if !same || !o.union.members[i].pointer {
		dv = newValue(mp)
		defer d.setIface(o.ifaces[i], dv) // a value of its own, copied or not
	}
	if sc != nil && sc.cloning == cloneIn {
		sc.cloning = 0 // a member held in the interface's word has no address of its own to leave maps at
		defer func() { sc.cloning = cloneIn }()
	}
	if err := cloneSub(mp, o.level, dv, sv, sc, depth); err != nil {
		return err.in(o.path)
	}
	return nil
}

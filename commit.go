package bitpack

// Commit: what a decode stored in its scratch value goes into the caller's
// value once the whole packet is accepted (see decode.go). Fixed-width
// data is copied; what the caller's value can hold in memory it already
// has (a slice with the capacity, a non-nil pointer, the member a union
// field already holds) is filled in place, so steady-state decodes
// allocate nothing; anything else is handed over: the caller's value takes
// the scratch value's slice or pointee, and the scratch value lets go of
// it (it allocates again, paid for, when a later packet needs it). Commit
// itself never allocates — but for the elements of a slice that keep
// fields off the wire, which must keep the values they had: those grow
// in place, and their decode is charged twice (see elemsCharge).

// commit stores into dst what a decode of p stored into src.
func commit(p *plan, dst, src pointer) {
	if p.dense {
		dst.copyFrom(src, p.typ.Size())
		return
	}
	for _, c := range p.copies {
		dst.at(c.off).copyFrom(src.at(c.off), c.n)
	}
	for _, i := range p.others {
		o := &p.ops[i]
		d, s := dst.at(o.offset), src.at(o.offset)
		switch o.kind {
		case opString:
			*d.string() = *s.string()
		case opBytes:
			commitBytes(d, s)
		case opArray:
			for k := 0; k < o.n; k++ {
				commit(o.elem, d.at(uintptr(k)*o.stride), s.at(uintptr(k)*o.stride))
			}
		case opSlice:
			commitSlice(o, d, s)
		case opPointer:
			commitPointee(o.elem, d, s)
		case opSparse:
			commitSparse(o, d, s)
		case opUnion:
			commitUnion(o, d, s)
		case opHook:
			// The hook's new value, handed over.
			dv, sv := d.value(o.typ).Elem(), s.value(o.typ).Elem()
			dv.Set(sv)
			sv.SetZero()
		}
	}
}

// commitBytes commits a []byte field.
func commitBytes(d, s pointer) {
	db, sb := d.bytes(), s.bytes()
	if cap(*db) >= len(*sb) {
		*db = append((*db)[:0], *sb...)
		return
	}
	*db, *sb = *sb, nil
}

// commitSlice commits a slice field o.
func commitSlice(o *op, d, s pointer) {
	n := s.sliceLen()
	switch {
	case n <= d.sliceCap():
		d.setSliceLen(o.typ, n)
	case o.elem.complete:
		d.moveSlice(s) // every byte of the elements is the packet's
		return
	default:
		// Elements with fields off the wire keep theirs: grow in place.
		d.setSliceLen(o.typ, n)
	}
	if n == 0 {
		return
	}
	if o.elem.dense { // pointer-free elements without off-wire fields: one copy
		d.sliceElem(0, 0).copyFrom(s.sliceElem(0, 0), uintptr(n)*o.stride)
		return
	}
	for k := 0; k < n; k++ {
		commit(o.elem, d.sliceElem(k, o.stride), s.sliceElem(k, o.stride))
	}
}

// commitPointee commits a pointer to a value of plan p: into the pointee d
// has, or by handing over the one s has.
func commitPointee(p *plan, d, s pointer) {
	se := s.elem()
	switch de := d.elem(); {
	case se.isNil():
		d.setNil()
	case de.isNil():
		d.setElem(se)
		s.setNil()
	default:
		commit(p, de, se)
	}
}

// commitSparse commits a sparse field o: its slots are pointers.
func commitSparse(o *op, d, s pointer) {
	n := o.n
	if o.slice {
		n = s.sliceLen()
		if n > d.sliceCap() {
			d.moveSlice(s)
			return
		}
		d.setSliceLen(o.typ, n)
	}
	for k := 0; k < n; k++ {
		commitPointee(o.elem, sparseSlot(o, d, k), sparseSlot(o, s, k))
	}
}

// commitUnion commits an interface field o: into the *T d holds when s
// holds a member of that type in pointer form, else by handing over s's
// value.
func commitUnion(o *op, d, s pointer) {
	for i := range o.ifaces {
		sv, ok := s.ifaceHolds(o.ifaces[i])
		if !ok {
			continue
		}
		if dv, same := d.ifaceHolds(o.ifaces[i]); same && o.union.members[i].pointer {
			commit(o.union.members[i].plan.Load(), dv, sv)
			return
		}
		break
	}
	d.moveIface(s)
}

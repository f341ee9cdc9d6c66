package bitpack

import (
	"reflect"
	"time"

	"github.com/bitpack-go/bitpack/bitio"
)

// Deltas decoded into the base itself (v == base). The delta's changes
// are made where they belong, each first saved in an undo log, so that an
// accepted delta costs what it changes — never a copy of what it leaves
// alone, however large the base, whatever it holds (a cycle the delta
// does not reach, say) — and a refused one is put back exactly: the same
// values, the same pointees, arrays and maps, the same old elements past
// a slice's length.
//
// A few changes cannot be made before the delta is accepted, because
// they go into memory of the caller's that Unmarshal's rules reuse but an
// undo log cannot put back (the old elements past a slice's length, a
// sparse slot's old pointee, whose pointees a decode fills), or because
// reflect cannot change them in place (a map's entries): those are
// decoded into values of the decoder's own and made once the delta is
// accepted (later). What a delta adds (a pointee, an element, a member) is
// new memory, never a spare of the scratch value's. The shapes this gives
// are those a decode into any other value gives (see Unmarshal): the
// value's own slices cut to length 0 where the delta empties them, but
// every empty slice and map nil in a map's entries, which are new values
// (decoder.entry).

// undoLog is what an in-place delta changed and what it will change once
// accepted. A scratch value keeps one, so its buffers are reused.
type undoLog struct {
	entries []undoEntry     // the changes made, in order
	bytes   []byte          // old bytes of undoBytes entries
	typed   []reflect.Value // old values of undoTyped entries
	times   []time.Time     // old values of undoTime entries (a time holds a pointer: its location)
	later   []laterStep     // the changes made once the delta is accepted, in order
	temps   map[*plan]*tempValues
	// gatherLeft is how many map entries the decode may still copy out to
	// find the entries the delta names without allocating (see mapIndex):
	// a map too large for it is searched by reflect, which allocates a
	// copy of each entry it finds. It keeps what a delta costs to what
	// its bits pay for.
	gatherLeft int
}

// mapGatherBase and one entry per bit of the packet are the map entries
// an in-place delta may gather (see undoLog.gatherLeft).
const mapGatherBase = 256

// laterStep is a change an in-place delta makes once accepted.
type laterStep struct {
	kind     uint8
	o        *op
	dst, src pointer // laterElems, laterPointee: into dst from src; maps: dst is the map field, src the value
	key      pointer // maps: the key
	n        int     // laterElems: how many
}

const (
	laterElems     = iota // commit n elements of o from src into dst's
	laterPointee          // commit the pointee src into dst (both of o.elem); src then becomes a spare
	laterMapSet           // the map at dst gets src at key
	laterMapDelete        // the map at dst loses key
	laterMapNil           // the map at dst becomes nil
)

// tempValues are values of one plan's type that an in-place delta decodes
// into before they go into the caller's value (see later): consecutive
// in one slice, handed out in order and cleared once the delta is done.
type tempValues struct {
	all  reflect.Value // a []T
	used int
}

// undo returns s's undo log for a decode of a packet of bits bits.
func (s *scratch) undoFor(bits int) *undoLog {
	if s.undo == nil {
		s.undo = &undoLog{temps: map[*plan]*tempValues{}}
	}
	s.undo.gatherLeft = mapGatherBase + bits
	return s.undo
}

// unmarshalDeltaInPlace decodes the changed delta r holds (read from its
// start) into the value at v, which is its base.
func unmarshalDeltaInPlace(r *bitio.Reader, p *plan, t reflect.Type, v pointer) error {
	r.Rewind(0) // the allowances are for the whole packet
	s := p.getScratch()
	u := s.undoFor(r.BitsRemaining())
	held := u.footprint()
	d := decoder{r: r, undo: u} // no spares: what goes into the caller's value is new
	d.enter(nil)
	var err error
	if ferr := d.deltaRoot(p, v); ferr != nil {
		err = publicError("decode", t, ferr)
	} else if r.BitsRemaining() >= 8 {
		err = trailingError(t, r)
	}
	if err != nil {
		u.rollback(s)
	} else {
		u.commit(s)
	}
	u.reset()
	if s.grown += d.grown + max(0, u.footprint()-held); s.grown > scratchKeepLimit {
		s.dropSpares()
		s.undo = nil
		s.grown = 0
	}
	p.putScratch(s)
	return err
}

// rollback puts back every change the log holds, the last first, and
// lets go of what the changes to be made later were decoded into.
func (u *undoLog) rollback(s *scratch) {
	for i := len(u.entries) - 1; i >= 0; i-- {
		switch e := &u.entries[i]; e.kind {
		case undoBytes:
			copy(e.at.byteArray(int(e.x)), u.bytes[e.w:e.w+e.x])
		case undoTyped:
			v := u.typed[e.w]
			e.at.value(v.Type()).Elem().Set(v)
		case undoTime:
			*e.at.time() = u.times[e.w]
		default:
			e.restore()
		}
	}
	for i := range u.later {
		if st := &u.later[i]; st.kind == laterPointee {
			s.putSpare(st.o.elem, st.src)
		}
	}
}

// commit makes the changes the accepted delta left for later, in order.
func (u *undoLog) commit(s *scratch) {
	for i := range u.later {
		st := &u.later[i]
		o := st.o
		switch st.kind {
		case laterElems:
			if o.elem.dense {
				st.dst.copyFrom(st.src, uintptr(st.n)*o.stride)
				continue
			}
			for k := 0; k < st.n; k++ {
				commit(o.elem, st.dst.index(k, o.stride), st.src.index(k, o.stride))
			}
		case laterPointee:
			commit(o.elem, st.dst, st.src)
			s.putSpare(o.elem, st.src)
		case laterMapSet:
			m := st.dst.value(o.typ).Elem()
			if m.IsNil() {
				m.Set(reflect.MakeMap(o.typ))
			}
			m.SetMapIndex(st.key.value(o.typ.Key()).Elem(), st.src.value(o.typ.Elem()).Elem())
		case laterMapDelete:
			st.dst.value(o.typ).Elem().SetMapIndex(st.key.value(o.typ.Key()).Elem(), reflect.Value{})
		case laterMapNil:
			st.dst.value(o.typ).Elem().SetZero()
		}
	}
}

// reset empties the log for the next delta, holding nothing of the
// caller's: the temporary values that hold pointers are cleared (a map's
// entries were copied out of them, sharing what they point to).
func (u *undoLog) reset() {
	clear(u.entries)
	clear(u.typed)
	clear(u.times)
	clear(u.later)
	u.entries, u.bytes, u.typed, u.times, u.later = u.entries[:0], u.bytes[:0], u.typed[:0], u.times[:0], u.later[:0]
	for p, tv := range u.temps {
		for i := 0; i < tv.used && !p.pointerFree; i++ {
			tv.all.Index(i).SetZero()
		}
		tv.used = 0
	}
}

// footprint is about how many bytes the log's buffers take: what a delta
// made them grow by counts as allocated into the scratch value, which lets
// go of its log with the rest past scratchKeepLimit.
func (u *undoLog) footprint() int64 {
	n := int64(cap(u.entries))*int64(undoEntryBytes) + int64(cap(u.bytes)) + int64(cap(u.typed)+cap(u.later))*64 + int64(cap(u.times))*24
	for p, tv := range u.temps {
		n += int64(tv.all.Len()) * int64(p.size)
	}
	return n
}

// temp returns the first of n consecutive values of p's type of the
// log's own: zero, or for a pointer-free type what an earlier delta left
// there.
func (u *undoLog) temp(p *plan, n int) pointer {
	tv := u.temps[p]
	if tv == nil {
		tv = &tempValues{}
		u.temps[p] = tv
	}
	if !tv.all.IsValid() || tv.used+n > tv.all.Len() {
		// A new slice; the one before stays alive as long as what was
		// handed out of it is used (till the log is reset), then is
		// garbage.
		size := max(n, 4)
		if tv.all.IsValid() {
			size = max(size, 2*tv.all.Len())
		}
		tv.all, tv.used = reflect.MakeSlice(reflect.SliceOf(p.typ), size, size), 0
	}
	at := pointerOf(tv.all.Index(tv.used).Addr())
	tv.used += n
	return at
}

// saveBits ... saveTyped record, when the decoder changes the caller's
// value in place, what the field at at holds before it changes.
func (d *decoder) saveBits(at pointer, size uintptr) {
	if d.undo != nil {
		d.undo.entries = append(d.undo.entries, at.saveBits(size))
	}
}

func (d *decoder) saveWord(at pointer) {
	if d.undo != nil {
		d.undo.entries = append(d.undo.entries, at.saveWord())
	}
}

func (d *decoder) saveString(at pointer) {
	if d.undo != nil {
		d.undo.entries = append(d.undo.entries, at.saveString())
	}
}

func (d *decoder) saveSlice(at pointer) {
	if d.undo != nil {
		d.undo.entries = append(d.undo.entries, at.saveSlice())
	}
}

func (d *decoder) saveIface(at pointer) {
	if d.undo != nil {
		d.undo.entries = append(d.undo.entries, at.saveIface())
	}
}

// saveBytes records the n pointer-free bytes at at.
func (d *decoder) saveBytes(at pointer, n int) {
	if u := d.undo; u != nil {
		off := len(u.bytes)
		u.bytes = append(u.bytes, at.byteArray(n)...)
		u.entries = append(u.entries, undoEntry{at: at, w: uint64(off), x: uint64(n), kind: undoBytes})
	}
}

// saveTime records the time.Time at at.
func (d *decoder) saveTime(at pointer) {
	if u := d.undo; u != nil {
		u.entries = append(u.entries, undoEntry{at: at, w: uint64(len(u.times)), kind: undoTime})
		u.times = append(u.times, *at.time())
	}
}

// saveTyped records the value of type t at at (a hook's: any type).
func (d *decoder) saveTyped(at pointer, t reflect.Type) {
	if u := d.undo; u != nil {
		old := reflect.New(t).Elem()
		old.Set(at.value(t).Elem())
		u.entries = append(u.entries, undoEntry{at: at, w: uint64(len(u.typed)), kind: undoTyped})
		u.typed = append(u.typed, old)
	}
}

// later records a change to make once the delta is accepted.
func (d *decoder) later(st laterStep) { d.undo.later = append(d.undo.later, st) }

// emptied makes the slice at at nil when it is empty and in a map's entry
// (a new value: see the top of this file); the caller saved it.
func (d *decoder) emptied(at pointer) {
	if d.undo != nil && d.entry > 0 && at.sliceLen() == 0 {
		at.clearSlice()
	}
}

// ---------------------------------------------------------------------------
// Growing slices in place.

// growInPlace makes the slice o at at, of nb elements in the base, n long
// (n > nb) and decodes its new elements, into the base itself: in a map's
// entry (a new value) into a new array holding its first nb elements;
// elsewhere as Unmarshal would, into its old elements past nb when its
// capacity holds n (else into a new array holding them, to its old
// capacity): decoded into values of the log's own and committed there once
// the delta is accepted.
func (d *decoder) growInPlace(o *op, at pointer, nb, n, depth int) *fieldError {
	d.saveSlice(at)
	switch {
	case d.entry > 0:
		at.growSliceTo(o.typ, nb, n)
		d.grow(n, o.stride)
		return d.elemsFrom(o, at.sliceElem(nb, o.stride), n-nb, nb, depth)
	case n > at.sliceCap():
		d.grow(n, o.stride)
	}
	at.setSliceLen(o.typ, n)
	tmp := d.undo.temp(o.elem, n-nb)
	if err := d.elemsFrom(o, tmp, n-nb, nb, depth); err != nil {
		return err
	}
	d.later(laterStep{kind: laterElems, o: o, dst: at.sliceElem(nb, o.stride), src: tmp, n: n - nb})
	return nil
}

// ---------------------------------------------------------------------------
// Maps.

// mayGather reports whether a map of n entries the delta changes may be
// gathered to find its entries (see mapWork.index): always into the
// scratch value (which copied the whole base), in place while the
// gathering stays within what the packet pays for (see gatherLeft).
func (d *decoder) mayGather(n int) bool {
	if d.undo == nil {
		return true
	}
	if n > d.undo.gatherLeft {
		return false
	}
	d.undo.gatherLeft -= n
	return true
}

// copyOf returns a copy of the value of p's type at src, in a value of
// the log's own.
func (u *undoLog) copyOf(p *plan, src pointer) pointer {
	dst := u.temp(p, 1)
	if p.pointerFree {
		dst.copyFrom(src, p.size)
	} else {
		dst.value(p.typ).Elem().Set(src.value(p.typ).Elem())
	}
	return dst
}

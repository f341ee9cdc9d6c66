package bitpack

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack/bitio"
)

// Sparse arrays and slices: the non-nil elements, each after its index as
// int_relative, then an end marker.

var sparseKind = kindFuncs{name: "sparse",
	describe: func(f *Field) string {
		if f.Type.Kind() == reflect.Slice {
			return fmt.Sprintf("sparse slice maxlen %d", f.MaxLen)
		}
		return fmt.Sprintf("sparse array of %d", f.Len)
	},
	schema: func(s *schemaWriter, f *Field) {
		if f.Type.Kind() == reflect.Slice {
			s.write("S[<=" + strconv.Itoa(f.MaxLen) + "]")
		} else {
			s.write("S[" + strconv.Itoa(f.Len) + "]")
		}
		s.walk(f.Elem)
	},
	maxBits: func(f *Field, max func(*Field) int64) int64 {
		// Present elements cost their index as int_relative (1 bit when
		// consecutive, at most 38) and their value; the end marker the same.
		n := f.Len
		if f.Type.Kind() == reflect.Slice {
			n = f.MaxLen
		}
		return satAdd(int64(f.Bits+38), satMul(int64(n), satAdd(38, max(f.Elem))))
	},
	minBits: func(f *Field, _ func(*Field) int64) int64 {
		if f.Type.Kind() == reflect.Slice {
			return int64(f.Bits) + 1 // length 0, then the marker int_relative(-1, 0)
		}
		return relativeBits(f.Len + 1) // no element: the marker int_relative(-1, n)
	}}

// appendSparse compiles a sparse []*T (with maxlen) or [n]*T: only the
// non-nil elements travel, each preceded by its index as int_relative from
// the previous one (starting at -1), then int_relative(prev, length) ends
// the list. Other options apply to T.
func (c *compiler) appendSparse(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	et := t.Elem()
	if et.Kind() != reflect.Pointer {
		return nil, f.tagged(o, "sparse applies to []*T or [N]*T, not %s", t)
	}
	if t.Kind() == reflect.Array && o.maxlenSet {
		return nil, f.tagged(o, "maxlen does not apply to %s (arrays have a fixed length)", t)
	}
	node := &Field{Type: t, Kind: KindSparse}
	if t.Kind() == reflect.Slice {
		if err := checkSliceBytes(t, o, f); err != nil {
			return nil, err
		}
		base.slice, base.n, base.bits = true, o.maxlen, bitio.BitsRequired(0, uint64(o.maxlen))
		node.MaxLen, node.Bits = o.maxlen, base.bits
	} else {
		base.n = t.Len()
		node.Len = t.Len()
	}
	if base.n > math.MaxInt32-1 {
		return nil, f.tagged(o, "sparse length %d exceeds the int_relative index range", base.n)
	}
	elemOpts, err := f.elemOptions(o, t, false)
	if err != nil {
		return nil, err
	}
	elem, err := c.planFor(et.Elem(), elemOpts, f.element(t, "[]"))
	if err != nil {
		return nil, err
	}
	base.kind, base.elem, base.typ, base.stride = KindSparse, elem, t, et.Size()
	base.refuse = func(format string, args ...any) error { return f.tagged(o, format, args...) }
	*ops = append(*ops, base)
	node.Elem = elem.root
	return node, nil
}

// encodeSparse writes the non-nil elements of a []*T or [n]*T, each after
// its index as int_relative from the previous index (starting at -1), then
// int_relative(prev, length) as the end marker.
func encodeSparse(w *bitio.Writer, o *op, at pointer, depth int) *fieldError {
	n := o.n
	if o.slice {
		if n = at.sliceLen(); n > o.n {
			return newFieldError(o.path, -1, ErrRange, "slice of %d elements exceeds maxlen %d", n, o.n)
		}
		w.WriteBits(uint64(n), o.bits)
	}
	prev := int32(-1)
	for k := 0; k < n; k++ {
		e := sparseSlot(o, at, k).elem()
		if e.isNil() {
			continue
		}
		w.WriteIntRelative(prev, int32(k))
		if err := encodeElem(w, o, e, depth); err != nil {
			return err.withPrefix(o.path + "[" + strconv.Itoa(k) + "]")
		}
		prev = int32(k)
	}
	w.WriteIntRelative(prev, int32(n))
	return nil
}

// sparseSlot returns the address of element k (a *T) of a sparse field.
func sparseSlot(o *op, at pointer, k int) pointer {
	if o.slice {
		return at.sliceElem(k, o.stride)
	}
	return at.index(k, o.stride)
}

// sparse reads the indices and values of a sparse field. Indices must
// increase (int_relative refuses anything else) and stay below the length;
// the index equal to the length ends the list. Absent elements become nil.
func decodeSparse(d *decoder, o *op, at pointer, _, depth int) *fieldError {
	r := d.r
	n := o.n
	if o.slice {
		start := r.BitsRead()
		v := r.ReadBits(o.bits)
		if r.Err() != nil {
			return nil // reported by plan
		}
		if v > uint64(o.n) {
			return newFieldError(o.path, start, ErrRange, "length %d exceeds maxlen %d", v, o.n)
		}
		n = int(v)
		work, bytes := slotsCharge(n)
		if err := d.charge(work, bytes, n, slotBytes, start); err != nil {
			return err.withPrefix(o.path)
		}
		if n > at.sliceCap() {
			d.grow(n, ptrSize)
		}
		at.setSliceLen(o.typ, n)
	}
	prev, next := int32(-1), 0
	for {
		start := r.BitsRead()
		idx := r.ReadIntRelative(prev)
		if r.Err() != nil {
			return nil
		}
		if int(idx) > n {
			return newFieldError(o.path, start, ErrRange, "sparse index %d out of range for length %d", idx, n)
		}
		for ; next < int(idx); next++ {
			sparseSlot(o, at, next).setNil()
		}
		if int(idx) == n {
			return nil
		}
		work, bytes := sparseElemCharge(o)
		if err := d.charge(work, bytes, 1, uintptr(o.elem.bytes), start); err != nil {
			return err.withPrefix(o.path + "[" + strconv.Itoa(int(idx)) + "]")
		}
		slot := sparseSlot(o, at, int(idx))
		e := slot.elem()
		if e.isNil() {
			e = slot.setNew(o.elem)
			d.grow(1, o.elem.typ.Size())
		}
		if err := d.sub(o.elem, o.level, e, depth); err != nil {
			return err.withPrefix(o.path + "[" + strconv.Itoa(int(idx)) + "]")
		}
		prev, next = idx, int(idx)+1
	}
}

// commitSparse commits a sparse field o: its slots are pointers. A sparse
// slice that outgrew the caller's capacity is committed as commitGrown
// commits a slice: into the scratch value's slots, handed over, the first
// ones holding the caller's pointees.
func commitSparse(o *op, d, s pointer) {
	n := o.n
	if o.slice {
		n = s.sliceLen()
		if m := d.sliceCap(); n > m {
			for k := 0; k < m; k++ {
				dk, sk := sparseSlot(o, d, k), sparseSlot(o, s, k)
				commitPointee(o.elem, dk, sk)
				sk.setElem(dk.elem())
			}
			for k := m; k < n; k++ {
				if e := sparseSlot(o, s, k).elem(); !e.isNil() {
					settle(o.elem, e)
				}
			}
			d.moveSlice(s)
			return
		}
		d.setSliceLen(o.typ, n)
	}
	for k := 0; k < n; k++ {
		commitPointee(o.elem, sparseSlot(o, d, k), sparseSlot(o, s, k))
	}
}

// Deltas. A sparse slice first says whether its length changed (a bit,
// then the new length); then the slots that changed are listed, each its
// index as int_relative from the previous (from -1), then: for a slot
// empty in the base (or past the base's length), the element whole; for
// one that was not, a bit: 0, it is empty now; 1, the element's body
// follows. The end marker is int_relative(previous, length).

func encodeSparseDelta(e *deltaEncoder, o *op, at, bt pointer, depth int, bit bool) (bool, *fieldError) {
	n, nb := o.n, o.n
	if o.slice {
		if n, nb = at.sliceLen(), bt.sliceLen(); n > o.n {
			return false, newFieldError(o.path, -1, ErrRange, "slice of %d elements exceeds maxlen %d", n, o.n)
		}
		if n == nb && (n == 0 || at.sliceElem(0, 0) == bt.sliceElem(0, 0)) {
			return e.same(bit)
		}
	} else if at.sameBytes(bt, uintptr(n)*o.stride) {
		return e.same(bit)
	}
	w := e.w
	start := e.begin(bit)
	if o.slice {
		if n != nb {
			w.WriteBits(1, 1)
			w.WriteBits(uint64(n), o.bits)
			e.charge(slotsCharge(max(n-nb, 0)))
		} else {
			w.WriteBits(0, 1)
		}
	}
	prev := int32(-1)
	for k := 0; k < n; k++ {
		pv, pb := sparseSlot(o, at, k).elem(), pointer{}
		if k < nb {
			pb = sparseSlot(o, bt, k).elem()
		}
		if pv == pb {
			continue
		}
		pos := w.BitsWritten()
		w.WriteIntRelative(prev, int32(k))
		var err *fieldError
		switch {
		case pb.isNil(): // appears
			e.charge(sparseElemCharge(o))
			e.full(o.elem, pv, depth+1)
			err = encodeElem(w, o, pv, depth)
		case pv.isNil(): // vanishes
			w.WriteBits(0, 1)
		default:
			w.WriteBits(1, 1)
			var changed bool
			if changed, err = e.sub(o.elem, o.level, pv, pb, depth); err == nil && !changed {
				w.Rewind(pos)
				continue
			}
		}
		if err != nil {
			return false, err.withPrefix(elemPath(o.path, k))
		}
		prev = int32(k)
	}
	if n == nb && prev < 0 {
		return e.unchanged(start, bit)
	}
	w.WriteIntRelative(prev, int32(n))
	return true, nil
}

func decodeSparseDelta(d *decoder, o *op, at pointer, start, depth int, bit bool) (bool, *fieldError) {
	r := d.r
	if !d.changedBit(bit) {
		return false, nil
	}
	n, resized := o.n, false
	stale := n // slots from stale on hold old pointees a slot the delta lists reuses, and the others lose
	if o.slice {
		nb := at.sliceLen()
		if resized = r.ReadBits(1) == 1; resized {
			var err *fieldError
			if n, stale, err = d.sparseLength(o, at, nb); err != nil || r.Err() != nil {
				return false, err
			}
		} else {
			n, stale = nb, nb
		}
	}
	prev := int32(-1)
	for {
		pos := r.BitsRead()
		idx := r.ReadIntRelative(prev)
		switch err := r.Err(); {
		case err != nil:
			return false, fromBitio(o.path, pos, err)
		case int(idx) > n:
			return false, newFieldError(o.path, pos, ErrRange, "sparse index %d out of range for length %d", idx, n)
		case int(idx) == n && !resized && prev < 0:
			return false, unchangedError(o.path, start)
		}
		for k := max(int(prev)+1, stale); k < int(idx); k++ {
			d.dropSlot(o, sparseSlot(o, at, k))
		}
		if int(idx) == n {
			return true, nil
		}
		var err *fieldError
		if int(idx) >= stale {
			err = d.staleSlotDelta(o, at, int(idx), pos, depth)
		} else {
			err = d.sparseSlotDelta(o, at, int(idx), pos, depth)
		}
		if err != nil {
			return false, err
		}
		prev = idx
	}
}

// sparseLength reads the new length n of the sparse slice o at at, whose
// base has nb slots, and makes it that long. In the scratch value, slots
// it drops, and stale ones it regains past the base's length, give their
// pointees to its spares. In place (see delta_inplace.go), the slots past
// n are left alone, and those it regains within the slice's capacity,
// from the returned stale on, keep their old pointees until the list of
// changed slots says which it reuses (see staleSlotDelta); a slice that
// outgrows its capacity, or one in a map's entry (a new value), gets a new
// array of n, its slots past nb nil.
func (d *decoder) sparseLength(o *op, at pointer, nb int) (n, stale int, err *fieldError) {
	r := d.r
	pos := r.BitsRead()
	v := r.ReadBits(o.bits)
	switch {
	case r.Err() != nil:
		return 0, 0, nil
	case v > uint64(o.n):
		return 0, 0, newFieldError(o.path, pos, ErrRange, "length %d exceeds maxlen %d", v, o.n)
	case int(v) == nb:
		return 0, 0, newFieldError(o.path, pos, ErrRange, "new length %d is the base's (not canonical)", v)
	}
	n = int(v)
	if n > nb {
		work, bytes := slotsCharge(n - nb)
		if err := d.charge(work, bytes, n-nb, slotBytes, pos); err != nil {
			return 0, 0, err.withPrefix(o.path)
		}
		if n > at.sliceCap() || d.undo != nil && d.entry > 0 {
			d.grow(n, ptrSize)
		}
	}
	if d.undo != nil {
		d.saveSlice(at)
		switch {
		case n <= nb:
			at.setSliceLenWithin(n)
			d.emptied(at)
		case n > at.sliceCap() || d.entry > 0:
			at.growSliceTo(o.typ, nb, n)
		default:
			at.setSliceLenWithin(n)
			return n, nb, nil
		}
		return n, n, nil
	}
	for k := n; k < nb; k++ {
		d.dropSlot(o, sparseSlot(o, at, k))
	}
	at.setSliceLen(o.typ, n)
	for k := nb; k < n; k++ {
		d.dropSlot(o, sparseSlot(o, at, k))
	}
	return n, n, nil
}

// dropSlot empties a sparse slot: in the scratch value, keeping its
// pointee as a spare; in place, saving it.
func (d *decoder) dropSlot(o *op, slot pointer) {
	e := slot.elem()
	if e.isNil() {
		return
	}
	if d.undo != nil {
		d.saveWord(slot)
	} else {
		d.scratch.putSpare(o.elem, e)
	}
	slot.setNil()
}

// staleSlotDelta reads slot k of the sparse slice o at at, a slot it
// regained within its capacity in place (see sparseLength), which the
// delta sends whole: into the slot's old pointee, as Unmarshal would, once
// the delta is accepted (see laterPointee); into a new one when it has
// none.
func (d *decoder) staleSlotDelta(o *op, at pointer, k, pos, depth int) *fieldError {
	slot := sparseSlot(o, at, k)
	old := slot.elem()
	if old.isNil() {
		return d.sparseSlotDelta(o, at, k, pos, depth)
	}
	work, bytes := sparseElemCharge(o)
	if err := d.charge(work, bytes, 1, o.elem.size, pos); err != nil {
		return err.withPrefix(elemPath(o.path, k))
	}
	tmp, ok := d.scratch.takeSpare(o.elem)
	if !ok {
		tmp = newValue(o.elem)
		d.grow(1, o.elem.typ.Size())
	}
	d.later(laterStep{kind: laterPointee, o: o, dst: old, src: tmp})
	if err := d.sub(o.elem, o.level, tmp, depth); err != nil {
		return err.withPrefix(elemPath(o.path, k))
	}
	return nil
}

// sparseSlotDelta reads the change of slot k of the sparse field o at at.
func (d *decoder) sparseSlotDelta(o *op, at pointer, k, pos, depth int) *fieldError {
	r := d.r
	slot := sparseSlot(o, at, k)
	e := slot.elem()
	switch {
	case e.isNil(): // appears
		work, bytes := sparseElemCharge(o)
		if err := d.charge(work, bytes, 1, uintptr(o.elem.bytes), pos); err != nil {
			return err.withPrefix(elemPath(o.path, k))
		}
		d.saveWord(slot)
		var fresh bool
		if e, fresh = newPointee(d.scratch, o.elem, slot); fresh {
			d.grow(1, o.elem.typ.Size())
		}
		if err := d.sub(o.elem, o.level, e, depth); err != nil {
			return err.withPrefix(elemPath(o.path, k))
		}
		return nil
	case r.ReadBits(1) == 0: // vanishes
		if err := r.Err(); err != nil {
			return fromBitio(elemPath(o.path, k), pos, err)
		}
		d.dropSlot(o, slot)
		return nil
	}
	return d.deltaSub(o.elem, o.level, e, depth, o.path, k)
}

// cloneSparse copies a sparse field's elements into dst's own (see clone).
func cloneSparse(o *op, d, s pointer, sc *scratch, depth int) *cloneError {
	n := o.n
	if o.slice {
		n = s.sliceLen()
		d.setSliceLen(o.typ, n)
	}
	for k := 0; k < n; k++ {
		if err := clonePointee(o, sparseSlot(o, d, k), sparseSlot(o, s, k), sc, depth); err != nil {
			return err.in(elemPath(o.path, k))
		}
	}
	return nil
}

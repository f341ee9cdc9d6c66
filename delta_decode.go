package bitpack

import "github.com/bitpack-go/bitpack/bitio"

// The delta decoder: the scratch value holds a copy of the base (see
// clone), and the delta's changes are applied to it, field by field, by
// each kind (kind_*.go); commit then moves it into the caller's value, as
// for Unmarshal. Decoded into the base itself, the changes are made in
// place instead, each saved first (see delta_inplace.go: the save*
// calls). Every part the delta marks changed must change the value
// (a value has exactly one delta against a base), every index must be in
// range and increasing, and what the delta adds is charged against the
// packet's allowances before it is allocated or looped over.

// deltaRoot reads a delta's changed bit and, when set, its body, applying
// it to the value at at (a copy of the base).
func (d *decoder) deltaRoot(p *plan, at pointer) *fieldError {
	r := d.r
	if d.depth0+p.levels > MaxDepth {
		return newFieldError("", 0, ErrDepth, "type nests %d levels, more than %d", p.levels, MaxDepth)
	}
	if r.ReadBits(1) == 0 {
		return fromBitio("", 0, r.Err()) // an unchanged root is decoded by unmarshalDelta; here, an empty packet
	}
	changed, err := d.deltaSteps(p, at, d.depth0)
	if err != nil {
		return err
	}
	if !changed {
		return unchangedError("", 0)
	}
	return nil
}

// deltaBody reads the items of a value of p (see deltaEncoder.body) and
// applies them to the value at at. It reports whether anything changed.
func (d *decoder) deltaBody(p *plan, items []ditem, first int, at pointer, depth int) (bool, *fieldError) {
	r := d.r
	bit := len(items) > 1
	changed := false
	for i := range items {
		it := &items[i]
		start := r.BitsRead()
		var ch bool
		var err *fieldError
		path := it.path
		if it.n > 0 {
			ch, err = decodeUnrolledDelta(d, p, it, first, at, start, depth, bit)
		} else {
			o := &p.ops[first+it.op]
			path = o.path
			ch, err = d.deltaOp(o, at.field(o.offset), start, depth, bit)
		}
		if err == nil {
			if rerr := r.Err(); rerr != nil {
				err = fromBitio(path, start, rerr)
			}
		}
		if err != nil {
			return false, err
		}
		changed = changed || ch
	}
	return changed, nil
}

// deltaSteps is deltaBody for a whole value of p, run by p's delta
// program (see dstep): fixed-width fields decoded inline.
func (d *decoder) deltaSteps(p *plan, at pointer, depth int) (bool, *fieldError) {
	r := d.r
	steps := p.dsteps
	bit := len(steps) > 1
	changed := false
	for i := range steps {
		st := &steps[i]
		start := r.BitsRead()
		if st.kind == dsItem {
			it := &p.delta[st.item]
			var ch bool
			var err *fieldError
			path := it.path
			if it.n > 0 {
				ch, err = decodeUnrolledDelta(d, p, it, 0, at, start, depth, bit)
			} else {
				o := &p.ops[it.op]
				path = o.path
				ch, err = d.deltaOp(o, at.field(o.offset), start, depth, bit)
			}
			if err == nil {
				if rerr := r.Err(); rerr != nil {
					err = fromBitio(path, start, rerr)
				}
			}
			if err != nil {
				return false, err
			}
			changed = changed || ch
			continue
		}
		if bit && r.ReadBits(1) == 0 {
			if err := r.Err(); err != nil {
				return false, fromBitio(p.ops[st.op].path, start, err)
			}
			continue
		}
		changed = true
		if err := d.stepDelta(p, st, at.field(st.offset), start); err != nil {
			return false, err
		}
	}
	return changed, nil
}

// stepDelta reads the change of the fixed-width field st (its changed bit
// read) and stores the new value at at, which holds the base's: inline for
// the common fields, else by its kind.
func (d *decoder) stepDelta(p *plan, st *dstep, at pointer, start int) *fieldError {
	r := d.r
	old, ok := st.old(at)
	if !ok {
		return d.scalarDelta(p, st, at, start)
	}
	long := st.short == 0 || r.ReadBits(1) == 1
	n := int(st.short)
	if long {
		n = int(st.bits)
	}
	v := r.ReadBits(n)
	if err := r.Err(); err != nil {
		return fromBitio(p.ops[st.op].path, start, err)
	}
	d.saveBits(at, uintptr(st.size))
	return st.apply(p, at, old, long, v, start)
}

// scalarDelta is stepDelta for the fields its kind decodes (clamped or
// refused base values, unit=, 32-bit platforms' ints, bools).
func (d *decoder) scalarDelta(p *plan, st *dstep, at pointer, start int) *fieldError {
	_, err := decodeScalarDelta(d, &p.ops[st.op], at, start, false)
	if err == nil {
		if rerr := d.r.Err(); rerr != nil {
			err = fromBitio(p.ops[st.op].path, start, rerr)
		}
	}
	return err
}

// old returns the offset code of the base's value of the field st at at,
// or false when the field's kind must decode it (see scalarDelta).
func (st *dstep) old(at pointer) (uint64, bool) {
	if !st.quick || st.bits == 1 {
		return 0, false
	}
	if st.kind == accQ32 {
		c, ok := float32InRange(&st.q, st.lo, st.hi, *at.float32())
		return uint64(c), ok
	}
	c, ok := st.code(at.raw(uintptr(st.size)))
	return c ^ st.flip, ok
}

// apply checks the change of the field st at at from offset code old, as
// read — the long form's code v (wire bits), or the short form's
// difference v — and stores the new value.
func (st *dstep) apply(p *plan, at pointer, old uint64, long bool, v uint64, start int) *fieldError {
	var c uint64 // the new offset code
	if long {
		c = v ^ st.flip
		if st.short > 0 && c != old && c <= st.limit && isShort(c, old, int(st.short)) {
			return newFieldError(p.ops[st.op].path, start, ErrRange, "code %d is within %d of the base's %d: the short form carries it (not canonical)", c, 1<<(st.short-1), old)
		}
	} else {
		h := uint64(1) << (st.short - 1)
		switch {
		case v < h && old >= h-v:
			c = old - (h - v)
		case v >= h && old <= st.limit-(v-h+1):
			c = old + (v - h + 1)
		default: // out of range (st.limit + 1 would wrap for 64-bit codes)
			return shortFormOutside(&p.ops[st.op], old, v, int(st.short), start)
		}
	}
	switch {
	case c == old:
		return unchangedError(p.ops[st.op].path, start)
	case c > st.limit:
		return st.codeOutside(p, at, c, start)
	}
	if st.kind == accQ32 {
		*at.float32() = st.q.Dequantize(uint32(c))
	} else {
		at.storeUint(uintptr(st.size), c+st.min)
	}
	return nil
}

// codeOutside refuses the long form's offset code c, above st.limit, as
// the field's kind refuses it (storeScalar, which stores nothing then):
// the same words as decodeScalarDelta's (see shortFormOutside). Out of
// line: the error path of apply.
//
//go:noinline
func (st *dstep) codeOutside(p *plan, at pointer, c uint64, start int) *fieldError {
	return storeScalar(&p.ops[st.op], c^st.flip, at, start)
}

// deltaOp reads and applies the delta of one field, by its kind. With
// bit, the field has a changed bit; without, it is the value's only item
// and it changed. A read past the packet's end leaves r failed, which
// deltaBody reports.
func (d *decoder) deltaOp(o *op, at pointer, start, depth int, bit bool) (bool, *fieldError) {
	switch o.kind {
	case KindBool, KindInt, KindUint, KindFloat, KindCompressedFloat, KindTime:
		return decodeScalarDelta(d, o, at, start, bit)
	case KindQuat:
		return decodeQuatDelta(d, o, at, start, bit)
	case KindString:
		return decodeStringDelta(d, o, at, start, bit)
	case KindBytes:
		return decodeBytesDelta(d, o, at, start, bit)
	case KindByteArray:
		return decodeByteArrayDelta(d, o, at, start, bit)
	case KindArray:
		return decodeArrayDelta(d, o, at, start, depth, bit)
	case KindSlice:
		return decodeSliceDelta(d, o, at, start, depth, bit)
	case KindPointer:
		return decodePointerDelta(d, o, at, start, depth, bit)
	case KindSparse:
		return decodeSparseDelta(d, o, at, start, depth, bit)
	case KindUnion:
		return decodeUnionDelta(d, o, at, start, depth, bit)
	case KindCustom:
		return decodeHookDelta(d, o, at, start, depth, bit)
	case KindMap:
		return decodeMapDelta(d, o, at, start, depth, bit)
	}
	return false, nil
}

// changedBit reads a field's changed bit, when it has one: whether its
// part follows. A failed read reports false (deltaBody reports the error).
func (d *decoder) changedBit(bit bool) bool {
	return !bit || d.r.ReadBits(1) == 1
}

// deltaSub reads the body of a value of p at at, held by a field at
// struct level level of a plan at depth (a pointee, an element, a union
// member), refusing nesting past MaxDepth; the body must change the
// value. path, and k when it is not -1 (an element's index), name the
// value in errors (made only then: a path per element would allocate).
func (d *decoder) deltaSub(p *plan, level int, at pointer, depth int, path string, k int) *fieldError {
	start := d.r.BitsRead()
	dd := depth + level
	var err *fieldError
	if dd+p.levels > MaxDepth {
		err = newFieldError("", start, ErrDepth, "more than %d nested levels", MaxDepth)
	} else if changed, berr := d.deltaSteps(p, at, dd); berr != nil {
		err = berr
	} else if !changed {
		err = unchangedError("", start)
	}
	if err != nil && k >= 0 {
		return err.withPrefix(elemPath(path, k))
	}
	if err != nil {
		return err.withPrefix(path)
	}
	return nil
}

// list reads a list of changed elements among the first m of o (see
// deltaEncoder.list) and applies each to its element at first. It
// reports whether it listed any.
func (d *decoder) list(o *op, first pointer, m, depth int) (bool, *fieldError) {
	r := d.r
	flat := o.elem.flat
	if dd := depth + o.level; flat && dd+o.elem.levels > MaxDepth {
		return false, newFieldError(elemPath(o.path, 0), r.BitsRead(), ErrDepth, "more than %d nested levels", MaxDepth)
	}
	prev := int32(-1)
	for {
		start := r.BitsRead()
		idx := r.ReadIntRelative(prev)
		if err := r.Err(); err != nil {
			return false, fromBitio(o.path, start, err)
		}
		if int(idx) > m {
			return false, newFieldError(o.path, start, ErrRange, "element index %d out of range for %d elements", idx, m)
		}
		if int(idx) == m {
			return prev >= 0, nil
		}
		k := int(idx)
		var err *fieldError
		if flat {
			if err = d.flatElem(o.elem, first.index(k, o.stride)); err != nil {
				err.withPrefix(elemPath(o.path, k))
			}
		} else {
			err = d.deltaSub(o.elem, o.level, first.index(k, o.stride), depth, o.path, k)
		}
		if err != nil {
			return false, err
		}
		prev = idx
	}
}

// flatElem is deltaSteps for an element whose delta program is fixed-width
// fields only (see plan.flat), which must change: its bits are read into a
// window up to 56 at a time, not a ReadBits per field.
func (d *decoder) flatElem(p *plan, at pointer) *fieldError {
	r := d.r
	steps := p.dsteps
	bit := len(steps) > 1
	elemStart := r.BitsRead()
	var w window
	w.fill(r)
	changed := false
	for j := range steps {
		st := &steps[j]
		pos := r.BitsRead() - w.n // where the field starts
		if bit {
			if w.n < 1 {
				w.fill(r)
			}
			if w.n < 1 {
				w.done(r)
				r.ReadBits(1) // past the end: the Reader words it
				return fromBitio(p.ops[st.op].path, pos, r.Err())
			}
			if w.take(1) == 0 {
				continue
			}
		}
		changed = true
		fa := at.field(st.offset)
		need := 1 + int(max(st.short, st.bits))
		if w.n < need {
			w.fill(r)
		}
		if !st.quick || st.bits == 1 || w.n < need { // its kind decodes it, or the packet ends: through the Reader
			w.done(r)
			if err := d.scalarDelta(p, st, fa, pos); err != nil {
				return err
			}
			w.fill(r)
			continue
		}
		body := r.BitsRead() - w.n // after the changed bit
		long := st.short == 0 || w.take(1) == 1
		n := int(st.short)
		if long {
			n = int(st.bits)
		}
		v := w.take(n)
		if long && st.kind == accQ32 && v <= st.limit {
			if f := st.q.Dequantize(uint32(v)); st.farApart(f, *fa.float32()) {
				d.saveBits(fa, 4)
				*fa.float32() = f // far from the base's: not its code, nor within the short form's reach
				continue
			}
		}
		old, ok := st.old(fa)
		if !ok { // the base's value: its kind decides
			w.done(r)
			r.Rewind(body)
			if err := d.scalarDelta(p, st, fa, pos); err != nil {
				return err
			}
			w.fill(r)
			continue
		}
		d.saveBits(fa, uintptr(st.size))
		if err := st.apply(p, fa, old, long, v, pos); err != nil {
			w.done(r)
			return err
		}
	}
	w.done(r)
	if !changed {
		return unchangedError("", elemStart)
	}
	return nil
}

// window holds bits a Reader has read and a decode has not used yet: the
// Reader is after them, and done puts them back.
type window struct {
	v uint64
	n int
}

// fill puts the window's bits back and reads up to 56 anew.
func (w *window) fill(r *bitio.Reader) {
	r.Rewind(r.BitsRead() - w.n)
	w.n = min(56, r.BitsRemaining())
	w.v = r.ReadBits(w.n)
}

// take uses the next k bits (k <= n).
func (w *window) take(k int) uint64 {
	x := w.v & (1<<k - 1)
	w.v >>= k
	w.n -= k
	return x
}

// done puts the unused bits back.
func (w *window) done(r *bitio.Reader) {
	r.Rewind(r.BitsRead() - w.n)
	w.v, w.n = 0, 0
}

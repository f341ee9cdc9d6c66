package bitpack

import (
	"math"

	"github.com/bitpack-go/bitpack/bitio"
)

// The delta encoder: walks a plan's delta items over v and base side by
// side, writing for each item its changed bit and, when it changed, what
// its kind sends (kind_*.go). Whether a container changed is known only
// once its parts are compared, so its bits are written as if it had, and
// rewound when nothing did.

// deltaEncoder writes one delta.
type deltaEncoder struct {
	w *bitio.Writer
	// check counts what the decoder will charge against its allowances for
	// what the delta adds (new elements, pointees, strings, members): the
	// sum is checked against the packet's allowances at the end (see
	// allowance), which is the decoder's verdict, since its charges only
	// grow and its limits are fixed for the packet.
	check allowanceCheck
}

// charge counts a charge the decoder makes.
func (e *deltaEncoder) charge(work, bytes int64) {
	e.check.budget.work = satAdd(e.check.budget.work, work)
	e.check.budget.bytes = satAdd(e.check.budget.bytes, bytes)
}

// full counts what the decoder charges for the variable parts of a value
// of p sent whole (its fixed part is its container's charge).
func (e *deltaEncoder) full(p *plan, at pointer, depth int) {
	_ = e.check.value(p, at, depth) // the budget saturates instead of refusing
}

// allowance refuses the delta if its decoder would, for claiming more
// than its bits pay for: what it charged, with what hooks' encodes
// counted, against the allowances of the packet's whole bytes.
func (e *deltaEncoder) allowance() *fieldError {
	bits := (e.w.BitsWritten() + 7) &^ 7
	f := frameOfWriter(e.w)
	b := budgetFor(bits)
	b.bytes = decodeOverheadBytes
	work, bytes := satAdd(e.check.budget.work, f.Work), satAdd(e.check.budget.bytes, f.Bytes)
	if work > b.workLimit-b.work {
		return newFieldError("", -1, ErrRange, "what the delta adds, %d values, would take its decode past the %d values it may visit for this input (4096 plus 64 per bit): the delta claims more values than its bits can pay for", work, b.workLimit)
	}
	if bytes > b.bytesLimit-b.bytes {
		return newFieldError("", -1, ErrRange, "what the delta adds, %d bytes, would take its decode past the %d bytes it may allocate for this input (1 MiB plus 64 bytes per bit)", bytes, b.bytesLimit)
	}
	return nil
}

// root writes the delta of the value at v against the one at b: its
// changed bit, then its body.
func (e *deltaEncoder) root(p *plan, v, b pointer) *fieldError {
	if p.levels > MaxDepth {
		return newFieldError("", -1, ErrDepth, "type nests %d levels, more than %d", p.levels, MaxDepth)
	}
	w := e.w
	if v.sameBytes(b, p.size) {
		w.WriteBits(0, 1)
		return nil
	}
	w.WriteBits(1, 1)
	changed, err := e.steps(p, v, b, 0)
	if err != nil {
		return err
	}
	if !changed {
		w.Rewind(0)
		w.WriteBits(0, 1)
	}
	return nil
}

// body writes the items of a value of p against its base: for each, a
// changed bit (none when there is one item: it is the one that changed)
// and, when it changed, its kind's part. first is the index of the
// items' first op. It reports whether anything changed; when nothing did,
// what it wrote is all zero bits, which the caller rewinds.
func (e *deltaEncoder) body(p *plan, items []ditem, first int, v, b pointer, depth int) (bool, *fieldError) {
	bit := len(items) > 1
	changed := false
	for i := range items {
		it := &items[i]
		var ch bool
		var err *fieldError
		if it.n > 0 {
			ch, err = encodeUnrolledDelta(e, p, it, first, v, b, depth, bit)
		} else if o := &p.ops[first+it.op]; kinds[o.kind].fixed {
			ch, err = encodeScalarDelta(e, o, v.field(o.offset), b.field(o.offset), bit)
		} else {
			ch, err = e.op(o, v.field(o.offset), b.field(o.offset), depth, bit)
		}
		if err != nil {
			return false, err
		}
		changed = changed || ch
	}
	return changed, nil
}

// steps writes the body of a value of p (its items: see body) with p's
// delta program: fixed-width fields coded inline, one loop, no call per
// field; other items by their kinds.
func (e *deltaEncoder) steps(p *plan, v, b pointer, depth int) (bool, *fieldError) {
	w := e.w
	steps := p.dsteps
	bit := len(steps) > 1
	var head uint64 // a changed field's changed bit, when it has one
	hn := 0
	if bit {
		head, hn = 1, 1
	}
	changed := false
	for i := range steps {
		st := &steps[i]
		if st.kind == dsItem {
			it := &p.delta[st.item]
			var ch bool
			var err *fieldError
			if it.n > 0 {
				ch, err = encodeUnrolledDelta(e, p, it, 0, v, b, depth, bit)
			} else {
				o := &p.ops[it.op]
				ch, err = e.op(o, v.field(o.offset), b.field(o.offset), depth, bit)
			}
			if err != nil {
				return false, err
			}
			changed = changed || ch
			continue
		}
		at, bt := v.field(st.offset), b.field(st.offset)
		var cv, cb uint64
		var okv, okb bool
		if st.kind == accQ32 { // the common case, inline
			fv, fb := *at.float32(), *bt.float32()
			if math.Float32bits(fv) == math.Float32bits(fb) {
				w.WriteBits(0, hn)
				continue
			}
			c1, ok1 := float32InRange(&st.q, st.lo, st.hi, fv)
			c2, ok2 := float32InRange(&st.q, st.lo, st.hi, fb)
			cv, okv, cb, okb = uint64(c1), ok1, uint64(c2), ok2
		} else {
			rv, rb := at.raw(uintptr(st.size)), bt.raw(uintptr(st.size))
			if rv == rb {
				w.WriteBits(0, hn)
				continue
			}
			cv, okv = st.code(rv)
			cb, okb = st.code(rb)
		}
		if !okv || !okb { // clamped, or refused: the kind decides
			ch, err := encodeScalarDelta(e, &p.ops[st.op], at, bt, bit)
			if err != nil {
				return false, err
			}
			changed = changed || ch
			continue
		}
		if cv == cb {
			w.WriteBits(0, hn)
			continue
		}
		changed = true
		if st.short == 0 || st.wide {
			st.emit(w, cv, cb, head, hn)
			continue
		}
		// emit's short and long forms, inline (the codes are checked, so
		// each fits its width; see formColumn for dh, which a code of 64
		// bits, wide, would wrap).
		h := uint64(1) << (st.short - 1)
		if dh := (cv ^ st.flip) - (cb ^ st.flip) + h; dh <= 2*h {
			w.WriteBitsUnchecked(head|(dh-b2u(dh > h))<<(hn+1), hn+1+int(st.short))
		} else {
			w.WriteBitsUnchecked(head|1<<hn, hn+1)
			w.WriteBitsUnchecked(cv, int(st.bits))
		}
	}
	return changed, nil
}

// emit writes the field st codes, changed from wire code cb to cv, after
// its changed bit (head, hn bits: none when the field is its value's only
// item).
func (st *dstep) emit(w *bitio.Writer, cv, cb, head uint64, hn int) {
	switch {
	case st.bits == 1:
		w.WriteBits(head, hn)
	case st.short == 0:
		w.WriteBits(head, hn)
		w.WriteBits(cv, int(st.bits))
	default:
		if c, ok := shortDelta(cv^st.flip, cb^st.flip, int(st.short)); ok {
			w.WriteBits(head|c<<(hn+1), hn+1+int(st.short))
		} else {
			w.WriteBits(head|1<<hn, hn+1)
			w.WriteBits(cv, int(st.bits))
		}
	}
}

// op writes the delta of one field, by its kind.
func (e *deltaEncoder) op(o *op, at, bt pointer, depth int, bit bool) (bool, *fieldError) {
	switch o.kind {
	case KindBool, KindInt, KindUint, KindFloat, KindCompressedFloat, KindTime:
		return encodeScalarDelta(e, o, at, bt, bit)
	case KindQuat:
		return encodeQuatDelta(e, o, at, bt, bit)
	case KindString:
		return encodeStringDelta(e, o, at, bt, bit)
	case KindBytes:
		return encodeBytesDelta(e, o, at, bt, bit)
	case KindByteArray:
		return encodeByteArrayDelta(e, o, at, bt, bit)
	case KindArray:
		return encodeArrayDelta(e, o, at, bt, depth, bit)
	case KindSlice:
		return encodeSliceDelta(e, o, at, bt, depth, bit)
	case KindPointer:
		return encodePointerDelta(e, o, at, bt, depth, bit)
	case KindSparse:
		return encodeSparseDelta(e, o, at, bt, depth, bit)
	case KindUnion:
		return encodeUnionDelta(e, o, at, bt, depth, bit)
	case KindCustom:
		return encodeHookDelta(e, o, at, bt, depth, bit)
	case KindMap:
		return encodeMapDelta(e, o, at, bt, depth, bit)
	}
	return false, nil // checks: never in a delta (see ditem)
}

// begin starts the part of a field whose change is known only once it is
// written: its changed bit, when it has one, as 1. It returns where the
// field starts.
func (e *deltaEncoder) begin(bit bool) int {
	start := e.w.BitsWritten()
	if bit {
		e.w.WriteBits(1, 1)
	}
	return start
}

// unchanged takes back what a field wrote since start: it did not change
// after all. It leaves the field's changed bit, 0, when it has one.
func (e *deltaEncoder) unchanged(start int, bit bool) (bool, *fieldError) {
	e.w.Rewind(start)
	if bit {
		e.w.WriteBits(0, 1)
	}
	return false, nil
}

// same writes the changed bit of a field known to be unchanged.
func (e *deltaEncoder) same(bit bool) (bool, *fieldError) {
	if bit {
		e.w.WriteBits(0, 1)
	}
	return false, nil
}

// sub writes the body of a value of p at v against b, held by a field at
// struct level level of a plan at depth (a pointee, an element, a union
// member), refusing nesting past MaxDepth.
func (e *deltaEncoder) sub(p *plan, level int, v, b pointer, depth int) (bool, *fieldError) {
	d := depth + level
	if d+p.levels > MaxDepth {
		return false, newFieldError("", -1, ErrDepth, "more than %d nested levels (a cycle?)", MaxDepth)
	}
	if v.sameBytes(b, p.size) {
		return false, nil
	}
	return e.steps(p, v, b, d)
}

// list writes the changed ones among the first m elements of o (an array,
// a slice, a map's values) at vf and bf: each its index as int_relative
// from the previous (from -1), then its body; then the end marker
// int_relative(previous, m). It reports whether it listed any.
func (e *deltaEncoder) list(o *op, vf, bf pointer, m, depth int) (bool, *fieldError) {
	if m > deltaIndexLimit {
		return false, newFieldError(o.path, -1, ErrRange, "%d elements: a delta names at most %d by index", m, deltaIndexLimit)
	}
	w := e.w
	dd := depth + o.level
	if dd+o.elem.levels > MaxDepth {
		return false, newFieldError(elemPath(o.path, 0), -1, ErrDepth, "more than %d nested levels (a cycle?)", MaxDepth)
	}
	p := o.elem
	if p.flat {
		return e.listFlat(o, vf, bf, m, dd)
	}
	prev := int32(-1)
	for k := 0; k < m; k++ {
		ev, eb := vf.index(k, o.stride), bf.index(k, o.stride)
		if ev.sameBytes(eb, o.stride) {
			continue
		}
		pos := w.BitsWritten()
		w.WriteIntRelative(prev, int32(k))
		ch, err := e.steps(p, ev, eb, dd)
		if err != nil {
			return false, err.withPrefix(elemPath(o.path, k))
		}
		if !ch {
			w.Rewind(pos)
			continue
		}
		prev = int32(k)
	}
	w.WriteIntRelative(prev, int32(m))
	return prev >= 0, nil
}

// flatCodes is the size of listFlat's code buffers (two of 8 KiB, on the
// stack), and flatChunk the most elements it codes at once.
const (
	flatCodes = 1024
	flatChunk = 64
)

// listFlat is list for elements whose delta program is fixed-width fields
// only (see plan.flat), a chunk of elements at a time, as encodeColumns
// encodes them: the elements whose bytes differ from the base's are
// gathered, then every field's bits in the delta (see formColumn) are
// computed for all of them a field at a time (a tight loop of independent
// quantizations, which the CPU overlaps, instead of a branch on each
// result), and only then are the changed elements written, each its
// fields' bits gathered into a word. An element whose field its kind must
// code (clamped, or refused, or wide) is written by steps, which decides.
func (e *deltaEncoder) listFlat(o *op, vf, bf pointer, m, dd int) (bool, *fieldError) {
	w := e.w
	p := o.elem
	steps := p.dsteps
	chunk := min(flatCodes/len(steps), flatChunk)
	var idx [flatChunk]int32
	var marks [flatChunk]uint8 // per element: markChanged, markSlow
	var bits, nbits [flatCodes]uint64
	prev := int32(-1)
	for k0 := 0; k0 < m; {
		var n int
		n, k0 = differing(vf, bf, o.stride, k0, m, idx[:chunk])
		for j := range steps {
			st, cv, cb := &steps[j], bits[j*n:j*n+n], nbits[j*n:j*n+n]
			flatColumn(st, vf, bf, o.stride, idx[:n], cv, cb, marks[:n])
			formColumn(st, cv, cb, marks[:n])
		}
		for k := 0; k < n; k++ {
			i, mark := idx[k], marks[k]
			marks[k] = 0
			if mark == 0 {
				continue
			}
			if mark&markSlow != 0 {
				ev, eb := vf.index(int(i), o.stride), bf.index(int(i), o.stride)
				pos := w.BitsWritten()
				w.WriteIntRelative(prev, i)
				ch, err := e.steps(p, ev, eb, dd)
				if err != nil {
					return false, err.withPrefix(elemPath(o.path, int(i)))
				}
				if !ch {
					w.Rewind(pos)
					continue
				}
				prev = i
				continue
			}
			// The element's bits gather in a word, acc (every code was
			// checked against its field, so each fits its width), written
			// out when the next field's bits would not fit. (Locals, not a
			// struct a call takes the address of, which would keep them in
			// memory, every field a load and a store.)
			var acc, accn uint64
			if i == prev+1 {
				acc, accn = 1, 1 // int_relative of the next index
			} else {
				w.WriteIntRelative(prev, i)
			}
			prev = i
			for j := k; j < len(steps)*n; j += n {
				if accn+nbits[j] > 64 {
					w.WriteBitsUnchecked(acc, int(accn))
					acc, accn = 0, 0
				}
				acc |= bits[j] << (accn & 63)
				accn += nbits[j]
			}
			w.WriteBitsUnchecked(acc, int(accn))
		}
	}
	w.WriteIntRelative(prev, int32(m))
	return prev >= 0, nil
}

// differing gathers into idx the indices, from k0 up, of the elements of
// the first m at vf (stride bytes apart) whose bytes differ from the
// base's at bf, until idx is full; it returns how many it gathered and
// where it stopped. (A function of its own, so that its loop keeps its
// variables in registers.)
func differing(vf, bf pointer, stride uintptr, k0, m int, idx []int32) (int, int) {
	n := 0
	if stride < 8 || stride > 64 {
		for ; k0 < m && n < len(idx); k0++ {
			if !vf.index(k0, stride).sameBytes(bf.index(k0, stride), stride) {
				idx[n] = int32(k0)
				n++
			}
		}
		return n, k0
	}
	for ; k0 < m && n < len(idx); k0++ {
		if !vf.index(k0, stride).sameWords(bf.index(k0, stride), stride) {
			idx[n] = int32(k0)
			n++
		}
	}
	return n, k0
}

// Marks of an element in listFlat: a field changed; a field its kind
// must code (steps writes the element).
const (
	markChanged = 1 << iota
	markSlow
)

// flatColumn codes field st of the elements idx of v and base into cv
// and cb, as offset codes (before the flip of intCode; a field the same in
// memory as equal codes), and marks the
// elements whose field its kind must code (markSlow). Each column is a
// loop of its own, and so is formColumn, and they mark elements in
// memory, not in a mask: loops that keep their few variables in registers
// run several times faster than one that does it all and spills.
func flatColumn(st *dstep, vf, bf pointer, stride uintptr, idx []int32, cv, cb []uint64, marks []uint8) {
	vf, bf = vf.field(st.offset), bf.field(st.offset)
	cv, cb, marks = cv[:len(idx)], cb[:len(idx)], marks[:len(idx)]
	if st.kind == accQ32 {
		q, lo, hi := &st.q, st.lo, st.hi
		for k, i := range idx {
			fv, fb := *vf.index(int(i), stride).float32(), *bf.index(int(i), stride).float32()
			if math.Float32bits(fv) == math.Float32bits(fb) {
				// Unchanged: no codes needed (quantized values that did
				// not move are equal).
				cv[k], cb[k] = 0, 0
				continue
			}
			if !(fv >= lo && fv <= hi && fb >= lo && fb <= hi) {
				cv[k], cb[k] = 0, 0
				marks[k] |= markSlow
				continue
			}
			cv[k], cb[k] = uint64(q.QuantizeInRange(fv)), uint64(q.QuantizeInRange(fb))
		}
		return
	}
	switch st.kind {
	case accU8:
		flatInts[uint8](st, vf, bf, stride, idx, cv, cb, marks)
	case accU16:
		flatInts[uint16](st, vf, bf, stride, idx, cv, cb, marks)
	case accU32:
		flatInts[uint32](st, vf, bf, stride, idx, cv, cb, marks)
	case accI8:
		flatInts[int8](st, vf, bf, stride, idx, cv, cb, marks)
	case accI16:
		flatInts[int16](st, vf, bf, stride, idx, cv, cb, marks)
	case accI32:
		flatInts[int32](st, vf, bf, stride, idx, cv, cb, marks)
	default: // accU64, accI64
		flatInts[uint64](st, vf, bf, stride, idx, cv, cb, marks)
	}
	if st.wide { // a changed wide field: steps writes it
		for k := range cv {
			if cv[k] != cb[k] {
				marks[k] |= markSlow
			}
		}
	}
}

// flatInts is flatColumn for an integer field loaded as a T (converting a
// signed T to uint64 sign-extends it, as intCode wants) at vf and bf.
func flatInts[T uint8 | uint16 | uint32 | uint64 | int8 | int16 | int32](st *dstep, vf, bf pointer, stride uintptr, idx []int32, cv, cb []uint64, marks []uint8) {
	min, limit, flip := st.min, st.limit, st.flip
	cv, cb, marks = cv[:len(idx)], cb[:len(idx)], marks[:len(idx)]
	for k, i := range idx {
		c1, ok1 := intCode(uint64(loadAs[T](vf.index(int(i), stride))), min, limit, flip)
		c2, ok2 := intCode(uint64(loadAs[T](bf.index(int(i), stride))), min, limit, flip)
		cv[k], cb[k] = c1^flip, c2^flip
		if !ok1 || !ok2 {
			marks[k] |= markSlow
		}
	}
}

// formColumn turns the offset codes cv (the value's) and cb (the
// base's) of a field st into its bits in the delta and their number, in
// place (what emit writes, with few variables, which the loop keeps in
// registers), and marks the elements where the field changed. A field
// with a short form branches on the form: runs of elements take the same
// way (a field that does not change, elements that move a little,
// elements shifted by one), which the CPU predicts, and a branch does
// less than computing every form and picking one (measured: 10% of the
// whole gamestate delta).
func formColumn(st *dstep, cv, cb []uint64, marks []uint8) {
	cb, marks = cb[:len(cv)], marks[:len(cv)]
	lmul, hn := uint64(1)<<(st.ls&63), uint64(st.hn)
	if st.short == 0 || st.wide {
		pre, cmask, lw, flip := st.pre, st.cmask, uint64(st.lw), st.flip
		for k := range cv {
			x, y := cv[k], cb[k]
			v, n := pre|((x^flip)&cmask)*lmul, lw
			if x == y {
				v, n = 0, hn
			}
			marks[k] |= uint8(b2u(x != y))
			cv[k], cb[k] = v, n
		}
		return
	}
	// The long form is pre | c<<ls for the wire code c = x^flip, which is
	// x<<ls ^ (pre | flip<<ls): pre lies below ls. The short form (see
	// shortDelta) sends d = x - y in [-h, h] as d + h when negative,
	// d + h - 1 when positive: dh = d + h, less one when above h.
	long := st.pre ^ st.flip*lmul
	smul := uint64(1) << (st.hn + 1)
	h := uint64(1) << (st.short - 1)
	sw, lw := uint64(st.sw), uint64(st.lw)
	for k := range cv {
		x := cv[k]
		dh := x - cb[k] + h
		switch {
		case dh == h:
			cv[k], cb[k] = 0, hn
		case dh <= 2*h:
			cv[k], cb[k] = hn|(dh-b2u(dh > h))*smul, sw
			marks[k] |= markChanged
		default:
			cv[k], cb[k] = x*lmul^long, lw
			marks[k] |= markChanged
		}
	}
}

// b2u is 1 for true, 0 for false.
func b2u(b bool) uint64 {
	var v uint64
	if b {
		v = 1
	}
	return v
}

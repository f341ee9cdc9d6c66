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
			cv, okv = uint64(c1), ok1
			if st.farApart(fv, fb) {
				cb, okb = cv+1<<40, true // a long form, whatever the base's code
			} else {
				c2, ok2 := float32InRange(&st.q, st.lo, st.hi, fb)
				cb, okb = uint64(c2), ok2
			}
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
		st.emit(w, cv, cb, head, hn)
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
	case KindBool, KindInt, KindUint, KindFloat, KindCompressedFloat:
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
// gathered, then every field's codes are computed for all of them a field
// at a time (a tight loop of independent quantizations, which the CPU
// overlaps, instead of a branch on each result), and only then are the
// changed ones written. An element whose field its kind must code
// (clamped, or refused) is written by steps, which decides.
func (e *deltaEncoder) listFlat(o *op, vf, bf pointer, m, dd int) (bool, *fieldError) {
	w := e.w
	p := o.elem
	steps := p.dsteps
	chunk := min(flatCodes/len(steps), flatChunk)
	var idx [flatChunk]int32
	var chg [flatChunk]uint64 // per element: bit j when field j changed, bit 63 when a kind must decide
	var cv, cb [flatCodes]uint64
	hn := 0 // a changed bit per field, unless there is one field
	if len(steps) > 1 {
		hn = 1
	}
	prev := int32(-1)
	for k0 := 0; k0 < m; {
		n := 0
		for ; k0 < m && n < chunk; k0++ {
			if !vf.index(k0, o.stride).sameBytes(bf.index(k0, o.stride), o.stride) {
				idx[n] = int32(k0)
				n++
			}
		}
		for j := range steps {
			flatColumn(&steps[j], j, vf, bf, o.stride, idx[:n], chg[:n], cv[j*n:j*n+n], cb[j*n:j*n+n])
		}
		for k := 0; k < n; k++ {
			c := chg[k]
			chg[k] = 0
			i := idx[k]
			if c == 0 {
				continue
			}
			ev, eb := vf.index(int(i), o.stride), bf.index(int(i), o.stride)
			if c>>63 != 0 {
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
			// The element's bits gather in a word (every code was checked
			// against its field, so each fits its width).
			var a bitAcc
			if i == prev+1 {
				a.put(w, 1, 1) // int_relative of the next index
			} else {
				w.WriteIntRelative(prev, i)
			}
			prev = i
			for j := range steps {
				st := &steps[j]
				changed := c >> j & 1
				if hn > 0 {
					a.put(w, changed, 1)
				}
				if changed == 0 || st.bits == 1 {
					continue
				}
				v := cv[j*n+k]
				if st.short > 0 {
					if e, ok := shortDelta(v^st.flip, cb[j*n+k]^st.flip, int(st.short)); ok {
						a.put(w, e<<1, uint(st.short)+1)
						continue
					}
					a.put(w, 1, 1)
				}
				a.put(w, v, uint(st.bits))
			}
			w.WriteBitsUnchecked(a.v, int(a.n))
		}
	}
	w.WriteIntRelative(prev, int32(m))
	return prev >= 0, nil
}

// flatColumn codes field j (step st) of the elements idx of v and base
// into cv and cb, and marks in chg the elements where it changed, or
// where its kind must decide.
func flatColumn(st *dstep, j int, vf, bf pointer, stride uintptr, idx []int32, chg, cv, cb []uint64) {
	if st.kind == accQ32 {
		q, lo, hi := &st.q, st.lo, st.hi
		for k, i := range idx {
			at, bt := vf.index(int(i), stride).field(st.offset), bf.index(int(i), stride).field(st.offset)
			fv, fb := *at.float32(), *bt.float32()
			if math.Float32bits(fv) == math.Float32bits(fb) {
				continue // unchanged: no codes needed (quantized values that did not move are equal)
			}
			c1, ok1 := float32InRange(q, lo, hi, fv)
			c2, ok2 := float32InRange(q, lo, hi, fb)
			cv[k], cb[k] = uint64(c1), uint64(c2)
			chg[k] |= flag(c1 != c2, uint(j)) | flag(!ok1 || !ok2, 63)
		}
		return
	}
	switch st.kind {
	case accU8:
		flatInts[uint8](st, j, vf, bf, stride, idx, chg, cv, cb)
	case accU16:
		flatInts[uint16](st, j, vf, bf, stride, idx, chg, cv, cb)
	case accU32:
		flatInts[uint32](st, j, vf, bf, stride, idx, chg, cv, cb)
	case accI8:
		flatInts[int8](st, j, vf, bf, stride, idx, chg, cv, cb)
	case accI16:
		flatInts[int16](st, j, vf, bf, stride, idx, chg, cv, cb)
	case accI32:
		flatInts[int32](st, j, vf, bf, stride, idx, chg, cv, cb)
	default: // accU64, accI64
		flatInts[uint64](st, j, vf, bf, stride, idx, chg, cv, cb)
	}
}

// flatInts is flatColumn for an integer field loaded as a T (converting a
// signed T to uint64 sign-extends it, as intCode wants).
func flatInts[T uint8 | uint16 | uint32 | uint64 | int8 | int16 | int32](st *dstep, j int, vf, bf pointer, stride uintptr, idx []int32, chg, cv, cb []uint64) {
	min, limit, flip := st.min, st.limit, st.flip
	for k, i := range idx {
		a := loadAs[T](vf.index(int(i), stride).field(st.offset))
		b := loadAs[T](bf.index(int(i), stride).field(st.offset))
		c1, ok1 := intCode(uint64(a), min, limit, flip)
		c2, ok2 := intCode(uint64(b), min, limit, flip)
		cv[k], cb[k] = c1, c2
		chg[k] |= flag(c1 != c2, uint(j)) | flag(!ok1 || !ok2, 63)
	}
}

// flag is 1<<j when b holds, else 0.
func flag(b bool, j uint) uint64 {
	var v uint64
	if b {
		v = 1
	}
	return v << (j & 63)
}

// bitAcc gathers bits into a word for one WriteBitsUnchecked, writing the
// word out first when the next bits would not fit. Every value put fits
// its width (at most 64 bits).
type bitAcc struct {
	v uint64
	n uint
}

func (a *bitAcc) put(w *bitio.Writer, v uint64, n uint) {
	if a.n+n > 64 {
		a.flush(w)
	}
	a.v |= v << (a.n & 63)
	a.n += n
}

// flush writes the gathered bits (out of line, so that put inlines).
//
//go:noinline
func (a *bitAcc) flush(w *bitio.Writer) {
	w.WriteBitsUnchecked(a.v, int(a.n))
	a.v, a.n = 0, 0
}

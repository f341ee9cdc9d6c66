package bitpack

import (
	"math/bits"
	"reflect"
)

// Commit: what a decode stored in its scratch value goes into the caller's
// value once the whole packet is accepted (see decode_loop.go). Fixed-width
// data is copied; what the caller's value can hold in memory it already
// has (a slice with the capacity, a non-nil pointer, the member a union
// field already holds) is filled in place, so steady-state decodes
// allocate nothing; anything else is handed over: the caller's value takes
// the scratch value's slice or pointee, settled (see settle) — a grown
// slice's array with the caller's old elements moved in, filled in place
// (see commitGrown) — and the scratch value lets go of it (it allocates
// again, paid for, when a later packet needs it). Commit itself never
// allocates — but for the elements of a slice that keep fields off the
// wire, which must keep the values they had: those grow in place, and
// their decode is charged twice (see elemsCharge).

// commit stores into dst what a decode of p stored into src.
func commit(p *plan, dst, src pointer) {
	if commitCopies(p, dst, src) {
		return
	}
	c := &p.commits
	for _, off := range c.strings {
		commitString(nil, dst.field(off), src.field(off))
	}
	if len(c.pointers) > 0 {
		commitPointers(c.pointers, dst, src)
	}
	for _, o := range c.slices {
		commitSlice(o, dst.field(o.offset), src.field(o.offset))
	}
	for _, i := range c.rest {
		o := &p.ops[i]
		d, s := dst.field(o.offset), src.field(o.offset)
		switch o.kind {
		case KindBytes:
			commitBytes(o, d, s)
		case KindArray:
			commitArray(o, d, s)
		case KindSparse:
			commitSparse(o, d, s)
		case KindUnion:
			commitUnion(o, d, s)
		case KindCustom:
			commitHook(o, d, s)
		case KindMap:
			commitMap(o, d, s)
		case KindTime:
			commitTime(o, d, s)
		}
	}
}

// commitSteps are the ops commit handles beyond the copies (p.others),
// grouped by kind: each kind is one loop, without a dispatch per op.
type commitSteps struct {
	strings  []offset // shared: strings are immutable
	pointers []pointerStep
	slices   []*op
	rest     []int // the other kinds, dispatched by kind
}

// pointerStep is a pointer field o for commit, at off; inline when its
// pointee is dense and of blockMin to blockMax bytes: one block, at 0 and
// last (see block).
type pointerStep struct {
	off    offset
	inline bool
	last   offset
	o      *op
}

// commitStepsOf groups p's other ops by kind (see commitSteps). It needs
// the plans of p's pointees finished (see compile).
func commitStepsOf(p *plan) commitSteps {
	var c commitSteps
	for _, i := range p.others {
		o := &p.ops[i]
		switch o.kind {
		case KindString:
			c.strings = append(c.strings, o.offset)
		case KindPointer:
			st := pointerStep{off: o.offset, o: o}
			if e := o.elem; e.dense && e.size >= blockMin && e.size <= blockMax {
				st.inline, st.last = true, offset{e.size - 16}
			}
			c.pointers = append(c.pointers, st)
		case KindSlice:
			c.slices = append(c.slices, o)
		default:
			c.rest = append(c.rest, i)
		}
	}
	return c
}

// commitPointers commits the pointer fields ptrs of the value at src into
// the one at dst: an inline pointee both hold (the steady state) copied
// as its block, in an inner loop without calls (with one in the loop, Go
// reloads the loop's values from the stack on every turn), any other by
// commitPointer.
func commitPointers(ptrs []pointerStep, dst, src pointer) {
	for len(ptrs) > 0 {
		k := 0
		for ; k < len(ptrs); k++ {
			st := &ptrs[k]
			de, se := dst.field(st.off).elem(), src.field(st.off).elem()
			if !st.inline || de.isNil() || se.isNil() {
				break
			}
			de.copyBlock(se, offset{}, st.last)
		}
		if k == len(ptrs) {
			return
		}
		st := &ptrs[k]
		commitPointer(st.o, dst.field(st.off), src.field(st.off))
		ptrs = ptrs[k+1:]
	}
}

// commitCopies copies into dst the bytes of the pointer-free data a
// decode of p stored into src, and reports whether that is all there is
// to commit (the plan is dense). It does not keep src or what it holds, so
// a scratch value on the stack stays there (see decodeFlat).
func commitCopies(p *plan, dst, src pointer) bool {
	for _, b := range p.copies.blocks {
		dst.copyBlock(src, b.at, b.last)
	}
	for _, b := range p.copies.smalls {
		dst.copySmall(src, b.at, b.last, b.width)
	}
	if len(p.copies.spans) > 0 {
		copySpans(p.copies.spans, dst, src)
	}
	return p.dense
}

// copySpans copies spans from the value at src to the one at dst. (A
// function of its own: with its calls to memmove in commitCopies, Go
// would save commitCopies' arguments on the stack even where there are no
// spans, as in most plans.)
func copySpans(spans []byteRange, dst, src pointer) {
	for _, c := range spans {
		dst.field(c.off).copyFrom(src.field(c.off), c.n)
	}
}

// byteCopies is how commit copies a plan's pointer-free bytes: a span of
// blockMin to spanBlocksMax bytes in blocks, the last one overlapping the
// one before; a shorter one as a small; a longer one by copy.
type byteCopies struct {
	blocks []block
	smalls []small
	spans  []byteRange
}

// A small is a span of 1 to blockMin-1 bytes that commit copies inline, as
// two moves of width bytes, the largest power of two it holds: at its
// start and at last, width bytes before its end.
type small struct {
	at, last offset
	width    uintptr
}

// A block is blockMin to blockMax bytes of pointer-free data that commit
// copies inline, as two 16-byte moves, at its start and at last, 16 bytes
// before its end (overlapping the first, or the same when it has 16):
// most spans are a few fields, or a small pointee, and memmove's call, with
// copy's checks before it, takes longer than the copy.
type block struct{ at, last offset }

const (
	blockMin      = 16
	blockMax      = 32
	spanBlocksMax = 256 // longer spans copy faster by memmove
)

// byteCopiesOf lays out the copies of spans.
func byteCopiesOf(spans []byteRange) byteCopies {
	var c byteCopies
	add := func(at offset, n uintptr) { c.blocks = append(c.blocks, block{at, at.skip(n - 16)}) }
	for _, sp := range spans {
		switch {
		case sp.n == 0:
			continue
		case sp.n < blockMin:
			w := uintptr(1) << (bits.Len(uint(sp.n)) - 1)
			c.smalls = append(c.smalls, small{sp.off, sp.off.skip(sp.n - w), w})
			continue
		case sp.n > spanBlocksMax:
			c.spans = append(c.spans, sp)
			continue
		}
		for k := uintptr(0); sp.n-k > blockMax; k += blockMax {
			add(sp.off.skip(k), blockMax)
		}
		last := min(sp.n, blockMax)
		add(sp.off.skip(sp.n-last), last)
	}
	return c
}

// isDense reports whether commit may copy p's value whole: its copy
// ranges are all there is (no strings, slices or pointers to follow), and
// the fields its ops write add up to every byte of every field of the type
// (padding left out on both sides), so that nothing outside them but
// padding exists — no field kept off the wire, bits:"-" or unexported,
// whose value a whole copy would overwrite. Ops never overlap, so the sum
// can only match when every field is written.
func isDense(p *plan) bool {
	if len(p.others) > 0 || hasPointers(p.typ) {
		return false
	}
	var written uintptr
	for i := range p.ops {
		o := &p.ops[i]
		switch {
		case kinds[o.kind].fixed, o.kind == KindQuat:
			written += o.size // a quaternion's four floats of one kind: no padding
		case o.kind == KindByteArray:
			written += uintptr(o.n)
		case o.kind == KindArray: // dense, or it would be in others
			written += uintptr(o.n) * fieldBytes(o.elem.typ)
		}
	}
	return written == fieldBytes(p.typ)
}

// isComplete reports whether decoding a value of p writes every byte of it
// (padding aside): each op's field whole — a slice or string header, a
// pointer, an interface, a hook's value — and the elements of arrays, when
// their plans are complete. Ops never overlap, so the sum can only match
// when no field is kept off the wire (bits:"-", unexported). Commit can
// then hand such values over instead of copying them into the caller's
// (see commitSlice): the caller had nothing in them of its own.
func isComplete(p *plan) bool {
	var written uintptr
	for i := range p.ops {
		o := &p.ops[i]
		switch o.kind {
		case KindByteArray:
			written += uintptr(o.n)
		case KindArray:
			if !o.elem.complete { // finished first (see finish)
				return false
			}
			written += uintptr(o.n) * fieldBytes(o.elem.typ)
		case KindCustom:
			written += fieldBytes(o.typ)
		case KindCheck:
		default:
			written += o.size
		}
	}
	return written == fieldBytes(p.typ)
}

// fieldBytes is the size of t without padding: the sum of its fields'.
func fieldBytes(t reflect.Type) uintptr {
	switch t.Kind() {
	case reflect.Struct:
		var n uintptr
		for i := 0; i < t.NumField(); i++ {
			n += fieldBytes(t.Field(i).Type)
		}
		return n
	case reflect.Array:
		return uintptr(t.Len()) * fieldBytes(t.Elem())
	}
	return t.Size()
}

// hasPointers reports whether a value of t holds any pointer.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// byteRange is a span of a value's bytes.
type byteRange struct {
	off offset
	n   uintptr
}

// commitRanges lists what commit copies for a flat plan: the byte spans of
// scalars, byte arrays, quaternions and arrays of dense elements
// (pointer-free, so copied raw — a dense array with its padding — and
// merged when only padding lies between: fewer, longer copies), and the
// ops that need more than a byte copy.
func commitRanges(p *plan) (copies []byteRange, others []int) {
	add := func(off offset, n uintptr) {
		if k := len(copies) - 1; k >= 0 {
			if end := copies[k].off.skip(copies[k].n); end.n <= off.n && paddingOnly(p.typ, end.n, off.n) {
				copies[k].n = off.n + n - copies[k].off.n
				return
			}
		}
		copies = append(copies, byteRange{off, n})
	}
	for i := range p.ops {
		o := &p.ops[i]
		switch {
		case kinds[o.kind].fixed, o.kind == KindQuat:
			add(o.offset, o.size)
		case o.kind == KindByteArray:
			add(o.offset, uintptr(o.n))
		case o.kind == KindArray && o.elem.dense: // finished first (see finish)
			add(o.offset, uintptr(o.n)*o.stride)
		case o.kind == KindCheck:
		default:
			others = append(others, i)
		}
	}
	return copies, others
}

// paddingOnly reports whether bytes from to to of a value of type t are
// padding, part of no field: copying them between two values changes
// nothing.
func paddingOnly(t reflect.Type, from, to uintptr) bool {
	if from >= to || t.Size() == 0 {
		return true
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if end := f.Offset + f.Type.Size(); f.Offset < to && from < end && !paddingOnly(f.Type, max(from, f.Offset)-f.Offset, min(to, end)-f.Offset) {
				return false
			}
		}
		return true
	case reflect.Array:
		es := t.Elem().Size()
		for k := from / es; k*es < to; k++ {
			if !paddingOnly(t.Elem(), max(from, k*es)-k*es, min(to, (k+1)*es)-k*es) {
				return false
			}
		}
		return true
	}
	return false
}

// release lets go of what the scratch value at base holds beyond its own
// memory: its strings, slices, pointees, union members and hook values.
func release(p *plan, base pointer) {
	for _, i := range p.others {
		o := &p.ops[i]
		at := base.field(o.offset)
		switch o.kind {
		case KindString:
			*at.string() = ""
		case KindBytes, KindSlice:
			at.clearSlice()
		case KindPointer:
			at.setNil()
		case KindSparse:
			if o.slice {
				at.clearSlice()
				continue
			}
			for k := 0; k < o.n; k++ {
				sparseSlot(o, at, k).setNil()
			}
		case KindUnion:
			at.clearIface()
		case KindMap:
			releaseMap(o, at)
		case KindCustom:
			if hasPointers(o.typ) {
				at.value(o.typ).Elem().SetZero()
			}
		case KindArray:
			for k := 0; k < o.n; k++ {
				release(o.elem, at.index(k, o.stride))
			}
		}
	}
}

// Empty slices. What a decode leaves in the caller's value is a function
// of the packet and of that value alone: a slice, []byte or map the
// packet leaves empty is the caller's own, cut to length 0 (a map:
// cleared), where the caller's value held a non-nil one, and nil where it
// held nil or nothing at all — an element past its slice's capacity, the
// pointee of a nil pointer, a union member of another type. The scratch
// value cannot say which: it keeps the capacity earlier packets gave its
// slices, so a place of it that the packet leaves empty may be nil or
// not. Commit decides from the caller's value (see commitBytes,
// commitSlice, commitMap), and what it hands over to a place where the
// caller's value held nothing it settles first.

// settle makes the value of p at at, which commit hands over from the
// scratch value to a place the caller's value held nothing in, what a
// decode into a zero value makes it: every empty slice, []byte and map in
// it nil.
func settle(p *plan, at pointer) {
	if !p.empties {
		return
	}
	for _, i := range p.others {
		o := &p.ops[i]
		f := at.field(o.offset)
		switch o.kind {
		case KindBytes:
			if f.sliceLen() == 0 {
				f.clearSlice()
			}
		case KindSlice:
			n := f.sliceLen()
			if n == 0 {
				f.clearSlice()
				continue
			}
			if o.elem.empties {
				for k := 0; k < n; k++ {
					settle(o.elem, f.sliceElem(k, o.stride))
				}
			}
		case KindArray:
			if o.elem.empties {
				for k := 0; k < o.n; k++ {
					settle(o.elem, f.index(k, o.stride))
				}
			}
		case KindPointer:
			if e := f.elem(); !e.isNil() {
				settle(o.elem, e)
			}
		case KindSparse:
			settleSparse(o, f)
		case KindUnion:
			if k, v, ok := heldMember(o, f); ok {
				if mp, err := o.union.member(k); err == nil {
					settle(mp, v)
				}
			}
		case KindMap:
			if m := f.value(o.typ).Elem(); m.Len() == 0 {
				m.SetZero() // a map's entries are new values: nothing else to settle
			}
		}
	}
}

// settleSparse settles a sparse field o at at (see settle).
func settleSparse(o *op, at pointer) {
	n := o.n
	if o.slice {
		if n = at.sliceLen(); n == 0 {
			at.clearSlice()
			return
		}
	}
	if !o.elem.empties {
		return
	}
	for k := 0; k < n; k++ {
		if e := sparseSlot(o, at, k).elem(); !e.isNil() {
			settle(o.elem, e)
		}
	}
}

// holdsEmpties reports whether a value of p can hold what settle changes:
// a slice, []byte or map, directly or through its arrays, elements and
// pointees, or a union member (whose plan is known only when it is
// decoded). It asks whether such an op is reachable from p, so a plan
// reached again (on a cycle, or by another path: type T struct{ A, B *U })
// adds nothing: it is, or is being, examined. Marking plans for the whole
// search, not just while on the path, keeps it linear in the type graph
// rather than exponential in its depth.
func holdsEmpties(p *plan, seen map[*plan]bool) bool {
	if seen[p] {
		return false
	}
	seen[p] = true
	for i := range p.ops {
		o := &p.ops[i]
		switch o.kind {
		case KindBytes, KindSlice, KindMap, KindUnion:
			return true
		case KindSparse:
			if o.slice || holdsEmpties(o.elem, seen) {
				return true
			}
		case KindArray, KindPointer:
			if holdsEmpties(o.elem, seen) {
				return true
			}
		}
	}
	return false
}

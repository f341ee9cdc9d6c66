package bitpack

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack/bitio"
)

// Arrays and slices: elements one after another, a slice after its length.
// A []byte with no element options is a byte slice (kind_bytes.go).

var (
	arrayKind = kindFuncs{name: "array",
		describe: func(f *Field) string { return fmt.Sprintf("array of %d", f.Len) },
		schema: func(s *schemaWriter, f *Field) {
			s.write("[" + strconv.Itoa(f.Len) + "]")
			s.walk(f.Elem)
		},
		maxBits: func(f *Field, max func(*Field) int64) int64 { return satMul(int64(f.Len), max(f.Elem)) },
		minBits: func(f *Field, min func(*Field) int64) int64 { return satMul(int64(f.Len), min(f.Elem)) }}
	sliceKind = kindFuncs{name: "slice",
		describe: func(f *Field) string { return fmt.Sprintf("slice maxlen %d", f.MaxLen) },
		schema: func(s *schemaWriter, f *Field) {
			s.write("[<=" + strconv.Itoa(f.MaxLen) + "]")
			s.walk(f.Elem)
		},
		maxBits: func(f *Field, max func(*Field) int64) int64 {
			if f.MaxLen == 0 {
				return int64(f.Bits)
			}
			return satAdd(int64(f.Bits), satMul(int64(f.MaxLen), max(f.Elem)))
		},
		minBits: fixedBits} // an empty one: its length
)

// rawElems returns the element op of an array or slice whose elements are
// raw full-width unsigned integers packed back to back (an element struct
// with other fields in memory has a larger stride): they are read and
// written as one run with bitio.ReadUints/WriteUints. Any bits are valid.
func (o *op) rawElems() *op {
	so := o.elem.scalar
	if so == nil || so.kind != KindUint || so.ranged || uintptr(so.bits) != 8*so.size || so.fit || o.stride != so.size {
		return nil
	}
	return so
}

func (c *compiler) appendSlice(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	if f.inherited || !o.maxlenSet {
		// maxlen is never inherited, and a slice without one cannot be sized.
		return nil, f.missingMaxlen(o, t, "16")
	}
	if o.sparse {
		return c.appendSparse(ops, t, o, f, base)
	}
	if err := checkSliceBytes(t, o, f); err != nil {
		return nil, err
	}
	elemOpts, err := f.elemOptions(o, t, false)
	if err != nil {
		return nil, err
	}
	base.n, base.bits = o.maxlen, bitio.BitsRequired(0, uint64(o.maxlen))
	et := t.Elem()
	if et.Kind() == reflect.Uint8 && elemOpts.isZero() {
		if ok, _ := hasHooks(et, f); !ok {
			base.kind = KindBytes
			*ops = append(*ops, base)
			return &Field{Type: t, Kind: KindBytes, MaxLen: o.maxlen, Bits: base.bits}, nil
		}
	}
	// Other options apply to the elements.
	elem, err := c.planFor(et, elemOpts, f.element(t, "[]"))
	if err != nil {
		return nil, err
	}
	base.kind, base.elem, base.typ, base.stride = KindSlice, elem, t, et.Size()
	base.refuse = func(format string, args ...any) error { return f.tagged(o, format, args...) }
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindSlice, MaxLen: o.maxlen, Bits: base.bits, Elem: elem.root}, nil
}

// maxSliceBytes bounds maxlen × element size. Decoding may allocate that
// much for one slice (the elements' wire bits are checked against the
// packet first, but elements that take few bits can stand for many bytes,
// and a sparse slice's absent elements take none), so a tag must not allow
// more than the platform can allocate: beyond it Go's allocator panics or
// the process runs out of memory on one packet.
const maxSliceBytes = min(math.MaxInt/2, 1<<40)

func checkSliceBytes(t reflect.Type, o *tagOptions, f fieldCtx) error {
	if size := t.Elem().Size(); size > 0 && uint64(o.maxlen) > uint64(maxSliceBytes)/uint64(size) {
		return f.tagged(o, "maxlen=%d of %s (%d bytes each) exceeds the %d bytes one decoded slice may take", o.maxlen, t.Elem(), size, uint64(maxSliceBytes))
	}
	return nil
}

// unrollLimit is the largest number of ops an array is flattened into;
// longer arrays loop over a sub-plan.
const unrollLimit = 32

func (c *compiler) appendArray(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	n := t.Len()
	et := t.Elem()
	if o.sparse && !f.inherited {
		return c.appendSparse(ops, t, o, f, base)
	}
	if o.quat && (isQuatShaped(t) || !f.inherited && (et.Kind() == reflect.Float32 || et.Kind() == reflect.Float64)) {
		return c.appendQuat(ops, t, o, f, base) // or explains why an array of floats is not a quaternion
	}
	if et.Kind() == reflect.Uint8 && !o.hasInt() {
		if ok, _ := hasHooks(et, f); !ok {
			if !f.inherited && !o.isZero() {
				return nil, f.notApplicable(o, t)
			}
			base.kind, base.n = KindByteArray, n
			*ops = append(*ops, base)
			return &Field{Type: t, Kind: KindByteArray, Len: n}, nil
		}
	}
	// Every other option applies to each element. Compile one
	// element, then copy its ops n times (small arrays) or loop over it.
	var one []op
	eo, err := f.elemOptions(o, t, true)
	if err != nil {
		return nil, err
	}
	ef := f.element(t, "[]")
	ef.offset, ef.path = offset{}, ""
	elemNode, err := c.appendValue(&one, et, eo, ef)
	if err != nil {
		return nil, err
	}
	node := &Field{Type: t, Kind: KindArray, Len: n, Elem: elemNode}
	if n*len(one) <= unrollLimit {
		for i := 0; i < n; i++ {
			idx := "[" + strconv.Itoa(i) + "]"
			for _, e := range one {
				e.offset = f.offset.plus(elemOffset(i, et.Size())).plus(e.offset)
				e.path = joinPath(joinPath(f.path, idx), e.path)
				*ops = append(*ops, e)
			}
		}
		return node, nil
	}
	elem, err := c.planFor(et, eo, f.element(t, "[]"))
	if err != nil {
		return nil, err
	}
	base.kind, base.n, base.elem, base.stride = KindArray, n, elem, et.Size()
	*ops = append(*ops, base)
	node.Elem = elem.root
	return node, nil
}

func encodeArray(w *bitio.Writer, o *op, at pointer, depth int) *fieldError {
	return encodeElems(w, o, at, o.n, false, depth)
}

func encodeSlice(w *bitio.Writer, o *op, at pointer, depth int) *fieldError {
	n := at.sliceLen()
	if n > o.n {
		return newFieldError(o.path, -1, ErrRange, "slice of %d elements exceeds maxlen %d", n, o.n)
	}
	w.WriteBits(uint64(n), o.bits)
	return encodeElems(w, o, at, n, true, depth)
}

func decodeArray(d *decoder, o *op, at pointer, _, depth int) *fieldError {
	return d.elems(o, at, o.n, false, depth)
}

func commitArray(o *op, d, s pointer) {
	for k := 0; k < o.n; k++ {
		commit(o.elem, d.index(k, o.stride), s.index(k, o.stride))
	}
}

// encodeElems writes n elements of an array or slice field. Elements that
// are a single scalar skip the sub-plan machinery; packed raw full-width
// integers (nothing to check) are one bitio.WriteUints call.
func encodeElems(w *bitio.Writer, o *op, at pointer, n int, slice bool, depth int) *fieldError {
	first := at
	if slice {
		first = at.sliceElem(0, 0)
	}
	return encodeElemsFrom(w, o, first, n, 0, depth)
}

// encodeElemsFrom writes the n elements of o from first, numbering them
// from k0 in errors.
func encodeElemsFrom(w *bitio.Writer, o *op, first pointer, n, k0, depth int) *fieldError {
	if so := o.rawElems(); so != nil {
		writeRaw(w, first, n, uint8(so.size))
		return nil
	}
	if n == 0 {
		return nil
	}
	d := depth + o.level
	if d+o.elem.levels > MaxDepth {
		return newFieldError(elemPath(o.path, k0), -1, ErrDepth, "more than %d nested levels (a cycle?)", MaxDepth)
	}
	var err *fieldError
	var k int
	if e := o.elem; n >= columnMin && e.groups > 0 && e.groups*columnMin <= columnWords {
		err, k = encodeColumns(w, e, first, o.stride, n, d)
	} else {
		err, k = encodeValues(w, e, first, o.stride, n, d)
	}
	if err != nil {
		return err.withPrefix(elemPath(o.path, k0+k))
	}
	return nil
}

// writeRaw writes n unsigned integers of size bytes each, full width, the
// first at first.
func writeRaw(w *bitio.Writer, first pointer, n int, size uint8) {
	switch size {
	case 1:
		bitio.WriteUints(w, first.uint8s(n), 8)
	case 2:
		bitio.WriteUints(w, first.uint16s(n), 16)
	case 4:
		bitio.WriteUints(w, first.uint32s(n), 32)
	default:
		bitio.WriteUints(w, first.uint64s(n), 64)
	}
}

// decodeSlice reads a slice field: its length, then the elements.
func decodeSlice(d *decoder, o *op, at pointer, start, depth int) *fieldError {
	n, err := d.readLength(o, start)
	if err != nil || d.r.Err() != nil {
		return err
	}
	if n > at.sliceCap() {
		d.grow(n, o.stride)
	}
	at.setSliceLen(o.typ, n)
	return d.elems(o, at, n, true, depth)
}

// readLength reads the length of slice o, which started at bit start, and
// refuses one over maxlen or longer than the packet can hold at the
// elements' minimum size (countRefusal) before charging for its elements.
// After a failed read it returns 0 and leaves the error in the Reader.
func (d *decoder) readLength(o *op, start int) (int, *fieldError) {
	r := d.r
	n := r.ReadBits(o.bits)
	if r.Err() != nil {
		return 0, nil
	}
	if n > uint64(o.n) {
		return 0, newFieldError(o.path, start, ErrRange, "length %d exceeds maxlen %d", n, o.n)
	}
	if rest := r.BitsRemaining(); !fitsIn(int(n), o.elem.minBits, rest) {
		return 0, countRefusal(o.path, r.BitsRead(), int(n), o.elem.minBits, rest, "element", "elements")
	}
	work, bytes := elemsCharge(o, int(n), d.fresh)
	if err := d.charge(work, bytes, int(n), uintptr(o.elem.bytes), start); err != nil {
		return 0, err.withPrefix(o.path)
	}
	return int(n), nil
}

// elems reads n elements of an array or slice field at at.
func (d *decoder) elems(o *op, at pointer, n int, slice bool, depth int) *fieldError {
	if slice {
		at = at.sliceElem(0, 0)
	}
	return d.elemsFrom(o, at, n, 0, depth)
}

// elemsFrom reads n elements of o into first and the elements after it,
// numbering them from k0 in errors.
func (d *decoder) elemsFrom(o *op, first pointer, n, k0, depth int) *fieldError {
	if so := o.rawElems(); so != nil {
		// Packed raw full-width integers: any bits are valid. (A slice's
		// count was checked: only an array's elements can run out.)
		r := d.r
		if rest := r.BitsRemaining(); !fitsIn(n, int64(so.bits), rest) {
			k := rest / so.bits // the element that runs out, as a read of each would find
			return newFieldError(joinPath(elemPath(o.path, k0+k), so.path), r.BitsRead()+k*so.bits, ErrOverflow, "needs %d bits, %d remain", so.bits, rest-k*so.bits)
		}
		readRaw(r, first, n, so.size)
		return nil
	}
	return d.elemsAt(o, first, n, o.stride, depth, k0)
}

// elemsAt reads n elements of o, the first at first and each next one
// stride bytes further (0: all into the same one), numbering them from k0
// in errors.
func (d *decoder) elemsAt(o *op, first pointer, n int, stride uintptr, depth, k0 int) *fieldError {
	r := d.r
	elemAt := func(k int) pointer { return first.index(k, stride) }
	if so := o.elem.scalar; so != nil {
		// Elements that are a single fixed-width field: no sub-plan.
		for k := 0; k < n; k++ {
			bit := r.BitsRead()
			c := r.ReadBits(so.bits)
			if err := r.Err(); err != nil {
				return fromBitio(joinPath(o.path+"["+strconv.Itoa(k0+k)+"]", so.path), bit, err)
			}
			if err := decodeScalar(so, c, elemAt(k), bit); err != nil {
				return err.withPrefix(o.path + "[" + strconv.Itoa(k0+k) + "]")
			}
		}
		return nil
	}
	e := o.elem
	dd := depth + o.level
	if dd+e.levels > MaxDepth {
		return newFieldError(o.path+"["+strconv.Itoa(k0)+"]", r.BitsRead(), ErrDepth, "more than %d nested levels", MaxDepth)
	}
	if len(e.ops) == 1 && e.ops[0].kind == KindUnion && e.ops[0].offset == (offset{}) {
		// Elements that are interface values: straight to the union, not
		// through a plan of one op each time.
		for k := 0; k < n; k++ {
			start := r.BitsRead()
			err := decodeUnion(d, &e.ops[0], elemAt(k), start, dd)
			if err == nil {
				if rerr := r.Err(); rerr != nil {
					err = fromBitio("", start, rerr)
				}
			}
			if err != nil {
				return err.withPrefix(o.path + "[" + strconv.Itoa(k0+k) + "]")
			}
		}
		return nil
	}
	for k := 0; k < n; k++ {
		if err := d.plan(e, elemAt(k), dd); err != nil {
			return err.withPrefix(o.path + "[" + strconv.Itoa(k0+k) + "]")
		}
	}
	return nil
}

// readRaw reads n unsigned integers of size bytes each, full width, into
// first.
func readRaw(r *bitio.Reader, first pointer, n int, size uintptr) {
	if nativeLittleEndian && r.BitsRead()&7 == 0 && fitsIn(n, 8*int64(size), r.BitsRemaining()) {
		// At a byte boundary the packet holds the elements as they are in
		// memory (little-endian): one copy, as ReadUints would read them.
		r.ReadBytes(first.byteArray(n * int(size)))
		return
	}
	switch size {
	case 1:
		bitio.ReadUints(r, first.uint8s(n), 8)
	case 2:
		bitio.ReadUints(r, first.uint16s(n), 16)
	case 4:
		bitio.ReadUints(r, first.uint32s(n), 32)
	default:
		bitio.ReadUints(r, first.uint64s(n), 64)
	}
}

// commitSlice commits a slice field o: into the caller's slice when it
// has the room, else into the scratch value's, handed over (see
// commitGrown and commit.go).
func commitSlice(o *op, d, s pointer) {
	n := s.sliceLen()
	switch {
	case n <= d.sliceCap():
		d.setSliceLenWithin(n)
	case o.elem.complete:
		commitGrown(o, d, s) // every byte of the elements is the packet's
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

// commitGrown commits a slice field o of complete elements that outgrew
// the caller's capacity, m, by handing the scratch value's array over —
// the one allocation the decode made, paid for — with the caller's m
// elements in its first m places, filled in place as within capacity
// (their pointees, slices and members reused, as growing the caller's
// slice would keep them), and the elements past them settled: the
// caller's value held nothing there.
func commitGrown(o *op, d, s pointer) {
	n, m := s.sliceLen(), d.sliceCap()
	if m > 0 && !o.elem.pointerFree { // pointer-free elements: nothing of theirs to reuse
		for k := 0; k < m; k++ {
			commit(o.elem, d.sliceElem(k, o.stride), s.sliceElem(k, o.stride))
		}
		s.copyElems(d, o.typ, m)
	}
	if o.elem.empties {
		for k := m; k < n; k++ {
			settle(o.elem, s.sliceElem(k, o.stride))
		}
	}
	d.moveSlice(s)
}

// Deltas. An array lists its changed elements (see deltaEncoder.list):
// each one's index as int_relative from the previous, then its body; then
// the end marker. A slice first says whether its length changed (a bit,
// then the new length), then lists its changed elements among those it
// shares with the base, then sends the elements it gained whole. Arrays
// the compiler unrolled into their parent travel the same way.

func encodeArrayDelta(e *deltaEncoder, o *op, at, bt pointer, depth int, bit bool) (bool, *fieldError) {
	if at.sameBytes(bt, uintptr(o.n)*o.stride) {
		return e.same(bit)
	}
	start := e.begin(bit)
	listed, err := e.list(o, at, bt, o.n, depth)
	if err != nil || !listed {
		if err != nil {
			return false, err
		}
		return e.unchanged(start, bit)
	}
	return true, nil
}

func decodeArrayDelta(d *decoder, o *op, at pointer, start, depth int, bit bool) (bool, *fieldError) {
	if !d.changedBit(bit) {
		return false, nil
	}
	listed, err := d.list(o, at, o.n, depth)
	if err == nil && !listed {
		err = unchangedError(o.path, start)
	}
	return err == nil, err
}

// encodeUnrolledDelta writes the delta of an array unrolled into p's ops
// (item it, whose ops count from first).
func encodeUnrolledDelta(e *deltaEncoder, p *plan, it *ditem, first int, v, b pointer, depth int, bit bool) (bool, *fieldError) {
	w := e.w
	start := e.begin(bit)
	prev := int32(-1)
	for k := 0; k < it.n; k++ {
		pos := w.BitsWritten()
		w.WriteIntRelative(prev, int32(k))
		ch, err := e.body(p, it.elems[k], first+it.op+k*it.m, v, b, depth)
		if err != nil {
			return false, err
		}
		if !ch {
			w.Rewind(pos)
			continue
		}
		prev = int32(k)
	}
	if prev < 0 {
		return e.unchanged(start, bit)
	}
	w.WriteIntRelative(prev, int32(it.n))
	return true, nil
}

func decodeUnrolledDelta(d *decoder, p *plan, it *ditem, first int, at pointer, start, depth int, bit bool) (bool, *fieldError) {
	r := d.r
	if !d.changedBit(bit) {
		return false, nil
	}
	prev := int32(-1)
	for {
		pos := r.BitsRead()
		idx := r.ReadIntRelative(prev)
		switch err := r.Err(); {
		case err != nil:
			return false, fromBitio(it.path, pos, err)
		case int(idx) > it.n:
			return false, newFieldError(it.path, pos, ErrRange, "element index %d out of range for %d elements", idx, it.n)
		case int(idx) == it.n && prev < 0:
			return false, unchangedError(it.path, start)
		case int(idx) == it.n:
			return true, nil
		}
		ch, err := d.deltaBody(p, it.elems[idx], first+it.op+int(idx)*it.m, at, depth)
		if err != nil {
			return false, err
		}
		if !ch {
			return false, unchangedError(elemPath(it.path, int(idx)), pos)
		}
		prev = idx
	}
}

func encodeSliceDelta(e *deltaEncoder, o *op, at, bt pointer, depth int, bit bool) (bool, *fieldError) {
	n, nb := at.sliceLen(), bt.sliceLen()
	if n > o.n {
		return false, newFieldError(o.path, -1, ErrRange, "slice of %d elements exceeds maxlen %d", n, o.n)
	}
	vf, bf := at.sliceElem(0, 0), bt.sliceElem(0, 0)
	if n == nb && (n == 0 || vf == bf) {
		return e.same(bit)
	}
	w := e.w
	start := e.begin(bit)
	if n != nb {
		w.WriteBits(1, 1)
		w.WriteBits(uint64(n), o.bits)
	} else {
		w.WriteBits(0, 1)
	}
	listed, err := e.list(o, vf, bf, min(n, nb), depth)
	if err != nil {
		return false, err
	}
	if n == nb && !listed {
		return e.unchanged(start, bit)
	}
	if n > nb {
		e.charge(elemsCharge(o, n-nb, false))
		if o.elem.scalar == nil {
			for k := nb; k < n; k++ {
				e.full(o.elem, vf.index(k, o.stride), depth+1)
			}
		}
		if err := encodeElemsFrom(w, o, vf.index(nb, o.stride), n-nb, nb, depth); err != nil {
			return false, err
		}
	}
	return true, nil
}

func decodeSliceDelta(d *decoder, o *op, at pointer, start, depth int, bit bool) (bool, *fieldError) {
	r := d.r
	if !d.changedBit(bit) {
		return false, nil
	}
	nb := at.sliceLen()
	n := nb
	resized := r.ReadBits(1) == 1
	if resized {
		pos := r.BitsRead()
		v := r.ReadBits(o.bits)
		switch {
		case r.Err() != nil:
			return false, nil
		case v > uint64(o.n):
			return false, newFieldError(o.path, pos, ErrRange, "length %d exceeds maxlen %d", v, o.n)
		case int(v) == nb:
			return false, newFieldError(o.path, pos, ErrRange, "new length %d is the base's (not canonical)", v)
		}
		n = int(v)
	}
	if r.Err() != nil {
		return false, nil
	}
	listed, err := d.list(o, at.sliceElem(0, 0), min(n, nb), depth)
	if err != nil {
		return false, err
	}
	if !resized && !listed {
		return false, unchangedError(o.path, start)
	}
	if n <= nb {
		if resized {
			d.saveSlice(at)
		}
		at.setSliceLen(o.typ, n)
		d.emptied(at)
		return true, nil
	}
	if rest := r.BitsRemaining(); !fitsIn(n-nb, o.elem.minBits, rest) {
		return false, countRefusal(o.path, r.BitsRead(), n-nb, o.elem.minBits, rest, "element", "elements")
	}
	work, bytes := elemsCharge(o, n-nb, false)
	if err := d.charge(work, bytes, n-nb, uintptr(o.elem.bytes), start); err != nil {
		return false, err.withPrefix(o.path)
	}
	if d.undo != nil {
		return true, d.growInPlace(o, at, nb, n, depth)
	}
	if n > at.sliceCap() && o.elem.inlineMaps {
		for k := range nb { // the elements move: their maps left in the base come in first
			d.scratch.materializeIn(o.elem, at.sliceElem(k, o.stride), depth+o.level)
		}
	}
	if n > at.sliceCap() {
		d.grow(n, o.stride)
	}
	at.setSliceLen(o.typ, n)
	return true, d.elemsFrom(o, at.sliceElem(nb, o.stride), n-nb, nb, depth)
}

package bitpack

import (
	"math"
	"math/bits"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack/bitio"
)

// A failed decode must leave the caller's value exactly as it was, even
// though decoding reuses the value's slices and pointers. So every decode
// runs one checked pass into a scratch value of the type, kept between
// calls so its buffers are reused, and only when the whole value (and for
// Unmarshal the whole packet) has been accepted is it committed into the
// caller's value (commit.go): copied into that value's own slices and
// pointers where they have room, or handed over (the scratch value lets go
// of them) where they do not. Nothing of the caller's value is written
// before, and the two never share memory after.
//
// A length prefix is checked against maxlen, and against the bits left in
// the packet (at the elements' minimum size) before anything is allocated
// for it; every allocation and every value visited is charged against the
// decode's allowances first (allowance.go).

// decoder runs plans over a Reader, storing into a scratch value.
type decoder struct {
	r      *bitio.Reader
	grown  int64      // bytes this decode allocated into the scratch value (see decodeScratch)
	depth0 int        // the depth the root plan runs at: 0, or a hook's (see hookFrame)
	budget budget     // the allowances (see allowance.go)
	frame  *hookFrame // the hook this decode runs in, or nil
}

// enter starts a decode: on the Reader a hook was handed (f non-nil),
// where the hook's decode stands (its depth, its allowances and what they
// have spent); otherwise at depth 0 with allowances for the bits the Reader
// holds.
func (d *decoder) enter(f *hookFrame) {
	if f != nil {
		d.depth0, d.budget, d.frame = f.depth, f.budget, f
		return
	}
	d.budget = budgetFor(d.r.BitsRemaining())
}

// leave hands what the decode spent back to the hook's decode.
func (d *decoder) leave() {
	if d.frame != nil {
		d.frame.budget = d.budget
	}
}

// charge charges the allowances (see allowance.go) for what the packet
// is about to make the decode visit and allocate.
func (d *decoder) charge(work, bytes int64, what func() string, bit int) *fieldError {
	return d.budget.charge(work, bytes, what, bit)
}

// grow records n new values of size bytes allocated into the value being
// decoded.
func (d *decoder) grow(n int, size uintptr) {
	d.grown += int64(n) * int64(size)
}

// root decodes a whole value of p at base, refusing types that nest past
// MaxDepth before it reads anything.
func (d *decoder) root(p *plan, base pointer) *fieldError {
	if d.depth0+p.levels > MaxDepth {
		if d.depth0 > 0 {
			return newFieldError("", d.r.BitsRead(), ErrDepth, "more than %d nested levels", MaxDepth)
		}
		return newFieldError("", d.r.BitsRead(), ErrDepth, "type nests %d levels, more than %d", p.levels, MaxDepth)
	}
	work, bytes := rootCharge(p)
	if err := d.charge(work, bytes, valuesOf(1, p.typ.Size()), d.r.BitsRead()); err != nil {
		return err
	}
	return d.plan(p, base, d.depth0)
}

// plan reads a value following p, checks it and stores it at base. depth
// is the number of struct levels above the plan's root.
func (d *decoder) plan(p *plan, base pointer, depth int) *fieldError {
	r := d.r
	ops := p.ops
	for i := 0; i < len(ops); i++ {
		o := &ops[i]
		if o.group > 0 {
			// A fused run of fixed-width fields: one word for all of them.
			var err *fieldError
			if o.groupBits <= r.BitsRemaining() {
				start := r.BitsRead()
				err = storeWord(p, o, base, r.ReadBits(o.groupBits), start)
			} else {
				err = d.shortRun(p, i, base)
			}
			if err != nil {
				return err
			}
			i += int(o.group) - 1
			continue
		}
		start := r.BitsRead()
		at := base.at(o.offset)
		var err *fieldError
		switch o.kind {
		case opString:
			err = d.string(o, at, start)
		case opBytes:
			err = d.bytes(o, at, start)
		case opByteArray:
			r.ReadBytes(at.byteArray(o.n))
		case opArray:
			err = d.elems(o, at, o.n, false, depth)
		case opSlice:
			err = d.slice(o, at, start, depth)
		case opPointer:
			err = d.pointer(o, at, start, depth)
		case opQuat:
			err = d.quat(o, at, start)
		case opHook:
			err = d.hook(o, at, depth)
		case opSparse:
			err = d.sparse(o, at, depth)
		case opUnion:
			err = d.union(o, at, depth)
		case opCheck:
			err = d.check(o, start)
		}
		if err != nil {
			return err
		}
		if err := r.Err(); err != nil {
			return fromBitio(o.path, start, err)
		}
	}
	return nil
}

// shortRun decodes the fused run that starts at ops[i] when the packet
// ends inside it: field by field, so that the error names the field that
// runs out.
func (d *decoder) shortRun(p *plan, i int, base pointer) *fieldError {
	r, o := d.r, &p.ops[i]
	for k := i; k < i+int(o.group); k++ {
		so := &p.ops[k]
		bit := r.BitsRead()
		c := r.ReadBits(so.bits)
		if err := r.Err(); err != nil {
			return fromBitio(so.path, bit, err)
		}
		if err := decodeScalar(so, c, base, bit); err != nil {
			return err
		}
	}
	return nil // unreachable: the run did not fit, so a read failed
}

// storeWord checks and stores the fields of the run headed by o from the
// word acc, read at bit start.
func storeWord(p *plan, o *op, base pointer, acc uint64, start int) *fieldError {
	for k := o.sLo; k < o.sHi; k++ {
		sc := &p.scalars[k]
		at := base.at(sc.offset)
		if sc.count > 1 {
			// Several like fields (never slow ones): one loop. When one is
			// over its limit (rare), the entry is done again a field at a
			// time, as lone fields are: decodeScalar words the refusal.
			if storeRun(sc, at, acc) >= 0 {
				for j := range int(sc.count) {
					shift := uint64(sc.shift) + uint64(j)*uint64(sc.width)
					if err := decodeScalar(&p.ops[sc.op+int32(j)], acc>>(shift&63)&sc.mask, base, start+int(shift)); err != nil {
						return err
					}
				}
			}
			continue
		}
		c := acc >> (sc.shift & 63) & sc.mask
		if c > sc.limit || sc.slow {
			if err := decodeScalar(&p.ops[sc.op], c, base, start+int(sc.shift)); err != nil {
				return err
			}
			continue
		}
		v := c ^ sc.flip + sc.min
		switch sc.access {
		case accU8, accI8:
			*at.u8() = uint8(v)
		case accU16, accI16:
			*at.u16() = uint16(v)
		case accU32, accI32:
			*at.u32() = uint32(v)
		case accU64, accI64:
			*at.u64() = v
		case accQ32:
			*at.float32() = sc.q.q32.Dequantize(uint32(c))
		case accQ64:
			*at.float64() = sc.q.q64.Dequantize(uint32(c))
		}
	}
	return nil
}

// storeRun stores the sc.count like fields sc stands for from their codes
// in acc, and returns the index of the first whose code is over the limit
// (it stores nothing from there on), or -1. (Compressed float64 fields do
// not join: see scalar.joins.)
func storeRun(sc *scalar, at pointer, acc uint64) int {
	switch sc.access {
	case accQ32:
		q, shift := &sc.q.q32, sc.shift
		for j := range int(sc.count) {
			c := acc >> (shift & 63) & sc.mask
			if c > sc.limit {
				return j
			}
			*at.at(4 * uintptr(j)).float32() = q.Dequantize(uint32(c))
			shift += sc.width
		}
		return -1
	case accU8, accI8:
		return storeInts[uint8](sc, at, acc)
	case accU16, accI16:
		return storeInts[uint16](sc, at, acc)
	case accU32, accI32:
		return storeInts[uint32](sc, at, acc)
	}
	return storeInts[uint64](sc, at, acc)
}

func storeInts[T uint8 | uint16 | uint32 | uint64](sc *scalar, at pointer, acc uint64) int {
	shift := sc.shift
	for j := range int(sc.count) {
		c := acc >> (shift & 63) & sc.mask
		if c > sc.limit {
			return j
		}
		storeIndex(at, j, T(c^sc.flip+sc.min))
		shift += sc.width
	}
	return -1
}

// fitsIn reports whether n values of each bits fit in rest bits (all three
// at least 0). It multiplies in 128 bits rather than divide: no overflow on
// any platform, and a hardware division costs more than a whole field.
func fitsIn(n, each, rest int) bool {
	hi, lo := bits.Mul64(uint64(n), uint64(each))
	return hi == 0 && lo <= uint64(rest)
}

// decodeScalar checks the bits c read for a fixed-width field and stores
// the value at base + o.offset. bit is where c started.
func decodeScalar(o *op, c uint64, base pointer, bit int) *fieldError {
	var v uint64
	switch o.kind {
	case opBool, opFloat32, opFloat64:
		v = c
	case opUint:
		if o.fit && c > math.MaxUint32 {
			return newFieldError(o.path, bit, ErrRange, "value %d does not fit a 32-bit uint", c)
		}
		v = c
	case opInt:
		s := int64(c<<(64-o.bits)) >> (64 - o.bits) // sign-extend
		if o.fit && (s < math.MinInt32 || s > math.MaxInt32) {
			return newFieldError(o.path, bit, ErrRange, "value %d does not fit a 32-bit int", s)
		}
		v = uint64(s)
	case opRangeUint:
		if c > o.span {
			return newFieldError(o.path, bit, ErrRange, "value %d out of range [%d, %d]", o.min+c, o.min, o.min+o.span)
		}
		v = o.min + c
		if o.fit && v > math.MaxUint32 {
			return newFieldError(o.path, bit, ErrRange, "value %d does not fit a 32-bit uint", v)
		}
	case opRangeInt:
		if c > o.span {
			return newFieldError(o.path, bit, ErrRange, "value %d out of range [%d, %d]", int64(o.min+c), int64(o.min), int64(o.min+o.span))
		}
		v = o.min + c
		if s := int64(v); o.fit && (s < math.MinInt32 || s > math.MaxInt32) {
			return newFieldError(o.path, bit, ErrRange, "value %d does not fit a 32-bit int", s)
		}
	case opQFloat32:
		if c > uint64(o.qf.MaxCode()) {
			return newFieldError(o.path, bit, ErrRange, "compressed float code %d out of range [0, %d]", c, o.qf.MaxCode())
		}
		*base.at(o.offset).float32() = o.qf.Dequantize(uint32(c))
		return nil
	case opQFloat64:
		if c > uint64(o.qf64.MaxCode()) {
			return newFieldError(o.path, bit, ErrRange, "compressed float code %d out of range [0, %d]", c, o.qf64.MaxCode())
		}
		*base.at(o.offset).float64() = o.qf64.Dequantize(uint32(c))
		return nil
	}
	at := base.at(o.offset)
	switch o.kind {
	case opBool:
		*at.bool() = v != 0
	case opFloat32:
		*at.float32() = math.Float32frombits(uint32(v))
	case opFloat64:
		*at.float64() = math.Float64frombits(v)
	default:
		at.storeUint(o.size, v)
	}
	return nil
}

// string reads a string field.
func (d *decoder) string(o *op, at pointer, start int) *fieldError {
	b := d.r.ReadStringBytes(o.n)
	if d.r.Err() != nil {
		return nil // reported by plan
	}
	work, bytes := stringCharge(len(b))
	if err := d.charge(work, bytes, valuesOf(1, uintptr(len(b))), start); err != nil {
		return err.withPrefix(o.path)
	}
	if s := at.string(); *s != string(b) { // no allocation when unchanged
		*s = string(b)
		d.grow(len(b), 1)
	}
	return nil
}

// bytes reads a []byte field: its length, then the bytes, aligned.
func (d *decoder) bytes(o *op, at pointer, start int) *fieldError {
	r := d.r
	n := r.ReadBits(o.bits)
	if n > uint64(o.n) {
		return newFieldError(o.path, start, ErrRange, "length %d exceeds maxlen %d", n, o.n)
	}
	r.Align()
	if r.Err() != nil {
		return nil
	}
	if n > uint64(r.BitsRemaining()/8) {
		return newFieldError(o.path, start, ErrOverflow, "needs %d bytes, %d remain", n, r.BitsRemaining()/8)
	}
	work, bytes := elemsCharge(o, int(n))
	if err := d.charge(work, bytes, valuesOf(1, uintptr(n)), start); err != nil {
		return err.withPrefix(o.path)
	}
	b := at.bytes()
	if cap(*b) >= int(n) {
		*b = (*b)[:n]
	} else {
		*b = make([]byte, n)
		d.grow(int(n), 1)
	}
	r.ReadBytes(*b)
	return nil
}

// slice reads a slice field: its length, then the elements.
func (d *decoder) slice(o *op, at pointer, start, depth int) *fieldError {
	r := d.r
	n := r.ReadBits(o.bits)
	if r.Err() != nil {
		return nil
	}
	if n > uint64(o.n) {
		return newFieldError(o.path, start, ErrRange, "length %d exceeds maxlen %d", n, o.n)
	}
	if !fitsIn(int(n), o.elem.minBits, r.BitsRemaining()) {
		// The packet cannot hold that many: refuse before allocating,
		// naming the element that runs out.
		return d.shortElems(o, int(n), depth)
	}
	work, bytes := elemsCharge(o, int(n))
	if err := d.charge(work, bytes, valuesOf(int(n), o.stride), start); err != nil {
		return err.withPrefix(o.path)
	}
	if int(n) > at.sliceCap() {
		d.grow(int(n), o.stride)
	}
	at.setSliceLen(o.typ, int(n))
	return d.elems(o, at, int(n), true, depth)
}

// shortElems reads the n elements of o that the packet cannot hold, into
// one spare element, until one runs out: its error names it. Each element
// takes at least one bit (a packet always holds elements that take none),
// so this stops within the bits left.
func (d *decoder) shortElems(o *op, n, depth int) *fieldError {
	r := d.r
	if so := o.rawElems(); so != nil {
		return newFieldError(o.path, r.BitsRead(), ErrOverflow, "%d elements need %d bits, %d remain", n, int64(n)*int64(so.bits), r.BitsRemaining())
	}
	spare, err := d.spare(o.elem, r.BitsRead())
	if err != nil {
		return err.withPrefix(o.path)
	}
	for k := 0; k < n; k++ {
		if k > 0 { // spare charged the first
			if err := d.charge(o.elem.work, 0, nil, r.BitsRead()); err != nil {
				return err.withPrefix(o.path + "[" + strconv.Itoa(k) + "]")
			}
		}
		if err := d.elemsAt(o, spare, 1, 0, depth, k); err != nil {
			return err
		}
	}
	return newFieldError(o.path, r.BitsRead(), ErrOverflow, "internal error: %d elements fit after all", n)
}

// spare returns a value of p's type for a decode that is bound to run out
// of bits, so that its error names the field that does: a new one (never
// the target's, nor the scratch value's), when it is small enough for the
// bits left to pay for (spareBytes); else the refusal names the value.
func (d *decoder) spare(p *plan, bit int) (pointer, *fieldError) {
	size := p.typ.Size()
	if size > spareBytes {
		return pointer{}, newFieldError("", bit, ErrOverflow, "needs at least %d bits, %d remain", p.minBits, d.r.BitsRemaining())
	}
	if err := d.charge(p.work, roundAlloc(int64(size)), valuesOf(1, size), bit); err != nil {
		return pointer{}, err
	}
	return pointerOf(reflect.New(p.typ)), nil
}

// spareBytes is the largest spare value (see spare).
const spareBytes = 64 << 10

// elems reads n elements of an array or slice field at at.
func (d *decoder) elems(o *op, at pointer, n int, slice bool, depth int) *fieldError {
	if slice {
		at = at.sliceElem(0, 0)
	}
	if so := o.rawElems(); so != nil {
		// Packed raw full-width integers: any bits are valid.
		r := d.r
		if !fitsIn(n, so.bits, r.BitsRemaining()) {
			return newFieldError(o.path, r.BitsRead(), ErrOverflow, "%d elements need %d bits, %d remain", n, int64(n)*int64(so.bits), r.BitsRemaining())
		}
		readRaw(r, at, n, so.size)
		return nil
	}
	return d.elemsAt(o, at, n, o.stride, depth, 0)
}

// elemsAt reads n elements of o, the first at first and each next one
// stride bytes further (0: all into the same one), numbering them from k0
// in errors.
func (d *decoder) elemsAt(o *op, first pointer, n int, stride uintptr, depth, k0 int) *fieldError {
	r := d.r
	elemAt := func(k int) pointer { return first.at(uintptr(k) * stride) }
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
	if len(e.ops) == 1 && e.ops[0].kind == opUnion && e.ops[0].offset == 0 {
		// Elements that are interface values: straight to the union, not
		// through a plan of one op each time.
		for k := 0; k < n; k++ {
			start := r.BitsRead()
			err := d.union(&e.ops[0], elemAt(k), dd)
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

// sub runs plan p for a value held by a field at struct level level of a
// plan running at depth, refusing nesting past MaxDepth before it reads
// anything.
func (d *decoder) sub(p *plan, level int, at pointer, depth int) *fieldError {
	dd := depth + level
	if dd+p.levels > MaxDepth {
		return newFieldError("", d.r.BitsRead(), ErrDepth, "more than %d nested levels", MaxDepth)
	}
	return d.plan(p, at, dd)
}

// pointer reads a pointer field: its presence bit, then the pointee.
func (d *decoder) pointer(o *op, at pointer, start, depth int) *fieldError {
	r := d.r
	if r.ReadBits(1) == 0 || r.Err() != nil {
		if r.Err() == nil {
			at.setNil()
		}
		return nil
	}
	var elem pointer
	if o.elem.minBits > r.BitsRemaining() {
		// The packet cannot hold the pointee: name the field that runs
		// out, decoding into a spare value rather than the field's.
		var err *fieldError
		if elem, err = d.spare(o.elem, r.BitsRead()); err != nil {
			return err.withPrefix(o.path)
		}
	} else {
		work, bytes := pointeeCharge(o)
		if err := d.charge(work, bytes, valuesOf(1, o.typ.Size()), start); err != nil {
			return err.withPrefix(o.path)
		}
		if elem = at.elem(); elem.isNil() {
			elem = at.setNew(o.typ)
			d.grow(1, o.typ.Size())
		}
	}
	if err := d.sub(o.elem, o.level, elem, depth); err != nil {
		return err.withPrefix(o.path)
	}
	return nil
}

// sparse reads the indices and values of a sparse field. Indices must
// increase (int_relative refuses anything else) and stay below the length;
// the index equal to the length ends the list. Absent elements become nil.
func (d *decoder) sparse(o *op, at pointer, depth int) *fieldError {
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
		if err := d.charge(work, bytes, valuesOf(n, o.typ.Elem().Size()), start); err != nil {
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
		if err := d.charge(work, bytes, valuesOf(1, o.elem.typ.Size()), start); err != nil {
			return err.withPrefix(o.path + "[" + strconv.Itoa(int(idx)) + "]")
		}
		slot := sparseSlot(o, at, int(idx))
		e := slot.elem()
		if e.isNil() {
			e = slot.setNew(o.elem.typ)
			d.grow(1, o.elem.typ.Size())
		}
		if err := d.sub(o.elem, o.level, e, depth); err != nil {
			return err.withPrefix(o.path + "[" + strconv.Itoa(int(idx)) + "]")
		}
		prev, next = idx, int(idx)+1
	}
}

// union reads a type index and the member it names into an interface
// field: into the *T the field already holds when it is the same type and
// the member was registered as a pointer, else into a new value.
func (d *decoder) union(o *op, at pointer, depth int) *fieldError {
	r := d.r
	start := r.BitsRead()
	idx := r.ReadBits(o.bits)
	if r.Err() != nil {
		return nil
	}
	u := o.union
	if idx >= uint64(len(u.members)) {
		return newFieldError(o.path, start, ErrRange, "union index %d out of range [0, %d]", idx, len(u.members)-1)
	}
	m := &u.members[idx]
	mp, err := u.member(int(idx))
	if err != nil {
		return memberError(o.path, start, err)
	}
	work, bytes := memberCharge(mp)
	if err := d.charge(work, bytes, valuesOf(1, m.typ.Size()), start); err != nil {
		return err.withPrefix(o.path)
	}
	// Into the *T the field holds when it is one of this member's type;
	// else into a new value, which the field then holds as it is (no
	// second copy for a member in value form: see setIface).
	if cur, ok := at.ifaceHolds(o.ifaces[idx]); ok && m.pointer {
		if err := d.sub(mp, o.level, cur, depth); err != nil {
			return err.withPrefix(o.path)
		}
		return nil
	}
	fresh := pointerOf(reflect.New(m.typ))
	if err := d.sub(mp, o.level, fresh, depth); err != nil {
		return err.withPrefix(o.path)
	}
	at.setIface(o.ifaces[idx], fresh)
	d.grow(1, m.typ.Size())
	return nil
}

// quat reads a quaternion field.
func (d *decoder) quat(o *op, at pointer, start int) *fieldError {
	v := d.r.ReadQuat(o.qq)
	if d.r.Err() != nil {
		return nil
	}
	if err := checkDecodedQuat(o, v, start); err != nil {
		return err
	}
	storeQuat(o, at, v)
	return nil
}

// check reads a serialize check.
func (d *decoder) check(o *op, start int) *fieldError {
	r := d.r
	r.Align()
	if v := r.ReadBits(32); r.Err() == nil && v != uint64(o.hash) {
		return newFieldError(o.path, start, ErrCheck, "check %q read %#08x, want %#08x: reader and writer disagree before this point", o.name, v, o.hash)
	}
	return nil
}

package bitpack

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack/bitio"
)

// A failed decode must leave the caller's value exactly as it was, even
// though decoding reuses the value's slices and pointers. Two strategies
// guarantee it:
//
//   - Most types (everything but custom hooks, unions and sparse arrays)
//     decode in one checked pass into a scratch value of the type, kept
//     between calls so its buffers are reused. Only when the whole value
//     (and for Unmarshal the whole packet) has been accepted is it copied
//     into the caller's value, into that value's own slices and pointers
//     (commit). The copy never shares memory with the scratch value.
//   - The rest decode twice: a validation pass reads and checks every field
//     but stores and allocates nothing (the plan runs with a nil base), then
//     a store pass decodes the accepted packet into the caller's value. The
//     validation pass hands the words it read to the store pass.
//
// Either way a length prefix is checked against maxlen, and against the
// bits left in the packet (at the elements' minimum size) before anything
// is allocated for it.

// Unmarshal decodes data into the value v points to. The whole packet must
// be consumed: after the value only the padding bits of the last byte may
// remain. On any error *v is left exactly as it was.
//
// Fields not on the wire (bits:"-", unexported) keep their values; slices
// reuse their capacity; pointers are reused when non-nil and allocated when
// nil; a zero-length slice is set to length 0 (nil stays nil).
func Unmarshal(data []byte, v any) error {
	if p, base, ok := planOfPointer(v); ok {
		return unmarshalPlan(data, p, p.typ, base)
	}
	t, base, err := targetOf(v, "Unmarshal")
	if err != nil {
		return err
	}
	p, err := planOf(t)
	if err != nil {
		return err
	}
	return unmarshalPlan(data, p, t, base)
}

// Decode reads one value from r into the value v points to, leaving r after
// it, so several values can share one packet. Trailing data is not checked.
// On error *v is untouched and r is left failed.
func Decode(r *bitio.Reader, v any) error {
	if r == nil {
		return errors.New("bitpack: Decode with a nil *bitio.Reader")
	}
	if p, base, ok := planOfPointer(v); ok {
		return decodeFrom(r, p, p.typ, base)
	}
	t, base, err := targetOf(v, "Decode")
	if err != nil {
		return err
	}
	p, err := planOf(t)
	if err != nil {
		return err
	}
	return decodeFrom(r, p, t, base)
}

func targetOf(v any, fn string) (reflect.Type, pointer, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer {
		return nil, pointer{}, fmt.Errorf("bitpack: %s needs a non-nil pointer, got %T", fn, v)
	}
	if rv.IsNil() {
		return nil, pointer{}, fmt.Errorf("bitpack: %s into a nil %s", fn, rv.Type())
	}
	if p, err := planOf(rv.Type().Elem()); err == nil {
		rememberPointerType(v, p)
	}
	return rv.Type().Elem(), pointerOf(rv), nil
}

func unmarshalPlan(data []byte, p *plan, t reflect.Type, base pointer) error {
	var r bitio.Reader
	r.Reset(data)
	if p.flat {
		return decodeFlat(&r, p, t, base, true, nil)
	}
	d := decoder{r: &r, words: new([16]uint64)}
	d.enter(nil)
	if ferr := d.validate(p); ferr != nil {
		return publicError("decode", t, ferr)
	}
	if rest := r.BitsRemaining(); rest >= 8 {
		return trailingError(t, &r)
	}
	r.Reset(data)
	if ferr := d.store(p, base); ferr != nil {
		// Unreachable: the store pass reads exactly what validation
		// accepted, and takes hooks' values from it rather than run them
		// again.
		return publicError("decode", t, ferr)
	}
	return nil
}

func trailingError(t reflect.Type, r *bitio.Reader) error {
	return &Error{Op: "decode", Type: t, Bit: r.BitsRead(), Err: ErrTrailing, Detail: trailingDetail(r.BitsRemaining() / 8)}
}

func decodeFrom(r *bitio.Reader, p *plan, t reflect.Type, base pointer) error {
	if err := r.Err(); err != nil {
		return err
	}
	frame := readerFrame(r)
	if p.flat {
		err := decodeFlat(r, p, t, base, false, frame)
		if err != nil {
			r.Fail(err)
		}
		return err
	}
	start := r.BitsRead()
	d := decoder{r: r, words: new([16]uint64)}
	d.enter(frame)
	ferr := d.validate(p)
	d.leave()
	if ferr != nil {
		err := publicError("decode", t, ferr)
		r.Fail(err)
		return err
	}
	r.Rewind(start)
	if ferr := d.store(p, base); ferr != nil {
		err := publicError("decode", t, ferr)
		r.Fail(err)
		return err
	}
	return nil
}

// decodeFlat decodes a flat plan in a single checked pass into a scratch
// value, and only once the whole value (and, for Unmarshal, the whole
// packet) has been accepted copies it into the target. The target is never
// written before that, so a failure leaves it untouched; it never shares
// memory with the scratch value, whose buffers are reused by the next
// decode of the type.
func decodeFlat(r *bitio.Reader, p *plan, t reflect.Type, base pointer, whole bool, frame *hookFrame) error {
	s := p.getScratch()
	tmp := s.base
	d := decoder{r: r, single: true}
	d.enter(frame)
	ferr := d.root(p, tmp)
	d.leave()
	var err error
	switch {
	case ferr != nil:
		err = publicError("decode", t, ferr)
	case whole && r.BitsRemaining() >= 8:
		err = trailingError(t, r)
	default:
		commit(p, base, tmp)
	}
	// A scratch value lives as long as its type is in use, and holds what
	// decodes allocated into it (slice backing arrays, pointees, strings).
	// Once that adds up past scratchKeepLimit over its life it is dropped,
	// so neither one big or hostile packet nor a series of them can pin
	// more than that for good; the common case (small packets, reused
	// buffers) allocates nothing and keeps its scratch forever.
	if s.grown += d.grown; s.grown <= scratchKeepLimit {
		p.putScratch(s)
	}
	return err
}

// scratchKeepLimit is the most a scratch value may have had allocated into
// it by decodes and still be kept for the next one.
const scratchKeepLimit = 64 << 10

// commit copies what a flat plan decoded from src into dst, into dst's own
// storage: byte slices and slices of scalars keep (or grow) their backing
// arrays, so dst never aliases src.
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
			b := d.bytes()
			*b = append((*b)[:0], *s.bytes()...)
		case opArray:
			for k := 0; k < o.n; k++ {
				commit(o.elem, d.at(uintptr(k)*o.stride), s.at(uintptr(k)*o.stride))
			}
		case opSlice:
			n := s.sliceLen()
			d.setSliceLen(o.typ, n)
			if n == 0 {
				break
			}
			if o.elem.dense { // pointer-free elements without off-wire fields: one copy
				d.sliceElem(0, 0).copyFrom(s.sliceElem(0, 0), uintptr(n)*o.stride)
				break
			}
			for k := 0; k < n; k++ {
				commit(o.elem, d.sliceElem(k, o.stride), s.sliceElem(k, o.stride))
			}
		case opPointer:
			se := s.elem()
			if se.isNil() {
				d.setNil()
				break
			}
			de := d.elem()
			if de.isNil() {
				de = d.setNew(o.typ)
			}
			commit(o.elem, de, se)
		}
	}
}

func trailingDetail(n int) string {
	if n == 1 {
		return "1 trailing byte after the value"
	}
	return fmt.Sprintf("%d trailing bytes after the value", n)
}

// decoder runs plans over a Reader. The validation pass reads each fused
// run of fixed-width fields that needs a check and keeps the words it read
// (up to len(words) of them; runs that need no check it skips); the store
// pass takes those words back in the same order instead of reading again,
// and only moves the Reader past them (lazily, in one Skip before the next
// op that reads). Both passes walk the same plan over the same bits, so the
// n-th checked run is the same run in both.
type decoder struct {
	r      *bitio.Reader
	single bool  // one checked pass that also stores (flat plans, into a scratch value)
	grown  int64 // bytes this decode allocated into a scratch value (see decodeFlat)

	depth0 int         // the depth the root plan runs at: 0, or a hook's (see hookDepths)
	limit  int64       // bytes this decode may allocate (see allocBaseBytes)
	spent  int64       // bytes allocated so far, by spend's count
	frame  *hookFrame  // the hook this decode runs in, or nil
	hooks  *hookValues // the validation pass's hook results, for the store pass
	words  *[16]uint64 // two-pass decodes: the words the validation pass keeps (nil in a single pass, which then zeroes less)
	n      int         // words kept by the validation pass
	next   int         // words taken by the store pass
	skip   int         // bits taken from words but not yet skipped in the Reader
}

// enter starts a decode: on the Reader a hook was handed (f non-nil),
// where the hook's decode stands (its depth, its allocation allowance and
// what it has spent); otherwise at depth 0 with an allowance for the bits
// the Reader holds.
func (d *decoder) enter(f *hookFrame) {
	if f != nil {
		d.depth0, d.limit, d.spent, d.frame = f.depth, f.limit, f.spent, f
		return
	}
	d.limit = allocBaseBytes + allocBytesPerBit*int64(d.r.BitsRemaining())
}

// leave hands what the decode spent back to the hook's decode.
func (d *decoder) leave() {
	if d.frame != nil {
		d.frame.spent = d.spent
	}
}

// Decoding allocates at most allocBaseBytes plus allocBytesPerBit for every
// bit of input: whatever the tags allow, a packet can never make one decode
// allocate more. The packet's bits already bound what needs them (a length
// prefix is checked against the bits left before anything is allocated),
// but values can be wide for few bits on the wire, or take none at all:
// elements whose only field is range=5..5, empty structs, structs whose
// other fields are skipped, a union member or a hook that reads nothing,
// sparse slots. Without this bound they multiply when they nest: a
// 145-byte packet could claim 128 MiB. 64 bytes per bit is more than any
// tagged value without skipped fields needs (a bool is 1 byte for 1 bit, an
// int64 with range=0..1 is 8), and 1 MiB covers small packets of wide
// values. Every slice, pointee, sparse slot, union member and hook value
// counts (empty ones as 1 byte, for the time it takes to visit them; a
// hook call as hookCallBytes more), whether or not the target's capacity is
// reused, so the outcome never depends on what the target held. Decodes
// inside a hook spend from their hook's decode. Compiling also refuses a
// single slice whose elements take no bits when maxlen × size exceeds
// allocBaseBytes (checkFreeSlices).
const (
	allocBaseBytes   = 1 << 20
	allocBytesPerBit = 64
)

// spend records n values of size bytes (at least 1 each) about to be
// allocated, and refuses the packet when the decode's allowance cannot
// cover them. Only the first pass spends (a single pass, or validation);
// the store pass of a validated packet allocates what validation paid for.
func (d *decoder) spend(n int, size uintptr, bit int) *fieldError {
	size = max(size, 1)
	cost := int64(n) * int64(size)
	if cost > d.limit-d.spent {
		what := fmt.Sprintf("%d values of %d bytes", n, size)
		if n == 1 {
			what = fmt.Sprintf("a value of %d bytes", size)
		}
		return newFieldError("", bit, ErrRange, "%s would take the decode past the %d bytes it may allocate for this input (1 MiB plus 64 bytes per bit)", what, d.limit)
	}
	d.spent += cost
	return nil
}

// grow records n new values of size bytes allocated into the value being
// decoded.
func (d *decoder) grow(n int, size uintptr) {
	d.grown += int64(n) * int64(size)
}

// validate runs the validation pass over a fresh value's worth of bits.
func (d *decoder) validate(p *plan) *fieldError {
	d.n, d.next, d.skip = 0, 0, 0
	if d.hooks != nil {
		d.hooks.reset()
	}
	return d.root(p, pointer{})
}

// store runs the store pass; the Reader must be back where validate began.
func (d *decoder) store(p *plan, base pointer) *fieldError {
	d.next, d.skip = 0, 0
	if d.hooks != nil {
		d.hooks.next = 0
	}
	err := d.root(p, base)
	d.sync()
	return err
}

func (d *decoder) root(p *plan, base pointer) *fieldError {
	if d.depth0+p.levels > MaxDepth {
		if d.depth0 > 0 {
			return newFieldError("", d.r.BitsRead(), ErrDepth, "more than %d nested levels", MaxDepth)
		}
		return newFieldError("", d.r.BitsRead(), ErrDepth, "type nests %d levels, more than %d", p.levels, MaxDepth)
	}
	return d.plan(p, base, d.depth0)
}

// sync moves the Reader past the bits the store pass took from words.
func (d *decoder) sync() {
	if d.skip > 0 {
		d.r.Skip(d.skip)
		d.skip = 0
	}
}

// plan reads a value following p and, unless base is nil (the validation
// pass), stores it at base. depth is the number of struct levels above the
// plan's root.
func (d *decoder) plan(p *plan, base pointer, depth int) *fieldError {
	store := !base.isNil()
	r := d.r
	ops := p.ops
	for i := 0; i < len(ops); i++ {
		o := &ops[i]
		if o.group > 0 {
			// A fused run of fixed-width fields: one word for all of them.
			var err *fieldError
			switch {
			case d.single && store && o.groupBits <= r.BitsRemaining():
				// The common case, without checkRun's call.
				start := r.BitsRead()
				err = storeWord(p, o, base, r.ReadBits(o.groupBits), start)
			case !store:
				err = d.checkRun(p, i, pointer{})
			case d.single:
				err = d.checkRun(p, i, base)
			default:
				d.storeRun(p, o, base)
			}
			if err != nil {
				return err
			}
			i += int(o.group) - 1
			continue
		}
		d.sync()
		start := r.BitsRead()
		var at pointer // stays nil in the validation pass: no address arithmetic on nil
		if store {
			at = base.at(o.offset)
		}
		switch o.kind {
		case opString:
			b := r.ReadStringBytes(o.n)
			if store && r.Err() == nil {
				if s := at.string(); *s != string(b) { // no allocation when unchanged
					*s = string(b)
					d.grow(len(b), 1)
				}
			}
		case opBytes:
			n := r.ReadBits(o.bits)
			if n > uint64(o.n) {
				return newFieldError(o.path, start, ErrRange, "length %d exceeds maxlen %d", n, o.n)
			}
			r.Align()
			if r.Err() == nil && n > uint64(r.BitsRemaining()/8) {
				return newFieldError(o.path, start, ErrOverflow, "needs %d bytes, %d remain", n, r.BitsRemaining()/8)
			}
			if !store {
				r.Skip(8 * int(n))
				break
			}
			b := at.bytes()
			if cap(*b) >= int(n) {
				*b = (*b)[:n]
			} else {
				*b = make([]byte, n)
				d.grow(int(n), 1)
			}
			r.ReadBytes(*b)
		case opByteArray:
			if store {
				r.ReadBytes(at.byteArray(o.n))
			} else {
				r.Align()
				if rest := r.BitsRemaining(); r.Err() == nil && o.n > rest/8 { // not 8*o.n: that can overflow a 32-bit int
					return newFieldError(o.path, r.BitsRead(), ErrOverflow, "needs %d bits, %d remain", 8*int64(o.n), rest)
				}
				r.Skip(8 * o.n)
			}
		case opArray:
			if err := d.elems(o, at, o.n, false, store, depth); err != nil {
				return err
			}
		case opSlice:
			n := r.ReadBits(o.bits)
			if r.Err() != nil {
				break
			}
			if n > uint64(o.n) {
				return newFieldError(o.path, start, ErrRange, "length %d exceeds maxlen %d", n, o.n)
			}
			// Spend unless the packet is too short for the elements anyway:
			// that error (which names the element that runs out) comes
			// first.
			fits := fitsIn(int(n), o.elem.minBits, r.BitsRemaining())
			if (!store || d.single) && fits {
				if err := d.spend(int(n), o.stride, start); err != nil {
					return err.withPrefix(o.path)
				}
			}
			if store && d.single && !fits {
				// A single-pass decode has not validated the rest yet, and
				// the packet cannot hold that many: refuse before allocating
				// (reading the elements without storing them names the one
				// that runs out).
				if err := d.elems(o, pointer{}, int(n), true, false, depth); err != nil {
					return err
				}
			}
			if store {
				if int(n) > at.sliceCap() {
					d.grow(int(n), o.stride)
				}
				at.setSliceLen(o.typ, int(n))
			}
			if err := d.elems(o, at, int(n), true, store, depth); err != nil {
				return err
			}
		case opPointer:
			present := r.ReadBits(1)
			if r.Err() != nil {
				break
			}
			if present == 0 {
				if store {
					at.setNil()
				}
				break
			}
			if (!store || d.single) && o.elem.minBits <= r.BitsRemaining() {
				if err := d.spend(1, o.typ.Size(), start); err != nil {
					return err.withPrefix(o.path)
				}
			}
			elem := pointer{}
			if store {
				if elem = at.elem(); elem.isNil() {
					if d.single && o.elem.minBits > r.BitsRemaining() {
						// Not validated yet, and the packet cannot hold
						// the pointee: name the field that runs out
						// rather than allocate first.
						if err := d.elem(o, pointer{}, depth); err != nil {
							return err.withPrefix(o.path)
						}
					}
					elem = at.setNew(o.typ)
					d.grow(1, o.typ.Size())
				}
			}
			if err := d.elem(o, elem, depth); err != nil {
				return err.withPrefix(o.path)
			}
		case opQuat:
			v := r.ReadQuat(o.qq) // refuses codes that are not canonical
			if r.Err() != nil {
				break
			}
			if store {
				storeQuat(o, at, v)
			}
		case opHook:
			if err := d.hook(o, at, store, depth); err != nil {
				return err
			}
		case opSparse:
			if err := d.sparse(o, at, store, depth); err != nil {
				return err
			}
		case opUnion:
			if err := d.union(o, at, store, depth); err != nil {
				return err
			}
		case opCheck:
			r.Align()
			if v := r.ReadBits(32); r.Err() == nil && v != uint64(o.hash) {
				return newFieldError(o.path, start, ErrCheck, "check %q read %#08x, want %#08x: reader and writer disagree before this point", o.name, v, o.hash)
			}
		}
		if err := r.Err(); err != nil {
			return fromBitio(o.path, start, err)
		}
	}
	return nil
}

// checkRun validates the fused run that starts at ops[i]: one read, then
// each field that can hold invalid bits against its limit. The word is
// kept for the store pass.
//
// A single-pass decode calls it with a non-nil base only when the packet
// ends inside the run (plan stores a whole run itself): the fields are
// then read, checked and stored one by one, so the error names the field
// that runs out.
func (d *decoder) checkRun(p *plan, i int, base pointer) *fieldError {
	r, o := d.r, &p.ops[i]
	if !o.checked && o.groupBits <= r.BitsRemaining() {
		// Any bits of these fields are valid: step over them (the store
		// pass reads them).
		r.Skip(o.groupBits)
		return nil
	}
	if o.groupBits > r.BitsRemaining() {
		// The packet ends inside the run: read field by field so the error
		// names the field that runs out.
		for k := i; k < i+int(o.group); k++ {
			so := &p.ops[k]
			bit := r.BitsRead()
			c := r.ReadBits(so.bits)
			if err := r.Err(); err != nil {
				return fromBitio(so.path, bit, err)
			}
			if err := decodeScalar(so, c, base, !base.isNil(), bit); err != nil {
				return err
			}
		}
		return nil // unreachable: the run did not fit, so a read failed
	}
	start := r.BitsRead()
	acc := r.ReadBits(o.groupBits)
	if d.words != nil && d.n < len(d.words) {
		d.words[d.n] = acc
		d.n++
	}
	for k := o.cLo; k < o.cHi; k++ {
		ck := &p.checks[k]
		if c := acc >> (ck.shift & 63) & ck.mask; c > ck.limit || ck.slow {
			if err := decodeScalar(&p.ops[ck.op], c, pointer{}, false, start+int(ck.shift)); err != nil {
				return err
			}
		}
	}
	return nil
}

// storeRun decodes the fused run headed by o into base. Its bits were
// validated, so each field only converts and stores; the word comes from
// the validation pass when it kept it.
func (d *decoder) storeRun(p *plan, o *op, base pointer) {
	var acc uint64
	if o.checked && d.next < d.n {
		acc = d.words[d.next]
		d.next++
		d.skip += o.groupBits
	} else {
		d.sync()
		acc = d.r.ReadBits(o.groupBits)
	}
	storeWord(p, o, base, acc, -1)
}

// storeWord stores the fields of the run headed by o from the word acc.
// With start >= 0 (the run's bit offset) it also checks each field, as a
// single-pass decode must; with start < 0 the word was validated already.
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
					if err := decodeScalar(&p.ops[sc.op+int32(j)], acc>>(shift&63)&sc.mask, base, true, start+int(shift)); err != nil {
						return err
					}
				}
			}
			continue
		}
		c := acc >> (sc.shift & 63) & sc.mask
		if start >= 0 && (c > sc.limit || sc.slow) {
			if err := decodeScalar(&p.ops[sc.op], c, pointer{}, false, start+int(sc.shift)); err != nil {
				return err
			}
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

// decodeScalar checks the bits c read for a fixed-width field and, when
// storing, writes the value at base + o.offset. bit is where c started.
func decodeScalar(o *op, c uint64, base pointer, store bool, bit int) *fieldError {
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
		if store {
			*base.at(o.offset).float32() = o.qf.Dequantize(uint32(c))
		}
		return nil
	case opQFloat64:
		if c > uint64(o.qf64.MaxCode()) {
			return newFieldError(o.path, bit, ErrRange, "compressed float code %d out of range [0, %d]", c, o.qf64.MaxCode())
		}
		if store {
			*base.at(o.offset).float64() = o.qf64.Dequantize(uint32(c))
		}
		return nil
	}
	if store {
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
	}
	return nil
}

// elems reads n elements of an array or slice field. Elements that are a
// single scalar skip the sub-plan machinery; packed raw full-width integers
// (any bits are valid: validation skips them) are one bitio.ReadUints call.
func (d *decoder) elems(o *op, at pointer, n int, slice, store bool, depth int) *fieldError {
	r := d.r
	elemAt := func(k int) pointer {
		switch {
		case !store:
			return pointer{}
		case slice:
			return at.sliceElem(k, o.stride)
		}
		return at.at(uintptr(k) * o.stride)
	}
	if so := o.rawElems(); so != nil {
		if !fitsIn(n, so.bits, r.BitsRemaining()) {
			return newFieldError(o.path, r.BitsRead(), ErrOverflow, "%d elements need %d bits, %d remain", n, int64(n)*int64(so.bits), r.BitsRemaining())
		}
		if !store {
			r.Skip(n * so.bits)
			return nil
		}
		first := at
		if slice {
			first = at.sliceElem(0, 0)
		}
		switch so.size {
		case 1:
			bitio.ReadUints(r, first.uint8s(n), 8)
		case 2:
			bitio.ReadUints(r, first.uint16s(n), 16)
		case 4:
			bitio.ReadUints(r, first.uint32s(n), 32)
		default:
			bitio.ReadUints(r, first.uint64s(n), 64)
		}
		return nil
	}
	if so := o.elem.scalar; so != nil {
		for k := 0; k < n; k++ {
			bit := r.BitsRead()
			c := r.ReadBits(so.bits)
			if err := r.Err(); err != nil {
				return fromBitio(joinPath(o.path+"["+strconv.Itoa(k)+"]", so.path), bit, err)
			}
			if err := decodeScalar(so, c, elemAt(k), store, bit); err != nil {
				return err.withPrefix(o.path + "[" + strconv.Itoa(k) + "]")
			}
		}
		return nil
	}
	for k := 0; k < n; k++ {
		if err := d.elem(o, elemAt(k), depth); err != nil {
			return err.withPrefix(o.path + "[" + strconv.Itoa(k) + "]")
		}
	}
	return nil
}

// elem runs an element's plan.
func (d *decoder) elem(o *op, at pointer, depth int) *fieldError {
	return d.sub(o.elem, o.level, at, depth)
}

// sub runs plan p for a value held by a field at struct level level of a
// plan running at depth, refusing nesting past MaxDepth before it reads
// anything.
func (d *decoder) sub(p *plan, level int, at pointer, depth int) *fieldError {
	dd := depth + level
	if dd+p.levels > MaxDepth {
		return newFieldError("", d.r.BitsRead()+d.skip, ErrDepth, "more than %d nested levels", MaxDepth)
	}
	return d.plan(p, at, dd)
}

// sparse reads the indices and values of a sparse field. Indices must
// increase (int_relative refuses anything else) and stay below the length;
// the index equal to the length ends the list. Absent elements become nil.
func (d *decoder) sparse(o *op, at pointer, store bool, depth int) *fieldError {
	r := d.r
	n := o.n
	if o.slice {
		start := r.BitsRead()
		v := r.ReadBits(o.bits)
		if r.Err() != nil {
			return nil // reported by the caller
		}
		if v > uint64(o.n) {
			return newFieldError(o.path, start, ErrRange, "length %d exceeds maxlen %d", v, o.n)
		}
		n = int(v)
		if !store || d.single {
			if err := d.spend(n, o.typ.Elem().Size(), start); err != nil {
				return err.withPrefix(o.path)
			}
		}
		if store {
			at.setSliceLen(o.typ, n)
		}
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
		if store {
			for ; next < int(idx); next++ {
				sparseSlot(o, at, next).setNil()
			}
		}
		if int(idx) == n {
			return nil
		}
		if !store || d.single {
			if err := d.spend(1, o.elem.typ.Size(), start); err != nil {
				return err.withPrefix(o.path + "[" + strconv.Itoa(int(idx)) + "]")
			}
		}
		var e pointer
		if store {
			slot := sparseSlot(o, at, int(idx))
			if e = slot.elem(); e.isNil() {
				e = slot.setNew(o.elem.typ)
			}
		}
		if err := d.elem(o, e, depth); err != nil {
			return err.withPrefix(o.path + "[" + strconv.Itoa(int(idx)) + "]")
		}
		d.sync()
		prev, next = idx, int(idx)+1
	}
}

// union reads a type index and the member it names into an interface
// field: into the *T the field already holds when it is the same type and
// the member was registered as a pointer, else into a new value.
func (d *decoder) union(o *op, at pointer, store bool, depth int) *fieldError {
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
		return &fieldError{path: o.path, bit: start, err: ErrRange, detail: err.Error(), cause: err}
	}
	if !store || d.single {
		if err := d.spend(1, m.typ.Size(), start); err != nil {
			return err.withPrefix(o.path)
		}
	}
	if !store {
		if err := d.sub(mp, o.level, pointer{}, depth); err != nil {
			return err.withPrefix(o.path)
		}
		return nil
	}
	iv := at.value(o.typ).Elem()
	var target pointer
	var fresh reflect.Value
	if cur := iv.Elem(); m.pointer && cur.IsValid() && cur.Type() == reflect.PointerTo(m.typ) && !cur.IsNil() {
		target = pointerOf(cur)
	} else {
		fresh = reflect.New(m.typ)
		target = pointerOf(fresh)
	}
	if err := d.sub(mp, o.level, target, depth); err != nil {
		return err.withPrefix(o.path)
	}
	if fresh.IsValid() {
		if m.pointer {
			iv.Set(fresh)
		} else {
			iv.Set(fresh.Elem())
		}
	}
	return nil
}

func storeQuat(o *op, at pointer, v [4]float32) {
	for i, off := range o.offs {
		if o.f64 {
			*at.at(off).float64() = float64(v[i])
		} else {
			*at.at(off).float32() = v[i]
		}
	}
}

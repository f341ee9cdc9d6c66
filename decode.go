package bitpack

import (
	"math/bits"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/frame"
)

// The decoder: one checked pass over the packet into a scratch value,
// following a plan's read program (read.go): fused runs are stored by it
// and here, every other op by its kind.

// A failed decode must leave the caller's value exactly as it was, even
// though decoding reuses the value's slices and pointers. So every decode
// runs one checked pass into a scratch value of the type, kept between
// calls so its buffers are reused, and only when the whole value (and for
// Unmarshal the whole packet) has been accepted is it committed into the
// caller's value (commit.go): copied into that value's own slices and
// pointers where they have room, or handed over (the scratch value lets go
// of them) where they do not. Nothing of the caller's value is written
// before, and the two never share memory after; nor does what the scratch
// value kept from earlier packets show in the result (see settle).
//
// A length prefix is checked against maxlen, and against the bits left in
// the packet (at the elements' minimum size) before anything is allocated
// for it; every allocation and every value visited is charged against the
// decode's allowances first (allowance.go).

// decoder runs plans over a Reader, storing into a scratch value.
type decoder struct {
	r      *bitio.Reader
	grown  int64  // bytes this decode allocated into the scratch value (see decodeScratch)
	depth0 int    // the depth the root plan runs at: 0, or a hook's
	budget budget // the allowances (see allowance.go)
	fresh  bool   // decoding into a new value (Union.Unmarshal and Union.Decode): no scratch, no commit
	// scratch: a delta's scratch value, whose spare pointees new ones come
	// from (see takeSpare); nil otherwise.
	scratch *scratch
	// undo: a delta decoded into its base itself changes it in place,
	// saving what it changes here (see delta_inplace.go); nil otherwise.
	// entry counts the map entries the decode is inside (new values).
	undo  *undoLog
	entry int
	// The flat pointee decoder.plan's last gate opened, and its pointer:
	// where the pointee's run steps, which follow the gate, store. (Kept
	// here, not in plan's registers; no other plan runs in between.)
	pointee pointer
	gate    *op
	// strs: the strings read and held back, to be made once the decode is
	// accepted (see setString); nil: strings are made as they are read,
	// as they are inside a map's entries (inMap > 0).
	strs  *[]pendingString
	inMap int
}

// enter starts a decode. With f, the frame of the Reader it reads (see
// internal/frame), it continues the decode the Reader is part of — a
// hook's (its depth, its allowances and what they have spent), or earlier
// Decodes on the same Reader — or, the first time, starts one with
// allowances for the bits the Reader holds. Without, it is a decode of its
// own, with allowances for the bits the Reader holds.
func (d *decoder) enter(f *frame.Frame) {
	if f == nil {
		d.budget = budgetFor(d.r.BitsRemaining())
		d.budget.bytes = decodeOverheadBytes
		return
	}
	if !f.Active {
		*f = frame.Frame{Active: true}
		b := budgetFor(d.r.BitsRemaining())
		b.bytes = decodeOverheadBytes // the decoder's own bookkeeping, once
		b.store(f)
	}
	d.depth0 = f.Depth
	d.budget.load(f)
}

// leave hands what the decode spent back to f, the frame it entered. (The
// decoder does not keep f: a pointer into the Reader, it would make the
// caller's Reader escape to the heap.)
func (d *decoder) leave(f *frame.Frame) {
	if f != nil {
		d.budget.store(f)
	}
}

// charge charges the allowances (see allowance.go) for what the packet
// is about to make the decode visit and allocate.
func (d *decoder) charge(work, bytes int64, n int, size uintptr, bit int) *fieldError {
	return d.budget.charge(work, bytes, n, size, bit)
}

// grow records n new values of size bytes allocated into the value being
// decoded.
func (d *decoder) grow(n int, size uintptr) {
	d.grown += int64(n) * int64(size)
}

// root decodes a whole value of p at base.
func (d *decoder) root(p *plan, base pointer) *fieldError {
	if err := d.start(p); err != nil {
		return err
	}
	return d.plan(p, base, d.depth0)
}

// start refuses types that nest past MaxDepth, and charges the root's
// cost, before anything is read or allocated for a value of p.
func (d *decoder) start(p *plan) *fieldError {
	if d.depth0+p.levels > MaxDepth {
		if d.depth0 > 0 {
			return newFieldError("", d.r.BitsRead(), ErrDepth, "more than %d nested levels", MaxDepth)
		}
		return newFieldError("", d.r.BitsRead(), ErrDepth, "type nests %d levels, more than %d", p.levels, MaxDepth)
	}
	work, bytes := rootCharge(p, d.fresh)
	return d.charge(work, bytes, 1, uintptr(p.bytes), d.r.BitsRead())
}

// runs decodes a value of a flat plan (see plan.fixedOnly): its runs, nothing
// else. It is plan for such plans, without the other kinds' calls, so
// that base, which may be on the caller's stack, does not escape.
func (d *decoder) runs(p *plan, base pointer) *fieldError {
	r, ops := d.r, p.ops
	for i := 0; i < len(ops); i += int(ops[i].group) {
		o := &ops[i]
		var err *fieldError
		switch {
		case o.groupBits > r.BitsRemaining():
			err = d.shortRun(p, i, base)
		case o.rawRun:
			readRaw(r, base.field(o.offset), int(o.group), o.size)
		default:
			start := r.BitsRead()
			acc := r.ReadBits(o.groupBits)
			if k := storeFields(o.scs, base, acc); k < len(o.scs) {
				err = storeSlow(p, o.scs[k:], base, acc, start)
			}
		}
		if err != nil {
			return err
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

// storeWord checks and stores the fields scs of a run of plan p from the
// word acc, read at bit start.
func storeWord(p *plan, scs []scalar, base pointer, acc uint64, start int) *fieldError {
	if k := storeFields(scs, base, acc); k < len(scs) {
		return storeSlow(p, scs[k:], base, acc, start)
	}
	return nil
}

// storeFields stores the fields scs of a run at base from their codes in
// the word acc, and returns how many entries it stored: all, or up to one
// with a field out of its range or one its kind stores (decSlow), for
// storeSlow to do with the rest. Its loop makes no call (a call would make
// the compiler keep its state on the stack for every field).
func storeFields(scs []scalar, base pointer, acc uint64) int {
	k := 0
	for ; k < len(scs); k++ {
		sc := &scs[k]
		at := base.field(sc.offset)
		c := acc >> (sc.shift & 63) & sc.mask
		if c > sc.limit {
			return k
		}
		switch sc.dec {
		case decU8:
			*at.u8() = uint8(c ^ sc.flip + sc.min)
		case decU16:
			*at.u16() = uint16(c ^ sc.flip + sc.min)
		case decU32:
			*at.u32() = uint32(c ^ sc.flip + sc.min)
		case decU64:
			*at.u64() = c ^ sc.flip + sc.min
		case decU8z:
			*at.u8() = uint8(c)
		case decU16z:
			*at.u16() = uint16(c)
		case decU32z:
			*at.u32() = uint32(c)
		case decQ32:
			*at.float32() = sc.q32.Dequantize(uint32(c))
		case decRunQ32:
			// Like fields side by side (a Vec3): one loop. The first's
			// code is c, checked.
			q, shift := &sc.q32, sc.shift
			for j := range int(sc.count) {
				if j > 0 {
					if c = acc >> (shift & 63) & sc.mask; c > sc.limit {
						return k
					}
				}
				*at.index(j, 4).float32() = q.Dequantize(uint32(c))
				shift += sc.width
			}
		case decRunU8:
			if !storeInts[uint8](sc, at, acc) {
				return k
			}
		case decRunU16:
			if !storeInts[uint16](sc, at, acc) {
				return k
			}
		case decRunU32:
			if !storeInts[uint32](sc, at, acc) {
				return k
			}
		case decRunU64:
			if !storeInts[uint64](sc, at, acc) {
				return k
			}
		default:
			return k
		}
	}
	return k
}

// storeSlow is storeWord from the entry scs[0] on, a field at a time, as
// its kind decodes it (decodeScalar: the same values, and the refusal
// worded): for an entry with a field out of its range (the fields of a
// run before it are stored again, alike), or one its kind stores (decSlow).
//
//go:noinline
func storeSlow(p *plan, scs []scalar, base pointer, acc uint64, start int) *fieldError {
	for k := range scs {
		sc := &scs[k]
		for j := range int(sc.count) {
			shift := uint64(sc.shift) + uint64(j)*uint64(sc.width)
			if err := decodeScalar(&p.ops[sc.op+int32(j)], acc>>(shift&63)&sc.mask, base, start+int(shift)); err != nil {
				return err
			}
		}
	}
	return nil
}

// storeInts stores the sc.count like integer fields sc stands for from
// their codes in acc, and reports whether all were in range (it stores
// nothing from the first that is not).
func storeInts[T uint8 | uint16 | uint32 | uint64](sc *scalar, at pointer, acc uint64) bool {
	shift := sc.shift
	for j := range int(sc.count) {
		c := acc >> (shift & 63) & sc.mask
		if c > sc.limit {
			return false
		}
		storeIndex(at, j, T(c^sc.flip+sc.min))
		shift += sc.width
	}
	return true
}

// fitsIn reports whether n values of each bits fit in rest bits (all three
// at least 0). It multiplies in 128 bits rather than divide: no overflow on
// any platform, and a hardware division costs more than a whole field.
func fitsIn(n int, each int64, rest int) bool {
	hi, lo := bits.Mul64(uint64(n), uint64(each))
	return hi == 0 && lo <= uint64(rest)
}

// countRefusal refuses a count, read just before bit, of n values (one
// and many name them: "element", "elements") of at least each bits that
// the rest bits left cannot hold. It is the one check a count gets before
// its values are read (docs/wire.md, "Truncated packets"), so the refusal
// depends neither on the values nor on the decoder's path or target: they
// are never read.
func countRefusal(path string, bit, n int, each int64, rest int, one, many string) *fieldError {
	need := min(satMul(int64(n), each), maxFigure)
	if n == 1 {
		return newFieldError(path, bit, ErrOverflow, "1 %s needs at least %d bits, %d remain", one, need, rest)
	}
	return newFieldError(path, bit, ErrOverflow, "%d %s need at least %d bits, %d remain", n, many, need, rest)
}

// decodeScalar checks the bits c read for a fixed-width field and stores
// the value at base + o.offset. bit is where c started. Its kind decides.
func decodeScalar(o *op, c uint64, base pointer, bit int) *fieldError {
	return storeScalar(o, c, base.field(o.offset), bit)
}

// storeScalar checks the bits c read at bit for the fixed-width field o
// and stores the value at at, o's own address. Its kind decides.
func storeScalar(o *op, c uint64, at pointer, bit int) *fieldError {
	switch o.kind {
	case KindCompressedFloat:
		return storeQuantized(o, c, at, bit)
	case KindTime:
		return storeTime(o, c, at, bit)
	}
	return storeInt(o, c, at, bit)
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

package bitpack

import (
	"math/bits"
)

// The stores of fused runs: a run's word read once, its fields checked
// and stored by storeFields without a call, the rest (a refusal to word,
// a float, a time) by their kinds; and the counts a length prefix is
// checked against.

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

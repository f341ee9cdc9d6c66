package bitpack

import (
	"math"
	"reflect"

	"github.com/bitpack-go/bitpack/bitio"
)

// Integers and bools: raw, ranged (range=A..B) and bits=N.

func (c *compiler) appendInt(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	k := t.Kind()
	signed := k >= reflect.Int && k <= reflect.Int64
	width := t.Bits()
	if k == reflect.Int || k == reflect.Uint {
		width = 64 // int and uint are 64 bits on the wire on every platform
		base.fit = t.Bits() < 64
	}
	base.size = t.Size()
	if !f.inherited && !only(o, func(r *tagOptions) {
		r.rangeSet, r.rangeLo, r.rangeHi, r.bitsSet, r.bits = false, "", "", false, 0
	}) {
		return nil, f.notApplicable(o, t)
	}
	if o.hasInt() && f.use != nil {
		f.use.ints = true
	}
	node := &Field{Type: t, Kind: KindUint}
	if signed {
		node.Kind = KindInt
	}
	switch {
	case o.rangeSet:
		node.Ranged = true
		if signed {
			lo, hi, ok := o.signedRange(width)
			if !ok {
				return nil, f.tagged(o, "range %s..%s does not fit %s", o.rangeLo, o.rangeHi, t)
			}
			base.kind, base.min, base.span = opRangeInt, uint64(lo), uint64(hi)-uint64(lo)
			node.IntMin, node.IntMax = lo, hi
		} else {
			lo, hi, ok := o.unsignedRange(width)
			if !ok {
				return nil, f.tagged(o, "range %s..%s does not fit %s", o.rangeLo, o.rangeHi, t)
			}
			base.kind, base.min, base.span = opRangeUint, lo, hi-lo
			node.UintMin, node.UintMax = lo, hi
		}
		base.bits = bitio.BitsRequired(0, base.span)
	case o.hasInt(): // bits=N
		if o.bits < 1 || o.bits > width {
			return nil, f.tagged(o, "bits=%d does not fit %s (1..%d)", o.bits, t, width)
		}
		base.bits = o.bits
		fallthrough
	default:
		if base.bits == 0 {
			base.bits = width
		}
		base.kind = opUint
		node.UintMax = math.MaxUint64 >> (64 - base.bits)
		if signed {
			base.kind = opInt
			node.IntMin, node.IntMax = -1<<(base.bits-1), 1<<(base.bits-1)-1
			node.UintMax = 0
		}
	}
	if base.fit { // the Go type is narrower than the wire on this platform
		if signed {
			node.IntMin, node.IntMax = max(node.IntMin, math.MinInt32), min(node.IntMax, math.MaxInt32)
		} else {
			node.UintMax = min(node.UintMax, math.MaxUint32)
		}
	}
	node.Bits = base.bits
	*ops = append(*ops, base)
	return node, nil
}

// intRun ORs into acc the codes of the run of integers that step st (an
// accRun) codes at at, and reports false if one is out of its range.
func intRun(acc uint64, at pointer, st *encStep) (uint64, bool) {
	switch st.elem {
	case accU8:
		return intRunOf[uint8](acc, at, st)
	case accU16:
		return intRunOf[uint16](acc, at, st)
	case accU32:
		return intRunOf[uint32](acc, at, st)
	case accI8:
		return intRunOf[int8](acc, at, st)
	case accI16:
		return intRunOf[int16](acc, at, st)
	case accI32:
		return intRunOf[int32](acc, at, st)
	}
	return intRunOf[uint64](acc, at, st) // accU64, accI64
}

func intRunOf[T uint8 | uint16 | uint32 | uint64 | int8 | int16 | int32](acc uint64, at pointer, st *encStep) (uint64, bool) {
	shift := st.shift
	for j := range uintptr(st.count) {
		code := uint64(loadAs[T](at.at(j*uintptr(st.size)))) - st.min
		if code > st.limit {
			return acc, false
		}
		acc |= (code ^ st.flip) << (shift & 63)
		shift += st.width
	}
	return acc, true
}

// runRefusal returns the error for the first integer of run step st that
// intRun refused.
func runRefusal(p *plan, st *encStep, at pointer) *fieldError {
	for j := range uintptr(st.count) {
		if _, err := scalarCode(&p.ops[st.op+int32(j)], at.at(j*uintptr(st.size))); err != nil {
			return err
		}
	}
	return newFieldError(p.ops[st.op].path, -1, ErrRange, "internal error: scalarCode accepts a run the encode program refused")
}

// intColumns codes an integer field (loaded as access says) in m values,
// at shift in the group word.
func intColumns(access uint8, col []uint64, g int, at pointer, stride uintptr, m int, st *encStep, shift uint8) bool {
	switch access {
	case accU8:
		return intColumn[uint8](col, g, at, stride, m, st, shift)
	case accU16:
		return intColumn[uint16](col, g, at, stride, m, st, shift)
	case accU32:
		return intColumn[uint32](col, g, at, stride, m, st, shift)
	case accI8:
		return intColumn[int8](col, g, at, stride, m, st, shift)
	case accI16:
		return intColumn[int16](col, g, at, stride, m, st, shift)
	case accI32:
		return intColumn[int32](col, g, at, stride, m, st, shift)
	}
	return intColumn[uint64](col, g, at, stride, m, st, shift) // accU64, accI64
}

// intColumn codes the integer field of step st in m values (a T each).
// Converting a signed T to uint64 sign-extends it, as the access constants
// want.
func intColumn[T uint8 | uint16 | uint32 | uint64 | int8 | int16 | int32](col []uint64, g int, at pointer, stride uintptr, m int, st *encStep, shift uint8) bool {
	min, limit, flip := st.min, st.limit, st.flip
	shift &= 63
	for k := 0; k < m; k++ {
		code := uint64(loadAs[T](at.at(uintptr(k)*stride))) - min
		if code > limit {
			return false
		}
		col[k*g] |= (code ^ flip) << shift
	}
	return true
}

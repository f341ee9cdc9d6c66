package bitpack

import (
	"math"

	"github.com/bitpack-go/bitpack/bitio"
)

// The encoder: runs a plan's program over a value, gathering fixed-width
// fields into words and handing every other op to its kind.

// encodeRoot writes the value at base following p, at depth0: 0, or the
// depth of the hook field whose MarshalBits is encoding it (see
// hookDepths).
func encodeRoot(w *bitio.Writer, p *plan, base pointer, depth0 int) *fieldError {
	if depth0+p.levels > MaxDepth {
		if depth0 > 0 {
			return newFieldError("", -1, ErrDepth, "more than %d nested levels (a cycle?)", MaxDepth)
		}
		return newFieldError("", -1, ErrDepth, "type nests %d levels, more than %d", p.levels, MaxDepth)
	}
	return encodePlan(w, p, base, depth0)
}

// encodePlan writes the value at base following p. depth is the number of
// struct levels above the plan's root.
func encodePlan(w *bitio.Writer, p *plan, base pointer, depth int) *fieldError {
	err, _ := encodeValues(w, p, base, 0, 1, depth)
	return err
}

// encodeValues writes n values of plan p: the first at first, each next one
// stride bytes further (the elements of an array or slice). It runs p.enc,
// one loop over values and steps with no call per value or per field,
// which is what makes a slice of small structs cheap: each fixed-width
// field is checked and its code gathered into the group's word, and the
// word goes out with one write. On error it also returns the index of
// the value that failed.
func encodeValues(w *bitio.Writer, p *plan, first pointer, stride uintptr, n int, depth int) (*fieldError, int) {
	steps := p.enc
	for k := 0; k < n; k++ {
		base := first.at(uintptr(k) * stride)
		for i := 0; i < len(steps); i++ {
			if st := &steps[i]; st.kind >= accOp {
				at := base.at(st.offset)
				switch st.kind {
				case accBytes:
					w.WriteBytes(at.byteArray(int(st.limit)))
					continue
				case accRaw:
					if n := at.sliceLen(); uint64(n) <= st.limit {
						w.WriteBitsUnchecked(uint64(n), int(st.width)) // n <= maxlen: fits
						writeRaw(w, at.sliceElem(0, 0), n, st.size)
						continue
					}
				}
				if err := encodeOp(w, p, &p.ops[st.op], at, depth); err != nil {
					return err, k
				}
				continue
			}
			// A group: gather the codes of its fields, then one write.
			// Every code was checked against its limit (so it fits its
			// width), which is what lets the word go out unchecked.
			var acc uint64
			for ; ; i++ {
				st := &steps[i]
				at := base.at(st.offset)
				var v uint64
				switch st.kind {
				case accU8:
					v = uint64(*at.u8())
				case accU16:
					v = uint64(*at.u16())
				case accU32:
					v = uint64(*at.u32())
				case accU64, accI64:
					v = *at.u64()
				case accI8:
					v = uint64(int64(int8(*at.u8())))
				case accI16:
					v = uint64(int64(int16(*at.u16())))
				case accI32:
					v = uint64(int64(int32(*at.u32())))
				case accQ32:
					// count floats 4 bytes apart, their codes width bits
					// apart: gathered here (v stays 0).
					shift := st.shift
					for j := range uintptr(st.count) {
						f := *at.at(4 * j).float32()
						var c uint32
						switch {
						case f >= st.lo && f <= st.hi: // lo is the quantizer's min
							c = st.q.QuantizeInRange(f)
						case st.clamp && f-f == 0: // clamping a finite value (f-f is 0 exactly when f is finite)
							c = st.q.Quantize(f)
						default:
							return refusal(&p.ops[st.op+int32(j)], at.at(4*j)), k
						}
						acc |= uint64(c) << (shift & 63)
						shift += st.width
					}
				case accRun:
					var ok bool
					if acc, ok = intRun(acc, at, st); !ok {
						return runRefusal(p, st, at), k
					}
					v = st.min + st.flip // codes 0: the run is in acc
				case accPtr:
					if !at.elem().isNil() {
						v = 1
					}
				case accQuat:
					var err *fieldError
					if v, err = quatWord(&p.ops[st.op], st.qq, at); err != nil {
						return err, k
					}
				default: // accQ64
					var err *fieldError
					if v, err = scalarCode(&p.ops[st.op], at); err != nil {
						return err, k
					}
				}
				// load, subtract, compare, xor: see the access constants.
				code := v - st.min
				if code > st.limit {
					return refusal(&p.ops[st.op], at), k
				}
				acc |= (code ^ st.flip) << (st.shift & 63)
				if st.last {
					w.WriteBitsUnchecked(acc, int(st.groupBits))
					break
				}
			}
			// A pointer's presence bit ends its group; the pointee follows.
			if st := &steps[i]; st.kind == accPtr {
				if err := encodePointee(w, &p.ops[st.op], base.at(st.offset).elem(), depth); err != nil {
					return err, k
				}
			}
		}
	}
	return nil, 0
}

// refusal returns the error of a fixed-width field whose value the encode
// program's quick test refused; scalarCode words it.
func refusal(o *op, at pointer) *fieldError {
	if _, err := scalarCode(o, at); err != nil {
		return err
	}
	return newFieldError(o.path, -1, ErrRange, "internal error: scalarCode accepts a value the encode program refused")
}

// encodeOp writes a field that is not part of a group: strings, byte
// arrays, loops, wide quaternions, hooks, sparse arrays, unions and checks.
func encodeOp(w *bitio.Writer, p *plan, o *op, at pointer, depth int) *fieldError {
	switch o.kind {
	case opString:
		s := *at.string()
		if len(s) > o.n {
			return newFieldError(o.path, -1, ErrRange, "string of %d bytes exceeds maxlen %d", len(s), o.n)
		}
		w.WriteString(s, o.n)
		if err := w.Err(); err != nil {
			return fromBitio(o.path, -1, err)
		}
	case opBytes:
		b := *at.bytes()
		if len(b) > o.n {
			return newFieldError(o.path, -1, ErrRange, "%d bytes exceed maxlen %d", len(b), o.n)
		}
		w.WriteBits(uint64(len(b)), o.bits)
		w.WriteBytes(b)
	case opByteArray:
		w.WriteBytes(at.byteArray(o.n))
	case opArray:
		return encodeElems(w, o, at, o.n, false, depth)
	case opSlice:
		n := at.sliceLen()
		if n > o.n {
			return newFieldError(o.path, -1, ErrRange, "slice of %d elements exceeds maxlen %d", n, o.n)
		}
		w.WriteBits(uint64(n), o.bits)
		return encodeElems(w, o, at, n, true, depth)
	case opQuat:
		v := loadQuat(o, at)
		if err := checkQuat(o, v); err != nil {
			return err
		}
		w.WriteQuat(o.qq, v)
	case opHook:
		return marshalHook(w, o, at, depth)
	case opSparse:
		return encodeSparse(w, o, at, depth)
	case opUnion:
		return encodeUnion(w, o, at, depth)
	case opCheck:
		w.Align()
		w.WriteBits(uint64(o.hash), 32)
	default:
		// Not reached: fixed-width fields and pointers are grouped steps
		// (buildEncode). Should that change, scalarCode codes a scalar and
		// refuses anything else with an internal error.
		code, err := scalarCode(o, at)
		if err != nil {
			return err
		}
		w.WriteBits(code, o.bits)
	}
	return nil
}

// scalarCode checks the fixed-width field at at against its tag and
// returns the bits to write for it.
func scalarCode(o *op, at pointer) (uint64, *fieldError) {
	switch o.kind {
	case opBool:
		if *at.bool() {
			return 1, nil
		}
		return 0, nil
	case opUint:
		v := at.loadUint(o.size)
		if o.bits < 64 && v>>o.bits != 0 {
			return 0, newFieldError(o.path, -1, ErrRange, "value %d does not fit in %d bits", v, o.bits)
		}
		return v, nil
	case opInt:
		v := at.loadInt(o.size)
		if o.bits < 64 {
			if lim := int64(1) << (o.bits - 1); v < -lim || v >= lim {
				return 0, newFieldError(o.path, -1, ErrRange, "value %d does not fit in %d bits (range [%d, %d])", v, o.bits, -lim, lim-1)
			}
			return uint64(v) & (1<<o.bits - 1), nil
		}
		return uint64(v), nil
	case opRangeUint:
		// v-min wraps to a huge offset below min, so one compare checks both
		// ends: the offset is at most span only inside [min, max].
		v := at.loadUint(o.size)
		if v-o.min > o.span {
			return 0, newFieldError(o.path, -1, ErrRange, "value %d out of range [%d, %d]", v, o.min, o.min+o.span)
		}
		return v - o.min, nil
	case opRangeInt:
		v := at.loadInt(o.size)
		if uint64(v)-o.min > o.span {
			return 0, newFieldError(o.path, -1, ErrRange, "value %d out of range [%d, %d]", v, int64(o.min), int64(o.min+o.span))
		}
		return uint64(v) - o.min, nil
	case opFloat32:
		return uint64(math.Float32bits(*at.float32())), nil
	case opFloat64:
		return math.Float64bits(*at.float64()), nil
	case opQFloat32:
		v := *at.float32()
		if f := float64(v); !(f >= o.lo && f <= o.hi) {
			if err := floatRefusal(o, f); err != nil {
				return 0, err
			}
		}
		return uint64(o.qf.Quantize(v)), nil
	case opQFloat64:
		v := *at.float64()
		if !(v >= o.lo && v <= o.hi) {
			if err := floatRefusal(o, v); err != nil {
				return 0, err
			}
		}
		return uint64(o.qf64.Quantize(v)), nil
	}
	// Unreachable: fuse puts only scalar kinds in groups.
	return 0, newFieldError(o.path, -1, ErrRange, "internal error: op kind %d is not a scalar", o.kind)
}

// encodeElem runs an element's plan.
func encodeElem(w *bitio.Writer, o *op, at pointer, depth int) *fieldError {
	return encodeSub(w, o.elem, o.level, at, depth)
}

// encodeSub runs plan p for a value held by a field at struct level level
// of a plan running at depth: one struct level deeper when the field sits
// inside a struct, refusing to go past MaxDepth.
func encodeSub(w *bitio.Writer, p *plan, level int, at pointer, depth int) *fieldError {
	d := depth + level
	if d+p.levels > MaxDepth {
		return newFieldError("", -1, ErrDepth, "more than %d nested levels (a cycle?)", MaxDepth)
	}
	return encodePlan(w, p, at, d)
}

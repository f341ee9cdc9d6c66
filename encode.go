package bitpack

import (
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
	return encodeValue(w, p, base, depth)
}

// encodeValues writes n values of plan p: the first at first, each next one
// stride bytes further (the elements of an array or slice). On error it
// also returns the index of the value that failed.
func encodeValues(w *bitio.Writer, p *plan, first pointer, stride uintptr, n int, depth int) (*fieldError, int) {
	for k := 0; k < n; k++ {
		if err := encodeValue(w, p, first.index(k, stride), depth); err != nil {
			return err, k
		}
	}
	return nil, 0
}

// encodeValue writes the value at root following p's program, p.run:
// one loop over its steps with no call per field, which is what makes a
// struct of small fields cheap: each fixed-width field is checked and its
// code gathered into the group's word, and the word goes out with one
// write.
//
// Every code in a group was checked against its field's limit (so it fits
// its width), which is what lets the word go out unchecked; a code out of
// range comes back from its kind (fieldCode: clamped, or the refusal) as
// wire bits, which are un-xored to be xored again. A pointer's presence
// bit ends its group; the pointee follows, spliced into the program (its
// steps run on it, then accEndPointee) or a plan of its own.
func encodeValue(w *bitio.Writer, p *plan, root pointer, depth int) (err *fieldError) {
	steps, base := p.run, root
	for i := 0; i < len(steps); i++ {
		if st := &steps[i]; st.kind >= accOp {
			at := base.field(st.offset)
			switch st.kind {
			case accEndPointee: // back from a spliced pointee (never nested)
				base = root
				continue
			case accBytes:
				w.WriteBytes(at.byteArray(int(st.limit)))
				continue
			case accRawRun:
				writeRaw(w, at, int(st.limit), st.size)
				continue
			case accString: // encodeString's work, without the calls (encodeOp words a refusal)
				if s := *at.string(); uint64(len(s)) <= st.limit {
					if w.WriteString(s, int(st.limit)); w.Err() == nil {
						continue
					}
				}
			case accRaw:
				if n := at.sliceLen(); uint64(n) <= st.limit {
					w.WriteBitsUnchecked(uint64(n), int(st.width)) // n <= maxlen: fits
					writeRaw(w, at.sliceElem(0, 0), n, st.size)
					continue
				}
			}
			if err := encodeOp(w, &p.runOps[st.op], at, depth); err != nil {
				return err
			}
			continue
		}
		var acc uint64 // a group: the codes of its fields gathered, then one write
		for ; ; i++ {
			st := &steps[i]
			at := base.field(st.offset)
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
			case accQ32: // count floats 4 bytes apart, their codes width bits apart: gathered here (v stays 0)
				for j, shift := 0, st.shift; j < int(st.count); j, shift = j+1, shift+st.width {
					f := *at.index(j, 4).float32()
					c, ok := float32InRange(&st.q, st.lo, st.hi, f)
					if !ok {
						if c, ok = float32Outside(&st.q, st.clamp, f); !ok {
							return refusal(&p.runOps[st.op+int32(j)], at.index(j, 4))
						}
					}
					acc |= uint64(c) << (shift & 63)
				}
			case accRun:
				var ok bool
				if acc, ok = intRun(acc, at, st); !ok {
					if acc, err = intRunSlow(p.runOps, acc, at, st); err != nil {
						return err
					}
				}
				v = st.min + st.flip // codes 0: the run is in acc
			case accPtr:
				v = presenceBit(at)
			case accQuat:
				if v, err = quatWord(&p.runOps[st.op], st.qq, at); err != nil {
					return err
				}
			default: // accQ64, accSlow: the kind codes it (st.min 0, no flip)
				if v, err = fieldCode(&p.runOps[st.op], at); err != nil {
					return err
				}
			}
			code := v - st.min   // load, subtract, compare, xor: see intCode
			if code > st.limit { // out of range: the kind's code (clamped) or refusal
				if code, err = outOfRange(&p.runOps[st.op], at, st.flip); err != nil {
					return err
				}
			}
			acc |= (code ^ st.flip) << (st.shift & 63)
			if st.last {
				w.WriteBitsUnchecked(acc, int(st.groupBits))
				break
			}
		}
		if st := &steps[i]; st.kind == accPtr { // the pointee follows
			if e := base.field(st.offset).elem(); st.spliced != 0 && depth+int(st.levels) <= MaxDepth {
				if !e.isNil() {
					base = e // its steps run on it, then accEndPointee
					continue
				}
			} else if err := encodePointee(w, &p.runOps[st.op], e, depth); err != nil { // (it words the refusal)
				return err
			}
			i += int(st.spliced) // its steps and accEndPointee skipped: nil, or its own plan ran
		}
	}
	return nil
}

// presenceBit is the presence bit of the pointer at at.
func presenceBit(at pointer) uint64 {
	if at.elem().isNil() {
		return 0
	}
	return 1
}

// outOfRange returns the code of a fixed-width field whose value the
// encode program's quick test found out of range, from its kind (clamped,
// or the refusal), xored with flip as the program's codes are before
// they are xored again.
func outOfRange(o *op, at pointer, flip uint64) (uint64, *fieldError) {
	code, err := fieldCode(o, at)
	return code ^ flip, err
}

// refusal returns the error of a fixed-width field whose value the encode
// program's quick test refused; scalarCode words it.
func refusal(o *op, at pointer) *fieldError {
	if _, err := fieldCode(o, at); err != nil {
		return err
	}
	return newFieldError(o.path, -1, ErrRange, "internal error: scalarCode accepts a value the encode program refused")
}

// encodeOp writes a field that is not part of a group: strings, byte
// arrays, loops, wide quaternions, hooks, sparse arrays, unions and checks,
// each by its kind. (Fixed-width fields and pointers are grouped steps, see
// buildEncode; should one come here, its kind codes it.)
func encodeOp(w *bitio.Writer, o *op, at pointer, depth int) *fieldError {
	switch o.kind {
	case KindString:
		return encodeString(w, o, at, depth)
	case KindBytes:
		return encodeBytes(w, o, at, depth)
	case KindByteArray:
		return encodeByteArray(w, o, at, depth)
	case KindArray:
		return encodeArray(w, o, at, depth)
	case KindSlice:
		return encodeSlice(w, o, at, depth)
	case KindPointer:
		return encodePointer(w, o, at, depth)
	case KindQuat:
		return encodeQuat(w, o, at, depth)
	case KindCustom:
		return marshalHook(w, o, at, depth)
	case KindSparse:
		return encodeSparse(w, o, at, depth)
	case KindUnion:
		return encodeUnion(w, o, at, depth)
	case KindCheck:
		return encodeCheck(w, o, at, depth)
	case KindMap:
		return encodeMap(w, o, at, depth)
	}
	code, err := fieldCode(o, at)
	if err != nil {
		return err
	}
	w.WriteBits(code, o.bits)
	return nil
}

// fieldCode checks the fixed-width field o at at against its tag and
// returns the bits to write for it, or its kind's refusal.
func fieldCode(o *op, at pointer) (uint64, *fieldError) {
	switch o.kind {
	case KindCompressedFloat:
		return quantizedCode(o, at)
	case KindBool, KindInt, KindUint, KindFloat:
		return intFieldCode(o, at)
	case KindTime:
		return timeFieldCode(o, at)
	}
	return 0, newFieldError(o.path, -1, ErrRange, "internal error: %s is not a fixed-width kind", o.kind)
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

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
//
// Every code in a group was checked against its field's limit (so it fits
// its width), which is what lets the word go out unchecked; a code out of
// range comes back from its kind (fieldCode: clamped, or the refusal) as
// wire bits, which are un-xored to be xored again. A pointer's presence
// bit ends its group; the pointee follows, spliced into the program (its
// steps run on it, then accEndPointee) or a plan of its own.
func encodeValues(w *bitio.Writer, p *plan, first pointer, stride uintptr, n int, depth int) (*fieldError, int) {
	steps := p.run
	for k := 0; k < n; k++ {
		base := first.index(k, stride)
		for i := 0; i < len(steps); i++ {
			if st := &steps[i]; st.kind >= accOp {
				at := base.field(st.offset)
				switch st.kind {
				case accEndPointee: // back from a spliced pointee (never nested)
					base = first.index(k, stride)
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
					return err, k
				}
				continue
			}
			// A group: gather the codes of its fields, then one write.
			var acc uint64
			for ; ; i++ {
				st := &steps[i]
				at := base.field(st.offset)
				var v uint64
				var err *fieldError
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
					shift := st.shift
					for j := range int(st.count) {
						f := *at.index(j, 4).float32()
						c, ok := float32InRange(&st.q, st.lo, st.hi, f)
						if !ok {
							if c, ok = float32Outside(&st.q, st.clamp, f); !ok {
								return refusal(&p.runOps[st.op+int32(j)], at.index(j, 4)), k
							}
						}
						acc |= uint64(c) << (shift & 63)
						shift += st.width
					}
				case accRun:
					var ok bool
					if acc, ok = intRun(acc, at, st); !ok {
						if acc, err = intRunSlow(p.runOps, acc, at, st); err != nil {
							return err, k
						}
					}
					v = st.min + st.flip // codes 0: the run is in acc
				case accPtr:
					if !at.elem().isNil() {
						v = 1
					}
				case accQuat:
					if v, err = quatWord(&p.runOps[st.op], st.qq, at); err != nil {
						return err, k
					}
				default: // accQ64, accSlow: the kind codes it (st.min 0, no flip)
					if v, err = fieldCode(&p.runOps[st.op], at); err != nil {
						return err, k
					}
				}
				// load, subtract, compare, xor: see intCode.
				code := v - st.min
				if code > st.limit { // out of range
					if code, err = fieldCode(&p.runOps[st.op], at); err != nil {
						return err, k
					}
					code ^= st.flip
				}
				acc |= (code ^ st.flip) << (st.shift & 63)
				if st.last {
					w.WriteBitsUnchecked(acc, int(st.groupBits))
					break
				}
			}
			if st := &steps[i]; st.kind == accPtr { // the pointee follows
				e := base.field(st.offset).elem()
				switch {
				case st.spliced == 0 || depth+int(st.levels) > MaxDepth: // (encodePointee words the refusal)
					if err := encodePointee(w, &p.runOps[st.op], e, depth); err != nil {
						return err, k
					}
					i += int(st.spliced)
				case e.isNil():
					i += int(st.spliced) // its steps and accEndPointee
				default:
					base = e
				}
			}
		}
	}
	return nil, 0
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

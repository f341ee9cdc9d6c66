package bitpack

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// Marshaler is implemented by types that write themselves. MarshalBits
// writes the value's bits to w; the matching UnmarshalBits must read exactly
// those bits back and refuse anything else. A type that implements one of
// the two hooks must implement both.
type Marshaler interface {
	MarshalBits(w *bitio.Writer) error
}

// Unmarshaler is the decoding half of Marshaler. UnmarshalBits must treat
// the bits as hostile (refuse, never panic). It is called once per decoded
// field, on a new zero value of the type, while the packet is validated;
// the field is set to that value (a shallow copy) only once the whole
// packet is accepted, so a failed decode never shows partial state and the
// field's previous value plays no part. A hook that nests a bitpack type
// should decode it with Decode (or Codec.Decode, Union.Decode) on the
// Reader it was given, and encode it with Encode on the Writer: MaxDepth
// then counts the levels above the hook too, and each hook call as one
// level, so a hook type that decodes its own type recursively is stopped
// at MaxDepth like a recursive struct. (A hook on a type that is not a
// struct, a slice say, therefore costs one level more than the same data
// without the hook.)
type Unmarshaler interface {
	UnmarshalBits(r *bitio.Reader) error
}

// Marshal returns the encoding of v: a pointer to a value (the value is
// encoded, not the pointer) or a value.
func Marshal(v any) ([]byte, error) {
	if p, base, ok := planOfPointer(v); ok {
		return marshalPlan(p, p.typ, base)
	}
	t, base, err := valueOf(v, "Marshal")
	if err != nil {
		return nil, err
	}
	p, err := planOf(t)
	if err != nil {
		return nil, err
	}
	return marshalPlan(p, t, base)
}

// Append appends the encoding of v to dst and returns the extended slice. It
// allocates nothing when dst has the capacity. On error it returns dst
// unchanged (bytes past len(dst) may have been overwritten).
func Append(dst []byte, v any) ([]byte, error) {
	if p, base, ok := planOfPointer(v); ok {
		return appendPlan(dst, p, p.typ, base)
	}
	t, base, err := valueOf(v, "Append")
	if err != nil {
		return dst, err
	}
	p, err := planOf(t)
	if err != nil {
		return dst, err
	}
	return appendPlan(dst, p, t, base)
}

// Encode writes v to w, so several values can share one packet. On error
// nothing of v stays in w, and w is left failed (its Err is set).
func Encode(w *bitio.Writer, v any) error {
	if w == nil {
		return errors.New("bitpack: Encode with a nil *bitio.Writer")
	}
	if p, base, ok := planOfPointer(v); ok {
		return encodeTo(w, p, p.typ, base)
	}
	t, base, err := valueOf(v, "Encode")
	if err != nil {
		return err
	}
	p, err := planOf(t)
	if err != nil {
		return err
	}
	return encodeTo(w, p, t, base)
}

// valueOf finds the type to encode and the address of the value: the
// pointee for a non-nil pointer, or a copy of a non-pointer value.
func valueOf(v any, fn string) (reflect.Type, pointer, error) {
	rv := reflect.ValueOf(v)
	switch {
	case !rv.IsValid():
		return nil, pointer{}, fmt.Errorf("bitpack: %s(nil)", fn)
	case rv.Kind() == reflect.Pointer:
		if rv.IsNil() {
			return nil, pointer{}, fmt.Errorf("bitpack: %s of a nil %s", fn, rv.Type())
		}
		if p, err := planOf(rv.Type().Elem()); err == nil {
			rememberPointerType(v, p)
		}
		return rv.Type().Elem(), pointerOf(rv), nil
	}
	c := reflect.New(rv.Type())
	c.Elem().Set(rv)
	return rv.Type(), pointerOf(c), nil
}

// scratchBuffers holds the buffers Marshal encodes into before copying the
// result into a slice of exactly the right size.
var scratchBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func marshalPlan(p *plan, t reflect.Type, base pointer) ([]byte, error) {
	bp := scratchBuffers.Get().(*[]byte)
	buf, err := appendPlan((*bp)[:0], p, t, base)
	if err != nil {
		scratchBuffers.Put(bp)
		return nil, err
	}
	out := make([]byte, len(buf))
	copy(out, buf)
	putScratchBuffer(bp, buf)
	return out, nil
}

// putScratchBuffer gives buf, grown from *bp, back to scratchBuffers —
// unless it grew past 64 KiB: one huge packet must not keep its buffer
// alive for good.
func putScratchBuffer(bp *[]byte, buf []byte) {
	if cap(buf) <= 64<<10 {
		*bp = buf[:0]
		scratchBuffers.Put(bp)
	}
}

func appendPlan(dst []byte, p *plan, t reflect.Type, base pointer) ([]byte, error) {
	var w bitio.Writer
	w.Reset(dst)
	var ferr *fieldError
	if p.levels <= MaxDepth {
		ferr, _ = encodeValues(&w, p, base, 0, 1, 0) // encodeRoot's work, without a call
	} else {
		ferr = encodeRoot(&w, p, base, 0)
	}
	if ferr != nil {
		return dst, publicError("encode", t, ferr)
	}
	return w.Bytes(), nil
}

func encodeTo(w *bitio.Writer, p *plan, t reflect.Type, base pointer) error {
	if err := w.Err(); err != nil {
		return err
	}
	start := w.BitsWritten()
	if ferr := encodeRoot(w, p, base, hookDepth(w)); ferr != nil {
		err := publicError("encode", t, ferr)
		w.Rewind(start)
		w.Fail(err)
		return err
	}
	return nil
}

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

// quatWord returns the wire word of the quaternion o at at, coded by qq (at
// most 64 bits), or its refusal. (A call of its own: inline, its registers
// would crowd encodeValues' loop.)
func quatWord(o *op, qq *quant.Quat, at pointer) (uint64, *fieldError) {
	x, y, z, w := *at.at(o.offs[0]).float32(), *at.at(o.offs[1]).float32(), *at.at(o.offs[2]).float32(), *at.at(o.offs[3]).float32()
	word, ok := qq.EncodeWord(x, y, z, w)
	// A NaN or infinite component makes the norm NaN or infinite too, so
	// this test admits exactly what checkQuat does.
	if !ok || !(math.Abs(quatNorm2(x, y, z, w)-1) <= quatNormTolerance) {
		if err := checkQuat(o, [4]float32{x, y, z, w}); err != nil {
			return 0, err
		}
	}
	return word, nil
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

// encodeElems writes n elements of an array or slice field. Elements that
// are a single scalar skip the sub-plan machinery; packed raw full-width
// integers (nothing to check) are one bitio.WriteUints call.
func encodeElems(w *bitio.Writer, o *op, at pointer, n int, slice bool, depth int) *fieldError {
	first := at
	if slice {
		first = at.sliceElem(0, 0)
	}
	if so := o.rawElems(); so != nil {
		writeRaw(w, first, n, uint8(so.size))
		return nil
	}
	if n == 0 {
		return nil
	}
	d := depth + o.level
	if d+o.elem.levels > MaxDepth {
		return newFieldError(o.path+"[0]", -1, ErrDepth, "more than %d nested levels (a cycle?)", MaxDepth)
	}
	var err *fieldError
	var k int
	if e := o.elem; n >= columnMin && e.groups > 0 && e.groups*columnMin <= columnWords {
		err, k = encodeColumns(w, e, first, o.stride, n, d)
	} else {
		err, k = encodeValues(w, e, first, o.stride, n, d)
	}
	if err != nil {
		return err.withPrefix(o.path + "[" + strconv.Itoa(k) + "]")
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

// columnWords is the size of encodeColumns' buffer of group words (2 KiB,
// on the stack); arrays and slices of fewer than columnMin elements go
// through encodeValues.
const (
	columnWords = 256
	columnMin   = 4
)

// encodeColumns writes n values of plan p exactly as encodeValues does, a
// chunk of values at a time, in two passes over the chunk. The first
// computes the words of every value's groups one step at a time for all
// the values, so each loop over the values handles one kind of field
// with nothing to dispatch; the second writes the words in order, running
// the plan's other ops (strings, pointers, ...) in their places. When the
// first pass refuses a value, the chunk goes through encodeValues instead,
// which stops at the first refusal in wire order with the usual error.
func encodeColumns(w *bitio.Writer, p *plan, first pointer, stride uintptr, n int, depth int) (*fieldError, int) {
	var buf [columnWords]uint64
	g := p.groups
	chunk := columnWords / g
	for start := 0; start < n; start += chunk {
		m := min(chunk, n-start)
		base := first.at(uintptr(start) * stride)
		codes := buf[:m*g]
		clear(codes)
		if !fillColumns(p, codes, base, stride, m) {
			if err, k := encodeValues(w, p, base, stride, m, depth); err != nil {
				return err, start + k
			}
			continue
		}
		if len(p.encOut) == 1 { // one group, nothing else: the words back to back
			bitio.WriteUints(w, codes, int(p.encOut[0].bits))
			continue
		}
		for k := 0; k < m; k++ {
			row := codes[k*g : k*g+g]
			j := 0
			for _, out := range p.encOut {
				if out.op < 0 {
					w.WriteBitsUnchecked(row[j], int(out.bits)) // checked codes, as in encodeValues
					j++
					continue
				}
				o := &p.ops[out.op]
				at := base.at(uintptr(k)*stride + o.offset)
				var err *fieldError
				if out.pointee {
					err = encodePointee(w, o, at.elem(), depth)
				} else {
					err = encodeOp(w, p, o, at, depth)
				}
				if err != nil {
					return err, start + k
				}
			}
		}
	}
	return nil, 0
}

// fillColumns ORs the code of every grouped field of m values into codes,
// where value k's words start at codes[k*p.groups]. It reports false when
// a value is refused.
func fillColumns(p *plan, codes []uint64, base pointer, stride uintptr, m int) bool {
	g := p.groups
	for i := range p.enc {
		st := &p.enc[i]
		col, at := codes[st.group:], base.at(st.offset)
		var ok bool
		if st.kind >= accOp { // ops: written in the second pass
			continue
		}
		switch st.kind {
		case accU8, accU16, accU32, accU64, accI8, accI16, accI32, accI64:
			ok = intColumns(st.kind, col, g, at, stride, m, st, st.shift)
		case accRun:
			shift := st.shift
			ok = true
			for j := uintptr(0); j < uintptr(st.count) && ok; j++ {
				ok = intColumns(st.elem, col, g, at.at(j*uintptr(st.size)), stride, m, st, shift)
				shift += st.width
			}
		case accQ32:
			ok = floatColumn(col, g, at, stride, m, st)
		case accQuat:
			ok = quatColumn(&p.ops[st.op], col, g, at, stride, m, st)
		case accPtr:
			ok = true
			for k := 0; k < m; k++ {
				if !at.at(uintptr(k) * stride).elem().isNil() {
					col[k*g] |= 1 << (st.shift & 63)
				}
			}
		default: // accQ64
			o := &p.ops[st.op]
			ok = true
			for k := 0; k < m && ok; k++ {
				code, err := scalarCode(o, at.at(uintptr(k)*stride))
				col[k*g] |= code << (st.shift & 63)
				ok = err == nil
			}
		}
		if !ok {
			return false
		}
	}
	return true
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

// floatColumn codes the st.count float32 fields of step st in m values.
func floatColumn(col []uint64, g int, at pointer, stride uintptr, m int, st *encStep) bool {
	q, lo, hi, clamp, shift := st.q, st.lo, st.hi, st.clamp, st.shift
	for j := range uintptr(st.count) {
		for k := 0; k < m; k++ {
			f := loadAs[float32](at.at(uintptr(k)*stride + 4*j))
			var c uint32
			switch {
			case f >= lo && f <= hi:
				c = q.QuantizeInRange(f)
			case clamp && f-f == 0: // outside the bounds: refused unless clamping a finite value
				c = q.Quantize(f)
			default:
				return false
			}
			col[k*g] |= uint64(c) << (shift & 63)
		}
		shift += st.width
	}
	return true
}

// quatColumn codes the quaternion o of step st in m values.
func quatColumn(o *op, col []uint64, g int, at pointer, stride uintptr, m int, st *encStep) bool {
	for k := 0; k < m; k++ {
		v := at.at(uintptr(k) * stride)
		x, y, z, w := loadAs[float32](v.at(o.offs[0])), loadAs[float32](v.at(o.offs[1])), loadAs[float32](v.at(o.offs[2])), loadAs[float32](v.at(o.offs[3]))
		word, ok := st.qq.EncodeWord(x, y, z, w)
		if !ok || !(math.Abs(quatNorm2(x, y, z, w)-1) <= quatNormTolerance) && !zeroQuat(x, y, z, w) {
			return false
		}
		col[k*g] |= word << (st.shift & 63)
	}
	return true
}

// checkQuat refuses quaternions that cannot be encoded meaningfully: a NaN
// or infinite component, or a norm far from 1 (smallest-three rebuilds the
// largest component from the unit-length assumption, so a scaled
// quaternion would decode as a different rotation). The all-zero
// quaternion, Go's zero value, is accepted: it encodes as the identity.
func checkQuat(o *op, v [4]float32) *fieldError {
	for _, c := range v {
		if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
			return newFieldError(o.path, -1, ErrRange, "quaternion %v has a component that is not finite", v)
		}
	}
	if n2 := quatNorm2(v[0], v[1], v[2], v[3]); !(math.Abs(n2-1) <= quatNormTolerance) && !zeroQuat(v[0], v[1], v[2], v[3]) {
		return newFieldError(o.path, -1, ErrRange, "quaternion %v is not unit length (norm %.4g): normalise it", v, math.Sqrt(n2))
	}
	return nil
}

// zeroQuat reports whether all four components are ±0.
func zeroQuat(x, y, z, w float32) bool {
	return (math.Float32bits(x)|math.Float32bits(y)|math.Float32bits(z)|math.Float32bits(w))<<1 == 0
}

// quatNorm2 is the squared norm of (x, y, z, w), summed in float64 in
// that order. Each product is rounded before it is added (no fused
// multiply-add), so the verdict is the same on every platform.
func quatNorm2(x, y, z, w float32) float64 {
	xx, yy := float64(float64(x)*float64(x)), float64(float64(y)*float64(y))
	zz, ww := float64(float64(z)*float64(z)), float64(float64(w)*float64(w))
	return float64(float64(xx+yy)+zz) + ww
}

// quatNormTolerance bounds |‖q‖² − 1| for encodable quaternions: loose
// enough for float32 drift over many multiplications, tight enough to
// catch unnormalised ones (the all-zero quaternion aside: see checkQuat).
const quatNormTolerance = 0.01

// minQuatBits and maxQuatBits bound the bits per component a quat tag may
// ask for. Below 4 the angular error can pass 45° (the bound 4√3·m/M rad
// is 47° at 3 bits), which no rotation wants. Past 22 (quant's limit),
// neighbouring codes decode to the same float32 near ±m, so a decoded
// quaternion could not re-encode to the same bytes.
const (
	minQuatBits = 4
	maxQuatBits = quant.QuatMaxBits
)

// encodePointee writes e, the pointee of pointer field o, unless it is nil
// (its presence bit is written already).
func encodePointee(w *bitio.Writer, o *op, e pointer, depth int) *fieldError {
	if e.isNil() {
		return nil
	}
	d := depth + o.level
	if d+o.elem.levels > MaxDepth {
		return newFieldError(o.path, -1, ErrDepth, "more than %d nested levels (a cycle?)", MaxDepth)
	}
	if err, _ := encodeValues(w, o.elem, e, 0, 1, d); err != nil {
		return err.withPrefix(o.path)
	}
	return nil
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

// encodeSparse writes the non-nil elements of a []*T or [n]*T, each after
// its index as int_relative from the previous index (starting at -1), then
// int_relative(prev, length) as the end marker.
func encodeSparse(w *bitio.Writer, o *op, at pointer, depth int) *fieldError {
	n := o.n
	if o.slice {
		if n = at.sliceLen(); n > o.n {
			return newFieldError(o.path, -1, ErrRange, "slice of %d elements exceeds maxlen %d", n, o.n)
		}
		w.WriteBits(uint64(n), o.bits)
	}
	prev := int32(-1)
	for k := 0; k < n; k++ {
		e := sparseSlot(o, at, k).elem()
		if e.isNil() {
			continue
		}
		w.WriteIntRelative(prev, int32(k))
		if err := encodeElem(w, o, e, depth); err != nil {
			return err.withPrefix(o.path + "[" + strconv.Itoa(k) + "]")
		}
		prev = int32(k)
	}
	w.WriteIntRelative(prev, int32(n))
	return nil
}

// sparseSlot returns the address of element k (a *T) of a sparse field.
func sparseSlot(o *op, at pointer, k int) pointer {
	if o.slice {
		return at.sliceElem(k, o.stride)
	}
	return at.at(uintptr(k) * o.stride)
}

// encodeUnion writes the type index of the value an interface field holds,
// then the value.
func encodeUnion(w *bitio.Writer, o *op, at pointer, depth int) *fieldError {
	iv := at.value(o.typ).Elem()
	if iv.IsNil() {
		return newFieldError(o.path, -1, ErrRange, "nil %s: a union field must hold one of its members", o.typ)
	}
	idx, base, err := o.union.find(iv.Elem())
	if err != nil {
		return newFieldError(o.path, -1, ErrRange, "%v (interface %s)", err, o.typ)
	}
	mp, err := o.union.member(idx)
	if err != nil {
		return &fieldError{path: o.path, bit: -1, err: ErrRange, detail: err.Error(), cause: err}
	}
	w.WriteBits(uint64(idx), o.bits)
	if err := encodeSub(w, mp, o.level, base, depth); err != nil {
		return err.withPrefix(o.path)
	}
	return nil
}

// floatRefusal explains why a compressed float outside its declared range
// cannot be encoded, or returns nil when the field clamps it.
func floatRefusal(o *op, v float64) *fieldError {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return newFieldError(o.path, -1, ErrRange, "value %v cannot be quantized (NaN and ±Inf are never encoded)", v)
	}
	if o.clamp {
		return nil
	}
	var lo, hi float64
	if o.qf != nil {
		lo, hi = float64(o.qf.Min()), float64(o.qf.Max())
	} else {
		lo, hi = o.qf64.Min(), o.qf64.Max()
	}
	return newFieldError(o.path, -1, ErrRange, "value %v out of range [%v, %v] (add clamp to the tag to clamp instead)", v, lo, hi)
}

func loadQuat(o *op, at pointer) [4]float32 {
	var v [4]float32
	for i, off := range o.offs {
		if o.f64 {
			v[i] = float32(*at.at(off).float64())
		} else {
			v[i] = *at.at(off).float32()
		}
	}
	return v
}

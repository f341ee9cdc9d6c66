package bitpack

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack/bitio"
)

// Decoding runs a plan twice. The first pass validates: it reads every
// field and checks it exactly as a decode would, but stores nothing and
// allocates nothing (plans run with a nil base pointer). Only a packet that
// passes is decoded by the second pass into the caller's value. That is what
// makes a failed Unmarshal leave the value untouched even though decoding
// reuses the value's slices and pointers, and it means every allocation the
// second pass makes (a slice of n elements, a pointer's target) is for data
// the packet has already been shown to contain.

// Unmarshal decodes data into the value v points to. The whole packet must
// be consumed: after the value only the padding bits of the last byte may
// remain. On any error *v is left exactly as it was.
//
// Fields not on the wire (bits:"-", unexported) keep their values; slices
// reuse their capacity; pointers are reused when non-nil and allocated when
// nil; a zero-length slice is set to length 0 (nil stays nil).
func Unmarshal(data []byte, v any) error {
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
	return rv.Type().Elem(), pointerOf(rv), nil
}

func unmarshalPlan(data []byte, p *plan, t reflect.Type, base pointer) error {
	var r bitio.Reader
	r.Reset(data)
	if ferr := decodeRoot(&r, p, pointer{}); ferr != nil {
		return publicError("decode", t, ferr)
	}
	if rest := r.BitsRemaining(); rest >= 8 {
		return &Error{Op: "decode", Type: t, Bit: r.BitsRead(), Err: ErrTrailing,
			Detail: fmt.Sprintf("%d trailing bytes after the value", rest/8)}
	}
	r.Reset(data)
	if ferr := decodeRoot(&r, p, base); ferr != nil {
		// Unreachable unless an UnmarshalBits hook is not deterministic.
		return publicError("decode", t, ferr)
	}
	return nil
}

func decodeFrom(r *bitio.Reader, p *plan, t reflect.Type, base pointer) error {
	if err := r.Err(); err != nil {
		return err
	}
	start := r.BitsRead()
	if ferr := decodeRoot(r, p, pointer{}); ferr != nil {
		err := publicError("decode", t, ferr)
		r.Fail(err)
		return err
	}
	r.Rewind(start)
	if ferr := decodeRoot(r, p, base); ferr != nil {
		err := publicError("decode", t, ferr)
		r.Fail(err)
		return err
	}
	return nil
}

func decodeRoot(r *bitio.Reader, p *plan, base pointer) *fieldError {
	if p.levels > MaxDepth {
		return newFieldError("", r.BitsRead(), ErrDepth, "type nests %d struct levels, more than %d", p.levels, MaxDepth)
	}
	return decodePlan(r, p, base, 0)
}

// decodePlan reads a value following p and, unless base is nil (the
// validation pass), stores it at base. depth is the number of struct levels
// above the plan's root.
func decodePlan(r *bitio.Reader, p *plan, base pointer, depth int) *fieldError {
	store := !base.isNil()
	for i := range p.ops {
		o := &p.ops[i]
		var at pointer // stays nil in the validation pass: no address arithmetic on nil
		if store {
			at = base.at(o.offset)
		}
		start := r.BitsRead()
		switch o.kind {
		case opBool:
			v := r.ReadBits(1)
			if store {
				*at.bool() = v != 0
			}
		case opUint:
			v := r.ReadBits(o.bits)
			if o.fit && v > math.MaxUint32 {
				return newFieldError(o.path, start, ErrRange, "value %d does not fit a 32-bit uint", v)
			}
			if store {
				at.storeUint(o.size, v)
			}
		case opInt:
			v := int64(r.ReadBits(o.bits)<<(64-o.bits)) >> (64 - o.bits) // sign-extend
			if o.fit && (v < math.MinInt32 || v > math.MaxInt32) {
				return newFieldError(o.path, start, ErrRange, "value %d does not fit a 32-bit int", v)
			}
			if store {
				at.storeUint(o.size, uint64(v))
			}
		case opRangeUint:
			u := r.ReadBits(o.bits)
			if u > o.span {
				return newFieldError(o.path, start, ErrRange, "value %d out of range [%d, %d]", o.min+u, o.min, o.min+o.span)
			}
			v := o.min + u
			if o.fit && v > math.MaxUint32 {
				return newFieldError(o.path, start, ErrRange, "value %d does not fit a 32-bit uint", v)
			}
			if store {
				at.storeUint(o.size, v)
			}
		case opRangeInt:
			u := r.ReadBits(o.bits)
			if u > o.span {
				return newFieldError(o.path, start, ErrRange, "value %d out of range [%d, %d]", int64(o.min+u), int64(o.min), int64(o.min+o.span))
			}
			v := int64(o.min + u)
			if o.fit && (v < math.MinInt32 || v > math.MaxInt32) {
				return newFieldError(o.path, start, ErrRange, "value %d does not fit a 32-bit int", v)
			}
			if store {
				at.storeUint(o.size, uint64(v))
			}
		case opFloat32:
			v := r.ReadBits(32)
			if store {
				*at.float32() = math.Float32frombits(uint32(v))
			}
		case opFloat64:
			v := r.ReadBits(64)
			if store {
				*at.float64() = math.Float64frombits(v)
			}
		case opQFloat32:
			code := r.ReadBits(o.bits)
			if code > uint64(o.qf.MaxCode()) {
				return newFieldError(o.path, start, ErrRange, "compressed float code %d out of range [0, %d]", code, o.qf.MaxCode())
			}
			if store {
				*at.float32() = o.qf.Dequantize(uint32(code))
			}
		case opQFloat64:
			code := r.ReadBits(o.bits)
			if code > uint64(o.qf64.MaxCode()) {
				return newFieldError(o.path, start, ErrRange, "compressed float code %d out of range [0, %d]", code, o.qf64.MaxCode())
			}
			if store {
				*at.float64() = o.qf64.Dequantize(uint32(code))
			}
		case opString:
			b := r.ReadStringBytes(o.n)
			if store && r.Err() == nil {
				if s := at.string(); *s != string(b) { // no allocation when unchanged
					*s = string(b)
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
			}
			r.ReadBytes(*b)
		case opByteArray:
			if store {
				r.ReadBytes(at.byteArray(o.n))
			} else {
				r.Align()
				r.Skip(8 * o.n)
			}
		case opArray:
			for k := 0; k < o.n; k++ {
				elem := pointer{}
				if store {
					elem = at.at(uintptr(k) * o.stride)
				}
				if err := decodeElem(r, o, elem, depth); err != nil {
					return err.withPrefix(o.path + "[" + strconv.Itoa(k) + "]")
				}
			}
		case opSlice:
			n := r.ReadBits(o.bits)
			if r.Err() != nil {
				break
			}
			if n > uint64(o.n) {
				return newFieldError(o.path, start, ErrRange, "length %d exceeds maxlen %d", n, o.n)
			}
			if store {
				at.setSliceLen(o.typ, int(n))
			}
			for k := 0; k < int(n); k++ {
				elem := pointer{}
				if store {
					elem = at.sliceElem(k, o.stride)
				}
				if err := decodeElem(r, o, elem, depth); err != nil {
					return err.withPrefix(o.path + "[" + strconv.Itoa(k) + "]")
				}
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
			elem := pointer{}
			if store {
				if elem = at.elem(); elem.isNil() {
					elem = at.setNew(o.typ)
				}
			}
			if err := decodeElem(r, o, elem, depth); err != nil {
				return err.withPrefix(o.path)
			}
		case opQuat:
			v := r.ReadQuat(o.qq)
			if store && r.Err() == nil {
				storeQuat(o, at, v)
			}
		case opHook:
			if err := unmarshalHook(r, o, at, store); err != nil {
				return err
			}
		case opSparse:
			if err := decodeSparse(r, o, at, store, depth); err != nil {
				return err
			}
		case opUnion:
			if err := decodeUnion(r, o, at, store, depth); err != nil {
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

// decodeElem runs an element's plan.
func decodeElem(r *bitio.Reader, o *op, at pointer, depth int) *fieldError {
	return decodeSub(r, o.elem, o.level, at, depth)
}

// decodeSub runs plan p for a value held by a field at struct level level
// of a plan running at depth, refusing nesting past MaxDepth before it
// reads anything.
func decodeSub(r *bitio.Reader, p *plan, level int, at pointer, depth int) *fieldError {
	d := depth + level
	if d+p.levels > MaxDepth {
		return newFieldError("", r.BitsRead(), ErrDepth, "more than %d nested struct levels", MaxDepth)
	}
	return decodePlan(r, p, at, d)
}

// decodeSparse reads the indices and values of a sparse field. Indices must
// increase (int_relative refuses anything else) and stay below the length;
// the index equal to the length ends the list. Absent elements become nil.
func decodeSparse(r *bitio.Reader, o *op, at pointer, store bool, depth int) *fieldError {
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
		var e pointer
		if store {
			slot := sparseSlot(o, at, int(idx))
			if e = slot.elem(); e.isNil() {
				e = slot.setNew(o.elem.typ)
			}
		}
		if err := decodeElem(r, o, e, depth); err != nil {
			return err.withPrefix(o.path + "[" + strconv.Itoa(int(idx)) + "]")
		}
		prev, next = idx, int(idx)+1
	}
}

// decodeUnion reads a type index and the member it names into an interface
// field: into the *T the field already holds when it is the same type and
// the member was registered as a pointer, else into a new value.
func decodeUnion(r *bitio.Reader, o *op, at pointer, store bool, depth int) *fieldError {
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
	if !store {
		if err := decodeSub(r, mp, o.level, pointer{}, depth); err != nil {
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
	if err := decodeSub(r, mp, o.level, target, depth); err != nil {
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

// unmarshalHook calls a field's UnmarshalBits: on the field itself when
// storing, on a scratch value during validation. Like marshalHook, the hook
// reads through its own copy of the Reader.
func unmarshalHook(r *bitio.Reader, o *op, at pointer, store bool) *fieldError {
	start := r.BitsRead()
	var target reflect.Value
	if store {
		target = at.value(o.typ)
	} else {
		target = reflect.New(o.typ)
	}
	u := target.Interface().(Unmarshaler)
	hr := new(bitio.Reader)
	*hr = *r
	err := u.UnmarshalBits(hr)
	if err == nil {
		err = hr.Err()
	}
	if err != nil {
		r.Fail(err)
		return fromBitio(o.path, start, err)
	}
	*r = *hr
	return nil
}

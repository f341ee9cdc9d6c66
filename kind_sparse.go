package bitpack

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack/bitio"
)

// Sparse arrays and slices: the non-nil elements, each after its index as
// int_relative, then an end marker.

var sparseKind = kindFuncs{name: "sparse",
	describe: func(f *Field) string {
		if f.Type.Kind() == reflect.Slice {
			return fmt.Sprintf("sparse slice maxlen %d", f.MaxLen)
		}
		return fmt.Sprintf("sparse array of %d", f.Len)
	},
	schema: func(s *schemaWriter, f *Field) {
		if f.Type.Kind() == reflect.Slice {
			s.write("S[<=" + strconv.Itoa(f.MaxLen) + "]")
		} else {
			s.write("S[" + strconv.Itoa(f.Len) + "]")
		}
		s.walk(f.Elem)
	},
	maxBits: func(f *Field, max func(*Field) int64) int64 {
		// Present elements cost their index as int_relative (1 bit when
		// consecutive, at most 38) and their value; the end marker the same.
		n := f.Len
		if f.Type.Kind() == reflect.Slice {
			n = f.MaxLen
		}
		return satAdd(int64(f.Bits+38), satMul(int64(n), satAdd(38, max(f.Elem))))
	},
	minBits: func(f *Field, _ func(*Field) int64) int64 {
		if f.Type.Kind() == reflect.Slice {
			return int64(f.Bits) + 1 // length 0, then the marker int_relative(-1, 0)
		}
		return relativeBits(f.Len + 1) // no element: the marker int_relative(-1, n)
	}}

// appendSparse compiles a sparse []*T (with maxlen) or [n]*T: only the
// non-nil elements travel, each preceded by its index as int_relative from
// the previous one (starting at -1), then int_relative(prev, length) ends
// the list. Other options apply to T.
func (c *compiler) appendSparse(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	et := t.Elem()
	if et.Kind() != reflect.Pointer {
		return nil, f.tagged(o, "sparse applies to []*T or [N]*T, not %s", t)
	}
	if t.Kind() == reflect.Array && o.maxlenSet {
		return nil, f.tagged(o, "maxlen does not apply to %s (arrays have a fixed length)", t)
	}
	node := &Field{Type: t, Kind: KindSparse}
	if t.Kind() == reflect.Slice {
		if err := checkSliceBytes(t, o, f); err != nil {
			return nil, err
		}
		base.slice, base.n, base.bits = true, o.maxlen, bitio.BitsRequired(0, uint64(o.maxlen))
		node.MaxLen, node.Bits = o.maxlen, base.bits
	} else {
		base.n = t.Len()
		node.Len = t.Len()
	}
	if base.n > math.MaxInt32-1 {
		return nil, f.tagged(o, "sparse length %d exceeds the int_relative index range", base.n)
	}
	elemOpts, err := f.elemOptions(o, t, false)
	if err != nil {
		return nil, err
	}
	elem, err := c.planFor(et.Elem(), elemOpts, f.element(t, "[]"))
	if err != nil {
		return nil, err
	}
	base.kind, base.elem, base.typ, base.stride = KindSparse, elem, t, et.Size()
	base.refuse = func(format string, args ...any) error { return f.tagged(o, format, args...) }
	*ops = append(*ops, base)
	node.Elem = elem.root
	return node, nil
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
	return at.index(k, o.stride)
}

// sparse reads the indices and values of a sparse field. Indices must
// increase (int_relative refuses anything else) and stay below the length;
// the index equal to the length ends the list. Absent elements become nil.
func decodeSparse(d *decoder, o *op, at pointer, _, depth int) *fieldError {
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
		if err := d.charge(work, bytes, n, o.typ.Elem().Size(), start); err != nil {
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
		if err := d.charge(work, bytes, 1, o.elem.size, start); err != nil {
			return err.withPrefix(o.path + "[" + strconv.Itoa(int(idx)) + "]")
		}
		slot := sparseSlot(o, at, int(idx))
		e := slot.elem()
		if e.isNil() {
			e = slot.setNew(o.elem)
			d.grow(1, o.elem.typ.Size())
		}
		if err := d.sub(o.elem, o.level, e, depth); err != nil {
			return err.withPrefix(o.path + "[" + strconv.Itoa(int(idx)) + "]")
		}
		prev, next = idx, int(idx)+1
	}
}

// commitSparse commits a sparse field o: its slots are pointers.
func commitSparse(o *op, d, s pointer) {
	n := o.n
	if o.slice {
		n = s.sliceLen()
		if n > d.sliceCap() {
			d.moveSlice(s)
			return
		}
		d.setSliceLen(o.typ, n)
	}
	for k := 0; k < n; k++ {
		commitPointee(o.elem, sparseSlot(o, d, k), sparseSlot(o, s, k))
	}
}

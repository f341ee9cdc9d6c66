package snapshot

import (
	"reflect"
	"unsafe"

	"github.com/bitpack-go/bitpack"
)

// An entity is compared in memory with the view's value to tell whether it
// changed: bytes where the type holds plain data, strings and slices of
// plain data by their contents, padding skipped. A type holding pointers,
// maps or interfaces cannot be compared that way; its entities count as
// changed whenever they are relevant (their deltas still send only what
// differs).

// segKind is how a segment of a value compares.
type segKind uint8

const (
	segBytes  segKind = iota // size bytes at off
	segString                // a string at off, by content
	segSlice                 // a slice at off of elements size bytes each, by content
)

// segment is one part of a value's comparison.
type segment struct {
	off, size uintptr
	kind      segKind
}

// maxSegments bounds a comparison's segments (a large array of structs
// with padding would otherwise need one per element).
const maxSegments = 64

// comparer compares two values of one type in memory.
type comparer struct {
	segs  []segment
	bytes uintptr // when the value is one run of bytes: its size (at offset 0), else 0
}

// newComparer returns the comparer of the values f describes (the
// fields on the wire only: fields bitpack skips may differ freely), or nil
// when one of them cannot be compared in memory.
func newComparer(f *bitpack.Field) *comparer {
	var segs []segment
	if !appendSegments(&segs, f, 0) || len(segs) > maxSegments {
		return nil
	}
	c := &comparer{segs: segs}
	if len(segs) == 1 && segs[0].kind == segBytes && segs[0].off == 0 {
		c.bytes = segs[0].size
	}
	return c
}

// appendSegments appends the segments of a value f describes at off.
func appendSegments(segs *[]segment, f *bitpack.Field, off uintptr) bool {
	t := f.Type
	switch f.Kind {
	case bitpack.KindBool, bitpack.KindInt, bitpack.KindUint, bitpack.KindFloat, bitpack.KindCompressedFloat,
		bitpack.KindQuat, bitpack.KindByteArray:
		if !plain(t) {
			return false
		}
		addBytes(segs, off, t.Size())
		return true
	case bitpack.KindString:
		*segs = append(*segs, segment{off: off, kind: segString})
		return true
	case bitpack.KindBytes, bitpack.KindSlice:
		if !plain(t.Elem()) || f.Kind == bitpack.KindSlice && !plainLeaves(f.Elem) {
			return false
		}
		*segs = append(*segs, segment{off: off, size: t.Elem().Size(), kind: segSlice})
		return true
	case bitpack.KindArray:
		if plain(t) && plainLeaves(f.Elem) {
			addBytes(segs, off, t.Size())
			return true
		}
		for i := range f.Len {
			if !appendSegments(segs, f.Elem, off+uintptr(i)*t.Elem().Size()) || len(*segs) > maxSegments {
				return false
			}
		}
		return true
	case bitpack.KindStruct:
		for _, c := range f.Fields {
			if len(c.Index) != 1 || !appendSegments(segs, c, off+t.Field(c.Index[0]).Offset) {
				return false
			}
		}
		return true
	case bitpack.KindCheck:
		return true // a constant: nothing to compare
	}
	return false // pointers, maps, sparse arrays, unions, hooks
}

// plainLeaves reports whether every field of the value f describes is on
// the wire, so that its bytes compare as its encoding does.
func plainLeaves(f *bitpack.Field) bool {
	switch f.Kind {
	case bitpack.KindStruct:
		if len(f.Fields) != f.Type.NumField() {
			return false
		}
		for _, c := range f.Fields {
			if !plainLeaves(c) {
				return false
			}
		}
		return true
	case bitpack.KindArray:
		return plainLeaves(f.Elem)
	case bitpack.KindCheck, bitpack.KindCustom, bitpack.KindUnion, bitpack.KindPointer, bitpack.KindMap,
		bitpack.KindSparse, bitpack.KindString, bitpack.KindBytes, bitpack.KindSlice:
		return false
	}
	return true
}

// addBytes adds size bytes at off, merged with the previous segment when
// they touch.
func addBytes(segs *[]segment, off, size uintptr) {
	if size == 0 {
		return
	}
	if n := len(*segs); n > 0 {
		if last := &(*segs)[n-1]; last.kind == segBytes && last.off+last.size == off {
			last.size += size
			return
		}
	}
	*segs = append(*segs, segment{off: off, size: size, kind: segBytes})
}

// plain reports whether t's values are their bytes, with no padding and
// no pointers: equal values have equal bytes and the other way round.
func plain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return plain(t.Elem())
	case reflect.Struct:
		end := uintptr(0)
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Offset != end || !plain(f.Type) {
				return false
			}
			end = f.Offset + f.Type.Size()
		}
		return end == t.Size()
	}
	return false
}

// pointerFree reports whether t holds no pointers: its bytes can be copied
// and kept without the garbage collector's knowledge.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return t.Len() == 0 || pointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// equal compares the values at a and b.
func (c *comparer) equal(a, b unsafe.Pointer) bool {
	if n := c.bytes; n >= 8 {
		// One run of bytes: compared a word at a time, the last word
		// ending at the run's end (overlapping the one before), so that
		// no byte past it — padding — is read.
		for i := uintptr(0); i+8 < n; i += 8 {
			if *(*uint64)(unsafe.Add(a, i)) != *(*uint64)(unsafe.Add(b, i)) {
				return false
			}
		}
		return *(*uint64)(unsafe.Add(a, n-8)) == *(*uint64)(unsafe.Add(b, n-8))
	}
	for _, s := range c.segs {
		pa, pb := unsafe.Add(a, s.off), unsafe.Add(b, s.off)
		switch s.kind {
		case segBytes:
			if string(unsafe.Slice((*byte)(pa), s.size)) != string(unsafe.Slice((*byte)(pb), s.size)) {
				return false
			}
		case segString:
			if *(*string)(pa) != *(*string)(pb) {
				return false
			}
		default:
			sa, sb := (*sliceHeader)(pa), (*sliceHeader)(pb)
			if sa.len != sb.len {
				return false
			}
			n := uintptr(sa.len) * s.size
			if n > 0 && string(unsafe.Slice((*byte)(sa.data), n)) != string(unsafe.Slice((*byte)(sb.data), n)) {
				return false
			}
		}
	}
	return true
}

// sliceHeader is a slice's layout in memory (read only).
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

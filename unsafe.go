package bitpack

// This is the only file that imports unsafe. Plans address fields by byte
// offset from the start of the value, the way protobuf-go's fast path does:
// a pointer plus a precomputed offset, and typed accessors. Every offset
// comes from reflect.StructField.Offset, every element size from
// reflect.Type.Size, and memory is allocated only through reflect, so the
// garbage collector always sees correctly typed objects.

import (
	"encoding/binary"
	"reflect"
	"time"
	"unsafe"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/bitwindow"
	"github.com/bitpack-go/bitpack/internal/frame"
)

// nativeLittleEndian reports whether the machine stores integers
// little-endian, as the wire holds whole-byte fields at a byte boundary.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// pointer is the address of a Go value whose type the plan knows. The zero
// pointer stands for "no value": decoding in validation mode runs the plan
// with it and stores nothing.
type pointer struct{ p unsafe.Pointer }

// typeID identifies the dynamic type of an interface value: its type word.
type typeID struct{ p unsafe.Pointer }

// ifaceOf splits an interface value into its type word and its data word.
// For a pointer (the argument Marshal and Unmarshal expect) the data word is
// the pointer itself, so no reflect.Value is needed on the hot path.
func ifaceOf(v any) (typeID, pointer) {
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(&v))
	return typeID{w[0]}, pointer{w[1]}
}

// pointerOf returns the address held by v, a non-nil pointer Value.
func pointerOf(v reflect.Value) pointer { return pointer{v.UnsafePointer()} }

// pointerTo returns the address of *v.
func pointerTo[T any](v *T) pointer { return pointer{unsafe.Pointer(v)} }

func (p pointer) isNil() bool { return p.p == nil }

// loadAs reads the T at p.
func loadAs[T any](p pointer) T { return *(*T)(p.p) }

// storeIndex stores v as the j-th T of an array that starts at p.
func storeIndex[T any](p pointer, j int, v T) {
	*(*T)(unsafe.Add(p.p, uintptr(j)*unsafe.Sizeof(v))) = v
}

// offset is where a field lies within the value its plan runs over, in
// bytes. It is made only from reflect's own numbers — a struct field's
// Offset, an element's index times its type's size — by the functions
// below, and used only through pointer.field (and copyBlock and copySmall,
// which add it the same way): no address in this package comes from
// anything else.
type offset struct{ n uintptr }

// fieldOffset is the offset of struct field sf within its struct.
func fieldOffset(sf reflect.StructField) offset { return offset{sf.Offset} }

// elemOffset is the offset of element i of an array of elements of size
// bytes.
func elemOffset(i int, size uintptr) offset { return offset{uintptr(i) * size} }

// plus is the offset of a field at inner within the value at o.
func (o offset) plus(inner offset) offset { return offset{o.n + inner.n} }

// skip is the offset n bytes after o (the end of a field of n bytes).
func (o offset) skip(n uintptr) offset { return offset{o.n + n} }

// field returns the address of the field at off within the value at p.
func (p pointer) field(off offset) pointer { return pointer{unsafe.Add(p.p, off.n)} }

// index returns the address of element i of an array at p whose elements
// are size bytes apart.
func (p pointer) index(i int, size uintptr) pointer { return pointer{unsafe.Add(p.p, uintptr(i)*size)} }

func (p pointer) u8() *uint8        { return (*uint8)(p.p) }
func (p pointer) u16() *uint16      { return (*uint16)(p.p) }
func (p pointer) u32() *uint32      { return (*uint32)(p.p) }
func (p pointer) u64() *uint64      { return (*uint64)(p.p) }
func (p pointer) float32() *float32 { return (*float32)(p.p) }
func (p pointer) float64() *float64 { return (*float64)(p.p) }
func (p pointer) string() *string   { return (*string)(p.p) }
func (p pointer) bytes() *[]byte    { return (*[]byte)(p.p) }
func (p pointer) time() *time.Time  { return (*time.Time)(p.p) }

// setString makes the string at p b's bytes, without a copy: nothing may
// write to b afterwards.
func (p pointer) setString(b []byte) { *p.string() = unsafe.String(unsafe.SliceData(b), len(b)) }

// uint8s ... uint64s view n consecutive elements starting at p.
func (p pointer) uint8s(n int) []uint8   { return unsafe.Slice((*uint8)(p.p), n) }
func (p pointer) uint16s(n int) []uint16 { return unsafe.Slice((*uint16)(p.p), n) }
func (p pointer) uint32s(n int) []uint32 { return unsafe.Slice((*uint32)(p.p), n) }
func (p pointer) uint64s(n int) []uint64 { return unsafe.Slice((*uint64)(p.p), n) }

// byteArray returns the n bytes of a [n]byte value.
func (p pointer) byteArray(n int) []byte { return unsafe.Slice((*byte)(p.p), n) }

// storeUint writes the low size bytes of v (signed values are stored the
// same way: two's complement truncation).
func (p pointer) storeUint(size uintptr, v uint64) {
	switch size {
	case 1:
		*(*uint8)(p.p) = uint8(v)
	case 2:
		*(*uint16)(p.p) = uint16(v)
	case 4:
		*(*uint32)(p.p) = uint32(v)
	default:
		*(*uint64)(p.p) = v
	}
}

// sameBytes reports whether the n bytes at p and at q are the same: the
// delta encoder's test for a value that cannot have changed (what its
// pointers, strings and slices hold is the same memory).
func (p pointer) sameBytes(q pointer, n uintptr) bool {
	return p.p == q.p || string(unsafe.Slice((*byte)(p.p), n)) == string(unsafe.Slice((*byte)(q.p), n))
}

// sameWords is sameBytes for n from 8 to 64 bytes: word loads (the last
// one overlapping the one before), no call, and a difference found at the
// first word that holds one.
func (p pointer) sameWords(q pointer, n uintptr) bool {
	i := uintptr(0)
	for ; i+8 < n; i += 8 {
		if load8(unsafe.Add(p.p, i)) != load8(unsafe.Add(q.p, i)) {
			return false
		}
	}
	return load8(unsafe.Add(p.p, n-8)) == load8(unsafe.Add(q.p, n-8))
}

// load8 loads the 8 bytes at p, at any alignment: through an array of
// bytes, which one load reads where the machine allows it, since a *uint64
// at an address that is not a multiple of 8 is refused by checkptr, and
// faults on machines that need aligned loads.
func load8(p unsafe.Pointer) uint64 { return binary.LittleEndian.Uint64((*[8]byte)(p)[:]) }

// raw loads the size bytes at p (1, 2, 4 or 8) as an unsigned integer.
func (p pointer) raw(size uintptr) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p.p))
	case 2:
		return uint64(*(*uint16)(p.p))
	case 4:
		return uint64(*(*uint32)(p.p))
	}
	return *(*uint64)(p.p)
}

// copyFrom copies n bytes of pointer-free data from src to p.
func (p pointer) copyFrom(src pointer, n uintptr) {
	copy(unsafe.Slice((*byte)(p.p), n), unsafe.Slice((*byte)(src.p), n))
}

// copyBlock copies the block (see block) at at, last from the value at
// src to the one at p, which must not overlap: two 16-byte moves, no call.
func (p pointer) copyBlock(src pointer, at, last offset) {
	*(*[16]byte)(unsafe.Add(p.p, at.n)) = *(*[16]byte)(unsafe.Add(src.p, at.n))
	*(*[16]byte)(unsafe.Add(p.p, last.n)) = *(*[16]byte)(unsafe.Add(src.p, last.n))
}

// copySmall copies the small (see small) at at, last, of moves of width
// bytes, from the value at src to the one at p, which must not overlap.
func (p pointer) copySmall(src pointer, at, last offset, width uintptr) {
	d0, d1, s0, s1 := unsafe.Add(p.p, at.n), unsafe.Add(p.p, last.n), unsafe.Add(src.p, at.n), unsafe.Add(src.p, last.n)
	switch width {
	case 8:
		*(*[8]byte)(d0) = *(*[8]byte)(s0)
		*(*[8]byte)(d1) = *(*[8]byte)(s1)
	case 4:
		*(*[4]byte)(d0) = *(*[4]byte)(s0)
		*(*[4]byte)(d1) = *(*[4]byte)(s1)
	case 2:
		*(*[2]byte)(d0) = *(*[2]byte)(s0)
		*(*[2]byte)(d1) = *(*[2]byte)(s1)
	default:
		*(*byte)(d0) = *(*byte)(s0)
	}
}

// sliceHeader mirrors the runtime layout of a slice.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

// sliceCap returns the capacity of the slice at p.
func (p pointer) sliceCap() int { return (*sliceHeader)(p.p).cap }

// sliceLen returns the length of the slice at p.
func (p pointer) sliceLen() int { return (*sliceHeader)(p.p).len }

// sliceElem returns the address of element i of the slice at p, whose
// elements are stride bytes apart.
func (p pointer) sliceElem(i int, stride uintptr) pointer {
	return pointer{unsafe.Add((*sliceHeader)(p.p).data, uintptr(i)*stride)}
}

// setSliceLen makes the slice at p (of type t) hold n elements, reusing its
// backing array when the capacity suffices and otherwise moving the
// elements (up to the old capacity, so their own buffers are reused) to a
// new array of exactly n: not append's amortized growth, which could
// allocate up to twice what the allowances charged (see elemsCharge).
// n == 0 keeps a nil slice nil.
func (p pointer) setSliceLen(t reflect.Type, n int) {
	h := (*sliceHeader)(p.p)
	if n <= h.cap {
		h.len = n
		return
	}
	v := reflect.NewAt(t, p.p).Elem()
	grown := reflect.MakeSlice(t, n, n)
	reflect.Copy(grown, v.Slice(0, v.Cap()))
	v.Set(grown)
}

// setSliceLenWithin makes the slice at p hold n elements, n at most its
// capacity: setSliceLen's common case, without the call.
func (p pointer) setSliceLenWithin(n int) { (*sliceHeader)(p.p).len = n }

// copyElems copies the first m elements of the slice at src, whose
// capacity is at least m, over the first m of the slice at p, whose length
// is at least m (both of type t), as typed values: the garbage collector
// sees the pointers they hold move. src's length becomes m.
func (p pointer) copyElems(src pointer, t reflect.Type, m int) {
	(*sliceHeader)(src.p).len = m
	reflect.Copy(reflect.NewAt(t, p.p).Elem(), reflect.NewAt(t, src.p).Elem())
}

// elem returns the pointer stored at p (for a *T field).
func (p pointer) elem() pointer { return pointer{*(*unsafe.Pointer)(p.p)} }

// setNew stores a pointer to a new zero value of plan e's type at p and
// returns it.
func (p pointer) setNew(e *plan) pointer {
	n := newValue(e)
	*(*unsafe.Pointer)(p.p) = n.p
	return n
}

// newValue returns a new zero value of plan e's type. A type without
// pointers needs no type information for the garbage collector, so it
// comes from a plain allocation of 8-byte words (aligned for any field),
// which small sizes share Go's tiny allocator for: several times cheaper
// than reflect.New, which a packet of many small union members or
// pointees pays once per value.
func newValue(e *plan) pointer {
	if e.pointerFree && e.size > 0 {
		return pointer{unsafe.Pointer(unsafe.SliceData(make([]uint64, (e.size+7)/8)))}
	}
	return pointerOf(reflect.New(e.typ))
}

// setElem stores the pointer e at p (for a *T field).
func (p pointer) setElem(e pointer) { *(*unsafe.Pointer)(p.p) = e.p }

// moveSlice makes the slice at p the one at src, and src nil.
func (p pointer) moveSlice(src pointer) {
	*(*sliceHeader)(p.p) = *(*sliceHeader)(src.p)
	*(*sliceHeader)(src.p) = sliceHeader{}
}

// clearSlice and clearIface make the slice or interface at p nil.
func (p pointer) clearSlice() { *(*sliceHeader)(p.p) = sliceHeader{} }
func (p pointer) clearIface() { *(*[2]unsafe.Pointer)(p.p) = [2]unsafe.Pointer{} }

// moveIface makes the interface at p the one at src, and src nil.
func (p pointer) moveIface(src pointer) {
	w := (*[2]unsafe.Pointer)(src.p)
	*(*[2]unsafe.Pointer)(p.p) = *w
	*w = [2]unsafe.Pointer{}
}

// setNil stores a nil pointer at p.
func (p pointer) setNil() { *(*unsafe.Pointer)(p.p) = nil }

// value returns p as a reflect.Value of type *t (for hooks and unions).
func (p pointer) value(t reflect.Type) reflect.Value { return reflect.NewAt(t, p.p) }

// ifaceWord is what an interface value holding a given dynamic type has in
// its first word (the itab, or the type for an empty interface), and
// whether its second word is the value's first word (a pointer-shaped
// struct) rather than the value's address.
type ifaceWord struct {
	w     unsafe.Pointer
	deref bool
}

// ifaceWordOf returns the ifaceWord of interface type iface holding a dyn.
// A type the runtime stores directly (pointers, and structs holding just
// one) leaves the data word nil for its zero value; any other is boxed
// behind a non-nil pointer.
func ifaceWordOf(iface, dyn reflect.Type) ifaceWord {
	v := reflect.New(iface)
	v.Elem().Set(reflect.Zero(dyn))
	words := (*[2]unsafe.Pointer)(v.UnsafePointer())
	return ifaceWord{w: words[0], deref: words[1] == nil && dyn.Kind() != reflect.Pointer}
}

// setIface makes the interface at p hold the value at data, of the
// dynamic type w stands for (for a pointer type, data is the pointer): no
// copy, so data must be a new value that nothing else will change.
func (p pointer) setIface(w ifaceWord, data pointer) {
	d := data.p
	if w.deref {
		d = *(*unsafe.Pointer)(d)
	}
	*(*[2]unsafe.Pointer)(p.p) = [2]unsafe.Pointer{w.w, d}
}

// ifaceHolds reports whether the interface at p holds a non-nil value of
// the dynamic type w stands for, and returns its data word.
func (p pointer) ifaceHolds(w ifaceWord) (pointer, bool) {
	words := (*[2]unsafe.Pointer)(p.p)
	return pointer{words[1]}, words[0] == w.w && words[1] != nil
}

// ifaceValue returns the address of the value the interface at p holds
// when its dynamic type is the one w stands for (for a pointer type, the
// pointee, which must not be nil): the interface's own data word for a
// pointer-shaped value, else what it points to.
func (p pointer) ifaceValue(w ifaceWord) (pointer, bool) {
	words := (*[2]unsafe.Pointer)(p.p)
	switch {
	case words[0] != w.w:
		return pointer{}, false
	case w.deref:
		return pointer{unsafe.Pointer(&words[1])}, true
	}
	return pointer{words[1]}, words[1] != nil
}

// sameIface reports whether the interfaces at p and q hold the same
// words: the same dynamic type and the same data.
func (p pointer) sameIface(q pointer) bool {
	return *(*[2]unsafe.Pointer)(p.p) == *(*[2]unsafe.Pointer)(q.p)
}

// The frame a Reader or Writer carries for bitpack (see package
// internal/frame) lives in an unexported field of bitio's, so that no code
// outside the module can change it; bitpack finds it by reflect, once,
// and reaches it by its offset.
var (
	readerFrameOffset = fieldOffsetOf[bitio.Reader]("frame", reflect.TypeFor[frame.Frame]())
	writerFrameOffset = fieldOffsetOf[bitio.Writer]("frame", reflect.TypeFor[frame.Frame]())
)

// fieldOffsetOf is the offset of the unexported field name, of type ft, in
// a T of package bitio: bitpack reaches it, bitio's users cannot.
func fieldOffsetOf[T any](name string, ft reflect.Type) uintptr {
	t := reflect.TypeFor[T]()
	f, ok := t.FieldByName(name)
	if !ok || f.Type != ft {
		panic("bitpack: " + t.String() + " has no " + name + " field of type " + ft.String()) // the module is inconsistent
	}
	return f.Offset
}

// frameOfReader and frameOfWriter return the frame r or w carries.
func frameOfReader(r *bitio.Reader) *frame.Frame {
	return (*frame.Frame)(unsafe.Add(unsafe.Pointer(r), readerFrameOffset))
}

func frameOfWriter(w *bitio.Writer) *frame.Frame {
	return (*frame.Frame)(unsafe.Add(unsafe.Pointer(w), writerFrameOffset))
}

// The decoder's read loop (decoder.plan) keeps a Reader's position and
// bytes in locals between the calls that read through the Reader: the
// Reader's window (package internal/bitwindow, which states what bitio
// keeps true of it), an unexported field found by reflect once, as the
// frame is.
var readerWindowOffset = fieldOffsetOf[bitio.Reader]("win", reflect.TypeFor[bitwindow.Window]())

// windowOf returns the window r carries.
func windowOf(r *bitio.Reader) *bitwindow.Window {
	return (*bitwindow.Window)(unsafe.Add(unsafe.Pointer(r), readerWindowOffset))
}

// packetWindow is a Reader's bytes as the decoder's read loop loads them: their
// address, and the last byte a 64-bit load may start at (len - 8: negative
// when there are fewer than 8 bytes, or none after an error).
type packetWindow struct {
	p    unsafe.Pointer
	last int
}

// readerWindow returns r's window and position.
func readerWindow(r *bitio.Reader) (packetWindow, int) {
	win := windowOf(r)
	return packetWindow{unsafe.Pointer(unsafe.SliceData(win.Data)), len(win.Data) - 8}, win.Pos
}

// word returns the 64 bits from bit pos on, of which 57 or more are the
// packet's; pos>>3 must be at most w.last.
func (w packetWindow) word(pos int) uint64 { return load8(unsafe.Add(w.p, pos>>3)) >> (pos & 7) }

// wordAt is word for any pos, w.last at least 0: past byte w.last, the
// packet's last 8 bytes shifted down (the packet's bits from pos on, then
// zeros, while pos is inside the packet; never a read outside it).
func (w packetWindow) wordAt(pos int) uint64 {
	if pos>>3 <= w.last {
		return w.word(pos)
	}
	return load8(unsafe.Add(w.p, w.last)) >> ((pos - 8*w.last) & 63)
}

// bytes returns the n bytes from byte b on; b+n must be at most w.last+8.
// No bytes is nil: b may then be the packet's end, and a pointer there
// would point past its allocation.
func (w packetWindow) bytes(b, n int) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(w.p, b)), n)
}

// copyTo copies the n bytes from byte b on to dst; b+n must be at most
// w.last+8, the bytes there are.
func (w packetWindow) copyTo(dst pointer, b, n int) {
	if n == 0 {
		return // b may be the packet's end (see bytes)
	}
	copy(unsafe.Slice((*byte)(dst.p), n), unsafe.Slice((*byte)(unsafe.Add(w.p, b)), n))
}

// setReaderPos moves r to bit pos, which its bytes hold (a position the
// decoder read up to from readerWindow's).
func setReaderPos(r *bitio.Reader, pos int) {
	windowOf(r).Pos = pos
}

// undoEntry is what an in-place delta changed at one place and what was
// there (see undoLog): the words are kept as the types they are, so the
// garbage collector sees the pointers a change replaced.
type undoEntry struct {
	at   pointer
	p, q unsafe.Pointer // a pointer, a string's or slice's data, an interface's words
	w, x uint64         // a value's bits; a string's or slice's length, a slice's capacity; an offset
	kind uint8
}

// undoEntryBytes is the size of an undoEntry.
const undoEntryBytes = unsafe.Sizeof(undoEntry{})

const (
	undoBits   = iota // a fixed-width field of x bytes, whose bits were w
	undoBytes         // x pointer-free bytes, kept from offset w of undoLog.bytes
	undoWord          // a pointer or map field
	undoString        // a string
	undoSlice         // a slice's header
	undoIface         // an interface's two words
	undoTyped         // a value of a type only reflect can copy: undoLog.typed[w]
	undoTime          // a time.Time: undoLog.times[w]
)

// saveBits returns the entry that puts back the size bytes (1, 2, 4 or
// 8) of the fixed-width field at p.
func (p pointer) saveBits(size uintptr) undoEntry {
	return undoEntry{at: p, w: p.raw(size), x: uint64(size), kind: undoBits}
}

// saveWord, saveString, saveSlice and saveIface return the entry that
// puts back the pointer (or map), string, slice or interface at p.
func (p pointer) saveWord() undoEntry {
	return undoEntry{at: p, p: *(*unsafe.Pointer)(p.p), kind: undoWord}
}

func (p pointer) saveString() undoEntry {
	s := *(*string)(p.p)
	return undoEntry{at: p, p: unsafe.Pointer(unsafe.StringData(s)), w: uint64(len(s)), kind: undoString}
}

func (p pointer) saveSlice() undoEntry {
	h := (*sliceHeader)(p.p)
	return undoEntry{at: p, p: h.data, w: uint64(h.len), x: uint64(h.cap), kind: undoSlice}
}

func (p pointer) saveIface() undoEntry {
	w := (*[2]unsafe.Pointer)(p.p)
	return undoEntry{at: p, p: w[0], q: w[1], kind: undoIface}
}

// restore puts back what e saved, but for the kinds undoLog keeps
// elsewhere (undoBytes, undoTyped, undoTime).
func (e *undoEntry) restore() {
	switch e.kind {
	case undoBits:
		e.at.storeUint(uintptr(e.x), e.w)
	case undoWord:
		*(*unsafe.Pointer)(e.at.p) = e.p
	case undoString:
		*(*string)(e.at.p) = unsafe.String((*byte)(e.p), int(e.w))
	case undoSlice:
		*(*sliceHeader)(e.at.p) = sliceHeader{e.p, int(e.w), int(e.x)}
	case undoIface:
		*(*[2]unsafe.Pointer)(e.at.p) = [2]unsafe.Pointer{e.p, e.q}
	}
}

// growSliceTo makes the slice at p (of type t) n elements long, n above
// its capacity: a new array of exactly n holding its first m elements
// (the rest zero), which are moved as typed values.
func (p pointer) growSliceTo(t reflect.Type, m, n int) {
	v := reflect.NewAt(t, p.p).Elem()
	grown := reflect.MakeSlice(t, n, n)
	reflect.Copy(grown, v.Slice(0, m))
	v.Set(grown)
}

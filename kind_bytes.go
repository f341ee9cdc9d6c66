package bitpack

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/bitpack-go/bitpack/bitio"
)

// Strings, []byte and [N]byte: a length (but for arrays), alignment, then
// the bytes. Strings must be UTF-8 without NUL on both sides.

var (
	stringKind = kindFuncs{name: "string",
		describe: func(f *Field) string { return fmt.Sprintf("string maxlen %d", f.MaxLen) },
		schema:   func(s *schemaWriter, f *Field) { s.write("s" + strconv.Itoa(f.MaxLen)) },
		maxBits:  maxBytesBits, minBits: fixedBits} // an empty one: its length
	bytesKind = kindFuncs{name: "bytes",
		describe: func(f *Field) string { return fmt.Sprintf("bytes maxlen %d", f.MaxLen) },
		schema:   func(s *schemaWriter, f *Field) { s.write("y" + strconv.Itoa(f.MaxLen)) },
		maxBits:  maxBytesBits, minBits: fixedBits}
	byteArrayKind = kindFuncs{name: "byte array",
		describe: func(f *Field) string { return fmt.Sprintf("%d bytes, aligned", f.Len) },
		schema:   func(s *schemaWriter, f *Field) { s.write("a" + strconv.Itoa(f.Len)) },
		maxBits:  func(f *Field, _ func(*Field) int64) int64 { return satAdd(satMul(8, int64(f.Len)), 7) },
		minBits:  func(f *Field, _ func(*Field) int64) int64 { return satMul(8, int64(f.Len)) }}
)

// maxBytesBits is the most a string or byte slice takes: its length,
// alignment, maxlen bytes.
func maxBytesBits(f *Field, _ func(*Field) int64) int64 {
	return satAdd(int64(f.Bits+7), satMul(8, int64(f.MaxLen)))
}

// appendString compiles a string: maxlen is required, and its own.
func (c *compiler) appendString(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	if !f.inherited && !only(o, func(r *tagOptions) { r.maxlenSet, r.maxlen = false, 0 }) {
		return nil, f.notApplicable(o, t)
	}
	if f.inherited || !o.maxlenSet {
		return nil, f.missingMaxlen(o, t, "32")
	}
	base.kind, base.n, base.bits = KindString, o.maxlen, bitio.BitsRequired(0, uint64(o.maxlen))
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindString, MaxLen: o.maxlen, Bits: base.bits}, nil
}

func encodeString(w *bitio.Writer, o *op, at pointer, _ int) *fieldError {
	s := *at.string()
	if len(s) > o.n {
		return newFieldError(o.path, -1, ErrRange, "string of %d bytes exceeds maxlen %d", len(s), o.n)
	}
	w.WriteString(s, o.n)
	if err := w.Err(); err != nil {
		return fromBitio(o.path, -1, err)
	}
	return nil
}

// Decoding strings. Every path reads a string with the same checks
// (maxlen, zero padding, its bytes in the packet, bitio.ValidStringBytes,
// its charge): from the packet's window, without a call to the Reader
// (windowString, for the read programs' string steps), or through the
// Reader (readString), which words every refusal and is where a string
// the window path does not take goes. A decode into the scratch value or
// on the stack makes the strings it read only once the packet is
// accepted, all of a value's in one allocation (see setString).

func decodeString(d *decoder, o *op, at pointer, start, _ int) *fieldError {
	b, err := d.readString(o, start)
	if err != nil {
		return err
	}
	d.setString(at, b)
	return nil
}

// readString reads the string op o at bit start through the Reader and
// charges it: its bytes (the packet's), or the refusal.
func (d *decoder) readString(o *op, start int) ([]byte, *fieldError) {
	b := d.r.ReadStringBytes(o.n)
	if err := d.r.Err(); err != nil {
		return nil, fromBitio(o.path, start, err)
	}
	work, bytes := stringCharge(len(b))
	if err := d.charge(work, bytes, 1, uintptr(len(b)), start); err != nil {
		return nil, err.withPrefix(o.path)
	}
	return b, nil
}

// windowString reads the string of the read step s at bit pos from the
// packet's window w (pos>>3 at most w.last) and charges it: its bytes and
// the position after them, or end -1 when readString must take it (a
// length above maxlen, padding bits set, bytes past the packet's end, not
// a valid string, over the allowance).
func (d *decoder) windowString(w packetWindow, pos int, s *rstep) (b []byte, end int) {
	word := w.word(pos)
	n := int(word & s.mask)
	pad := -(pos + int(s.bits)) & 7
	if n > s.n || word>>(s.bits&63)&(1<<pad-1) != 0 {
		return nil, -1
	}
	first := (pos + int(s.bits) + pad) >> 3
	if first+n > w.last+8 {
		return nil, -1
	}
	if b = w.bytes(first, n); !bitio.ValidStringBytes(b) || !d.budget.take(stringCharge(n)) {
		return nil, -1
	}
	return b, 8 * (first + n)
}

// stringBatchMax is the most strings a decode holds back before it makes
// them (in one allocation), and so the most a value's strings share.
const stringBatchMax = 64

// pendingString is a string a decode has read and not yet made: where it
// goes, and its bytes in the packet.
type pendingString struct {
	at pointer
	b  []byte
}

// setString makes the string at at the bytes b read from the packet:
// nothing when it holds them already, else b copied into a new string —
// at once, or, when the decoder holds strings back (d.strs, a decode into
// the scratch value), once the decode is accepted, together with the
// value's other strings (makeStrings).
func (d *decoder) setString(at pointer, b []byte) {
	s := at.string()
	switch {
	case *s == string(b): // no allocation when unchanged
	case d.strs == nil || d.inMap > 0 || len(b) == 0:
		*s = string(b)
		d.grow(len(b), 1)
	default:
		if len(*d.strs) == stringBatchMax {
			d.makeStrings()
		}
		*d.strs = append(*d.strs, pendingString{at, b})
	}
}

// makeStrings makes the strings the decoder holds back, in one
// allocation, and lets go of them.
func (d *decoder) makeStrings() {
	list := *d.strs
	n := 0
	for i := range list {
		n += len(list[i].b)
	}
	var all strings.Builder // its buffer becomes the string: no copy, not zeroed
	all.Grow(n)
	for i := range list {
		all.Write(list[i].b)
	}
	rest := all.String()
	for i := range list {
		k := len(list[i].b)
		*list[i].at.string(), rest = rest[:k], rest[k:]
	}
	dropStrings(d.strs)
	d.grow(n, 1)
}

// dropStrings empties a list of strings held back, dropping its
// references to the packet and the value.
func dropStrings(list *[]pendingString) {
	clear(*list)
	*list = (*list)[:0]
}

// commitString shares the scratch value's string: strings are immutable.
func commitString(_ *op, d, s pointer) { *d.string() = *s.string() }

func encodeBytes(w *bitio.Writer, o *op, at pointer, _ int) *fieldError {
	b := *at.bytes()
	if len(b) > o.n {
		return newFieldError(o.path, -1, ErrRange, "%d bytes exceed maxlen %d", len(b), o.n)
	}
	w.WriteBits(uint64(len(b)), o.bits)
	w.WriteBytes(b)
	return nil
}

// decodeBytes reads a []byte field: its length, then the bytes, aligned.
func decodeBytes(d *decoder, o *op, at pointer, start, _ int) *fieldError {
	r := d.r
	n := r.ReadBits(o.bits)
	if n > uint64(o.n) {
		return newFieldError(o.path, start, ErrRange, "length %d exceeds maxlen %d", n, o.n)
	}
	r.Align()
	if r.Err() != nil {
		return nil
	}
	if n > uint64(r.BitsRemaining()/8) {
		return newFieldError(o.path, start, ErrOverflow, "needs %d bytes, %d remain", n, r.BitsRemaining()/8)
	}
	work, bytes := elemsCharge(o, int(n), d.fresh)
	if err := d.charge(work, bytes, 1, uintptr(n), start); err != nil {
		return err.withPrefix(o.path)
	}
	b := at.bytes()
	if cap(*b) >= int(n) {
		*b = (*b)[:n]
	} else {
		*b = make([]byte, n)
		d.grow(int(n), 1)
	}
	r.ReadBytes(*b)
	return nil
}

// commitBytes copies into the caller's slice when it has the room, else
// hands the scratch value's over.
func commitBytes(_ *op, d, s pointer) {
	db, sb := d.bytes(), s.bytes()
	if cap(*db) >= len(*sb) {
		*db = append((*db)[:0], *sb...)
		return
	}
	*db, *sb = *sb, nil
}

func encodeByteArray(w *bitio.Writer, o *op, at pointer, _ int) *fieldError {
	w.WriteBytes(at.byteArray(o.n))
	return nil
}

func decodeByteArray(d *decoder, o *op, at pointer, _, _ int) *fieldError {
	d.r.ReadBytes(at.byteArray(o.n))
	return nil
}

// Deltas: a string, []byte or [N]byte that changed is sent whole, as its
// full encoding; it must differ from the base's. Strings are compared as
// strings, byte slices by their bytes (nil and empty are the same on the
// wire).

func encodeStringDelta(e *deltaEncoder, o *op, at, bt pointer, bit bool) (bool, *fieldError) {
	s := *at.string()
	if s == *bt.string() {
		return e.same(bit)
	}
	if bit {
		e.w.WriteBits(1, 1)
	}
	e.charge(stringCharge(len(s)))
	return true, encodeString(e.w, o, at, 0)
}

func decodeStringDelta(d *decoder, o *op, at pointer, start int, bit bool) (bool, *fieldError) {
	if !d.changedBit(bit) {
		return false, nil
	}
	b := d.r.ReadStringBytes(o.n)
	if d.r.Err() != nil {
		return false, nil
	}
	s := at.string()
	if string(b) == *s {
		return false, unchangedError(o.path, start)
	}
	work, bytes := stringCharge(len(b))
	if err := d.charge(work, bytes, 1, uintptr(len(b)), start); err != nil {
		return false, err.withPrefix(o.path)
	}
	d.saveString(at)
	d.setString(at, b)
	return true, nil
}

func encodeBytesDelta(e *deltaEncoder, o *op, at, bt pointer, bit bool) (bool, *fieldError) {
	b := *at.bytes()
	if string(b) == string(*bt.bytes()) {
		return e.same(bit)
	}
	if bit {
		e.w.WriteBits(1, 1)
	}
	e.charge(elemsCharge(o, len(b), false))
	return true, encodeBytes(e.w, o, at, 0)
}

// decodeBytesDelta reads a changed []byte: its length and bytes are read
// once to compare with the base's, then again into the field.
func decodeBytesDelta(d *decoder, o *op, at pointer, start int, bit bool) (bool, *fieldError) {
	r := d.r
	if !d.changedBit(bit) {
		return false, nil
	}
	body := r.BitsRead()
	n := r.ReadBits(o.bits)
	if r.Err() != nil {
		return false, nil
	}
	if n > uint64(o.n) {
		return false, newFieldError(o.path, start, ErrRange, "length %d exceeds maxlen %d", n, o.n)
	}
	r.Align()
	if r.Err() == nil && n > uint64(r.BitsRemaining()/8) {
		return false, newFieldError(o.path, start, ErrOverflow, "needs %d bytes, %d remain", n, r.BitsRemaining()/8)
	}
	if r.Err() != nil || sameAsRead(r, *at.bytes(), int(n)) {
		if r.Err() == nil {
			return false, unchangedError(o.path, start)
		}
		return false, nil
	}
	r.Rewind(body)
	if d.undo != nil { // in place: the slice, and the bytes of its array it overwrites
		d.saveSlice(at)
		if int(n) <= at.sliceCap() {
			d.saveBytes(at.sliceElem(0, 0), int(n))
		}
	}
	err := decodeBytes(d, o, at, start, 0)
	d.emptied(at)
	return true, err
}

// sameAsRead reports whether the next n bytes of r (aligned, and there)
// are b, and leaves r after them.
func sameAsRead(r *bitio.Reader, b []byte, n int) bool {
	same := len(b) == n
	for i := 0; i < n; i++ {
		c := byte(r.ReadBits(8))
		same = same && c == b[i]
	}
	return same
}

// cloneBytes copies a []byte into dst's own array (see clone).
func cloneBytes(_ *op, d, s pointer) {
	db, sb := d.bytes(), s.bytes()
	if *sb == nil {
		*db = (*db)[:0]
		return
	}
	*db = append((*db)[:0], *sb...)
}

func encodeByteArrayDelta(e *deltaEncoder, o *op, at, bt pointer, bit bool) (bool, *fieldError) {
	if at.sameBytes(bt, uintptr(o.n)) {
		return e.same(bit)
	}
	if bit {
		e.w.WriteBits(1, 1)
	}
	return true, encodeByteArray(e.w, o, at, 0)
}

func decodeByteArrayDelta(d *decoder, o *op, at pointer, start int, bit bool) (bool, *fieldError) {
	r := d.r
	if !d.changedBit(bit) {
		return false, nil
	}
	r.Align()
	body := r.BitsRead()
	if r.Err() == nil && o.n > r.BitsRemaining()/8 {
		return false, newFieldError(o.path, start, ErrOverflow, "needs %d bytes, %d remain", o.n, r.BitsRemaining()/8)
	}
	if r.Err() != nil {
		return false, nil
	}
	if sameAsRead(r, at.byteArray(o.n), o.n) {
		return false, unchangedError(o.path, start)
	}
	r.Rewind(body)
	d.saveBytes(at, o.n)
	r.ReadBytes(at.byteArray(o.n))
	return true, nil
}

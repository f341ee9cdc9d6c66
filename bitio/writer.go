package bitio

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/bitpack-go/bitpack/internal/frame"
	"github.com/bitpack-go/bitpack/quant"
)

// BitsRequired returns the number of bits a value in [min, max] takes on the
// wire: 0 when min == max, otherwise the bit length of the unsigned span
// max - min. Signed ranges pass their bounds converted with uint64(...); the
// wrapping subtraction gives the right span either way.
func BitsRequired(min, max uint64) int {
	return bits.Len64(max - min)
}

// Writer packs values least-significant bit first, appending to a byte
// slice. Whole bytes go to the slice as soon as a 64-bit scratch word fills;
// Bytes adds the pending partial bytes.
//
// The zero Writer is usable after Reset. A Writer is not safe for concurrent
// use.
type Writer struct {
	buf     []byte // dst, then every byte flushed so far
	scratch uint64 // pending bits, least significant first; unused bits are zero
	pending uint   // number of pending bits, 0..63
	start   int    // len(dst): BitsWritten counts from here
	failed  bool   // an error is recorded: every write is a no-op
	err     error  // the error; nil while a WriteBits refusal waits in badV/badN
	// A WriteBits refusal is recorded with two stores instead of a call, so
	// WriteBits stays small enough to inline; Err builds the error from them.
	badV uint64
	badN int
	// The state of the bitpack encode this Writer is part of (see package
	// internal/frame); not bitio's, and not reachable outside the module.
	//lint:ignore U1000 read and written by package bitpack (its unsafe.go)
	frame frame.Frame
}

// NewWriter returns a Writer appending to dst.
func NewWriter(dst []byte) *Writer {
	w := new(Writer)
	w.Reset(dst)
	return w
}

// Reset discards all state, including a recorded error, and starts
// appending to dst. Writing allocates nothing while dst has capacity.
func (w *Writer) Reset(dst []byte) {
	*w = Writer{buf: dst, start: len(dst)}
}

// BitsWritten returns the number of bits written since Reset.
func (w *Writer) BitsWritten() int {
	return (len(w.buf)-w.start)*8 + int(w.pending)
}

// Err returns the first error, or nil. After an error every write is a
// no-op.
func (w *Writer) Err() error {
	if w.failed && w.err == nil {
		w.err = w.bitsError()
	}
	return w.err
}

// bitsError builds the error of a refused WriteBits. Nothing was written
// after it, so BitsWritten is still the offset where it happened.
func (w *Writer) bitsError() error {
	if uint(w.badN) > 64 {
		return newError("write bits", w.BitsWritten(), ErrRange, "bit count %d outside 0..64", w.badN)
	}
	return newError("write bits", w.BitsWritten(), ErrRange, "value %#x does not fit in %d bits", w.badV, w.badN)
}

// Fail records err as the Writer's error unless one is recorded already.
// Code layered on a Writer (custom MarshalBits hooks, bitpack's plans) uses
// it to stop the stream with its own, more specific error.
func (w *Writer) Fail(err error) {
	if !w.failed && err != nil {
		w.failed, w.err = true, err
	}
}

func (w *Writer) fail(op string, sentinel error, format string, args ...any) {
	if !w.failed {
		w.failed = true
		w.err = newError(op, w.BitsWritten(), sentinel, format, args...)
	}
}

// Bytes returns dst followed by ceil(BitsWritten/8) bytes; unused bits of
// the final byte are zero. It does not change the Writer, but the slice it
// returns shares memory with the Writer's buffer: a later write may change
// its final partial byte, and after a Rewind later writes overwrite the
// bytes past the rewind point. Call Bytes again after writing more.
func (w *Writer) Bytes() []byte {
	// Byte by byte: a whole-word store would write past the bytes
	// returned, into the caller's spare capacity.
	out := w.buf
	s := w.scratch
	for k := int(w.pending); k > 0; k -= 8 {
		out = append(out, byte(s))
		s >>= 8
	}
	return out
}

// Rewind truncates the output to its first bits bits (a value BitsWritten
// returned earlier), discarding everything written after that point. The
// error state is unchanged. Rewinding forward is ErrRange.
func (w *Writer) Rewind(bits int) {
	w.Err() // a pending WriteBits error takes its offset from the current position
	written := w.BitsWritten()
	if bits < 0 || bits > written {
		w.fail("rewind", ErrRange, "cannot rewind to bit %d of %d", bits, written)
		return
	}
	flushed := (len(w.buf) - w.start) * 8
	if bits >= flushed {
		keep := uint(bits - flushed)
		w.scratch &= 1<<keep - 1
		w.pending = keep
		return
	}
	i := w.start + bits/8
	keep := uint(bits % 8)
	w.scratch = uint64(w.buf[i]) & (1<<keep - 1)
	w.pending = keep
	w.buf = w.buf[:i]
}

// WriteBits writes the low n bits of v, 0 <= n <= 64. n == 0 writes
// nothing. v must be below 2^n; otherwise nothing is written and the error
// is ErrRange, so a value is never silently masked.
func (w *Writer) WriteBits(v uint64, n int) {
	// No calls on any path (append aside), so this inlines into the caller.
	if uint(n) > 64 || uint(bits.Len64(v)) > uint(n) || w.failed {
		if !w.failed {
			w.failed, w.badV, w.badN = true, v, n
		}
		return
	}
	// In locals, so each field is loaded and stored once.
	s, p := w.scratch|v<<w.pending, w.pending+uint(n)
	if p >= 64 {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, s)
		p -= 64
		s = v >> (uint(n) - p) // 0 when everything fitted (Go shifts by 64 give 0)
	}
	w.scratch, w.pending = s, p
}

// WriteBitsUnchecked writes the low n bits of v like WriteBits, for
// callers that have already checked what they write (bitpack's encoder
// checks every field against its tag before packing fields into a word):
// it checks nothing and records no error, which makes it cheaper. v must be
// below 2^n and n in 0..64; otherwise the packet is garbage from there on —
// stray bits of v land on what is written next — but nothing panics and
// the Writer stays usable. After an error it writes nothing, as every
// write does.
func (w *Writer) WriteBitsUnchecked(v uint64, n int) {
	if w.failed {
		return
	}
	// Shift counts masked to 0..63 (pending is below 64), so the compiler
	// drops Go's test for larger ones. The bits of v left over after a
	// flush are v >> (64 - q): two shifts, since that is 64 (nothing left)
	// when q is 0. Storing p&63 keeps pending below 64 whatever n is.
	q := w.pending & 63
	s, p := w.scratch|v<<q, q+uint(n)
	if p >= 64 {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, s)
		s = v >> 1 >> (^q & 63)
	}
	w.scratch, w.pending = s, p&63
}

// put appends the low n bits of v; the caller guarantees v < 2^n, n <= 64,
// and no error.
func (w *Writer) put(v uint64, n uint) {
	if p := w.pending + n; p < 64 {
		w.scratch |= v << w.pending
		w.pending = p
		return
	}
	w.putFlush(v, n)
}

// putFlush is put when the scratch word fills: the full word goes to the
// buffer and the bits of v that did not fit start the next one.
func (w *Writer) putFlush(v uint64, n uint) {
	w.scratch |= v << w.pending
	w.buf = binary.LittleEndian.AppendUint64(w.buf, w.scratch)
	w.pending += n - 64
	w.scratch = v >> (n - w.pending) // 0 when everything fitted (Go shifts by 64 give 0)
}

// WriteBool writes one bit: 1 for true.
func (w *Writer) WriteBool(b bool) {
	var v uint64
	if b {
		v = 1
	}
	w.WriteBits(v, 1)
}

// WriteInt writes v - min in BitsRequired(min, max) bits (nothing when
// min == max). v outside [min, max], or min > max, is ErrRange.
func (w *Writer) WriteInt(v, min, max int64) {
	if w.failed {
		return
	}
	if min > max || v < min || v > max {
		w.badInt(v, min, max)
		return
	}
	w.put(uint64(v)-uint64(min), uint(BitsRequired(uint64(min), uint64(max))))
}

func (w *Writer) badInt(v, min, max int64) {
	if min > max {
		w.fail("write int", ErrRange, "invalid range [%d, %d]", min, max)
		return
	}
	w.fail("write int", ErrRange, "value %d out of range [%d, %d]", v, min, max)
}

// WriteUint is WriteInt for unsigned values.
func (w *Writer) WriteUint(v, min, max uint64) {
	if w.failed {
		return
	}
	if min > max || v < min || v > max {
		w.badUint(v, min, max)
		return
	}
	w.put(v-min, uint(BitsRequired(min, max)))
}

func (w *Writer) badUint(v, min, max uint64) {
	if min > max {
		w.fail("write uint", ErrRange, "invalid range [%d, %d]", min, max)
		return
	}
	w.fail("write uint", ErrRange, "value %d out of range [%d, %d]", v, min, max)
}

// WriteFloat32 writes the raw IEEE-754 bits of f (32 bits); every pattern,
// NaN payloads included, passes through untouched.
func (w *Writer) WriteFloat32(f float32) { w.WriteBits(uint64(math.Float32bits(f)), 32) }

// WriteFloat64 writes the raw IEEE-754 bits of f (64 bits).
func (w *Writer) WriteFloat64(f float64) { w.WriteBits(math.Float64bits(f), 64) }

// WriteCompressedFloat quantizes f over [min, max] at resolution res (see
// package quant) and writes the code. A finite f outside the range is
// clamped, as the reference does; NaN or ±Inf, and invalid parameters, are
// ErrRange. Fields written often should build the parameters once with
// quant.NewFloat and call WriteQuantized.
func (w *Writer) WriteCompressedFloat(f, min, max, res float32) {
	if w.failed {
		return
	}
	q, err := quant.NewFloat(min, max, res)
	if err != nil {
		w.fail("write compressed float", ErrRange, "%v", err)
		return
	}
	w.WriteQuantized(&q, f)
}

// WriteQuantized writes f as a compressed float with precomputed
// parameters: the same bytes as WriteCompressedFloat, without recomputing
// delta, M and the bit count on every call.
func (w *Writer) WriteQuantized(q *quant.Float, f float32) {
	if w.failed {
		return
	}
	if q == nil || q.MaxCode() == 0 {
		w.fail("write compressed float", ErrRange, "parameters not built with quant.NewFloat")
		return
	}
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		w.fail("write compressed float", ErrRange, "value %v is not finite", f)
		return
	}
	w.put(uint64(q.Quantize(f)), uint(q.Bits()))
}

// int_relative tiers: a flag bit 1 then int(d, lo, hi), tried in order
// after the one-bit tier (d == 1).
var relativeTiers = [5]struct{ lo, hi uint64 }{
	{2, 6}, {7, 23}, {24, 280}, {281, 4377}, {4378, 69914},
}

// WriteIntRelative encodes cur relative to prev (prev < cur) with the
// serialize int_relative ladder: 1 bit for a difference of 1, a flag and a
// few bits for small differences, and cur itself as 32 raw bits when the
// difference exceeds 69914. prev >= cur is ErrRange.
func (w *Writer) WriteIntRelative(prev, cur int32) {
	if w.failed {
		return
	}
	if prev >= cur {
		w.fail("write int_relative", ErrRange, "current %d must be greater than previous %d", cur, prev)
		return
	}
	d := uint64(int64(cur) - int64(prev))
	if d == 1 {
		w.put(1, 1)
		return
	}
	w.put(0, 1)
	for _, t := range relativeTiers {
		if d <= t.hi {
			w.put(1, 1)
			w.put(d-t.lo, uint(BitsRequired(t.lo, t.hi)))
			return
		}
		w.put(0, 1)
	}
	w.put(uint64(uint32(cur)), 32)
}

// Align writes zero bits up to the next byte boundary (nothing when the
// stream is aligned).
func (w *Writer) Align() {
	if w.failed {
		return
	}
	w.put(0, -w.pending&7)
}

// WriteBytes aligns, then writes p as raw bytes (its length is not
// written). Empty p still aligns.
func (w *Writer) WriteBytes(p []byte) {
	if w.failed {
		return
	}
	w.alignFlush(len(p))
	w.buf = append(w.buf, p...)
}

// alignFlush aligns and moves the pending whole bytes to the buffer, so the
// next bytes can be copied in bulk; next is how many bytes the caller
// appends right after.
func (w *Writer) alignFlush(next int) {
	w.putFlushAligned(0, 0, next)
}

// putFlushAligned appends the low n bits of v (the caller guarantees
// v < 2^n, n < 64, and no error), aligns, and moves the pending whole
// bytes to the buffer, so that the next bytes, next of them, can be copied
// in bulk.
func (w *Writer) putFlushAligned(v uint64, n uint, next int) {
	q := w.pending & 63
	s, p := w.scratch|v<<q, q+n
	buf := w.buf
	if p >= 64 {
		buf = binary.LittleEndian.AppendUint64(buf, s)
		p -= 64
		s = v >> 1 >> (^q & 63) // what did not fit: v >> (64-q), 0 when q is 0
	}
	k := int(p+7) >> 3 // the pending bytes, aligned: 0 to 8
	if l := len(buf); cap(buf)-l >= 8 && k+next >= 8 {
		// Store the whole scratch word, keep only its pending bytes: the
		// next bytes overwrite the rest, so nothing is written past what
		// the Writer returns.
		buf = binary.LittleEndian.AppendUint64(buf, s)[:l+k]
	} else {
		for ; k > 0; k-- { // near the end of the capacity: never grow for nothing
			buf = append(buf, byte(s))
			s >>= 8
		}
	}
	w.buf, w.scratch, w.pending = buf, 0, 0
}

// WriteString writes len(s) as int(len, 0, maxlen), then the bytes of s
// aligned. A string longer than maxlen or a negative maxlen is ErrRange;
// invalid UTF-8 or a NUL byte is ErrInvalidString. Nothing is written on
// error.
func (w *Writer) WriteString(s string, maxlen int) {
	n := len(s)
	if w.failed || n > maxlen { // (a negative maxlen is below len(s))
		w.refuseString(s, maxlen)
		return
	}
	buf := w.buf
	l := len(buf)
	if n > 16 || cap(buf)-l < shortRoom {
		w.writeString(s, maxlen)
		return
	}
	// Up to 16 bytes, with room for them and more: the string is two words
	// in registers, checked (ASCII without NUL: see asciiPrefix) and
	// stored, with no call. Anything else takes writeString.
	// x and y: its first and last 8, 4, 2 or 1 bytes (as many as it has,
	// overlapping); under 8 bytes, t: a word every byte of which is one of
	// s's.
	var x, y, t uint64
	ascii := false
	switch {
	case n >= 8:
		x, y = load64(s, 0), load64(s, n-8)
		ascii = (x|y)&highs == 0 && (x+(highs-ones))&(y+(highs-ones))&highs == highs
	case n >= 4:
		x, y = uint64(load32(s, 0)), uint64(load32(s, n-4))
		t = x | y<<32
	case n >= 2:
		x, y = uint64(load16(s, 0)), uint64(load16(s, n-2))
		t = x | y<<16
		t |= t << 32
	case n == 1:
		x = uint64(s[0])
		y, t = x, x*ones
	default:
		t = ones
	}
	if n < 8 {
		ascii = t&highs == 0 && (t+(highs-ones))&highs == highs
	}
	if !ascii {
		w.writeString(s, maxlen) // not ASCII, or a NUL: ValidString decides
		return
	}
	// The length, alignment and the pending bytes (as putFlushAligned),
	// then the string, stored in d: offsets masked to 0..31, which a
	// 40-byte array holds 8 bytes from, so nothing is bounds-checked.
	d := (*[shortRoom]byte)(buf[l:cap(buf)])
	v := uint64(n)
	q := w.pending & 63
	sc, p := w.scratch|v<<q, q+uint(bits.Len64(uint64(maxlen)))
	o := 0
	if p >= 64 {
		binary.LittleEndian.PutUint64(d[:], sc)
		o, p = 8, p-64
		sc = v >> 1 >> (^q & 63)
	}
	k := int(p+7) >> 3
	if k+n >= 8 { // the string's bytes overwrite the word's others: nothing is written past the end
		binary.LittleEndian.PutUint64(d[o&31:], sc)
	} else {
		for j := range k {
			d[(o+j)&31] = byte(sc >> (8 * j))
		}
	}
	o += k // at most 16
	// The string: two stores, overlapping when it is shorter than their
	// width, none past its end.
	switch {
	case n >= 8:
		binary.LittleEndian.PutUint64(d[o&31:], x)
		binary.LittleEndian.PutUint64(d[(o+n-8)&31:], y)
	case n >= 4:
		binary.LittleEndian.PutUint32(d[o&31:], uint32(x))
		binary.LittleEndian.PutUint32(d[(o+n-4)&31:], uint32(y))
	case n >= 2:
		binary.LittleEndian.PutUint16(d[o&31:], uint16(x))
		binary.LittleEndian.PutUint16(d[(o+n-2)&31:], uint16(y))
	case n == 1:
		d[o&31] = byte(x)
	}
	w.scratch, w.pending = 0, 0
	w.buf = w.buf[:l+o+n] // the same array: only the length is stored
}

// shortRoom is the room WriteString's path without calls needs after the
// buffer's length: its stores are at offsets masked to 0..31 (a full
// scratch word, the pending bytes and 16 bytes of string reach 32).
const shortRoom = 40

// writeString is WriteString's general path: any length, any room.
func (w *Writer) writeString(s string, maxlen int) {
	if !ValidString(s) {
		w.refuseString(s, maxlen)
		return
	}
	w.putFlushAligned(uint64(len(s)), uint(bits.Len64(uint64(maxlen))), len(s))
	w.buf = append(w.buf, s...)
}

// refuseString records why WriteString refuses s (nothing after an
// earlier error).
func (w *Writer) refuseString(s string, maxlen int) {
	switch {
	case w.failed:
	case maxlen < 0:
		w.fail("write string", ErrRange, "negative maxlen %d", maxlen)
	case len(s) > maxlen:
		w.fail("write string", ErrRange, "string of %d bytes exceeds maxlen %d", len(s), maxlen)
	default:
		w.fail("write string", ErrInvalidString, "%s", stringProblem(s))
	}
}

// stringProblem returns "" if s may travel as a serialize string (see
// ValidString), or what is wrong with it. Generated Go code repeats the
// rule; the rules' version (bitpack's internal/rules, Version) hashes this
// function and ValidString's, so changing them makes every generated Go
// file stale.
func stringProblem(s string) string {
	if ValidString(s) {
		return ""
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return "NUL byte at offset " + itoa(i)
	}
	return "invalid UTF-8 at offset " + itoa(invalidOffset(s))
}

// bytesProblem is stringProblem for a byte slice.
func bytesProblem(b []byte) string {
	if ValidStringBytes(b) {
		return ""
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return "NUL byte at offset " + itoa(i)
	}
	return "invalid UTF-8 at offset " + itoa(invalidOffset(string(b)))
}

// invalidOffset returns the offset of the first byte that does not start a
// valid UTF-8 sequence (error path only).
func invalidOffset(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(s)
}

func itoa(i int) string {
	var b [20]byte
	n := len(b)
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[n:])
		}
	}
}

// WriteQuat writes v as a smallest-three quaternion: 2 bits for the index of
// the largest component, then the other three in q.ComponentBits() bits
// each, the canonical code quant.Quat.Encode picks (the all-zero
// quaternion is the identity). A NaN or infinite component is ErrRange.
func (w *Writer) WriteQuat(q *quant.Quat, v [4]float32) {
	if w.failed {
		return
	}
	if q == nil || q.ComponentBits() < 2 {
		w.fail("write quat", ErrRange, "parameters not built with quant.NewQuat")
		return
	}
	largest, codes, ok := q.Encode(v)
	if !ok {
		w.fail("write quat", ErrRange, "component of %v is not finite", v)
		return
	}
	b := uint(q.ComponentBits())
	w.put(uint64(largest), 2)
	w.put(uint64(codes[0]), b)
	w.put(uint64(codes[1]), b)
	w.put(uint64(codes[2]), b)
}

// WriteUints writes every element of src in n bits: the same as calling
// WriteBits(v, n) for each, in one call. If an element does not fit in n
// bits (or n is outside 0..64), nothing is written and the error is
// ErrRange.
func WriteUints[T Unsigned](w *Writer, src []T, n int) {
	if w.failed || uint(n) > 64 || n < int(8*elemSize(src)) && !fitIn(src, uint(n)) {
		writeUintsRefused(w, src, n)
		return
	}
	if n == 0 {
		return // every value is 0 (checked above): nothing to write
	}
	// put's work, with the Writer's state in locals (registers) for the
	// whole loop. Every value fits in n bits (checked above, or n is the
	// element's width).
	buf, s, p, nn := w.buf, w.scratch, w.pending, uint(n)
	if nn == 32 { // pairs make whole words: one store per two values
		if p == 0 {
			for len(src) >= 2 {
				buf = binary.LittleEndian.AppendUint64(buf, uint64(src[0])|uint64(src[1])<<32)
				src = src[2:]
			}
		} else {
			// 0 < p < 64: masked shift counts say so to the compiler,
			// which then shifts without Go's test for counts of 64 and up.
			lo, hi := p&63, (64-p)&63
			for len(src) >= 2 {
				v := uint64(src[0]) | uint64(src[1])<<32
				buf = binary.LittleEndian.AppendUint64(buf, s|v<<lo)
				s = v >> hi
				src = src[2:]
			}
		}
	}
	for _, x := range src {
		v := uint64(x)
		s |= v << (p & 63) // p < 64 here
		if p += nn; p >= 64 {
			buf = binary.LittleEndian.AppendUint64(buf, s)
			p -= 64
			s = v >> 1 >> ((nn - p - 1) & 63) // v >> (nn-p), which is 1..64: 0 when v fitted whole
		}
	}
	w.buf, w.scratch, w.pending = buf, s, p
}

// fitIn reports whether every value of src fits in n bits (n < 64).
func fitIn[T Unsigned](src []T, n uint) bool {
	var all uint64
	for _, v := range src {
		all |= uint64(v)
	}
	return all>>n == 0
}

// writeUintsRefused fails w for WriteUints(w, src, n), which refused:
// apart from its error a cold path, kept out of WriteUints' frame.
func writeUintsRefused[T Unsigned](w *Writer, src []T, n int) {
	switch {
	case w.failed:
	case uint(n) > 64:
		w.fail("write uints", ErrRange, "bit count %d outside 0..64", n)
	default:
		for k, v := range src {
			if uint64(v)>>uint(n) != 0 {
				w.fail("write uints", ErrRange, "element %d: value %#x does not fit in %d bits", k, uint64(v), n)
				return
			}
		}
	}
}

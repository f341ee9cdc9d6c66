package bitio

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/bitpack-go/bitpack/internal/bitwindow"
	"github.com/bitpack-go/bitpack/internal/frame"
	"github.com/bitpack-go/bitpack/quant"
)

// Reader unpacks values least-significant bit first from a packet of n
// bytes, which holds exactly 8n bits. It never reads past len(data), not
// even to fill a word, and never returns a value it did not fully read:
// after the first error every read returns the zero value.
//
// The zero Reader reads an empty packet. A Reader is not safe for
// concurrent use.
type Reader struct {
	// The bytes and the position, which bitpack's decoder reads and moves
	// in place: see package internal/bitwindow for what bitio keeps true
	// (end == 8*len(win.Data) until an error, win.Data nil after one).
	win bitwindow.Window
	end int // 8 * len(win.Data)
	err error
	// The state of the bitpack decode this Reader is part of (see package
	// internal/frame); not bitio's, and not reachable outside the module.
	//lint:ignore U1000 read and written by package bitpack (its unsafe.go)
	frame frame.Frame
}

// NewReader returns a Reader over data. The Reader does not copy data.
func NewReader(data []byte) *Reader {
	r := new(Reader)
	r.Reset(data)
	return r
}

// Reset discards all state, including a recorded error, and starts reading
// data from its first bit.
func (r *Reader) Reset(data []byte) {
	*r = Reader{win: bitwindow.Window{Data: data}, end: 8 * len(data)}
	if len(data) > math.MaxInt/8 {
		r.end = 0
		r.fail("reset", 0, ErrRange, "packet of %d bytes is too large to address in bits", len(data))
	}
}

// BitsRead returns the number of bits consumed since Reset.
func (r *Reader) BitsRead() int { return r.win.Pos }

// BitsRemaining returns the number of unread bits.
func (r *Reader) BitsRemaining() int { return r.end - r.win.Pos }

// Err returns the first error, or nil.
func (r *Reader) Err() error { return r.err }

// Fail records err as the Reader's error unless one is recorded already.
// Code layered on a Reader (custom UnmarshalBits hooks, bitpack's plans) uses
// it to refuse a packet for reasons of its own.
func (r *Reader) Fail(err error) {
	if r.err == nil && err != nil {
		r.setErr(err)
	}
}

func (r *Reader) fail(op string, bit int, sentinel error, format string, args ...any) {
	if r.err == nil {
		r.setErr(newError(op, bit, sentinel, format, args...))
	}
}

// setErr records the first error and drops the data, which also closes
// ReadBits' fast path: it needs 8 bytes of data and does not look at err.
func (r *Reader) setErr(err error) {
	r.err = err
	r.win.Data = nil
}

// Rewind moves the read position back to bit (a value BitsRead returned
// earlier), to read the same bits again. The error state is unchanged.
// Moving forward is ErrRange; use Skip.
func (r *Reader) Rewind(bit int) {
	if bit < 0 || bit > r.win.Pos {
		r.fail("rewind", r.win.Pos, ErrRange, "cannot rewind to bit %d from bit %d", bit, r.win.Pos)
		return
	}
	r.win.Pos = bit
}

// Skip consumes n bits without looking at them. Skipping past the end is
// ErrOverflow.
func (r *Reader) Skip(n int) {
	if r.err != nil {
		return
	}
	if n < 0 {
		r.fail("skip", r.win.Pos, ErrRange, "negative bit count %d", n)
		return
	}
	if n > r.end-r.win.Pos {
		r.overflow("skip", n)
		return
	}
	r.win.Pos += n
}

func (r *Reader) overflow(op string, n int) {
	r.fail(op, r.win.Pos, ErrOverflow, "needs %d bits, %d remain", n, r.end-r.win.Pos)
}

// ReadBits reads n bits, 0 <= n <= 64 (n == 0 reads nothing and returns 0).
// Reading past the end is ErrOverflow; n outside 0..64 is ErrRange.
func (r *Reader) ReadBits(n int) uint64 {
	// Fast path, small enough to inline: one unaligned 64-bit load holds at
	// least 57 bits from any bit position, as long as 8 bytes remain (which
	// also proves the n bits are there). After an error data is nil, so
	// the error check is folded into the length check.
	if i := uint(r.win.Pos) >> 3; uint(n) <= 56 && i+8 <= uint(len(r.win.Data)) {
		v := binary.LittleEndian.Uint64(r.win.Data[i:]) >> (r.win.Pos & 7) & (1<<n - 1)
		r.win.Pos += n
		return v
	}
	return r.readBitsSlow(n)
}

// readBitsSlow handles errors, n above 56 and the last 7 bytes.
func (r *Reader) readBitsSlow(n int) uint64 {
	switch {
	case r.err != nil:
		return 0
	case uint(n) > 64:
		r.fail("read bits", r.win.Pos, ErrRange, "bit count %d outside 0..64", n)
		return 0
	case n > r.end-r.win.Pos:
		r.overflow("read bits", n)
		return 0
	}
	if i := r.win.Pos >> 3; n > 56 && i+9 <= len(r.win.Data) {
		// 57 to 64 bits with 9 bytes to spare: the 8-byte window and the
		// byte after it (which supplies the top bits a shifted window lacks).
		s := uint(r.win.Pos & 7)
		v := binary.LittleEndian.Uint64(r.win.Data[i:])>>s | uint64(r.win.Data[i+8])<<(64-s)
		r.win.Pos += n
		return v & (1<<uint(n) - 1) // n == 64: 1<<64 - 1 is all ones
	}
	if i := r.win.Pos >> 3; n <= 56 {
		// In the last 7 bytes: the window is the packet's last 8 bytes
		// shifted down to byte i (zeros come in at the top), or, in a
		// packet shorter than 8 bytes, loadShort's. n <= 56 bits from bit
		// pos&7 end within the bytes there are.
		var w uint64
		if k := len(r.win.Data) - 8; k >= 0 {
			w = binary.LittleEndian.Uint64(r.win.Data[k:]) >> (8 * uint(i-k) & 63) // i > k: 8 to 56
		} else {
			w = loadShort(r.win.Data[i:])
		}
		v := w >> (r.win.Pos & 7) & (1<<n - 1)
		r.win.Pos += n
		return v
	}
	var v uint64
	for got := 0; got < n; {
		p := r.win.Pos + got
		b := uint64(r.win.Data[p>>3] >> (p & 7))
		take := min(8-p&7, n-got)
		v |= (b & (1<<take - 1)) << got
		got += take
	}
	r.win.Pos += n
	return v
}

// loadShort returns the bytes of b (fewer than 8) as a little-endian
// number: two overlapping 4-byte loads from 4 bytes up, so that a short
// packet costs no loop.
func loadShort(b []byte) uint64 {
	switch n := len(b); {
	case n >= 4:
		return uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<(8*(n-4)&63)
	case n == 3:
		return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16
	case n == 2:
		return uint64(b[0]) | uint64(b[1])<<8
	case n == 1:
		return uint64(b[0])
	}
	return 0
}

// ReadBool reads one bit.
func (r *Reader) ReadBool() bool { return r.ReadBits(1) != 0 }

// ReadInt reads a value written by WriteInt with the same bounds. An offset
// above max - min is ErrRange; so is min > max.
func (r *Reader) ReadInt(min, max int64) int64 {
	if r.err != nil {
		return 0
	}
	if min > max {
		r.fail("read int", r.win.Pos, ErrRange, "invalid range [%d, %d]", min, max)
		return 0
	}
	start := r.win.Pos
	span := uint64(max) - uint64(min)
	u := r.ReadBits(BitsRequired(0, span))
	if u > span {
		r.badInt(start, u, min, max)
		return 0
	}
	if r.err != nil { // overflow: u is 0, but min is not a value we read
		return 0
	}
	return int64(uint64(min) + u)
}

func (r *Reader) badInt(start int, u uint64, min, max int64) {
	if v := int64(uint64(min) + u); v > max {
		r.fail("read int", start, ErrRange, "value %d out of range [%d, %d]", v, min, max)
		return
	}
	r.fail("read int", start, ErrRange, "offset %d out of range [%d, %d]", u, min, max)
}

// ReadUint reads a value written by WriteUint with the same bounds.
func (r *Reader) ReadUint(min, max uint64) uint64 {
	if r.err != nil {
		return 0
	}
	if min > max {
		r.fail("read uint", r.win.Pos, ErrRange, "invalid range [%d, %d]", min, max)
		return 0
	}
	start := r.win.Pos
	span := max - min
	u := r.ReadBits(BitsRequired(0, span))
	if u > span {
		r.badUint(start, u, min, max)
		return 0
	}
	if r.err != nil {
		return 0
	}
	return min + u
}

func (r *Reader) badUint(start int, u, min, max uint64) {
	if v := min + u; v > max {
		r.fail("read uint", start, ErrRange, "value %d out of range [%d, %d]", v, min, max)
		return
	}
	r.fail("read uint", start, ErrRange, "offset %d out of range [%d, %d]", u, min, max)
}

// ReadFloat32 reads 32 raw IEEE-754 bits; every pattern comes back exactly.
func (r *Reader) ReadFloat32() float32 { return math.Float32frombits(uint32(r.ReadBits(32))) }

// ReadFloat64 reads 64 raw IEEE-754 bits.
func (r *Reader) ReadFloat64() float64 { return math.Float64frombits(r.ReadBits(64)) }

// ReadCompressedFloat reads a float written by WriteCompressedFloat with the
// same parameters. A code above M is ErrRange; so are invalid parameters.
func (r *Reader) ReadCompressedFloat(min, max, res float32) float32 {
	if r.err != nil {
		return 0
	}
	q, err := quant.NewFloat(min, max, res)
	if err != nil {
		r.fail("read compressed float", r.win.Pos, ErrRange, "%v", err)
		return 0
	}
	return r.ReadQuantized(&q)
}

// ReadQuantized is ReadCompressedFloat with precomputed parameters.
func (r *Reader) ReadQuantized(q *quant.Float) float32 {
	start := r.win.Pos
	if q == nil || q.MaxCode() == 0 {
		r.fail("read compressed float", start, ErrRange, "parameters not built with quant.NewFloat")
		return 0
	}
	code := r.ReadBits(q.Bits())
	if code > uint64(q.MaxCode()) {
		r.fail("read compressed float", start, ErrRange, "code %d out of range [0, %d]", code, q.MaxCode())
		return 0
	}
	if r.err != nil {
		return 0
	}
	return q.Dequantize(uint32(code))
}

// ReadIntRelative reads a value written by WriteIntRelative(prev, cur) and
// returns cur. It refuses (ErrRange) any encoding whose cur is not greater
// than prev or does not fit in int32 (no wrap-around in any tier), and, to
// keep encodings canonical, an absolute-tier value whose difference a
// smaller tier could have carried.
func (r *Reader) ReadIntRelative(prev int32) int32 {
	if r.err != nil {
		return 0
	}
	start := r.win.Pos
	var d uint64
	if r.ReadBits(1) == 1 {
		d = 1
	} else {
		for _, t := range relativeTiers {
			if r.ReadBits(1) == 1 {
				d = t.lo + r.ReadBits(BitsRequired(t.lo, t.hi))
				if d > t.hi {
					r.fail("read int_relative", start, ErrRange, "difference %d out of tier range [%d, %d]", d, t.lo, t.hi)
					return 0
				}
				break
			}
		}
		if d == 0 { // absolute tier
			cur := int32(uint32(r.ReadBits(32)))
			if r.err != nil {
				return 0
			}
			if cur <= prev {
				r.fail("read int_relative", start, ErrRange, "current %d is not greater than previous %d", cur, prev)
				return 0
			}
			if diff := int64(cur) - int64(prev); diff <= int64(relativeTiers[len(relativeTiers)-1].hi) {
				r.fail("read int_relative", start, ErrRange, "difference %d sent in the absolute tier (non-canonical)", diff)
				return 0
			}
			return cur
		}
	}
	if r.err != nil {
		return 0
	}
	cur := int64(prev) + int64(d)
	if cur > math.MaxInt32 {
		r.fail("read int_relative", start, ErrRange, "previous %d + difference %d overflows int32", prev, d)
		return 0
	}
	return int32(cur)
}

// Align consumes the bits up to the next byte boundary; they must be zero
// (ErrPadding otherwise).
func (r *Reader) Align() {
	if r.err != nil {
		return
	}
	start := r.win.Pos
	pad := -r.win.Pos & 7
	if v := r.ReadBits(pad); v != 0 {
		r.fail("align", start, ErrPadding, "padding bits %#b are not zero", v)
	}
}

// ReadBytes aligns, then fills p from the packet. On any error p is zeroed.
func (r *Reader) ReadBytes(p []byte) {
	r.Align()
	if r.err == nil && len(p) > (r.end-r.win.Pos)/8 { // not 8*len(p): that can overflow a 32-bit int
		r.fail("read bytes", r.win.Pos, ErrOverflow, "needs %d bits, %d remain", 8*int64(len(p)), r.end-r.win.Pos)
	}
	if r.err != nil {
		clear(p)
		return
	}
	copy(p, r.win.Data[r.win.Pos>>3:])
	r.win.Pos += 8 * len(p)
}

// ReadString reads a string written by WriteString with the same maxlen. A
// length above maxlen is ErrRange; invalid UTF-8 or a NUL byte is
// ErrInvalidString.
func (r *Reader) ReadString(maxlen int) string {
	return string(r.ReadStringBytes(maxlen))
}

// ReadStringBytes is ReadString without the copy: the result aliases the
// packet and is valid only as long as the packet is. It lets a caller
// compare against a string it already holds before allocating a new one.
func (r *Reader) ReadStringBytes(maxlen int) []byte {
	if r.err != nil {
		return nil
	}
	start := r.win.Pos
	if maxlen < 0 {
		r.fail("read string", start, ErrRange, "negative maxlen %d", maxlen)
		return nil
	}
	n := r.ReadBits(BitsRequired(0, uint64(maxlen)))
	if n > uint64(maxlen) {
		r.fail("read string", start, ErrRange, "length %d exceeds maxlen %d", n, maxlen)
		return nil
	}
	r.Align()
	if r.err == nil && n > uint64(r.end-r.win.Pos)/8 {
		r.fail("read string", r.win.Pos, ErrOverflow, "needs %d bytes, %d remain", n, (r.end-r.win.Pos)/8)
	}
	if r.err != nil {
		return nil
	}
	i := r.win.Pos >> 3
	s := r.win.Data[i : i+int(n) : i+int(n)]
	if problem := bytesProblem(s); problem != "" {
		r.fail("read string", start, ErrInvalidString, "%s", problem)
		return nil
	}
	r.win.Pos += 8 * int(n)
	return s
}

// ReadQuat reads a smallest-three quaternion written by WriteQuat with the
// same parameters. A code no encoder writes (a component code above
// q.MaxCode(), or one that is not canonical: see quant.Quat.Decode) is
// ErrRange; every accepted code decodes to a finite quaternion.
func (r *Reader) ReadQuat(q *quant.Quat) [4]float32 {
	if q == nil || q.ComponentBits() < 2 {
		r.fail("read quat", r.win.Pos, ErrRange, "parameters not built with quant.NewQuat")
		return [4]float32{}
	}
	start, b := r.win.Pos, q.ComponentBits()
	largest := r.ReadBits(2)
	var codes [3]uint32
	for i := range codes {
		codes[i] = uint32(r.ReadBits(b))
	}
	if r.err != nil {
		return [4]float32{}
	}
	v, err := q.Decode(uint32(largest), codes)
	if err != nil {
		r.fail("read quat", start, ErrRange, "%v", err)
	}
	return v
}

// Unsigned is the element type of ReadUints and WriteUints.
type Unsigned interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// ReadUints fills dst with len(dst) values of n bits each: the same as
// calling ReadBits(n) for each element, in one call. n must be at most the
// element's width. If the packet holds fewer than len(dst)*n bits, nothing
// is read, dst is zeroed and the error is ErrOverflow.
func ReadUints[T Unsigned](r *Reader, dst []T, n int) {
	if r.err != nil || uint(n) > 64 || n > int(8*elemSize(dst)) || !fitsIn(len(dst), n, r.end-r.win.Pos) {
		switch {
		case r.err != nil:
		case uint(n) > 64 || n > int(8*elemSize(dst)):
			r.fail("read uints", r.win.Pos, ErrRange, "bit count %d does not fit the element type", n)
		default: // the product in 64 bits: it can overflow a 32-bit int
			r.fail("read uints", r.win.Pos, ErrOverflow, "needs %d bits, %d remain", int64(len(dst))*int64(n), r.end-r.win.Pos)
		}
		clear(dst)
		return
	}
	mask := uint64(1)<<uint(n) - 1
	pos, data := r.win.Pos, r.win.Data
	for k := range dst {
		if i := pos >> 3; n <= 56 && i+8 <= len(data) {
			dst[k] = T(binary.LittleEndian.Uint64(data[i:]) >> (pos & 7) & mask)
			pos += n
			continue
		}
		r.win.Pos = pos
		dst[k] = T(r.readBitsSlow(n))
		pos = r.win.Pos
	}
	r.win.Pos = pos
}

// elemSize returns the size in bytes of an element of s: 1, 2, 4 or 8 for
// the Unsigned types (found from the all-ones value, to keep bitio free of
// package unsafe).
func elemSize[T Unsigned](s []T) uintptr {
	var x T
	x--
	switch {
	case uint64(x) == 0xff:
		return 1
	case uint64(x) == 0xffff:
		return 2
	case uint64(x) == 0xffffffff:
		return 4
	}
	return 8
}

// fitsIn reports whether n values of each bits fit in rest bits (all three
// at least 0). It multiplies in 128 bits rather than divide: no overflow on
// any platform, and a hardware division costs more than reading a value.
func fitsIn(n, each, rest int) bool {
	hi, lo := bits.Mul64(uint64(n), uint64(each))
	return hi == 0 && lo <= uint64(rest)
}

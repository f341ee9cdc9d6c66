package bitio_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// f is one field of an expected bit string: the low n bits of v.
type f struct {
	v uint64
	n int
}

// pack is the test oracle: it lays fields out one bit at a time, least
// significant bit first, independently of the Writer's word logic.
func pack(fields ...f) []byte {
	var out []byte
	pos := 0
	for _, fl := range fields {
		for i := 0; i < fl.n; i++ {
			if pos%8 == 0 {
				out = append(out, 0)
			}
			if fl.v>>i&1 == 1 {
				out[pos/8] |= 1 << (pos % 8)
			}
			pos++
		}
	}
	return out
}

func TestPackOracle(t *testing.T) {
	// The oracle itself, against bytes written down by hand.
	if got, want := pack(f{1, 1}, f{0x5, 3}, f{0xff, 8}), []byte{0xfb, 0x0f}; !bytes.Equal(got, want) {
		t.Fatalf("pack = %x, want %x", got, want)
	}
}

func TestBitsRequired(t *testing.T) {
	tests := []struct {
		min, max uint64
		want     int
	}{
		{0, 0, 0},
		{0, 1, 1},
		{0, 7, 3},
		{0, 8, 4},
		{5, 5, 0},
		{10, 90, 7},
		{0, math.MaxUint32, 32},
		{0, math.MaxUint64, 64},
		{1, math.MaxUint64, 64},
		{uint64(1) << 63, math.MaxUint64, 63},
		{u64(minInt64), math.MaxInt64, 64}, // full int64 span
		{u64(-100), 100, 8},                // signed bounds pass through uint64
		{u64(-1), 0, 1},
	}
	for _, tt := range tests {
		if got := bitio.BitsRequired(tt.min, tt.max); got != tt.want {
			t.Errorf("BitsRequired(%d, %d) = %d, want %d", tt.min, tt.max, got, tt.want)
		}
	}
}

const minInt64 = -1 << 63

func u64(v int64) uint64 { return uint64(v) }

func TestWriterPrimitives(t *testing.T) {
	tests := []struct {
		name  string
		write func(w *bitio.Writer)
		want  []byte
		bits  int
	}{
		{"nothing", func(w *bitio.Writer) {}, nil, 0},
		{"zero-width bits", func(w *bitio.Writer) { w.WriteBits(0, 0) }, nil, 0},
		{"bool", func(w *bitio.Writer) { w.WriteBool(true); w.WriteBool(false); w.WriteBool(true) }, pack(f{1, 1}, f{0, 1}, f{1, 1}), 3},
		{"64 bits", func(w *bitio.Writer) { w.WriteBits(0x0123456789abcdef, 64) }, []byte{0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01}, 64},
		{"straddle word", func(w *bitio.Writer) { w.WriteBits(5, 3); w.WriteBits(math.MaxUint64, 64); w.WriteBits(1, 1) },
			pack(f{5, 3}, f{math.MaxUint64, 64}, f{1, 1}), 68},
		{"int min==max costs 0", func(w *bitio.Writer) { w.WriteInt(7, 7, 7); w.WriteBits(1, 1) }, []byte{1}, 1},
		{"int signed", func(w *bitio.Writer) { w.WriteInt(-2, -10, 10) }, pack(f{8, 5}), 5},
		{"int full int64", func(w *bitio.Writer) { w.WriteInt(minInt64, minInt64, math.MaxInt64) }, make([]byte, 8), 64},
		{"uint", func(w *bitio.Writer) { w.WriteUint(1000, 0, 1000) }, pack(f{1000, 10}), 10},
		{"uint offset", func(w *bitio.Writer) { w.WriteUint(13, 10, 17) }, pack(f{3, 3}), 3},
		{"float32 -0", func(w *bitio.Writer) { w.WriteFloat32(float32(math.Copysign(0, -1))) }, []byte{0, 0, 0, 0x80}, 32},
		{"float64 NaN payload", func(w *bitio.Writer) { w.WriteFloat64(math.Float64frombits(0x7ff0000000000001)) },
			[]byte{1, 0, 0, 0, 0, 0, 0xf0, 0x7f}, 64},
		{"align when aligned", func(w *bitio.Writer) { w.WriteBits(0xab, 8); w.Align() }, []byte{0xab}, 8},
		{"align pads zeros", func(w *bitio.Writer) { w.WriteBits(1, 1); w.Align(); w.WriteBits(1, 1) }, []byte{1, 1}, 9},
		{"empty bytes still aligns", func(w *bitio.Writer) { w.WriteBits(1, 3); w.WriteBytes(nil); w.WriteBits(1, 1) }, []byte{1, 1}, 9},
		{"bytes after partial word", func(w *bitio.Writer) { w.WriteBits(0x3ff, 10); w.WriteBytes([]byte{0xaa, 0xbb}) },
			[]byte{0xff, 0x03, 0xaa, 0xbb}, 32},
		{"string", func(w *bitio.Writer) { w.WriteBool(true); w.WriteString("hi", 15) },
			append(pack(f{1, 1}, f{2, 4}), 'h', 'i'), 24},
		{"empty string maxlen 0", func(w *bitio.Writer) { w.WriteBool(true); w.WriteString("", 0) }, []byte{1}, 8},
		{"compressed float", func(w *bitio.Writer) { w.WriteCompressedFloat(2.5, 0, 10, 0.01) }, pack(f{250, 10}), 10},
		{"compressed float clamps finite", func(w *bitio.Writer) {
			w.WriteCompressedFloat(-3, 0, 10, 0.01)
			w.WriteCompressedFloat(99, 0, 10, 0.01)
		}, pack(f{0, 10}, f{1000, 10}), 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := bitio.NewWriter(nil)
			tt.write(w)
			if err := w.Err(); err != nil {
				t.Fatal(err)
			}
			if got := w.Bytes(); !bytes.Equal(got, tt.want) {
				t.Errorf("bytes = %x, want %x", got, tt.want)
			}
			if got := w.BitsWritten(); got != tt.bits {
				t.Errorf("BitsWritten = %d, want %d", got, tt.bits)
			}
		})
	}
}

// TestCompressedFloatArithmetic pins the values that tell float32 arithmetic
// (docs/wire.md, compressed floats) from float64 or fused multiply-add
// arithmetic, and bitpack's own clamp of the code to M for step counts in
// [2^23, 2^24).
func TestCompressedFloatArithmetic(t *testing.T) {
	tests := []struct {
		value, min, max, res float32
		code                 uint32 // float64 arithmetic would give the code in the comment
		bits                 int
	}{
		{0.005, 0, 10, 0.01, 1, 10},              // float64: 0
		{0.025, 0, 10, 0.01, 3, 10},              // float64: 2
		{0.105, 0, 10, 0.01, 11, 10},             // float64: 10
		{9.995, 0, 10, 0.01, 1000, 10},           // float64: 999
		{2.5, 0, 10, 0.01, 250, 10},              // on a quantum: every variant agrees
		{8388609, 0, 8388609, 1, 8388609, 24},    // unclamped sum is 8388610 > M
		{16777215, 0, 16777215, 1, 16777215, 24}, // unclamped sum is 2^24: one bit too wide
		{8388608, 0, 16777215, 1, 8388608, 24},   // the fused-multiply-add witness
	}
	for _, tt := range tests {
		q, err := quant.NewFloat(tt.min, tt.max, tt.res)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Quantize(tt.value); got != tt.code {
			t.Errorf("Quantize(%v) over [%v,%v] res %v = %d, want %d", tt.value, tt.min, tt.max, tt.res, got, tt.code)
		}
		w := bitio.NewWriter(nil)
		w.WriteCompressedFloat(tt.value, tt.min, tt.max, tt.res)
		if want := pack(f{uint64(tt.code), tt.bits}); !bytes.Equal(w.Bytes(), want) {
			t.Errorf("WriteCompressedFloat(%v) = %x, want %x", tt.value, w.Bytes(), want)
		}
		r := bitio.NewReader(w.Bytes())
		got := r.ReadCompressedFloat(tt.min, tt.max, tt.res)
		if r.Err() != nil || got != q.Dequantize(tt.code) {
			t.Errorf("read back %v (%v), want %v", got, r.Err(), q.Dequantize(tt.code))
		}
	}
}

func TestIntRelative(t *testing.T) {
	tier := func(flags int, d, lo uint64, n int) []f {
		fs := make([]f, 0, flags+2)
		for i := 0; i < flags; i++ {
			fs = append(fs, f{0, 1})
		}
		return append(fs, f{1, 1}, f{d - lo, n})
	}
	tests := []struct {
		prev, cur int32
		want      []f
	}{
		{0, 1, []f{{1, 1}}},
		{-1, 0, []f{{1, 1}}}, // sparse arrays start from -1
		{10, 12, tier(1, 2, 2, 3)},
		{10, 16, tier(1, 6, 2, 3)},
		{10, 17, tier(2, 7, 7, 5)},
		{10, 33, tier(2, 23, 7, 5)},
		{10, 34, tier(3, 24, 24, 9)},
		{10, 290, tier(3, 280, 24, 9)},
		{10, 291, tier(4, 281, 281, 13)},
		{10, 4387, tier(4, 4377, 281, 13)},
		{10, 4388, tier(5, 4378, 4378, 17)},
		{10, 69924, tier(5, 69914, 4378, 17)},
		{10, 69925, []f{{0, 6}, {69925, 32}}}, // absolute tier carries cur, not d
		{-5, math.MaxInt32, []f{{0, 6}, {math.MaxInt32, 32}}},
		{math.MinInt32, -1, []f{{0, 6}, {0xffffffff, 32}}},
		{math.MaxInt32 - 1, math.MaxInt32, []f{{1, 1}}},
	}
	for _, tt := range tests {
		want := pack(tt.want...)
		w := bitio.NewWriter(nil)
		w.WriteIntRelative(tt.prev, tt.cur)
		if err := w.Err(); err != nil {
			t.Fatalf("WriteIntRelative(%d, %d): %v", tt.prev, tt.cur, err)
		}
		if !bytes.Equal(w.Bytes(), want) {
			t.Errorf("WriteIntRelative(%d, %d) = %x, want %x", tt.prev, tt.cur, w.Bytes(), want)
		}
		r := bitio.NewReader(want)
		if got := r.ReadIntRelative(tt.prev); got != tt.cur || r.Err() != nil {
			t.Errorf("ReadIntRelative(%d) = %d, %v; want %d", tt.prev, got, r.Err(), tt.cur)
		}
		if r.BitsRead() != w.BitsWritten() {
			t.Errorf("read %d bits, wrote %d", r.BitsRead(), w.BitsWritten())
		}
	}
}

func TestIntRelativeRefusals(t *testing.T) {
	tests := []struct {
		name string
		prev int32
		data []byte
	}{
		// In the small tiers cur = prev + d with d >= 1, so "cur <= prev"
		// can only arise by wrapping past MaxInt32.
		{"one-bit tier wraps", math.MaxInt32, pack(f{1, 1})},
		{"tier 2..6 wraps", math.MaxInt32 - 1, pack(f{0, 1}, f{1, 1}, f{0, 3})},
		{"tier 7..23 wraps", math.MaxInt32 - 6, pack(f{0, 2}, f{1, 1}, f{0, 5})},
		{"tier 24..280 wraps", math.MaxInt32 - 23, pack(f{0, 3}, f{1, 1}, f{0, 9})},
		{"tier 281..4377 wraps", math.MaxInt32 - 280, pack(f{0, 4}, f{1, 1}, f{0, 13})},
		{"tier 4378..69914 wraps", math.MaxInt32 - 4377, pack(f{0, 5}, f{1, 1}, f{0, 17})},
		{"absolute equal", 100000, pack(f{0, 6}, f{100000, 32})},
		{"absolute smaller", 100000, pack(f{0, 6}, f{5, 32})},
		{"absolute negative below prev", 0, pack(f{0, 6}, f{0x80000000, 32})},
		{"absolute holds a small difference", 0, pack(f{0, 6}, f{100, 32})},
		{"absolute holds the largest tier difference", 0, pack(f{0, 6}, f{69914, 32})},
		{"tier payload above range", 0, pack(f{0, 1}, f{1, 1}, f{5, 3})},                    // d = 7 > 6
		{"tier 4378..69914 payload above range", 0, pack(f{0, 5}, f{1, 1}, f{0x1ffff, 17})}, // d > 69914
	}
	for _, tt := range tests {
		r := bitio.NewReader(tt.data)
		got := r.ReadIntRelative(tt.prev)
		if !errors.Is(r.Err(), bitio.ErrRange) || got != 0 {
			t.Errorf("%s: got %d, %v; want 0, ErrRange", tt.name, got, r.Err())
		}
	}
	// Truncated: the flags promise a payload the packet does not have.
	r := bitio.NewReader(pack(f{0, 5}, f{1, 1}))
	if got := r.ReadIntRelative(0); got != 0 || !errors.Is(r.Err(), bitio.ErrOverflow) {
		t.Errorf("truncated: got %d, %v; want 0, ErrOverflow", got, r.Err())
	}
}

func TestWriterRefusals(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	q9, _ := quant.NewQuat(9)
	tests := []struct {
		name  string
		write func(w *bitio.Writer)
		want  error
		msg   string
	}{
		{"value needs more bits", func(w *bitio.Writer) { w.WriteBits(8, 3) }, bitio.ErrRange, "value 0x8 does not fit in 3 bits"},
		{"nonzero in zero bits", func(w *bitio.Writer) { w.WriteBits(1, 0) }, bitio.ErrRange, "does not fit in 0 bits"},
		{"65 bits", func(w *bitio.Writer) { w.WriteBits(0, 65) }, bitio.ErrRange, "bit count 65 outside 0..64"},
		{"negative bits", func(w *bitio.Writer) { w.WriteBits(0, -1) }, bitio.ErrRange, "bit count -1"},
		{"int above", func(w *bitio.Writer) { w.WriteInt(11, -10, 10) }, bitio.ErrRange, "value 11 out of range [-10, 10]"},
		{"int below", func(w *bitio.Writer) { w.WriteInt(-11, -10, 10) }, bitio.ErrRange, "value -11 out of range [-10, 10]"},
		{"int min > max", func(w *bitio.Writer) { w.WriteInt(0, 1, 0) }, bitio.ErrRange, "invalid range [1, 0]"},
		{"uint above", func(w *bitio.Writer) { w.WriteUint(1001, 0, 1000) }, bitio.ErrRange, "value 1001 out of range [0, 1000]"},
		{"uint below", func(w *bitio.Writer) { w.WriteUint(1, 2, 6) }, bitio.ErrRange, "value 1 out of range [2, 6]"},
		{"cfloat NaN", func(w *bitio.Writer) { w.WriteCompressedFloat(nan, 0, 10, 0.01) }, bitio.ErrRange, "not finite"},
		{"cfloat +Inf", func(w *bitio.Writer) { w.WriteCompressedFloat(inf, 0, 10, 0.01) }, bitio.ErrRange, "not finite"},
		{"cfloat -Inf", func(w *bitio.Writer) { w.WriteCompressedFloat(-inf, 0, 10, 0.01) }, bitio.ErrRange, "not finite"},
		{"cfloat min >= max", func(w *bitio.Writer) { w.WriteCompressedFloat(1, 10, -10, 0.01) }, bitio.ErrRange, "min must be < max"},
		{"cfloat res 0", func(w *bitio.Writer) { w.WriteCompressedFloat(1, 0, 10, 0) }, bitio.ErrRange, "resolution"},
		{"cfloat NaN bound", func(w *bitio.Writer) { w.WriteCompressedFloat(1, nan, 10, 0.1) }, bitio.ErrRange, "finite"},
		{"string too long", func(w *bitio.Writer) { w.WriteString(strings.Repeat("x", 40), 15) }, bitio.ErrRange, "string of 40 bytes exceeds maxlen 15"},
		{"string negative maxlen", func(w *bitio.Writer) { w.WriteString("", -1) }, bitio.ErrRange, "negative maxlen"},
		{"string bad UTF-8", func(w *bitio.Writer) { w.WriteString("ok\xff", 15) }, bitio.ErrInvalidString, "invalid UTF-8 at offset 2"},
		{"string surrogate", func(w *bitio.Writer) { w.WriteString("\xed\xa0\x80", 15) }, bitio.ErrInvalidString, "invalid UTF-8 at offset 0"},
		{"string NUL", func(w *bitio.Writer) { w.WriteString("a\x00b", 15) }, bitio.ErrInvalidString, "NUL byte at offset 1"},
		{"relative equal", func(w *bitio.Writer) { w.WriteIntRelative(5, 5) }, bitio.ErrRange, "current 5 must be greater than previous 5"},
		{"relative decreasing", func(w *bitio.Writer) { w.WriteIntRelative(5, 4) }, bitio.ErrRange, "greater than previous"},
		{"quat NaN", func(w *bitio.Writer) { w.WriteQuat(&q9, [4]float32{0, nan, 0, 1}) }, bitio.ErrRange, "not finite"},
		{"nil quat parameters", func(w *bitio.Writer) { w.WriteQuat(nil, [4]float32{0, 0, 0, 1}) }, bitio.ErrRange, "not built with quant.NewQuat"},
		{"zero quat parameters", func(w *bitio.Writer) { w.WriteQuat(&quant.Quat{}, [4]float32{0, 0, 0, 1}) }, bitio.ErrRange, "not built with quant.NewQuat"},
		{"nil float parameters", func(w *bitio.Writer) { w.WriteQuantized(nil, 1) }, bitio.ErrRange, "not built with quant.NewFloat"},
		{"zero float parameters", func(w *bitio.Writer) { w.WriteQuantized(&quant.Float{}, 1) }, bitio.ErrRange, "not built with quant.NewFloat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := bitio.NewWriter([]byte{0xee})
			w.WriteBits(1, 1)
			tt.write(w)
			err := w.Err()
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), "bitio: ") {
				t.Errorf("err = %q, want it to contain %q", err, tt.msg)
			}
			var be *bitio.Error
			if !errors.As(err, &be) || be.Bit != 1 {
				t.Errorf("error offset: %+v, want bit 1", be)
			}
			// Nothing partial was written, and the error is sticky.
			w.WriteBits(1, 1)
			if got := w.Bytes(); !bytes.Equal(got, []byte{0xee, 0x01}) || w.BitsWritten() != 1 {
				t.Errorf("after error: bytes %x, %d bits; want ee01, 1 bit", got, w.BitsWritten())
			}
			if w.Err() != err {
				t.Errorf("error changed to %v", w.Err())
			}
		})
	}
}

func TestReaderRefusals(t *testing.T) {
	q10, _ := quant.NewQuat(10)
	tests := []struct {
		name string
		data []byte
		read func(r *bitio.Reader) any
		want error
		msg  string
		bit  int
	}{
		{"empty packet", nil, func(r *bitio.Reader) any { return r.ReadBool() }, bitio.ErrOverflow, "needs 1 bits, 0 remain", 0},
		{"past end", []byte{0xff}, func(r *bitio.Reader) any { r.ReadBits(5); return r.ReadBits(4) }, bitio.ErrOverflow, "needs 4 bits, 3 remain", 5},
		{"64 bits from 7 bytes", make([]byte, 7), func(r *bitio.Reader) any { return r.ReadBits(64) }, bitio.ErrOverflow, "needs 64 bits, 56 remain", 0},
		{"bad bit count", []byte{0}, func(r *bitio.Reader) any { return r.ReadBits(65) }, bitio.ErrRange, "bit count 65", 0},
		{"int above max", pack(f{1, 1}, f{1013, 10}), func(r *bitio.Reader) any { r.ReadBool(); return r.ReadInt(0, 1000) }, bitio.ErrRange, "value 1013 out of range [0, 1000]", 1},
		{"int truncated returns 0, not min", []byte{0xff}, func(r *bitio.Reader) any { return r.ReadInt(-100, 10000) }, bitio.ErrOverflow, "needs 14 bits, 8 remain", 0},
		{"uint truncated returns 0, not min", nil, func(r *bitio.Reader) any { return r.ReadUint(10, 90) }, bitio.ErrOverflow, "needs 7 bits, 0 remain", 0},
		{"int min>max", []byte{0}, func(r *bitio.Reader) any { return r.ReadInt(1, 0) }, bitio.ErrRange, "invalid range", 0},
		{"uint above max", pack(f{7, 3}), func(r *bitio.Reader) any { return r.ReadUint(0, 5) }, bitio.ErrRange, "value 7 out of range [0, 5]", 0},
		{"cfloat code above M", pack(f{1023, 10}), func(r *bitio.Reader) any { return r.ReadCompressedFloat(0, 10, 0.01) }, bitio.ErrRange, "code 1023 out of range [0, 1000]", 0},
		{"cfloat bad params", []byte{0}, func(r *bitio.Reader) any { return r.ReadCompressedFloat(0, 0, 1) }, bitio.ErrRange, "min must be < max", 0},
		{"align pad", pack(f{1, 1}, f{1, 1}), func(r *bitio.Reader) any { r.ReadBool(); r.Align(); return nil }, bitio.ErrPadding, "padding bits 0b1 are not zero", 1},
		{"string length", pack(f{3, 2}), func(r *bitio.Reader) any { return r.ReadString(2) }, bitio.ErrRange, "length 3 exceeds maxlen 2", 0},
		{"string truncated", append(pack(f{5, 8}), 'a', 'b'), func(r *bitio.Reader) any { return r.ReadString(255) }, bitio.ErrOverflow, "needs 5 bytes, 2 remain", 8},
		{"string NUL", append(pack(f{2, 8}), 'a', 0), func(r *bitio.Reader) any { return r.ReadString(255) }, bitio.ErrInvalidString, "NUL byte at offset 1", 0},
		{"string overlong", append(pack(f{2, 8}), 0xc0, 0xaf), func(r *bitio.Reader) any { return r.ReadString(255) }, bitio.ErrInvalidString, "invalid UTF-8 at offset 0", 0},
		{"string pad", append(pack(f{1, 2}, f{1, 6}), 'a'), func(r *bitio.Reader) any { return r.ReadString(2) }, bitio.ErrPadding, "not zero", 2},
		{"bytes truncated", []byte{1, 2}, func(r *bitio.Reader) any { p := []byte{9, 9, 9}; r.ReadBytes(p); return p }, bitio.ErrOverflow, "needs 24 bits, 16 remain", 0},
		{"skip past end", []byte{1}, func(r *bitio.Reader) any { r.Skip(9); return nil }, bitio.ErrOverflow, "needs 9 bits", 0},
		{"rewind forward", []byte{1}, func(r *bitio.Reader) any { r.Rewind(3); return nil }, bitio.ErrRange, "cannot rewind", 0},
		{"nil quat parameters", []byte{1, 2, 3, 4}, func(r *bitio.Reader) any { return r.ReadQuat(nil) }, bitio.ErrRange, "not built with quant.NewQuat", 0},
		{"zero quat parameters", []byte{1, 2, 3, 4}, func(r *bitio.Reader) any { return r.ReadQuat(&quant.Quat{}) }, bitio.ErrRange, "not built with quant.NewQuat", 0},
		// At 10 bits M = 1022: code 1023 is never written.
		{"quat code above M", pack(f{1, 1}, f{3, 2}, f{511, 10}, f{1023, 10}, f{511, 10}), func(r *bitio.Reader) any { r.ReadBool(); return r.ReadQuat(&q10) }, bitio.ErrRange,
			"bitio: read quat at bit 1: quaternion component code 1023 out of range [0, 1022]", 1},
		// Three components at m: their squares pass 1, the rebuilt one is 0.
		{"quat not canonical", pack(f{1, 1}, f{0, 2}, f{1022, 10}, f{1022, 10}, f{1022, 10}), func(r *bitio.Reader) any { r.ReadBool(); return r.ReadQuat(&q10) }, bitio.ErrRange,
			"bitio: read quat at bit 1: quaternion code (index 0, codes 1022 1022 1022) is not canonical: it decodes to [0 0.70710677 0.70710677 0.70710677], which encodes with index 3", 1},
		{"quat truncated", pack(f{3, 2}, f{511, 10}, f{511, 10}), func(r *bitio.Reader) any { return r.ReadQuat(&q10) }, bitio.ErrOverflow, "needs 10 bits, 2 remain", 22},
		{"nil float parameters", []byte{1, 2, 3, 4}, func(r *bitio.Reader) any { return r.ReadQuantized(nil) }, bitio.ErrRange, "not built with quant.NewFloat", 0},
		{"zero float parameters", []byte{1, 2, 3, 4}, func(r *bitio.Reader) any { return r.ReadQuantized(&quant.Float{}) }, bitio.ErrRange, "not built with quant.NewFloat", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bitio.NewReader(tt.data)
			got := tt.read(r)
			err := r.Err()
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %q, want it to contain %q", err, tt.msg)
			}
			var be *bitio.Error
			if !errors.As(err, &be) || be.Bit != tt.bit {
				t.Errorf("error at bit %+v, want bit %d", be, tt.bit)
			}
			if !isZero(got) {
				t.Errorf("returned %v on error; want the zero value", got)
			}
			// Sticky: every later read is a zero-value no-op.
			before := r.BitsRead()
			if v := r.ReadBits(1); v != 0 || r.Err() != err || r.BitsRead() != before {
				t.Errorf("read after error: %d, %v, pos %d->%d", v, r.Err(), before, r.BitsRead())
			}
		})
	}
}

func isZero(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case uint64:
		return v == 0
	case int64:
		return v == 0
	case float32:
		return math.Float32bits(v) == 0
	case [4]float32:
		for _, c := range v {
			if math.Float32bits(c) != 0 {
				return false
			}
		}
		return true
	case string:
		return v == ""
	case []byte:
		for _, b := range v {
			if b != 0 {
				return false
			}
		}
		return true
	}
	return false
}

func TestReaderTailAndWidths(t *testing.T) {
	// Every width at every offset, across the 8-byte fast-path boundary and
	// the slow tail: write with the oracle, read with the Reader.
	for n := 1; n <= 64; n++ {
		for off := 0; off < 70; off++ {
			v := uint64(0xa5c3_f00f_1234_5678) >> (64 - n)
			data := pack(f{0, off}, f{v, n})
			r := bitio.NewReader(data)
			r.Skip(off)
			if got := r.ReadBits(n); got != v || r.Err() != nil {
				t.Fatalf("n=%d off=%d: got %#x (%v), want %#x", n, off, got, r.Err(), v)
			}
			if r.BitsRemaining() != 8*len(data)-off-n {
				t.Fatalf("n=%d off=%d: %d bits remaining", n, off, r.BitsRemaining())
			}
		}
	}
}

// TestReaderTailWindow reads every width from every bit of packets of 0
// to 17 random bytes (the last 7 bytes and short packets take readBitsSlow's
// shifted window, with bytes on both sides of the read), against the bits
// taken one at a time here.
func TestReaderTailWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 7))
	for size := 0; size <= 17; size++ {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		bit := func(p int) uint64 { return uint64(data[p>>3]>>(p&7)) & 1 }
		for pos := 0; pos <= 8*size; pos++ {
			for n := 0; n <= min(64, 8*size-pos); n++ {
				var want uint64
				for k := 0; k < n; k++ {
					want |= bit(pos+k) << k
				}
				r := bitio.NewReader(data)
				r.Skip(pos)
				if got := r.ReadBits(n); got != want || r.Err() != nil {
					t.Fatalf("size=%d pos=%d n=%d: got %#x (%v), want %#x", size, pos, n, got, r.Err(), want)
				}
				if r.BitsRemaining() != 8*size-pos-n {
					t.Fatalf("size=%d pos=%d n=%d: %d bits remaining", size, pos, n, r.BitsRemaining())
				}
			}
		}
	}
}

func TestWriterRewind(t *testing.T) {
	for cut := 0; cut <= 150; cut++ {
		w := bitio.NewWriter([]byte{0x7e})
		for i := 0; i < 150; i++ {
			w.WriteBits(uint64(i&1), 1)
		}
		w.Rewind(cut)
		if w.BitsWritten() != cut {
			t.Fatalf("cut %d: BitsWritten %d", cut, w.BitsWritten())
		}
		w.WriteBits(0x3, 2)
		fields := []f{{0x7e, 8}}
		for i := 0; i < cut; i++ {
			fields = append(fields, f{uint64(i & 1), 1})
		}
		fields = append(fields, f{3, 2})
		if want := pack(fields...); !bytes.Equal(w.Bytes(), want) {
			t.Fatalf("cut %d: %x, want %x", cut, w.Bytes(), want)
		}
	}
	w := bitio.NewWriter(nil)
	w.WriteBits(1, 4)
	w.Rewind(5)
	if !errors.Is(w.Err(), bitio.ErrRange) {
		t.Fatalf("rewind forward: %v", w.Err())
	}
}

func TestWriterBytesDoesNotDisturb(t *testing.T) {
	w := bitio.NewWriter(make([]byte, 0, 64))
	w.WriteBits(0x5, 3)
	if got := w.Bytes(); !bytes.Equal(got, []byte{0x05}) {
		t.Fatalf("%x", got)
	}
	w.WriteBits(0x1f, 5)
	w.WriteBits(0x1, 1)
	if got := w.Bytes(); !bytes.Equal(got, []byte{0xfd, 0x01}) {
		t.Fatalf("%x", got)
	}
}

func TestReadBytesZeroesOnError(t *testing.T) {
	r := bitio.NewReader([]byte{0x01, 0xaa})
	p := []byte{1, 2}
	r.ReadBool() // the pad bits that follow are zero, but only one byte remains
	r.ReadBytes(p)
	if !errors.Is(r.Err(), bitio.ErrOverflow) || !bytes.Equal(p, []byte{0, 0}) {
		t.Fatalf("got %x, %v", p, r.Err())
	}
}

func TestStringRoundTrip(t *testing.T) {
	for _, s := range []string{"", "a", "hello world!", "žluťoučký kůň", "日本語", "🎮"} {
		w := bitio.NewWriter(nil)
		w.WriteBits(1, 1)
		w.WriteString(s, 40)
		r := bitio.NewReader(w.Bytes())
		r.ReadBits(1)
		if got := r.ReadString(40); got != s || r.Err() != nil {
			t.Errorf("%q: got %q, %v", s, got, r.Err())
		}
	}
}

func TestFloatTransparency(t *testing.T) {
	pats32 := []uint32{0, 0x80000000, 1, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffffffff}
	pats64 := []uint64{0, 1 << 63, 1, 0x7ff0000000000001, 0xfff8000000000000, math.MaxUint64}
	w := bitio.NewWriter(nil)
	w.WriteBits(1, 3) // unaligned on purpose
	for _, p := range pats32 {
		w.WriteFloat32(math.Float32frombits(p))
	}
	for _, p := range pats64 {
		w.WriteFloat64(math.Float64frombits(p))
	}
	r := bitio.NewReader(w.Bytes())
	r.ReadBits(3)
	for _, p := range pats32 {
		if got := math.Float32bits(r.ReadFloat32()); got != p {
			t.Errorf("float32 %#x came back %#x", p, got)
		}
	}
	for _, p := range pats64 {
		if got := math.Float64bits(r.ReadFloat64()); got != p {
			t.Errorf("float64 %#x came back %#x", p, got)
		}
	}
}

func TestFailKeepsFirstError(t *testing.T) {
	mine := errors.New("mine")
	w := bitio.NewWriter(nil)
	w.Fail(mine)
	w.WriteBits(1, 70)
	if w.Err() != mine {
		t.Fatalf("writer err = %v", w.Err())
	}
	r := bitio.NewReader(nil)
	r.Fail(mine)
	r.Fail(errors.New("later"))
	if r.Err() != mine {
		t.Fatalf("reader err = %v", r.Err())
	}
}

// TestQuatRoundTrip: golden bits and decoded values, computed by hand from
// quant's documented algorithm (float32 at every step; M = 1022 at 10
// bits, code 511 is 0).
func TestQuatRoundTrip(t *testing.T) {
	q, _ := quant.NewQuat(10)
	tests := []struct {
		name  string
		in    [4]float32
		codes []f // index, then three codes
		back  [4]float32
	}{
		// The four tie; the highest index wins and is negative, so all
		// flip: (-0.5, 0.5, -0.5) are sent. (0.5 + m)/2m = 0.8535534,
		// ×1022 = 872.33, +0.5: 872; -0.5: 0.14644662×1022 + 0.5 = 150.17:
		// 150. They decode to -0.49954116 (0xbeffc3dc) and 0.49954122
		// (0x3effc3de), rebuilding 0.50137395 (0x3f005a0b): larger, so the
		// natural code stands.
		{"tie", [4]float32{0.5, -0.5, 0.5, -0.5}, []f{{3, 2}, {150, 10}, {872, 10}, {150, 10}},
			[4]float32{math.Float32frombits(0xbeffc3dc), math.Float32frombits(0x3effc3de), math.Float32frombits(0xbeffc3dc), math.Float32frombits(0x3f005a0b)}},
		{"identity", [4]float32{0, 0, 0, 1}, []f{{3, 2}, {511, 10}, {511, 10}, {511, 10}}, [4]float32{0, 0, 0, 1}},
		// Go's zero value: all four tie at 0, index 3 wins: the identity.
		{"zero", [4]float32{}, []f{{3, 2}, {511, 10}, {511, 10}, {511, 10}}, [4]float32{0, 0, 0, 1}},
	}
	for _, tt := range tests {
		w := bitio.NewWriter(nil)
		w.WriteBits(1, 1)
		w.WriteQuat(&q, tt.in)
		want := pack(append([]f{{1, 1}}, tt.codes...)...)
		if w.Err() != nil || w.BitsWritten() != 1+32 || !bytes.Equal(w.Bytes(), want) {
			t.Fatalf("%s: wrote %x (%d bits, %v), want %x", tt.name, w.Bytes(), w.BitsWritten(), w.Err(), want)
		}
		r := bitio.NewReader(w.Bytes())
		r.ReadBits(1)
		if out := r.ReadQuat(&q); r.Err() != nil || out != tt.back {
			t.Fatalf("%s: read %v (%v), want %v", tt.name, out, r.Err(), tt.back)
		}
	}
}

func TestUints(t *testing.T) {
	// Full-width 32-bit elements, as bitpack's []uint32 fields use them.
	checkUints(t, []uint32{0, 1, 0xdeadbeef, 0xffffffff, 7, 0x80000000, 12345, 0xfffffffe, 3}, 32)
	// Narrow elements at every width and start offset, against the
	// field-by-field oracle.
	for n := 1; n <= 8; n++ {
		checkUints(t, []uint8{0, 1, uint8(1<<n - 1), uint8((1<<n - 1) / 2), uint8(0x5a & (1<<n - 1))}, n)
	}
	// Wide elements, up to 64 bits (one value per word at 33 and more).
	for _, n := range []int{13, 32, 33, 63, 64} {
		mask := uint64(math.MaxUint64) >> (64 - n)
		checkUints(t, []uint64{mask, 1, 0, 0xdeadbeefcafef00d & mask, mask >> 1, 0x8badf00d & mask, 5}, n)
	}
	w64 := bitio.NewWriter(nil)
	bitio.WriteUints(w64, []uint64{math.MaxUint64, 1}, 64)
	got64 := make([]uint64, 2)
	r64 := bitio.NewReader(w64.Bytes())
	bitio.ReadUints(r64, got64, 64)
	if got64[0] != math.MaxUint64 || got64[1] != 1 || r64.Err() != nil {
		t.Fatalf("64-bit: %v %v", got64, r64.Err())
	}
	// Zero-width values: nothing on the wire, and only zeros fit.
	w0 := bitio.NewWriter(nil)
	bitio.WriteUints(w0, []uint8{0, 0, 0}, 0)
	r0 := bitio.NewReader(nil)
	got0 := []uint8{5, 5}
	bitio.ReadUints(r0, got0, 0)
	if w0.Err() != nil || w0.BitsWritten() != 0 || r0.Err() != nil || got0[0] != 0 || got0[1] != 0 {
		t.Fatalf("zero width: %v %d, %v %v", w0.Err(), w0.BitsWritten(), r0.Err(), got0)
	}
	bitio.WriteUints(w0, []uint8{1}, 0)
	if !errors.Is(w0.Err(), bitio.ErrRange) {
		t.Fatalf("zero width, value 1: %v", w0.Err())
	}
	// Refusals: nothing written, nothing read.
	w := bitio.NewWriter(nil)
	bitio.WriteUints(w, []uint16{1, 1024}, 10)
	if !errors.Is(w.Err(), bitio.ErrRange) || w.BitsWritten() != 0 || !strings.Contains(w.Err().Error(), "element 1: value 0x400 does not fit in 10 bits") {
		t.Fatalf("WriteUints refusal: %v, %d bits", w.Err(), w.BitsWritten())
	}
	r := bitio.NewReader([]byte{1, 2, 3})
	dst := []uint16{9, 9}
	bitio.ReadUints(r, dst, 16)
	if !errors.Is(r.Err(), bitio.ErrOverflow) || dst[0] != 0 || dst[1] != 0 || r.BitsRead() != 0 {
		t.Fatalf("ReadUints overflow: %v %v", dst, r.Err())
	}
	r = bitio.NewReader([]byte{1, 2, 3})
	bitio.ReadUints(r, []uint8{1}, 9)
	if !errors.Is(r.Err(), bitio.ErrRange) {
		t.Fatalf("ReadUints wider than the element: %v", r.Err())
	}
}

// checkUints writes src with WriteUints at n bits after every start offset
// 0..8, compares the bytes with the field-by-field oracle, and reads them
// back with ReadUints.
func checkUints[T uint8 | uint32 | uint64](t *testing.T, src []T, n int) {
	t.Helper()
	for _, off := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 17, 31, 32, 33, 55, 62, 63} {
		w := bitio.NewWriter(nil)
		w.WriteBits(1&(1<<off-1), off)
		bitio.WriteUints(w, src, n)
		fields := []f{{1 & (1<<off - 1), off}}
		for _, v := range src {
			fields = append(fields, f{uint64(v), n})
		}
		if want := pack(fields...); !bytes.Equal(w.Bytes(), want) || w.Err() != nil {
			t.Fatalf("n=%d off %d: WriteUints = %x (%v), want %x", n, off, w.Bytes(), w.Err(), want)
		}
		r := bitio.NewReader(w.Bytes())
		r.Skip(off)
		got := make([]T, len(src))
		bitio.ReadUints(r, got, n)
		if r.Err() != nil || fmt.Sprint(got) != fmt.Sprint(src) || r.BitsRead() != off+len(src)*n {
			t.Fatalf("n=%d off %d: ReadUints = %v, %v", n, off, got, r.Err())
		}
	}
}

// TestBytesExactCapacity: when dst has room for exactly the packet, Bytes
// (which stores the whole scratch word when 8 bytes are free) still
// returns the packet in dst's own array, with the right bytes.
func TestBytesExactCapacity(t *testing.T) {
	for n := 1; n <= 80; n++ {
		buf := make([]byte, 0, (n+7)/8)
		var w, ref bitio.Writer
		w.Reset(buf)
		ref.Reset(nil)
		for i := 0; i < n; i++ {
			w.WriteBool(i%3 != 1)
			ref.WriteBool(i%3 != 1)
		}
		out := w.Bytes()
		if len(out) != (n+7)/8 || cap(out) != cap(buf) || &out[0] != &buf[:1][0] {
			t.Fatalf("%d bits: Bytes returned %d bytes (cap %d), not in dst's array of %d", n, len(out), cap(out), cap(buf))
		}
		if want := ref.Bytes(); !bytes.Equal(out, want) {
			t.Fatalf("%d bits: Bytes = %x, want %x", n, out, want)
		}
	}
}

// TestWriterStaysInBounds: whatever is written, the bytes of dst's spare
// capacity past what Bytes returns are never touched (a caller may pack
// several packets into one buffer, or write into part of a larger one).
func TestWriterStaysInBounds(t *testing.T) {
	const sentinel = 0xe5
	for seed := uint64(0); seed < 2000; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		backing := make([]byte, 256)
		for i := range backing {
			backing[i] = sentinel
		}
		prefix := r.IntN(4)
		w := bitio.NewWriter(backing[:prefix])
		for ops := r.IntN(8); ops >= 0; ops-- {
			switch r.IntN(5) {
			case 0:
				n := r.IntN(65)
				w.WriteBits(r.Uint64()>>(64-n)&(1<<n-1), n)
			case 1:
				w.WriteBytes(make([]byte, r.IntN(12)))
			case 2:
				w.WriteString(strings.Repeat("x", r.IntN(10)), 16)
			case 3:
				w.Align()
			default:
				bitio.WriteUints(w, []uint32{r.Uint32(), r.Uint32(), r.Uint32()}[:r.IntN(4)], 32)
			}
		}
		out := w.Bytes()
		if w.Err() != nil || &out[:1][0] != &backing[0] {
			t.Fatalf("seed %d: %v, or the writer left dst's array", seed, w.Err())
		}
		for i := len(out); i < len(backing); i++ {
			if backing[i] != sentinel {
				t.Fatalf("seed %d: byte %d past the %d returned was overwritten (%#x)", seed, i, len(out), backing[i])
			}
		}
	}
}

// TestWriteBitsUnchecked: for values that fit, the unchecked writer lays
// out exactly the oracle's bits, like WriteBits, from every start offset
// and at every width; after an error it writes nothing; and values that
// break its contract (too wide, a bad count) give garbage bits but never
// a panic, and leave a Writer every other method still works on.
func TestWriteBitsUnchecked(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for off := 0; off < 64; off++ {
		for n := 0; n <= 64; n++ {
			fields := []f{{1 & (1<<off - 1), off}}
			w := bitio.NewWriter([]byte{0xee})
			w.WriteBits(fields[0].v, off)
			for range 3 {
				v := r.Uint64() & (1<<n - 1) // 1<<64 - 1 is all ones
				w.WriteBitsUnchecked(v, n)
				fields = append(fields, f{v, n})
			}
			want := append([]byte{0xee}, pack(fields...)...)
			if got := w.Bytes(); !bytes.Equal(got, want) || w.Err() != nil || w.BitsWritten() != off+3*n {
				t.Fatalf("off %d n %d: % x (%v, %d bits), want % x", off, n, got, w.Err(), w.BitsWritten(), want)
			}
		}
	}

	w := bitio.NewWriter(nil)
	w.WriteBits(1, 1)
	w.WriteBits(4, 2) // refused: 4 does not fit in 2 bits
	w.WriteBitsUnchecked(3, 2)
	if w.BitsWritten() != 1 || !errors.Is(w.Err(), bitio.ErrRange) {
		t.Fatalf("after an error: %d bits, %v", w.BitsWritten(), w.Err())
	}

	for _, n := range []int{-1, -64, 65, 100, 1 << 20} {
		for _, v := range []uint64{0, 1, math.MaxUint64} {
			w := bitio.NewWriter(nil)
			w.WriteBits(5, 3)
			w.WriteBitsUnchecked(v, n)
			w.WriteBitsUnchecked(math.MaxUint64, 7) // too wide for 7 bits
			w.WriteBits(1, 1)
			w.WriteBytes([]byte{1, 2, 3})
			w.WriteString("ok", 4)
			w.Align()
			if bits := w.BitsWritten(); bits < 0 || bits%8 != 0 {
				t.Fatalf("n %d v %#x: %d bits after Align", n, v, bits)
			}
			w.Rewind(3)
			if b := w.Bytes(); len(b) != 1 || b[0] != 5 || w.Err() != nil {
				t.Fatalf("n %d v %#x: rewound to % x, %v", n, v, b, w.Err())
			}
		}
	}
}

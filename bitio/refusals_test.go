package bitio_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

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

func TestReadBytesZeroesOnError(t *testing.T) {
	r := bitio.NewReader([]byte{0x01, 0xaa})
	p := []byte{1, 2}
	r.ReadBool() // the pad bits that follow are zero, but only one byte remains
	r.ReadBytes(p)
	if !errors.Is(r.Err(), bitio.ErrOverflow) || !bytes.Equal(p, []byte{0, 0}) {
		t.Fatalf("got %x, %v", p, r.Err())
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

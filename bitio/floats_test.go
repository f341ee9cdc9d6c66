package bitio_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

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

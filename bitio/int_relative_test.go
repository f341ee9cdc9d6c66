package bitio_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
)

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

package bitio_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
)

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

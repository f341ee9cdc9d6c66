package bitpack_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// TestDeltaUnitCode pins the code a unit= field changes by in a delta: its
// units, as its full encoding carries them (docs/wire.md, Delta encoding),
// not its Go value. UBits 508 -> 54 is code 254 -> 27 in 8 bits (d = -227:
// the long form): changed 1; UBits changed 1, long 1, 27 = 11011000 (wire
// order); Other changed 0: bits 11111011 0000 = df 00. A value that fits the
// field's bits unscaled (54 < 256) once took that value as its code.
func TestDeltaUnitCode(t *testing.T) {
	type U struct {
		UBits uint16 `bits:"unit=2,bits=8"`
		Other uint8
	}
	base, v := U{UBits: 508}, U{UBits: 54}
	d, err := bitpack.AppendDelta(nil, &base, &v)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{0xdf, 0x00}; !bytes.Equal(d, want) {
		t.Errorf("delta %x, want %x", d, want)
	}
	var got U
	if err := bitpack.UnmarshalDelta([]byte{0xdf, 0x00}, &base, &got); err != nil || got != v {
		t.Errorf("UnmarshalDelta gives %+v, %v; want %+v", got, err, v)
	}
}

// TestDeltaShortFormPast64Bits: a short form that takes a 64-bit field's
// code below 0 is refused like any other change that leaves its codes
// (the out-of-range code was once limit + 1, which wraps to 0 at 64 bits
// and was accepted). A = 1 → short form 0 00000000 (d = -128): changed 1,
// A changed 1, short 0, e = 0, B changed 0: bits 1100 0000 0000 = 03 00.
func TestDeltaShortFormPast64Bits(t *testing.T) {
	type U struct {
		A uint64
		B bool
	}
	base := U{A: 1}
	var got U
	err := bitpack.UnmarshalDelta([]byte{0x03, 0x00}, &base, &got)
	want := "bitpack: decode bitpack_test.U: field A at bit 1: change -128 from code 1 leaves the range [0, 18446744073709551615]"
	if err == nil || err.Error() != want || !errors.Is(err, bitpack.ErrRange) {
		t.Errorf("UnmarshalDelta gives %+v, %v; want the error %q", got, err, want)
	}
}

package bitpack_test

import (
	"bytes"
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

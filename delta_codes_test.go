package bitpack_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// Deltas of fields whose codes are not their values' bits, written down
// by hand: unit= fields change by units, and a 64-bit field's short form
// cannot leave its codes' range by wrapping around.

type unitDelta struct {
	Big uint64 `bits:"unit=3,range=0..1000000"`
}

type fullDelta struct {
	U uint64
}

func TestDeltaUnitCodes(t *testing.T) {
	// 920604 and 920607 are 306868 and 306869 units: d = +1, the short
	// form (b = 20, s = 8, h = 128) e = 1 + 128 - 1 = 128. Bits: changed
	// 1, short 0, e LSB first 0000000 1: bytes 0b00000001, 0b00000010.
	base, v := unitDelta{Big: 920604}, unitDelta{Big: 920607}
	d, err := bitpack.AppendDelta(nil, &base, &v)
	if err != nil || !bytes.Equal(d, []byte{0x01, 0x02}) {
		t.Fatalf("AppendDelta = %x, %v; want 01 02", d, err)
	}
	var got unitDelta
	if err := bitpack.UnmarshalDelta(d, &base, &got); err != nil || got != v {
		t.Fatalf("UnmarshalDelta = %+v, %v; want %+v", got, err, v)
	}
}

func TestDeltaShortFormOf64BitField(t *testing.T) {
	// U = 3, short form d = -5: e = -5 + 128 = 123. Bits: changed 1,
	// short 0, 123 LSB first: byte 0 = 1 | (123&63)<<2 = 0xed, byte 1 =
	// 123>>6 = 0x01. Code 3 - 5 leaves [0, 2^64-1].
	base := fullDelta{U: 3}
	var got fullDelta
	err := bitpack.UnmarshalDelta([]byte{0xed, 0x01}, &base, &got)
	var e *bitpack.Error
	if !errors.As(err, &e) || !errors.Is(err, bitpack.ErrRange) || e.Path != "U" || e.Bit != 1 ||
		e.Detail != "change -5 from code 3 leaves the range [0, 18446744073709551615]" {
		t.Fatalf("UnmarshalDelta = %+v, %v; want the range refusal of U at bit 1", got, err)
	}
}

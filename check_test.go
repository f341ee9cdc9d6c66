package bitpack_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// ---------------------------------------------------------------------------
// Serialize checks.

type tChecked struct {
	A   bool
	Mid bitpack.Check `bits:"check=middle"`
	B   uint8
	End bitpack.Check `bits:"check=end of packet"`
}

func TestCheckHash(t *testing.T) {
	type one struct {
		C bitpack.Check `bits:"check=end of packet"`
	}
	got, err := bitpack.Marshal(&one{})
	if err != nil {
		t.Fatal(err)
	}
	// hash("end of packet") = 0x9908ace2 (the articles' serialize_check
	// hash, with a-z folded to A-Z), little-endian.
	if want := []byte{0xe2, 0xac, 0x08, 0x99}; !bytes.Equal(got, want) {
		t.Fatalf("Marshal = %x, want %x", got, want)
	}
	type folded struct {
		C bitpack.Check `bits:"check=END OF PACKET"`
	}
	if up, _ := bitpack.Marshal(&folded{}); !bytes.Equal(up, got) {
		t.Fatalf("case folding: %x vs %x", up, got)
	}
}

func TestCheckFields(t *testing.T) {
	in := tChecked{A: true, B: 0x5a}
	got, err := bitpack.Marshal(&in)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := bitpack.Describe(&tChecked{})
	var mid uint32
	for _, fl := range l.Root.Fields {
		if fl.Name == "Mid" {
			mid = fl.CheckHash
		}
	}
	want := bitsOf(f{1, 1}, align, f{uint64(mid), 32}, f{0x5a, 8}, align, f{0x9908ace2, 32})
	if !bytes.Equal(got, want) {
		t.Fatalf("Marshal = %x, want %x", got, want)
	}
	var back tChecked
	if err := bitpack.Unmarshal(got, &back); err != nil || back != in {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	// A reader that disagrees (one field fewer) fails at the check.
	type short struct {
		A   bool
		Mid bitpack.Check `bits:"check=middle"`
		End bitpack.Check `bits:"check=end of packet"`
	}
	err = bitpack.Unmarshal(got, new(short))
	if !errors.Is(err, bitpack.ErrCheck) || !strings.Contains(err.Error(), `field End at bit 40: check "end of packet" read 0x`) {
		t.Fatalf("disagreeing reader: %v", err)
	}
	// Truncation is caught by the end-of-packet check.
	if err := bitpack.Unmarshal(got[:len(got)-1], new(tChecked)); !errors.Is(err, bitpack.ErrOverflow) {
		t.Fatalf("truncated: %v", err)
	}
	// Non-zero padding before a check is refused like every align.
	bad := bytes.Clone(got)
	bad[0] |= 0x80
	if err := bitpack.Unmarshal(bad, new(tChecked)); !errors.Is(err, bitpack.ErrPadding) {
		t.Fatalf("padding: %v", err)
	}
}

type (
	bCheckNoTag struct{ C bitpack.Check }
	bCheckWrong struct {
		C int32 `bits:"check=x"`
	}
	bCheckControl struct {
		C bitpack.Check `bits:"check=a\tb"`
	}
	bCheckExtra struct {
		C bitpack.Check `bits:"check=x,range=0..1"`
	}
)

func TestCheckTagErrors(t *testing.T) {
	for _, tt := range []struct {
		in  any
		msg string
	}{
		{bCheckNoTag{}, "needs a tag naming the check"},
		{bCheckWrong{}, "check applies to fields of type bitpack.Check, not int32"},
		{bCheckControl{}, "must be printable ASCII"},
		{bCheckExtra{}, "check does not combine with other options"},
	} {
		var te *bitpack.TagError
		if _, err := bitpack.Describe(tt.in); !errors.As(err, &te) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%T: %v, want a TagError containing %q", tt.in, err, tt.msg)
		}
	}
}

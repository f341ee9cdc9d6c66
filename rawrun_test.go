package bitpack_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/bitpack-go/bitpack"
)

type rawRunMsg struct {
	A    uint8
	S    [4]uint32
	B    [5]uint16
	Tail uint8 `bits:"bits=3"`
}

// TestRawRuns: an unrolled [N]uint32 (and [N]uint16) is decoded as one raw
// run (program.go), with the bytes and values of fields decoded one by one,
// and a packet that ends inside it is refused naming the element that runs
// out, at the bit where it starts, as before.
func TestRawRuns(t *testing.T) {
	v := rawRunMsg{A: 0xa5, S: [4]uint32{0x01020304, 0xfffffffe, 0, 0x80000001}, B: [5]uint16{1, 0xffff, 3, 0x8000, 5}, Tail: 6}
	want := bitsOf(f{0xa5, 8}, f{0x01020304, 32}, f{0xfffffffe, 32}, f{0, 32}, f{0x80000001, 32},
		f{1, 16}, f{0xffff, 16}, f{3, 16}, f{0x8000, 16}, f{5, 16}, f{6, 3})
	got, err := bitpack.Marshal(&v)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Marshal = %x, %v; want %x", got, err, want)
	}
	var back rawRunMsg
	if err := bitpack.Unmarshal(want, &back); err != nil || back != v {
		t.Fatalf("Unmarshal = %+v, %v; want %+v", back, err, v)
	}
	// 12 bytes: A, S[0], S[1] and 24 bits of S[2].
	var e *bitpack.Error
	if err := bitpack.Unmarshal(want[:12], &back); !errors.As(err, &e) || e.Path != "S[2]" || e.Bit != 72 || !errors.Is(err, bitpack.ErrOverflow) || e.Detail != "needs 32 bits, 24 remain" {
		t.Fatalf("short in S: %v (%+v)", err, e)
	}
	if back != v {
		t.Fatalf("a failed decode changed the value: %+v", back)
	}
	// 24 bytes: up to B[2] and 8 bits of B[3].
	if err := bitpack.Unmarshal(want[:24], &back); !errors.As(err, &e) || e.Path != "B[3]" || e.Bit != 184 || e.Detail != "needs 16 bits, 8 remain" {
		t.Fatalf("short in B: %v (%+v)", err, e)
	}
}

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

type rawAlignedMsg struct {
	A uint8
	S []uint32 `bits:"maxlen=255"`
	B []uint16 `bits:"maxlen=255"`
}

// TestRawAligned: raw elements that start at a byte boundary are read with
// one copy of their bytes (readRaw): the same values as read one by one,
// and a packet that cannot hold them refused as before.
func TestRawAligned(t *testing.T) {
	v := rawAlignedMsg{A: 7, S: []uint32{0x01020304, 0xfffffffe, 0x80000001}, B: []uint16{0xbeef, 1}}
	want := bitsOf(f{7, 8}, f{3, 8}, f{0x01020304, 32}, f{0xfffffffe, 32}, f{0x80000001, 32}, f{2, 8}, f{0xbeef, 16}, f{1, 16})
	got, err := bitpack.Marshal(&v)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Marshal = %x, %v; want %x", got, err, want)
	}
	back := rawAlignedMsg{S: make([]uint32, 1, 8)}
	if err := bitpack.Unmarshal(want, &back); err != nil || back.A != 7 || len(back.S) != 3 || back.S[0] != 0x01020304 || back.S[1] != 0xfffffffe || back.S[2] != 0x80000001 ||
		len(back.B) != 2 || back.B[0] != 0xbeef || back.B[1] != 1 {
		t.Fatalf("Unmarshal = %+v, %v; want %+v", back, err, v)
	}
	// 10 bytes: A, the length 3, and 64 of the 96 bits S needs.
	var e *bitpack.Error
	if err := bitpack.Unmarshal(want[:10], &back); !errors.As(err, &e) || e.Path != "S" || e.Bit != 16 || !errors.Is(err, bitpack.ErrOverflow) || e.Detail != "3 elements need at least 96 bits, 64 remain" {
		t.Fatalf("short in S: %v (%+v)", err, e)
	}
	if back.S[2] != 0x80000001 || len(back.B) != 2 {
		t.Fatalf("a failed decode changed the value: %+v", back)
	}
}

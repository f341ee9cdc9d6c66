package bitpack_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// ---------------------------------------------------------------------------
// Framing.

func TestSealOpen(t *testing.T) {
	const id = 0x12345678
	payload := []byte("hello, world")
	sealed := bitpack.Seal([]byte{0xee}, id, payload)
	// CRC32-IEEE of 78 56 34 12 | 00 00 00 00 | "hello, world" = 0xa10444f7
	// (computed independently with Python's zlib.crc32).
	want := append([]byte{0xee, 0xf7, 0x44, 0x04, 0xa1}, payload...)
	if !bytes.Equal(sealed, want) {
		t.Fatalf("Seal = %x, want %x", sealed, want)
	}
	got, err := bitpack.Open(id, sealed[1:])
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := bitpack.Open(id+1, sealed[1:]); !errors.Is(err, bitpack.ErrChecksum) {
		t.Errorf("wrong protocol id: %v", err)
	}
	for bit := 0; bit < 8*(len(sealed)-1); bit++ {
		bad := bytes.Clone(sealed[1:])
		bad[bit/8] ^= 1 << (bit % 8)
		if _, err := bitpack.Open(id, bad); !errors.Is(err, bitpack.ErrChecksum) {
			t.Fatalf("bit %d flipped: %v", bit, err)
		}
	}
	for n := 0; n < len(sealed)-1; n++ {
		if _, err := bitpack.Open(id, sealed[1:1+n]); !errors.Is(err, bitpack.ErrChecksum) {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	if empty := bitpack.Seal(nil, id, nil); len(empty) != 4 {
		t.Fatalf("sealed empty payload is %d bytes", len(empty))
	} else if p, err := bitpack.Open(id, empty); err != nil || len(p) != 0 {
		t.Fatalf("Open(empty) = %x, %v", p, err)
	}
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf = bitpack.Seal(buf[:0], id, payload); _, _ = bitpack.Open(id, buf) }); n != 0 {
		t.Errorf("Seal+Open: %v allocs", n)
	}
}

// TestSealAliased: Seal reads the whole payload before it writes, so dst
// and payload may overlap in any way (sealing a buffer in place, or a
// payload that sits where the CRC goes).
func TestSealAliased(t *testing.T) {
	const id = 0x12345678
	// CRC32-IEEE of 78 56 34 12 | 00 00 00 00 | "hello, world" = 0xa10444f7,
	// and of the same with "hello" = 0x771f2e57 (Python's zlib.crc32).
	want := append([]byte{0xf7, 0x44, 0x04, 0xa1}, "hello, world"...)
	for _, tc := range []struct {
		name   string
		seal   func(buf []byte) []byte
		wanted []byte
	}{
		{"payload is dst's spare capacity", func(buf []byte) []byte { return bitpack.Seal(buf[:0], id, buf[:12]) }, want},
		{"payload just after the CRC's place", func(buf []byte) []byte { return bitpack.Seal(buf[:0], id, buf[4:16]) }, want},
		{"payload overlapping the CRC's place", func(buf []byte) []byte { return bitpack.Seal(buf[:0], id, buf[2:14]) }, want},
		{"payload before dst's end", func(buf []byte) []byte { return bitpack.Seal(buf[:12], id, buf[:5])[12:] }, []byte{0x57, 0x2e, 0x1f, 0x77, 'h', 'e', 'l', 'l', 'o'}},
	} {
		buf := make([]byte, 64)
		switch tc.name {
		case "payload just after the CRC's place":
			copy(buf[4:], "hello, world")
		case "payload overlapping the CRC's place":
			copy(buf[2:], "hello, world")
		default:
			copy(buf, "hello, world")
		}
		if got := tc.seal(buf); !bytes.Equal(got, tc.wanted) {
			t.Errorf("%s: Seal = %x, want %x", tc.name, got, tc.wanted)
		}
	}
}

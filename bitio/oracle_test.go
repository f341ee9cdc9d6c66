package bitio_test

import (
	"bytes"
	"testing"
)

// f is one field of an expected bit string: the low n bits of v.
type f struct {
	v uint64
	n int
}

// pack is the test oracle: it lays fields out one bit at a time, least
// significant bit first, independently of the Writer's word logic.
func pack(fields ...f) []byte {
	var out []byte
	pos := 0
	for _, fl := range fields {
		for i := 0; i < fl.n; i++ {
			if pos%8 == 0 {
				out = append(out, 0)
			}
			if fl.v>>i&1 == 1 {
				out[pos/8] |= 1 << (pos % 8)
			}
			pos++
		}
	}
	return out
}

func TestPackOracle(t *testing.T) {
	// The oracle itself, against bytes written down by hand.
	if got, want := pack(f{1, 1}, f{0x5, 3}, f{0xff, 8}), []byte{0xfb, 0x0f}; !bytes.Equal(got, want) {
		t.Fatalf("pack = %x, want %x", got, want)
	}
}

package bitio_test

import (
	"math/rand/v2"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
)

func TestReaderTailAndWidths(t *testing.T) {
	// Every width at every offset, across the 8-byte fast-path boundary and
	// the slow tail: write with the oracle, read with the Reader.
	for n := 1; n <= 64; n++ {
		for off := 0; off < 70; off++ {
			v := uint64(0xa5c3_f00f_1234_5678) >> (64 - n)
			data := pack(f{0, off}, f{v, n})
			r := bitio.NewReader(data)
			r.Skip(off)
			if got := r.ReadBits(n); got != v || r.Err() != nil {
				t.Fatalf("n=%d off=%d: got %#x (%v), want %#x", n, off, got, r.Err(), v)
			}
			if r.BitsRemaining() != 8*len(data)-off-n {
				t.Fatalf("n=%d off=%d: %d bits remaining", n, off, r.BitsRemaining())
			}
		}
	}
}

// TestReaderTailWindow reads every width from every bit of packets of 0
// to 17 random bytes (the last 7 bytes and short packets take readBitsSlow's
// shifted window, with bytes on both sides of the read), against the bits
// taken one at a time here.
func TestReaderTailWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 7))
	for size := 0; size <= 17; size++ {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		bit := func(p int) uint64 { return uint64(data[p>>3]>>(p&7)) & 1 }
		for pos := 0; pos <= 8*size; pos++ {
			for n := 0; n <= min(64, 8*size-pos); n++ {
				var want uint64
				for k := 0; k < n; k++ {
					want |= bit(pos+k) << k
				}
				r := bitio.NewReader(data)
				r.Skip(pos)
				if got := r.ReadBits(n); got != want || r.Err() != nil {
					t.Fatalf("size=%d pos=%d n=%d: got %#x (%v), want %#x", size, pos, n, got, r.Err(), want)
				}
				if r.BitsRemaining() != 8*size-pos-n {
					t.Fatalf("size=%d pos=%d n=%d: %d bits remaining", size, pos, n, r.BitsRemaining())
				}
			}
		}
	}
}

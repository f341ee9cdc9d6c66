// Package fuzzfail is run by bitpacktest's TestFuzzFindsPanic in a scratch
// module: its fuzz target must fail, because touchy's UnmarshalBits panics
// on byte values that no seed contains.
package fuzzfail

import (
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/bitpacktest"
)

// touchy is a custom type with a deliberately broken decoder.
type touchy struct{ v uint8 }

func (t *touchy) MarshalBits(w *bitio.Writer) error {
	w.WriteBits(uint64(t.v), 8)
	return nil
}

func (t *touchy) UnmarshalBits(r *bitio.Reader) error {
	t.v = uint8(r.ReadBits(8))
	// A range rather than one value, so that a loaded CI machine finds it
	// in seconds: the test is about bitpacktest reporting the panic, not
	// about the fuzzer's luck.
	if t.v >= 0xa0 {
		panic("touchy: cannot handle 0xa0 or more")
	}
	return nil
}

type packet struct {
	Seq   uint8 `bits:"range=0..100"`
	T     touchy
	Label string `bits:"maxlen=4"`
}

func FuzzTouchy(f *testing.F) {
	bitpacktest.Fuzz(f, packet{Seq: 7, T: touchy{3}, Label: "ok"})
}

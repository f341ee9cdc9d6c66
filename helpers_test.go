package bitpack_test

import (
	"encoding/hex"
	"testing"

	"github.com/bitpack-go/bitpack/internal/sweeps"
)

// sweep is a sweep's count: full with BITPACK_FULL=1 (as .ci/run sets
// it), else quick, so that go test ./... stays quick; with -short (the
// race step's), at most short. internal/sweeps chooses.
func sweep(full, short, quick int) int { return sweeps.Count(full, short, quick) }

// f is one field of an expected bit string: the low n bits of v.
type f struct {
	v uint64
	n int
}

// align marks a byte alignment in an expected bit string.
var align = f{n: -1}

// raw appends whole bytes (after an implicit alignment).
func raw(bs ...byte) []f {
	out := []f{align}
	for _, b := range bs {
		out = append(out, f{uint64(b), 8})
	}
	return out
}

// bitsOf is the test oracle for expected bytes: it lays fields out one bit
// at a time, least significant bit first (serialize 1.0 order), without
// using any code of the package under test.
func bitsOf(groups ...any) []byte {
	var out []byte
	pos := 0
	put := func(fl f) {
		if fl.n < 0 {
			for pos%8 != 0 {
				pos++
			}
			return
		}
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
	for _, g := range groups {
		switch g := g.(type) {
		case f:
			put(g)
		case []f:
			for _, x := range g {
				put(x)
			}
		default:
			panic("bitsOf: want f or []f")
		}
	}
	if out == nil {
		out = []byte{}
	}
	return out
}

func TestBitsOfOracle(t *testing.T) {
	// The oracle against bytes written down by hand.
	got := hex.EncodeToString(bitsOf(f{1, 1}, f{5, 3}, align, raw(0xab), f{0x3ff, 10}))
	if want := "0bab" + "ff03"; got != want {
		t.Fatalf("bitsOf = %s, want %s", got, want)
	}
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package bitpack_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/bitpack-go/bitpack"
)

type tNode struct {
	Next *tNode
}

// TestDepthLimit: 64 nested struct levels work both ways, 65 fail both ways.
func TestDepthLimit(t *testing.T) {
	chain := func(n int) *tNode {
		var head *tNode
		for i := 0; i < n; i++ {
			head = &tNode{Next: head}
		}
		return head
	}
	b, err := bitpack.Marshal(chain(64))
	if err != nil {
		t.Fatalf("64 levels: %v", err)
	}
	// 63 presence bits of 1, then a 0: the 64th node has no successor.
	if want := bitsOf(f{1<<63 - 1, 63}, f{0, 1}); !bytes.Equal(b, want) {
		t.Fatalf("64 levels encoded %x, want %x", b, want)
	}
	var back tNode
	if err := bitpack.Unmarshal(b, &back); err != nil {
		t.Fatalf("64 levels decode: %v", err)
	}
	n := 0
	for p := &back; p != nil; p = p.Next {
		n++
	}
	if n != 64 {
		t.Fatalf("decoded %d levels", n)
	}
	if _, err := bitpack.Marshal(chain(65)); !errors.Is(err, bitpack.ErrDepth) {
		t.Fatalf("65 levels encode: %v", err)
	}
	// 64 ones and a zero: the 65th level is refused before it is read.
	var deep tNode
	err = bitpack.Unmarshal(bitsOf(f{math.MaxUint64, 64}, f{0, 1}), &deep)
	var be *bitpack.Error
	if !errors.Is(err, bitpack.ErrDepth) || !errors.As(err, &be) || be.Bit != 64 {
		t.Fatalf("65 levels decode: %v", err)
	}
	if deep.Next != nil {
		t.Fatal("failed decode changed the value")
	}
}

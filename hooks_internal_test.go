package bitpack

import (
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
)

type panickyHook struct{ X uint8 }

func (p *panickyHook) MarshalBits(w *bitio.Writer) error { panic("MarshalBits bug") }
func (p *panickyHook) UnmarshalBits(r *bitio.Reader) error {
	panic("UnmarshalBits bug")
}

type holdsPanickyHook struct{ P panickyHook }

// TestHookPanicLeavesNoFrame: a hook that panics (and a caller that
// recovers) leaves nothing behind: the hook had a copy of the Reader or
// Writer, and the caller's own never carries the hook's frame, so a later
// Decode or Encode on it starts at depth 0 with the allowances of its own
// input.
func TestHookPanicLeavesNoFrame(t *testing.T) {
	r := bitio.NewReader(make([]byte, 4096))
	w := bitio.NewWriter(nil)
	for range 3 {
		func() {
			defer func() { _ = recover() }()
			_ = Decode(r, &holdsPanickyHook{})
		}()
		func() {
			defer func() { _ = recover() }()
			_ = Encode(w, &holdsPanickyHook{})
		}()
	}
	if f := *frameOfReader(r); f.Depth != 0 {
		t.Errorf("after recovered hook panics the caller's Reader has frame %+v; want depth 0", f)
	}
	if f := *frameOfWriter(w); f.Depth != 0 || f.Counting {
		t.Errorf("after recovered hook panics the caller's Writer has frame %+v; want depth 0, not counting", f)
	}
}

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
	if r.Context() != nil || w.Context() != nil {
		t.Errorf("after recovered hook panics the caller's Reader holds %v and Writer %v; want nothing", r.Context(), w.Context())
	}
	if readerFrame(r) != nil || hookDepth(w) != 0 {
		t.Error("a frame survived the panic")
	}
}

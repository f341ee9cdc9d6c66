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

// TestHookPanicLeavesNoEntry: a hook that panics (and a caller that
// recovers) must not leave its Reader or Writer in the depth registry,
// where it would pin the packet and slow every later call.
func TestHookPanicLeavesNoEntry(t *testing.T) {
	for range 3 {
		func() {
			defer func() { _ = recover() }()
			_ = Unmarshal(make([]byte, 4096), &holdsPanickyHook{})
		}()
		func() {
			defer func() { _ = recover() }()
			_, _ = Marshal(&holdsPanickyHook{})
		}()
	}
	hookDepths.readers.mu.RLock()
	readers := len(hookDepths.readers.m)
	hookDepths.readers.mu.RUnlock()
	hookDepths.writers.mu.RLock()
	writers := len(hookDepths.writers.m)
	hookDepths.writers.mu.RUnlock()
	if active := hookDepths.active.Load(); active != 0 || readers != 0 || writers != 0 {
		t.Errorf("after recovered hook panics: %d hooks active, %d readers and %d writers registered; want none", active, readers, writers)
	}
}

package bitpack_test

import (
	"errors"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// TestDeltaBasePastMaxDepth: a base that nests past MaxDepth — a pointer
// cycle, or a chain of 3,000,000 nodes — is refused with ErrDepth, as
// Marshal and AppendDelta refuse it, by every delta into another value
// (00 included: the base must be copied); into the base itself a delta
// that never reaches that deep is applied, and one that does is refused.
// It runs in a child process: a stack overflow (what copying such a base
// once did) kills a process, which no recover can stop.
func TestDeltaBasePastMaxDepth(t *testing.T) {
	if os.Getenv("BITPACK_DELTA_DEPTH_CHILD") == "1" {
		debug.SetMaxStack(256 << 20) // an unbounded recursion dies in seconds, not minutes
		checkDeltaBasePastMaxDepth(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDeltaBasePastMaxDepth$", "-test.count=1")
	cmd.Env = append(os.Environ(), "BITPACK_DELTA_DEPTH_CHILD=1")
	done := make(chan struct{})
	timer := time.AfterFunc(2*time.Minute, func() {
		select {
		case <-done:
		default:
			_ = cmd.Process.Kill()
		}
	})
	out, err := cmd.CombinedOutput()
	close(done)
	timer.Stop()
	if err != nil {
		text := string(out)
		if len(text) > 3000 {
			text = text[:3000] + "..."
		}
		t.Fatalf("the child process failed (%v):\n%s", err, text)
	}
}

func checkDeltaBasePastMaxDepth(t *testing.T) {
	// What the refusal says: the path of the first node past MaxDepth
	// (the top-level struct is level 1, Deep's node level 2, so level 65
	// is Deep and 63 Nexts), the words Marshal uses, as a base value's.
	want := "bitpack: decode bitpack_test.cycleWorld: field Deep" + strings.Repeat(".Next", 63) +
		": base value: more than 64 nested levels (a cycle?)"
	tick := deltaOf(t, &cycleWorld{}, &cycleWorld{Tick: 1})
	deep := deltaOf(t, &cycleWorld{Deep: &cycleNode{}}, &cycleWorld{Deep: &cycleNode{V: 3}})
	for _, tc := range []struct {
		name string
		base *cycleWorld
	}{
		{"a cycle", cycleBase(0)},
		{"a chain of 3,000,000 nodes", cycleBase(3_000_000)},
	} {
		if _, err := bitpack.Marshal(tc.base); !errors.Is(err, bitpack.ErrDepth) {
			t.Fatalf("%s: Marshal: %v, want ErrDepth", tc.name, err)
		}
		for _, d := range []struct {
			name  string
			delta []byte
		}{{"00", []byte{0}}, {"the tick", tick}, {"Deep.V", deep}} {
			v := &cycleWorld{Tick: 9}
			err := bitpack.UnmarshalDelta(d.delta, tc.base, v)
			if err == nil || err.Error() != want || !errors.Is(err, bitpack.ErrDepth) {
				t.Errorf("%s, delta %s into another value: %v\nwant %s", tc.name, d.name, err, want)
			}
			if v.Tick != 9 || v.Deep != nil {
				t.Errorf("%s, delta %s into another value: refused, but the value changed to %+v", tc.name, d.name, *v)
			}
		}
		// Into the base itself: only what the delta reaches is visited.
		head, next := tc.base.Deep, tc.base.Deep.Next
		if err := bitpack.UnmarshalDelta(tick, tc.base, tc.base); err != nil || tc.base.Tick != 1 {
			t.Errorf("%s: the tick's delta into the base itself: %v, tick %d; want it applied", tc.name, err, tc.base.Tick)
		}
		if err := bitpack.UnmarshalDelta(deep, tc.base, tc.base); err != nil || tc.base.Deep.V != 3 {
			t.Errorf("%s: Deep.V's delta into the base itself: %v, Deep.V %d; want it applied", tc.name, err, tc.base.Deep.V)
		}
		if tc.base.Deep != head || tc.base.Deep.Next != next {
			t.Errorf("%s: decoding into the base itself replaced its nodes", tc.name)
		}
		// A delta that goes down 70 nodes is refused at the 64th's body
		// (level 65), as any decode is; the base is left as it was.
		wantDeep := "bitpack: decode bitpack_test.cycleWorld: field Deep" + strings.Repeat(".Next", 63) +
			" at bit 193: more than 64 nested levels"
		if err := bitpack.UnmarshalDelta(tooDeep, tc.base, tc.base); err == nil || err.Error() != wantDeep || !errors.Is(err, bitpack.ErrDepth) {
			t.Errorf("%s: a delta 70 nodes deep into the base itself: %v\nwant %s", tc.name, err, wantDeep)
		}
		if tc.base.Tick != 1 || tc.base.Deep.V != 3 || tc.base.Deep != head || tc.base.Deep.Next != next {
			t.Errorf("%s: a refused delta changed the base", tc.name)
		}
	}
}

// tooDeep is a delta of cycleWorld that changes nothing but goes down 70
// nodes: the root's changed bit, Tick 0, Deep 1 and 1 (its body follows),
// bits 0 to 3; then each node's body, from bit 4 + 3(k-1) for node k: V
// 0, Next 1 and 1.
var tooDeep = func() []byte {
	var w bitio.Writer
	for _, b := range []uint64{1, 0, 1, 1} {
		w.WriteBits(b, 1)
	}
	for range 70 {
		w.WriteBits(0b110, 3) // bit 0 first: V 0, Next 1, 1
	}
	return w.Bytes()
}()

// deltaOf is AppendDelta(base, v), which must succeed.
func deltaOf(t *testing.T, base, v any) []byte {
	t.Helper()
	d, err := bitpack.AppendDelta(nil, base, v)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

package bitpack_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/bitpack-go/bitpack"
)

type fpInner struct {
	A uint8 `bits:"range=0..100"`
	B uint16
}

type fpMsg struct {
	X uint8 `bits:"bits=3"`
	P *fpInner
	Q *fpInner
}

// TestFlatPointees: pointers to values of fixed size (read with their
// presence bit, see decode_loop.go's gateSteps) decode to the bytes' values, allocate or
// drop their pointees, and refuse a bad code inside naming the field and
// its bit; a pointee the packet cannot hold is refused as before.
func TestFlatPointees(t *testing.T) {
	want := bitsOf(f{5, 3}, f{1, 1}, f{100, 7}, f{0xbeef, 16}, f{0, 1})
	v := fpMsg{X: 5, P: &fpInner{A: 100, B: 0xbeef}}
	got, err := bitpack.Marshal(&v)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Marshal = %x, %v; want %x", got, err, want)
	}
	// Encoding runs the pointees' steps inside the parent's program (see
	// buildRun): a refusal there names the field as before.
	var e *bitpack.Error
	for _, c := range []struct {
		v    fpMsg
		path string
	}{
		{fpMsg{X: 5, P: &fpInner{A: 101}}, "P.A"},
		{fpMsg{X: 5, P: &fpInner{A: 1}, Q: &fpInner{A: 200}}, "Q.A"},
		{fpMsg{X: 8, P: &fpInner{A: 101}}, "X"},
	} {
		if _, err := bitpack.Marshal(&c.v); !errors.As(err, &e) || e.Path != c.path || !errors.Is(err, bitpack.ErrRange) {
			t.Errorf("Marshal(%+v): %v, want a range error at %s", c.v, err, c.path)
		}
	}
	if got, err := bitpack.Marshal(&fpMsg{X: 1, Q: &fpInner{A: 3, B: 4}}); err != nil || !bytes.Equal(got, bitsOf(f{1, 3}, f{0, 1}, f{1, 1}, f{3, 7}, f{4, 16})) {
		t.Fatalf("Marshal with only Q = %x, %v", got, err)
	}

	back := fpMsg{Q: &fpInner{A: 1}}
	if err := bitpack.Unmarshal(want, &back); err != nil || back.X != 5 || back.P == nil || *back.P != *v.P || back.Q != nil {
		t.Fatalf("Unmarshal = %+v, %v", back, err)
	}
	// A = 101 at bit 4.
	bad := bitsOf(f{5, 3}, f{1, 1}, f{101, 7}, f{0xbeef, 16}, f{0, 1})
	if err := bitpack.Unmarshal(bad, &back); !errors.As(err, &e) || e.Path != "P.A" || e.Bit != 4 || !errors.Is(err, bitpack.ErrRange) || e.Detail != "value 101 out of range [0, 100]" {
		t.Fatalf("bad A: %v", err)
	}
	// Q present, but the packet ends inside it: Q.B runs out at bit 35.
	short := bitsOf(f{5, 3}, f{1, 1}, f{100, 7}, f{0xbeef, 16}, f{1, 1}, f{7, 7}, f{0x1f, 6})
	if err := bitpack.Unmarshal(short, &back); !errors.As(err, &e) || e.Path != "Q.B" || e.Bit != 35 || !errors.Is(err, bitpack.ErrOverflow) {
		t.Fatalf("short Q: %v", err)
	}
	if back.P == nil || *back.P != *v.P || back.Q != nil {
		t.Fatalf("a failed decode changed the value: %+v", back)
	}
}

package bitpack_test

import (
	"math"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// dirtyWorld is a base that holds what its tags forbid: A past its range,
// a name past its maxlen, NaN in a compressed float.
type dirtyWorld struct {
	A    int32   `bits:"range=0..1000"` // 10 bits; short form 5 bits (±16)
	Name string  `bits:"maxlen=3"`
	F    float32 `bits:"float,min=0,max=10,res=0.1"`
	B    uint8   // 8 bits; short form 4 bits (±8)
}

func dirtyBase() *dirtyWorld {
	return &dirtyWorld{A: 5000, Name: strings.Repeat("x", 40), F: float32(math.NaN()), B: 1}
}

// TestDeltaDirtyBase pins what docs/wire.md's "Quantize your base" says:
// a delta checks what it changes, not the base, so a field the base holds
// out of its tags and the delta leaves alone passes on, unchecked, both
// ways; a delta that changes such a field is refused, on both sides; and
// Quantize is the check.
func TestDeltaDirtyBase(t *testing.T) {
	v := dirtyBase()
	v.B = 2
	// root 1; A 0; Name 0; F 0; B 1, short 0, +1 as 8-1+1 = 8 (0 0 0 1).
	d, err := bitpack.AppendDelta(nil, dirtyBase(), v)
	if err != nil || string(d) != "\x11\x02" {
		t.Fatalf("AppendDelta: % x (%v), want 11 02", d, err)
	}
	other, self := &dirtyWorld{}, dirtyBase()
	for _, got := range []*dirtyWorld{other, self} {
		base := dirtyBase()
		if got == self {
			base = self
		}
		if err := bitpack.UnmarshalDelta(d, base, got); err != nil {
			t.Fatalf("UnmarshalDelta: %v", err)
		}
		if got.A != 5000 || got.Name != strings.Repeat("x", 40) || !math.IsNaN(float64(got.F)) || got.B != 2 {
			t.Errorf("UnmarshalDelta gave %+v, want the base's values and B 2", *got)
		}
	}

	want := "bitpack: encode bitpack_test.dirtyWorld: field A: value 5000 out of range [0, 1000]"
	q := dirtyBase()
	if err := bitpack.Quantize(q); err == nil || err.Error() != want {
		t.Errorf("Quantize: %v\nwant %s", err, want)
	}
	if q.A != 5000 || q.B != 1 {
		t.Errorf("a refused Quantize changed the value: %+v", *q)
	}

	w := dirtyBase()
	w.A = 10
	want = "bitpack: encode bitpack_test.dirtyWorld: field A: base value: value 5000 out of range [0, 1000]"
	if _, err := bitpack.AppendDelta(nil, dirtyBase(), w); err == nil || err.Error() != want {
		t.Errorf("AppendDelta of a change to A: %v\nwant %s", err, want)
	}
	// root 1; A 1, short 0, +1 as 16-1+1 = 16 (0 0 0 0 1); Name 0; F 0;
	// B 0: A's change from the base's code, which it has none of.
	changeA := []byte{0x83, 0x00}
	want = "bitpack: decode bitpack_test.dirtyWorld: field A at bit 1: base value: value 5000 out of range [0, 1000]"
	for _, into := range []string{"another value", "the base itself"} {
		base, got := dirtyBase(), &dirtyWorld{}
		if into == "the base itself" {
			got = base
		}
		if err := bitpack.UnmarshalDelta(changeA, base, got); err == nil || err.Error() != want {
			t.Errorf("UnmarshalDelta of a change to A, into %s: %v\nwant %s", into, err, want)
		}
		if base.A != 5000 || base.B != 1 {
			t.Errorf("a refused delta changed the base: %+v", *base)
		}
	}
}

package model

import (
	"fmt"
	"testing"
	"time"
)

// zeroTimeHolders holds times where a struct's zero value holds them
// (alone, in arrays of arrays) and where it holds none (a slice, a
// pointer, an empty array), and values that are no time.
type zeroTimeHolders struct {
	Born  time.Time         `bits:"unit=1s,range=-62135596800..0"`
	Grid  [2][3]time.Time   `bits:"unit=1s,range=-62135596800..0"`
	Empty [0]time.Time      `bits:"unit=1s,range=-62135596800..0"`
	Log   []time.Time       `bits:"maxlen=2,unit=1s,range=-62135596800..0"`
	Opt   *time.Time        `bits:"unit=1s,range=-62135596800..0"`
	Epoch time.Time         `bits:"unit=1s,range=0..10,clamp"`
	Lag   time.Duration     `bits:"unit=1s,range=-5..5,clamp"`
	N     int64             `bits:"range=-5..5"`
	Rows  [2][]time.Time    `bits:"maxlen=2,unit=1s,range=-62135596800..0"`
	Inner struct{ N uint8 } ``
}

// TestZeroTime: which fields' zero value holds a count other than 0,
// within which arrays, and whether a model has any.
func TestZeroTime(t *testing.T) {
	m, err := Build([]any{zeroTimeHolders{}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Born": "-62135596800 [] true",
		"Grid": "-62135596800 [2 3] true",
	}
	for _, f := range m.Roots[0].Fields {
		zero, lens, ok := ZeroTime(f.Value)
		got := fmt.Sprintf("%d %v %v", zero, lens, ok)
		w, listed := want[f.Name]
		if !listed {
			w = "0 [] false"
		}
		if got != w {
			t.Errorf("%s: ZeroTime = %s, want %s", f.Name, got, w)
		}
	}
	if !m.ZeroTimes() {
		t.Errorf("ZeroTimes() = false for %T", zeroTimeHolders{})
	}
	if m, err := Build([]any{struct {
		Epoch time.Time `bits:"unit=1s,range=0..10,clamp"`
	}{}}); err != nil || m.ZeroTimes() {
		t.Errorf("ZeroTimes() = true for a time clamped to 1970 (%v)", err)
	}
}

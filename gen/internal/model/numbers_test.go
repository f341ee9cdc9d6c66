package model

import (
	"testing"
	"time"
)

type (
	// A string-keyed map and a time two elements down.
	deepKeys struct {
		M [2]*map[string]uint8 `bits:"elem.elem.maxlen=2,elem.elem.key.maxlen=4"`
	}
	deepTimes struct {
		Log [2][]*time.Time `bits:"maxlen=3,unit=1ms,bits=44"`
	}
	intKeys struct {
		M map[uint8]time.Duration `bits:"maxlen=2,unit=1s,range=0..9"`
	}
)

// TestStringKeysAndTimes: StringKeys finds a map with string keys, and
// Times a time.Time, at a field or elements down; a time.Duration (an
// integer with a unit) and integer keys are neither.
func TestStringKeysAndTimes(t *testing.T) {
	for _, tc := range []struct {
		name        string
		protos      []any
		keys, times bool
	}{
		{"player", []any{Player{}}, false, false},
		{"intKeys", []any{intKeys{}}, false, false},
		{"world", []any{World{}}, true, false},
		{"stamped", []any{Stamped{}}, false, true},
		{"deepKeys", []any{deepKeys{}}, true, false},
		{"deepTimes", []any{deepTimes{}}, false, true},
		{"player,deepTimes,deepKeys", []any{Player{}, deepTimes{}, deepKeys{}}, true, true},
	} {
		m, err := Build(tc.protos)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := m.StringKeys(); got != tc.keys {
			t.Errorf("%s: StringKeys() = %v, want %v", tc.name, got, tc.keys)
		}
		if got := m.Times(); got != tc.times {
			t.Errorf("%s: Times() = %v, want %v", tc.name, got, tc.times)
		}
	}
}

// zeroTimes has a time field for each way Go's zero time.Time (year 1,
// Unix second -62135596800) meets a tag.
type zeroTimes struct {
	InRange  time.Time `bits:"unit=1s,range=-62135596800..4102444800"`
	From1970 time.Time `bits:"unit=1s,range=0..4102444800"`
	Clamped  time.Time `bits:"unit=1s,range=0..4102444800,clamp"`
	Near     time.Time `bits:"unit=1500ms,range=-1000..1000,clamp"`
	Ns       time.Time `bits:"unit=1ns,bits=64"`
	Ms       time.Time `bits:"unit=1ms,bits=64"`
	Sevens   time.Time `bits:"unit=7s,range=-9000000000..0"`
	Before   time.Time `bits:"unit=1s,range=-62135596900..-62135596850,clamp"`
}

// TestTimeZero: the count a client holds for Go's zero time is what
// bitpack writes for it, worked out by hand from docs/wire.md: its Unix
// time in units (half away from zero), the nearer bound with clamp, and
// 0 where bitpack refuses it.
func TestTimeZero(t *testing.T) {
	m, err := Build([]any{zeroTimes{}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"InRange":  -62135596800,
		"From1970": 0,     // refused: no clamp
		"Clamped":  0,     // the lower bound, 1970
		"Near":     -1000, // the lower bound
		"Ns":       0,     // refused: -6.2e19 ns is beyond 64 bits
		"Ms":       -62135596800000,
		"Sevens":   -8876513829,  // -62135596800 / 7 = -8876513828.57…
		"Before":   -62135596850, // the upper bound: the range ends before year 1
	}
	for _, f := range m.Roots[0].Fields {
		w, ok := want[f.Name]
		if !ok {
			t.Fatalf("no expectation for %s", f.Name)
		}
		if got := TimeZero(f.Value); got != w {
			t.Errorf("%s: TimeZero = %d, want %d", f.Name, got, w)
		}
	}
}

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

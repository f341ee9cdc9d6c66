package bitpacktest

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// stamped holds time.Time fields of every form the tags give: a range in
// milliseconds from 1970 to 2100, raw seconds, raw nanoseconds (the whole
// int64), hours before 1970 with clamp, and times behind a pointer and in a
// slice.
type stamped struct {
	At    time.Time   `bits:"unit=1ms,range=0..4102444800000"`
	Raw   time.Time   `bits:"unit=1s,bits=40"`
	Nanos time.Time   `bits:"unit=1ns,bits=64"`
	Old   time.Time   `bits:"unit=1h,range=-10..-1,clamp"`
	P     *time.Time  `bits:"unit=1s,range=0..100"`
	S     []time.Time `bits:"maxlen=3,unit=1m,range=-5..5"`
}

func TestCheckRoundTripTimes(t *testing.T) {
	CheckRoundTrip[stamped](t)
}

func TestCheckDeltaTimes(t *testing.T) {
	CheckDelta[stamped](t, Count(sweep(300, 60, 100)))
}

// TestGenTimes: Gen's times are UTC, in whole units, inside each field's
// range, and reach both ends of each.
func TestGenTimes(t *testing.T) {
	xs := samples[stamped](t, Gen[stamped](), 3, 2000)
	ms := func(n int64) time.Time { return time.UnixMilli(n).UTC() }
	seen := map[string]bool{}
	see := func(name string, cond bool) {
		if cond {
			seen[name] = true
		}
	}
	for i, x := range xs {
		for _, tm := range []time.Time{x.At, x.Raw, x.Nanos, x.Old} {
			if tm.Location() != time.UTC {
				t.Fatalf("sample %d: %v is not UTC", i, tm)
			}
		}
		if x.At.Before(ms(0)) || x.At.After(ms(4102444800000)) || x.At.Nanosecond()%1e6 != 0 {
			t.Fatalf("sample %d: At %v", i, x.At)
		}
		if h := x.Old.Unix(); h%3600 != 0 || h < -10*3600 || h > -3600 {
			t.Fatalf("sample %d: Old %v", i, x.Old)
		}
		see("At 1970", x.At.Equal(ms(0)))
		see("At 2100", x.At.Equal(ms(4102444800000)))
		see("Raw min", x.Raw.Unix() == -1<<39)
		see("Raw max", x.Raw.Unix() == 1<<39-1)
		see("Nanos min", x.Nanos.Equal(time.Unix(0, math.MinInt64)))
		see("Nanos max", x.Nanos.Equal(time.Unix(0, math.MaxInt64)))
		see("Old -10h", x.Old.Unix() == -10*3600)
		see("Old -1h", x.Old.Unix() == -3600)
		see("P nil", x.P == nil)
		see("P 100s", x.P != nil && x.P.Unix() == 100)
		see("S -5m", len(x.S) > 0 && x.S[0].Unix() == -300)
	}
	for _, name := range []string{"At 1970", "At 2100", "Raw min", "Raw max", "Nanos min", "Nanos max", "Old -10h", "Old -1h", "P nil", "P 100s", "S -5m"} {
		if !seen[name] {
			t.Errorf("2000 samples never had %s", name)
		}
	}
}

// TestExpectedTimes: the expected value of a time is the nearest unit's
// (half away from zero, as encoding rounds), and a clamp field's time past
// its range is the nearer bound, even a time whose units int64 cannot hold.
func TestExpectedTimes(t *testing.T) {
	m, err := compileModel(reflect.TypeFor[stamped](), newConfig(reflect.TypeFor[stamped](), nil))
	if err != nil {
		t.Fatal(err)
	}
	x := stamped{
		At:    time.Unix(1, 500_000).UTC(),                       // 1000.5 ms: 1001 ms
		Raw:   time.Unix(-2, -500_000_000).UTC(),                 // -2.5 s: -3 s
		Nanos: time.Date(2000, 1, 2, 3, 4, 5, 6, time.UTC),       // whole nanoseconds: itself
		Old:   time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),          // the zero time, past -10 h: -10 h
		S:     []time.Time{time.Unix(-29, 0), time.Unix(150, 0)}, // -0.48 min: 0; 2.5 min: 3 min
	}
	got := m.expected(reflect.ValueOf(x)).Interface().(stamped)
	want := stamped{
		At:    time.UnixMilli(1001).UTC(),
		Raw:   time.Unix(-3, 0).UTC(),
		Nanos: x.Nanos,
		Old:   time.Unix(-10*3600, 0).UTC(),
		S:     []time.Time{time.Unix(0, 0).UTC(), time.Unix(180, 0).UTC()},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("expected (-want +got):\n%s", diff)
	}
	past := stamped{Old: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}
	if got := m.expected(reflect.ValueOf(past)).Interface().(stamped).Old; !got.Equal(time.Unix(-3600, 0)) {
		t.Fatalf("Old after 9999: expected %v, want the bound -1 h", got)
	}
}

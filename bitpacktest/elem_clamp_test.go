package bitpacktest

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/google/go-cmp/cmp"
)

// adoptKinds: options for inner values (elem.) and clamped integers, with
// and without units.
type adoptKinds struct {
	Names  []string      `bits:"maxlen=4,elem.maxlen=15"`
	Blobs  [][]byte      `bits:"maxlen=3,elem.maxlen=5"`
	Nested [][]string    `bits:"maxlen=2,elem.maxlen=2,elem.elem.maxlen=4"`
	Level  uint16        `bits:"range=0..99,clamp"`
	Temp   int8          `bits:"range=-20..20,clamp"`
	Lag    time.Duration `bits:"range=-500..500,unit=1ms,clamp"`
	Small  int32         `bits:"bits=4,clamp"`
	Whole  uint8         `bits:"range=0..255,clamp"` // nothing outside
	Scaled [2]int32      `bits:"range=-100..100,unit=250,clamp"`
}

// TestGenElemAndClamp: elem. options bound inner values; clamped integers
// come out of their range too, and round trips expect them at the nearer
// bound.
func TestGenElemAndClamp(t *testing.T) {
	seen := map[string]bool{}
	see := func(name string, cond bool) {
		if cond {
			seen[name] = true
		}
	}
	const ms = 1000000
	for i, x := range samples[adoptKinds](t, Gen[adoptKinds](), 17, 3000) {
		if _, err := bitpack.Marshal(&x); err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		bad := func(what string) { t.Fatalf("sample %d: %s\n%s", i, what, show(reflect.ValueOf(x))) }
		if len(x.Names) > 4 || len(x.Blobs) > 3 || len(x.Nested) > 2 {
			bad("a slice past maxlen")
		}
		for _, s := range x.Names {
			if len(s) > 15 {
				bad("a name past elem.maxlen")
			}
			see("Names 15 bytes", len(s) == 15)
		}
		for _, b := range x.Blobs {
			if len(b) > 5 {
				bad("a blob past elem.maxlen")
			}
			see("Blobs 5 bytes", len(b) == 5)
		}
		for _, l := range x.Nested {
			if len(l) > 2 {
				bad("a list past elem.maxlen")
			}
			for _, s := range l {
				if len(s) > 4 {
					bad("a string past elem.elem.maxlen")
				}
				see("Nested 4 bytes", len(s) == 4)
			}
		}
		if x.Lag%ms != 0 || x.Scaled[0]%250 != 0 || x.Scaled[1]%250 != 0 {
			bad("a value not in whole units")
		}
		see("Names 4", len(x.Names) == 4)
		see("Level in range", x.Level <= 99)
		see("Level above", x.Level > 99)
		see("Level max", x.Level == math.MaxUint16)
		see("Temp below", x.Temp < -20)
		see("Temp above", x.Temp > 20)
		see("Lag below", x.Lag < -500*ms)
		see("Lag above", x.Lag > 500*ms)
		see("Lag lowest", x.Lag == math.MinInt64/ms*ms)
		see("Small below", x.Small < -8)
		see("Small above", x.Small > 7)
		see("Scaled above", x.Scaled[0] > 25000)
		see("Scaled highest", x.Scaled[1] == math.MaxInt32/250*250)
	}
	for _, want := range []string{"Names 15 bytes", "Blobs 5 bytes", "Nested 4 bytes", "Names 4", "Level in range",
		"Level above", "Level max", "Temp below", "Temp above", "Lag below", "Lag above", "Lag lowest", "Small below",
		"Small above", "Scaled above", "Scaled highest"} {
		if !seen[want] {
			t.Errorf("3000 samples never had %s", want)
		}
	}
	// Round trips expect clamped values at the nearer bound.
	typ := reflect.TypeFor[adoptKinds]()
	m, err := compileModel(typ, newConfig(typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	in := adoptKinds{Level: 300, Temp: math.MinInt8, Lag: 2000 * ms, Small: 100, Whole: 255, Scaled: [2]int32{-30000, 2000}}
	want := adoptKinds{Level: 99, Temp: -20, Lag: 500 * ms, Small: 7, Whole: 255, Scaled: [2]int32{-25000, 2000}}
	got := m.expected(reflect.ValueOf(in)).Interface().(adoptKinds)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("expected (-want +got):\n%s", diff)
	}
	back := adoptKinds{}
	if b, err := bitpack.Marshal(&in); err != nil {
		t.Fatal(err)
	} else if err := bitpack.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, want) {
		t.Errorf("bitpack decodes %+v, %v; want %+v", back, err, want)
	}
	CheckRoundTrip[adoptKinds](t)
	fz := newTestFuzzer(t, typ)
	corpus := fz.corpus(nil)
	failures, panics := runFuzzBody(fz, append(corpus, randomInputs(corpus, 2000, 60)...))
	for _, err := range failures {
		t.Error(err)
	}
	for _, p := range panics {
		t.Errorf("panic: %s", p)
	}
}

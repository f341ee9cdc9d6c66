package bitpacktest

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/deepbits"
	"github.com/leanovate/gopter"
)

// A realistic big packet: a game snapshot with 256 sparse entity slots, up
// to about 13 KB on the wire. Fuzzing it is what issue 15 measured.

type snapVec3 struct{ X, Y, Z float32 }

type snapQuat struct{ X, Y, Z, W float32 }

type snapEntity struct {
	ID     uint16   `bits:"range=0..4095"`
	Kind   uint8    `bits:"range=0..15"`
	Health int16    `bits:"range=-100..1000"`
	Pos    snapVec3 `bits:"float,min=-1024,max=1024,res=0.01"`
	Vel    snapVec3 `bits:"float,min=-64,max=64,res=0.05"`
	Rot    snapQuat `bits:"quat,bits=9"`
	Name   string   `bits:"maxlen=15"`
	Items  []uint16 `bits:"maxlen=8,range=0..1023"`
	Target *uint16  `bits:"range=0..255"`
	Alive  bool
}

type snapshot struct {
	Tick     uint32
	Ack      uint16
	Entities [256]*snapEntity `bits:"sparse"`
	Events   []uint8          `bits:"maxlen=16,range=0..63"`
}

// snapSeed returns a snapshot with entities in the given slots (identity
// rotations: the zero quaternion is not a valid value yet).
func snapSeed(slots ...int) snapshot {
	s := snapshot{Tick: 1000, Ack: 999, Events: []uint8{3, 63}}
	for _, i := range slots {
		target := uint16(i % 256)
		s.Entities[i] = &snapEntity{ID: uint16(i), Kind: 3, Health: 100, Pos: snapVec3{1, 2, 3}, Vel: snapVec3{-1, 0, 0.5},
			Rot: snapQuat{W: 1}, Name: "grunt", Items: []uint16{1, 1023}, Target: &target, Alive: true}
	}
	return s
}

// FuzzSnapshot fuzzes the big type, seeded as the package doc advises: a
// few entities, not a full snapshot.
func FuzzSnapshot(f *testing.F) {
	Fuzz(f, snapSeed(0, 7, 200, 255))
}

func snapshotFuzzer(t testing.TB) (*fuzzer, [][]byte) {
	t.Helper()
	typ := reflect.TypeFor[snapshot]()
	cfg := newConfig(typ, nil)
	cfg.zeroCustom = true
	fz, err := newFuzzer(typ, cfg)
	if err != nil {
		t.Fatal(err)
	}
	seed := snapSeed(0, 7, 200, 255)
	enc, err := bitpack.Marshal(&seed)
	if err != nil {
		t.Fatal(err)
	}
	return fz, fz.corpus([][]byte{enc})
}

// TestFuzzBodySnapshot: the big type's fuzz body passes its checks on its
// corpus and a few thousand mutations of it, and those inputs reach both
// outcomes (counted by a plain Unmarshal into a fresh value), so the
// checks of accepted and of refused packets both ran.
func TestFuzzBodySnapshot(t *testing.T) {
	fz, corpus := snapshotFuzzer(t)
	inputs := append(corpus, randomInputs(corpus, 3000, 300)...)
	failures, panics := runFuzzBody(fz, inputs)
	for _, err := range failures {
		t.Error(err)
	}
	for _, p := range panics {
		t.Errorf("panic: %s", p)
	}
	accepted := 0
	for _, in := range inputs {
		var s snapshot
		if bitpack.Unmarshal(in, &s) == nil {
			accepted++
		}
	}
	if accepted < 300 || len(inputs)-accepted < 300 {
		t.Errorf("%d of %d inputs accepted: want at least 300 of each outcome", accepted, len(inputs))
	}
}

// TestFuzzCorpusShort: the generated part of the big type's corpus is
// short (the layout allows 13,112 bytes; generating at the default sizes
// gave packets of up to 8.5 KB, whose minimization stalled the fuzzer).
func TestFuzzCorpusShort(t *testing.T) {
	fz, corpus := snapshotFuzzer(t)
	if fz.m.layout.MaxBits != 104891 {
		t.Fatalf("MaxBits = %d, want 104891 (the type changed: update this test)", fz.m.layout.MaxBits)
	}
	for _, b := range corpus {
		if len(b) > 1024 {
			t.Errorf("corpus packet of %d bytes, want at most 1024", len(b))
		}
	}
}

// TestFuzzPrefillRestored: after an accepted packet is decoded into a
// pre-filled target, the next input that picks the same target finds its
// value again (a refused packet then passes the "unchanged" check), and
// the values themselves are never decoded into.
func TestFuzzPrefillRestored(t *testing.T) {
	fz, _ := snapshotFuzzer(t)
	seed := snapSeed(1, 2, 3)
	good, err := bitpack.Marshal(&seed)
	if err != nil {
		t.Fatal(err)
	}
	pf := fz.pick(good)
	if err := fz.check(good); err != nil {
		t.Fatal(err)
	}
	got := pf.target.Elem().Interface().(snapshot)
	if got.Entities[1] == nil || got.Entities[1].Name != "grunt" || got.Entities[4] != nil {
		t.Fatalf("the accepted packet was not decoded into the pre-filled target: %s", show(pf.target.Elem()))
	}
	// The same packet with a trailing byte is refused (ErrTrailing); pick
	// a trailing byte that lands on the same target.
	var bad []byte
	for b := 0; b < 256 && bad == nil; b++ {
		if in := append(append([]byte(nil), good...), byte(b)); fz.pick(in) == pf {
			bad = in
		}
	}
	if bad == nil {
		t.Fatal("no trailing byte picks the same pre-filled target")
	}
	if err := fz.check(bad); err != nil {
		t.Fatal(err)
	}
	if !deepbits.Identical(pf.value, pf.target.Elem()) {
		t.Fatalf("the target was not restored:\n%s\nwant\n%s", show(pf.target.Elem()), show(pf.value))
	}
	// Every value is what the fixed seed generates, untouched.
	for i, pf := range fz.prefills {
		want := reflect.New(fz.m.typ).Elem()
		if i > 0 {
			want = fz.m.generate(&gopter.GenParameters{MaxSize: 100, Rng: rand.New(&splitmix{uint64(i)})}, fz.smallCfg)
		}
		if !deepbits.Identical(want, pf.value) {
			t.Errorf("pre-filled value %d changed:\n%s\nwant\n%s", i, show(pf.value), show(want))
		}
	}
}

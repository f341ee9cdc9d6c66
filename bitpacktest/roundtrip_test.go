package bitpacktest

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter/gen"
)

func TestCheckRoundTripAllKinds(t *testing.T) {
	CheckRoundTrip[allKinds](t, Custom[nibble](nibbleGen()))
}

func TestCheckRoundTripTree(t *testing.T) {
	CheckRoundTrip[tree](t, Depth(5))
}

func sloppyGen() Option {
	return Custom[sloppy](gen.UInt8Range(0, 31).Map(func(v uint8) sloppy { return sloppy{v} }))
}

// TestCheckRoundTripFindsMisdecode: a decoder that reads 13 as 12 fails the
// round-trip properties, and the counterexample is shrunk to the minimal
// value: 13 in the custom field, every other field at its simplest.
func TestCheckRoundTripFindsMisdecode(t *testing.T) {
	typ := reflect.TypeFor[sloppyPacket]()
	rep, err := runRoundTrip(typ, newConfig(typ, []Option{sloppyGen(), Seed(42)}))
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]propReport{}
	for _, p := range rep.failed() {
		failed[p.name] = p
	}
	for _, name := range []string{"Marshal accepts every valid value", "len(Marshal(x)) within the layout's bounds"} {
		if _, ok := failed[name]; ok {
			t.Errorf("property %q failed: %s", name, rep.message(failed[name]))
		}
	}
	for _, name := range []string{"Unmarshal(Marshal(x)) == x", "Marshal(Unmarshal(b)) == b"} {
		p, ok := failed[name]
		if !ok {
			t.Errorf("property %q passed; the decoder is broken", name)
			continue
		}
		if len(p.result.Args) != 1 {
			t.Fatalf("%q: %d args", name, len(p.result.Args))
		}
		got, ok := p.result.Args[0].Arg.(sloppyPacket)
		if !ok {
			t.Fatalf("%q: counterexample is a %T", name, p.result.Args[0].Arg)
		}
		want := sloppyPacket{ID: 100, S: sloppy{13}}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(sloppy{})); diff != "" {
			t.Errorf("%q: counterexample not shrunk to the minimum (-want +got):\n%s", name, diff)
		}
		msg := rep.message(p)
		t.Log(msg)
		for _, s := range []string{"falsified", "seed 42", "bitpacktest.Seed(42)", "S:sloppy{v:13}", "original value:"} {
			if !strings.Contains(msg, s) {
				t.Errorf("%q: message lacks %q:\n%s", name, s, msg)
			}
		}
	}
}

// TestCheckRoundTripReplay: the same seed replays the same run; the
// default seed is fixed per type.
func TestCheckRoundTripReplay(t *testing.T) {
	typ := reflect.TypeFor[sloppyPacket]()
	run := func(opts ...Option) string {
		rep, err := runRoundTrip(typ, newConfig(typ, append(opts, sloppyGen())))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, p := range rep.props {
			b.WriteString(rep.message(p))
		}
		return b.String()
	}
	if a, b := run(Seed(7)), run(Seed(7)); a != b {
		t.Fatalf("Seed(7) twice gave different runs:\n%s\n---\n%s", a, b)
	}
	if a, b := run(), run(); a != b {
		t.Fatalf("the default seed is not fixed:\n%s\n---\n%s", a, b)
	}
	if newConfig(typ, nil).seed == newConfig(reflect.TypeFor[tree](), nil).seed {
		t.Fatal("two types share the default seed")
	}
}

// TestCheckRoundTripNeedsCustom: a missing generator is reported, not a
// crash inside gopter.
func TestCheckRoundTripNeedsCustom(t *testing.T) {
	typ := reflect.TypeFor[sloppyPacket]()
	if _, err := runRoundTrip(typ, newConfig(typ, nil)); err == nil || !strings.Contains(err.Error(), "bitpacktest.Custom[bitpacktest.sloppy]") {
		t.Fatalf("err = %v", err)
	}
}

// TestExpectedQuantizes: the expected value has compressed floats at their
// quantum and nothing else changed; the original is not modified.
func TestExpectedQuantizes(t *testing.T) {
	type packet struct {
		Raw  float32
		Q    float32    `bits:"float,min=0,max=10,res=0.01"`
		Vecs []vec3     `bits:"maxlen=2,float,min=-1,max=1,res=0.5"`
		P    *float64   `bits:"float,min=0,max=1,res=0.25"`
		A    [2]float32 `bits:"float,min=0,max=10,res=0.01,clamp"`
	}
	m, err := compileModel(reflect.TypeFor[packet](), newConfig(reflect.TypeFor[packet](), nil))
	if err != nil {
		t.Fatal(err)
	}
	p := 0.3
	x := packet{Raw: 0.105, Q: 0.105, Vecs: []vec3{{0.3, -0.3, 0.8}}, P: &p, A: [2]float32{0.025, 11}}
	got := m.expected(reflect.ValueOf(x)).Interface().(packet)
	// 0.105 -> code 11 -> 0.11 (package quant's pinned float32 arithmetic).
	want := packet{Raw: 0.105, Q: float32(m.root.fields[1].q32.Dequantize(11)), Vecs: []vec3{{0.5, -0.5, 1}},
		A: [2]float32{m.root.fields[4].elem.q32.Dequantize(3), 10}} // 0.025 -> 3 (likewise)
	wantP := 0.25
	want.P = &wantP
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("expected (-want +got):\n%s", diff)
	}
	if x.Vecs[0].X != 0.3 || *x.P != 0.3 {
		t.Fatal("expected modified its argument")
	}
}

// TestQuatAngle: the angle between rotations, with q and -q equal.
func TestQuatAngle(t *testing.T) {
	s := math.Sqrt2 / 2
	for _, tc := range []struct {
		a, b [4]float64
		want float64
	}{
		{[4]float64{0, 0, 0, 1}, [4]float64{0, 0, 0, 1}, 0},
		{[4]float64{0, 0, 0, 1}, [4]float64{0, 0, 0, -1}, 0},
		{[4]float64{0, 0, 0, 1}, [4]float64{0, 0, s, s}, math.Pi / 2},
		{[4]float64{0, 0, 0, 1}, [4]float64{1, 0, 0, 0}, math.Pi},
		{[4]float64{0, 0, 0, 2}, [4]float64{0, 0, 0, 1}, 0}, // normalised first
	} {
		if got := quatAngle(tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("quatAngle(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if got := quatAngle([4]float64{}, [4]float64{0, 0, 0, 1}); !math.IsInf(got, 1) {
		t.Errorf("zero quaternion: %v", got)
	}
}

// TestCmpOptionsPrecise: raw floats compare by bits (NaN equals the same
// NaN, not another; -0 is not +0), quaternions within tolerance only at
// quaternion paths, nil equals empty, off-wire fields are ignored.
func TestCmpOptionsPrecise(t *testing.T) {
	type packet struct {
		F    float32
		Rot  [4]float32 `bits:"quat,bits=9"`
		Pair [4]float32 // raw: exact
		L    []uint8    `bits:"maxlen=3"`
		Off  int        `bits:"-"`
	}
	m, err := compileModel(reflect.TypeFor[packet](), newConfig(reflect.TypeFor[packet](), nil))
	if err != nil {
		t.Fatal(err)
	}
	opts := m.cmpOptions(&config{})
	nan1, nan2 := math.Float32frombits(0x7fc00001), math.Float32frombits(0x7fc00002)
	base := packet{F: nan1, Rot: [4]float32{0, 0, 0, 1}}
	for _, tc := range []struct {
		name  string
		other packet
		equal bool
	}{
		{"same NaN", packet{F: nan1, Rot: [4]float32{0, 0, 0, 1}}, true},
		{"other NaN", packet{F: nan2, Rot: [4]float32{0, 0, 0, 1}}, false},
		{"quat within tolerance", packet{F: nan1, Rot: [4]float32{0.001, 0, 0, 0.9999995}}, true},
		{"quat negated", packet{F: nan1, Rot: [4]float32{0, 0, 0, -1}}, true},
		{"quat off", packet{F: nan1, Rot: [4]float32{0.1, 0, 0, 0.995}}, false},
		{"raw array exact", packet{F: nan1, Rot: [4]float32{0, 0, 0, 1}, Pair: [4]float32{0.001}}, false},
		{"nil vs empty", packet{F: nan1, Rot: [4]float32{0, 0, 0, 1}, L: []uint8{}}, true},
		{"off-wire field", packet{F: nan1, Rot: [4]float32{0, 0, 0, 1}, Off: 3}, true},
	} {
		if got := cmp.Equal(base, tc.other, opts...); got != tc.equal {
			t.Errorf("%s: Equal = %v, want %v", tc.name, got, tc.equal)
		}
	}
	neg := packet{F: float32(math.Copysign(0, -1)), Rot: [4]float32{0, 0, 0, 1}}
	if cmp.Equal(packet{Rot: [4]float32{0, 0, 0, 1}}, neg, opts...) {
		t.Error("-0 equals +0")
	}
}

// TestEqualNoMoreLenientThanCmp: the fast pre-check never calls equal what
// go-cmp with the round-trip options calls different.
func TestEqualNoMoreLenientThanCmp(t *testing.T) {
	typ := reflect.TypeFor[allKinds]()
	cfg := newConfig(typ, []Option{Custom[nibble](nibbleGen())})
	m, err := compileModel(typ, cfg)
	if err != nil {
		t.Fatal(err)
	}
	opts := m.cmpOptions(cfg)
	g := m.gen(cfg)
	p := params(11)
	agreed, n := 0, sweep(200, 200, 60) // values: 200 with BITPACK_FULL=1
	for i := 0; i < n; i++ {
		x, _ := g(p).Retrieve()
		xv := reflect.ValueOf(x)
		if !equal(m.root, xv, deepCopy(xv)) {
			t.Fatalf("a value differs from its copy: %s", show(xv))
		}
		others := []any{}
		s := g(p).Shrinker(x)
		for k := 0; k < 30; k++ {
			c, ok := s()
			if !ok {
				break
			}
			others = append(others, c)
		}
		y, _ := g(p).Retrieve()
		others = append(others, y)
		// Equal under the rules, not identical: off-wire fields, nil
		// versus empty, a quaternion nudged within tolerance.
		z := deepCopy(xv).Interface().(allKinds)
		z.Skip, z.priv = 42, 7
		if z.Blob == nil {
			z.Blob = []byte{}
		} else if len(z.Blob) == 0 {
			z.Blob = nil
		}
		z.Q32[0] += 1e-4
		others = append(others, z)
		far := deepCopy(xv).Interface().(allKinds)
		far.Q32 = [4]float32{0, 0, 0, 1}
		if quatAngle(getQuat(reflect.ValueOf(z.Q32), [4][]int{{0}, {1}, {2}, {3}}), [4]float64{0, 0, 0, 1}) < 0.5 {
			far.Q32 = [4]float32{1, 0, 0, 0}
		}
		if equal(m.root, xv, reflect.ValueOf(far)) || cmp.Equal(x, far, opts...) {
			t.Fatal("a quaternion half a turn off is equal")
		}
		for _, o := range others {
			if equal(m.root, xv, reflect.ValueOf(o)) {
				if !cmp.Equal(x, o, opts...) {
					t.Fatalf("equal but cmp differs:\n%s", cmp.Diff(x, o, opts...))
				}
				agreed++
			}
		}
	}
	if agreed < n { // each value equals its copy with the off-wire fields changed
		t.Fatalf("only %d equal pairs", agreed)
	}
}

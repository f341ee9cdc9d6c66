package bitpacktest

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/deepbits"
	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
)

// TestGenMaps: generated maps keep to their tags — counts within maxlen,
// keys within the key's layout (ranged, raw, bits=, named integers, bools,
// strings of valid UTF-8 without NUL up to key.maxlen), values within the
// value's — and reach the edges: nil and empty maps, full maps (all the
// keys there are, where maxlen allows no more), keys at the ends of their
// ranges, clamped values outside theirs.
func TestGenMaps(t *testing.T) {
	seen := map[string]bool{}
	see := func(name string, cond bool) {
		if cond {
			seen[name] = true
		}
	}
	for i, x := range samples[mapKinds](t, Gen[mapKinds](), 12, 3000) {
		if _, err := bitpack.Marshal(&x); err != nil {
			t.Fatalf("sample %d: %v\n%s", i, err, show(reflect.ValueOf(x)))
		}
		bad := func(what string) { t.Fatalf("sample %d: %s\n%s", i, what, show(reflect.ValueOf(x))) }
		if len(x.Inv) > 5 || len(x.Score) > 4 || len(x.Flags) > 2 || len(x.Groups) > 3 || len(x.Opt) > 3 ||
			len(x.Slots) > 4 || len(x.Tags) > 1 || len(x.Clamp) > 3 {
			bad("a map longer than its maxlen")
		}
		see("Inv nil", x.Inv == nil)
		see("Inv empty", x.Inv != nil && len(x.Inv) == 0)
		see("Inv full", len(x.Inv) == 5)
		for k := range x.Inv {
			see("Inv key 0", k == 0)
			see("Inv key 255", k == 255)
		}
		for k, v := range x.Score {
			if len(k) > 6 || !utf8.ValidString(k) || strings.IndexByte(k, 0) >= 0 {
				bad("Score key " + k)
			}
			if v < -100 || v > 100 {
				bad("Score value out of range")
			}
			see("Score key empty", k == "")
			see("Score key of 6 bytes", len(k) == 6)
			see("Score key multi-byte", utf8.RuneCountInString(k) < len(k))
			see("Score value -100", v == -100)
		}
		see("Score full", len(x.Score) == 4)
		see("Flags both keys", len(x.Flags) == 2)
		for k, v := range x.Flags {
			if v.X < -4 || v.X > 4 {
				bad("Flags value out of range")
			}
			see("Flags false only", len(x.Flags) == 1 && !k)
			see("Flags true only", len(x.Flags) == 1 && k)
		}
		for k, v := range x.Groups {
			if k < -2 || k > 2 || len(v) > 2 {
				bad("Groups entry out of its tags")
			}
			for _, s := range v {
				if len(s) > 4 {
					bad("Groups string longer than 4 bytes")
				}
			}
			see("Groups key -2", k == -2)
			see("Groups key 2", k == 2)
			see("Groups nil value", v == nil)
			see("Groups full value", len(v) == 2)
		}
		for k, v := range x.Opt {
			if v != nil && (*v < 1 || *v > 9) {
				bad("Opt value out of range")
			}
			see("Opt nil value", v == nil)
			see("Opt value 9", v != nil && *v == 9)
			see("Opt key min", k == math.MinInt64)
			see("Opt key max", k == math.MaxInt64)
		}
		for k := range x.Slots {
			if k > 3 {
				bad("Slots key past bits=2")
			}
		}
		see("Slots full", len(x.Slots) == 4) // so keys 0, 1, 2 and 3
		for k, v := range x.Tags {
			if k != "" {
				bad("Tags key longer than key.maxlen=0")
			}
			see("Tags \"\"", true)
			see("Tags true", v)
		}
		for k, v := range x.Clamp {
			if k < 1 || k > 99 {
				bad("Clamp key out of range")
			}
			see("Clamp key 1", k == 1)
			see("Clamp key 99", k == 99)
			see("Clamp value below -5", v < -5)
			see("Clamp value above 5", v > 5)
			see("Clamp value -128", v == math.MinInt8)
		}
	}
	for _, want := range []string{"Inv nil", "Inv empty", "Inv full", "Inv key 0", "Inv key 255",
		"Score key empty", "Score key of 6 bytes", "Score key multi-byte", "Score value -100", "Score full",
		"Flags both keys", "Flags false only", "Flags true only", "Groups key -2", "Groups key 2", "Groups nil value",
		"Groups full value", "Opt nil value", "Opt value 9", "Opt key min", "Opt key max", "Slots full",
		"Tags \"\"", "Tags true", "Clamp key 1", "Clamp key 99", "Clamp value below -5", "Clamp value above 5",
		"Clamp value -128"} {
		if !seen[want] {
			t.Errorf("3000 samples never had %s", want)
		}
	}
}

// TestGenMapSizes: map sizes follow maxlen, MaxElems and the number of
// distinct keys; a full map of a small key domain holds every key in it.
func TestGenMapSizes(t *testing.T) {
	type sizes struct {
		Big   map[uint16]uint8 `bits:"maxlen=1000"`
		Bools map[bool]uint8   `bits:"maxlen=1000"`
		Three map[int32]bool   `bits:"maxlen=10,key.range=5..7"`
		One   map[uint8]bool   `bits:"maxlen=10,key.range=9..9"`
		Chars map[string]bool  `bits:"maxlen=1000,key.maxlen=1"` // "" and 127 one-byte strings
		Pairs map[string]bool  `bits:"maxlen=1000,key.maxlen=2"`
	}
	allChars := map[string]bool{"": true}
	for c := 1; c < 128; c++ {
		allChars[string(rune(c))] = true
	}
	for _, tc := range []struct {
		opts []Option
		want map[string]int
	}{
		{nil, map[string]int{"Big": 64, "Bools": 2, "Three": 3, "One": 1, "Chars": 64, "Pairs": 64}},
		{[]Option{MaxElems(2)}, map[string]int{"Big": 2, "Bools": 2, "Three": 2, "One": 1, "Chars": 2, "Pairs": 2}},
		{[]Option{MaxElems(300)}, map[string]int{"Big": 300, "Bools": 2, "Three": 3, "One": 1, "Chars": 128, "Pairs": 300}},
	} {
		longest := map[string]int{}
		for _, x := range samples[sizes](t, Gen[sizes](tc.opts...), 13, 300) {
			xv := reflect.ValueOf(x)
			for i := range xv.NumField() {
				name := xv.Type().Field(i).Name
				longest[name] = max(longest[name], xv.Field(i).Len())
			}
			for k := range x.Three {
				if k < 5 || k > 7 {
					t.Fatalf("Three = %v: keys outside 5..7", x.Three)
				}
			}
			for k := range x.One {
				if k != 9 {
					t.Fatalf("One = %v: a key other than 9", x.One)
				}
			}
			for k := range x.Chars {
				if !allChars[k] {
					t.Fatalf("Chars holds %q", k)
				}
			}
			for k := range x.Pairs {
				if len(k) > 2 || !utf8.ValidString(k) || strings.IndexByte(k, 0) >= 0 {
					t.Fatalf("Pairs holds %q", k)
				}
			}
		}
		if !reflect.DeepEqual(longest, tc.want) {
			t.Errorf("with %d options: the longest maps have %v entries, want %v", len(tc.opts), longest, tc.want)
		}
	}
}

// TestGenMapRecursionBounded: recursion through a map's values stops at
// Depth, and reaches it.
func TestGenMapRecursionBounded(t *testing.T) {
	var depth func(m mapTree) int
	depth = func(m mapTree) int {
		d := 0
		for _, k := range m.Kids {
			d = max(d, depth(k))
		}
		return d + 1
	}
	for _, d := range []int{0, 1, 3} {
		deepest := 0
		for _, x := range samples[mapTree](t, Gen[mapTree](Depth(d)), 14, 2000) {
			deepest = max(deepest, depth(x))
			if _, err := bitpack.Marshal(&x); err != nil {
				t.Fatal(err)
			}
		}
		if deepest != d+1 {
			t.Errorf("Depth(%d): deepest tree has %d levels, want %d", d, deepest, d+1)
		}
	}
	CheckRoundTrip[mapTree](t)
}

// wideVal takes 4 KiB in memory and one bit on the wire.
type wideVal struct {
	B bool
	_ [4096]byte
}

// wideMap's full maps claim more memory than their bits pay for, so
// Marshal refuses them (bitpack's allowances): Gen must not yield them.
type wideMap struct {
	M map[uint16]wideVal `bits:"maxlen=1000"`
}

func TestGenMapOnlyMarshalable(t *testing.T) {
	g := Gen[wideMap]()
	p := params(15)
	kept, longest := 0, 0
	for range 100 {
		v, ok := g(p).Retrieve()
		if !ok {
			continue // discarded: its draws all cost more than their bits pay
		}
		kept++
		longest = max(longest, len(v.(wideMap).M))
		if _, err := bitpack.Marshal(v); err != nil {
			t.Fatalf("Gen yielded a value Marshal refuses: %v", err)
		}
	}
	if kept < 90 || longest < 10 {
		t.Errorf("%d of 100 draws kept, the longest map %d entries; want most kept, some long", kept, longest)
	}
	// The refusal Gen avoids is real: 64 entries cost too much.
	full := wideMap{M: map[uint16]wideVal{}}
	for k := range 64 {
		full.M[uint16(k)] = wideVal{}
	}
	if _, err := bitpack.Marshal(&full); !isAllowanceRefusal(err) {
		t.Errorf("Marshal of 64 wide entries: %v, want an allowance refusal", err)
	}
}

// shrinkMap is what the shrinking tests shrink.
type shrinkMap struct {
	M map[int16]uint16 `bits:"maxlen=6,key.range=-50..50,range=0..1000"`
}

// shrinkWhile shrinks x greedily as gopter does: the first candidate for
// which fails holds replaces x, until no candidate does.
func shrinkWhile[T any](g gopter.Gen, x T, fails func(T) bool) T {
	shrinker := g(params(0)).Shrinker
	for {
		s, next := shrinker(x), false
		for c, ok := s(); ok; c, ok = s() {
			if fails(c.(T)) {
				x, next = c.(T), true
				break
			}
		}
		if !next {
			return x
		}
	}
}

// TestShrinkMapToMinimum: shrinking removes entries, moves keys toward the
// in-range value closest to zero without landing on a key the map holds,
// and shrinks values.
func TestShrinkMapToMinimum(t *testing.T) {
	g := Gen[shrinkMap]()
	for _, tc := range []struct {
		name  string
		from  map[int16]uint16
		fails func(shrinkMap) bool
		want  map[int16]uint16
	}{
		{"two entries", map[int16]uint16{-7: 3, 9: 800}, func(x shrinkMap) bool { return len(x.M) >= 2 },
			map[int16]uint16{0: 0, 1: 0}},
		{"three entries from far", map[int16]uint16{-50: 1000, -49: 1, 50: 7, 20: 9}, func(x shrinkMap) bool { return len(x.M) >= 3 },
			map[int16]uint16{0: 0, 1: 0, 2: 0}},
		{"a value of 500 or more", map[int16]uint16{-30: 731, 12: 20, 40: 999}, func(x shrinkMap) bool {
			for _, v := range x.M {
				if v >= 500 {
					return true
				}
			}
			return false
		}, map[int16]uint16{0: 500}},
		{"any entry", map[int16]uint16{33: 1}, func(x shrinkMap) bool { return len(x.M) > 0 }, map[int16]uint16{0: 0}},
	} {
		got := shrinkWhile(g, shrinkMap{M: tc.from}, tc.fails)
		if !reflect.DeepEqual(got.M, tc.want) {
			t.Errorf("%s: shrunk %v to %v, want %v", tc.name, tc.from, got.M, tc.want)
		}
	}
	// A property that always fails shrinks any map to nil.
	for i, x := range samples[shrinkMap](t, g, 16, 20) {
		if got := shrinkWhile(g, x, func(shrinkMap) bool { return true }); got.M != nil {
			t.Errorf("sample %d: %v shrunk to %v, want nil", i, x.M, got.M)
		}
	}
}

// TestShrinkMapCandidates: the exact candidates for small maps, in order.
func TestShrinkMapCandidates(t *testing.T) {
	type raw struct {
		M map[uint8]uint8 `bits:"maxlen=4"`
	}
	type flags struct {
		M map[bool]string `bits:"maxlen=2,elem.maxlen=3"`
	}
	candidates := func(g gopter.Gen, x any) []string {
		var out []string
		s := g(params(0)).Shrinker(x)
		for c, ok := s(); ok; c, ok = s() {
			out = append(out, show(reflect.ValueOf(c).Field(0)))
		}
		return out
	}
	for _, tc := range []struct {
		g    gopter.Gen
		x    any
		want []string
	}{
		// nil; the halves (also the removals, not repeated); key 1 to 0;
		// value 5 to 0, 3, 4; key 2 to 0 (1 is taken); value 7 to 0, 4, 6.
		{Gen[raw](), raw{M: map[uint8]uint8{1: 5, 2: 7}}, []string{
			"nil", "map[1:5]", "map[2:7]",
			"map[0:5, 2:7]", "map[1:0, 2:7]", "map[1:3, 2:7]", "map[1:4, 2:7]",
			"map[0:7, 1:5]", "map[1:5, 2:0]", "map[1:5, 2:4]", "map[1:5, 2:6]"}},
		// Three entries: the halves are the first one and the last two;
		// then each removed; key 0 cannot move; key 3 steps by 3 (onto
		// 0, taken) and 1 (to 2); key 9 by 9 (taken), 4, 2 and 1.
		{Gen[raw](), raw{M: map[uint8]uint8{9: 0, 0: 0, 3: 0}}, []string{
			"nil", "map[0:0]", "map[3:0, 9:0]",
			"map[3:0, 9:0]", "map[0:0, 9:0]", "map[0:0, 3:0]",
			"map[0:0, 2:0, 9:0]",
			"map[0:0, 3:0, 5:0]", "map[0:0, 3:0, 7:0]", "map[0:0, 3:0, 8:0]"}},
		// Bool keys: true becomes false only where false is free; the
		// value's string shrinks as strings do (empty, halves, each rune
		// removed, each rune made 'a').
		{Gen[flags](), flags{M: map[bool]string{true: "ab"}}, []string{
			"nil", `map[false:"ab"]`, `map[true:""]`, `map[true:"a"]`, `map[true:"b"]`, `map[true:"b"]`, `map[true:"a"]`,
			`map[true:"aa"]`}},
		{Gen[flags](), flags{M: map[bool]string{true: "", false: ""}}, []string{
			"nil", `map[false:""]`, `map[true:""]`}},
		{Gen[raw](), raw{M: map[uint8]uint8{}}, []string{"nil"}},
		{Gen[raw](), raw{}, nil},
	} {
		if got := candidates(tc.g, tc.x); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("candidates of %s:\n got %q\nwant %q", show(reflect.ValueOf(tc.x).Field(0)), got, tc.want)
		}
	}
}

// mapCompare holds map values that round trips compare loosely:
// compressed floats (at their quantum), quaternions (within tolerance),
// nil and empty slices.
type mapCompare struct {
	F map[uint8]float32     `bits:"maxlen=3,float,min=0,max=1,res=0.25"`
	Q map[string][4]float32 `bits:"maxlen=2,key.maxlen=4,quat,bits=9"`
	S map[bool][]uint8      `bits:"maxlen=2,elem.maxlen=3,range=0..9"`
}

// TestMapEquality: maps compare entry by entry; nil and empty maps are
// alike in round trips and distinct in the fuzzer's exact comparison;
// values follow their own rules, in equal and in go-cmp alike.
func TestMapEquality(t *testing.T) {
	typ := reflect.TypeFor[mapCompare]()
	cfg := newConfig(typ, nil)
	m, err := compileModel(typ, cfg)
	if err != nil {
		t.Fatal(err)
	}
	opts := m.cmpOptions(cfg)
	id := [4]float32{0, 0, 0, 1}
	nudged := [4]float32{1e-4, 0, 0, 1} // a rotation of 2e-4 rad, within 9 bits' tolerance
	for _, tc := range []struct {
		name             string
		a, b             mapCompare
		equal, identical bool
	}{
		{"nil and empty", mapCompare{}, mapCompare{F: map[uint8]float32{}, Q: map[string][4]float32{}, S: map[bool][]uint8{}}, true, false},
		{"same entries", mapCompare{F: map[uint8]float32{1: 0.5, 2: 1}}, mapCompare{F: map[uint8]float32{2: 1, 1: 0.5}}, true, true},
		{"another key", mapCompare{F: map[uint8]float32{1: 0.5}}, mapCompare{F: map[uint8]float32{2: 0.5}}, false, false},
		{"another value", mapCompare{F: map[uint8]float32{1: 0.5}}, mapCompare{F: map[uint8]float32{1: 0.25}}, false, false},
		{"one entry more", mapCompare{F: map[uint8]float32{1: 0.5}}, mapCompare{F: map[uint8]float32{1: 0.5, 0: 0}}, false, false},
		{"-0 and +0", mapCompare{F: map[uint8]float32{1: 0}}, mapCompare{F: map[uint8]float32{1: float32(math.Copysign(0, -1))}}, false, false},
		{"quaternion within tolerance", mapCompare{Q: map[string][4]float32{"a": id}}, mapCompare{Q: map[string][4]float32{"a": nudged}}, true, false},
		{"quaternion a half turn off", mapCompare{Q: map[string][4]float32{"a": id}}, mapCompare{Q: map[string][4]float32{"a": {1, 0, 0, 0}}}, false, false},
		{"nil and empty value", mapCompare{S: map[bool][]uint8{true: nil}}, mapCompare{S: map[bool][]uint8{true: {}}}, true, false},
	} {
		a, b := reflect.ValueOf(tc.a), reflect.ValueOf(tc.b)
		if got := equal(m.root, a, b); got != tc.equal {
			t.Errorf("%s: equal = %v, want %v", tc.name, got, tc.equal)
		}
		if got := cmp.Equal(tc.a, tc.b, opts...); got != tc.equal {
			t.Errorf("%s: cmp.Equal with the round-trip options = %v, want %v", tc.name, got, tc.equal)
		}
		if got := deepbits.Identical(a, b); got != tc.identical {
			t.Errorf("%s: identical = %v, want %v", tc.name, got, tc.identical)
		}
		if got := cmp.Equal(tc.a, tc.b, m.exactOptions(cfg)...); got != tc.identical {
			t.Errorf("%s: cmp.Equal with the exact options = %v, want %v", tc.name, got, tc.identical)
		}
	}
	// A round trip expects map values at their quantum (0.3 is between
	// codes 1 and 2 of 0.25 apart, nearer 1), without touching the value.
	in := mapCompare{F: map[uint8]float32{3: 0.3, 4: 0.9}}
	want := map[uint8]float32{3: 0.25, 4: 1}
	if got := m.expected(reflect.ValueOf(in)).Interface().(mapCompare); !reflect.DeepEqual(got.F, want) {
		t.Errorf("expected: %v, want %v", got.F, want)
	}
	if in.F[3] != 0.3 || in.F[4] != 0.9 {
		t.Errorf("expected changed its argument: %v", in.F)
	}
	CheckRoundTrip[mapCompare](t)
}

// TestShowMap: maps print in key order, values exactly.
func TestShowMap(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{map[int8]float32{3: 0.1, -1: float32(math.NaN())}, "map[-1:NaN(0x7fc00000), 3:0.1]"},
		{map[string]*uint8{"b": nil, "a": new(uint8)}, `map["a":&0, "b":nil]`},
		{map[bool]bool{true: true, false: false}, "map[false:false, true:true]"},
		{map[uint8]bool(nil), "nil"},
	} {
		if got := show(reflect.ValueOf(tc.v)); got != tc.want {
			t.Errorf("show = %s, want %s", got, tc.want)
		}
	}
}

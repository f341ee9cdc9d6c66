package bitpacktest

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/deepbits"
	"github.com/bitpack-go/bitpack/quant"
	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
)

func params(seed int64) *gopter.GenParameters {
	return &gopter.GenParameters{MaxSize: 100, MaxShrinkCount: 1000, Rng: rand.New(rand.NewSource(seed))}
}

// samples draws n values of T from g with a fixed seed.
func samples[T any](t *testing.T, g gopter.Gen, seed int64, n int) []T {
	t.Helper()
	p := params(seed)
	out := make([]T, n)
	for i := range out {
		v, ok := g(p).Retrieve()
		if !ok {
			t.Fatalf("sample %d: the generator produced nothing", i)
		}
		out[i] = v.(T)
	}
	return out
}

// TestGenMarshals: 10,000 values of a type with every tag kind (2,000
// without BITPACK_FULL=1), and Marshal accepts each one.
func TestGenMarshals(t *testing.T) {
	n := sweep(10000, 1000, 2000)
	for i, x := range samples[allKinds](t, Gen[allKinds](Custom[nibble](nibbleGen())), 1, n) {
		if _, err := bitpack.Marshal(&x); err != nil {
			t.Fatalf("sample %d: %v\n%s", i, err, show(reflect.ValueOf(x)))
		}
	}
}

// TestGenCoversEdges: the values reach the edges of every tag, and the
// variety the brief promises (NaNs, multi-byte runes, maxlen, nil and
// non-nil pointers, out-of-range values for clamp fields).
func TestGenCoversEdges(t *testing.T) {
	xs := samples[allKinds](t, Gen[allKinds](Custom[nibble](nibbleGen())), 2, 3000)
	seen := map[string]bool{}
	see := func(name string, cond bool) {
		if cond {
			seen[name] = true
		}
	}
	for _, x := range xs {
		see("I16=-300", x.I16 == -300)
		see("I16=300", x.I16 == 300)
		see("I16=-299", x.I16 == -299)
		see("I16=299", x.I16 == 299)
		see("I16=0", x.I16 == 0)
		see("I16 other", x.I16 != 0 && x.I16 > -299 && x.I16 < 299)
		see("I32=-16", x.I32 == -16)
		see("I32=15", x.I32 == 15)
		see("I64=min", x.I64 == math.MinInt64)
		see("I64=max", x.I64 == math.MaxInt64)
		see("U32=1000", x.U32 == 1000)
		see("U32=1010", x.U32 == 1010)
		see("U64=2^33-1", x.U64 == 1<<33-1)
		see("U=max", x.U == math.MaxUint)
		see("Lvl=1", x.Lvl == 1)
		see("Lvl=99", x.Lvl == 99)
		see("F32 NaN", x.F32 != x.F32)
		see("F32 signaling NaN", x.F32 != x.F32 && math.Float32bits(x.F32)&0x400000 == 0)
		see("F32 -0", math.Float32bits(x.F32) == 0x80000000)
		see("F64 NaN", x.F64 != x.F64)
		see("F64 +Inf", math.IsInf(x.F64, 1))
		see("C32=-10", x.C32 == -10)
		see("C32=10", x.C32 == 10)
		see("C32 between quanta", x.C32 != float32(quantumOf32(-10, 10, 0.01, x.C32)))
		see("C32c below range", x.C32c < 0)
		see("C32c above range", x.C32c > 1)
		see("C64 max", x.C64 == 1000)
		see("Name empty", x.Name == "")
		see("Name maxlen", len(x.Name) == 13)
		see("Name multi-byte", utf8.RuneCountInString(x.Name) < len(x.Name))
		see("Long 4-byte rune", strings.ContainsFunc(x.Long, func(r rune) bool { return r > 0xffff }))
		see("Blob nil", x.Blob == nil)
		see("Blob maxlen", len(x.Blob) == 9)
		see("Vecs maxlen", len(x.Vecs) == 4)
		see("Ptr nil", x.Ptr == nil)
		see("Ptr 10", x.Ptr != nil && *x.Ptr == 10)
		see("Ptr 20", x.Ptr != nil && *x.Ptr == 20)
		see("Tree deep", treeDepth(x.Tree) >= 3)
		see("Q64 identity", x.Q64 == quatStruct{W: 1})
		see("Custs nonempty", len(x.Custs) > 0)
		if s := x.Name + x.Long; !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			t.Fatalf("string %q holds NUL or invalid UTF-8", s)
		}
	}
	for _, want := range []string{"I16=-300", "I16=300", "I16=-299", "I16=299", "I16=0", "I16 other", "I32=-16", "I32=15",
		"I64=min", "I64=max", "U32=1000", "U32=1010", "U64=2^33-1", "U=max", "Lvl=1", "Lvl=99",
		"F32 NaN", "F32 signaling NaN", "F32 -0", "F64 NaN", "F64 +Inf", "C32=-10", "C32=10", "C32 between quanta",
		"C32c below range", "C32c above range", "C64 max", "Name empty", "Name maxlen", "Name multi-byte", "Long 4-byte rune",
		"Blob nil", "Blob maxlen", "Vecs maxlen", "Ptr nil", "Ptr 10", "Ptr 20", "Tree deep", "Q64 identity", "Custs nonempty"} {
		if !seen[want] {
			t.Errorf("3000 samples never had %s", want)
		}
	}
}

// quantumOf32 is the value v decodes as in a compressed float32 field.
func quantumOf32(min, max, res float32, v float32) float32 {
	q, err := quant.NewFloat(min, max, res)
	if err != nil {
		panic(err)
	}
	return float32(quantum(&node{q32: &q}, float64(v)))
}

func treeDepth(t *tree) int {
	if t == nil {
		return 0
	}
	d := treeDepth(t.Left)
	for i := range t.Kids {
		d = max(d, treeDepth(&t.Kids[i]))
	}
	return d + 1
}

// TestGenRecursionBounded: recursive types stop at the Depth option.
func TestGenRecursionBounded(t *testing.T) {
	for _, depth := range []int{0, 2, 4} {
		deepest := 0
		for _, x := range samples[tree](t, Gen[tree](Depth(depth)), 3, 2000) {
			deepest = max(deepest, treeDepth(&x))
		}
		if deepest != depth+1 {
			t.Errorf("Depth(%d): deepest tree has %d levels, want %d", depth, deepest, depth+1)
		}
	}
}

// TestGenDeterministic: the same seed gives the same values.
func TestGenDeterministic(t *testing.T) {
	g := Gen[allKinds](Custom[nibble](nibbleGen()))
	a := samples[allKinds](t, g, 7, 50)
	b := samples[allKinds](t, g, 7, 50)
	m, err := compileModel(reflect.TypeFor[allKinds](), newConfig(reflect.TypeFor[allKinds](), []Option{Custom[nibble](nibbleGen())}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b, m.exactOptions(&config{})...); diff != "" {
		t.Fatalf("same seed, different values:\n%s", diff)
	}
}

// TestGenNamedTypes: named types come out as themselves, and custom values
// come from the registered generator.
func TestGenNamedTypes(t *testing.T) {
	type named struct {
		L level  `bits:"range=5..6"`
		M meters `bits:"float,min=1,max=2,res=0.5"`
		N nibble
	}
	for _, x := range samples[named](t, Gen[named](Custom[nibble](nibbleGen())), 4, 200) {
		if x.L < 5 || x.L > 6 || x.M < 1 || x.M > 2 || x.N.v > 14 {
			t.Fatalf("out of range: %+v", x)
		}
	}
}

// TestGenNeedsCustom: a custom type without a generator is a clear panic.
func TestGenNeedsCustom(t *testing.T) {
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "bitpacktest.Custom[bitpacktest.nibble]") || !strings.Contains(msg, "Cust") {
			t.Fatalf("panic = %q, want advice to register a generator for the field", msg)
		}
	}()
	Gen[allKinds]()
	t.Fatal("no panic")
}

// TestGenTagError: a type bitpack refuses is reported with bitpack's reason.
func TestGenTagError(t *testing.T) {
	type bad struct {
		S string // no maxlen
	}
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "maxlen") {
			t.Fatalf("panic = %q", msg)
		}
	}()
	Gen[bad]()
}

// TestUnknownKind: a layout kind this package does not know is an error
// naming the field, not a bad value.
func TestUnknownKind(t *testing.T) {
	f := &bitpack.Field{Type: reflect.TypeFor[struct{ A int }](), Kind: bitpack.KindStruct,
		Fields: []*bitpack.Field{{Name: "A", Index: []int{0}, Type: reflect.TypeFor[int](), Kind: bitpack.Kind(200)}}}
	m := &model{}
	_, err := m.compile(f, "T", -1, newConfig(f.Type, nil), map[*bitpack.Field]*node{})
	if err == nil || !strings.Contains(err.Error(), "T.A") || !strings.Contains(err.Error(), "not supported") {
		t.Fatalf("err = %v", err)
	}
}

// TestShrinkCandidatesValid: every candidate the shrinker proposes (three
// levels deep) still marshals, and each is new (no candidate equals its
// parent).
func TestShrinkCandidatesValid(t *testing.T) {
	g := Gen[allKinds](Custom[nibble](nibbleGen()))
	p := params(5)
	checked := 0
	var walk func(x any, level int)
	walk = func(x any, level int) {
		r := g(p)
		s := r.Shrinker(x)
		for i := 0; i < 40; i++ {
			c, ok := s()
			if !ok {
				break
			}
			v := c.(allKinds)
			if _, err := bitpack.Marshal(&v); err != nil {
				t.Fatalf("shrink candidate does not marshal: %v\n%s", err, show(reflect.ValueOf(v)))
			}
			if deepbits.Identical(reflect.ValueOf(x), reflect.ValueOf(c)) {
				t.Fatalf("shrink candidate equals its parent: %s", show(reflect.ValueOf(v)))
			}
			checked++
			if level < 2 && i%10 == 0 {
				walk(c, level+1)
			}
		}
	}
	for i := 0; i < 25; i++ {
		x, _ := g(p).Retrieve()
		walk(x, 0)
	}
	if checked < 1000 {
		t.Fatalf("only %d candidates checked", checked)
	}
}

// TestShrinkReachesMinimum: with a property that always fails, shrinking
// ends at the smallest valid value: every integer at the in-range value
// closest to zero, strings and slices empty, pointers nil.
func TestShrinkReachesMinimum(t *testing.T) {
	type small struct {
		A int16  `bits:"range=-300..300"`
		B int8   `bits:"range=5..9"`
		C uint32 `bits:"range=7..70000"`
		D int64  `bits:"range=-9..-3"`
		S string `bits:"maxlen=20"`
		L []vec3 `bits:"maxlen=5,float,min=2,max=9,res=0.25"`
		P *int8
		F float32 `bits:"float,min=1.5,max=9,res=0.5"`
		R float64
	}
	g := Gen[small]()
	p := params(6)
	for i := 0; i < 20; i++ {
		x, _ := g(p).Retrieve()
		cur := x
		for steps := 0; steps < 10000; steps++ {
			next, ok := g(p).Shrinker(cur)()
			if !ok {
				break
			}
			cur = next
		}
		want := small{B: 5, C: 7, D: -3, F: 1.5}
		if diff := cmp.Diff(want, cur); diff != "" {
			t.Fatalf("from %s shrinking stopped at (-want +got):\n%s", show(reflect.ValueOf(x)), diff)
		}
	}
}

// TestGenProtocolKinds: unions take every member, sparse fields have
// absent and present elements, recursion through an interface stops, and
// checks need nothing.
func TestGenProtocolKinds(t *testing.T) {
	seen := map[string]bool{}
	var depth func(c command) int
	depth = func(c command) int {
		g, ok := c.(*groupCmd)
		if !ok {
			return 1
		}
		d := depth(g.Lead)
		for _, x := range g.Cmds {
			d = max(d, depth(x))
		}
		return d + 1
	}
	deepest := 0
	for _, x := range samples[protoKinds](t, Gen[protoKinds](), 8, 3000) {
		seen[fmt.Sprintf("%T", x.Cmd)] = true
		deepest = max(deepest, depth(x.Cmd))
		nils, sets := 0, 0
		for _, s := range x.Slots {
			if s == nil {
				nils++
			} else {
				sets++
			}
		}
		seen["Slots all nil"] = seen["Slots all nil"] || sets == 0
		seen["Slots all set"] = seen["Slots all set"] || nils == 0
		seen["Slots mixed"] = seen["Slots mixed"] || (nils > 0 && sets > 0)
		seen["Ents maxlen"] = seen["Ents maxlen"] || len(x.Ents) == 40
		if _, err := bitpack.Marshal(&x); err != nil {
			t.Fatalf("%v\n%s", err, show(reflect.ValueOf(x)))
		}
	}
	for _, want := range []string{"bitpacktest.moveCmd", "*bitpacktest.fireCmd", "bitpacktest.sayCmd", "*bitpacktest.groupCmd",
		"Slots all nil", "Slots all set", "Slots mixed", "Ents maxlen"} {
		if !seen[want] {
			t.Errorf("3000 samples never had %s", want)
		}
	}
	// Cmd itself is not on the cycle (groupCmd.Lead is): one group there,
	// then Depth's 4 levels of groups, then a member that ends it.
	if deepest < 3 || deepest > defaultDepth+2 {
		t.Errorf("deepest command nesting %d, want 3..%d", deepest, defaultDepth+2)
	}
}

// TestMinimal: the simplest value of a type marshals and is what shrinking
// heads for.
func TestMinimal(t *testing.T) {
	m, err := compileModel(reflect.TypeFor[allKinds](), newConfig(reflect.TypeFor[allKinds](), []Option{Custom[nibble](nibbleGen())}))
	if err != nil {
		t.Fatal(err)
	}
	v := minimal(m.root).Interface().(allKinds)
	if _, err := bitpack.Marshal(&v); err != nil {
		t.Fatalf("%v\n%s", err, show(reflect.ValueOf(v)))
	}
	if v.I16 != 0 || v.U8 != 3 || v.U32 != 1000 || v.Lvl != 1 || v.Q64 != (quatStruct{W: 1}) || v.Proto.Cmd != (moveCmd{}) || v.Ptr != nil {
		t.Fatalf("not minimal: %s", show(reflect.ValueOf(v)))
	}
}

// A union whose only member holds the union again has no finite value, so
// every field that leads to it must stay empty: the pointer nil, the
// slice empty, the sparse array all absent.
type (
	loopMsg    interface{ isLoop() }
	loopMember struct{ U loopMsg }
	loopWrap   struct{ U loopMsg }
	loopHolder struct {
		X uint8
		P *loopWrap
		L []loopWrap   `bits:"maxlen=3"`
		S [4]*loopWrap `bits:"sparse"`
		T []*loopWrap  `bits:"sparse,maxlen=3"`
	}
)

func (*loopMember) isLoop() {}

func init() {
	u, err := bitpack.NewUnion(&loopMember{})
	if err != nil {
		panic(err)
	}
	if err := bitpack.RegisterUnion[loopMsg](u); err != nil {
		panic(err)
	}
}

func TestGenNoFiniteValueBelow(t *testing.T) {
	g := Gen[loopHolder]()
	for seed := int64(0); seed < 200; seed++ {
		res := g(params(seed))
		v, ok := res.Retrieve()
		if !ok {
			t.Fatalf("seed %d: no value", seed)
		}
		h := v.(loopHolder)
		if h.P != nil || len(h.L) != 0 || h.S != [4]*loopWrap{} || len(h.T) != 0 {
			t.Fatalf("seed %d: %+v holds a value of a type that has none", seed, h)
		}
		if _, err := bitpack.Marshal(&h); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	CheckRoundTrip[loopHolder](t)
}

// farSlots has more sparse slots than the decoder's work allowance covers
// for a small packet: values with few elements present are refused by
// Marshal, so Gen must not yield them.
type farSlots struct {
	S [20000]*bool `bits:"sparse"`
}

func TestGenOnlyMarshalable(t *testing.T) {
	g := Gen[farSlots]()
	p := params(7)
	kept := 0
	for range 50 {
		r := g(p)
		v, ok := r.Retrieve()
		if !ok {
			continue // discarded: its draws all cost more than their bits pay
		}
		kept++
		if _, err := bitpack.Marshal(v); err != nil {
			t.Fatalf("Gen yielded a value Marshal refuses: %v", err)
		}
	}
	t.Logf("%d of 50 draws kept", kept)
}

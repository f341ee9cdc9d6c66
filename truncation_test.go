package bitpack_test

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/bitpacktest"
	"github.com/leanovate/gopter"
)

// Truncated packets: one refusal, worded one way, whichever of the
// decoder's paths reads the field (the read program, decodeFlat, the stack
// decoder, a Union's fresh decode, an element's or a field's plan) and
// whatever the target holds — and it is the one docs/wire.md's rule names
// (the model in truncation_model_test.go).

// The Arena: a Ship takes 91 to 291 bits.
type twShip struct {
	Hull    uint16     `bits:"range=0..1000"`
	Crew    uint8      `bits:"bits=4"`
	Pos     [3]float32 `bits:"float,min=-1024,max=1024,res=0.01"`
	Alive   bool
	Shield  *[5]uint16 `bits:"bits=10"`
	Ammo    []uint16   `bits:"maxlen=15,range=0..1000"`
	Heading uint32     `bits:"bits=17"`
}

type twArena struct {
	Frame uint32
	Ships []twShip `bits:"maxlen=12"`
}

// twStack decodes on the stack (fixed runs, a byte array, raw slices).
type twStack struct {
	Seq uint32
	IDs []uint32 `bits:"maxlen=8"`
	Tag [3]byte
	Raw []uint16 `bits:"maxlen=6"`
	HP  uint16   `bits:"range=0..1000"`
}

// twFlat decodes with decodeFlat (fixed-width fields only).
type twFlat struct {
	A uint16     `bits:"range=0..1000"`
	B [3]uint32  // a raw run
	C bool       //
	D uint64     // a wide run
	E int16      `bits:"bits=9"`
	F [2]float32 `bits:"float,min=-1,max=1,res=0.001"`
	Q [4]float32 `bits:"quat,bits=9"`
}

type twVec struct {
	X int16 `bits:"range=-500..500"`
	Y int16 `bits:"range=-500..500"`
}

// twGate has pointers to flat pointees (the read program's gates).
type twGate struct {
	A uint8
	P *twVec
	Q *twVec
	R [4]uint32
	N string `bits:"maxlen=7"`
}

// twText has every byte kind.
type twText struct {
	K uint8  `bits:"bits=3"`
	S string `bits:"maxlen=20"`
	B []byte `bits:"maxlen=9"`
	F [3]byte
	T []string `bits:"maxlen=3,elem.maxlen=4"`
}

type twUnit struct {
	HP   uint8  `bits:"range=0..100"`
	Name string `bits:"maxlen=3"`
}

// twSparse has a sparse array and a sparse slice.
type twSparse struct {
	S [6]*twUnit `bits:"sparse"`
	L []*twUnit  `bits:"sparse,maxlen=9"`
}

// twMaps has maps of structs and of strings.
type twMaps struct {
	A uint8
	M map[uint16]twVec  `bits:"maxlen=5,key.range=0..999"`
	N map[string]uint32 `bits:"maxlen=4,key.maxlen=3,bits=20"`
	I map[int8]bool     `bits:"maxlen=3"`
}

// twNest nests slices in slices, and arrays of raw elements.
type twNest struct {
	Rows [][]uint8 `bits:"maxlen=4,elem.maxlen=5,elem.range=0..200"`
	Raw  [3]uint32
	Ws   []uint64 `bits:"maxlen=3"`
	Big  [40]uint32
	AA   [2][3]uint16
}

type twMsg interface{ isTwMsg() }

type twMove struct {
	DX int8 `bits:"range=-8..7"`
	DY int8 `bits:"range=-8..7"`
}

type twFire struct {
	Power uint16 `bits:"range=0..1000"`
	Label string `bits:"maxlen=5"`
}

func (twMove) isTwMsg()  {}
func (*twFire) isTwMsg() {}

// twUnions has a slice of union values (whose check counts the index).
type twUnions struct {
	First twMsg
	Rest  []twMsg `bits:"maxlen=6"`
}

func init() {
	u, err := bitpack.NewUnion(twMove{}, &twFire{})
	if err == nil {
		err = bitpack.RegisterUnion[twMsg](u)
	}
	if err != nil {
		panic(err)
	}
}

// twBig is past the largest spare value a decoder once decoded into to
// name the field that runs out (64 KiB); twMid is below it.
type twBig struct{ W [9000]uint64 }

type twMid struct{ W [7000]uint64 }

type twBigs struct {
	A uint8
	L []twBig `bits:"maxlen=2"`
	P *twBig
	M []twMid `bits:"maxlen=2"`
	Q *twMid
}

// Wrappers: the same value as a struct field, and as an array element.
type twField[T any] struct{ X T }

type twElem[T any] struct{ A [1]T }

// truncCase is a type of the corpus: its values, and targets to decode
// into — zero, full (every slice at its longest, pointers set) and empty
// (non-nil, nothing in it).
type truncCase struct {
	name    string
	samples []any
	paths   []truncPath
}

// truncPath decodes a packet one way and returns the refusal as a field
// path and bit of the type's own (a wrapper's prefix removed).
type truncPath struct {
	name   string
	decode func(packet []byte) error
	prefix string
	fresh  bool // decodes into a new value (see modelRefusal)
}

func truncPaths[T any](targets map[string]func() T) []truncPath {
	var paths []truncPath
	for state, make := range targets {
		paths = append(paths,
			truncPath{name: "Unmarshal into " + state, decode: func(p []byte) error {
				v := make()
				return bitpack.Unmarshal(p, &v)
			}},
			truncPath{name: "Decode into " + state, decode: func(p []byte) error {
				var r bitio.Reader
				r.Reset(p)
				v := make()
				return bitpack.Decode(&r, &v)
			}},
			truncPath{name: "Codec.Unmarshal into " + state, decode: func(p []byte) error {
				c, err := bitpack.NewCodec[T]()
				if err != nil {
					return err
				}
				v := make()
				return c.Unmarshal(p, &v)
			}},
			truncPath{name: "as a field, into " + state, prefix: "X", decode: func(p []byte) error {
				v := twField[T]{X: make()}
				return bitpack.Unmarshal(p, &v)
			}},
			truncPath{name: "as an array element, into " + state, prefix: "A[0]", decode: func(p []byte) error {
				v := twElem[T]{A: [1]T{make()}}
				return bitpack.Unmarshal(p, &v)
			}},
		)
	}
	paths = append(paths, truncPath{name: "Union.Unmarshal", fresh: true, decode: func(p []byte) error {
		var zero T
		u, err := bitpack.NewUnion(zero)
		if err != nil {
			return err
		}
		_, err = u.Unmarshal(p)
		return err
	}})
	return paths
}

// truncSamples draws n values of T (a fixed seed; a third of them without
// BITPACK_FULL=1), after the given ones.
func truncSamples[T any](t *testing.T, n int, given ...T) []any {
	t.Helper()
	n = sweep(n, n, n/3)
	var out []any
	for _, v := range given {
		out = append(out, v)
	}
	g := bitpacktest.Gen[T]()
	p := &gopter.GenParameters{MaxSize: 100, MaxShrinkCount: 1000, Rng: rand.New(rand.NewSource(26))}
	for range n {
		v, ok := g(p).Retrieve()
		if !ok {
			t.Fatal("the generator produced nothing")
		}
		out = append(out, v.(T))
	}
	return out
}

func fullShip(i int) twShip {
	return twShip{Hull: uint16(90 * i), Crew: 15, Pos: [3]float32{1, -2, 3}, Alive: true,
		Shield: &[5]uint16{1, 2, 3, 4, 5}, Ammo: make([]uint16, 15), Heading: 99}
}

func truncCorpus(t *testing.T) []truncCase {
	t.Helper()
	ships := make([]twShip, 12)
	for i := range ships {
		ships[i] = fullShip(i)
	}
	arena := func() twArena { return twArena{Frame: 7, Ships: append([]twShip(nil), ships...)} }
	stack := twStack{Seq: 1, IDs: make([]uint32, 8), Raw: make([]uint16, 6), HP: 3}
	gate := twGate{A: 1, P: &twVec{X: 3}, Q: &twVec{Y: -3}, N: "abcdefg"}
	text := twText{K: 5, S: "twenty bytes of text", B: make([]byte, 9), T: []string{"abcd", "ef", ""}}
	sparse := twSparse{L: make([]*twUnit, 9)}
	for i := range sparse.S {
		sparse.S[i], sparse.L[i] = &twUnit{HP: uint8(i), Name: "ab"}, &twUnit{HP: 1}
	}
	maps := twMaps{A: 1, M: map[uint16]twVec{1: {}, 5: {X: 1}, 999: {Y: 2}, 3: {}, 4: {}},
		N: map[string]uint32{"a": 1, "bcd": 2, "": 3, "zz": 4}, I: map[int8]bool{-128: true, 0: false, 127: true}}
	nest := twNest{Rows: [][]uint8{{1, 2, 3, 4, 5}, {}, {7}, {8, 9}}, Raw: [3]uint32{1, 2, 3}, Ws: []uint64{1, 2, 3}}
	unions := twUnions{First: &twFire{Power: 9, Label: "hi"}, Rest: []twMsg{twMove{DX: 1}, &twFire{Power: 1000}, twMove{}, twMove{}, twMove{}, twMove{}}}
	return []truncCase{
		{"Arena", truncSamples(t, 12, arena(), twArena{Frame: 1, Ships: []twShip{{Hull: 1}}}), truncPaths(map[string]func() twArena{
			"zero": func() twArena { return twArena{} }, "full": arena, "empty": func() twArena { return twArena{Ships: []twShip{}} }})},
		{"Stack", truncSamples(t, 12, stack), truncPaths(map[string]func() twStack{
			"zero": func() twStack { return twStack{} }, "full": func() twStack {
				v := stack
				v.IDs, v.Raw = append([]uint32(nil), stack.IDs...), append([]uint16(nil), stack.Raw...)
				return v
			}, "empty": func() twStack { return twStack{IDs: []uint32{}, Raw: []uint16{}} }})},
		{"Flat", truncSamples(t, 12, twFlat{A: 1000, D: 1 << 63}), truncPaths(map[string]func() twFlat{
			"zero": func() twFlat { return twFlat{} }, "full": func() twFlat { return twFlat{A: 5, D: 9} }})},
		{"Gate", truncSamples(t, 12, gate, twGate{}), truncPaths(map[string]func() twGate{
			"zero": func() twGate { return twGate{} }, "full": func() twGate { return twGate{P: &twVec{}, Q: &twVec{}} }})},
		{"Text", truncSamples(t, 12, text), truncPaths(map[string]func() twText{
			"zero": func() twText { return twText{} }, "full": func() twText { return twText{B: make([]byte, 9), T: make([]string, 3)} }})},
		{"Sparse", truncSamples(t, 12, sparse), truncPaths(map[string]func() twSparse{
			"zero": func() twSparse { return twSparse{} }, "full": func() twSparse {
				var v twSparse
				for i := range v.S {
					v.S[i] = &twUnit{}
				}
				v.L = []*twUnit{{}, {}, {}, {}, {}, {}, {}, {}, {}}
				return v
			}})},
		{"Maps", truncSamples(t, 12, maps), truncPaths(map[string]func() twMaps{
			"zero": func() twMaps { return twMaps{} }, "full": func() twMaps {
				return twMaps{M: map[uint16]twVec{1: {}}, N: map[string]uint32{"q": 1}, I: map[int8]bool{}}
			}})},
		{"Nest", truncSamples(t, 12, nest), truncPaths(map[string]func() twNest{
			"zero": func() twNest { return twNest{} }, "full": func() twNest {
				return twNest{Rows: [][]uint8{make([]uint8, 5), make([]uint8, 5), make([]uint8, 5), make([]uint8, 5)}, Ws: make([]uint64, 3)}
			}})},
		{"Bigs", []any{twBigs{A: 1, L: make([]twBig, 2), P: &twBig{}, M: make([]twMid, 1), Q: &twMid{}}, twBigs{M: make([]twMid, 2)}, twBigs{Q: &twMid{}}},
			truncPaths(map[string]func() twBigs{"zero": func() twBigs { return twBigs{} }, "full": func() twBigs {
				return twBigs{L: make([]twBig, 2), P: &twBig{}, M: make([]twMid, 2), Q: &twMid{}}
			}})},
		{"Unions", truncSamples(t, 12, unions), truncPaths(map[string]func() twUnions{
			"zero": func() twUnions { return twUnions{} }, "full": func() twUnions {
				return twUnions{First: &twFire{}, Rest: []twMsg{&twFire{}, &twFire{}, &twFire{}, &twFire{}, &twFire{}, &twFire{}}}
			}})},
	}
}

// refusalOf returns err's path (without prefix), bit and detail.
func refusalOf(err error, prefix string) (truncRefusal, error) {
	var e *bitpack.Error
	if !errors.As(err, &e) || !errors.Is(err, bitpack.ErrOverflow) && !errors.Is(err, bitpack.ErrRange) {
		return truncRefusal{}, fmt.Errorf("not a refusal for a truncation: %v", err)
	}
	path := e.Path
	if prefix != "" && path != "" {
		rest, ok := strings.CutPrefix(path, prefix)
		if !ok {
			return truncRefusal{}, fmt.Errorf("path %q outside %q", path, prefix)
		}
		path = strings.TrimPrefix(rest, ".")
	}
	return truncRefusal{path: path, bit: e.Bit, detail: e.Detail}, nil
}

// truncLengths are the lengths a packet of n bytes is cut to: all of them,
// or for a big one its first and last 40 and 40 between.
func truncLengths(n int) []int {
	var out []int
	for k := range n {
		if n <= 1000 || k < 40 || k >= n-40 || k%(n/40) == 0 {
			out = append(out, k)
		}
	}
	return out
}

func TestTruncationWordedOnce(t *testing.T) {
	for _, c := range truncCorpus(t) {
		t.Run(c.name, func(t *testing.T) {
			failures, refusals := 0, 0
			for i, v := range c.samples {
				packet, err := bitpack.Marshal(v)
				if err != nil {
					t.Fatalf("sample %d: %v", i, err)
				}
				l, err := bitpack.Describe(v)
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range truncLengths(len(packet)) {
					p := packet[:n:n]
					var wants [2]truncRefusal // scratch and commit, fresh
					for k := range wants {
						var ok bool
						if wants[k], ok = modelRefusal(l, p, k == 1); !ok {
							t.Fatalf("sample %d cut to %d bytes: the model reads it whole", i, n)
						}
					}
					for _, path := range c.paths {
						want := wants[0]
						if path.fresh {
							want = wants[1]
						}
						refusals++
						got, err := refusalOf(path.decode(p), path.prefix)
						if err == nil && got == want {
							continue
						}
						if failures++; failures <= 8 {
							t.Errorf("sample %d cut to %d bytes (% x), %s:\n got %v (%v)\nwant %v", i, n, p[:min(n, 64)], path.name, got, err, want)
						}
					}
				}
			}
			if failures > 8 {
				t.Errorf("%d of %d refusals differ", failures, refusals)
			}
		})
	}
}

// Golden refusals, exact texts worked out by hand, for every way a packet
// reaches the decoder and every kind of target: a zero value, one holding
// the most it can (12 ships), one holding none.
func TestTruncationGolden(t *testing.T) {
	ships := func(n int) []twShip {
		s := make([]twShip, n)
		for i := range s {
			s[i] = fullShip(i)
		}
		return s
	}
	hex := func(s string) []byte { return mustHex(t, strings.ReplaceAll(s, " ", "")) }
	arenas := map[string]func() twArena{
		"zero":     func() twArena { return twArena{} },
		"12 ships": func() twArena { return twArena{Frame: 9, Ships: ships(12)} },
		"no ships": func() twArena { return twArena{Frame: 9, Ships: []twShip{}} },
	}
	for _, c := range []struct {
		packet, want string
	}{
		// Frame 0x1d05495e (32 bits), 6 ships (0110 in bits 32..35), 4 bits
		// left for 6 × 91.
		{"5e 49 05 1d 26", "field Ships at bit 36: 6 elements need at least 546 bits, 4 remain"},
		// One ship (91 ≤ 92 bits left): Hull 36..45, Crew 46..49, Pos
		// 50..103, Alive 104, Shield present at 105, its elements 10 bits
		// each from 106: the third, at 126, has 2 bits.
		{"00 00 00 00 01 00 00 00 00 00 00 00 00 02 00 00", "field Ships[0].Shield[2] at bit 126: needs 10 bits, 2 remain"},
		// One ship, no shield (bit 105 0), Ammo's length 15 at 106..109: 15
		// × 10 bits, 18 left.
		{"00 00 00 00 01 00 00 00 00 00 00 00 00 3c 00 00", "field Ships[0].Ammo at bit 110: 15 elements need at least 150 bits, 18 remain"},
	} {
		want := "bitpack: decode bitpack_test.twArena: " + c.want
		p := hex(c.packet)
		for state, target := range arenas {
			decoders := map[string]func() error{
				"Unmarshal": func() error { v := target(); return bitpack.Unmarshal(p, &v) },
				"Decode": func() error {
					var r bitio.Reader
					r.Reset(p)
					v := target()
					return bitpack.Decode(&r, &v)
				},
				"Codec.Unmarshal": func() error {
					codec, err := bitpack.NewCodec[twArena]()
					if err != nil {
						return err
					}
					v := target()
					return codec.Unmarshal(p, &v)
				},
			}
			for name, decode := range decoders {
				if err := decode(); err == nil || err.Error() != want {
					t.Errorf("%s into %s of % x:\n got %v\nwant %s", name, state, p, err, want)
				}
			}
		}
		u, err := bitpack.NewUnion(twArena{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := u.Unmarshal(p); err == nil || err.Error() != want {
			t.Errorf("Union.Unmarshal of % x:\n got %v\nwant %s", p, err, want)
		}
	}

	for _, c := range []struct {
		v            any
		packet, want string
	}{
		// A 0, then M's count 1 (bits 8..10): 10 + 20 bits, 5 left.
		{&twMaps{}, "00 01", "bitpack: decode bitpack_test.twMaps: field M at bit 11: 1 entry needs at least 30 bits, 5 remain"},
		// First a Move (index 0, DX, DY: 9 bits), Rest's count 6 at 9..11
		// (011): 6 indices of 1 bit, 4 bits left.
		{&twUnions{}, "00 0c", "bitpack: decode bitpack_test.twUnions: field Rest at bit 12: 6 elements need at least 6 bits, 4 remain"},
		// Seq (32 bits), IDs' count 8 at 32..35: 8 × 32 bits, 4 left (the
		// stack decoder).
		{&twStack{}, "00 00 00 00 08", "bitpack: decode bitpack_test.twStack: field IDs at bit 36: 8 elements need at least 256 bits, 4 remain"},
		// Rows' count 0 (3 bits), Raw (96), Ws' count 0 (2): Big's elements
		// 32 bits each from 101; 160 bits hold Big[0], and 27 of Big[1].
		{&twNest{}, "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", "bitpack: decode bitpack_test.twNest: field Big[1] at bit 133: needs 32 bits, 27 remain"},
	} {
		if err := bitpack.Unmarshal(hex(c.packet), c.v); err == nil || err.Error() != c.want {
			t.Errorf("%T from %s:\n got %v\nwant %s", c.v, c.packet, err, c.want)
		}
	}
}

// Golden refusals of deltas whose new elements the packet cannot hold,
// into every kind of target: a zero value, a value holding 12 ships, and
// the base itself.
func TestTruncationGoldenDelta(t *testing.T) {
	ships := func(n int) []twShip {
		s := make([]twShip, n)
		for i := range s {
			s[i] = fullShip(i)
		}
		return s
	}
	for _, c := range []struct {
		base         twArena
		packet, want string
	}{
		// Changed 1; Frame unchanged 0; Ships changed 1: resized 1, 6 (0110)
		// at 4..7, no element listed among the base's none (the end marker
		// int_relative(-1, 0): 1 at bit 8); the 6 new ships from bit 9, 7
		// bits left.
		{twArena{}, "6d 01", "field Ships at bit 9: 6 elements need at least 546 bits, 7 remain"},
		// From 6 ships to 12, the first 6 unchanged: 12 (0011) at 4..7, the
		// end marker int_relative(-1, 6) (d = 7: 001, then 0 in 5 bits) at
		// 8..15; 6 new ships from bit 16, no bit left.
		{twArena{Ships: ships(6)}, "cd 04", "field Ships at bit 16: 6 elements need at least 546 bits, 0 remain"},
	} {
		want := "bitpack: decode bitpack_test.twArena: " + c.want
		p := mustHex(t, strings.ReplaceAll(c.packet, " ", ""))
		clone := func() twArena { return twArena{Frame: c.base.Frame, Ships: append([]twShip(nil), c.base.Ships...)} }
		codec, err := bitpack.NewCodec[twArena]()
		if err != nil {
			t.Fatal(err)
		}
		for name, decode := range map[string]func() error{
			"into a zero value":      func() error { b, v := clone(), twArena{}; return bitpack.UnmarshalDelta(p, &b, &v) },
			"into 12 ships":          func() error { b, v := clone(), twArena{Ships: ships(12)}; return bitpack.UnmarshalDelta(p, &b, &v) },
			"into the base":          func() error { b := clone(); return bitpack.UnmarshalDelta(p, &b, &b) },
			"Codec, into the base":   func() error { b := clone(); return codec.UnmarshalDelta(p, &b, &b) },
			"Codec, into zero value": func() error { b, v := clone(), twArena{}; return codec.UnmarshalDelta(p, &b, &v) },
		} {
			if err := decode(); err == nil || err.Error() != want {
				t.Errorf("%s, % x against %d ships:\n got %v\nwant %s", name, p, len(c.base.Ships), err, want)
			}
		}
	}
}

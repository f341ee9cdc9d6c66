package bitpack_test

import (
	"regexp"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// Truncated deltas: one refusal whatever the delta decodes into (a zero
// value, a full one, the base itself) and whether the type is decoded on
// its own or as a struct's field (the same items, so the same bytes), in
// one of the rule's words when the packet runs out.

// truncWords are the words of a refusal for a packet that ends too soon
// (docs/wire.md, "Truncated packets").
var truncWords = regexp.MustCompile(`^(needs \d+ bits?, \d+ remain|needs \d+ bytes, \d+ remain|1 (element|entry) needs at least \d+ bits, \d+ remain|\d+ (elements|entries) need at least \d+ bits, \d+ remain)$`)

// deltaTruncations cuts the delta of each neighbouring pair of samples
// (both ways, and each against itself nudged by nudge) at every length,
// and compares the refusals of every target.
func deltaTruncations[T any](t *testing.T, samples []any, full func() T, nudge func(*T)) {
	t.Helper()
	quantized := func(v T) T {
		p, err := bitpack.Marshal(&v)
		if err != nil {
			t.Fatal(err)
		}
		var q T
		if err := bitpack.Unmarshal(p, &q); err != nil {
			t.Fatal(err)
		}
		return q
	}
	var pairs [][2]T
	for i := range samples {
		a := quantized(samples[i].(T))
		b := quantized(samples[i].(T))
		nudge(&b)
		pairs = append(pairs, [2]T{a, quantized(b)})
		if i+1 < len(samples) {
			c := quantized(samples[i+1].(T))
			pairs = append(pairs, [2]T{a, c}, [2]T{c, a})
		}
	}
	targets := []struct {
		name   string
		prefix string
		decode func(base T, p []byte) error
	}{
		{"into a zero value", "", func(base T, p []byte) error { var v T; return bitpack.UnmarshalDelta(p, &base, &v) }},
		{"into a full value", "", func(base T, p []byte) error { v := full(); return bitpack.UnmarshalDelta(p, &base, &v) }},
		{"into the base", "", func(base T, p []byte) error { return bitpack.UnmarshalDelta(p, &base, &base) }},
		{"as a field, into a zero value", "X", func(base T, p []byte) error {
			b, v := twField[T]{X: base}, twField[T]{}
			return bitpack.UnmarshalDelta(p, &b, &v)
		}},
		{"as a field, into the base", "X", func(base T, p []byte) error {
			b := twField[T]{X: base}
			return bitpack.UnmarshalDelta(p, &b, &b)
		}},
	}
	failures := 0
	for i, pair := range pairs {
		d, err := bitpack.AppendDelta(nil, &pair[0], &pair[1])
		if err != nil {
			t.Fatalf("pair %d: %v", i, err)
		}
		for _, n := range truncLengths(len(d)) {
			p := d[:n:n]
			var first truncRefusal
			for k, target := range targets {
				// Each decode gets its own copy of the base: one into the
				// base itself may not change it, but must not be trusted to.
				got, err := refusalOf(target.decode(quantized(pair[0]), p), target.prefix)
				switch {
				case err != nil:
				case k == 0:
					first = got
					continue
				case got == first:
					continue
				}
				if failures++; failures <= 8 {
					t.Errorf("pair %d cut to %d bytes (% x), %s: %v (%v); into a zero value: %v", i, n, p[:min(n, 48)], target.name, got, err, first)
				}
			}
			if first.detail != "" && !truncWords.MatchString(first.detail) && !regexp.MustCompile(`values? .*would take the decode past`).MatchString(first.detail) {
				t.Errorf("pair %d cut to %d bytes: %v is not worded as docs/wire.md says", i, n, first)
			}
		}
	}
}

func TestDeltaTruncationWordedOnce(t *testing.T) {
	c := truncCorpus(t)
	byName := map[string][]any{}
	for _, k := range c {
		byName[k.name] = k.samples
	}
	deltaTruncations(t, byName["Arena"], func() twArena { return twArena{Frame: 3, Ships: make([]twShip, 12)} },
		func(v *twArena) {
			if len(v.Ships) > 0 {
				v.Ships[0].Hull = (v.Ships[0].Hull + 3) % 1000
			}
			v.Ships = append(v.Ships, twShip{Ammo: []uint16{1, 2}})[:min(len(v.Ships)+1, 12)]
		})
	deltaTruncations(t, byName["Stack"], func() twStack { return twStack{IDs: make([]uint32, 8)} },
		func(v *twStack) { v.HP = (v.HP + 5) % 1000; v.IDs = append(v.IDs, 7)[:min(len(v.IDs)+1, 8)] })
	deltaTruncations(t, byName["Flat"], func() twFlat { return twFlat{A: 3} },
		func(v *twFlat) { v.A, v.E = (v.A+2)%1000, v.E/2 })
	deltaTruncations(t, byName["Gate"], func() twGate { return twGate{P: &twVec{}, Q: &twVec{}} },
		func(v *twGate) { v.R[1]++; v.P = nil })
	deltaTruncations(t, byName["Text"], func() twText { return twText{B: make([]byte, 3), T: []string{"a"}} },
		func(v *twText) { v.S, v.F[0] = "x", v.F[0]+1 })
	deltaTruncations(t, byName["Sparse"], func() twSparse { return twSparse{L: make([]*twUnit, 3)} },
		func(v *twSparse) { v.S[2] = &twUnit{HP: 9}; v.L = append(v.L, nil)[:min(len(v.L)+1, 9)] })
	deltaTruncations(t, byName["Maps"], func() twMaps { return twMaps{M: map[uint16]twVec{2: {}}} },
		func(v *twMaps) {
			if v.N == nil {
				v.N = map[string]uint32{}
			}
			if len(v.N) < 4 {
				v.N["new"] = 5
			}
			v.A++
		})
	deltaTruncations(t, byName["Nest"], func() twNest { return twNest{Rows: [][]uint8{{1}, {}, {3, 3}}} },
		func(v *twNest) { v.Big[39]++; v.Rows = append(v.Rows, []uint8{1, 2, 3})[:min(len(v.Rows)+1, 4)] })
	deltaTruncations(t, byName["Unions"], func() twUnions { return twUnions{First: twMove{}, Rest: []twMsg{&twFire{}}} },
		func(v *twUnions) { v.First = &twFire{Power: 77, Label: "abc"} })
}

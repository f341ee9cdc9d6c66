package bitpacktest

import (
	"reflect"
	"strings"
	"testing"
)

// The delta properties on a type with every tag kind and on a recursive
// one: 300 and 1000 values with BITPACK_FULL=1, a third and a fifth
// without, and a fifth with -short (the race step and CI's emulated 32-bit
// step).
func TestCheckDeltaAllKinds(t *testing.T) {
	CheckDelta[allKinds](t, Custom[nibble](nibbleGen()), Count(sweep(300, 60, 100)))
}

func TestCheckDeltaTree(t *testing.T) {
	CheckDelta[tree](t, Depth(5), Count(sweep(1000, 200, 200)))
}

// TestCheckDeltaFindsMisdecode: a hook that decodes 13 as 12 breaks the
// delta properties that decode and compare with the encoding (the rebuild
// property compares with q(v), which the same hook decodes).
func TestCheckDeltaFindsMisdecode(t *testing.T) {
	typ := reflect.TypeFor[sloppyPacket]()
	rep, err := runDelta(typ, newConfig(typ, []Option{sloppyGen(), Seed(42)}))
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]propReport{}
	for _, p := range rep.failed() {
		failed[p.name] = p
	}
	if p, ok := failed["AppendDelta accepts every pair of valid values"]; ok {
		t.Errorf("the encoder is fine, but: %s", rep.message(p))
	}
	for _, name := range []string{"the delta re-encodes to itself against the same base", "AppendDelta(q(base), q(v)) == AppendDelta(base, v)"} {
		p, ok := failed[name]
		if !ok {
			t.Errorf("property %q passed; the hook misdecodes 13", name)
			continue
		}
		msg := rep.message(p)
		t.Log(msg)
		for _, s := range []string{"bitpacktest: delta of bitpacktest.sloppyPacket", "falsified", "bitpacktest.Seed(42)", "sloppy{v:13}"} {
			if !strings.Contains(msg, s) {
				t.Errorf("%q: message lacks %q:\n%s", name, s, msg)
			}
		}
	}
}

// TestDeltaMix: the mixed pairs lie between base and v: over many seeds,
// a struct of eight fields takes some of them from v, rarely none or all.
func TestDeltaMix(t *testing.T) {
	type eight struct{ A, B, C, D, E, F, G, H uint8 }
	typ := reflect.TypeFor[eight]()
	m, err := compileModel(typ, newConfig(typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	c := &deltaChecker{m: m}
	base := reflect.ValueOf(eight{1, 1, 1, 1, 1, 1, 1, 1})
	v := reflect.ValueOf(eight{2, 2, 2, 2, 2, 2, 2, 2})
	between := 0
	for seed := int64(0); seed < 200; seed++ {
		x := c.mix(base, v, seed).Interface().(eight)
		n := 0
		for _, f := range []uint8{x.A, x.B, x.C, x.D, x.E, x.F, x.G, x.H} {
			if f == 2 {
				n++
			} else if f != 1 {
				t.Fatalf("seed %d: mix made %+v, fields neither base's nor v's", seed, x)
			}
		}
		if n > 0 && n < 8 {
			between++
		}
	}
	if between < 150 {
		t.Fatalf("only %d of 200 mixes lie strictly between base and v", between)
	}
}

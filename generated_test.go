package bitpack_test

import (
	"bytes"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"

	"github.com/bitpack-go/bitpack/gen"
)

// The gameplay message, the reference packet and the string-heavy record
// (record_test.go) under names of their own, whose Codecs run the Go code
// gen.Go generated for them (generated_types_test.go), while gameplayMsg's,
// BenchPacket's and stringRecord's run the plan: the benchmarks set the
// two side by side.
type (
	gameplayGen gameplayMsg
	packetGen   BenchPacket
	recordGen   stringRecord
)

var updateGenerated = flag.Bool("update-generated", false, "rewrite generated_types_test.go")

const generatedFile = "generated_types_test.go"

// TestGeneratedCurrent regenerates generated_types_test.go and compares
// (go test -run TestGeneratedCurrent -update-generated . rewrites it).
func TestGeneratedCurrent(t *testing.T) {
	var out bytes.Buffer
	if err := gen.Go(&out, gen.Options{}, &gameplayGen{}, &packetGen{}, &recordGen{}); err != nil {
		t.Fatal(err)
	}
	if *updateGenerated {
		if err := os.WriteFile(generatedFile, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(generatedFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, out.Bytes()) {
		t.Errorf("%s is not what gen.Go writes now: go test -run TestGeneratedCurrent -update-generated .", generatedFile)
	}
}

// goDecodeCheck decodes p with the generated function and the plan, each
// into a copy of prior, and fails t when they differ: in verdict, in the
// value, or (refused) in leaving the target as it was.
func goDecodeCheck[T any](t *testing.T, what string, gen func([]byte, *T) bool, p []byte, prior func() T) {
	t.Helper()
	g, b, before := prior(), prior(), prior()
	ok := gen(p, &g)
	err := bitpack.Unmarshal(p, &b)
	switch {
	case ok != (err == nil):
		t.Fatalf("%s (% x): generated accepts: %v, the plan: %v", what, p, ok, err)
	case !ok && !reflect.DeepEqual(g, before):
		t.Fatalf("%s: a refused packet changed the target:\n%+v\n%+v", what, g, before)
	case ok && !reflect.DeepEqual(g, b):
		t.Fatalf("%s: values differ:\ngenerated %+v\nplan      %+v", what, g, b)
	}
}

// TestGeneratedAgrees holds the generated code of the benchmark messages
// to the plan: every variant's bytes, every refused value, and every
// truncation, bit flip and appended byte of each packet, decoded into the
// zero value and into a decoded sample whose pointees and slices a decode
// reuses.
func TestGeneratedAgrees(t *testing.T) {
	variants := map[string]func(*gameplayMsg){
		"all groups": func(*gameplayMsg) {},
		"no weapon":  func(m *gameplayMsg) { m.Weapon = nil },
		"no groups":  func(m *gameplayMsg) { m.Weapon, m.Anim, m.Vehicle, m.Stats = nil, nil, nil, nil },
		"no events":  func(m *gameplayMsg) { m.Events = nil; m.Name = "" },
		"full":       func(m *gameplayMsg) { m.Events = make([]uint32, 16); m.Name = "abcdefghijklmnopqrstuvw" },
		"identity":   func(m *gameplayMsg) { m.Rot = Quat{} },
		"tick":       func(m *gameplayMsg) { m.Tick = 1 << 24 },
		"stance":     func(m *gameplayMsg) { m.Stance = 6 },
		"flags":      func(m *gameplayMsg) { m.Flags = 64 },
		"pos":        func(m *gameplayMsg) { m.Pos.Y = 3000.5 },
		"pos edge":   func(m *gameplayMsg) { m.Pos.Y = 3000 },
		"vel NaN":    func(m *gameplayMsg) { m.Vel.X = float32(math.NaN()) },
		"rot":        func(m *gameplayMsg) { m.Rot = Quat{X: 0.5, W: 0.5} },
		"name":       func(m *gameplayMsg) { m.Name = "bad\x00name" },
		"utf8":       func(m *gameplayMsg) { m.Name = "bad\xffname" },
		"heat":       func(m *gameplayMsg) { m.Weapon.Heat = -0.01 },
		"mode":       func(m *gameplayMsg) { m.Weapon.Mode = 3 },
		"steer":      func(m *gameplayMsg) { m.Vehicle.Steer = 1.6 },
		"health":     func(m *gameplayMsg) { m.Stats.Health = -101 },
		"score":      func(m *gameplayMsg) { m.Stats.Score = 100001 },
		"events":     func(m *gameplayMsg) { m.Events = make([]uint32, 17) },
		"long name":  func(m *gameplayMsg) { m.Name = "abcdefghijklmnopqrstuvwx" },
	}
	sample := gameplaySample()
	samplePacket, err := bitpack.Marshal(&sample)
	if err != nil {
		t.Fatal(err)
	}
	priors := map[string]func() gameplayGen{
		"zero":   func() gameplayGen { return gameplayGen{} },
		"sample": func() (v gameplayGen) { mustUnmarshal(t, samplePacket, &v); return v },
	}
	decoded := 0
	for name, change := range variants {
		m := gameplaySample()
		change(&m)
		mg := gameplayGen(m)
		want, err := bitpack.Append([]byte{1}, &mg)
		got, ok := bitpackAppendgameplayGen([]byte{1}, &mg)
		if ok != (err == nil) || ok && !bytes.Equal(got, want) {
			t.Fatalf("%s: generated %v % x, the plan %v % x", name, ok, got, err, want)
		}
		if !ok {
			continue
		}
		p := want[1:]
		check := func(q []byte, how string) {
			for pn, prior := range priors {
				goDecodeCheck(t, name+" "+how+" into "+pn, bitpackUnmarshalgameplayGen, q, prior)
				decoded++
			}
		}
		check(p, "as written")
		for n := range len(p) {
			check(p[:n], fmt.Sprintf("cut to %d", n))
		}
		for bit := range 8 * len(p) {
			q := append([]byte(nil), p...)
			q[bit/8] ^= 1 << (bit % 8)
			check(q, fmt.Sprintf("bit %d flipped", bit))
		}
		check(append(append([]byte(nil), p...), 0), "a byte appended")
	}
	ref := packetGen(referencePacket())
	p, err := bitpack.Marshal(&ref)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := bitpackAppendpacketGen(nil, &ref); !ok || !bytes.Equal(got, p) {
		t.Fatalf("reference packet: generated %v % x, the plan % x", ok, got, p)
	}
	zero := func() packetGen { return packetGen{} }
	for bit := range 8 * len(p) {
		q := append([]byte(nil), p...)
		q[bit/8] ^= 1 << (bit % 8)
		goDecodeCheck(t, fmt.Sprintf("reference packet bit %d flipped", bit), bitpackUnmarshalpacketGen, q, zero)
	}
	for n := range len(p) {
		goDecodeCheck(t, fmt.Sprintf("reference packet cut to %d", n), bitpackUnmarshalpacketGen, p[:n], zero)
	}
	t.Logf("%d gameplay decodes compared", decoded)
}

func mustUnmarshal(t *testing.T, p []byte, v any) {
	t.Helper()
	if err := bitpack.Unmarshal(p, v); err != nil {
		t.Fatal(err)
	}
}

// TestGeneratedCodec: a Codec of a type with generated code runs it
// (allocating nothing but Marshal's result), and answers what the generated code refuses with
// the plan's own error.
func TestGeneratedCodec(t *testing.T) {
	c, err := bitpack.NewCodec[gameplayGen]()
	if err != nil {
		t.Fatal(err)
	}
	m := gameplayGen(gameplaySample())
	p, err := c.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 256)
	var back gameplayGen
	if err := c.Unmarshal(p, &back); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		buf, _ = c.Append(buf[:0], &m)
		if err := c.Unmarshal(p, &back); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Append and Unmarshal allocate %v times", n)
	}
	if plan, err := bitpack.Marshal(&m); err != nil || !bytes.Equal(p, plan) {
		t.Fatalf("Codec.Marshal % x, the plan % x (%v)", p, plan, err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if _, err := c.Marshal(&m); err != nil {
			t.Fatal(err)
		}
	}); n != 1 {
		t.Errorf("Marshal allocates %v times, want 1 (the result)", n)
	}
	bad := append([]byte(nil), p...)
	bad[4] |= 0x70 // the stance: 7
	err = c.Unmarshal(bad, &back)
	const want = "bitpack: decode bitpack_test.gameplayGen: field Stance at bit 36: value 7 out of range [0, 5]"
	if err == nil || err.Error() != want {
		t.Errorf("Unmarshal of a damaged packet: %v, want %s", err, want)
	}
	m.Weapon.Mode = 3
	_, err = c.Append(nil, &m)
	const wantEnc = "bitpack: encode bitpack_test.gameplayGen: field Weapon.Mode: value 3 out of range [0, 2]"
	if err == nil || err.Error() != wantEnc {
		t.Errorf("Append of a bad value: %v, want %s", err, wantEnc)
	}
	if _, err = c.Marshal(&m); err == nil || err.Error() != wantEnc {
		t.Errorf("Marshal of a bad value: %v, want %s", err, wantEnc)
	}
}

type (
	registerProbe struct {
		A uint8 `bits:"range=0..9"`
	}
	staleProbe struct {
		A uint8 `bits:"range=0..9"`
	}
	staleRulesProbe struct {
		A uint8 `bits:"range=0..9"`
	}
)

// TestRulesVersionStale: code registered with the hash of the same layout
// under other wire rules (the hash of String alone, as bitpack computed it
// before it had a rules version) is stale: NewCodec refuses it.
func TestRulesVersionStale(t *testing.T) {
	l, err := bitpack.Describe(&staleRulesProbe{})
	if err != nil {
		t.Fatal(err)
	}
	h := fnv.New64a()
	h.Write([]byte(l.String()))
	old := h.Sum64()
	if old == l.Hash() {
		t.Fatalf("Hash = %#x, the hash of String alone", old)
	}
	bitpack.RegisterGenerated(bitpack.Generated[staleRulesProbe]{Layout: old,
		Append:    func(dst []byte, v *staleRulesProbe) ([]byte, bool) { return append(dst, 0xee), true },
		Unmarshal: func([]byte, *staleRulesProbe) bool { return true }})
	want := fmt.Sprintf("bitpack: the generated code for bitpack_test.staleRulesProbe was made for another layout of it, or by a bitpack with other wire rules (hash %#x, now %#x): generate it again", old, l.Hash())
	if _, err := bitpack.NewCodec[staleRulesProbe](); err == nil || err.Error() != want {
		t.Errorf("NewCodec: %v, want %s", err, want)
	}
	if p, err := bitpack.Marshal(&staleRulesProbe{A: 3}); err != nil || !bytes.Equal(p, []byte{3}) {
		t.Errorf("Marshal: % x, %v; want 03 (the plan's)", p, err)
	}
}

// TestRegisterGenerated: a Codec made before the registration uses the
// functions registered after it; code registered for another layout is
// not used, and NewCodec says why.
func TestRegisterGenerated(t *testing.T) {
	bitpack.RegisterGenerated(bitpack.Generated[staleProbe]{Layout: 1,
		Append:    func(dst []byte, v *staleProbe) ([]byte, bool) { return append(dst, 0xee), true },
		Unmarshal: func([]byte, *staleProbe) bool { return true }})
	l, err := bitpack.Describe(&staleProbe{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("bitpack: the generated code for bitpack_test.staleProbe was made for another layout of it, or by a bitpack with other wire rules (hash 0x1, now %#x): generate it again", l.Hash())
	if _, err := bitpack.NewCodec[staleProbe](); err == nil || err.Error() != want {
		t.Errorf("NewCodec after a stale registration: %v, want %s", err, want)
	}
	if p, err := bitpack.Marshal(&staleProbe{A: 3}); err != nil || !bytes.Equal(p, []byte{3}) {
		t.Errorf("Marshal after a stale registration: % x, %v", p, err)
	}

	c, err := bitpack.NewCodec[registerProbe]()
	if err != nil {
		t.Fatal(err)
	}
	if l, err = bitpack.Describe(&registerProbe{}); err != nil {
		t.Fatal(err)
	}
	appends := 0
	bitpack.RegisterGenerated(bitpack.Generated[registerProbe]{Layout: l.Hash(),
		Append:    func(dst []byte, v *registerProbe) ([]byte, bool) { appends++; return append(dst, 0xee), true },
		Unmarshal: func([]byte, *registerProbe) bool { return false }})
	out, err := c.Append(nil, &registerProbe{A: 1})
	if err != nil || !bytes.Equal(out, []byte{0xee}) || appends != 1 {
		t.Errorf("Append = % x, %v after %d calls: the registered function did not run", out, err, appends)
	}
	var v registerProbe
	if err := c.Unmarshal([]byte{0x0a}, &v); err == nil || err.Error() != "bitpack: decode bitpack_test.registerProbe: field A at bit 0: value 10 out of range [0, 9]" {
		t.Errorf("Unmarshal after the generated one refused: %v", err)
	}
	if err := c.Unmarshal([]byte{0x03}, &v); err != nil || v.A != 3 {
		t.Errorf("Unmarshal after the generated one refused a good packet: %v, %+v", err, v)
	}
}

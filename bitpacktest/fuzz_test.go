package bitpacktest

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/sweeps"
)

// FuzzAllKinds is a real fuzz target over the type with every tag kind.
func FuzzAllKinds(f *testing.F) {
	seed := allKinds{scalarKinds: scalarKinds{I16: -300, U8: 3, U32: 1010, Lvl: 1, Name: "héllo", Blob: []byte{1, 2},
		Ptr: new(uint16), Tree: &tree{Val: 5, Kids: []tree{{Val: -5}}}, Cust: nibble{9},
		Proto: protoKinds{Cmd: &groupCmd{Lead: sayCmd{"hi"}, Cmds: []command{moveCmd{DX: -8}}}, Ents: []*entity{nil, {ID: 7}}}},
		Q32: [4]float32{0, 0, 0, 1}, Q64: quatStruct{W: 1}, Q4: [4]float32{1, 0, 0, 0}}
	*seed.Ptr = 15
	nine := level(9)
	seed.Maps = mapKinds{Inv: map[uint8]uint16{0: 1, 255: 65535}, Score: map[string]int32{"ann": -100, "bö": 100},
		Flags: map[bool]vec3{false: {1, 2, 3}, true: {-4, 4, 0.5}}, Groups: map[int16][]string{-2: nil, 2: {"abcd", ""}},
		Opt: map[int64]*level{-1: nil, 1 << 40: &nine}, Slots: map[uint32][2]float32{0: {0, 1}, 3: {0.25, 0.5}},
		Tags: map[string]bool{"": true}, Clamp: map[level]int8{1: -5, 99: 5}}
	seed.QM = map[uint8]quatStruct{7: {W: 1}, 8: {X: 1}}
	// Zero quaternions marshal (as the identity).
	zeroQuats := seed
	zeroQuats.Q32, zeroQuats.Q64, zeroQuats.Q4 = [4]float32{}, quatStruct{}, [4]float32{}
	FuzzWith(f, []Option{Custom[nibble](nibbleGen())}, seed, zeroQuats)
}

// FuzzTree fuzzes a recursive type (no allocation bound applies).
func FuzzTree(f *testing.F) {
	Fuzz(f, tree{Val: 1, Left: &tree{Val: -1}, Kids: []tree{{Val: 2}, {Val: 3, Left: &tree{}}}})
}

// randomInputs returns n byte strings from a fixed seed: random lengths up
// to maxLen, random bytes, sometimes mutations of the corpus.
func randomInputs(corpus [][]byte, n, maxLen int) [][]byte {
	r := rand.New(rand.NewSource(99))
	out := make([][]byte, n)
	for i := range out {
		if len(corpus) > 0 && r.Intn(2) == 0 {
			b := append([]byte(nil), corpus[r.Intn(len(corpus))]...)
			for k := 0; k < 1+r.Intn(3) && len(b) > 0; k++ {
				b[r.Intn(len(b))] ^= byte(1 << r.Intn(8))
			}
			out[i] = b
			continue
		}
		b := make([]byte, r.Intn(maxLen+1))
		r.Read(b)
		out[i] = b
	}
	return out
}

// runFuzzBody runs fz.check over inputs and returns the failures and the
// panics it saw.
func runFuzzBody(fz *fuzzer, inputs [][]byte) (failures []error, panics []string) {
	for _, in := range inputs {
		func() {
			defer func() {
				if r := recover(); r != nil {
					panics = append(panics, fmt.Sprintf("%x: %v", in, r))
				}
			}()
			if err := fz.check(in); err != nil {
				failures = append(failures, err)
			}
		}()
	}
	return failures, panics
}

func newTestFuzzer(t *testing.T, typ reflect.Type, opts ...Option) *fuzzer {
	t.Helper()
	cfg := newConfig(typ, opts)
	cfg.zeroCustom = true
	fz, err := newFuzzer(typ, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fz
}

// TestFuzzBodyClean: bitpack passes the fuzz checks on the corpus and a few
// thousand random inputs, for a type with every kind but quaternions (see
// the root package's FuzzOrientation for those) and a recursive one.
func TestFuzzBodyClean(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[scalarKinds](), reflect.TypeFor[tree]()} {
		fz := newTestFuzzer(t, typ, Custom[nibble](nibbleGen()))
		corpus := fz.corpus(nil)
		failures, panics := runFuzzBody(fz, append(corpus, randomInputs(corpus, 3000, 200)...))
		for _, err := range failures {
			t.Errorf("%s: %v", typ, err)
		}
		for _, p := range panics {
			t.Errorf("%s: panic: %s", typ, p)
		}
	}
}

// touchy's decoder panics on 0xa0 and above (as in testdata/fuzzfail).
type touchy struct{ v uint8 }

func (t *touchy) MarshalBits(w *bitio.Writer) error {
	w.WriteBits(uint64(t.v), 8)
	return nil
}

func (t *touchy) UnmarshalBits(r *bitio.Reader) error {
	t.v = uint8(r.ReadBits(8))
	if t.v >= 0xa0 {
		panic("touchy: cannot handle 0xa0 or more")
	}
	return nil
}

type touchyPacket struct {
	Seq   uint8 `bits:"range=0..100"`
	T     touchy
	Label string `bits:"maxlen=4"`
}

// TestFuzzBodyFindsPanic: the fuzz body, run over the corpus and random
// inputs, hits the panicking decoder.
func TestFuzzBodyFindsPanic(t *testing.T) {
	fz := newTestFuzzer(t, reflect.TypeFor[touchyPacket]())
	corpus := fz.corpus(nil)
	_, panics := runFuzzBody(fz, append(corpus, randomInputs(corpus, 5000, 8)...))
	if len(panics) == 0 {
		t.Fatal("no input made the decoder panic")
	}
	if !strings.Contains(panics[0], "touchy: cannot handle 0xa0 or more") {
		t.Fatalf("unexpected panic: %s", panics[0])
	}
}

// sweep is a test's count of values: full with BITPACK_FULL=1 (as .ci/run
// sets it), else quick, so that go test ./... stays quick; with -short
// (the race step's), at most short. internal/sweeps chooses.
func sweep(full, short, quick int) int { return sweeps.Count(full, short, quick) }

// TestFuzzFindsPanic runs `go test -fuzz` on testdata/fuzzfail in a scratch
// module (so the failing input it records does not land in this
// repository) and expects the fuzz target to fail with the decoder's panic.
// It runs with BITPACK_FULL=1 alone: its fuzzing build takes a minute of
// CPU with a cold build cache (TestFuzzBodyFindsPanic checks the fuzz body
// without it).
func TestFuzzFindsPanic(t *testing.T) {
	if testing.Short() || !sweeps.Full() {
		t.Skip("builds and runs the fuzzer in a subprocess: BITPACK_FULL=1 runs it")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	// The scratch module requires what bitpack requires and replaces
	// bitpack with this checkout.
	modText := regexp.MustCompile(`(?m)^module .*$`).ReplaceAllString(string(mod), "module fuzzfail")
	modText += fmt.Sprintf("\nrequire github.com/bitpack-go/bitpack v0.0.0\n\nreplace github.com/bitpack-go/bitpack => %s\n", root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "fuzzfail", "fuzz_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(modText), "go.sum": sum, "fuzz_test.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "test", "-run", "^$", "-fuzz", "^FuzzTouchy$", "-fuzztime", "60s", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("go test -fuzz took %v", time.Since(start).Round(time.Millisecond))
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("fuzzing did not fail (err %v):\n%s", err, out)
	}
	if !strings.Contains(string(out), "touchy: cannot handle 0xa0 or more") {
		t.Fatalf("fuzzing failed, but not on the decoder's panic:\n%s", out)
	}
}

// sloppy's decoder reads 13 as 12: it accepts the packet but decodes the
// wrong value.
type sloppy struct{ v uint8 }

func (s *sloppy) MarshalBits(w *bitio.Writer) error {
	w.WriteBits(uint64(s.v), 5)
	return nil
}

func (s *sloppy) UnmarshalBits(r *bitio.Reader) error {
	s.v = uint8(r.ReadBits(5))
	if s.v == 13 {
		s.v = 12
	}
	return nil
}

type sloppyPacket struct {
	ID   uint16 `bits:"range=100..5000"`
	Name string `bits:"maxlen=8"`
	S    sloppy
	Tail []int8 `bits:"maxlen=4,range=-3..3"`
	P    *vec3
}

// TestFuzzBodyFindsMisdecode: an accepted packet that does not re-encode
// to itself fails the fuzz body.
func TestFuzzBodyFindsMisdecode(t *testing.T) {
	fz := newTestFuzzer(t, reflect.TypeFor[sloppyPacket]())
	good, err := bitpack.Marshal(&sloppyPacket{ID: 100, S: sloppy{12}})
	if err != nil {
		t.Fatal(err)
	}
	if err := fz.check(good); err != nil {
		t.Fatalf("12 round-trips, yet: %v", err)
	}
	bad, err := bitpack.Marshal(&sloppyPacket{ID: 100, S: sloppy{13}})
	if err != nil {
		t.Fatal(err)
	}
	if err := fz.check(bad); err == nil || !strings.Contains(err.Error(), "re-encodes") {
		t.Fatalf("check(%x) = %v, want a re-encoding failure", bad, err)
	}
}

// hog's decoder allocates a megabyte it was not asked for.
type hog struct{ buf []byte }

func (h *hog) MarshalBits(w *bitio.Writer) error { w.WriteBits(0, 1); return nil }

func (h *hog) UnmarshalBits(r *bitio.Reader) error {
	r.ReadBits(1)
	h.buf = make([]byte, 1<<20)
	return nil
}

type hogPacket struct {
	A uint8
	H hog
}

// TestFuzzBodyFindsAllocation: a decode that allocates past the tags'
// bound fails the fuzz body; NoAllocCheck turns the check off.
func TestFuzzBodyFindsAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are not measured under the race detector")
	}
	packet, err := bitpack.Marshal(&hogPacket{A: 1})
	if err != nil {
		t.Fatal(err)
	}
	fz := newTestFuzzer(t, reflect.TypeFor[hogPacket]())
	if err := fz.check(packet); err == nil || !strings.Contains(err.Error(), "allocated") {
		t.Fatalf("check = %v, want an allocation failure", err)
	}
	fz = newTestFuzzer(t, reflect.TypeFor[hogPacket](), NoAllocCheck())
	if err := fz.check(packet); err != nil {
		t.Fatalf("with NoAllocCheck: %v", err)
	}
}

// TestAllocBound: the bound follows the tags.
func TestAllocBound(t *testing.T) {
	type inner struct {
		S string `bits:"maxlen=10"`
		P *uint64
	}
	type outer struct {
		A  uint32
		B  []byte  `bits:"maxlen=100"`
		L  []inner `bits:"maxlen=3"`
		Ar [2]inner
	}
	fz := newTestFuzzer(t, reflect.TypeFor[outer]())
	innerSize := int64(reflect.TypeFor[inner]().Size())
	innerBound := int64(10+64) + (8 + 16)
	want := int64(100+64) + (2*3*innerSize + 64 + 3*innerBound) + 2*innerBound + allocSlack
	if fz.bound != want {
		t.Fatalf("bound = %d, want %d", fz.bound, want)
	}
	if fz := newTestFuzzer(t, reflect.TypeFor[tree]()); fz.bound >= 0 {
		t.Fatalf("recursive type has bound %d", fz.bound)
	}
}

// TestFuzzCorpus: the corpus holds the seeds, generated values and the
// edge packets, and is the same every time.
func TestFuzzCorpus(t *testing.T) {
	fz := newTestFuzzer(t, reflect.TypeFor[sloppyPacket]())
	seed, _ := bitpack.Marshal(&sloppyPacket{ID: 4000, Name: "abcdefgh", S: sloppy{3}})
	a, b := fz.corpus([][]byte{seed}), fz.corpus([][]byte{seed})
	if fmt.Sprintf("%x", a) != fmt.Sprintf("%x", b) {
		t.Fatal("the corpus differs between runs")
	}
	has := func(p []byte) bool {
		for _, c := range a {
			if string(c) == string(p) {
				return true
			}
		}
		return false
	}
	maxBytes := (fz.m.layout.MaxBits + 7) / 8
	for name, p := range map[string][]byte{
		"seed": seed, "half seed": seed[:len(seed)/2], "empty": {},
		"all ones": []byte(strings.Repeat("\xff", maxBytes)), "all zeros": make([]byte, maxBytes),
	} {
		if !has(p) {
			t.Errorf("corpus lacks the %s packet %x", name, p)
		}
	}
	if len(a) < 12 {
		t.Errorf("corpus has %d entries, want seeds + 8 generated + edges", len(a))
	}
}

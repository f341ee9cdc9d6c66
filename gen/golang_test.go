package gen

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitpacktest"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	gotable "github.com/bitpack-go/bitpack/gen/testdata/gotable"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The generated Go code of the table's fixed-shape types is
// testdata/gotable/bitpack_gen.go, for package gotable's copies of them
// (same package name, same layouts: TestGoGolden keeps it current, go
// test ./gen -run TestGoGolden -update rewrites it). These tests hold it
// to the plan: the same bytes, the same values, the same verdicts, and a
// target left untouched by a refused packet.

// goFn is a type's generated pair, called through any.
type goFn = gotable.Pair

// goRefusals are the table's types gen.Go leaves to the plan, and why.
var goRefusals = map[string]string{
	"World":     "gen: Go: gen.World field Objects: sparse arrays are not generated in Go (the plan encodes them; leave gen.World to the plan)",
	"Far":       "gen: Go: gen.Far field Slots: sparse arrays are not generated in Go (the plan encodes them; leave gen.Far to the plan)",
	"Checked":   "gen: Go: gen.Checked field Start: serialize checks are not generated in Go (the plan encodes them; leave gen.Checked to the plan)",
	"Envelope":  "gen: Go: gen.Envelope field First: unions are not generated in Go (the plan encodes them; leave gen.Envelope to the plan)",
	"Hooked":    "gen: Go: gen.Hooked field At: MarshalBits types are not generated in Go (the plan encodes them; leave gen.Hooked to the plan)",
	"HookBox":   "gen: Go: gen.HookBox field Nib: MarshalBits types are not generated in Go (the plan encodes them; leave gen.HookBox to the plan)",
	"Maps":      "gen: Go: gen.Maps field Scores: maps are not generated in Go (the plan encodes them; leave gen.Maps to the plan)",
	"Numbered":  "gen: Go: gen.Numbered field C: unions are not generated in Go (the plan encodes them; leave gen.Numbered to the plan)",
	"Named":     "gen: Go: gen.Named field ByTeam: maps are not generated in Go (the plan encodes them; leave gen.Named to the plan)",
	"TimeBoxes": "gen: Go: gen.TimeBoxes field ByKey: maps are not generated in Go (the plan encodes them; leave gen.TimeBoxes to the plan)",
}

// goTable are the table entries gen.Go generates, as package gotable's
// copies of them: it checks that gen.Go generates or refuses each of the
// table's types as goRefusals says, and that each copy has its table
// type's layout.
func goTable(t testing.TB) []tableEntry {
	copies := map[string]tableEntry{}
	for _, e := range goTableCopies() {
		copies[reflect.TypeOf(e.proto).Name()] = e
	}
	var out []tableEntry
	for _, e := range table() {
		typ := reflect.TypeOf(e.proto)
		err := Go(&bytes.Buffer{}, Options{}, e.proto)
		want, refused := goRefusals[typ.Name()]
		switch {
		case refused && (err == nil || err.Error() != want):
			t.Errorf("gen.Go(%v) = %v, want %q", typ, err, want)
		case !refused && err != nil:
			t.Errorf("gen.Go(%v): %v", typ, err)
		case !refused:
			c, ok := copies[typ.Name()]
			if !ok {
				t.Errorf("%v is generated but package gotable has no copy of it", typ)
				continue
			}
			if have, want := describe(t, c.proto), describe(t, e.proto); have != want {
				t.Errorf("gotable's %v is not the table's:\n%s\nwant\n%s", typ, have, want)
			}
			out = append(out, c)
		}
	}
	return out
}

// goTableCopies are package gotable's types, with the table's generators.
func goTableCopies() []tableEntry {
	return []tableEntry{
		{gotable.Scalars{}, bitpacktest.Gen[gotable.Scalars]()},
		{gotable.Ranges{}, bitpacktest.Gen[gotable.Ranges]()},
		{gotable.Bits{}, bitpacktest.Gen[gotable.Bits]()},
		{gotable.Floats{}, bitpacktest.Gen[gotable.Floats]()},
		{gotable.Pinned{}, bitpacktest.Gen[gotable.Pinned]()},
		{gotable.Text{}, bitpacktest.Gen[gotable.Text]()},
		{gotable.Containers{}, bitpacktest.Gen[gotable.Containers](bitpacktest.MaxElems(6))},
		{gotable.Embeds{}, bitpacktest.Gen[gotable.Embeds]()},
		{gotable.Deep{}, bitpacktest.Gen[gotable.Deep]()},
		{gotable.Rotations{}, bitpacktest.Gen[gotable.Rotations]()},
		{gotable.Units{}, bitpacktest.Gen[gotable.Units]()},
		{gotable.QuatProbe{}, bitpacktest.Gen[gotable.QuatProbe]()},
		{gotable.Stamps{}, stampsGen(true).Map(func(v Stamps) gotable.Stamps { return gotable.Stamps(v) })},
		{gotable.Epochs{}, epochsGen(true).Map(func(v Epochs) gotable.Epochs { return gotable.Epochs(v) })},
	}
}

// describe is the layout of proto's type, in words.
func describe(t testing.TB, proto any) string {
	l, err := bitpack.Describe(proto)
	if err != nil {
		t.Fatal(err)
	}
	return l.String()
}

const goTableFile = "testdata/gotable/bitpack_gen.go"

// TestGoGolden regenerates testdata/gotable/bitpack_gen.go and compares.
func TestGoGolden(t *testing.T) {
	var out bytes.Buffer
	if err := Go(&out, Options{Package: "gen"}, gotable.Protos()...); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(goTableFile, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(goTableFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, out.Bytes()) {
		t.Errorf("%s is not what gen.Go writes now: go test ./gen -run TestGoGolden -update", goTableFile)
	}
	if len(goTable(t)) != len(gotable.Protos()) {
		t.Errorf("gen.Go generates %d of the table's types, package gotable holds %d", len(goTable(t)), len(gotable.Protos()))
	}
}

var goCmp = []cmp.Option{cmpopts.EquateNaNs(), cmp.Exporter(func(reflect.Type) bool { return true })}

// goDecodeAgrees decodes p with the generated function and with the plan,
// each into its own copy of prior (a packet the plan accepts, or nil for
// the zero value), and reports how they differ.
func goDecodeAgrees(typ reflect.Type, fn goFn, p, prior []byte) string {
	fresh := func() reflect.Value {
		if prior == nil {
			return reflect.New(typ)
		}
		return decodeFresh(typ, prior)
	}
	g, b, before := fresh(), fresh(), fresh()
	ok := fn.Unmarshal(p, g.Interface())
	err := bitpack.Unmarshal(p, b.Interface())
	switch {
	case ok != (err == nil):
		return fmt.Sprintf("generated accepts: %v, the plan: %v", ok, err)
	case !ok:
		if d := diffBits(before.Interface(), g.Interface(), goCmp...); d != "" {
			return "a refused packet changed the target (-before +after):\n" + d
		}
	default:
		if d := diffBits(b.Interface(), g.Interface(), goCmp...); d != "" {
			return "values differ (-plan +generated):\n" + d
		}
	}
	return ""
}

// goEncodeAgrees appends v with the generated function and the plan after
// the same prefix.
func goEncodeAgrees(fn goFn, v any) string {
	prefix := []byte{0xa5}
	g, ok := fn.Append(prefix, v)
	b, err := bitpack.Append(prefix, v)
	switch {
	case ok != (err == nil):
		return fmt.Sprintf("generated writes: %v, the plan: %v", ok, err)
	case ok && !bytes.Equal(g, b):
		return fmt.Sprintf("generated % x, the plan % x", g, b)
	case !ok && !bytes.Equal(g, prefix):
		return fmt.Sprintf("a refused value returned % x", g)
	}
	return ""
}

// TestGoAgrees runs both on the table's samples, the packets of each
// damaged in every way the corpus damages them (into the zero value and
// into another sample, whose slices, strings and pointees a decode
// reuses), and the samples spoiled field by field: 24 samples of each
// type with BITPACK_FULL=1, 8 without.
func TestGoAgrees(t *testing.T) {
	m, err := model.Build(protosOf(goTable(t)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(19))
	for k, e := range goTable(t) {
		typ := reflect.TypeOf(e.proto)
		fn := gotable.Generated[typ]
		samples := e.sample(int64(k)+1, sweep(24, 8))
		switch typ {
		case reflect.TypeFor[gotable.Text]():
			samples = append(samples, converted(specialTexts(), typ)...)
		case reflect.TypeFor[gotable.Scalars]():
			samples = append(samples, converted(specialFloats(), typ)...)
		}
		var packets [][]byte
		for _, s := range samples {
			rv := reflect.New(typ)
			rv.Elem().Set(reflect.ValueOf(s))
			if msg := goEncodeAgrees(fn, rv.Interface()); msg != "" {
				t.Fatalf("%v sample %+v: %s", typ, s, msg)
			}
			packets = append(packets, mustMarshal(rv.Interface()))
		}
		checks := 0
		for i, p := range packets {
			prior := packets[(i+1)%len(packets)]
			try := func(q []byte, how string) {
				checks++
				for _, pr := range [][]byte{nil, prior} {
					if msg := goDecodeAgrees(typ, fn, q, pr); msg != "" {
						t.Fatalf("%v packet %d %s (% x): %s", typ, i, how, q, msg)
					}
				}
			}
			try(p, "as written")
			if i < sweep(6, 2) {
				(&corpus{}).damaged(p, rng, try)
			}
			for j := 0; j < sweep(40, 10); j++ {
				q := make([]byte, rng.Intn(len(p)+2))
				rng.Read(q)
				try(q, "random")
			}
		}
		spoiled := 0
		root := m.Roots[k]
		for j := 0; j < sweep(4, 2); j++ {
			for target := 0; ; target++ {
				rv := reflect.New(typ).Elem()
				rv.Set(reflect.ValueOf(samples[j]))
				s := &spoiler{target: target}
				s.structFields(root, nil, rv)
				if !s.done {
					break
				}
				spoiled++
				if msg := goEncodeAgrees(fn, rv.Addr().Interface()); msg != "" {
					t.Fatalf("%v sample %d with %s: %s", typ, j, s.what, msg)
				}
			}
		}
		t.Logf("%v: %d samples, %d packets decoded, %d spoiled values", typ, len(samples), checks, spoiled)
	}
}

// converted are values converted to typ (a copy of theirs).
func converted(values []any, typ reflect.Type) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = reflect.ValueOf(v).Convert(typ).Interface()
	}
	return out
}

func protosOf(entries []tableEntry) []any {
	var out []any
	for _, e := range entries {
		out = append(out, e.proto)
	}
	return out
}

// FuzzGo holds the generated decoders to the plan's on any packet: the
// first byte picks the type, the rest is the packet; an accepted packet is
// re-encoded by both too.
func FuzzGo(f *testing.F) {
	entries := goTable(f)
	for k, e := range entries {
		for _, s := range e.sample(int64(k)+7, 3) {
			rv := reflect.New(reflect.TypeOf(e.proto))
			rv.Elem().Set(reflect.ValueOf(s))
			f.Add(append([]byte{byte(k)}, mustMarshal(rv.Interface())...))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		typ := reflect.TypeOf(entries[int(in[0])%len(entries)].proto)
		fn, p := gotable.Generated[typ], in[1:]
		if msg := goDecodeAgrees(typ, fn, p, nil); msg != "" {
			t.Fatalf("%v packet % x: %s", typ, p, msg)
		}
		v := reflect.New(typ)
		if bitpack.Unmarshal(p, v.Interface()) == nil {
			if msg := goEncodeAgrees(fn, v.Interface()); msg != "" {
				t.Fatalf("%v re-encoding % x: %s", typ, p, msg)
			}
		}
	})
}

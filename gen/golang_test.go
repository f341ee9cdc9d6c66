package gen

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The generated Go code of the table's fixed-shape types is
// golang_table_gen_test.go (TestGoGolden keeps it current; go test ./gen
// -update rewrites it). These tests hold it to the plan: the same bytes,
// the same values, the same verdicts, and a target left untouched by a
// refused packet.

// goFn is a type's generated pair, called through any.
type goFn struct {
	append    func(dst []byte, v any) ([]byte, bool)
	unmarshal func(data []byte, v any) bool
}

func goPair[T any](a func([]byte, *T) ([]byte, bool), u func([]byte, *T) bool) goFn {
	return goFn{
		append:    func(dst []byte, v any) ([]byte, bool) { return a(dst, v.(*T)) },
		unmarshal: func(data []byte, v any) bool { return u(data, v.(*T)) },
	}
}

// goGenerated are the generated functions of golang_table_gen_test.go.
var goGenerated = map[reflect.Type]goFn{
	reflect.TypeFor[Scalars]():    goPair(bitpackAppendScalars, bitpackUnmarshalScalars),
	reflect.TypeFor[Ranges]():     goPair(bitpackAppendRanges, bitpackUnmarshalRanges),
	reflect.TypeFor[Bits]():       goPair(bitpackAppendBits, bitpackUnmarshalBits),
	reflect.TypeFor[Floats]():     goPair(bitpackAppendFloats, bitpackUnmarshalFloats),
	reflect.TypeFor[Pinned]():     goPair(bitpackAppendPinned, bitpackUnmarshalPinned),
	reflect.TypeFor[Text]():       goPair(bitpackAppendText, bitpackUnmarshalText),
	reflect.TypeFor[Containers](): goPair(bitpackAppendContainers, bitpackUnmarshalContainers),
	reflect.TypeFor[Embeds]():     goPair(bitpackAppendEmbeds, bitpackUnmarshalEmbeds),
	reflect.TypeFor[Deep]():       goPair(bitpackAppendDeep, bitpackUnmarshalDeep),
	reflect.TypeFor[Rotations]():  goPair(bitpackAppendRotations, bitpackUnmarshalRotations),
	reflect.TypeFor[Units]():      goPair(bitpackAppendUnits, bitpackUnmarshalUnits),
	reflect.TypeFor[QuatProbe]():  goPair(bitpackAppendQuatProbe, bitpackUnmarshalQuatProbe),
}

// goRefusals are the table's types gen.Go leaves to the plan, and why.
var goRefusals = map[string]string{
	"World":    "gen: Go: gen.World field Objects: sparse arrays are not generated in Go (the plan encodes them; leave gen.World to the plan)",
	"Far":      "gen: Go: gen.Far field Slots: sparse arrays are not generated in Go (the plan encodes them; leave gen.Far to the plan)",
	"Checked":  "gen: Go: gen.Checked field Start: serialize checks are not generated in Go (the plan encodes them; leave gen.Checked to the plan)",
	"Envelope": "gen: Go: gen.Envelope field First: unions are not generated in Go (the plan encodes them; leave gen.Envelope to the plan)",
	"Hooked":   "gen: Go: gen.Hooked field At: MarshalBits types are not generated in Go (the plan encodes them; leave gen.Hooked to the plan)",
	"Maps":     "gen: Go: gen.Maps field Scores: maps are not generated in Go (the plan encodes them; leave gen.Maps to the plan)",
	"Numbered": "gen: Go: gen.Numbered field C: unions are not generated in Go (the plan encodes them; leave gen.Numbered to the plan)",
}

// goTable are the table entries gen.Go generates.
func goTable(t testing.TB) []tableEntry {
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
			if _, ok := goGenerated[typ]; !ok {
				t.Errorf("%v is generated but not in goGenerated", typ)
			}
			out = append(out, e)
		}
	}
	return out
}

var goTableFile = "golang_table_gen_test.go"

// TestGoGolden regenerates golang_table_gen_test.go and compares.
func TestGoGolden(t *testing.T) {
	var protos []any
	for _, e := range goTable(t) {
		protos = append(protos, e.proto)
	}
	var out bytes.Buffer
	if err := Go(&out, Options{}, protos...); err != nil {
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
	ok := fn.unmarshal(p, g.Interface())
	err := bitpack.Unmarshal(p, b.Interface())
	switch {
	case ok != (err == nil):
		return fmt.Sprintf("generated accepts: %v, the plan: %v", ok, err)
	case !ok:
		if d := cmp.Diff(before.Interface(), g.Interface(), goCmp...); d != "" {
			return "a refused packet changed the target (-before +after):\n" + d
		}
	default:
		if d := cmp.Diff(b.Interface(), g.Interface(), goCmp...); d != "" {
			return "values differ (-plan +generated):\n" + d
		}
	}
	return ""
}

// goEncodeAgrees appends v with the generated function and the plan after
// the same prefix.
func goEncodeAgrees(fn goFn, v any) string {
	prefix := []byte{0xa5}
	g, ok := fn.append(prefix, v)
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
// reuses), and the samples spoiled field by field.
func TestGoAgrees(t *testing.T) {
	m, err := model.Build(protosOf(goTable(t)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(19))
	for k, e := range goTable(t) {
		typ := reflect.TypeOf(e.proto)
		fn := goGenerated[typ]
		samples := e.sample(int64(k)+1, 24)
		if typ == reflect.TypeFor[Text]() {
			samples = append(samples, specialTexts()...)
		}
		if typ == reflect.TypeFor[Scalars]() {
			samples = append(samples, specialFloats()...)
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
			if i < 6 {
				(&corpus{}).damaged(p, rng, try)
			}
			for j := 0; j < 40; j++ {
				q := make([]byte, rng.Intn(len(p)+2))
				rng.Read(q)
				try(q, "random")
			}
		}
		spoiled := 0
		root := m.Roots[k]
		for j := 0; j < 4; j++ {
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
		fn, p := goGenerated[typ], in[1:]
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

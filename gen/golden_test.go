package gen

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
)

var update = flag.Bool("update", false, "rewrite the golden generated files in testdata/golden")

// goldenCases are the generated files pinned in testdata/golden, read by
// eye when they change: the README's player (a Vec3 under a float tag, a
// string), a union envelope, in a namespace, and a loadout (a quaternion,
// a map, a duration in units, a clamped integer, a union numbered with
// At), in each language; the table's Named (enums, and durations
// counted in units) and Stamps (time.Time fields, counted in units since
// 1970).
var goldenCases = []struct {
	file   string
	gen    func(io.Writer, Options, ...any) error
	opts   Options
	values []any
}{
	{"player.h", CPP, Options{}, []any{&Player{}}},
	{"envelope.h", CPP, Options{Namespace: "game::net", Include: "serialize/serialize.h"}, []any{(*Envelope)(nil)}},
	{"player.cs", CSharp, Options{}, []any{&Player{}}},
	{"envelope.cs", CSharp, Options{Namespace: "Game.Net"}, []any{(*Envelope)(nil)}},
	{"player.ts", TypeScript, Options{}, []any{&Player{}}},
	{"envelope.ts", TypeScript, Options{}, []any{(*Envelope)(nil)}},
	{"loadout.h", CPP, Options{Namespace: "game"}, []any{&Loadout{}}},
	{"loadout.cs", CSharp, Options{Namespace: "Game.Loadout"}, []any{&Loadout{}}},
	{"loadout.ts", TypeScript, Options{}, []any{&Loadout{}}},
	{"named.ts", TypeScript, Options{Enums: tableEnums}, []any{&Named{}}},
	{"named.cs", CSharp, Options{Namespace: "Game.Named", Enums: tableEnums}, []any{&Named{}}},
	{"named.h", CPP, Options{Namespace: "game::named", Enums: tableEnums}, []any{&Named{}}},
	{"named.rs", Rust, Options{Enums: tableEnums}, []any{&Named{}}},
	{"player.rs", Rust, Options{}, []any{&Player{}}},
	{"envelope.rs", Rust, Options{}, []any{(*Envelope)(nil)}},
	{"loadout.rs", Rust, Options{}, []any{&Loadout{}}},
	{"stamps.h", CPP, Options{Namespace: "game::stamps"}, []any{&Stamps{}}},
	{"stamps.cs", CSharp, Options{Namespace: "Game.Stamps"}, []any{&Stamps{}}},
	{"stamps.ts", TypeScript, Options{}, []any{&Stamps{}}},
	{"stamps.rs", Rust, Options{}, []any{&Stamps{}}},
}

// Loadout is the golden files' type of the kinds that came after the
// first generators.
type Loadout struct {
	Rot     QuatXYZW         `bits:"quat,bits=9"`
	Ammo    map[uint8]uint16 `bits:"maxlen=4,range=0..999"`
	Respawn time.Duration    `bits:"unit=1ms,range=0..10000"`
	Ping    int16            `bits:"range=0..500,clamp"`
	Next    Cmd
}

// TestGolden compares the generated files with the pinned ones (go test
// ./gen -update rewrites them), and checks that generating again gives the
// same bytes.
func TestGolden(t *testing.T) {
	for _, gc := range goldenCases {
		var out, again bytes.Buffer
		if err := gc.gen(&out, gc.opts, gc.values...); err != nil {
			t.Fatal(err)
		}
		if err := gc.gen(&again, gc.opts, gc.values...); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), again.Bytes()) {
			t.Errorf("%s: generating twice gave different bytes", gc.file)
		}
		path := filepath.Join("testdata", "golden", gc.file)
		if *update {
			if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./gen -update writes it)", err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s differs from the generated file; review the change and run go test ./gen -update\n%s", path, firstDiff(string(want), out.String()))
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  pinned:    %s\n  generated: %s", i+1, x, y)
		}
	}
	return ""
}

// TestCPPGoldenCompiles compiles the golden headers against the test
// implementation of serialize, each Serialize (and each root's
// SerializeDelta) instantiated for reading and writing, with the warnings
// the generated code must pass.
func TestCPPGoldenCompiles(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	gxx := requireCompiler(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "serialize"), 0o755); err != nil {
		t.Fatal(err)
	}
	min, err := os.ReadFile(filepath.Join("testdata", "minserialize.h"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"minserialize.h", "serialize.h", filepath.Join("serialize", "serialize.h")} {
		if err := os.WriteFile(filepath.Join(dir, p), min, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := `#include "golden/player.h"
#include "golden/envelope.h"
#include "golden/loadout.h"
#include "golden/named.h"
#include "golden/stamps.h"
#define BOTH(T) template bool T::Serialize<serialize::ReadStream>( serialize::ReadStream & ); \
	template bool T::Serialize<serialize::WriteStream>( serialize::WriteStream & );
BOTH(Player) BOTH(Vec3) BOTH(game::net::Envelope) BOTH(game::net::Msg) BOTH(game::net::One) BOTH(game::Loadout) BOTH(game::Cmd) BOTH(game::named::Named) BOTH(game::stamps::Stamps)
#define DELTA(T) template bool T::SerializeDelta<serialize::ReadStream>( serialize::ReadStream &, const T & ); \
	template bool T::SerializeDelta<serialize::WriteStream>( serialize::WriteStream &, const T & );
DELTA(Player) DELTA(game::net::Envelope) DELTA(game::Loadout) DELTA(game::named::Named) DELTA(game::stamps::Stamps)
static_assert( Player_fingerprint == %#08xu, "Player's fingerprint" );
static_assert( game::net::Envelope_fingerprint == %#08xu, "Envelope's fingerprint" );
`
	fpPlayer, _ := bitpack.Fingerprint(&Player{})
	fpEnvelope, _ := bitpack.Fingerprint(&Envelope{})
	cpp := filepath.Join(dir, "golden.cpp")
	if err := os.WriteFile(cpp, []byte(fmt.Sprintf(src, fpPlayer, fpEnvelope)), 0o644); err != nil {
		t.Fatal(err)
	}
	golden, _ := filepath.Abs("testdata")
	out, err := exec.Command(gxx, "-std=c++11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
		"-I", dir, "-I", golden, cpp).CombinedOutput()
	if err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
}

// Mixed holds two Vec3 types of different packages, a field named like
// the generated member function, and an anonymous struct.
type Mixed struct {
	Here      Vec3
	There     world.Vec3
	Serialize uint8
	Stats     struct{ Kills, Deaths uint16 }
}

type (
	loopy    struct{ Next *loopy }
	viaMsg   struct{ M Msg }
	loopyMap struct {
		M map[uint8]loopyMap `bits:"maxlen=2"`
	}
)

func TestCPPNames(t *testing.T) {
	var out bytes.Buffer
	if err := CPP(&out, Options{}, Mixed{}); err != nil {
		t.Fatal(err)
	}
	h := out.String()
	for _, want := range []string{
		"struct gen_Vec3\n", "struct world_Vec3\n", "struct Mixed_Stats\n",
		"    gen_Vec3 Here;", "    world_Vec3 There;", "    uint8_t Serialize_;", "    Mixed_Stats Stats;",
		"serialize_bits( stream, Serialize_, 8 );",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("generated header lacks %q", want)
		}
	}
}

func TestCPPErrors(t *testing.T) {
	for _, tc := range []struct {
		opts   Options
		values []any
		want   string
	}{
		{Options{}, nil, "gen: no types given"},
		{Options{}, []any{42}, "gen: argument 0 is int, not a struct or a pointer to one"},
		{Options{}, []any{nil}, "gen: argument 0 is <nil>, not a struct or a pointer to one"},
		{Options{}, []any{loopy{}}, "gen: gen.loopy contains itself (through a pointer, slice, map or union): recursive types have no fixed-size form in the generated code, which stores everything inline"},
		{Options{Namespace: "game::"}, []any{Player{}}, `gen: Namespace "game::": "" is not a C++ identifier bitpack can use`},
		{Options{Namespace: "class"}, []any{Player{}}, `gen: Namespace "class": "class" is not a C++ identifier bitpack can use`},
		{Options{Include: "a\"b.h"}, []any{Player{}}, `gen: Include "a\"b.h": a file name cannot hold quotes or newlines`},
		{Options{}, []any{struct{ S string }{}}, `gen: bitpack: type struct { S string } field S: string needs a maxlen tag of its own, e.g. bits:"maxlen=32"`},
		{Options{}, []any{&loopyMap{}}, "gen: gen.loopyMap contains itself (through a pointer, slice, map or union): recursive types have no fixed-size form in the generated code, which stores everything inline"},
	} {
		var out bytes.Buffer
		err := CPP(&out, tc.opts, tc.values...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("CPP(%v, %v) = %v, want %q", tc.opts, tc.values, err, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("CPP(%v, %v) wrote %d bytes with an error", tc.opts, tc.values, out.Len())
		}
	}
	var out bytes.Buffer
	if err := CPP(&out, Options{}, viaMsg{}); err != nil {
		t.Errorf("a union whose members do not hold it: %v", err)
	}
}

package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitpacktest"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
)

// The README's union, as it declares it.
type Move struct {
	DX, DY int8 `bits:"range=-8..7"`
}
type Fire struct {
	Power uint8 `bits:"range=0..3"`
}
type Chat struct {
	Text string `bits:"maxlen=31"`
}

type Msg interface{ isMsg() }

func (Move) isMsg()  {}
func (*Fire) isMsg() {}
func (Chat) isMsg()  {}

type Envelope struct {
	Seq  uint16 `bits:"range=0..1023"`
	Msgs []Msg  `bits:"maxlen=4"` // count, then a type index and a member each
}

var messages, _ = bitpack.NewUnion(bitpack.IndexBits(4), Move{}, &Fire{}, Chat{})

func init() {
	if err := bitpack.RegisterUnion[Msg](messages); err != nil {
		panic(err)
	}
}

// normalize collapses runs of white space, so that prose and code compare
// whatever their line breaks and indentation.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// mustSay fails unless the README says text, white space aside.
func mustSay(t *testing.T, doc, text string) {
	t.Helper()
	if !strings.Contains(normalize(doc), normalize(text)) {
		t.Errorf("the README does not say:\n%s", text)
	}
}

// TestReadmeDeclarations: the types these tests use are the README's, as
// it writes them (white space aside).
func TestReadmeDeclarations(t *testing.T) {
	doc := readme(t)
	want := map[string]bool{"Vec3": true, "Quat": true, "Player": true, "Team": true, "Entity": true, "World": true,
		"Move": true, "Fire": true, "Chat": true, "Msg": true, "Envelope": true, "messages": true}
	fset := token.NewFileSet()
	for _, name := range []string{"readme_test.go", "claims_test.go"} {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || len(g.Specs) == 0 {
				continue
			}
			var id string
			switch s := g.Specs[0].(type) {
			case *ast.TypeSpec:
				id = s.Name.Name
			case *ast.ValueSpec:
				id = s.Names[0].Name
				if id == "Red" {
					id = "Team"
				}
			}
			if !want[id] {
				continue
			}
			mustSay(t, doc, string(src[fset.Position(g.Pos()).Offset:fset.Position(g.End()).Offset]))
		}
	}
}

// TestReadmeEntity: the enum's layout and the one bad entity's error.
func TestReadmeEntity(t *testing.T) {
	doc := readme(t)
	l, err := bitpack.Describe(&Entity{})
	if err != nil {
		t.Fatal(err)
	}
	mustQuote(t, doc, "```\n"+l.String()+"```")
	if !strings.Contains(l.String(), "main.Team") {
		t.Errorf("Describe does not name the enum's type:\n%s", l)
	}

	var w World
	w.Entities[250] = &Entity{ID: 250, Health: 250}
	_, err = bitpack.Marshal(&w)
	if err == nil {
		t.Fatal("the bad entity was accepted")
	}
	mustQuote(t, doc, "```\n"+err.Error()+"\n```")
}

// TestReadmeAllocations measures the allocations the README's Performance
// section states, beyond what the root package's TestZeroAllocs pins.
func TestReadmeAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates; the plain test run checks this")
	}
	doc := readme(t)
	allocs := func(name string, want float64, fn func()) {
		t.Helper()
		if got := testing.AllocsPerRun(100, fn); got != want {
			t.Errorf("%s: %v allocations, the README says %v", name, got, want)
		}
	}

	// The Codec block: nothing, but for a Name that changed.
	codec, err := bitpack.NewCodec[Player]()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 1200)
	p := Player{Health: 100, Rot: Quat{W: 1}, Name: "bo"}
	var q Player
	allocs("Codec.Append", 0, func() { buf, _ = codec.Append(buf[:0], &p) })
	allocs("Codec.Unmarshal", 0, func() { _ = codec.Unmarshal(buf, &q) })
	other, _ := codec.Marshal(&Player{Rot: Quat{W: 1}, Name: "ann"})
	i := 0
	allocs("Codec.Unmarshal, the name changing", 1, func() {
		if i++; i%2 == 0 {
			_ = codec.Unmarshal(buf, &q)
		} else {
			_ = codec.Unmarshal(other, &q)
		}
	})
	mustSay(t, doc, "no allocation, but for a Name that changed")
	mustSay(t, doc, "the strings that differ from the ones the target holds are made in one allocation per value")

	// The world snapshot's decode into a reused value: the same packet
	// again, then two ticks in turn (the same players armed: no pointee
	// to make).
	wld := world.New(1000, 1)
	sc, err := bitpack.NewCodec[world.Snapshot]()
	if err != nil {
		t.Fatal(err)
	}
	var snaps [][]byte
	var snap, got world.Snapshot
	for range 2 {
		wld.Step()
		wld.Snapshot(&snap)
		b, err := sc.Marshal(&snap)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, b)
		if err := sc.Unmarshal(b, &got); err != nil { // sizes got's slices
			t.Fatal(err)
		}
	}
	allocs("world snapshot Codec.Unmarshal, the same packet", 0, func() { _ = sc.Unmarshal(snaps[0], &got) })
	i = 0
	allocs("world snapshot Codec.Unmarshal, two ticks in turn", 0, func() { _ = sc.Unmarshal(snaps[i%2], &got); i++ })
	mustSay(t, doc, "`internal/readmecheck`: its decode")

	// Unions.
	f := any(&Fire{Power: 2})
	m := any(Move{DX: -1, DY: 2})
	allocs("Union.Append of a pointer member", 0, func() { buf, _ = messages.Append(buf[:0], f) })
	allocs("Union.Append of a value member", 1, func() { buf, _ = messages.Append(buf[:0], m) })
	env := Envelope{Msgs: []Msg{Move{DX: -1, DY: 2}}}
	allocs("Append of a struct holding a value member", 2, func() { buf, _ = bitpack.Append(buf[:0], &env) })
	var back Envelope
	allocs("Unmarshal of a struct holding a value member", 1, func() { _ = bitpack.Unmarshal(buf, &back) })
	env = Envelope{Msgs: []Msg{&Fire{Power: 2}}}
	allocs("Append of a struct holding a pointer member", 0, func() { buf, _ = bitpack.Append(buf[:0], &env) })
	packet, _ := messages.Marshal(f)
	allocs("Union.Unmarshal", 1, func() { _, _ = messages.Unmarshal(packet) })
	mustSay(t, doc, "a member registered as a pointer (`&Fire{}`) encodes without allocating; one registered as a value costs 1 allocation per `Union.Append`, 2 per `Append` of a struct holding it in an interface field, and 1 per `Unmarshal` of such a struct; `Union.Unmarshal` allocates the member it returns.")
}

// TestPlayerRoundTrip is the README's property test, run on the README's
// Player; its fuzz seeds must marshal (the zero Player too: its zero
// quaternion encodes as the identity).
func TestPlayerRoundTrip(t *testing.T) { bitpacktest.CheckRoundTrip[Player](t) }

func TestReadmeFuzzSeeds(t *testing.T) {
	doc := readme(t)
	mustSay(t, doc, "func TestPlayerRoundTrip(t *testing.T) { bitpacktest.CheckRoundTrip[Player](t) }")
	mustSay(t, doc, `bitpacktest.Fuzz(f, Player{Health: 100, Name: "ann"}, Player{})`)
	mustSay(t, doc, "go test -run '^$' -fuzz=FuzzPackets -fuzztime=60s -fuzzminimizetime=1000x ./yourpkg")
	for _, p := range []Player{{Health: 100, Name: "ann"}, {}} {
		if _, err := bitpack.Marshal(&p); err != nil {
			t.Errorf("seed %+v: %v", p, err)
		}
	}
}

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// The README's types, exactly.
type Vec3 struct{ X, Y, Z float32 }

type Quat struct{ X, Y, Z, W float32 }

type Player struct {
	Health int32  `bits:"range=0..1000"`                     // 10 bits
	Pos    Vec3   `bits:"float,min=-1024,max=1024,res=0.01"` // 3 × 18 bits
	Rot    Quat   `bits:"quat,bits=9"`                       // 29 bits
	Name   string `bits:"maxlen=15"`                         // 4 bits + align + bytes
	Alive  bool   // 1 bit
}

type Snapshot struct {
	Players []Player `bits:"maxlen=8"`
}

// The README's enum and entity, also checked to be there as written
// (TestReadmeDeclarations).
type Team uint8

const (
	Red Team = iota
	Blue
	Spectator
)

type Entity struct {
	ID     uint16 `bits:"range=0..1023"`
	Team   Team   `bits:"range=0..3"` // three teams today, room for a fourth
	Health int32  `bits:"range=0..200"`
	Rot    Quat   `bits:"quat,bits=9"`
}

type World struct {
	Tick     uint32
	Entities [256]*Entity `bits:"sparse"`
}

type Bad struct {
	Pos Vec3 `bits:"float,min=10,max=-10,res=0.01"`
}

type Stats struct {
	Kills uint8 `bits:"range=0..300"`
}

type Pkt struct {
	A float32 `bits:"float,min=0,max=100000,res=0.01"`
}

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mustQuote fails unless the README contains text verbatim.
func mustQuote(t *testing.T, doc, text string) {
	t.Helper()
	if !strings.Contains(doc, text) {
		t.Errorf("README does not say what bitpack prints:\n%s", text)
	}
}

func player(name string) Player {
	return Player{Health: 731, Pos: Vec3{102.4, -55.3, 12.75}, Rot: Quat{0, 0, 0, 1}, Name: name, Alive: true}
}

func TestReadmeSizes(t *testing.T) {
	doc := readme(t)
	p := player("ada")
	data, err := bitpack.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 17 {
		t.Fatalf("the README's player is %d bytes", len(data))
	}
	mustQuote(t, doc, "data, err := bitpack.Marshal(&p) // 17 bytes for this player named \"ada\"")
}

func TestReadmeLayout(t *testing.T) {
	l, err := bitpack.Describe(&Player{})
	if err != nil {
		t.Fatal(err)
	}
	mustQuote(t, readme(t), "```\n"+l.String()+"```")
}

func TestReadmeTagErrors(t *testing.T) {
	doc := readme(t)
	for _, v := range []any{&Bad{}, &Stats{}, &Pkt{}} {
		_, err := bitpack.Describe(v)
		var te *bitpack.TagError
		if !errors.As(err, &te) {
			t.Fatalf("%T: %v", v, err)
		}
		mustQuote(t, doc, err.Error())
	}
}

// setBits overwrites n bits of data at bit offset at with v (LSB first).
func setBits(data []byte, at, n int, v uint64) {
	for i := 0; i < n; i++ {
		bit := at + i
		data[bit/8] &^= 1 << (bit % 8)
		data[bit/8] |= byte(v>>i&1) << (bit % 8)
	}
}

func TestReadmeDataErrors(t *testing.T) {
	doc := readme(t)
	var msgs []string
	p := player("ada")
	p.Health = 1013
	_, err := bitpack.Marshal(&p)
	msgs = append(msgs, err.Error())
	p = player("this name is far too long for it")
	_, err = bitpack.Marshal(&p)
	msgs = append(msgs, err.Error())

	snap := Snapshot{Players: []Player{player("ann"), player("bo"), player("cy"), player("dee")}}
	good, err := bitpack.Marshal(&snap)
	if err != nil {
		t.Fatal(err)
	}
	// Players[1].Health: after the 4-bit length and Players[0].
	w := bitio.NewWriter(nil)
	w.WriteBits(4, 4)
	if err := bitpack.Encode(w, &snap.Players[0]); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	setBits(bad, w.BitsWritten(), 10, 1001)
	var v Snapshot
	msgs = append(msgs, bitpack.Unmarshal(bad, &v).Error())
	msgs = append(msgs, bitpack.Unmarshal(good[:len(good)-2], &v).Error())
	msgs = append(msgs, bitpack.Unmarshal(append(bytes.Clone(good), 0), &v).Error())
	if v.Players != nil {
		t.Fatal("failed decodes changed the value")
	}
	mustQuote(t, doc, "```\n"+strings.Join(msgs, "\n")+"\n```")
}

// TestReadmeExampleTable runs the example program as the README says
// (go run ./examples/gamestate) and checks the table the README quotes:
// every quoted row starts a row of the program's output (the timing
// columns that follow vary by machine).
func TestReadmeExampleTable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the example program")
	}
	doc := readme(t)
	a := strings.Index(doc, "```\nbitpack gamestate: ")
	if a < 0 {
		t.Fatal("the README has no example table")
	}
	table := doc[a+4 : a+4+strings.Index(doc[a+4:], "```")]
	cmd := exec.Command("go", "run", "./examples/gamestate")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run ./examples/gamestate: %v\n%s", err, out)
	}
	lines := strings.Split(string(out), "\n")
	for _, row := range strings.Split(strings.TrimSpace(table), "\n") {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(strings.TrimRight(l, " "), row) || strings.HasPrefix(l, row)
		}
		if !found {
			t.Errorf("the example no longer prints the README's row\n%s\noutput:\n%s", row, out)
		}
	}
}

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
)

var smallRun = []string{"-objects", "60", "-ticks", "20", "-seed", "3"}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(smallRun, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"60 objects (6 players, 54 grunts), 20 ticks",
		"Each snapshot carries the 6 players and the living grunts (dead ones are left out): 53.9 on average, 53 to 54.",
		"Round trip: all 20 snapshots decoded and checked.",
		"format", "bytes/snap", "kbit/s@20Hz", "@30Hz", "@60Hz", "enc µs", "dec µs",
		"\nbitpack ", "\nraw fixed-width binary ", "\nencoding/gob (stream)¹ ", "\nencoding/gob (packet)² ", "\nencoding/json ",
		"world.Player: 138–146 bits",
		"world.Grunt: 63 bits",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestRunDeterministic: two runs with the same flags print the same text,
// apart from the timing columns of the table.
func TestRunDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := run(smallRun, &a); err != nil {
		t.Fatal(err)
	}
	if err := run(smallRun, &b); err != nil {
		t.Fatal(err)
	}
	la, lb := untimed(a.String()), untimed(b.String())
	if la != lb {
		t.Errorf("outputs differ:\n%s\n---\n%s", la, lb)
	}
}

// untimed cuts the table rows after the @60Hz column.
func untimed(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, "×") { // the table header and rows
			r := []rune(l)
			lines[i] = string(r[:min(len(r), timingColumn())])
		}
	}
	return strings.Join(lines, "\n")
}

// timingColumn is the rune offset where the timing columns begin: the end
// of the @60Hz column.
func timingColumn() int {
	var b bytes.Buffer
	printTable(&b, []*format{{name: "x"}}, 1)
	header, _, _ := strings.Cut(b.String(), "\n")
	i := strings.Index(header, "@60Hz") + len("@60Hz")
	return len([]rune(header[:i]))
}

func TestRunRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-objects", "0"},
		{"-objects", "100000"},
		{"-ticks", "0"},
		{"-nosuchflag"},
		{"extra"},
	} {
		var out bytes.Buffer
		if err := run(args, &out); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

// TestCheckerCatchesDamage makes sure the bitpack round-trip check is not
// vacuous: a decoded snapshot with one value changed must fail it.
func TestCheckerCatchesDamage(t *testing.T) {
	codec, err := bitpack.NewCodec[world.Snapshot]()
	if err != nil {
		t.Fatal(err)
	}
	w := world.New(100, 1)
	w.Step()
	var orig world.Snapshot
	w.Snapshot(&orig)
	packet, err := codec.Marshal(&orig)
	if err != nil {
		t.Fatal(err)
	}
	for name, damage := range map[string]func(s *world.Snapshot){
		"nothing":        func(s *world.Snapshot) {},
		"health":         func(s *world.Snapshot) { s.Players[3].Health ^= 1 },
		"grunt id":       func(s *world.Snapshot) { s.Grunts[7].ID ^= 1 },
		"weapon dropped": func(s *world.Snapshot) { s.Players[0].Weapon, s.Players[1].Weapon = nil, nil },
		"position":       func(s *world.Snapshot) { s.Players[2].Pos.Y += 0.01 },
		"grunt position": func(s *world.Snapshot) { s.Grunts[5].Pos.X += 0.1 },
		"rotation": func(s *world.Snapshot) {
			s.Players[4].Rot.W, s.Players[4].Rot.X = s.Players[4].Rot.X, s.Players[4].Rot.W
		},
		"one grunt less": func(s *world.Snapshot) { s.Grunts = s.Grunts[:len(s.Grunts)-1] },
	} {
		chk, err := newBitpackChecker(codec)
		if err != nil {
			t.Fatal(err)
		}
		var got world.Snapshot
		if err := codec.Unmarshal(packet, &got); err != nil {
			t.Fatal(err)
		}
		damage(&got)
		err = chk.check(&orig, &got, packet)
		if (err == nil) != (name == "nothing") {
			t.Errorf("%s: check returned %v", name, err)
		}
	}

	// A correct decode of a packet that is not the canonical encoding must
	// fail the re-encoding comparison: flip the last bit of Tick, which the
	// decoded value then disagrees with only through the bytes.
	chk, _ := newBitpackChecker(codec)
	var got world.Snapshot
	if err := codec.Unmarshal(packet, &got); err != nil {
		t.Fatal(err)
	}
	other := bytes.Clone(packet)
	other[3] ^= 0x80
	if err := chk.check(&orig, &got, other); err == nil || !strings.Contains(err.Error(), "re-encoding") {
		t.Errorf("tampered packet: check returned %v", err)
	}
}

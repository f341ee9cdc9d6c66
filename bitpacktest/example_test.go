package bitpacktest_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/bitpacktest"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// The README's Player (its zero value too: a zero Quat is the identity),
// with a Team that encodes itself.
type Vec3 struct{ X, Y, Z float32 }
type Quat struct{ X, Y, Z, W float32 }

type Player struct {
	Health int32  `bits:"range=0..1000"`
	Pos    Vec3   `bits:"float,min=-1024,max=1024,res=0.01"`
	Rot    Quat   `bits:"quat,bits=9"`
	Name   string `bits:"maxlen=15"`
	Team   Team
	Alive  bool
}

// Team encodes itself in 2 bits; only Red and Blue are valid.
type Team uint8

const (
	Red Team = iota + 1
	Blue
)

func (t *Team) MarshalBits(w *bitio.Writer) error {
	w.WriteBits(uint64(*t), 2)
	return nil
}

func (t *Team) UnmarshalBits(r *bitio.Reader) error {
	*t = Team(r.ReadBits(2))
	if *t != Red && *t != Blue {
		return fmt.Errorf("team %d: %w", *t, bitpack.ErrRange)
	}
	return nil
}

// Gen is an ordinary gopter generator: sample it with a fixed seed, or pass
// it to prop.ForAll for properties of your own.
func ExampleGen() {
	g := bitpacktest.Gen[Player](bitpacktest.Custom[Team](gen.OneConstOf(Red, Blue)))
	params := gopter.DefaultGenParameters()
	params.Rng = rand.New(rand.NewSource(1)) // the same values on every run

	minLen, maxLen := 1<<30, 0
	for i := 0; i < 100; i++ {
		v, _ := g(params).Retrieve()
		p := v.(Player)
		b, err := bitpack.Marshal(&p)
		if err != nil {
			fmt.Println("rejected:", err)
			return
		}
		minLen, maxLen = min(minLen, len(b)), max(maxLen, len(b))
	}
	l, _ := bitpack.Describe(new(Player))
	fmt.Printf("100 of 100 samples marshal, %d to %d bytes\n", minLen, maxLen)
	fmt.Printf("the layout needs at least %d bytes (Team's hooks leave the maximum open)\n", (l.MinBits+7)/8)
	// A never-initialised player marshals too: its zero Rot is the identity.
	zero := Player{Team: Red}
	b, err := bitpack.Marshal(&zero)
	var back Player
	if err == nil {
		err = bitpack.Unmarshal(b, &back)
	}
	fmt.Printf("the zero player: %d bytes, back with Rot %v, %v\n", len(b), back.Rot, err)
	// Output:
	// 100 of 100 samples marshal, 14 to 29 bytes
	// the layout needs at least 13 bytes (Team's hooks leave the maximum open)
	// the zero player: 14 bytes, back with Rot {0 0 0 1}, <nil>
}

// CheckRoundTrip needs a *testing.T, so in a test file it reads:
func ExampleCheckRoundTrip() {
	_ = func(t *testing.T) {
		bitpacktest.CheckRoundTrip[Player](t,
			bitpacktest.Custom[Team](gen.OneConstOf(Red, Blue)),
			bitpacktest.Count(5000))
	}
}

// Fuzz needs a *testing.F; a fuzz target in a test file reads:
func ExampleFuzz() {
	_ = func(f *testing.F) { // func FuzzPackets(f *testing.F)
		bitpacktest.Fuzz(f, Player{Health: 100, Name: "ann", Team: Red, Alive: true})
	}
}

// A custom type's generator can also fill the value Fuzz decodes into.
func ExampleFuzzWith() {
	_ = func(f *testing.F) {
		bitpacktest.FuzzWith(f,
			[]bitpacktest.Option{bitpacktest.Custom[Team](gen.OneConstOf(Red, Blue))},
			Player{Health: 100, Team: Blue})
	}
}

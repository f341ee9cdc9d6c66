package snapshot_test

import (
	"maps"
	"math/rand/v2"
	"slices"
)

// The test world: sparse players, a 1,000-slot sparse array of crates, a
// sparse slice of shots and an integer-keyed map of items, beside
// non-entity fields.

type Vec struct{ X, Y float32 }

type Player struct {
	Pos  Vec    `bits:"float,min=-1000,max=1000,res=0.01"`
	HP   uint8  `bits:"range=0..100"`
	Name string `bits:"maxlen=15"`
}

type Crate struct {
	Pos  Vec   `bits:"float,min=-1000,max=1000,res=0.01"`
	Kind uint8 `bits:"range=0..7"`
}

type Shot struct {
	Pos Vec   `bits:"float,min=-1000,max=1000,res=0.01"`
	Dir uint8 `bits:"range=0..63"`
}

type Item struct {
	Count uint16 `bits:"range=0..999"`
	Owner int8   `bits:"range=-1..31"`
}

type World struct {
	Tick    uint32
	Phase   uint8          `bits:"range=0..3"`
	Players [32]*Player    `bits:"sparse"`
	Crates  [1000]*Crate   `bits:"sparse"`
	Shots   []*Shot        `bits:"sparse,maxlen=64"`
	Items   map[int16]Item `bits:"maxlen=200"`
}

var worldEntities = []string{"Players", "Crates", "Shots", "Items"}

// worldSim moves a World deterministically.
type worldSim struct {
	rng *rand.Rand
	w   World
}

func newSim(seed uint64, players, crates, items int) *worldSim {
	s := &worldSim{rng: rand.New(rand.NewPCG(seed, 1))}
	for i := range players {
		s.w.Players[i] = &Player{Pos: s.pos(), HP: 100, Name: "p" + string(rune('a'+i%26))}
	}
	for range crates {
		s.w.Crates[s.rng.IntN(len(s.w.Crates))] = &Crate{Pos: s.pos(), Kind: uint8(s.rng.IntN(8))}
	}
	s.w.Items = map[int16]Item{}
	for range items {
		s.w.Items[int16(s.rng.IntN(500))] = Item{Count: uint16(s.rng.IntN(1000)), Owner: int8(s.rng.IntN(33) - 1)}
	}
	return s
}

func (s *worldSim) pos() Vec {
	return Vec{float32(s.rng.Float64()*1800 - 900), float32(s.rng.Float64()*1800 - 900)}
}

// step changes the world: moving is the chance each entity moves.
func (s *worldSim) step(moving float64) {
	w := &s.w
	w.Tick++
	for _, p := range w.Players {
		if p != nil && s.rng.Float64() < moving {
			p.Pos.X += float32(s.rng.Float64() - 0.5)
			p.Pos.Y += float32(s.rng.Float64() - 0.5)
		}
	}
	for i, c := range w.Crates {
		if c != nil && s.rng.Float64() < moving {
			c.Pos.X = min(999, max(-999, c.Pos.X+float32(s.rng.Float64()-0.5)))
		}
		if s.rng.Float64() < moving/50 {
			if c == nil {
				w.Crates[i] = &Crate{Pos: s.pos()}
			} else {
				w.Crates[i] = nil
			}
		}
	}
	if s.rng.Float64() < moving && len(w.Shots) < 64 {
		w.Shots = append(w.Shots, &Shot{Pos: s.pos(), Dir: uint8(s.rng.IntN(64))})
	}
	if len(w.Shots) > 0 && s.rng.Float64() < moving/2 {
		w.Shots[s.rng.IntN(len(w.Shots))] = nil
	}
	for _, k := range slices.Sorted(maps.Keys(w.Items)) { // in key order: the same on every run
		it := w.Items[k]
		if s.rng.Float64() < moving/4 {
			it.Count = uint16(s.rng.IntN(1000))
			w.Items[k] = it
		}
	}
	if s.rng.Float64() < moving/4 {
		w.Items[int16(s.rng.IntN(500))] = Item{Count: 1}
	}
}

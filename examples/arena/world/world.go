// Package world is the arena's game state: what the server simulates and
// streams to every browser, and what `bitpack gen -lang ts` reads to
// write the browser's client (web/net.ts).
package world

import (
	"math"
	"math/rand/v2"
)

// Size is the arena's side, in world units (a canvas pixel each).
const Size = 640

// Slots is how many entities the arena holds at most.
const Slots = 48

// Entity is one thing in the arena: a position to a quarter unit, a
// heading and a speed, a kind (which the page colours) and health.
type Entity struct {
	X       float32 `bits:"float,min=0,max=640,res=0.25,clamp"`
	Y       float32 `bits:"float,min=0,max=640,res=0.25,clamp"`
	Heading float32 `bits:"float,min=-3.1416,max=3.1416,res=0.01,clamp"`
	Speed   uint8   `bits:"range=0..8"`
	Kind    uint8   `bits:"range=0..3"`
	HP      uint8   `bits:"range=0..100"`
}

// World is the arena: its tick and its entities, each slot empty or not
// (a snapshot entity set: sent when it changes, removed when it goes).
type World struct {
	Tick     uint32
	Entities [Slots]*Entity `bits:"sparse"`
}

// Sim runs a world from a seed: the same seed, the same world, tick for
// tick.
type Sim struct {
	World World
	rng   *rand.Rand
}

// New returns a simulation with an arena two-thirds full.
func New(seed uint64) *Sim {
	s := &Sim{rng: rand.New(rand.NewPCG(seed, 0xa7e4a))}
	for i := range Slots * 2 / 3 {
		s.World.Entities[i] = s.spawn(i)
	}
	return s
}

func (s *Sim) spawn(i int) *Entity {
	return &Entity{
		X:       float32(s.rng.IntN(Size)),
		Y:       float32(s.rng.IntN(Size)),
		Heading: float32(s.rng.Float64()*6.28 - 3.14),
		Speed:   uint8(1 + s.rng.IntN(8)),
		Kind:    uint8(i % 4),
		HP:      100,
	}
}

// Step moves the world one tick: entities move and bounce off the walls,
// lose health now and then, and an entity at zero health leaves its slot,
// which a new one takes a while later.
func (s *Sim) Step() {
	w := &s.World
	w.Tick++
	for i, e := range w.Entities {
		switch {
		case e == nil:
			if s.rng.IntN(30) == 0 {
				w.Entities[i] = s.spawn(i)
			}
			continue
		case e.HP == 0:
			w.Entities[i] = nil
			continue
		}
		dx, dy := cos(e.Heading)*float32(e.Speed), sin(e.Heading)*float32(e.Speed)
		e.X, e.Y = e.X+dx, e.Y+dy
		if e.X < 0 || e.X > Size {
			e.X = min(max(e.X, 0), Size)
			e.Heading = mirror(3.1416 - e.Heading)
		}
		if e.Y < 0 || e.Y > Size {
			e.Y = min(max(e.Y, 0), Size)
			e.Heading = -e.Heading
		}
		if s.rng.IntN(6) == 0 {
			e.HP = uint8(max(int(e.HP)-s.rng.IntN(12), 0))
		}
	}
}

// mirror brings a heading back into [-π, π].
func mirror(h float32) float32 {
	for h > 3.1416 {
		h -= 2 * 3.1416
	}
	for h < -3.1416 {
		h += 2 * 3.1416
	}
	return h
}

func cos(h float32) float32 { return float32(math.Cos(float64(h))) }
func sin(h float32) float32 { return float32(math.Sin(float64(h))) }

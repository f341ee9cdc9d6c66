// Package sim is the world examples/udpsnap sends to its clients: a fixed
// table of entities of which a chosen fraction moves, the others standing
// exactly still. Moving entities walk at 2 to 6 m/s and turn as they go;
// the fraction can change between ticks (SetMoving), which picks a new set
// of movers. New(n, seed) followed by the same calls gives the same
// snapshots on every run.
//
// The snapshot has no tick in it: a world at rest has the same snapshot
// tick after tick, and its delta is one byte. (The tick travels in the
// packet's header.)
package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MaxEntities is Snapshot.Entities' maxlen.
const MaxEntities = 1024

// Vec3 is a position, Quat a unit rotation (x, y, z, w).
type (
	Vec3 struct{ X, Y, Z float32 }
	Quat struct{ X, Y, Z, W float32 }
)

// Entity is one object of the world: 93 bits.
type Entity struct {
	Pos  Vec3  `bits:"float,min=-1024,max=1024,res=0.01"` // 3 × 18 bits
	Rot  Quat  `bits:"quat,bits=9"`                       // 29 bits
	Kind uint8 `bits:"range=0..7"`                        // 3 bits
	HP   uint8 `bits:"range=0..100"`                      // 7 bits
}

// Snapshot is what the server sends each client every tick.
type Snapshot struct {
	Entities []Entity `bits:"maxlen=1024"` // 11-bit count, then the entities
}

// Scene is the world as package snapshot sends it: each entity an element
// of a sparse array, so that each is sent on its own — when it changes,
// by priority when a packet's budget binds. Its slots hold the entities
// in order; the slots past the world's size stay empty.
type Scene struct {
	Entities [MaxEntities]*Entity `bits:"sparse"` // indices of the present ones, then each
}

// defaultRate is the Step rate New assumes when given none, per second.
const defaultRate = 30

// World is the simulation. It is not safe for concurrent use.
type World struct {
	rng      *rand.Rand
	dt       float64
	ents     []entity
	movers   []int // indices of the moving entities
	fraction float64
}

type entity struct {
	x, y, z, yaw, speed, turn float64
	kind, hp                  uint8
}

// New returns a world of n entities (1..MaxEntities), none moving, for
// Step to be called rate times a second.
func New(n int, rate float64, seed uint64) *World {
	if n < 1 || n > MaxEntities {
		panic(fmt.Sprintf("sim.New: %d entities, want 1..%d", n, MaxEntities))
	}
	if !(rate > 0) {
		rate = defaultRate
	}
	w := &World{rng: rand.New(rand.NewPCG(seed, 0x73696d)), dt: 1 / rate, ents: make([]entity, n)}
	for i := range w.ents {
		e := &w.ents[i]
		e.x, e.y = (w.rng.Float64()*2-1)*900, (w.rng.Float64()*2-1)*900
		e.z = ground(e.x, e.y)
		e.yaw = w.rng.Float64() * 2 * math.Pi
		e.kind, e.hp = uint8(w.rng.IntN(8)), uint8(1+w.rng.IntN(100))
	}
	return w
}

// Len returns the number of entities.
func (w *World) Len() int { return len(w.ents) }

// SetMoving makes round(fraction × n) entities move from the next Step
// on, chosen afresh; the others stop where they are.
func (w *World) SetMoving(fraction float64) {
	w.fraction = fraction
	k := int(math.Round(fraction * float64(len(w.ents))))
	w.movers = w.rng.Perm(len(w.ents))[:k]
	for _, i := range w.movers {
		e := &w.ents[i]
		e.speed = 2 + 4*w.rng.Float64()
		e.turn = (w.rng.Float64() - 0.5) * 1.5
	}
}

// Moving returns the fraction of entities SetMoving last asked for.
func (w *World) Moving() float64 { return w.fraction }

// Step moves the moving entities by one tick.
func (w *World) Step() {
	for _, i := range w.movers {
		e := &w.ents[i]
		e.yaw = math.Mod(e.yaw+e.turn*w.dt, 2*math.Pi)
		e.x += e.speed * math.Cos(e.yaw) * w.dt
		e.y += e.speed * math.Sin(e.yaw) * w.dt
		if math.Abs(e.x) > 1000 || math.Abs(e.y) > 1000 { // turn back to the centre
			e.x, e.y = max(-1000, min(1000, e.x)), max(-1000, min(1000, e.y))
			e.yaw = math.Atan2(-e.y, -e.x)
		}
		e.z = ground(e.x, e.y)
	}
}

// Snapshot fills dst with the world as it is, reusing dst's slice.
func (w *World) Snapshot(dst *Snapshot) {
	if cap(dst.Entities) < len(w.ents) {
		dst.Entities = make([]Entity, len(w.ents))
	}
	dst.Entities = dst.Entities[:len(w.ents)]
	for i := range w.ents {
		e := &w.ents[i]
		s, c := math.Sincos(e.yaw / 2)
		dst.Entities[i] = Entity{
			Pos:  Vec3{float32(e.x), float32(e.y), float32(e.z)},
			Rot:  Quat{0, 0, float32(s), float32(c)},
			Kind: e.kind,
			HP:   e.hp,
		}
	}
}

// Scene fills dst with the world as it is, reusing dst's entities.
func (w *World) Scene(dst *Scene) {
	for i := range w.ents {
		e := &w.ents[i]
		if dst.Entities[i] == nil {
			dst.Entities[i] = new(Entity)
		}
		s, c := math.Sincos(e.yaw / 2)
		*dst.Entities[i] = Entity{
			Pos:  Vec3{float32(e.x), float32(e.y), float32(e.z)},
			Rot:  Quat{0, 0, float32(s), float32(c)},
			Kind: e.kind,
			HP:   e.hp,
		}
	}
	clear(dst.Entities[len(w.ents):])
}

// ground is the terrain height: gentle hills within ±5 m.
func ground(x, y float64) float64 { return 5 * math.Sin(x/50) * math.Cos(y/70) }

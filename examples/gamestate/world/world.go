package world

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Simulation constants. The bounds are inside the tags' bounds with a
// margin, so no produced value can fall outside them.
const (
	dt        = 1.0 / TickRate
	arena     = 1000.0 // players and grunts stay within ±arena on X and Y (tags allow ±1024)
	gravity   = 20.0   // m/s², game-like rather than 9.81
	jumpSpeed = 6.0    // m/s
	maxVel    = 30.0   // m/s, a safety clamp under the tag's ±32
	hillH     = 5.0    // terrain height amplitude, metres

	playerRespawnTicks = 3 * TickRate
	reloadTicks        = 3 * TickRate / 2
	gruntRespawnMin    = 5 * TickRate
)

// World is a deterministic simulation of players and grunts. It is not safe
// for concurrent use.
type World struct {
	tick uint32

	// Two random streams, so that the discrete state (who is alive, who is
	// armed, how many grunts a snapshot lists) depends on integer draws
	// only. Packet sizes of the fixed-width encodings therefore do not
	// depend on floating-point details of the motion, which may differ
	// between CPU architectures (fused multiply-add).
	events *rand.Rand // damage, deaths, respawns, weapons, firing
	motion *rand.Rand // steering, jumps, spawn points

	players []player
	grunts  []grunt
}

type player struct {
	x, y, z    float64
	vz         float64
	airborne   bool
	yaw, pitch float64 // radians
	yawRate    float64 // rad/s
	speed      float64 // current horizontal speed, m/s
	target     float64 // speed the player is accelerating towards

	health  uint8
	respawn int // ticks until respawn while dead
	armed   bool
	weapon  Weapon
	reload  int // ticks until a reload completes; 0 when not reloading
}

type grunt struct {
	x, y    float64
	heading float64
	health  uint8 // 0: dead, not in snapshots
	respawn int
}

// New returns a world of objects objects, a tenth of them players (rounded
// up) and the rest grunts, seeded with seed. It panics if objects is outside
// [1, MaxObjects]; callers taking the count from users check it first.
func New(objects int, seed uint64) *World {
	if objects < 1 || objects > MaxObjects {
		panic(fmt.Sprintf("world.New: %d objects, want 1..%d", objects, MaxObjects))
	}
	np := (objects + 9) / 10
	w := &World{
		events:  rand.New(rand.NewPCG(seed, 0x6576656e7473)), // "events"
		motion:  rand.New(rand.NewPCG(seed, 0x6d6f74696f6e)), // "motion"
		players: make([]player, np),
		grunts:  make([]grunt, objects-np),
	}
	for i := range w.players {
		p := &w.players[i]
		w.spawnPlayer(p)
		if w.events.IntN(2) == 0 {
			w.arm(p)
		}
	}
	for i := range w.grunts {
		g := &w.grunts[i]
		w.spawnGrunt(g)
		g.health = uint8(1 + w.events.IntN(100))
	}
	return w
}

// Counts returns the number of players and grunts (living or dead).
func (w *World) Counts() (players, grunts int) { return len(w.players), len(w.grunts) }

// Tick returns the number of steps taken.
func (w *World) Tick() uint32 { return w.tick }

// Step advances the world by one tick (1/TickRate seconds).
func (w *World) Step() {
	w.tick++
	for i := range w.players {
		w.stepPlayer(&w.players[i])
	}
	for i := range w.grunts {
		w.stepGrunt(&w.grunts[i])
	}
}

// Snapshot fills dst with the current state, reusing dst's slices and
// weapon pointers. dst shares no memory with the world.
func (w *World) Snapshot(dst *Snapshot) {
	dst.Tick = w.tick
	// Growing within capacity keeps the old elements, so their non-nil
	// Weapon pointers are reused instead of reallocated each tick.
	dst.Players = slices.Grow(dst.Players[:0], len(w.players))[:len(w.players)]
	for i := range w.players {
		p, s := &w.players[i], &dst.Players[i]
		s.ID = uint8(i)
		s.Pos = Vec3{float32(p.x), float32(p.y), float32(p.z)}
		s.Rot = orientation(p.yaw, p.pitch)
		if p.health > 0 {
			s.Vel = Vec3{float32(p.speed * math.Cos(p.yaw)), float32(p.speed * math.Sin(p.yaw)), float32(p.vz)}
		} else {
			s.Vel = Vec3{}
		}
		s.Health = p.health
		switch {
		case !p.armed:
			s.Weapon = nil
		case s.Weapon == nil:
			s.Weapon = new(Weapon)
			fallthrough
		default:
			*s.Weapon = p.weapon
		}
	}
	dst.Grunts = dst.Grunts[:0]
	for i := range w.grunts {
		g := &w.grunts[i]
		if g.health == 0 {
			continue
		}
		dst.Grunts = append(dst.Grunts, Grunt{
			ID:     uint16(i),
			Pos:    Vec3{float32(g.x), float32(g.y), float32(ground(g.x, g.y))},
			Health: g.health,
		})
	}
}

// chance reports true with probability 1/n, from the events stream.
func (w *World) chance(n int) bool { return w.events.IntN(n) == 0 }

func (w *World) spawnPlayer(p *player) {
	*p = player{
		x:      (w.motion.Float64()*2 - 1) * arena,
		y:      (w.motion.Float64()*2 - 1) * arena,
		yaw:    w.motion.Float64() * 2 * math.Pi,
		target: w.motion.Float64() * 8,
		health: 100,
	}
	p.z = ground(p.x, p.y)
}

func (w *World) arm(p *player) {
	p.armed = true
	p.weapon = Weapon{Type: WeaponType(w.events.IntN(NumWeaponTypes)), Ammo: 9, Chambered: true}
	p.reload = 0
}

func (w *World) spawnGrunt(g *grunt) {
	g.x = (w.motion.Float64()*2 - 1) * arena
	g.y = (w.motion.Float64()*2 - 1) * arena
	g.heading = w.motion.Float64() * 2 * math.Pi
	g.health = 100
}

func (w *World) stepPlayer(p *player) {
	// Discrete state first, from the events stream only.
	if p.health == 0 {
		if p.respawn--; p.respawn <= 0 {
			w.spawnPlayer(p) // respawns unarmed
		}
		return
	}
	if w.chance(120) { // hit by something
		d := 1 + w.events.IntN(40)
		if d >= int(p.health) {
			p.health, p.respawn, p.armed, p.vz, p.airborne = 0, playerRespawnTicks, false, 0, false
			return
		}
		p.health -= uint8(d)
	}
	if p.health < 100 && w.chance(30) {
		p.health++ // slow regeneration
	}
	switch {
	case !p.armed:
		if w.chance(90) {
			w.arm(p)
		}
	case p.reload > 0:
		if p.reload--; p.reload == 0 {
			p.weapon.Ammo, p.weapon.Chambered = 8, true // 9 rounds: one chambered, 8 in the clip
		}
	case w.chance(8) && p.weapon.Chambered: // pull the trigger
		p.weapon.Chambered = false
		if p.weapon.Ammo > 0 {
			p.weapon.Ammo-- // the next round moves into the chamber
			p.weapon.Chambered = true
		} else {
			p.reload = reloadTicks
		}
	case w.chance(1200):
		p.armed = false // dropped it
	}

	// Motion, from the motion stream only.
	m := w.motion
	p.yawRate = clamp(p.yawRate+(m.Float64()-0.5)*0.4, -3, 3)
	p.yaw = math.Mod(p.yaw+p.yawRate*dt, 2*math.Pi)
	p.pitch = clamp(p.pitch+(m.Float64()-0.5)*0.05, -1, 1)
	if m.IntN(120) == 0 {
		p.target = m.Float64() * 10
	}
	switch { // accelerate towards the target speed at 20 m/s²
	case p.speed < p.target:
		p.speed = min(p.speed+20*dt, p.target)
	case p.speed > p.target:
		p.speed = max(p.speed-20*dt, p.target)
	}
	p.x += p.speed * math.Cos(p.yaw) * dt
	p.y += p.speed * math.Sin(p.yaw) * dt
	if math.Abs(p.x) > arena || math.Abs(p.y) > arena { // hit the wall: turn back to the centre
		p.x, p.y = clamp(p.x, -arena, arena), clamp(p.y, -arena, arena)
		p.yaw = math.Atan2(-p.y, -p.x)
	}
	g := ground(p.x, p.y)
	if p.airborne {
		p.vz = clamp(p.vz-gravity*dt, -maxVel, maxVel)
		p.z += p.vz * dt
		if p.z <= g {
			p.z, p.vz, p.airborne = g, 0, false
		}
	} else {
		p.z = g
		if m.IntN(180) == 0 {
			p.vz, p.airborne = jumpSpeed, true
		}
	}
}

func (w *World) stepGrunt(g *grunt) {
	if g.health == 0 {
		if g.respawn--; g.respawn <= 0 {
			w.spawnGrunt(g)
		}
		return
	}
	if w.chance(600) { // shot
		d := 1 + w.events.IntN(60)
		if d >= int(g.health) {
			g.health, g.respawn = 0, gruntRespawnMin+w.events.IntN(5*TickRate)
			return
		}
		g.health -= uint8(d)
	}
	// Grunts wander at 1.5 m/s.
	g.heading += (w.motion.Float64() - 0.5) * 0.2
	g.x += 1.5 * math.Cos(g.heading) * dt
	g.y += 1.5 * math.Sin(g.heading) * dt
	if math.Abs(g.x) > arena || math.Abs(g.y) > arena {
		g.x, g.y = clamp(g.x, -arena, arena), clamp(g.y, -arena, arena)
		g.heading = math.Atan2(-g.y, -g.x)
	}
}

// ground is the terrain height: gentle hills within ±hillH metres.
func ground(x, y float64) float64 {
	return hillH * math.Sin(x/50) * math.Cos(y/70)
}

// orientation is the unit quaternion of a yaw about Z followed by a pitch
// about Y (q = q_yaw ⊗ q_pitch). It is exactly unit in float64; rounding to
// float32 keeps it unit to within an ulp, which the encoding tolerates.
func orientation(yaw, pitch float64) Quat {
	sy, cy := math.Sincos(yaw / 2)
	sp, cp := math.Sincos(pitch / 2)
	return Quat{
		X: float32(-sy * sp),
		Y: float32(cy * sp),
		Z: float32(sy * cp),
		W: float32(cy * cp),
	}
}

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }

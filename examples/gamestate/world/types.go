// Package world is a small, deterministic game world whose snapshots are
// tagged for bitpack: players, grunts and their weapons, the object classes
// of Glenn Fiedler's "Reading and Writing Packets".
//
// It exists so that the gamestate example and the benchmarks in the
// separate bench module measure exactly the same packets: New(objects,
// seed) followed by the same number of Step calls yields the same snapshots
// on every run.
//
// Every value the simulation produces satisfies the bits tags below
// (positions inside the world, unit quaternions, health and ammo inside
// their ranges), because bitpack refuses out-of-range values instead of
// silently clamping them. The tags are the protocol: changing one changes
// the wire format and the pinned sizes in the tests.
package world

// Limits of the snapshot's lists. They must match the maxlen tags of
// Snapshot and the ID ranges of Player and Grunt.
const (
	MaxPlayers = 256  // Snapshot.Players maxlen; Player.ID is 0..255
	MaxGrunts  = 2048 // Snapshot.Grunts maxlen; Grunt.ID is 0..2047
	// MaxObjects is the largest object count New accepts: a tenth of the
	// objects are players, the rest grunts, and both stay under their limits.
	MaxObjects = 2048
)

// TickRate is the simulation rate, in steps per second.
const TickRate = 60

// Vec3 is a position or a velocity. It carries no tag of its own: the
// field that holds it says how its X, Y and Z are quantized.
type Vec3 struct{ X, Y, Z float32 }

// Quat is a unit quaternion (x, y, z, w). Being a struct of exactly four
// floats, it can take a `quat` tag (smallest-three encoding).
type Quat struct{ X, Y, Z, W float32 }

// WeaponType is an enum sent as a ranged integer.
type WeaponType uint8

// Weapon types.
const (
	Pistol WeaponType = iota
	Shotgun
	Rifle
	RocketLauncher
	Railgun
	NumWeaponTypes = 5
)

// Weapon is the weapon a player holds.
type Weapon struct {
	Type      WeaponType `bits:"range=0..7"` // 3 bits: five types today, room for eight
	Ammo      uint8      `bits:"range=0..9"` // rounds in the clip: 4 bits
	Chambered bool       // a round in the chamber: 1 bit
}

// Player is a human-controlled character.
type Player struct {
	ID uint8 // slot in the server's player table: raw 8 bits cover MaxPlayers

	// The world spans [-1024, 1024] metres on each axis; a centimetre is
	// finer than any client can see: 204800 steps, 18 bits per axis.
	Pos Vec3 `bits:"float,min=-1024,max=1024,res=0.01"`
	// Smallest-three, 9 bits per component: 29 bits, under half a degree.
	Rot Quat `bits:"quat,bits=9"`
	// Players run at up to 10 m/s and jump at 6 m/s; ±32 m/s leaves room
	// for rocket jumps. 6400 steps, 13 bits per axis.
	Vel    Vec3    `bits:"float,min=-32,max=32,res=0.01"`
	Health uint8   `bits:"range=0..100"` // 0 while dead, awaiting respawn: 7 bits
	Weapon *Weapon // nil when unarmed: one presence bit, then the weapon
}

// Grunt is a computer-controlled enemy. Clients only interpolate grunts,
// so their positions travel at a coarser 10 cm: 15 bits per axis.
type Grunt struct {
	ID     uint16 `bits:"range=0..2047"` // 11 bits
	Pos    Vec3   `bits:"float,min=-1024,max=1024,res=0.1"`
	Health uint8  `bits:"range=1..100"` // dead grunts are left out of snapshots, so 0 never travels
}

// Snapshot is the state the server sends to every client each tick.
type Snapshot struct {
	Tick    uint32   // raw 32 bits: wraps after 2 years at 60 Hz
	Players []Player `bits:"maxlen=256"`  // 9-bit count, then the players
	Grunts  []Grunt  `bits:"maxlen=2048"` // 12-bit count, then the living grunts
}

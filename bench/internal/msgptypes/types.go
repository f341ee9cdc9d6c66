// Package msgptypes holds the types github.com/tinylib/msgp generates
// MessagePack code for: a copy of the reference packet and a mirror of the
// gamestate world's snapshot. msgp generates methods on types declared in
// the package it runs on, so it cannot serve bench.Packet or world.Snapshot
// directly.
//
// Packet has the same fields as bench.Packet, so a *bench.Packet converts
// to a *Packet for free. The snapshot types are mirrors that FromWorld and
// ToWorld fill by copying; the benchmarks copy once, outside the timed
// loop.
package msgptypes

//go:generate go tool msgp -file types.go -o types_gen.go -tests=false

import "github.com/bitpack-go/bitpack/examples/gamestate/world"

// Packet is bench.Packet without the bits tags.
type Packet struct {
	Sequence    uint64
	Position    [3]float32
	Orientation [4]float32
	Health      int32
	Weapon      uint32
	Ammo        [8]int32
	Firing      bool
	EventIDs    []uint32
	Payload     [64]byte
}

// Snapshot mirrors world.Snapshot.
type Snapshot struct {
	Tick    uint32
	Players []Player
	Grunts  []Grunt
}

// Vec3 mirrors world.Vec3.
type Vec3 struct{ X, Y, Z float32 }

// Quat mirrors world.Quat.
type Quat struct{ X, Y, Z, W float32 }

// Weapon mirrors world.Weapon.
type Weapon struct {
	Type      uint8
	Ammo      uint8
	Chambered bool
}

// Player mirrors world.Player.
type Player struct {
	ID     uint8
	Pos    Vec3
	Rot    Quat
	Vel    Vec3
	Health uint8
	Weapon *Weapon
}

// Grunt mirrors world.Grunt.
type Grunt struct {
	ID     uint16
	Pos    Vec3
	Health uint8
}

// FromWorld returns a copy of s in the mirror types.
func FromWorld(s *world.Snapshot) Snapshot {
	m := Snapshot{
		Tick:    s.Tick,
		Players: make([]Player, len(s.Players)),
		Grunts:  make([]Grunt, len(s.Grunts)),
	}
	for i, p := range s.Players {
		m.Players[i] = Player{ID: p.ID, Pos: Vec3(p.Pos), Rot: Quat(p.Rot), Vel: Vec3(p.Vel), Health: p.Health}
		if p.Weapon != nil {
			m.Players[i].Weapon = &Weapon{Type: uint8(p.Weapon.Type), Ammo: p.Weapon.Ammo, Chambered: p.Weapon.Chambered}
		}
	}
	for i, g := range s.Grunts {
		m.Grunts[i] = Grunt{ID: g.ID, Pos: Vec3(g.Pos), Health: g.Health}
	}
	return m
}

// ToWorld returns a copy of m in the world types.
func ToWorld(m *Snapshot) world.Snapshot {
	s := world.Snapshot{
		Tick:    m.Tick,
		Players: make([]world.Player, len(m.Players)),
		Grunts:  make([]world.Grunt, len(m.Grunts)),
	}
	for i, p := range m.Players {
		s.Players[i] = world.Player{ID: p.ID, Pos: world.Vec3(p.Pos), Rot: world.Quat(p.Rot), Vel: world.Vec3(p.Vel), Health: p.Health}
		if p.Weapon != nil {
			s.Players[i].Weapon = &world.Weapon{Type: world.WeaponType(p.Weapon.Type), Ammo: p.Weapon.Ammo, Chambered: p.Weapon.Chambered}
		}
	}
	for i, g := range m.Grunts {
		s.Grunts[i] = world.Grunt{ID: g.ID, Pos: world.Vec3(g.Pos), Health: g.Health}
	}
	return s
}

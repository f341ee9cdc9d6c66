package bench

import (
	"slices"

	"github.com/bitpack-go/bitpack/bench/proto/benchpb"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
)

// Conversions between the benchmark's Go types and the generated protobuf
// messages. A game that sends protobuf either keeps its state in generated
// messages or converts like this every tick; the benchmarks convert once,
// outside the timed loop, and time only proto.Marshal and proto.Unmarshal.

// PacketToProto returns p as a protobuf message.
func PacketToProto(p *Packet) *benchpb.Packet {
	m := &benchpb.Packet{
		Sequence:    p.Sequence,
		Position:    slices.Clone(p.Position[:]),
		Orientation: slices.Clone(p.Orientation[:]),
		Health:      uint32(p.Health),
		Weapon:      p.Weapon,
		Firing:      p.Firing,
		EventIds:    slices.Clone(p.EventIDs),
		Payload:     slices.Clone(p.Payload[:]),
	}
	for _, a := range p.Ammo {
		m.Ammo = append(m.Ammo, uint32(a))
	}
	return m
}

// PacketFromProto returns m as a Packet. Repeated fields longer than the
// packet's arrays are cut short; the caller is expected to have checked m.
func PacketFromProto(m *benchpb.Packet) Packet {
	p := Packet{
		Sequence: m.GetSequence(),
		Health:   int32(m.GetHealth()),
		Weapon:   m.GetWeapon(),
		Firing:   m.GetFiring(),
		EventIDs: slices.Clone(m.GetEventIds()),
	}
	copy(p.Position[:], m.GetPosition())
	copy(p.Orientation[:], m.GetOrientation())
	for i, a := range m.GetAmmo() {
		if i < len(p.Ammo) {
			p.Ammo[i] = int32(a)
		}
	}
	copy(p.Payload[:], m.GetPayload())
	return p
}

// SnapshotToProto returns s as a protobuf message.
func SnapshotToProto(s *world.Snapshot) *benchpb.Snapshot {
	m := &benchpb.Snapshot{
		Tick:    s.Tick,
		Players: make([]*benchpb.Player, len(s.Players)),
		Grunts:  make([]*benchpb.Grunt, len(s.Grunts)),
	}
	for i := range s.Players {
		p := &s.Players[i]
		mp := &benchpb.Player{
			Id:     uint32(p.ID),
			Pos:    vec3ToProto(p.Pos),
			Rot:    &benchpb.Quat{X: p.Rot.X, Y: p.Rot.Y, Z: p.Rot.Z, W: p.Rot.W},
			Vel:    vec3ToProto(p.Vel),
			Health: uint32(p.Health),
		}
		if w := p.Weapon; w != nil {
			mp.Weapon = &benchpb.Weapon{Type: benchpb.WeaponType(w.Type), Ammo: uint32(w.Ammo), Chambered: w.Chambered}
		}
		m.Players[i] = mp
	}
	for i := range s.Grunts {
		g := &s.Grunts[i]
		m.Grunts[i] = &benchpb.Grunt{Id: uint32(g.ID), Pos: vec3ToProto(g.Pos), Health: uint32(g.Health)}
	}
	return m
}

// SnapshotFromProto returns m as a world snapshot. Values too large for
// the snapshot's fields are truncated; the caller is expected to have
// checked m.
func SnapshotFromProto(m *benchpb.Snapshot) world.Snapshot {
	s := world.Snapshot{
		Tick:    m.GetTick(),
		Players: make([]world.Player, len(m.GetPlayers())),
		Grunts:  make([]world.Grunt, len(m.GetGrunts())),
	}
	for i, mp := range m.GetPlayers() {
		r := mp.GetRot()
		s.Players[i] = world.Player{
			ID:     uint8(mp.GetId()),
			Pos:    vec3FromProto(mp.GetPos()),
			Rot:    world.Quat{X: r.GetX(), Y: r.GetY(), Z: r.GetZ(), W: r.GetW()},
			Vel:    vec3FromProto(mp.GetVel()),
			Health: uint8(mp.GetHealth()),
		}
		if w := mp.GetWeapon(); w != nil {
			s.Players[i].Weapon = &world.Weapon{Type: world.WeaponType(w.GetType()), Ammo: uint8(w.GetAmmo()), Chambered: w.GetChambered()}
		}
	}
	for i, g := range m.GetGrunts() {
		s.Grunts[i] = world.Grunt{ID: uint16(g.GetId()), Pos: vec3FromProto(g.GetPos()), Health: uint8(g.GetHealth())}
	}
	return s
}

func vec3ToProto(v world.Vec3) *benchpb.Vec3 { return &benchpb.Vec3{X: v.X, Y: v.Y, Z: v.Z} }

func vec3FromProto(v *benchpb.Vec3) world.Vec3 {
	return world.Vec3{X: v.GetX(), Y: v.GetY(), Z: v.GetZ()}
}

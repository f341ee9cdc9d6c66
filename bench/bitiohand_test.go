package bench_test

import (
	"errors"
	"math"

	"github.com/bitpack-go/bitpack/bench"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
	"github.com/bitpack-go/bitpack/quant"
)

// The "bitio-hand" rows: the same packets written by hand against
// bitpack's own bitio and quant packages, the way a careful programmer
// would without bitpack's struct tags — parameters precomputed once, the
// checks bitpack makes (floats inside their range, unit quaternions, list
// lengths), one error check at the end and before every loop whose length
// came from the packet. They produce bitpack's bytes exactly (the tests
// check it), so they measure what the wire format itself costs; the gap
// between them and bitpack is the cost of driving it from tags. Unlike
// bitpack's Unmarshal they decode straight into the value, so a failed
// decode leaves it half-written.

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var (
	handPos      = must(quant.NewFloat(-1024, 1024, 0.01))
	handOrient   = must(quant.NewFloat(-1, 1, 0.0001))
	handVel      = must(quant.NewFloat(-32, 32, 0.01))
	handGruntPos = must(quant.NewFloat(-1024, 1024, 0.1))
	handRot      = must(quant.NewQuat(9))
)

var errHandValue = errors.New("value outside its tag")

// writeQuantized writes f, refusing what bitpack refuses: values outside
// [min, max] and NaN (bitio would clamp the one and zero the other).
func writeQuantized(w *bitio.Writer, q *quant.Float, f float32) {
	if !(f >= q.Min() && f <= q.Max()) {
		w.Fail(errHandValue)
		return
	}
	w.WriteQuantized(q, f)
}

func writeHandPacket(w *bitio.Writer, p *bench.Packet) error {
	w.WriteBits(p.Sequence, 64)
	for _, v := range p.Position {
		writeQuantized(w, &handPos, v)
	}
	for _, v := range p.Orientation {
		writeQuantized(w, &handOrient, v)
	}
	w.WriteInt(int64(p.Health), 0, 1000)
	w.WriteUint(uint64(p.Weapon), 0, 15)
	for _, a := range p.Ammo {
		w.WriteInt(int64(a), 0, 200)
	}
	w.WriteBool(p.Firing)
	if len(p.EventIDs) > bench.MaxEvents {
		return errHandValue
	}
	w.WriteUint(uint64(len(p.EventIDs)), 0, bench.MaxEvents)
	for _, id := range p.EventIDs {
		w.WriteBits(uint64(id), 32)
	}
	w.WriteBytes(p.Payload[:])
	return w.Err()
}

func readHandPacket(r *bitio.Reader, p *bench.Packet) error {
	p.Sequence = r.ReadBits(64)
	for i := range p.Position {
		p.Position[i] = r.ReadQuantized(&handPos)
	}
	for i := range p.Orientation {
		p.Orientation[i] = r.ReadQuantized(&handOrient)
	}
	p.Health = int32(r.ReadInt(0, 1000))
	p.Weapon = uint32(r.ReadUint(0, 15))
	for i := range p.Ammo {
		p.Ammo[i] = int32(r.ReadInt(0, 200))
	}
	p.Firing = r.ReadBool()
	n := int(r.ReadUint(0, bench.MaxEvents))
	if err := r.Err(); err != nil {
		return err
	}
	p.EventIDs = resize(p.EventIDs, n)
	for i := range p.EventIDs {
		p.EventIDs[i] = uint32(r.ReadBits(32))
	}
	r.ReadBytes(p.Payload[:])
	return handEnd(r)
}

// handEnd is bitpack's end-of-packet rule: only the last byte's padding
// may remain.
func handEnd(r *bitio.Reader) error {
	if err := r.Err(); err != nil {
		return err
	}
	if r.BitsRemaining() >= 8 {
		return errTrailing
	}
	return nil
}

func resize[E any](s []E, n int) []E {
	if cap(s) < n {
		return make([]E, n)
	}
	return s[:n]
}

func writeVec3(w *bitio.Writer, q *quant.Float, v world.Vec3) {
	writeQuantized(w, q, v.X)
	writeQuantized(w, q, v.Y)
	writeQuantized(w, q, v.Z)
}

func readVec3(r *bitio.Reader, q *quant.Float) world.Vec3 {
	return world.Vec3{X: r.ReadQuantized(q), Y: r.ReadQuantized(q), Z: r.ReadQuantized(q)}
}

func writeHandSnapshot(w *bitio.Writer, s *world.Snapshot) error {
	w.WriteBits(uint64(s.Tick), 32)
	if len(s.Players) > world.MaxPlayers || len(s.Grunts) > world.MaxGrunts {
		return errHandValue
	}
	w.WriteUint(uint64(len(s.Players)), 0, world.MaxPlayers)
	for i := range s.Players {
		p := &s.Players[i]
		w.WriteBits(uint64(p.ID), 8)
		writeVec3(w, &handPos, p.Pos)
		q := [4]float32{p.Rot.X, p.Rot.Y, p.Rot.Z, p.Rot.W}
		var n2 float64
		for _, c := range q {
			n2 += float64(c) * float64(c)
		}
		if math.Abs(n2-1) > 0.01 { // also NaN; bitpack's tolerance
			return errHandValue
		}
		w.WriteQuat(&handRot, q)
		writeVec3(w, &handVel, p.Vel)
		w.WriteUint(uint64(p.Health), 0, 100)
		w.WriteBool(p.Weapon != nil)
		if p.Weapon != nil {
			w.WriteUint(uint64(p.Weapon.Type), 0, 7)
			w.WriteUint(uint64(p.Weapon.Ammo), 0, 9)
			w.WriteBool(p.Weapon.Chambered)
		}
	}
	w.WriteUint(uint64(len(s.Grunts)), 0, world.MaxGrunts)
	for i := range s.Grunts {
		g := &s.Grunts[i]
		w.WriteUint(uint64(g.ID), 0, world.MaxGrunts-1)
		writeVec3(w, &handGruntPos, g.Pos)
		w.WriteUint(uint64(g.Health), 1, 100)
	}
	return w.Err()
}

func readHandSnapshot(r *bitio.Reader, s *world.Snapshot) error {
	s.Tick = uint32(r.ReadBits(32))
	n := int(r.ReadUint(0, world.MaxPlayers))
	if err := r.Err(); err != nil {
		return err
	}
	s.Players = resize(s.Players, n)
	for i := range s.Players {
		p := &s.Players[i]
		p.ID = uint8(r.ReadBits(8))
		p.Pos = readVec3(r, &handPos)
		q := r.ReadQuat(&handRot)
		if q[0]*q[0]+q[1]*q[1]+q[2]*q[2]+q[3]*q[3] > 1+1e-6 { // bitpack's hostile-quaternion check
			return errHandValue
		}
		p.Rot = world.Quat{X: q[0], Y: q[1], Z: q[2], W: q[3]}
		p.Vel = readVec3(r, &handVel)
		p.Health = uint8(r.ReadUint(0, 100))
		if !r.ReadBool() {
			p.Weapon = nil
			continue
		}
		if p.Weapon == nil {
			p.Weapon = new(world.Weapon)
		}
		p.Weapon.Type = world.WeaponType(r.ReadUint(0, 7))
		p.Weapon.Ammo = uint8(r.ReadUint(0, 9))
		p.Weapon.Chambered = r.ReadBool()
	}
	n = int(r.ReadUint(0, world.MaxGrunts))
	if err := r.Err(); err != nil {
		return err
	}
	s.Grunts = resize(s.Grunts, n)
	for i := range s.Grunts {
		g := &s.Grunts[i]
		g.ID = uint16(r.ReadUint(0, world.MaxGrunts-1))
		g.Pos = readVec3(r, &handGruntPos)
		g.Health = uint8(r.ReadUint(1, 100))
	}
	return handEnd(r)
}

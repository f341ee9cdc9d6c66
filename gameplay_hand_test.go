package bitpack_test

import (
	"errors"
	"math"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// The gameplay message (gameplay_test.go) written and read by hand against
// bitio, as bench_test.go does the reference packet: quantizers built once,
// one call per field, the checks bitpack makes (every value inside its tag,
// unit quaternions, lengths, trailing bytes), one error check at the end
// and before the loop whose length came from the packet. It reads straight
// into the value: a damaged packet leaves it half-written.

func mustQuant(q quant.Float, err error) quant.Float {
	if err != nil {
		panic(err)
	}
	return q
}

var (
	gpPos      = mustQuant(quant.NewFloat(-3000, 3000, 0.02))
	gpVel      = mustQuant(quant.NewFloat(-60, 60, 0.01))
	gpAccel    = mustQuant(quant.NewFloat(-20, 20, 0.01))
	gpAim      = mustQuant(quant.NewFloat(-90, 90, 0.05))
	gpHeat     = mustQuant(quant.NewFloat(0, 1.5, 0.01))
	gpPhase    = mustQuant(quant.NewFloat(0, 3, 0.002))
	gpBlend    = mustQuant(quant.NewFloat(0, 1.2, 0.01))
	gpSpeed    = mustQuant(quant.NewFloat(-100, 300, 0.1))
	gpSteer    = mustQuant(quant.NewFloat(-1.5, 1.5, 0.005))
	gpRot, _   = quant.NewQuat(11)
	refPos     = mustQuant(quant.NewFloat(-1024, 1024, 0.01)) // the reference packet's (TestStraightLineConstants)
	refOrient  = mustQuant(quant.NewFloat(-1, 1, 0.0001))
	errGPValue = errors.New("value outside its tag")
)

func init() {
	// What bitpack's plan does for each declaration: dequantize by a
	// multiply where that is proven exact.
	for _, q := range []*quant.Float{&gpPos, &gpVel, &gpAccel, &gpAim, &gpHeat, &gpPhase, &gpBlend, &gpSpeed, &gpSteer} {
		q.VerifyReciprocal()
	}
}

// handFloat writes f, refusing what bitpack refuses: values outside
// [min, max] and NaN (WriteQuantized would clamp the one and zero the
// other).
func handFloat(w *bitio.Writer, q *quant.Float, f float32) {
	if !(f >= q.Min() && f <= q.Max()) {
		w.Fail(errGPValue)
		return
	}
	w.WriteQuantized(q, f)
}

// handQuat writes a quaternion, refusing what bitpack refuses: a squared
// norm more than 0.01 from 1, unless all four are zero (the identity).
func handQuat(w *bitio.Writer, q Quat) {
	n := float64(q.X)*float64(q.X) + float64(q.Y)*float64(q.Y) + float64(q.Z)*float64(q.Z) + float64(q.W)*float64(q.W)
	if !(math.Abs(n-1) <= 0.01) && !(q.X == 0 && q.Y == 0 && q.Z == 0 && q.W == 0) {
		w.Fail(errGPValue)
		return
	}
	w.WriteQuat(&gpRot, [4]float32{q.X, q.Y, q.Z, q.W})
}

func handWriteGameplay(w *bitio.Writer, m *gameplayMsg) error {
	w.WriteUint(uint64(m.Tick), 0, 16777215)
	w.WriteUint(uint64(m.Entity), 0, 4095)
	w.WriteUint(uint64(m.Stance), 0, 5)
	w.WriteBits(uint64(m.Flags), 6)
	w.WriteBool(m.Grounded)
	w.WriteBool(m.Firing)
	handFloat(w, &gpPos, m.Pos.X)
	handFloat(w, &gpPos, m.Pos.Y)
	handFloat(w, &gpPos, m.Pos.Z)
	handFloat(w, &gpVel, m.Vel.X)
	handFloat(w, &gpVel, m.Vel.Y)
	handFloat(w, &gpVel, m.Vel.Z)
	handFloat(w, &gpAccel, m.Accel.X)
	handFloat(w, &gpAccel, m.Accel.Y)
	handFloat(w, &gpAccel, m.Accel.Z)
	handQuat(w, m.Rot)
	handFloat(w, &gpAim, m.Aim[0])
	handFloat(w, &gpAim, m.Aim[1])
	w.WriteString(m.Name, 23)
	w.WriteBool(m.Weapon != nil)
	if g := m.Weapon; g != nil {
		w.WriteUint(uint64(g.ID), 0, 63)
		w.WriteUint(uint64(g.Ammo), 0, 999)
		w.WriteUint(uint64(g.Clip), 0, 60)
		handFloat(w, &gpHeat, g.Heat)
		w.WriteBool(g.Reloading)
		w.WriteUint(uint64(g.Mode), 0, 2)
	}
	w.WriteBool(m.Anim != nil)
	if g := m.Anim; g != nil {
		w.WriteUint(uint64(g.Seq), 0, 511)
		handFloat(w, &gpPhase, g.Phase)
		handFloat(w, &gpBlend, g.Blend)
		w.WriteUint(uint64(g.Layer), 0, 7)
	}
	w.WriteBool(m.Vehicle != nil)
	if g := m.Vehicle; g != nil {
		w.WriteUint(uint64(g.ID), 0, 4095)
		w.WriteUint(uint64(g.Seat), 0, 7)
		handFloat(w, &gpSpeed, g.Speed)
		handFloat(w, &gpSteer, g.Steer)
		w.WriteUint(uint64(g.Throttle), 0, 255)
		w.WriteUint(uint64(g.Fuel), 0, 1000)
	}
	w.WriteBool(m.Stats != nil)
	if g := m.Stats; g != nil {
		w.WriteInt(int64(g.Health), -100, 1000)
		w.WriteUint(uint64(g.Armor), 0, 2000)
		w.WriteUint(uint64(g.Stamina), 0, 1000)
		w.WriteUint(uint64(g.Kills), 0, 999)
		w.WriteUint(uint64(g.Deaths), 0, 999)
		w.WriteInt(int64(g.Score), -100000, 100000)
		w.WriteUint(uint64(g.Ping), 0, 1023)
		w.WriteUint(uint64(g.Team), 0, 3)
	}
	w.WriteBytes(m.Inputs[:])
	bitio.WriteUints(w, m.Seen[:], 32)
	if len(m.Events) > 16 {
		return errGPValue
	}
	w.WriteUint(uint64(len(m.Events)), 0, 16)
	bitio.WriteUints(w, m.Events, 32)
	return w.Err()
}

// handReadGameplay reads a whole packet into m.
func handReadGameplay(data []byte, m *gameplayMsg) error {
	var r bitio.Reader
	r.Reset(data)
	m.Tick = uint32(r.ReadUint(0, 16777215))
	m.Entity = uint16(r.ReadUint(0, 4095))
	m.Stance = Stance(r.ReadUint(0, 5))
	m.Flags = uint8(r.ReadBits(6))
	m.Grounded = r.ReadBool()
	m.Firing = r.ReadBool()
	m.Pos.X = r.ReadQuantized(&gpPos)
	m.Pos.Y = r.ReadQuantized(&gpPos)
	m.Pos.Z = r.ReadQuantized(&gpPos)
	m.Vel.X = r.ReadQuantized(&gpVel)
	m.Vel.Y = r.ReadQuantized(&gpVel)
	m.Vel.Z = r.ReadQuantized(&gpVel)
	m.Accel.X = r.ReadQuantized(&gpAccel)
	m.Accel.Y = r.ReadQuantized(&gpAccel)
	m.Accel.Z = r.ReadQuantized(&gpAccel)
	q := r.ReadQuat(&gpRot)
	m.Rot = Quat{X: q[0], Y: q[1], Z: q[2], W: q[3]}
	m.Aim[0] = r.ReadQuantized(&gpAim)
	m.Aim[1] = r.ReadQuantized(&gpAim)
	if b := r.ReadStringBytes(23); m.Name != string(b) { // no allocation when unchanged
		m.Name = string(b)
	}
	if r.ReadBool() {
		if m.Weapon == nil {
			m.Weapon = new(gpWeapon)
		}
		g := m.Weapon
		g.ID = uint8(r.ReadUint(0, 63))
		g.Ammo = uint16(r.ReadUint(0, 999))
		g.Clip = uint8(r.ReadUint(0, 60))
		g.Heat = r.ReadQuantized(&gpHeat)
		g.Reloading = r.ReadBool()
		g.Mode = uint8(r.ReadUint(0, 2))
	} else {
		m.Weapon = nil
	}
	if r.ReadBool() {
		if m.Anim == nil {
			m.Anim = new(gpAnim)
		}
		g := m.Anim
		g.Seq = uint16(r.ReadUint(0, 511))
		g.Phase = r.ReadQuantized(&gpPhase)
		g.Blend = r.ReadQuantized(&gpBlend)
		g.Layer = uint8(r.ReadUint(0, 7))
	} else {
		m.Anim = nil
	}
	if r.ReadBool() {
		if m.Vehicle == nil {
			m.Vehicle = new(gpVehicle)
		}
		g := m.Vehicle
		g.ID = uint16(r.ReadUint(0, 4095))
		g.Seat = uint8(r.ReadUint(0, 7))
		g.Speed = r.ReadQuantized(&gpSpeed)
		g.Steer = r.ReadQuantized(&gpSteer)
		g.Throttle = uint8(r.ReadUint(0, 255))
		g.Fuel = uint16(r.ReadUint(0, 1000))
	} else {
		m.Vehicle = nil
	}
	if r.ReadBool() {
		if m.Stats == nil {
			m.Stats = new(gpStats)
		}
		g := m.Stats
		g.Health = int16(r.ReadInt(-100, 1000))
		g.Armor = uint16(r.ReadUint(0, 2000))
		g.Stamina = uint16(r.ReadUint(0, 1000))
		g.Kills = uint16(r.ReadUint(0, 999))
		g.Deaths = uint16(r.ReadUint(0, 999))
		g.Score = int32(r.ReadInt(-100000, 100000))
		g.Ping = uint16(r.ReadUint(0, 1023))
		g.Team = uint8(r.ReadUint(0, 3))
	} else {
		m.Stats = nil
	}
	r.ReadBytes(m.Inputs[:])
	bitio.ReadUints(&r, m.Seen[:], 32)
	n := int(r.ReadUint(0, 16))
	if err := r.Err(); err != nil {
		return err
	}
	if cap(m.Events) >= n { // nil stays nil
		m.Events = m.Events[:n]
	} else {
		m.Events = make([]uint32, n)
	}
	bitio.ReadUints(&r, m.Events, 32)
	if err := r.Err(); err != nil {
		return err
	}
	if r.BitsRemaining() >= 8 {
		return errTrailingHand
	}
	return nil
}

// errTrailingHand is bitpack's sentinel, so the refusal tests can compare.
var errTrailingHand = bitpack.ErrTrailing

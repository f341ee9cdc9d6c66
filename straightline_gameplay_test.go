package bitpack_test

import "github.com/bitpack-go/bitpack/bitio"

// The gameplay message as straight-line code (see straightline_test.go):
// the widths, bounds and quantizer constants below are what the tags in
// gameplay_test.go work out to (TestStraightLineConstants checks them
// against quant). straightAppendGameplay and straightReadGameplay are each
// one function of more than 110 lines on purpose: the baseline is a code
// generator's style, one function per message, and docs/performance.md's
// ratios were measured against exactly that.

// qenc quantizes f, refusing it outside [min, max] or NaN, with the pinned
// float32 arithmetic: a division by delta, a multiply by M, +0.5, floor.
// Inlined where it is called, every argument is an immediate.
func qenc(f, min, max, delta float32, m uint64) (uint64, bool) {
	if !(f >= min && f <= max) {
		return 0, false
	}
	n := float32(float32(f-min) / delta)
	return qcode(float32(float32(n*float32(m))+0.5), m), true
}

// qdec is the value of code c (at most m): code/M by the float64
// reciprocal (exact for these declarations), times delta, plus min.
func qdec(c uint64, min, delta float32, inv float64) float32 {
	return float32(float32(float32(float64(c)*inv)*delta) + min)
}

func bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func straightAppendGameplay(dst []byte, m *gameplayMsg) ([]byte, error) {
	var w bitio.Writer
	w.Reset(dst)
	if m.Tick > 16777215 || m.Entity > 4095 || m.Stance > 5 || m.Flags > 63 {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(uint64(m.Tick), 24)
	w.WriteBitsUnchecked(uint64(m.Entity), 12)
	w.WriteBitsUnchecked(uint64(m.Stance), 3)
	w.WriteBitsUnchecked(uint64(m.Flags), 6)
	w.WriteBitsUnchecked(bit(m.Grounded), 1)
	w.WriteBitsUnchecked(bit(m.Firing), 1)
	pos0, ok0 := qenc(m.Pos.X, -3000, 3000, 6000, 300000)
	pos1, ok1 := qenc(m.Pos.Y, -3000, 3000, 6000, 300000)
	pos2, ok2 := qenc(m.Pos.Z, -3000, 3000, 6000, 300000)
	if !(ok0 && ok1 && ok2) {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(pos0, 19)
	w.WriteBitsUnchecked(pos1, 19)
	w.WriteBitsUnchecked(pos2, 19)
	vel0, ok0 := qenc(m.Vel.X, -60, 60, 120, 12000)
	vel1, ok1 := qenc(m.Vel.Y, -60, 60, 120, 12000)
	vel2, ok2 := qenc(m.Vel.Z, -60, 60, 120, 12000)
	if !(ok0 && ok1 && ok2) {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(vel0, 14)
	w.WriteBitsUnchecked(vel1, 14)
	w.WriteBitsUnchecked(vel2, 14)
	accel0, ok0 := qenc(m.Accel.X, -20, 20, 40, 4000)
	accel1, ok1 := qenc(m.Accel.Y, -20, 20, 40, 4000)
	accel2, ok2 := qenc(m.Accel.Z, -20, 20, 40, 4000)
	if !(ok0 && ok1 && ok2) {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(accel0, 12)
	w.WriteBitsUnchecked(accel1, 12)
	w.WriteBitsUnchecked(accel2, 12)
	q := m.Rot
	n2 := float64(q.X)*float64(q.X) + float64(q.Y)*float64(q.Y) + float64(q.Z)*float64(q.Z) + float64(q.W)*float64(q.W)
	word, ok := gpRot.EncodeWord(q.X, q.Y, q.Z, q.W)
	if !ok || !(n2 >= 0.99 && n2 <= 1.01) && !(q.X == 0 && q.Y == 0 && q.Z == 0 && q.W == 0) {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(word, 35)
	aim0, ok0 := qenc(m.Aim[0], -90, 90, 180, 3600)
	aim1, ok1 := qenc(m.Aim[1], -90, 90, 180, 3600)
	if !(ok0 && ok1) {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(aim0, 12)
	w.WriteBitsUnchecked(aim1, 12)
	w.WriteString(m.Name, 23) // a runtime call: the length, UTF-8 and NUL checks
	if w.Err() != nil {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(bit(m.Weapon != nil), 1)
	if g := m.Weapon; g != nil {
		heat, ok := qenc(g.Heat, 0, 1.5, 1.5, 150)
		if g.ID > 63 || g.Ammo > 999 || g.Clip > 60 || !ok || g.Mode > 2 {
			return dst, errStraight
		}
		w.WriteBitsUnchecked(uint64(g.ID), 6)
		w.WriteBitsUnchecked(uint64(g.Ammo), 10)
		w.WriteBitsUnchecked(uint64(g.Clip), 6)
		w.WriteBitsUnchecked(heat, 8)
		w.WriteBitsUnchecked(bit(g.Reloading), 1)
		w.WriteBitsUnchecked(uint64(g.Mode), 2)
	}
	w.WriteBitsUnchecked(bit(m.Anim != nil), 1)
	if g := m.Anim; g != nil {
		phase, ok1 := qenc(g.Phase, 0, 3, 3, 1500)
		blend, ok2 := qenc(g.Blend, 0, 1.2, 1.2, 121)
		if g.Seq > 511 || !ok1 || !ok2 || g.Layer > 7 {
			return dst, errStraight
		}
		w.WriteBitsUnchecked(uint64(g.Seq), 9)
		w.WriteBitsUnchecked(phase, 11)
		w.WriteBitsUnchecked(blend, 7)
		w.WriteBitsUnchecked(uint64(g.Layer), 3)
	}
	w.WriteBitsUnchecked(bit(m.Vehicle != nil), 1)
	if g := m.Vehicle; g != nil {
		speed, ok1 := qenc(g.Speed, -100, 300, 400, 4000)
		steer, ok2 := qenc(g.Steer, -1.5, 1.5, 3, 600)
		if g.ID > 4095 || g.Seat > 7 || !ok1 || !ok2 || g.Fuel > 1000 {
			return dst, errStraight
		}
		w.WriteBitsUnchecked(uint64(g.ID), 12)
		w.WriteBitsUnchecked(uint64(g.Seat), 3)
		w.WriteBitsUnchecked(speed, 12)
		w.WriteBitsUnchecked(steer, 10)
		w.WriteBitsUnchecked(uint64(g.Throttle), 8)
		w.WriteBitsUnchecked(uint64(g.Fuel), 10)
	}
	w.WriteBitsUnchecked(bit(m.Stats != nil), 1)
	if g := m.Stats; g != nil {
		health, score := uint64(int64(g.Health)+100), uint64(int64(g.Score)+100000)
		if health > 1100 || g.Armor > 2000 || g.Stamina > 1000 || g.Kills > 999 || g.Deaths > 999 || score > 200000 || g.Ping > 1023 || g.Team > 3 {
			return dst, errStraight
		}
		w.WriteBitsUnchecked(health, 11)
		w.WriteBitsUnchecked(uint64(g.Armor), 11)
		w.WriteBitsUnchecked(uint64(g.Stamina), 10)
		w.WriteBitsUnchecked(uint64(g.Kills), 10)
		w.WriteBitsUnchecked(uint64(g.Deaths), 10)
		w.WriteBitsUnchecked(score, 18)
		w.WriteBitsUnchecked(uint64(g.Ping), 10)
		w.WriteBitsUnchecked(uint64(g.Team), 2)
	}
	w.WriteBytes(m.Inputs[:])
	bitio.WriteUints(&w, m.Seen[:], 32)
	if len(m.Events) > 16 {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(uint64(len(m.Events)), 5)
	bitio.WriteUints(&w, m.Events, 32)
	return w.Bytes(), nil
}

func straightReadGameplay(data []byte, m *gameplayMsg) error {
	var r bitio.Reader
	r.Reset(data)
	tick, entity, stance := r.ReadBits(24), r.ReadBits(12), r.ReadBits(3)
	if tick > 16777215 || entity > 4095 || stance > 5 {
		return errStraight
	}
	m.Tick, m.Entity, m.Stance = uint32(tick), uint16(entity), Stance(stance)
	m.Flags = uint8(r.ReadBits(6))
	m.Grounded = r.ReadBits(1) != 0
	m.Firing = r.ReadBits(1) != 0
	if c0, c1, c2 := r.ReadBits(19), r.ReadBits(19), r.ReadBits(19); c0 > 300000 || c1 > 300000 || c2 > 300000 {
		return errStraight
	} else {
		m.Pos = Vec3{qdec(c0, -3000, 6000, 1.0/300000), qdec(c1, -3000, 6000, 1.0/300000), qdec(c2, -3000, 6000, 1.0/300000)}
	}
	if c0, c1, c2 := r.ReadBits(14), r.ReadBits(14), r.ReadBits(14); c0 > 12000 || c1 > 12000 || c2 > 12000 {
		return errStraight
	} else {
		m.Vel = Vec3{qdec(c0, -60, 120, 1.0/12000), qdec(c1, -60, 120, 1.0/12000), qdec(c2, -60, 120, 1.0/12000)}
	}
	if c0, c1, c2 := r.ReadBits(12), r.ReadBits(12), r.ReadBits(12); c0 > 4000 || c1 > 4000 || c2 > 4000 {
		return errStraight
	} else {
		m.Accel = Vec3{qdec(c0, -20, 40, 1.0/4000), qdec(c1, -20, 40, 1.0/4000), qdec(c2, -20, 40, 1.0/4000)}
	}
	q := r.ReadQuat(&gpRot) // a runtime call: the canonical check
	m.Rot = Quat{X: q[0], Y: q[1], Z: q[2], W: q[3]}
	if c0, c1 := r.ReadBits(12), r.ReadBits(12); c0 > 3600 || c1 > 3600 {
		return errStraight
	} else {
		m.Aim = [2]float32{qdec(c0, -90, 180, 1.0/3600), qdec(c1, -90, 180, 1.0/3600)}
	}
	if b := r.ReadStringBytes(23); m.Name != string(b) {
		m.Name = string(b)
	}
	if r.ReadBits(1) != 0 {
		if m.Weapon == nil {
			m.Weapon = new(gpWeapon)
		}
		g := m.Weapon
		id, ammo, clip, heat, reloading, mode := r.ReadBits(6), r.ReadBits(10), r.ReadBits(6), r.ReadBits(8), r.ReadBits(1), r.ReadBits(2)
		if ammo > 999 || clip > 60 || heat > 150 || mode > 2 {
			return errStraight
		}
		g.ID, g.Ammo, g.Clip, g.Heat, g.Reloading, g.Mode = uint8(id), uint16(ammo), uint8(clip), qdec(heat, 0, 1.5, 1.0/150), reloading != 0, uint8(mode)
	} else {
		m.Weapon = nil
	}
	if r.ReadBits(1) != 0 {
		if m.Anim == nil {
			m.Anim = new(gpAnim)
		}
		g := m.Anim
		seq, phase, blend, layer := r.ReadBits(9), r.ReadBits(11), r.ReadBits(7), r.ReadBits(3)
		if phase > 1500 || blend > 121 {
			return errStraight
		}
		g.Seq, g.Phase, g.Blend, g.Layer = uint16(seq), qdec(phase, 0, 3, 1.0/1500), qdec(blend, 0, 1.2, 1.0/121), uint8(layer)
	} else {
		m.Anim = nil
	}
	if r.ReadBits(1) != 0 {
		if m.Vehicle == nil {
			m.Vehicle = new(gpVehicle)
		}
		g := m.Vehicle
		id, seat, speed, steer, throttle, fuel := r.ReadBits(12), r.ReadBits(3), r.ReadBits(12), r.ReadBits(10), r.ReadBits(8), r.ReadBits(10)
		if speed > 4000 || steer > 600 || fuel > 1000 {
			return errStraight
		}
		g.ID, g.Seat, g.Speed, g.Steer, g.Throttle, g.Fuel = uint16(id), uint8(seat), qdec(speed, -100, 400, 1.0/4000), qdec(steer, -1.5, 3, 1.0/600), uint8(throttle), uint16(fuel)
	} else {
		m.Vehicle = nil
	}
	if r.ReadBits(1) != 0 {
		if m.Stats == nil {
			m.Stats = new(gpStats)
		}
		g := m.Stats
		health, armor, stamina, kills := r.ReadBits(11), r.ReadBits(11), r.ReadBits(10), r.ReadBits(10)
		deaths, score, ping, team := r.ReadBits(10), r.ReadBits(18), r.ReadBits(10), r.ReadBits(2)
		if health > 1100 || armor > 2000 || stamina > 1000 || kills > 999 || deaths > 999 || score > 200000 {
			return errStraight
		}
		g.Health, g.Armor, g.Stamina, g.Kills = int16(int64(health)-100), uint16(armor), uint16(stamina), uint16(kills)
		g.Deaths, g.Score, g.Ping, g.Team = uint16(deaths), int32(int64(score)-100000), uint16(ping), uint8(team)
	} else {
		m.Stats = nil
	}
	r.ReadBytes(m.Inputs[:])
	bitio.ReadUints(&r, m.Seen[:], 32)
	n := r.ReadBits(5)
	if n > 16 {
		return errStraight
	}
	if err := r.Err(); err != nil {
		return err
	}
	if cap(m.Events) >= int(n) {
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

package world

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The raw format is what a programmer writes by hand with encoding/binary
// when not packing bits: every field at its Go width, little-endian, floats
// as float32, bools as one byte, a uint16 count before each list and a
// presence byte before an optional weapon. It is the baseline bitpack is
// compared with.
//
//	snapshot: Tick u32, count u16, players, count u16, grunts
//	player:   ID u8, Pos 3×f32, Rot 4×f32, Vel 3×f32, Health u8,
//	          armed u8, [Type u8, Ammo u8, Chambered u8 if armed]
//	grunt:    ID u16, Pos 3×f32, Health u8
//
// Sizes: 43 bytes per unarmed player, 46 armed, 15 per grunt, 8 of header.

// AppendRaw appends the raw fixed-width encoding of s to dst.
func AppendRaw(dst []byte, s *Snapshot) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, s.Tick)
	dst = le.AppendUint16(dst, uint16(len(s.Players)))
	for i := range s.Players {
		p := &s.Players[i]
		dst = append(dst, p.ID)
		dst = appendVec3(dst, p.Pos)
		for _, f := range [4]float32{p.Rot.X, p.Rot.Y, p.Rot.Z, p.Rot.W} {
			dst = le.AppendUint32(dst, math.Float32bits(f))
		}
		dst = appendVec3(dst, p.Vel)
		dst = append(dst, p.Health)
		if p.Weapon == nil {
			dst = append(dst, 0)
		} else {
			dst = append(dst, 1, byte(p.Weapon.Type), p.Weapon.Ammo, b2u(p.Weapon.Chambered))
		}
	}
	dst = le.AppendUint16(dst, uint16(len(s.Grunts)))
	for i := range s.Grunts {
		g := &s.Grunts[i]
		dst = le.AppendUint16(dst, g.ID)
		dst = appendVec3(dst, g.Pos)
		dst = append(dst, g.Health)
	}
	return dst
}

func appendVec3(dst []byte, v Vec3) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, math.Float32bits(v.X))
	dst = le.AppendUint32(dst, math.Float32bits(v.Y))
	return le.AppendUint32(dst, math.Float32bits(v.Z))
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// errRawShort reports a raw packet that ends early.
var errRawShort = errors.New("world: raw snapshot truncated")

// DecodeRaw decodes a packet written by AppendRaw into s, reusing its
// slices and weapon pointers. Like a typical hand-written decoder it checks
// lengths but not values. On error s may be partly overwritten.
func DecodeRaw(data []byte, s *Snapshot) error {
	r := rawReader{data: data}
	s.Tick = r.u32()
	n := int(r.u16())
	if r.short || len(r.data) < n*43 { // 43: the smallest player
		return errRawShort
	}
	s.Players = growTo(s.Players, n)
	for i := range s.Players {
		p := &s.Players[i]
		p.ID = r.u8()
		p.Pos = r.vec3()
		p.Rot = Quat{r.f32(), r.f32(), r.f32(), r.f32()}
		p.Vel = r.vec3()
		p.Health = r.u8()
		if r.u8() == 0 {
			p.Weapon = nil
			continue
		}
		if p.Weapon == nil {
			p.Weapon = new(Weapon)
		}
		*p.Weapon = Weapon{Type: WeaponType(r.u8()), Ammo: r.u8(), Chambered: r.u8() != 0}
	}
	n = int(r.u16())
	if r.short || len(r.data) < n*15 {
		return errRawShort
	}
	s.Grunts = growTo(s.Grunts, n)
	for i := range s.Grunts {
		g := &s.Grunts[i]
		g.ID = r.u16()
		g.Pos = r.vec3()
		g.Health = r.u8()
	}
	switch {
	case r.short:
		return errRawShort
	case len(r.data) > 0:
		return fmt.Errorf("world: %d trailing bytes after a raw snapshot", len(r.data))
	}
	return nil
}

// growTo returns s with length n, reusing its capacity (and so the
// elements' weapon pointers).
func growTo[E any](s []E, n int) []E {
	if cap(s) < n {
		s = append(s[:cap(s)], make([]E, n-cap(s))...)
	}
	return s[:n]
}

var zeros [4]byte

// rawReader reads little-endian fields; past the end it returns zeros and
// sets short, so callers check once.
type rawReader struct {
	data  []byte
	short bool
}

func (r *rawReader) take(n int) []byte {
	if len(r.data) < n {
		r.short, r.data = true, nil
		return zeros[:n]
	}
	b := r.data[:n]
	r.data = r.data[n:]
	return b
}

func (r *rawReader) u8() uint8    { return r.take(1)[0] }
func (r *rawReader) u16() uint16  { return binary.LittleEndian.Uint16(r.take(2)) }
func (r *rawReader) u32() uint32  { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *rawReader) f32() float32 { return math.Float32frombits(r.u32()) }
func (r *rawReader) vec3() Vec3   { return Vec3{r.f32(), r.f32(), r.f32()} }

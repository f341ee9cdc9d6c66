package bench

import (
	"errors"
	"fmt"
)

// Packet is the reference packet of docs/wire.md (BenchPacket in the root
// package's tests), the one serialize.go uses for its own benchmarks.
// With the values of ReferencePacket it is exactly 133 bytes on the wire.
type Packet struct {
	Sequence    uint64
	Position    [3]float32 `bits:"float,min=-1024,max=1024,res=0.01"`
	Orientation [4]float32 `bits:"float,min=-1,max=1,res=0.0001"`
	Health      int32      `bits:"range=0..1000"`
	Weapon      uint32     `bits:"bits=4"`
	Ammo        [8]int32   `bits:"range=0..200"`
	Firing      bool
	EventIDs    []uint32 `bits:"maxlen=16"`
	Payload     [64]byte
}

// ReferencePacket returns the packet with the reference values.
func ReferencePacket() Packet {
	p := Packet{
		Sequence:    0x123456789ABCDEF0,
		Position:    [3]float32{102.4, -55.3, 12.75},
		Orientation: [4]float32{0.1, 0.2, 0.3, 0.9},
		Health:      731,
		Weapon:      11,
		Firing:      true,
	}
	for i := range p.Ammo {
		p.Ammo[i] = int32(i * 13 % 200)
	}
	for i := range 9 {
		p.EventIDs = append(p.EventIDs, uint32(uint64(i)*2654435761))
	}
	for i := range p.Payload {
		p.Payload[i] = byte(i * 47)
	}
	return p
}

// MaxEvents is the largest number of event IDs a Packet carries (its
// maxlen tag).
const MaxEvents = 16

// FixedPacket is Packet in the fixed-size form encoding/binary requires:
// no slices, so the event IDs are a full array and a count. It is 206
// bytes, whatever the count.
type FixedPacket struct {
	Sequence    uint64
	Position    [3]float32
	Orientation [4]float32
	Health      int32
	Weapon      uint32
	Ammo        [8]int32
	Firing      bool
	NumEvents   uint8
	EventIDs    [MaxEvents]uint32
	Payload     [64]byte
}

// ToFixed returns p in fixed-size form. It fails if p has more than
// MaxEvents event IDs.
func (p *Packet) ToFixed() (FixedPacket, error) {
	if len(p.EventIDs) > MaxEvents {
		return FixedPacket{}, fmt.Errorf("bench: %d event IDs, at most %d fit", len(p.EventIDs), MaxEvents)
	}
	f := FixedPacket{
		Sequence:    p.Sequence,
		Position:    p.Position,
		Orientation: p.Orientation,
		Health:      p.Health,
		Weapon:      p.Weapon,
		Ammo:        p.Ammo,
		Firing:      p.Firing,
		NumEvents:   uint8(len(p.EventIDs)),
		Payload:     p.Payload,
	}
	copy(f.EventIDs[:], p.EventIDs)
	return f, nil
}

// errEventCount reports a fixed packet whose count exceeds its array.
var errEventCount = errors.New("bench: fixed packet event count exceeds 16")

// Validate reports whether the count of f is within its array; a decoder
// must check it before trusting f.EventIDs[:f.NumEvents].
func (f *FixedPacket) Validate() error {
	if f.NumEvents > MaxEvents {
		return errEventCount
	}
	return nil
}

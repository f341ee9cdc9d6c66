package gen

import (
	"fmt"
	"reflect"

	"github.com/bitpack-go/bitpack"
)

// Elements of one bit (a bool) holding values of no bits wrapped in
// one-element arrays, from an attacker's review: each level is an object
// and an array in C# and TypeScript. While a struct of no bits nested in a
// value counted only its fields, a ZhDeepElem was 2 values and a
// ZhWideElem 64, each paid for by its bit, and a 64-byte packet of 494 of
// them cost (in snapshot decodes of the same reader) ZhWide C# 2073,
// TypeScript 2988, Rust 63, Go 50; ZhDeepWide (63 ZhB16s an element) C#
// 6490, TypeScript 14150; ZhDeep C# 35.5. Each such struct now counts 64
// for itself: a ZhB16 is 17 × 64 + 1 = 1089 values, a ZhDeepElem 1090, a
// ZhWideElem 1 + 63 × 321.
type (
	// ZhLeaf takes no bits (a C# value struct); ZhB1..ZhB16 wrap it in
	// one-element arrays, each level a class and an array in C#.
	ZhLeaf struct {
		V uint8 `bits:"range=0..0"`
	}
	ZhB1  struct{ A [1]ZhLeaf }
	ZhB2  struct{ A [1]ZhB1 }
	ZhB3  struct{ A [1]ZhB2 }
	ZhB4  struct{ A [1]ZhB3 }
	ZhB5  struct{ A [1]ZhB4 }
	ZhB6  struct{ A [1]ZhB5 }
	ZhB7  struct{ A [1]ZhB6 }
	ZhB8  struct{ A [1]ZhB7 }
	ZhB9  struct{ A [1]ZhB8 }
	ZhB10 struct{ A [1]ZhB9 }
	ZhB11 struct{ A [1]ZhB10 }
	ZhB12 struct{ A [1]ZhB11 }
	ZhB13 struct{ A [1]ZhB12 }
	ZhB14 struct{ A [1]ZhB13 }
	ZhB15 struct{ A [1]ZhB14 }
	ZhB16 struct{ A [1]ZhB15 }

	ZhWideElem struct {
		B bool
		W [63]ZhB4
	}
	ZhWide struct {
		L   []ZhWideElem `bits:"maxlen=600"`
		Pad []byte       `bits:"maxlen=255"`
	}
	ZhDeepElem struct {
		B bool
		W ZhB16
	}
	ZhDeep struct {
		L   []ZhDeepElem `bits:"maxlen=600"`
		Pad []byte       `bits:"maxlen=255"`
	}

	// MapsList's elements hold a bool and 63 maps of maxlen 0: one bit for
	// 63 Dictionaries in C# and Maps in TypeScript, which 494 to a 64-byte
	// packet cost C# 647 snapshot decodes, TypeScript 206, Rust 31 while a
	// map of no bits counted 1. It counts 65 now: an element is 4096, and
	// 64 bytes pay for 8.
	MapsElem struct {
		B bool
		M [63]map[uint8]uint8 `bits:"maxlen=0"`
	}
	MapsList struct {
		L   []MapsElem `bits:"maxlen=600"`
		Pad []byte     `bits:"maxlen=255"`
	}

	// BytesElems' elements hold a byte slice of maxlen 0: no bits, and a
	// Uint8Array each in TypeScript, which cost it 12.6 snapshot decodes
	// for the 575 that 64 bytes pay for until an empty one was shared.
	BytesElem struct {
		B []byte `bits:"maxlen=0"`
	}
	BytesElems struct {
		L   []BytesElem `bits:"maxlen=600"`
		Pad []byte      `bits:"maxlen=255"`
	}
)

// heavyProtos are the one-bit element roots the report measures besides
// the zero-bit ones.
func heavyProtos() []any { return []any{&ZhWide{}, &ZhDeep{}, &MapsList{}, &BytesElems{}} }

// zhDeep is a ZhDeep of n elements padded to a 64-byte packet: 10 bits of
// length, n bits, Pad's 8 bits of length and its bytes.
func zhDeep(n int) *ZhDeep {
	return &ZhDeep{L: make([]ZhDeepElem, n), Pad: make([]byte, 64-(18+n+7)/8)}
}

// mapsList is the same for MapsList.
func mapsList(n int) *MapsList {
	return &MapsList{L: make([]MapsElem, n), Pad: make([]byte, 64-(18+n+7)/8)}
}

// zhWide is the same for ZhWide.
func zhWide(n int) *ZhWide {
	return &ZhWide{L: make([]ZhWideElem, n), Pad: make([]byte, 64-(18+n+7)/8)}
}

// bytesElems is a BytesElems of n elements in a 64-byte packet: 10 bits
// of length, the first element's alignment (6 bits), Pad's length, its 61
// bytes.
func bytesElems(n int) *BytesElems {
	return &BytesElems{L: make([]BytesElem, n), Pad: make([]byte, 61)}
}

// heavyHostileCases are, for each one-bit heavy root and BytesElems, its
// 64-byte packet of the most elements Marshal accepts (Go accepts it:
// "paid for") and one of the next count, which Go refuses (for the
// one-bit roots, the review's 494).
func heavyHostileCases() []hostileCase {
	var out []hostileCase
	for _, c := range []struct {
		proto  any
		most   int  // the most elements 64 bytes can hold
		oneBit bool // elements of one bit, else of none
		make   func(n int) any
	}{
		{ZhWide{}, 494, true, func(n int) any { return zhWide(n) }}, // 494: 10 + 494 + 8 bits fill 64 bytes
		{ZhDeep{}, 494, true, func(n int) any { return zhDeep(n) }},
		{MapsList{}, 494, true, func(n int) any { return mapsList(n) }},
		{BytesElems{}, 600, false, func(n int) any { return bytesElems(n) }},
	} {
		name := reflect.TypeOf(c.proto).Name()
		for n := c.most; n >= 1; n-- {
			if p, err := bitpack.Marshal(c.make(n)); err == nil {
				out = append(out, hostileCase{name: fmt.Sprintf("%s of %d (paid for), 64 bytes", name, n), proto: c.proto, packet: p})
				if !c.oneBit { // the same packet, its length one more
					more := append([]byte(nil), p...)
					more[0], more[1] = byte(n+1), more[1]&^3|byte((n+1)>>8)&3
					out = append(out, hostileCase{name: fmt.Sprintf("%s of %d, 64 bytes", name, n+1), proto: c.proto, packet: more})
				}
				break
			}
		}
		if c.oneBit {
			out = append(out, hostileCase{name: name + " of 494, 64 bytes", proto: c.proto, packet: heavyPacket(494)})
		}
	}
	return out
}

// heavyPacket is the review's packet: 494 elements, their bools 0, in 64
// bytes (10 bits of length, 494 bits, Pad's length 0).
func heavyPacket(n int) []byte {
	p := make([]byte, 64)
	p[0], p[1] = byte(n), byte(n>>8)&3
	return p
}

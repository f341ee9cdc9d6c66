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
)

// heavyProtos are the one-bit element roots the report measures besides
// the zero-bit ones.
func heavyProtos() []any { return []any{&ZhWide{}, &ZhDeep{}} }

// zhDeep is a ZhDeep of n elements padded to a 64-byte packet: 10 bits of
// length, n bits, Pad's 8 bits of length and its bytes.
func zhDeep(n int) *ZhDeep {
	return &ZhDeep{L: make([]ZhDeepElem, n), Pad: make([]byte, 64-(18+n+7)/8)}
}

// zhWide is the same for ZhWide.
func zhWide(n int) *ZhWide {
	return &ZhWide{L: make([]ZhWideElem, n), Pad: make([]byte, 64-(18+n+7)/8)}
}

// heavyHostileCases are, for each one-bit heavy root, its 64-byte packet
// of the most elements Marshal accepts (Go accepts it: "paid for"), and
// its 494 elements of the review, which Go now refuses.
func heavyHostileCases() []hostileCase {
	var out []hostileCase
	for _, c := range []struct {
		proto any
		make  func(n int) any
	}{
		{ZhWide{}, func(n int) any { return zhWide(n) }},
		{ZhDeep{}, func(n int) any { return zhDeep(n) }},
	} {
		name := reflect.TypeOf(c.proto).Name()
		for n := 494; n >= 1; n-- { // 494: 10 + 494 + 8 bits fill 64 bytes
			if p, err := bitpack.Marshal(c.make(n)); err == nil {
				out = append(out, hostileCase{name: fmt.Sprintf("%s of %d (paid for), 64 bytes", name, n), proto: c.proto, packet: p})
				break
			}
		}
		out = append(out, hostileCase{name: name + " of 494, 64 bytes", proto: c.proto, packet: heavyPacket(494)})
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

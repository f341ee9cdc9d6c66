// Package zerobit holds packets that claim values which take no bits on
// the wire, and how bitpack's Go decoder refuses each: the cases every
// decoder (Go, and each generated client: C++, C#, TypeScript, Rust) must
// refuse exactly as Go does, by the work and memory allowances of
// docs/wire.md ("Limits of the Go decoder") and its count check
// ("Truncated packets"). A value whose only field is range=5..5 costs no
// bits, so without the allowances one byte could make a decoder build a
// million of them (issue 26, item 3).
//
// It is one table for two readers: bitpack's own tests check every
// refusal word for word (zerobit_test.go in the module's root), and the
// cross-language corpus in package gen takes the types and packets and
// requires each client to refuse each packet where Go does. The types are
// registered (the union) when the package is imported.
package zerobit

import (
	"strconv"

	"github.com/bitpack-go/bitpack"
)

// Chunk takes no bits: 4096 values, each of one possible value.
type Chunk struct {
	Grid [4096]uint8 `bits:"range=5..5"`
}

// ZeroSlice is up to 255 Chunks for 8 bits of length.
type ZeroSlice struct {
	C []Chunk `bits:"maxlen=255"`
}

// ZeroRows nests ZeroSlices in a slice: each row's length is 8 bits.
type ZeroRows struct {
	R []ZeroSlice `bits:"maxlen=255"`
}

// ZeroPair holds two Chunks in its fixed part: 8321 values (each Chunk
// 4096, and 64 for itself: a struct of no bits nested in a value) for as few as
// 8 bits (an empty label).
type ZeroPair struct {
	P     [2]Chunk
	Label string `bits:"maxlen=63"`
}

// ZeroMap maps keys to Chunks: each entry costs its key's 8 bits.
type ZeroMap struct {
	M map[uint8]Chunk `bits:"maxlen=255"`
}

// Solo is a union of one member, a Chunk: its index takes no bits, so a
// member costs none.
type Solo interface{ isSolo() }

// Mixed is a union of a Chunk (index 0) and a Tick (index 1): a member
// costs its 1-bit index.
type Mixed interface{ isMixed() }

// SoloChunk is Solo's member.
type SoloChunk Chunk

// Tick is Mixed's other member.
type Tick struct {
	T uint8
}

func (SoloChunk) isSolo() {}
func (Chunk) isMixed()    {}
func (Tick) isMixed()     {}

// SoloStream is a slice of zero-bit union values.
type SoloStream struct {
	M []Solo `bits:"maxlen=255"`
}

// MixedStream is a slice of union values whose Chunks cost 1 bit each.
type MixedStream struct {
	M []Mixed `bits:"maxlen=255"`
}

// Leaf takes no bits (a string of maxlen 0), but is an object in C# and
// TypeScript; Leaves is up to 32768 of them for 16 bits of length, and
// Boxed4 wraps one in one-element arrays four deep (nine objects in C#).
// Counted as values alone, a 64-byte packet paid for 32768 Leaves (Go 150
// to 270 of its snapshot decodes, C# 450, TypeScript 185) or 16384 Boxed4s
// (C# 930, TypeScript 2240); an element that can take no bits is charged
// what one bit pays for, 64 values (a Boxed4 257: 1 for its Leaf's string
// and 64 for each of the four structs nested in it), so 64 bytes pay for
// at most 575 Leaves and 143 Boxed4s.
type (
	Leaf struct {
		S string `bits:"maxlen=0"`
	}
	Boxed1 struct{ A [1]Leaf }
	Boxed2 struct{ A [1]Boxed1 }
	Boxed3 struct{ A [1]Boxed2 }
	Boxed4 struct{ A [1]Boxed3 }
	Leaves struct {
		L   []Leaf `bits:"maxlen=32768"`
		Pad []byte `bits:"maxlen=255"`
	}
	BoxedLeaves struct {
		L   []Boxed4 `bits:"maxlen=16384"`
		Pad []byte   `bits:"maxlen=255"`
	}
)

// Cell takes no bits; Row holds a bool and 63 Cells, one bit for 64
// values; Rows is up to 511 of them. Counted as one value each, a 64-byte
// packet paid for 495 Rows, 31,185 Cells: 69 of TypeScript's snapshot
// decodes (each Cell an object), Rust 20. A struct that can take no bits
// nested in a value counts 64 values for itself besides its fields, so a
// Row is 1 + 63 × 65 = 4096 and 64 bytes pay for 8.
type (
	Cell struct {
		A int8 `bits:"range=5..5"`
	}
	Row struct {
		On    bool
		Cells [63]Cell
	}
	Rows struct {
		R   []Row  `bits:"maxlen=511"`
		Pad []byte `bits:"maxlen=255"`
	}
)

// RowsPacket is a Rows of n Rows, each on, and pad bytes of padding: 9
// bits of length, a bit for each Row, Pad's 8 bits of length, alignment,
// its bytes.
func RowsPacket(n, pad int) []byte {
	bits := 9 + n + 8
	p := make([]byte, (bits+7)/8, (bits+7)/8+pad)
	set := func(at int, v, width int) {
		for k := range width {
			if v>>k&1 != 0 {
				p[(at+k)/8] |= 1 << ((at + k) % 8)
			}
		}
	}
	set(0, n, 9)
	for i := range n {
		set(9+i, 1, 1)
	}
	set(9+n, pad, 8)
	for range pad {
		p = append(p, 'a')
	}
	return p
}

// LeavesPacket is a Leaves or BoxedLeaves (lengthBits 16 or 15) of n
// elements, padded to total bytes by Pad: the length, the first string's
// alignment (none after 16 bits, one bit after 15), Pad's length, its
// bytes.
func LeavesPacket(n, lengthBits, total int) []byte {
	p := []byte{byte(n), byte(n >> 8)}
	if lengthBits == 15 {
		p[1] &= 0x7f
	}
	p = append(p, byte(total-3))
	for len(p) < total {
		p = append(p, 'a')
	}
	return p
}

func init() {
	solo, err := bitpack.NewUnion(SoloChunk{})
	if err == nil {
		err = bitpack.RegisterUnion[Solo](solo)
	}
	mixed, err2 := bitpack.NewUnion(Chunk{}, Tick{})
	if err == nil {
		err = err2
	}
	if err == nil {
		err = bitpack.RegisterUnion[Mixed](mixed)
	}
	if err != nil {
		panic(err)
	}
}

// Case is a packet decoded (bitpack.Unmarshal) into a value of Type's
// type, and Go's refusal: its sentinel, field path, bit and detail (the
// bitpack.Error's Err, Path, Bit, Detail).
type Case struct {
	Name   string
	Type   any // a zero value of the type the packet is decoded as
	Packet []byte
	Err    error
	Path   string
	Bit    int
	Detail string
}

// work words the work allowance's refusal (docs/wire.md).
func work(n, limit int) string {
	return strconv.Itoa(n) + " values would take the decode past the " + strconv.Itoa(limit) +
		" values it may visit for this input (4096 plus 64 per bit): the packet claims more values than its bits can pay for"
}

// ascending returns ff followed by the keys 0..254: a ZeroMap of 255
// entries.
func ascending() []byte {
	p := []byte{0xff}
	for k := range 255 {
		p = append(p, byte(k))
	}
	return p
}

// rowsOfOne is 255 rows, each one Chunk long: ff, then 255 lengths of 1.
func rowsOfOne() []byte {
	p := []byte{0xff}
	for range 255 {
		p = append(p, 0x01)
	}
	return p
}

// mixedChunks is 255 Mixed values, all Chunks: ff, then 255 index bits
// of 0 (33 bytes).
func mixedChunks() []byte { return append([]byte{0xff}, make([]byte, 32)...) }

// Cases returns the table. The figures, worked out from docs/wire.md: a
// packet of b bits may visit 4096 + 64b values; a decode charges its
// top-level value's own values first (1 for a struct of one field, 8321
// for a ZeroPair), then each count when it is read (n × the element's
// values: 4096 for a Chunk, 1 for a ZeroSlice or a union value of a 1-bit
// index, and at least 64 — what one bit pays for — for an element that
// can take no bits, as a Solo union value), each
// union member when its index is read, and each map's n × (key + value)
// values.
func Cases() []Case {
	return []Case{
		// 255 Chunks: 1 + 255 × 4096 = 1044481 values, 4608 allowed.
		{"ZeroSlice ff", ZeroSlice{}, []byte{0xff}, bitpack.ErrRange, "C", 0, work(1044480, 4608)},
		// 255 rows of at least 8 bits each, 24 bits left.
		{"ZeroRows ff ff ff ff", ZeroRows{}, []byte{0xff, 0xff, 0xff, 0xff}, bitpack.ErrOverflow, "R", 8, "255 elements need at least 2040 bits, 24 remain"},
		// 3 rows (24 ≤ 24 bits left): 1 + 3 values; row 0 claims 255
		// Chunks at bit 8, past 4096 + 64 × 32.
		{"ZeroRows 03 ff ff ff", ZeroRows{}, []byte{0x03, 0xff, 0xff, 0xff}, bitpack.ErrRange, "R[0].C", 8, work(1044480, 6144)},
		// 255 rows (1 + 255 values), each of one Chunk: 135168 allowed for
		// 2048 bits, so 32 rows fit (256 + 32 × 4096 = 131328) and row 32,
		// at bit 8 + 32 × 8, does not.
		{"ZeroRows of one Chunk each", ZeroRows{}, rowsOfOne(), bitpack.ErrRange, "R[32].C", 264, work(4096, 135168)},
		// The top-level value's 8321 values, charged before anything is
		// read: 4608 allowed.
		{"ZeroPair 00", ZeroPair{}, []byte{0x00}, bitpack.ErrRange, "", 0, work(8321, 4608)},
		// 255 entries of at least 8 bits each, 0 bits left.
		{"ZeroMap ff", ZeroMap{}, []byte{0xff}, bitpack.ErrOverflow, "M", 8, "255 entries need at least 2040 bits, 0 remain"},
		// 255 entries, keys 0..254 (2048 bits): 255 × (1 + 4096) values.
		{"ZeroMap of 255 keys", ZeroMap{}, ascending(), bitpack.ErrRange, "M", 0, work(1044735, 135168)},
		// 255 union values of no bits, 64 values each (1 + 255 × 64 =
		// 16321), past 4608 at the count.
		{"SoloStream ff", SoloStream{}, []byte{0xff}, bitpack.ErrRange, "M", 0, work(16320, 4608)},
		// 255 union values of a 1-bit index each (255 ≤ 256 bits left),
		// all Chunks: 20992 allowed for 264 bits; 256 + 5 × 4096 fit, the
		// sixth member (index at bit 8 + 5) not.
		{"MixedStream of 255 Chunks", MixedStream{}, mixedChunks(), bitpack.ErrRange, "M[5]", 13, work(4096, 20992)},
		// 2 values for the root's fields, then 32768 Leaves of no bits, 64
		// values each: 2097152, past 4096 + 64 × 512.
		{"Leaves of 32768, 64 bytes", Leaves{}, LeavesPacket(32768, 16, 64), bitpack.ErrRange, "L", 0, work(2097152, 36864)},
		// 576 Leaves: 2 + 36864 values, one Leaf past; 575 decode.
		{"Leaves of 576, 64 bytes", Leaves{}, LeavesPacket(576, 16, 64), bitpack.ErrRange, "L", 0, work(36864, 36864)},
		// 495 Rows of 1 + 63 × 65 values each (a Cell nested in a value
		// counts its 1 and 64 for itself): 2027520, past 4096 + 64 × 512.
		{"Rows of 495, 64 bytes", Rows{}, RowsPacket(495, 0), bitpack.ErrRange, "R", 0, work(2027520, 36864)},
		// 10 Rows in 4 bytes: 2 + 40960 values, past 4096 + 64 × 32.
		{"Rows of 10", Rows{}, RowsPacket(10, 0), bitpack.ErrRange, "R", 0, work(40960, 6144)},
		// 9 Rows and 60 bytes of Pad: 2 + 36864 values, past 36864; 8
		// decode.
		{"Rows of 9, 64 bytes", Rows{}, RowsPacket(9, 60), bitpack.ErrRange, "R", 0, work(36864, 36864)},
		// 16384 Boxed4s of no bits, 257 values each.
		{"BoxedLeaves of 16384, 64 bytes", BoxedLeaves{}, LeavesPacket(16384, 15, 64), bitpack.ErrRange, "L", 0, work(4210688, 36864)},
		// 144 Boxed4s: 2 + 37008 values, past 36864; 143 decode.
		{"BoxedLeaves of 144, 64 bytes", BoxedLeaves{}, LeavesPacket(144, 15, 64), bitpack.ErrRange, "L", 0, work(37008, 36864)},
	}
}

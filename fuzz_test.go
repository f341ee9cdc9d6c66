package bitpack_test

import (
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitpacktest"
)

// Native fuzz targets, built on bitpacktest.Fuzz: each
// decodes hostile bytes into a pre-filled value and fails on a panic, an
// error that is not a *bitpack.Error wrapping a sentinel, a failed decode
// that changed the value, an accepted packet that does not re-encode to
// itself, or an allocation the tags do not allow. Seeds are real packets
// (the encodings of the values below) plus bitpacktest's generated and
// edge-case packets. CI runs each for a while:
//
//	go test -run '^$' -fuzz '^FuzzBenchPacket$' -fuzztime 30s .

// FuzzBenchPacket: the reference packet (docs/wire.md#the-reference-packet:
// ranges, compressed floats, a slice, a byte block).
func FuzzBenchPacket(f *testing.F) {
	bitpacktest.Fuzz(f, referencePacket(), BenchPacket{})
}

// FuzzSnapshot: a slice of nested structs with strings.
func FuzzSnapshot(f *testing.F) {
	bitpacktest.Fuzz(f,
		Snapshot{Players: []Player{
			{Health: 1000, Pos: Vec3{-10, 0, 10}, Name: "ünïcødé ☃"},
			{Health: 0, Pos: Vec3{0.005, -9.995, 3}, Name: ""},
			{Health: 731, Name: "fifteen bytes.."},
		}},
		Snapshot{})
}

// FuzzZone: a recursive type (through a slice and a pointer), so hostile
// nesting must stop at bitpack.MaxDepth.
func FuzzZone(f *testing.F) {
	leaf := rtZone{ID: 4095, Label: "leaf", Bounds: [2]Vec3{{-4096, -4096, 0}, {4096, 4096, 0.25}}}
	bitpacktest.Fuzz(f,
		rtZone{ID: 1, Label: "world", Kids: []rtZone{leaf, {ID: 2, Portal: &leaf}}, Portal: &rtZone{ID: 3}},
		rtZone{})
}

// rtRoom: strings and pointers everywhere.
type rtRoom struct {
	Topic   string  `bits:"maxlen=40"`
	Nick    *string `bits:"maxlen=16"`
	Owner   *Player
	Members []Player `bits:"maxlen=6"`
	Banned  []uint32 `bits:"maxlen=10,range=0..99999"`
	Key     *[8]byte
	Blob    []byte `bits:"maxlen=32"`
	Locked  *bool
}

// FuzzRoom: strings (UTF-8 and NUL checks), optional values, slices.
func FuzzRoom(f *testing.F) {
	nick, locked := "ann", true
	bitpacktest.Fuzz(f,
		rtRoom{Topic: "welcome, 日本語 ok", Nick: &nick, Owner: &Player{Health: 50, Name: "owner"},
			Members: []Player{{Name: "a"}, {Name: "b", Health: 1}}, Banned: []uint32{0, 99999},
			Key: &[8]byte{1, 2, 3, 4, 5, 6, 7, 8}, Blob: []byte("\x00\xff binary"), Locked: &locked},
		rtRoom{})
}

// FuzzMatchLog: unions (recursive through rtRound), sparse array and
// slice, serialize checks.
func FuzzMatchLog(f *testing.F) {
	log := rtMatchLog{
		Tick:   90210,
		First:  &rtRound{Number: 3, Events: []rtEvent{rtKill{Killer: 1, Victim: 2, Headshot: true}, &rtSay{From: 1, Text: "gg"}}},
		Events: []rtEvent{rtSpawn{Who: 63, At: Vec3{1, 2, 3}}, &rtRound{Number: 1}},
		Flags:  []*rtWheel{nil, {Angle: 0.5, Grip: 31}, nil},
	}
	log.Alive[0] = &Player{Health: 100, Name: "first"}
	log.Alive[15] = &Player{Name: "last"}
	bitpacktest.Fuzz(f, log, rtMatchLog{First: rtKill{}})
}

// rtOrientation holds quaternions only.
type rtOrientation struct {
	Facing Quat       `bits:"quat,bits=10"`
	Aim    [4]float32 `bits:"quat,bits=12"`
	Roll   float32    `bits:"float,min=-3.2,max=3.2,res=0.001"`
}

// FuzzOrientation: smallest-three quaternions from hostile bits.
//
// Regression seeds (found by this target): three transmitted components
// whose squares sum past 1, which no unit quaternion encodes to. Unmarshal
// once accepted them, rebuilding the fourth component as 0: all Facing
// codes at their maximum (index 3, a = b = c = 1023) gave (0.7071, 0.7071,
// 0.7071, 0), norm 1.22, which Marshal then refused as not unit length;
// "\xff\xff\x00]0000000" (squares summing to 1.008) re-encoded as a
// rotation 0.008 rad away, beyond the 10-bit tolerance. Unmarshal must
// refuse both: with M = 2^b - 2, 1023 is no code at all, and a rebuilt
// component smaller than another is not canonical.
func FuzzOrientation(f *testing.F) {
	valid := rtOrientation{Facing: Quat{0, 0, 0, 1}, Aim: [4]float32{0.5, 0.5, 0.5, 0.5}, Roll: 1}
	regression, err := bitpack.Marshal(&valid)
	if err != nil {
		f.Fatal(err)
	}
	copy(regression, []byte{0xff, 0xff, 0xff, 0xff}) // Facing: the first 2+3×10 bits
	bitpacktest.FuzzWith(f, []bitpacktest.Option{bitpacktest.Corpus(regression, []byte("\xff\xff\x00]0000000"))},
		valid, rtOrientation{Facing: Quat{1, 0, 0, 0}, Aim: [4]float32{0, -1, 0, 0}})
}

// rtShapes: memory layouts the engine must respect — element structs with
// fields kept off the wire after the one that is sent (their stride is not
// the field's size), padded elements next to a skipped field, recursion
// with no struct on the cycle. (Found by review, not by the targets above,
// whose types had none of these shapes.)
type rtShapes struct {
	Es      []strideEntity  `bits:"maxlen=4"`
	Skipped []strideSkipped `bits:"maxlen=3"`
	Pad     [3]paddedElem
	Keep    [2]uint8 `bits:"-"`
	Chain   selfPointer
	Nest    selfArray
	Opt     *paddedElem
}

// FuzzShapes: see rtShapes.
func FuzzShapes(f *testing.F) {
	var end selfPointer
	bitpacktest.Fuzz(f,
		rtShapes{
			Es:      []strideEntity{{ID: 7}, {ID: 0xffffffff}},
			Skipped: []strideSkipped{{A: 1}},
			Pad:     [3]paddedElem{{1, 2}, {255, 65535}, {}},
			Chain:   selfPointer(&end),
			Nest:    selfArray{&selfArray{}},
			Opt:     &paddedElem{3, 4},
		},
		rtShapes{Keep: [2]uint8{9, 9}})
}

// FuzzHookChain: recursion through a custom hook that decodes the next
// node with bitpack.Decode (see hookNode): depth must carry through the
// hook, and each hook must run once.
func FuzzHookChain(f *testing.F) {
	bitpacktest.Fuzz(f, *nodeChain(5), hookNode{V: 1})
}

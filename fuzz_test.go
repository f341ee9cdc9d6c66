package bitpack_test

import (
	"bytes"
	"errors"
	"strings"
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

// FuzzMaps: maps of every key kind (see rtMaps), seeded with real packets
// and with packets whose keys are out of order or repeated (mapPackets),
// which the decoder must refuse: an accepted one would re-encode sorted,
// to other bytes, and fail the target.
func FuzzMaps(f *testing.F) {
	speed, target, lock := float32(7.25), uint16(999), int8(-1)
	full := rtMaps{
		Ammo:   map[uint8]uint16{0: 1, 9: 500, 255: 65535},
		Scores: map[string]int32{"": 0, "ann": -1000, "bö": 1000, "zzzzzzzz": 7},
		Groups: map[int16][]string{-50: nil, 0: {"", "twelve bytes"}, 50: {"a", "b", "c"}},
		Units: map[uint16]rtUnit{
			0:   {Pos: Vec3{-500, 0, 500}, Speed: &speed, Target: &target},
			999: {Pos: Vec3{0.1, -0.1, 0}, Leader: &Player{Health: 1000, Name: "lead"}},
		},
		Doors:   map[bool]rtDoor{false: {Angle: 3.2, Lock: &lock}, true: {Open: true}},
		Team:    map[rtSide]*Player{0: nil, 3: {Health: 1, Pos: Vec3{-10, 10, 0}, Name: "ünï"}},
		Facings: map[int32]Quat{-8: {0, 0, 0, 1}, 7: {0.5, 0.5, 0.5, 0.5}},
	}
	sorted, hostile := mapPackets()
	bitpacktest.FuzzWith(f, []bitpacktest.Option{bitpacktest.Corpus(append(sorted, hostile...)...)},
		full, rtMaps{Ammo: map[uint8]uint16{2: 7, 9: 500}}, rtMaps{Doors: map[bool]rtDoor{true: {}}}, rtMaps{})
}

// mapPacketValues are the values of mapPackets's sorted packets.
var mapPacketValues = []rtMaps{{Ammo: map[uint8]uint16{2: 7, 9: 500}}, {Doors: map[bool]rtDoor{false: {}, true: {}}}}

// mapPackets returns the packets of mapPacketValues, laid out by hand,
// and packets like them whose keys are out of order or repeated.
// TestMapPackets checks both.
func mapPackets() (sorted, hostile [][]byte) {
	// Counts of the maps after Ammo, all empty: Scores, Groups, Units
	// (3 bits each), Doors, Team, Facings (2 bits each).
	rest := []f{{0, 3}, {0, 3}, {0, 3}, {0, 2}, {0, 2}, {0, 2}}
	ammo := func(entries ...uint64) []byte {
		fs := []any{f{uint64(len(entries) / 2), 3}}
		for i := 0; i < len(entries); i += 2 {
			fs = append(fs, f{entries[i], 8}, f{entries[i+1], 16})
		}
		return bitsOf(append(fs, rest)...)
	}
	// Doors {key: closed, angle code 0, no lock}, after the empty maps
	// before it; Team and Facings empty after it.
	doors := func(keys ...uint64) []byte {
		fs := []any{f{0, 3}, f{0, 3}, f{0, 3}, f{0, 3}, f{uint64(len(keys)), 2}}
		for _, k := range keys {
			fs = append(fs, f{k, 1}, f{0, 1}, f{0, 12}, f{0, 1})
		}
		return bitsOf(append(fs, f{0, 2}, f{0, 2})...)
	}
	sorted = [][]byte{ammo(2, 7, 9, 500), doors(0, 1)}
	hostile = [][]byte{
		ammo(9, 500, 2, 7),     // unsorted
		ammo(2, 7, 2, 7),       // duplicate
		ammo(0, 0, 5, 1, 5, 1), // a duplicate after a sorted pair
		ammo(255, 1, 0, 1),     // the largest key, then the smallest
		doors(1, 0),            // true before false
		doors(1, 1),            // true twice
	}
	return sorted, hostile
}

// TestMapPackets: FuzzMaps's hand-written packets are what they claim:
// the sorted one is Marshal's, and each of the others is refused with
// ErrRange at its second (or third) key, leaving the value alone.
func TestMapPackets(t *testing.T) {
	sorted, hostile := mapPackets()
	for i, v := range mapPacketValues {
		if b, err := bitpack.Marshal(&v); err != nil || !bytes.Equal(b, sorted[i]) {
			t.Fatalf("Marshal(%+v) = %x, %v; the hand-written packet is %x", v, b, err, sorted[i])
		}
	}
	const prefix = "bitpack: decode bitpack_test.rtMaps: field "
	wants := []string{
		"Ammo at bit 27: key 2 does not follow key 9",
		"Ammo at bit 27: key 2 does not follow key 2",
		"Ammo at bit 51: key 5 does not follow key 5",
		"Ammo at bit 27: key 0 does not follow key 255",
		"Doors at bit 29: key false does not follow key true",
		"Doors at bit 29: key true does not follow key true",
	}
	for i, p := range hostile {
		v := rtMaps{Ammo: map[uint8]uint16{1: 1}}
		err := bitpack.Unmarshal(p, &v)
		want := prefix + wants[i] + ": map keys travel in ascending order, each once"
		if !errors.Is(err, bitpack.ErrRange) || err.Error() != want {
			t.Errorf("packet %d (%x): %v\nwant %s", i, p, err, want)
		}
		if len(v.Ammo) != 1 || v.Ammo[1] != 1 || v.Doors != nil {
			t.Errorf("packet %d: the refused packet changed the value: %+v", i, v)
		}
	}
}

// FuzzMapTree: recursion through a map's values, so hostile nesting must
// stop at bitpack.MaxDepth. Seeded with a real tree and a chain nested
// past MaxDepth (mapChain).
func FuzzMapTree(f *testing.F) {
	leaf := rtMapTree{Name: "leaf"}
	bitpacktest.FuzzWith(f, []bitpacktest.Option{bitpacktest.Corpus(mapChain(3), mapChain(bitpack.MaxDepth+10))},
		rtMapTree{Name: "root", Sub: map[uint8]rtMapTree{0: leaf, 7: {Sub: map[uint8]rtMapTree{255: leaf}}}}, rtMapTree{})
}

// mapChain lays out by hand an rtMapTree nested n levels deep: at each
// level an empty Name (a 3-bit length, then alignment) and a Sub of one
// entry (a 2-bit count, key 1); the last level's Sub is empty.
func mapChain(n int) []byte {
	var fs []any
	for range n - 1 {
		fs = append(fs, f{0, 3}, align, f{1, 2}, f{1, 8})
	}
	return bitsOf(append(fs, f{0, 3}, align, f{0, 2})...)
}

// TestMapChain: a chain of MaxDepth levels decodes (mapChain lays it out
// as Marshal does); one level more is refused with ErrDepth where the
// last level's map would begin an entry: level i (from 1) starts at bit
// 16i+2, so level 63's count ends at bit 1018.
func TestMapChain(t *testing.T) {
	three := rtMapTree{Sub: map[uint8]rtMapTree{1: {Sub: map[uint8]rtMapTree{1: {}}}}}
	if b, err := bitpack.Marshal(&three); err != nil || !bytes.Equal(b, mapChain(3)) {
		t.Fatalf("Marshal = %x, %v; mapChain(3) = %x", b, err, mapChain(3))
	}
	var v rtMapTree
	if err := bitpack.Unmarshal(mapChain(bitpack.MaxDepth), &v); err != nil {
		t.Fatalf("%d levels: %v", bitpack.MaxDepth, err)
	}
	v = rtMapTree{Name: "kept"}
	err := bitpack.Unmarshal(mapChain(bitpack.MaxDepth+1), &v)
	if !errors.Is(err, bitpack.ErrDepth) || !strings.HasSuffix(err.Error(), ".Sub at bit 1018: more than 64 nested levels") {
		t.Errorf("%d levels: %v; want ErrDepth at bit 1018", bitpack.MaxDepth+1, err)
	}
	if v.Name != "kept" || v.Sub != nil {
		t.Errorf("the refused packet changed the value: %+v", v)
	}
}

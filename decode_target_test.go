package bitpack_test

import (
	"bytes"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------------------
// Decoding into an existing value: fields off the wire keep their values,
// slices reuse their memory.

type tReuse struct {
	Keep  uint8    `bits:"-"`
	IDs   []uint16 `bits:"maxlen=8"`
	Ptr   *Vec3
	Name  string   `bits:"maxlen=8"`
	Empty []uint16 `bits:"maxlen=8"`
}

func TestDecodeIntoExisting(t *testing.T) {
	src := tReuse{IDs: []uint16{1, 2}, Ptr: &Vec3{1, 2, 3}, Name: "bob", Empty: nil}
	b, err := bitpack.Marshal(&src)
	if err != nil {
		t.Fatal(err)
	}
	backing := make([]uint16, 5, 8)
	ptr := &Vec3{9, 9, 9}
	dst := tReuse{Keep: 42, IDs: backing, Ptr: ptr, Name: "bob", Empty: []uint16{7}}
	if err := bitpack.Unmarshal(b, &dst); err != nil {
		t.Fatal(err)
	}
	if dst.Keep != 42 {
		t.Error("a field not on the wire was overwritten")
	}
	if &dst.IDs[0] != &backing[0] || len(dst.IDs) != 2 || dst.IDs[1] != 2 {
		t.Error("slice capacity was not reused")
	}
	if dst.Ptr != ptr || *ptr != (Vec3{1, 2, 3}) {
		t.Error("pointer target was not reused")
	}
	if dst.Empty == nil || len(dst.Empty) != 0 {
		t.Errorf("empty slice decoded as %#v; want length 0 keeping the backing array", dst.Empty)
	}
	// A nil pointer on the wire clears the field.
	b2, _ := bitpack.Marshal(&tReuse{})
	if err := bitpack.Unmarshal(b2, &dst); err != nil || dst.Ptr != nil || dst.IDs == nil || len(dst.IDs) != 0 {
		t.Errorf("decode of zero value: %v %+v", err, dst)
	}
}

// TestAtomicUnmarshal: after every possible truncation of a packet, and
// every single-bit corruption that is refused, the value is untouched.
func TestAtomicUnmarshal(t *testing.T) {
	good := referencePacket()
	packet, _ := bitpack.Marshal(&good)
	prefill := func() BenchPacket {
		p := BenchPacket{Sequence: 1, Health: 2, EventIDs: make([]uint32, 3, 16)}
		p.EventIDs[0], p.Payload[0] = 99, 7
		return p
	}
	check := func(data []byte, what string) {
		v := prefill()
		if err := bitpack.Unmarshal(data, &v); err == nil {
			return
		}
		if diff := cmp.Diff(prefill(), v); diff != "" {
			t.Fatalf("%s: failed Unmarshal changed the value:\n%s", what, diff)
		}
	}
	for n := 0; n < len(packet); n++ {
		v := prefill()
		if err := bitpack.Unmarshal(packet[:n], &v); err == nil {
			t.Fatalf("truncated to %d bytes: accepted", n)
		}
		check(packet[:n], "truncation")
	}
	refused := 0
	for bit := 0; bit < 8*len(packet); bit++ {
		bad := bytes.Clone(packet)
		bad[bit/8] ^= 1 << (bit % 8)
		var v BenchPacket
		if bitpack.Unmarshal(bad, &v) != nil {
			refused++
		}
		check(bad, "bit flip")
	}
	if refused == 0 {
		t.Fatal("no single-bit corruption was refused")
	}

	// The same with nested slices of structs and strings.
	snap := Snapshot{Players: []Player{{Health: 5, Name: "ann"}, {Health: 6, Name: "bo"}, {Health: 7, Pos: Vec3{1, 2, 3}}}}
	packet, _ = bitpack.Marshal(&snap)
	for n := 0; n < len(packet); n++ {
		v := Snapshot{Players: []Player{{Health: 1, Name: "keep"}}}
		if err := bitpack.Unmarshal(packet[:n], &v); err == nil {
			t.Fatalf("snapshot truncated to %d bytes: accepted", n)
		}
		if len(v.Players) != 1 || v.Players[0] != (Player{Health: 1, Name: "keep"}) {
			t.Fatalf("snapshot truncated to %d: value changed to %+v", n, v)
		}
	}
}

// TestAtomicWorld: the example world's snapshot (slices of structs holding
// pointers and quaternions) after every possible truncation and a sweep of
// bit flips: a failed decode never changes the target.
func TestAtomicWorld(t *testing.T) {
	w := world.New(40, 3)
	for i := 0; i < 5; i++ {
		w.Step()
	}
	var snap world.Snapshot
	w.Snapshot(&snap)
	packet, err := bitpack.Marshal(&snap)
	if err != nil {
		t.Fatal(err)
	}
	var before world.Snapshot // a different, earlier snapshot as the target
	world.New(40, 9).Snapshot(&before)
	target := func() world.Snapshot {
		var s world.Snapshot
		world.New(40, 9).Snapshot(&s)
		return s
	}
	for n := 0; n < len(packet); n++ {
		v := target()
		if err := bitpack.Unmarshal(packet[:n], &v); err == nil {
			t.Fatalf("truncated to %d bytes: accepted", n)
		}
		if diff := cmp.Diff(before, v); diff != "" {
			t.Fatalf("truncated to %d bytes: target changed:\n%s", n, diff)
		}
	}
	for bit := 0; bit < 8*len(packet); bit += 7 {
		bad := bytes.Clone(packet)
		bad[bit/8] ^= 1 << (bit % 8)
		v := target()
		if err := bitpack.Unmarshal(bad, &v); err != nil {
			if diff := cmp.Diff(before, v); diff != "" {
				t.Fatalf("bit %d flipped: refused, but the target changed:\n%s", bit, diff)
			}
		}
	}
	v := target()
	if err := bitpack.Unmarshal(packet, &v); err != nil || len(v.Players) != len(snap.Players) || v.Tick != snap.Tick {
		t.Fatalf("whole packet: %v", err)
	}
}

type tKeepItem struct {
	A     uint8
	Keep  uint8 `bits:"-"`
	B     uint16
	local int8
}

type tKeepList struct {
	Items [2]tKeepItem
	More  []tKeepItem `bits:"maxlen=4"`
}

// TestDecodeKeepsOffWireFields: fields not on the wire keep their values in
// the target, also inside arrays and slice elements (which decoding copies
// as whole blocks only when nothing off the wire lives in them).
func TestDecodeKeepsOffWireFields(t *testing.T) {
	src := tKeepList{Items: [2]tKeepItem{{A: 1, B: 2}, {A: 3, B: 4}}, More: []tKeepItem{{A: 5, B: 6}}}
	b, err := bitpack.Marshal(&src)
	if err != nil {
		t.Fatal(err)
	}
	dst := tKeepList{
		Items: [2]tKeepItem{{Keep: 7, local: -1}, {Keep: 8, local: -2}},
		More:  []tKeepItem{{Keep: 9, local: -3}, {Keep: 10}},
	}
	if err := bitpack.Unmarshal(b, &dst); err != nil {
		t.Fatal(err)
	}
	want := tKeepList{
		Items: [2]tKeepItem{{A: 1, Keep: 7, B: 2, local: -1}, {A: 3, Keep: 8, B: 4, local: -2}},
		More:  []tKeepItem{{A: 5, Keep: 9, B: 6, local: -3}},
	}
	if diff := cmp.Diff(want, dst, cmp.AllowUnexported(tKeepItem{})); diff != "" {
		t.Fatalf("decoded (-want +got):\n%s", diff)
	}
}

package bitpack_test

import (
	"bytes"
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
)

// ---------------------------------------------------------------------------
// Memory guarantees: bounded allocation, zero-allocation hot paths, scratch
// buffers not pinned, dst's spare capacity untouched.

type big72 struct{ A [9]uint64 }

type tHuge struct {
	Items []big72 `bits:"maxlen=999999"`
}

// TestAllocationBound: a 10-byte packet claiming 999,999 elements of a
// 72-byte struct fails without allocating for them.
func TestAllocationBound(t *testing.T) {
	packet := bitsOf(f{999999, 20}, f{0xdeadbeefcafe, 60})
	if len(packet) != 10 {
		t.Fatalf("packet is %d bytes", len(packet))
	}
	var v tHuge
	if err := bitpack.Unmarshal(packet, &v); err != nil { // compile the plan outside the measurement
		_ = err
	}
	var before, after runtimeStats
	before.read()
	err := bitpack.Unmarshal(packet, &v)
	after.read()
	if !errors.Is(err, bitpack.ErrOverflow) {
		t.Fatalf("err = %v, want ErrOverflow", err)
	}
	if grew := after.totalAlloc - before.totalAlloc; grew > 16<<10 {
		t.Fatalf("decoding a 10-byte packet allocated %d bytes", grew)
	}
	if v.Items != nil {
		t.Fatal("value changed")
	}
}

type runtimeStats struct{ totalAlloc uint64 }

func (s *runtimeStats) read() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.totalAlloc = m.TotalAlloc
}

func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates; the plain test run checks this")
	}
	c, err := bitpack.NewCodec[BenchPacket]()
	if err != nil {
		t.Fatal(err)
	}
	p := referencePacket()
	buf := make([]byte, 0, 256)
	packet := mustHex(t, referenceHex)
	var q BenchPacket
	if err := c.Unmarshal(packet, &q); err != nil { // sizes q.EventIDs once
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		allocs float64
		fn     func()
	}{
		{"Codec.Append", 0, func() { buf, _ = c.Append(buf[:0], &p) }},
		{"Codec.Unmarshal", 0, func() { _ = c.Unmarshal(packet, &q) }},
		{"Append", 0, func() { buf, _ = bitpack.Append(buf[:0], &p) }},
		{"Unmarshal", 0, func() { _ = bitpack.Unmarshal(packet, &q) }},
		{"Marshal (the returned slice)", 1, func() { _, _ = bitpack.Marshal(&p) }},
		{"Codec.Encode", 0, func() { w := bitio.Writer{}; w.Reset(buf[:0]); _ = c.Encode(&w, &p) }},
		{"Codec.Decode", 0, func() { r := bitio.Reader{}; r.Reset(packet); _ = c.Decode(&r, &q) }},
	}
	// The world snapshot: slices of structs, which encode a chunk of
	// elements at a time through a buffer on the stack.
	wld := world.New(200, 1)
	for range 10 {
		wld.Step()
	}
	snap := new(world.Snapshot)
	wld.Snapshot(snap)
	sc, err := bitpack.NewCodec[world.Snapshot]()
	if err != nil {
		t.Fatal(err)
	}
	snapBuf, _ := sc.Append(nil, snap)
	cases = append(cases, struct {
		name   string
		allocs float64
		fn     func()
	}{"Codec.Append (world snapshot)", 0, func() { snapBuf, _ = sc.Append(snapBuf[:0], snap) }})
	for _, tc := range cases {
		if got := testing.AllocsPerRun(200, tc.fn); got != tc.allocs {
			t.Errorf("%s: %v allocs per run, want %v", tc.name, got, tc.allocs)
		}
	}
	if !bytes.Equal(buf, packet) || q.Health != 731 {
		t.Fatal("the measured calls did not do their work")
	}
}

type tWideItems struct {
	Items []padded `bits:"maxlen=4096"` // 64 bytes for 1 bit each
}

// TestScratchNotPinned: a packet that makes decoding grow big buffers (here
// 4096 elements of 64 bytes from a 514-byte packet, which the tags and the
// allowances allow) does not leave them pinned in the type's scratch
// value; small ones stay for the next decode to reuse.
func TestScratchNotPinned(t *testing.T) {
	typ := reflect.TypeFor[tWideItems]()
	var small, big tWideItems
	if err := bitpack.Unmarshal(bitsOf(f{3, 13}), &small); err != nil || len(small.Items) != 3 {
		t.Fatalf("small: %v %d", err, len(small.Items))
	}
	if !bitpack.ScratchKept(typ) || !bitpack.ScratchHoldsBuffers(typ) {
		t.Fatal("a small decode's scratch value was not kept with its buffers")
	}
	packet := append(bitsOf(f{4096, 13}), make([]byte, 512)...)
	if err := bitpack.Unmarshal(packet, &big); err != nil || len(big.Items) != 4096 || big.Items[4095].B {
		t.Fatalf("big: %v %d", err, len(big.Items))
	}
	if !bitpack.ScratchKept(typ) || bitpack.ScratchHoldsBuffers(typ) {
		t.Fatalf("after growing 4096 elements the scratch value is kept %v, holds its buffers %v; want kept, not holding them", bitpack.ScratchKept(typ), bitpack.ScratchHoldsBuffers(typ))
	}
}

// TestAppendStaysInBounds: Append writes nothing into dst's spare
// capacity past the packet it returns, for packets ending on a partial
// byte, on byte data, and on slices of structs.
func TestAppendStaysInBounds(t *testing.T) {
	type tiny struct {
		A uint8 `bits:"range=0..3"`
	}
	type tail struct {
		N uint8
		B [1]byte
	}
	wld := world.New(50, 2)
	snap := new(world.Snapshot)
	wld.Snapshot(snap)
	ref := referencePacket()
	for _, v := range []any{&tiny{A: 2}, &tail{N: 7, B: [1]byte{9}}, &ref, snap} {
		backing := bytes.Repeat([]byte{0xe5}, 16<<10)
		out, err := bitpack.Append(backing[:3], v)
		if err != nil {
			t.Fatal(err)
		}
		if &out[0] != &backing[0] {
			t.Fatalf("%T: Append left dst's array", v)
		}
		for i := len(out); i < len(backing); i++ {
			if backing[i] != 0xe5 {
				t.Errorf("%T: byte %d past the %d-byte result overwritten", v, i, len(out))
				break
			}
		}
	}
}

package bitpack_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
	"github.com/bitpack-go/bitpack/quant"
)

// The reference packet written by hand against bitio, the way a careful
// programmer would: compressed-float parameters precomputed once, one call
// per field, one error check at the end (and before the loop whose length
// came from the packet). This is the baseline the plan is measured against.

var (
	handPos, _    = quant.NewFloat(-1024, 1024, 0.01)
	handOrient, _ = quant.NewFloat(-1, 1, 0.0001)
)

func handWrite(w *bitio.Writer, p *BenchPacket) error {
	w.WriteBits(p.Sequence, 64)
	for _, v := range p.Position {
		if v < -1024 || v > 1024 { // bitpack refuses what the tag does not allow; so does this
			return bitio.ErrRange
		}
		w.WriteQuantized(&handPos, v)
	}
	for _, v := range p.Orientation {
		if v < -1 || v > 1 {
			return bitio.ErrRange
		}
		w.WriteQuantized(&handOrient, v)
	}
	w.WriteInt(int64(p.Health), 0, 1000)
	w.WriteUint(uint64(p.Weapon), 0, 15)
	for _, a := range p.Ammo {
		w.WriteInt(int64(a), 0, 200)
	}
	w.WriteBool(p.Firing)
	if len(p.EventIDs) > 16 {
		return bitio.ErrRange
	}
	w.WriteUint(uint64(len(p.EventIDs)), 0, 16)
	for _, id := range p.EventIDs {
		w.WriteBits(uint64(id), 32)
	}
	w.WriteBytes(p.Payload[:])
	return w.Err()
}

func handRead(r *bitio.Reader, p *BenchPacket) error {
	p.Sequence = r.ReadBits(64)
	for i := range p.Position {
		p.Position[i] = r.ReadQuantized(&handPos)
	}
	for i := range p.Orientation {
		p.Orientation[i] = r.ReadQuantized(&handOrient)
	}
	p.Health = int32(r.ReadInt(0, 1000))
	p.Weapon = uint32(r.ReadUint(0, 15))
	for i := range p.Ammo {
		p.Ammo[i] = int32(r.ReadInt(0, 200))
	}
	p.Firing = r.ReadBool()
	n := int(r.ReadUint(0, 16))
	if err := r.Err(); err != nil {
		return err
	}
	if cap(p.EventIDs) >= n {
		p.EventIDs = p.EventIDs[:n]
	} else {
		p.EventIDs = make([]uint32, n)
	}
	for i := range p.EventIDs {
		p.EventIDs[i] = uint32(r.ReadBits(32))
	}
	r.ReadBytes(p.Payload[:])
	return r.Err()
}

func TestHandWrittenMatches(t *testing.T) {
	// The baseline must do the same work: identical bytes, identical values.
	p := referencePacket()
	w := bitio.NewWriter(nil)
	if err := handWrite(w, &p); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Bytes(), mustHex(t, referenceHex)) {
		t.Fatalf("hand-written packet differs:\n%x", w.Bytes())
	}
	var a, b BenchPacket
	if err := handRead(bitio.NewReader(w.Bytes()), &a); err != nil {
		t.Fatal(err)
	}
	if err := bitpack.Unmarshal(w.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if a.Sequence != b.Sequence || a.Position != b.Position || a.Orientation != b.Orientation || a.Payload != b.Payload || len(a.EventIDs) != len(b.EventIDs) {
		t.Fatalf("hand-written read differs: %+v vs %+v", a, b)
	}
	// And the straight-line code (straightline_test.go).
	out, err := straightAppendPacket(nil, &p)
	if err != nil || !bytes.Equal(out, mustHex(t, referenceHex)) {
		t.Fatalf("straight-line packet differs (%v):\n%x", err, out)
	}
	var s BenchPacket
	if err := straightReadPacket(out, &s); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, b) {
		t.Fatalf("straight-line read differs: %+v vs %+v", s, b)
	}
}

// BenchmarkReferencePacket measures the reference packet
// (docs/wire.md#the-reference-packet) written and read by
// Codec[T], by the any-typed API, by hand against bitio ("hand", the
// baseline) and by straight-line code as a generator would write it
// ("straight", straightline_test.go). Ratios come from internal/benchratio.
func BenchmarkReferencePacket(b *testing.B) {
	p := referencePacket()
	packet := mustHex(b, referenceHex)
	size := int64(len(packet))
	c, err := bitpack.NewCodec[BenchPacket]()
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 256)
	b.Run("write/hand", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		var w bitio.Writer
		for b.Loop() {
			w.Reset(buf[:0])
			if err := handWrite(&w, &p); err != nil {
				b.Fatal(err)
			}
			buf = w.Bytes()
		}
	})
	b.Run("write/straight", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = straightAppendPacket(buf[:0], &p)
		}
	})
	b.Run("write/codec", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = c.Append(buf[:0], &p)
		}
	})
	b.Run("write/any", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = bitpack.Append(buf[:0], &p)
		}
	})
	cg, err := bitpack.NewCodec[packetGen]() // runs the generated code
	if err != nil {
		b.Fatal(err)
	}
	b.Run("write/generated", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		pg := packetGen(p)
		for b.Loop() {
			buf, _ = cg.Append(buf[:0], &pg)
		}
	})
	var q BenchPacket
	b.Run("read/hand", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		var r bitio.Reader
		for b.Loop() {
			r.Reset(packet)
			if err := handRead(&r, &q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read/straight", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			if err := straightReadPacket(packet, &q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read/codec", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Unmarshal(packet, &q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read/any", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			if err := bitpack.Unmarshal(packet, &q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read/generated", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		qg := (*packetGen)(&q)
		for b.Loop() {
			if err := cg.Unmarshal(packet, qg); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A small input packet, a packet with strings and slices, and the example
// world's snapshot: the shapes a game sends besides the reference packet.

type smallInput struct {
	Seq     uint16 `bits:"range=0..1023"`
	Buttons uint8  `bits:"bits=6"`
	Aim     Vec3   `bits:"float,min=-1,max=1,res=0.001"`
	Jump    bool
}

type chatRoom struct {
	Room    string     `bits:"maxlen=31"`
	Members []string   `bits:"-"`
	Lines   []chatLine `bits:"maxlen=8"`
	Muted   []uint16   `bits:"maxlen=16,range=0..999"`
}

type chatLine struct {
	From uint16 `bits:"range=0..999"`
	Text string `bits:"maxlen=63"`
}

func benchCodec[T any](b *testing.B, name string, v *T) {
	c, err := bitpack.NewCodec[T]()
	if err != nil {
		b.Fatal(err)
	}
	packet, err := c.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, len(packet)+16)
	var back T
	if err := c.Unmarshal(packet, &back); err != nil { // sizes back's buffers once
		b.Fatal(err)
	}
	b.Run(name+"/write", func(b *testing.B) {
		b.SetBytes(int64(len(packet)))
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = c.Append(buf[:0], v)
		}
	})
	b.Run(name+"/read", func(b *testing.B) {
		b.SetBytes(int64(len(packet)))
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Unmarshal(packet, &back); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(len(packet)), "bytes")
}

func BenchmarkShapes(b *testing.B) {
	benchCodec(b, "small", &smallInput{Seq: 1000, Buttons: 0x2a, Aim: Vec3{0.25, -0.5, 0.75}, Jump: true})
	room := chatRoom{Room: "lobby-7", Muted: []uint16{3, 14, 159}}
	for i := 0; i < 6; i++ {
		room.Lines = append(room.Lines, chatLine{From: uint16(100 + i), Text: "gg, well played — see you next round"})
	}
	benchCodec(b, "strings", &room)
	w := world.New(1000, 1)
	for i := 0; i < 60; i++ {
		w.Step()
	}
	var snap world.Snapshot
	w.Snapshot(&snap)
	benchCodec(b, "snapshot", &snap)
	raw := world.AppendRaw(nil, &snap)
	var back world.Snapshot
	b.Run("snapshot/fixedwidth-write", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		buf := make([]byte, 0, len(raw))
		for b.Loop() {
			buf = world.AppendRaw(buf[:0], &snap)
		}
	})
	b.Run("snapshot/fixedwidth-read", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if err := world.DecodeRaw(raw, &back); err != nil {
				b.Fatal(err)
			}
		}
	})
}

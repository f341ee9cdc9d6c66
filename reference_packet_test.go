package bitpack_test

import (
	"bytes"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------------------
// The reference packet (docs/wire.md#the-reference-packet), whose bytes
// come from the reference C++ serialize implementation.

type BenchPacket struct {
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

func referencePacket() BenchPacket {
	p := BenchPacket{
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
	for i := 0; i < 9; i++ {
		p.EventIDs = append(p.EventIDs, uint32(uint64(i)*2654435761))
	}
	for i := range p.Payload {
		p.Payload[i] = byte(i * 47)
	}
	return p
}

const referenceHex = "f0debc9a7856341200b899e9b54f19be0adc852cc3516ebb000d1a2734414e5b13000000406cde8da7d8bc1bcf449ba936b179375e1d58c585893653edf514e11462f36e3c002f5e8dbceb1a4978a7d605346392c1f01f4e7dacdb0a396897c6f5245382b1e00f3e6d9ccbfa295887b6e5144372a1d0ff2e5d8cbbea194877a6d504336291"

func TestReferencePacket(t *testing.T) {
	p := referencePacket()
	want := mustHex(t, referenceHex)
	if len(want) != 133 {
		t.Fatalf("golden packet has %d bytes", len(want))
	}
	got, err := bitpack.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Marshal:\n got %x\nwant %x", got, want)
	}
	c, err := bitpack.NewCodec[BenchPacket]()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Append([]byte{0xee}, &p); err != nil || !bytes.Equal(got[1:], want) || got[0] != 0xee {
		t.Fatalf("Codec.Append: %x, %v", got, err)
	}
	var q BenchPacket
	if err := c.Unmarshal(want, &q); err != nil {
		t.Fatal(err)
	}
	// Quantized fields come back as their quanta (values from the reference
	// reader: 102.4 -> 102.400024 etc.); everything else exactly.
	wantBack := p
	wantBack.Position = [3]float32{102.400024, -55.299988, 12.75}
	wantBack.Orientation = [4]float32{0.100000024, 0.20000005, 0.29999995, 0.9}
	if diff := cmp.Diff(wantBack, q); diff != "" {
		t.Fatalf("decoded packet (-want +got):\n%s", diff)
	}
	if l := c.Layout(); l.MinBits > 133*8 || l.MaxBits < 133*8 {
		t.Errorf("layout says %d..%d bits; the packet has %d", l.MinBits, l.MaxBits, 133*8)
	}
}

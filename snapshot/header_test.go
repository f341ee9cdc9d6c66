package snapshot_test

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack/snapshot"
)

// TestZeroID: the zero base's id is the CRC-32 of the stream's 4
// little-endian bytes.
func TestZeroID(t *testing.T) {
	for _, s := range []uint32{0, 1, 0x12345678, 0xffffffff} {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], s)
		if got, want := snapshot.ZeroID(s), crc32.ChecksumIEEE(b[:]); got != want {
			t.Errorf("stream %#x: id %#08x, want %#08x", s, got, want)
		}
	}
}

// Golden types: a tick and a sparse array of four units.
type goldenUnit struct {
	HP uint8 `bits:"range=0..100"`
}

type goldenWorld struct {
	Tick  uint8
	Units [4]*goldenUnit `bits:"sparse"`
}

// TestHeaderGolden pins the header's bytes (docs/wire.md, "Snapshot
// streams"): a packet from the zero base, one at rest on an acknowledged
// base 1 back (8 bytes: the 7-byte header and the delta 00), and one on
// a base 129 back (the long form). The bytes were worked out by hand
// (the delta bit by bit) and the CRCs with Python's zlib.crc32, not with
// this package.
func TestHeaderGolden(t *testing.T) {
	opts := snapshot.Options[goldenWorld]{Entities: []string{"Units"}, History: 256, Stream: 0x01020304}
	s, err := snapshot.NewSender(opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := snapshot.NewReceiver(opts)
	if err != nil {
		t.Fatal(err)
	}
	w := goldenWorld{Tick: 5}
	w.Units[1] = &goldenUnit{HP: 100}
	var v goldenWorld
	for i, want := range []string{
		// seq 0 | zero base | its id, CRC-32 of 04 03 02 01 | the stream |
		// delta: changed, Tick short form +5, Units: slot 1 whole (HP 100),
		// end marker.
		"00 00 | 00 | 06 a4 51 e9 | 04 03 02 01 | e3 82 6c 00",
		// seq 1 | base 1 back | id of packet 0 | unchanged
		"01 00 | 02 | 44 2c 30 93 | 00",
	} {
		pkt, err := s.Append(nil, &w)
		if err != nil {
			t.Fatal(err)
		}
		if got := spaced(pkt); got != strings.ReplaceAll(want, "| ", "") {
			t.Errorf("packet %d: % x\nwant %s", i, pkt, want)
		}
		if _, err := r.Read(pkt, &v); err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		s.Ack(r.Ack())
	}
	if v.Tick != 5 || v.Units[1] == nil || v.Units[1].HP != 100 || v.Units[0] != nil {
		t.Fatalf("read %+v", v)
	}
	var pkt []byte
	for range 129 { // packets 2 to 130 on base 1, none acknowledged
		if pkt, err = s.Append(nil, &w); err != nil {
			t.Fatal(err)
		}
	}
	// seq 130 | base 129 back, long form (129<<1|1 = 0x0103) | id of
	// packet 1 | unchanged
	if got, want := spaced(pkt), "82 00 03 01 ba ac d0 dd 00"; got != want {
		t.Errorf("packet 130: %s\nwant %s", got, want)
	}
	if _, err := r.Read(pkt, &v); err != nil {
		t.Fatal(err)
	}
}

func spaced(b []byte) string { return fmt.Sprintf("% x", b) }

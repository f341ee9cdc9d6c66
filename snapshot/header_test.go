package snapshot_test

import (
	"encoding/binary"
	"hash/crc32"
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

package bitpack

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"slices"
)

// ErrChecksum reports a packet whose CRC32 does not match: it was damaged,
// truncated below 4 bytes, or sealed with another protocol id (another game,
// or another version of this one).
var ErrChecksum = errors.New("bitpack: packet checksum mismatch")

// Framing, as in the articles and protocol2: a packet is a 4-byte
// little-endian CRC32 followed by the payload. The CRC (IEEE polynomial, as
// hash/crc32.ChecksumIEEE) covers the protocol id's 4 little-endian bytes,
// then four zero bytes standing for the CRC field itself, then the payload.
// The protocol id is never sent: a packet sealed with another id fails the
// check, so traffic from other programs and other protocol versions is
// dropped without a byte of overhead for the id.
//
// A CRC catches accidents and foreign traffic, not attackers: anyone can
// compute it. It is not authentication; use an AEAD (for example
// golang.org/x/crypto/chacha20poly1305, as netcode does) where packets must
// be trusted.

// Seal appends the CRC32 of (protocolID, payload) and the payload to dst.
// It allocates nothing when dst has the capacity.
//
// dst and payload may overlap (sealing a buffer in place): the payload is
// read whole, for its CRC and then moved into place, before the CRC is
// written where its first bytes may have been.
func Seal(dst []byte, protocolID uint32, payload []byte) []byte {
	crc := sealCRC(protocolID, payload)
	start := len(dst)
	dst = slices.Grow(dst, 4+len(payload))[:start+4+len(payload)]
	copy(dst[start+4:], payload) // copy moves overlapping bytes correctly
	binary.LittleEndian.PutUint32(dst[start:], crc)
	return dst
}

// Open checks a sealed packet and returns its payload (a sub-slice of
// packet). It fails with ErrChecksum for a packet shorter than 4 bytes, a
// corrupted one, or one sealed with a different protocol id.
func Open(protocolID uint32, packet []byte) ([]byte, error) {
	if len(packet) < 4 {
		return nil, ErrChecksum
	}
	payload := packet[4:]
	if binary.LittleEndian.Uint32(packet) != sealCRC(protocolID, payload) {
		return nil, ErrChecksum
	}
	return payload, nil
}

func sealCRC(protocolID uint32, payload []byte) uint32 {
	// The 8 header bytes (protocol id, then the zeroed CRC field) go through
	// the table by hand: handing a local array to crc32.Update would move it
	// to the heap.
	crc := ^uint32(0)
	for i := 0; i < 8; i++ {
		var b byte
		if i < 4 {
			b = byte(protocolID >> (8 * i))
		}
		crc = crc32.IEEETable[byte(crc)^b] ^ crc>>8
	}
	return crc32.Update(^crc, crc32.IEEETable, payload)
}

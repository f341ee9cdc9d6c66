package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/snapwire"
)

// The packet header (docs/wire.md, "Snapshot streams"), in serialize's
// bit order (least significant bit first, so whole bytes little-endian):
//
//	bits(seq, 16)
//	bool(long)
//	bits(offset, 7)   when !long: 0 is the zero base, 1..127 the base seq−offset
//	bits(offset, 15)  when long: 128..32767
//	bits(check, 32)   the base's id
//	bits(stream, 32)  the zero base only: the stream's value
//
// then the delta (bitpack's delta format) from the base to the packet's
// view. A view's id is the CRC-32 of the packet that produced it, and the
// zero base's id is the CRC-32 of its stream's value, which a packet from
// the zero base carries: every check is 32 bits a wrong base matches with
// probability 2^-32, the zero base's too. A header is 7 bytes, 8 for a
// base 128 or more packets back, 11 from the zero base.

// Header sizes and limits (internal/snapwire: the generated Receivers
// repeat them).
const (
	shortHeader = snapwire.ShortHeader // bytes, a base 1 to 127 packets back
	longHeader  = snapwire.LongHeader  // bytes, a base 128 to 32767 packets back
	zeroHeader  = snapwire.ZeroHeader  // bytes, the zero base (with the stream's value)
	maxShort    = snapwire.MaxShort    // the largest offset the short form carries
	maxHistory  = snapwire.MaxHistory  // History's bound: offsets stay below it (15 bits)
	minPacket   = snapwire.MinPacket
)

// ErrNoBase reports a packet whose base is not a view this Receiver holds:
// it never read it, it evicted it, or the view it holds under that
// sequence is another one (another stream's, or a packet's the Sender did
// not build on).
var ErrNoBase = errors.New(snapwire.NoBase)

// header is a packet's header, decoded.
type header struct {
	seq    uint16
	offset uint16 // 0: the zero base
	check  uint32 // the base's id
	stream uint32 // the zero base: the stream's value
}

// headerSize is the size of a header whose base is offset packets back.
func headerSize(offset uint16) int {
	switch {
	case offset == 0:
		return zeroHeader
	case offset > maxShort:
		return longHeader
	}
	return shortHeader
}

// appendHeader appends h to dst.
func appendHeader(dst []byte, h header) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, h.seq)
	if h.offset > maxShort {
		dst = binary.LittleEndian.AppendUint16(dst, h.offset<<1|1)
	} else {
		dst = append(dst, byte(h.offset<<1))
	}
	dst = binary.LittleEndian.AppendUint32(dst, h.check)
	if h.offset == 0 {
		dst = binary.LittleEndian.AppendUint32(dst, h.stream)
	}
	return dst
}

// parseHeader reads the header at the start of packet, refusing what no
// Sender with this history writes: a packet too short for its header and
// a delta, an offset in the long form that the short form carries, an
// offset the history cannot hold. It returns the header's size.
func parseHeader(packet []byte, history int) (header, int, error) {
	if len(packet) < minPacket {
		return header{}, 0, fmt.Errorf(snapwire.TooShort+": %w", len(packet), minPacket, shortHeader, bitpack.ErrOverflow)
	}
	h := header{seq: binary.LittleEndian.Uint16(packet)}
	n := shortHeader
	if packet[2]&1 == 0 {
		if h.offset = uint16(packet[2] >> 1); h.offset == 0 {
			n = zeroHeader
		}
	} else {
		n = longHeader
		h.offset = binary.LittleEndian.Uint16(packet[2:]) >> 1
	}
	if len(packet) < n+1 {
		return header{}, 0, fmt.Errorf(snapwire.NoDelta+": %w", h.seq, n, len(packet), bitpack.ErrOverflow)
	}
	if n == longHeader && h.offset <= maxShort {
		return header{}, 0, fmt.Errorf(snapwire.LongForm+": %w", h.seq, h.offset, maxShort, bitpack.ErrRange)
	}
	if int(h.offset) >= history {
		return header{}, 0, fmt.Errorf(snapwire.OffsetRange+": %w", h.seq, h.offset, history-1, history, bitpack.ErrRange)
	}
	if n == longHeader {
		h.check = binary.LittleEndian.Uint32(packet[4:])
	} else {
		h.check = binary.LittleEndian.Uint32(packet[3:])
	}
	if n == zeroHeader {
		h.stream = binary.LittleEndian.Uint32(packet[7:])
	}
	return h, n, nil
}

// viewID is the id of the view a packet produces: the CRC-32 (IEEE, as
// hash/crc32.ChecksumIEEE) of the whole packet, header included. The
// header holds the base's id, so ids chain from the stream's value
// through every packet that built the view.
func viewID(packet []byte) uint32 { return crc32.ChecksumIEEE(packet) }

// zeroID is the id of the zero base of the stream whose value is stream:
// the CRC-32 of its 4 little-endian bytes.
func zeroID(stream uint32) uint32 {
	// Through the table by hand: a local array handed to crc32 would
	// move to the heap.
	crc := ^uint32(0)
	for range 4 {
		crc = crc32.IEEETable[byte(crc)^byte(stream)] ^ crc>>8
		stream >>= 8
	}
	return ^crc
}

// newer reports whether sequence a is newer than b: serialize's
// sequence_greater_than, for 16-bit sequences that wrap.
func newer(a, b uint16) bool {
	return a > b && a-b <= snapwire.SeqHalf || a < b && b-a > snapwire.SeqHalf
}

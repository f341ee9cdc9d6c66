package main

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"

	"github.com/bitpack-go/bitpack/examples/gamestate/world"
)

// The encodings bitpack is compared with. Each has the signatures of
// bitpack.Codec's Append and Unmarshal, so the main loop treats them alike.

func rawEncode(dst []byte, s *world.Snapshot) ([]byte, error) {
	return world.AppendRaw(dst, s), nil
}

func jsonEncode(_ []byte, s *world.Snapshot) ([]byte, error) {
	return json.Marshal(s)
}

func jsonDecode(data []byte, s *world.Snapshot) error {
	return json.Unmarshal(data, s)
}

// gobPacketEncode uses a fresh Encoder, so the packet starts with gob's type
// descriptions and can be decoded without any earlier packet.
func gobPacketEncode(dst []byte, s *world.Snapshot) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	err := gob.NewEncoder(b).Encode(s)
	return b.Bytes(), err
}

func gobPacketDecode(data []byte, s *world.Snapshot) error {
	resetForGob(s)
	r := bytes.NewReader(data)
	if err := gob.NewDecoder(r).Decode(s); err != nil {
		return err
	}
	if r.Len() != 0 {
		return fmt.Errorf("%d trailing bytes", r.Len())
	}
	return nil
}

// newGobStream encodes every snapshot with one Encoder into a stream that
// one Decoder reads, as over a TCP connection: the type descriptions are
// sent once, before the first snapshot.
func newGobStream() *format {
	var stream bytes.Buffer
	enc := gob.NewEncoder(&stream)
	dec := gob.NewDecoder(&stream) // bytes.Buffer is an io.ByteReader: gob reads no further than each message
	return &format{
		name: "encoding/gob (stream)¹",
		encode: func(_ []byte, s *world.Snapshot) ([]byte, error) {
			// The decoder consumed everything before, so the stream now
			// holds exactly this snapshot's message.
			if err := enc.Encode(s); err != nil {
				return nil, err
			}
			return stream.Bytes(), nil
		},
		decode: func(_ []byte, s *world.Snapshot) error {
			resetForGob(s)
			if err := dec.Decode(s); err != nil {
				return err
			}
			if stream.Len() != 0 {
				return fmt.Errorf("%d bytes left in the stream", stream.Len())
			}
			return nil
		},
		check: exact,
	}
}

// resetForGob zeroes s, keeping its slices' capacity. gob leaves out zero
// fields and nil pointers and, decoding into an existing value, leaves the
// corresponding Go fields alone — so decoding into last tick's snapshot
// would keep last tick's velocity where this tick's is zero, or a weapon a
// player has since dropped. The cost of clearing counts as decoding.
func resetForGob(s *world.Snapshot) {
	clear(s.Players[:cap(s.Players)])
	clear(s.Grunts[:cap(s.Grunts)])
	*s = world.Snapshot{Players: s.Players[:0], Grunts: s.Grunts[:0]}
}

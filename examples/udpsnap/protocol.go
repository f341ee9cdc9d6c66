package main

import (
	"math/bits"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/udpsnap/sim"
)

// The protocol. A snapshot packet is Seal(protocolID, header + payload):
// the header says which tick the payload describes and which tick its
// delta was encoded against (0: none, the payload is the full snapshot).
// Which base a delta was encoded against is the application's business,
// not bitpack's: this header is where it lives. An input packet is
// Seal(protocolID, input): the client's newest decoded tick is its ack.

// header precedes every snapshot payload: 8 bytes.
type header struct {
	Tick uint32 // the tick the payload describes, from 1
	Base uint32 // the tick of the base the payload is a delta against; 0: a full snapshot
}

const headerBytes = 8

// input is what a client sends the server: who it is and the newest tick
// it decoded (its ack; 0 before the first).
type input struct {
	Client uint8 `bits:"range=0..63"`
	Ack    uint32
}

// maxClients bounds -clients (input.Client's range).
const maxClients = 64

// historySize is how many snapshots each side keeps by tick: the server
// to encode against, a client to decode against. A client whose newest
// ack is older than that gets a full snapshot.
const historySize = 64

// protocolID mixes the protocol's name with the Fingerprint of every type
// it sends, so a client built from another schema (another range, res or
// maxlen) fails Open's CRC instead of misreading packets.
func protocolID() uint32 {
	id := uint32(0x75647370) // "udps"
	for i, v := range []any{&sim.Snapshot{}, &header{}, &input{}} {
		fp, err := bitpack.Fingerprint(v)
		if err != nil {
			panic(err) // the types are this program's own: a tag error is a bug
		}
		id ^= bits.RotateLeft32(fp, 11*i)
	}
	return id
}

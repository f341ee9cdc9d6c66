package main

import (
	"math/bits"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/udpsnap/sim"
)

// The protocol. A snapshot packet is Seal(protocolID, packet), packet
// being what snapshot.Sender.Append wrote: its header names the view it
// builds on (docs/wire.md, "Snapshot streams"). An input packet is
// Seal(protocolID, input): the client's Receiver.Ack is in it.

// input is what a client sends the server: who it is and the newest
// sequence it read (its ack; 0xFFFF before the first).
type input struct {
	Client uint8 `bits:"range=0..63"`
	Ack    uint16
}

// maxClients bounds -clients (input.Client's range).
const maxClients = 64

// budget is the most bytes a snapshot packet's payload takes, below a
// typical MTU with room for the IP and UDP headers and Seal's CRC.
const budget = 1200

// history is how many views each side keeps: the server to build on
// what a client acknowledged, a client to decode against.
const history = 64

// protocolID mixes the protocol's name with the Fingerprint of every type
// it sends, so a client built from another schema (another range, res or
// maxlen) fails Open's CRC instead of misreading packets.
func protocolID() uint32 {
	id := uint32(0x75647370) // "udps"
	for i, v := range []any{&sim.Scene{}, &input{}} {
		fp, err := bitpack.Fingerprint(v)
		if err != nil {
			panic(err) // the types are this program's own: a tag error is a bug
		}
		id ^= bits.RotateLeft32(fp, 11*i)
	}
	return id
}

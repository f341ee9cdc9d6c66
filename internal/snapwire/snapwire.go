// Package snapwire holds the numbers of package snapshot's stream header
// and Receiver (docs/wire.md, "Snapshot streams") in one place: package
// snapshot uses them, and package gen writes them into the receivers of
// the clients it generates, so no client repeats them by hand.
package snapwire

// Header sizes, in bytes, and the limits of the offset to the base.
const (
	ShortHeader = 7     // a base 1 to MaxShort packets back
	LongHeader  = 8     // a base MaxShort+1 to MaxHistory-1 packets back
	ZeroHeader  = 11    // the zero base, with the stream's value
	MaxShort    = 127   // the largest offset the short form carries (7 bits)
	MaxHistory  = 32768 // History's bound: offsets stay below it (15 bits)
	MinHistory  = 2     // History's least value
	MinPacket   = ShortHeader + 1
)

// DefaultHistory is the History of a Sender or Receiver that names none.
const DefaultHistory = 64

// LeftStreams is how many of the streams it left a Receiver remembers, to
// refuse their packets.
const LeftStreams = 4

// NoAck is what a Receiver acknowledges before it has read a packet.
const NoAck = 0xFFFF

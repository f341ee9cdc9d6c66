// Package snapwire is the one home of package snapshot's header rules
// that other code repeats: the header's sizes and limits, a Receiver's
// defaults, and the words of its refusals. Package snapshot builds its
// errors from them, and package gen emits them into the Receivers it
// generates, so that a generated Receiver refuses a packet in snapshot's
// words (docs/wire.md, "Snapshot streams").
package snapwire

// HeaderSize is the size of a packet's header by its byte 2 (docs/wire.md,
// "Reading a packet", rule 1): the long form's bit, else offset 0's zero
// base, else the short form (also for a packet too short to say).
func HeaderSize(p []byte) int {
	switch {
	case len(p) < 3:
		return ShortHeader
	case p[2]&1 == 1:
		return LongHeader
	case p[2] == 0:
		return ZeroHeader
	}
	return ShortHeader
}

// Header sizes and limits.
const (
	ShortHeader    = 7     // bytes, a base 1 to 127 packets back
	LongHeader     = 8     // bytes, a base 128 to 32767 packets back
	ZeroHeader     = 11    // bytes, the zero base (with the stream's value)
	MaxShort       = 127   // the largest offset the short form carries
	MaxHistory     = 32768 // History's bound: offsets stay below it (15 bits)
	MinHistory     = 2     // History's least value
	MinPacket      = ShortHeader + 1
	DefaultHistory = 64 // History when none is given
	LeftStreams    = 4  // how many of the streams it left a Receiver remembers

	// SeqHalf is half the sequences' 16-bit space: a sequence is newer
	// than another at most SeqHalf ahead of it, modulo 65536
	// (serialize's sequence_greater_than).
	SeqHalf = 32768
)

// NoAck is what a Receiver acknowledges before it has read a packet.
const NoAck = 0xFFFF

// The words of a Receiver's refusals. Each is a fmt format whose verbs
// are %d (a decimal integer) and %#08x (a 32-bit value as 0x and 8 hex
// digits) only, so that other languages render it as fmt does; the error
// is the text, ": " and the text of the error it wraps (a sentinel, or
// for Delta the delta's refusal).
const (
	// NoBase is the text of snapshot.ErrNoBase.
	NoBase = "snapshot: the packet's base is not a view this receiver holds"

	TooShort    = "snapshot: a packet of %d bytes: the smallest is %d (a %d-byte header and a delta)"     // overflow: bytes, MinPacket, ShortHeader
	NoDelta     = "snapshot: packet %d: a %d-byte header and a delta in %d bytes"                         // overflow: seq, header size, bytes
	LongForm    = "snapshot: packet %d: base offset %d in the long form (the short form carries 0 to %d)" // range: seq, offset, MaxShort
	OffsetRange = "snapshot: packet %d: base offset %d out of range [0, %d] (History %d)"                 // range: seq, offset, History-1, History
	ZeroBase    = "snapshot: packet %d: the zero base of stream %#08x has id %#08x, not %#08x"            // no base: seq, stream, its id, check
	NotHeld     = "snapshot: packet %d: its base %d (offset %d) is not held"                              // no base: seq, base seq, offset
	NotBase     = "snapshot: packet %d: the view held as %d is not its base (check %#08x, held %#08x)"    // no base: seq, base seq, check, held id
	LeftStream  = "snapshot: packet %d: of stream %#08x, which this receiver left"                        // no base: seq, stream
	TooOld      = "snapshot: packet %d: older than the %d sequences kept up to %d"                        // range: seq, History, newest
	Delta       = "snapshot: packet %d"                                                                   // the delta's refusal: seq

	// History refuses a History a Sender or Receiver cannot keep: the
	// History asked for, DefaultHistory, MinHistory, MaxHistory.
	History = "snapshot: History %d: want 0 (the default, %d) or a power of two from %d to %d (sequences wrap at 65536, which History must divide)"
)

// Words are the formats above, by name: what gen emits.
var Words = []struct{ Name, Format string }{
	{"TooShort", TooShort},
	{"NoDelta", NoDelta},
	{"LongForm", LongForm},
	{"OffsetRange", OffsetRange},
	{"ZeroBase", ZeroBase},
	{"NotHeld", NotHeld},
	{"NotBase", NotBase},
	{"LeftStream", LeftStream},
	{"TooOld", TooOld},
	{"Delta", Delta},
	{"History", History},
}

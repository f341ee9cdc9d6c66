// Package bitio is a bit writer and reader for the serialize 1.0 wire format
// of Glenn Fiedler's C++ serialize library: the same calls in the same
// order produce and accept the same bytes as the C++ reference, so a Go
// server can talk to a C++ client bit for bit. The format, with what
// bitpack adds, is specified in the repository's docs/wire.md.
//
// # Bit order
//
// Values are packed least-significant bit first. The first value occupies
// the lowest bits of the first byte, and a value that does not fit in the
// current byte continues in the low bits of the next one. Writing 3 bits
// a = 0b101, then 7 bits b = 0b1111000, then 1 bit c = 1:
//
//	bit:     7 6 5 4 3 2 1 0            7 6 5 4 3 2 1 0
//	byte 0:  b b b b b a a a    byte 1: 0 0 0 0 0 c b b
//	         1 1 0 0 0 1 0 1            0 0 0 0 0 1 1 1
//	         = 0xc5                     = 0x07
//
// The packet is ceil(bits/8) bytes; the unused high bits of the last byte
// are zero on write and ignored on read. A packet of n bytes holds exactly
// 8n bits. Multi-byte values are therefore little-endian when aligned. The
// Writer collects bits in a 64-bit scratch word and appends it to the
// output slice whole; the Reader loads a 64-bit little-endian window at the
// current byte, so neither touches memory a byte at a time on the hot path.
//
// # Primitives
//
//	bits(v, n)          the low n bits of v, 0 <= n <= 64; v must be < 2^n
//	bool                1 bit
//	int(v, min, max)    v-min in BitsRequired(min, max) bits; 0 bits if min == max
//	float32/float64     raw IEEE-754 bits, every pattern preserved
//	compressed float    a code in [0, M] (see package quant), float32 arithmetic
//	int_relative        increasing sequences: 1 bit for +1, up to 23 bits for
//	                    +69914, then cur itself as 32 raw bits
//	align               zero bits to the next byte boundary
//	bytes(p)            align, then p verbatim (the length is not written)
//	string(s, maxlen)   int(len, 0, maxlen), then bytes
//
// # Errors
//
// Errors are sticky on both sides: the first one is kept and every later
// call is a no-op (reads return zero values), so a sequence of calls needs
// one Err check at the end — except before a loop or allocation whose size
// came from the packet, which must check Err first. Every error is an
// *Error naming the operation and its starting bit offset, and it wraps one
// of four sentinels for errors.Is:
//
//	ErrOverflow       a read needs more bits than the packet has left
//	ErrRange          a value outside its range on either side, or an invalid
//	                  argument (n outside 0..64, min > max, bad parameters)
//	ErrPadding        a non-zero bit in alignment padding
//	ErrInvalidString  a string with invalid UTF-8 or a NUL byte
//
// Invalid arguments report ErrRange rather than panic. The Writer never
// writes part of a value: a refused value leaves the output as it was.
//
// # Trust model
//
// The writer's caller is trusted to mean what it writes, but the Writer
// still refuses what no reader would accept (values that do not fit, strings
// a reader would refuse, NaN in a compressed float), so a bug surfaces at
// the sender. Everything the Reader sees is hostile. It refuses:
//
//   - any read past len(data), without ever loading a byte beyond it;
//   - a ranged integer, string length or compressed-float code above its
//     maximum (a bit pattern the writer could not have produced);
//   - non-zero padding bits (they would let two packets carry one value);
//   - invalid UTF-8 and NUL bytes in strings (a NUL gives the string two
//     lengths: the wire's and strlen's);
//   - an int_relative that wraps or does not increase in any tier, and, to
//     keep encodings canonical, an absolute-tier value whose difference a
//     smaller tier could have carried (stricter than the reference).
//
// It never returns a value it did not fully read, and it allocates nothing
// except the string ReadString returns.
//
// ValidString and ValidStringBytes are the string rule on its own (valid
// UTF-8, no NUL), for code that checks strings before or after it moves
// them: 8 bytes at a time while they are ASCII, which the strings of most
// packets are.
//
// # Runs of values
//
// ReadUints and WriteUints move a whole slice of same-width values (an
// array of IDs, say) in one call: the same bits as a ReadBits/WriteBits per
// element, without a call per element. Like every other method they are
// all or nothing: a value that does not fit, or a packet too short for all
// of them, writes or reads none.
//
// WriteBitsUnchecked is WriteBits without the check and the error, for a
// caller that has checked its values already (bitpack's encoder packs
// several checked fields into one word and writes it with this). A value
// that breaks its contract garbles the packet but never panics.
//
// # Floats
//
// Compressed floats use float32 arithmetic rounded at every step, with no
// fused multiply-add; see package quant for the formula and why it matters.
// WriteCompressedFloat validates its parameters on every call; code that
// writes the same field often builds a quant.Float once and calls
// WriteQuantized, which produces the same bytes.
package bitio

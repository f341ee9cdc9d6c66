// Package bitpack turns tagged Go structs into the smallest possible game
// network packets and back, safely, in the serialize 1.0 wire format that
// C++, C#, Rust and Go game code already speak.
//
// Tag the structs you already have; bitpack compiles each type's tags once
// into a cached plan and runs it on every Marshal and Unmarshal:
//
//	type Player struct {
//		Health int32  `bits:"range=0..1000"`                        // 10 bits
//		Pos    Vec3   `bits:"float,min=-1024,max=1024,res=0.01"`    // 3 × 18 bits
//		Rot    Quat   `bits:"quat,bits=9"`                          // 29 bits
//		Name   string `bits:"maxlen=15"`                            // 4 bits + align + bytes
//		Alive  bool                                                 // 1 bit
//	}
//	data, err := bitpack.Marshal(&p)
//	err = bitpack.Unmarshal(data, &q)
//
// For a type used in a hot loop, NewCodec returns a typed handle that skips
// the cache lookup and allocates nothing in steady state.
//
// # Tags
//
// Options are comma-separated, without spaces. Integer literals use Go
// syntax (-100, 0x7f); float literals are parsed at the field's precision.
//
//	(none)        bool: 1 bit; integers: raw 8/16/32/64 bits (int and uint are
//	              64 on every platform); floats: raw IEEE-754 bits
//	range=A..B    integer in [A, B]: v-A in bits_required(A, B) bits (0 if A == B)
//	bits=N        integer in N raw bits (two's complement for signed types)
//	float,min=A,max=B,res=R
//	              compressed float: ceil((B-A)/R) steps, see package quant
//	clamp         with float: clamp finite out-of-range values instead of failing
//	maxlen=N      string, []byte, []T: a length in [0, N] first (required for them)
//	quat,bits=B   [4]float32/64 or a struct of four floats: smallest-three, 2+3B bits
//	sparse        []*T (with maxlen) or [N]*T: only non-nil elements, by index
//	check=NAME    on a bitpack.Check field: a 32-bit serialize check
//	-             skip the field
//
// [N]byte is an aligned block of N bytes; [N]T is N elements; *T is a
// presence bit and T. Options on a pointer, array or slice apply to its
// elements (maxlen aside). Options on a struct-typed field reach every leaf
// inside it that has no tag of its own and can take them — float options
// reach float fields, range and bits reach integers, quat reaches
// quaternion-shaped fields — so one tag quantizes a whole Vec3; a tag that
// reaches no leaf, or reaches one it cannot hold (range=0..300 on a uint8),
// is an error. Embedded structs, exported or not, are encoded inline at
// their position, their fields promoted as encoding/json promotes them: a
// field hidden by a shallower field of the same name, or sharing its name
// with another at the same depth, is not sent (and may not carry a tag,
// which would have no effect). An embedded pointer to a struct is a
// pointer field like any other, with a presence bit. Types that implement
// both Marshaler and Unmarshaler encode themselves (UnmarshalBits runs once
// per field, on a new zero value that replaces the field when the packet is
// accepted; see Unmarshaler).
//
// Every tag is validated when the plan is compiled (by NewCodec, Describe,
// or the first Marshal/Unmarshal of the type): unknown options, malformed
// numbers, A > B, ranges or widths that do not fit the Go type, res <= 0,
// non-finite bounds, missing maxlen, options that apply to nothing, and
// compressed floats that float32 cannot hold canonically all return a
// *TagError naming the type, the field and the tag. A typo never silently
// changes the wire. Maps, channels, functions, complex numbers and
// interfaces without a registered union are refused the same way.
//
// # Wire format
//
// A struct is its fields in declaration order, packed least-significant bit
// first, with nothing in between: no field ids, no lengths, no padding but
// the alignment strings and byte blocks ask for. A C++ Serialize function
// making the same serialize calls in the same order reads and writes the
// same bytes:
//
//	bool                 serialize_bool
//	range=A..B           serialize_int(v, A, B) (serialize_int64 past 32 bits)
//	raw integers         serialize_bits(v, 8/16/32) / serialize_uint64
//	float32 / float64    serialize_float / serialize_double
//	float,...            serialize_compressed_float(v, min, max, res)
//	string maxlen=N      serialize_string(s, N+1)   (buffer size = maxlen + 1)
//	[N]byte              serialize_bytes(p, N)
//	[]byte maxlen=N      serialize_int(len, 0, N); serialize_bytes(p, len)
//	[]T maxlen=N         serialize_int(len, 0, N); then each element
//	*T                   serialize_bool(present); then T if present
//	sparse               serialize_int_relative(prev, index) per element, then
//	                     serialize_int_relative(prev, length)
//	check=NAME           serialize_check(NAME)
//
// float64 compressed floats, quaternions, unions and int/uint fields wider
// than the reference's 32-bit ranged ints use the same primitives; see the
// README's wire notes. Package bitio documents the primitives.
//
// # Errors
//
// Errors about data are *Error values naming the operation, the Go type, the
// field path and, when decoding, the bit offset; they wrap a sentinel for
// errors.Is:
//
//	bitpack: decode main.Snapshot: field Players[3].Health at bit 117: value 1013 out of range [0, 1000]
//	bitpack: encode main.Player: field Name: string of 40 bytes exceeds maxlen 15
//
// ErrOverflow, ErrRange, ErrPadding and ErrInvalidString come from package
// bitio; ErrTrailing, ErrDepth and ErrCheck are bitpack's. Tag problems are
// *TagError values. Misuse (a nil pointer, a non-pointer to Unmarshal)
// returns an error too; nothing panics.
//
// # Guarantees
//
// Every packet is treated as hostile. The test suite checks each of these
// with table tests, gopter properties and native fuzzing:
//
//   - Round trip: Unmarshal(Marshal(v)) equals v for every value its tags
//     allow, except that compressed floats come back as their quantum and
//     quaternions within the documented error, the identity exactly (nil and empty slices and
//     strings are the same on the wire).
//   - Canonical: every packet Unmarshal accepts re-encodes to the same bytes
//     (the last byte's padding bits aside). Non-zero padding, out-of-range
//     codes and lengths, quaternion codes that are not canonical, and
//     compressed-float tags float32 cannot round-trip are all refused for
//     that reason.
//   - Hostile input: no panic, no hang, no unbounded recursion (MaxDepth,
//     64 levels), and a packet buys only the work and memory its bits pay
//     for. A length prefix is checked against maxlen and against the bits
//     left in the packet before anything is allocated, and so is a
//     pointer's presence bit against its pointee's fixed size. Whatever
//     the tags allow, one decode visits at most 4096 values plus 64 per bit
//     of input (fields, elements, pointer and sparse slots, union members,
//     hook calls) and allocates at most 1 MiB plus 64 bytes per bit of
//     input (every slice, string, pointee, union member and hook value,
//     counted at Go's size class, and twice where a single-pass decode
//     copies it from its scratch value into yours), charged before
//     anything is allocated or looped over; past either the packet is
//     refused with ErrRange, naming the field. Values that are wide for
//     their bits or take none (a struct whose only field is range=5..5, an
//     empty struct, skipped fields, a hook that reads nothing) therefore
//     cannot multiply by nesting. Marshal refuses the same way a value its
//     decoder would refuse, so every value Marshal accepts decodes. Types
//     whose every value pays for itself (no skipped padding, no elements
//     that take no bits, no unions or hooks) never reach either limit and
//     pay nothing for the check on encode. Values decoded one after
//     another from one Reader (Decode, Codec.Decode, Union.Decode, and
//     what hooks decode) share one allowance, for the bits the Reader held
//     at the first; values encoded one after another on one Writer are
//     checked the same way, for the bits written since the first, so a
//     stream Encode accepts decodes too. Not counted: one value of the
//     type itself, which a decode allocates only when no scratch value of
//     the type is free (the first decode, or several at once). A tag whose
//     single slice could claim more than 1 MiB of elements that take no
//     bits is refused when compiled, and no slice tag may allow more than
//     1 TiB (1 GiB on 32-bit platforms). A hook that decodes a buffer of
//     its own does it within its decode's limits with UnmarshalWithin
//     (see Unmarshaler).
//   - Atomic: a failed Unmarshal or Decode leaves the value exactly as it was.
//     Decoding lands in a scratch value and is copied into yours only once
//     the whole packet is accepted (or, for types with hooks, unions or
//     sparse arrays, validates the whole packet before storing anything).
//   - Whole packets: Unmarshal refuses whole bytes left over (ErrTrailing).
//   - Encoding refuses values outside their tags — out-of-range integers,
//     too-long or invalid strings, NaN and infinite compressed floats —
//     instead of truncating or masking them.
//   - Concurrency: Marshal, Unmarshal and Codec are safe for concurrent use;
//     each type's plan is compiled exactly once, even when goroutines race to
//     use it first. As with any function, the packet and the value must not
//     be modified by another goroutine during the call.
//
// # Protocol features
//
// Sparse arrays send only the non-nil elements of []*T or [N]*T, each
// preceded by its index relative to the previous one (1 bit for the next
// slot, at most 38 bits for any jump). A Union tells packet types apart with
// a type index of bits_required(0, n-1) bits, and, registered for an
// interface type with RegisterUnion, encodes every field of that interface
// type: messages inside a packet. A bitpack.Check field catches read and
// write code that disagree. Seal and Open add and verify a CRC32 keyed by a
// protocol id that is never sent, and Fingerprint hashes a type's wire layout
// so that clients built from another schema are rejected by that same CRC.
//
// # Performance
//
// Plans are flat lists of operations with everything precomputed: field
// offsets, bit counts, range offsets, quantization parameters and field
// paths. Small arrays and nested structs are flattened into their parent.
// The README's benchmark table compares Codec and the any-typed API with
// the same packet written by hand against bitio, and with the Go
// serializers a game programmer would otherwise use.
package bitpack

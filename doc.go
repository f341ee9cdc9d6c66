// Package bitpack turns tagged Go structs into the smallest possible game
// network packets and back, safely, in the serialize 1.0 wire format of
// Glenn Fiedler's C++ serialize library (package gen writes matching C++,
// C#, TypeScript and Rust clients, and faster Go, from the same types).
//
// Tag the structs you already have; bitpack compiles each type's tags once
// into a cached plan and runs it on every Marshal and Unmarshal:
//
//	type Vec3 struct{ X, Y, Z float32 }
//	type Quat struct{ X, Y, Z, W float32 }
//
//	type Player struct {
//		Health int32  `bits:"range=0..1000"`                     // 10 bits
//		Pos    Vec3   `bits:"float,min=-1024,max=1024,res=0.01"` // 3 × 18 bits
//		Rot    Quat   `bits:"quat,bits=9"`                       // 29 bits
//		Name   string `bits:"maxlen=15"`                         // 4 bits + align + bytes
//		Alive  bool                                              // 1 bit
//	}
//
//	data, err := bitpack.Marshal(&p)
//	err = bitpack.Unmarshal(data, &q)
//
// For a type used in a hot loop, NewCodec returns a typed handle that skips
// the cache lookup, and runs Go code generated for the type when there is
// some (see Generated code); Describe prints what every field costs. The exact bytes
// of every tag, precise enough to write another decoder, are specified in
// the repository's docs/wire.md.
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
//	clamp         with range, bits or float: send out-of-range values as the
//	              nearer bound instead of failing (NaN and ±Inf are still refused)
//	unit=U        integers in units: a Go duration on a time.Duration
//	              (unit=1ms), a count on other integers (unit=10); range and
//	              bits count units; values round to the nearest unit. On a
//	              time.Time (required, with range or bits): its Unix time
//	              in units of U
//	maxlen=N      string, []byte, []T, map[K]V: a length in [0, N] first
//	              (required for them); a map's entries follow in ascending
//	              key order, each key then its value (K an integer, string
//	              or bool)
//	elem.OPT      OPT for the elements of a slice, array, pointer or map:
//	              []string takes maxlen=4,elem.maxlen=15 (prefixes nest)
//	key.OPT       OPT for a map's keys: map[string]int32 takes
//	              maxlen=8,key.maxlen=15 (range, bits and maxlen only)
//	quat,bits=B   [4]float32/64 (x, y, z, w), a struct of four floats named
//	              W, X, Y, Z, or a float w and a vector of three (mathgl's
//	              Quat{W; V}): smallest-three, 2+3B bits, B = 4..22; wxyz
//	              or xyzw gives the order of an array or of four floats
//	              with other names (gonum's quat.Number is wxyz)
//	sparse        []*T (with maxlen) or [N]*T: only non-nil elements, by index
//	check=NAME    on a bitpack.Check field: align, then a 32-bit hash of NAME
//	-             skip the field
//
// [N]byte is an aligned block of N bytes; [N]T is N elements; *T is a
// presence bit and T. Options on a pointer, array or slice apply to its
// elements (maxlen and sparse aside). Options on a struct-typed field reach
// every leaf inside it that has no tag of its own and can take them — float
// options reach float fields, range and bits reach integers, quat reaches
// quaternion-shaped fields — so one tag quantizes a whole Vec3; a tag that
// reaches no leaf, or reaches one it cannot hold (range=0..300 on a uint8),
// is an error. Embedded structs, exported or not, are encoded inline at
// their position, their fields promoted as encoding/json promotes them: a
// field hidden by a shallower field of the same name, or sharing its name
// with another at the same depth, is not sent (and may not carry a tag,
// which would have no effect). An embedded pointer to a struct is a
// pointer field like any other, with a presence bit. Types that implement
// both Marshaler and Unmarshaler encode themselves (see Unmarshaler).
//
// Enums are ranged integers: a `type Team uint8` field tagged range=0..3
// refuses, on both sides, the values Team does not have, and Describe
// names the field's Go type. Leave room for values still to come: changing
// the range changes the wire.
//
// Every tag is validated when the plan is compiled (by NewCodec, Describe,
// or the first Marshal/Unmarshal of the type): unknown options, malformed
// numbers, A > B, ranges or widths that do not fit the Go type, res <= 0,
// non-finite bounds, missing maxlen, options that apply to nothing,
// compressed floats that float32 cannot hold canonically, and a struct tag
// key one edit from "bits" (bit, Bits, bitz) all return a *TagError naming
// the type, the field and the tag. A typo never silently changes the wire.
// Channels, functions, complex numbers, interfaces without a registered
// union, and strings, slices and maps without maxlen are refused the same
// way.
//
// # Wire format
//
// A struct is its fields in declaration order, packed least-significant bit
// first, with nothing in between: no field ids, no lengths, no padding but
// the alignment strings, byte blocks and checks ask for. A C++ Serialize
// function making the same serialize calls in the same order reads and
// writes the same bytes:
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
//	check=NAME           yojimbo's serialize_check(stream, "NAME"): align, then
//	                     the 32-bit hash of the name (serialize 1.11 has no
//	                     such call: serialize_align, then serialize_bits(hash, 32))
//
// Compressed float64 fields, quaternions (bitpack's own smallest-three:
// 2^B − 2 steps per component, so the identity round-trips exactly, with
// canonical codes), unions, hooks, Seal/Open framing and bits=N on signed
// integers are bitpack's own, built from the same primitives. The
// repository's docs/wire.md specifies all of it, with worked examples
// checked against this package; package bitio implements the primitives.
//
// # Errors
//
// Errors about data are *Error values naming the operation, the Go type, the
// field path and, when decoding, the bit offset; they wrap a sentinel for
// errors.Is:
//
//	bitpack: encode main.Player: field Name: string of 32 bytes exceeds maxlen 15
//	bitpack: decode main.Snapshot: field Players[1].Health at bit 129: value 1001 out of range [0, 1000]
//
// Error.Path tells a server which entity of a snapshot failed
// ("Entities[250].Health"). Encoding is all-or-nothing: one value outside
// its tag refuses the packet, unless the tag says clamp.
//
// ErrOverflow, ErrRange, ErrPadding and ErrInvalidString come from package
// bitio; ErrTrailing, ErrDepth and ErrCheck are bitpack's, and Open returns
// ErrChecksum. Tag problems are *TagError values. Misuse (a nil pointer, a
// non-pointer to Unmarshal) returns an error too; nothing panics.
//
// # Guarantees
//
// Every packet is treated as hostile. The test suite checks each of these
// with table tests, gopter properties and native fuzzing:
//
//   - Round trip: Unmarshal(Marshal(v)) equals v for every value its tags
//     allow, except that compressed floats and unit= integers come back as
//     their quantum and quaternions within the documented error, the
//     identity exactly (nil and empty slices and strings are the same on
//     the wire).
//   - Canonical: every packet Unmarshal accepts re-encodes to the same bytes
//     (the last byte's padding bits aside). Non-zero padding, out-of-range
//     codes and lengths, quaternion codes that are not canonical, and
//     compressed-float tags float32 cannot round-trip are all refused for
//     that reason.
//   - Hostile input: no panic, no hang, no unbounded recursion (MaxDepth,
//     64 levels), and a packet buys only the work and memory its bits pay
//     for. A length prefix (a map's count) is checked against maxlen and
//     against the bits left in the packet, at its elements' fewest bits,
//     before anything is read or allocated for them: a packet too short
//     for them is refused there, with ErrOverflow naming the slice ("6
//     elements need at least 546 bits, 4 remain"), whatever its path and
//     target (docs/wire.md, "Truncated packets"). Whatever the tags allow,
//     one decode visits at most 4096 values plus 64 per bit of input
//     (fields, elements, pointees, union members, hook calls, and sparse
//     slots at an eighth of a value each) and allocates at most 1 MiB
//     plus 64 bytes per bit of input (every slice, string, pointee, union
//     member and hook value, counted at Go's size class for a 64-bit
//     platform's sizes on every platform, and twice for the elements of a
//     slice that keep fields off the wire, which a decode grows in its
//     scratch value and again in yours), charged before anything is
//     allocated or looped over; past either the packet is refused with
//     ErrRange, naming the field. Layout exports the figures
//     (Field.Charge, Field.CountBits) so that clients in other languages
//     refuse exactly what Go refuses. Values that are wide for
//     their bits or take none (a struct whose only field is range=5..5, an
//     empty struct, skipped fields, a hook that reads nothing) therefore
//     cannot multiply by nesting. Marshal refuses the same way a value its
//     decoder would refuse, so every value Marshal accepts decodes; types
//     whose every value pays for itself never reach either limit and pay
//     nothing for the check on encode. Values decoded one after another
//     from one Reader (Decode, Codec.Decode, Union.Decode, and what hooks
//     decode) share one allowance, for the bits the Reader held at the
//     first; values encoded one after another on one Writer are checked
//     the same way, so a stream Encode accepts decodes too. Not counted:
//     one value of the type itself, which a decode allocates only when no
//     scratch value of the type is free. A tag whose single slice could
//     claim more than 1 MiB of elements that take no bits is refused when
//     compiled, and no slice tag may allow more than 1 TiB (1 GiB on 32-bit
//     platforms). A hook that carries a buffer of its own writes it with
//     MarshalWithin and reads it with UnmarshalWithin, within the packet's
//     limits on both sides (see Unmarshaler). These are
//     limits of this decoder, not wire rules: see docs/wire.md, "Limits of
//     the Go decoder".
//   - Atomic: a failed Unmarshal or Decode leaves the value exactly as it
//     was. Every decode lands in a scratch value and is committed into
//     yours only once the whole packet is accepted.
//   - Deterministic: what a decode leaves in your value depends only on
//     the packet and on what the value held, never on earlier decodes;
//     Unmarshal says what is reused (elements to a slice's capacity, even
//     one that grows; non-nil pointees) and when an empty slice, []byte or
//     map is nil (where your value held nil or nothing there).
//   - Whole packets: Unmarshal refuses whole bytes left over (ErrTrailing).
//   - Encoding refuses values outside their tags — out-of-range integers
//     (unless clamp), too-long or invalid strings, NaN and infinite
//     compressed floats, quaternions that are not unit length (the all-zero
//     one, Go's zero value, encodes as the identity) — instead of
//     truncating or masking them.
//   - Concurrency: Marshal, Unmarshal and Codec are safe for concurrent use;
//     each type's plan is compiled exactly once, even when goroutines race to
//     use it first. As with any function, the packet and the value must not
//     be modified by another goroutine during the call.
//
// # Protocol features
//
// Sparse arrays send only the non-nil elements of []*T or [N]*T, each
// preceded by its index relative to the previous one (1 bit for the next
// slot, at most 38 bits for any jump).
//
// A Union tells packet types apart with a type index and, registered for
// an interface type with RegisterUnion, encodes every field of that
// interface type: messages inside a packet. The index's width follows the
// member count unless IndexBits fixes it; a union can grow (members
// appended at the end, the others' bytes unchanged) only with a fixed
// width. At numbers members as an existing protocol does.
//
// A bitpack.Check field catches read and write code that disagree. Seal and
// Open add and verify a CRC32 keyed by a protocol id that is never sent,
// and Fingerprint hashes a type's wire layout — any range, resolution,
// maxlen, field order or union member — so that clients built from another
// schema are rejected by that same CRC.
//
// # Delta snapshots
//
// A game server sends each client the world many times a second, and
// almost all of it is what the client already has. AppendDelta encodes a
// value against a base the receiver holds — the last snapshot that client
// acknowledged — and UnmarshalDelta rebuilds the value from the delta and
// that base:
//
//	delta, err := codec.AppendDelta(buf[:0], &acked, &world)   // server
//	err = codec.UnmarshalDelta(delta, &snapshots[base], &world) // client
//
// Fields compare by their wire codes, so a float that moved less than its
// quantum is unchanged, and an unchanged value is the 1-byte packet 00. A
// changed struct costs a bit per field plus what changed; numbers that
// moved a little send the small difference of their codes; arrays,
// slices, sparse arrays and maps name their changed elements or entries
// by index or key, so k changes of n cost about k, not n; slices that
// grow, pointers that appear, union members that change type, strings,
// bytes and hooks (compared by the bits they write) are sent whole. The
// format is docs/wire.md's "Delta encoding".
//
// Which base a delta was encoded against is the stream's business: package
// snapshot does it (per-client views, acks, base identity, a byte budget;
// examples/udpsnap uses it over UDP), or put the snapshot's tick and its
// base's tick in your own header, keep the snapshots you decoded by tick,
// and acknowledge the newest in your own packets. Quantize makes a
// value what decoding its encoding gives, so a server that keeps the
// snapshots it sent quantized holds exactly what its clients hold; the
// delta is the same either way.
//
// UnmarshalDelta decodes untrusted bytes with every guarantee Unmarshal
// gives: v is untouched on error (also when v is the base itself), an
// accepted delta re-encodes to the same bytes against the same base,
// trailing bytes are refused, and the allowances apply to what the delta
// adds (copying the base is not charged). Decoded into the base itself, a
// delta costs what it changes, however large the base; into another
// value, the base is copied, for less than Unmarshal of its encoding
// costs. A delta checks what it changes, not the rest of the base: keep
// your bases what a decode makes them (Quantize; see AppendDelta).
// bitpacktest.CheckDelta property-tests a type's deltas in one line.
//
// # Generated code
//
// For the hottest messages, package gen's Go function (bitpack gen -lang
// go) writes straight-line append and decode functions into the types'
// own package, which register themselves (RegisterGenerated). A Codec of
// such a type runs them in Append, Marshal and Unmarshal — two to four times
// faster than the plan on typical game messages — and runs the plan for
// anything they refuse, so every error, every refusal and every byte is
// the plan's: the generated code is only ever a faster way to the same
// answer, tested against the plan by gen's differential tests and fuzz
// target. Code generated for another layout of the type (a tag changed
// since), or by a bitpack whose rules the generated code repeats have
// changed since, is not used, and NewCodec reports it.
//
// # Allocations
//
// Codec.Append, Append and Encode allocate nothing when the buffer has
// room. Codec.Unmarshal, Unmarshal and Decode allocate nothing into a
// value reused from the previous packet, but for slices that must grow,
// pointees that must be made, and strings that changed (made once the
// packet is accepted, a value's in one allocation). AppendDelta,
// UnmarshalDelta and Quantize allocate nothing either, the same way
// (into another value than the base, pointees a delta removes are kept
// for the next that appears; into the base itself, what a delta adds is
// new); hooks and union members held by value allocate in a delta, and so
// does each entry a delta changes in a map too large to gather in place
// (see docs/wire.md, "Limits of the Go decoder"). A union member
// registered as a value (not a pointer) costs an allocation or two per
// encode. The README's benchmark tables compare Codec and the any-typed
// API with the same packet written by hand against bitio, and with the Go
// serializers a game programmer would otherwise use.
package bitpack

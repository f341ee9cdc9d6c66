// Package gen generates client code from the Go types a bitpack server
// already has: the tagged structs are the schema, and the plan bitpack
// compiles for them (read through bitpack.Describe and
// bitpack.Fingerprint) is the single source of truth for every generated
// line. CPP writes C++ for serialize, CSharp C# for Unity, TypeScript a
// module for the browser, Rust a Rust module, and Go straight-line code
// for the package of the types, which bitpack's Codecs then run (see Go);
// the command github.com/bitpack-go/bitpack/cmd/bitpack runs them on a
// package (bitpack gen -lang cpp|cs|ts|go|rust -o net.h ./net Snapshot).
//
// # Go
//
// Package golang renders the same model as Go for the types' own
// package. The encoder checks each field as the
// plan does and queues its code (put); neighbours are packed at constant
// shifts into words of up to 64 bits, each written with one
// bitio.Writer.WriteBitsUnchecked (wflush), and strings, byte arrays and
// raw runs go through bitio. The decoder does not use a bitio.Reader: pos
// and end count bits, fields are queued (field) and read in groups of up
// to 57 bits with one length check and one 64-bit load (flush); a group
// ends where control flow does. Values go into a shadow — a variable per
// part at a fixed place, a Go value per element inside loops — committed
// into the target only when the whole packet is accepted, as the plan's
// commit (commit.go) does. Both functions only say whether they did the
// job: bitpack.Codec runs the plan for anything they refuse, so the
// generated code needs no error messages, and refusing more than the plan
// would only cost time. Types the generated code cannot be proven equal
// for (maps, unions, hooks, sparse arrays, checks, values that could
// reach the decode allowances) are refused by name (goCost bounds the
// allowances).
//
// # C++
//
// The header is C++11, self-contained but for the serialize header it
// includes (Options.Include). Each struct holds plain fields and has
// template <typename Stream> bool Serialize(Stream & stream), written with
// serialize's macros where their semantics are bitpack's, and with the
// header's bitpack_* macros (a block guarded by BITPACK_GEN_RUNTIME_n,
// built only on serialize_bits, serialize_bool, serialize_int,
// serialize_bytes and serialize_align) for what serialize does not do or
// does differently:
//
//	Go field                  C++ field                         Serialize
//	bool                      bool X                            serialize_bool
//	uint8/16/32               uintN_t X                         serialize_bits(X, N)
//	uint64, uint              uint64_t X                        serialize_uint64
//	int8..int64, int          intN_t X (int: int64_t)           bitpack_signed_bits(X, N)
//	range=A..B in int32       as above                          check on write, serialize_int(X, A, B)
//	other ranges, A == B      as above                          bitpack_signed_range / bitpack_unsigned_range
//	bits=N unsigned           as above                          check, serialize_bits (N <= 32), else bitpack_unsigned_bits
//	bits=N signed             as above                          bitpack_signed_bits(X, N)
//	float32 / float64         float / double                    serialize_float / serialize_double
//	float,min,max,res         float / double                    bitpack_compressed_float / _double (…_clamp with clamp)
//	string maxlen=N           char X[N+1]                       bitpack_string(X, N)
//	[]byte maxlen=N           int X_count; uint8_t X[N]         check, serialize_int(X_count, 0, N), serialize_bytes
//	[N]byte                   uint8_t X[N]                      serialize_bytes(X, N)
//	[N]T                      T X[N]                            a loop
//	[]T maxlen=N              int X_count; T X[N]               the count, then a loop
//	*T                        bool X_present; T X               serialize_bool(X_present), then T
//	struct                    the struct                        serialize_object, or its fields inline under a tag
//	[N]*T, []*T sparse        bool X_present[N]; T X[N] (+count) bitpack_int_relative before each present element
//	unit=U, integer clamp     the Go value (Duration: int64_t U)   bitpack_signed_units / bitpack_unsigned_units
//	time.Time unit=U          int64_t U since 1970                bitpack_signed_units
//	named int with constants  enum class T : its integer type     as the integer, through a local of that type
//	quat,bits=B               float X[4], or the Go type's struct  bitpack_quat(x, y, z, w, B) wherever they sit
//	map[K]V maxlen=N          int X_count; K X_keys[N]; V X[N]     the count, entries in ascending key order
//	registered interface      struct I { uint32_t type; A A; ... } serialize_int(type), then the member
//	  with At, IndexBits      type is the wire index               serialize_bits(type, width)
//	bitpack.Check check=NAME  nothing                           bitpack_check(hash of NAME)
//	MarshalBits types         your type                         serialize_object
//
// Containers nest (a [4][]*T is bool X_present[4][N], int X_count[4], T
// X[4][N]); a member needing two companions of one kind gets X_count2.
// Names are Go's: a name that is a C++ keyword or one the generated code
// uses (stream, Serialize, i0, ...) gets an underscore; types of different
// packages with one name are package_Name; anonymous structs are
// Owner_Field.
//
// Why fixed arrays rather than std::string, std::vector and pointers: they
// are what serialize code looks like, they need no allocator, and they
// bound everything a packet can make the reader do — a hostile length can
// only be refused. Their cost is memory: a struct is as big as its largest
// value (the example's Snapshot of up to 8 players is 328 bytes; a sparse
// [70000]*uint8 is 140000). A union holds every member, not one at a
// time (Msg of three members: 28 bytes, the largest 21): no stale bytes of
// one member are ever read as another. Recursive types are refused: a
// struct cannot hold itself.
//
// # Rules
//
// Reads refuse every packet bitpack.Unmarshal refuses: ranges, maxlens,
// compressed-float codes above M, union indices no member has, sparse
// indices, check hashes, non-zero alignment padding, strings that are not
// UTF-8 or hold a NUL, int_relative differences a smaller tier could hold
// sent in the absolute tier, quaternion codes above M or not canonical,
// and map keys not above the key before, and what a packet claims past
// bitpack's decoder allowances (docs/wire.md, "Limits of the Go decoder"),
// charged with the Go decoder's figures (Field.Charge) to the
// bitpack::Allowance of the packet being read, which bitpack::read_packet
// and read_delta open (a read with none open refuses what it would charge).
// Whole bytes after the value, which only the caller can judge (Serialize
// reads a value from a stream), read_packet checks
// (bitpack::whole_packet). Writes refuse every
// value Marshal refuses (out of range, in units for unit=, unless clamp;
// too long; NaN or infinite compressed floats, compressed floats outside
// their bounds without clamp; quaternions with a component not finite or
// not of unit length; invalid strings; a union index no member has), where
// serialize's macros only assert or clamp. A map is written in ascending
// key order whatever the order of its arrays; equal keys, which no Go map
// holds, are refused. The generated code has fixed arrays and no
// recursion, so nothing bounds what it allocates but the arrays
// themselves; the allowances bound what it loops over.
//
// Compressed floats and quaternions compute bitpack's formulas (package
// quant) with every product and sum passed through a volatile rounding
// barrier, so no
// compiler fuses a multiply-add whatever the flags (GCC contracts by
// default outside ISO mode and ignores #pragma STDC FP_CONTRACT); serialize's
// serialize_compressed_float is not used because its arithmetic is open to
// that contraction and its writer clamps values bitpack refuses. Measured:
// without the barriers, g++ -O2 -march=native -ffp-contract=fast decodes
// 4413 of 6285 probed codes differently and encodes 0.005 over [0, 10] at
// res 0.01 as code 0 instead of 1. -ffast-math is not supported.
//
// Hook types (MarshalBits/UnmarshalBits) are Go code: the header names
// them and the team defines them, with a Serialize of their own, before
// including it.
//
// Deltas: each struct has SerializeDelta(stream, base), one function for
// both directions as Serialize is: writing sends the value's delta
// against base (bitpack.AppendDelta's bytes), reading makes the value base
// with the delta's changes, refusing what bitpack.UnmarshalDelta refuses
// (bitpack::read_delta adds the trailing-byte check). Like a refused
// Serialize, a refused delta leaves the target partly written, and the
// target may not be base itself. A serialize stream cannot rewind, so the
// writer compares before it writes (DeltaChanged and its kin); hooks are
// compared by the bits their Serialize writes.
//
// Snapshot streams: bitpack::Receiver<T, History> reads a Go
// snapshot.Sender's packets as snapshot.Receiver does (the same views,
// refusals and ack; bitpack::ReceiveResult says why a packet was refused,
// no_base for ErrNoBase). It decodes into a spare view, so a refused packet
// changes nothing, copies the accepted view into the caller's value, and
// once its history is made allocates nothing. The header's numbers come
// from package snapshot's own definitions (internal/snapwire).
//
// # Enums
//
// A Go named integer type whose constants are given in Options.Enums
// (bitpack gen reads them from the package's source; reflection cannot
// see constants) is an enum in the model (model.TypeEnum, Value.Enum),
// and each renderer declares the type's fields with an enum of its own
// language. The wire is the integer's: a value no constant names is read
// and written as any other, as Go does. (Rust's is a newtype of the
// integer with the constants as associated consts, not a Rust enum, which
// could not hold such a value.)
//
// # C# and TypeScript
//
// CSharp and TypeScript write one self-contained file each, its bit reader
// and writer inside (the csharp and typescript packages' runtime files,
// embedded), with a class (C#) or an interface and functions
// (TypeScript) per struct type. Both
// render the same control flow: a read and a write function per struct
// type, each step returning false on a refusal after the reader or writer
// recorded what is wrong and where, each function on the way out
// prefixing its part of the field path, so errors are bitpack's word for
// word and nothing is allocated for them until a packet is refused. The
// top-level TryRead/readT adds the whole-packet check; TryWrite/writeT
// reports the writer's error. Containers are the languages' own (arrays,
// strings, null for absent pointers), checked against maxlen, against the
// bits left (the count check) and against bitpack's decoder allowances,
// charged with the Go decoder's figures (Field.Charge, CountBits), before
// anything is allocated or looped over. float32 arithmetic rounds at
// every step (a cast to float in C#, Math.fround in TypeScript). The
// README's sections say the mapping; the tests run the C++ corpus through
// mono and node and compare every answer with Go's.
//
// C# deltas (package csharp's delta*.go and delta.cs): each class's
// ReadDeltaBody and WriteDeltaBody walk its delta items inline (a struct
// field's fields in its place, as bitpack's items are), calling the held
// types' own bodies for changed elements, pointees and members;
// TryReadDelta applies a delta to a Clone of the base, so a refusal
// leaves nothing changed.
//
// # Rust
//
// Rust writes one module; package rust renders the model as data and the
// runtime (module wire of the generated file, the rust package's .rs
// files) does the rest. Each value's step is a constant wire::S (its Op,
// and every number the model worked out: code, bounds, prefix, element,
// fields with their Go names and member positions, union members and
// indices, quaternion component places, items, count figure, charge),
// and one trait, wire::Wire, reads, writes and deltas every Rust type by
// its step: the scalars by their codes, Vec, arrays, Option<Box<T>> and
// BTreeMap generically, the generated structs, unions and hooks through
// three macros of the runtime (bitpack_struct!, bitpack_union!,
// bitpack_hook!) that dispatch a step's fields to the struct's members.
// So the generated code per field is one line of data, and the reading
// and writing is written once. Errors gather their path on the way out,
// as bitpack's do; Writer counts what the decode will charge, so that a
// write refuses what the decode would, in its words (a decode of the
// packet finds the charge). The Go decoder's allowances, the count check
// and the truncation words are docs/wire.md's, as in bitpack's decoder.
//
// # Representations
//
// A quaternion keeps the Go type's layout in every language ([4]float32 is
// an array of four, a struct is the generated struct or class with the same
// fields), so the generated code reads and writes the components where the
// Go value has them. A map is a count with arrays of keys and values in
// C++, a Dictionary in C#, a Map in TypeScript; writers sort the keys
// (strings by their UTF-8 bytes). An integer field with unit= holds the Go
// value: the generated code divides and multiplies. A time.Duration with
// unit=U holds its count of U, as the wire carries it (int64_t, long,
// number or bigint, i64 in Rust; Value.Counted), and so does a time.Time,
// counted from 1970-01-01 UTC (generated Go keeps time.Time).
// A C++ union's type holds the wire index, so a protocol numbered with At
// keeps its numbers.
//
// # Design
//
// Generation has two halves, a model and a renderer per language, each a
// package under gen/internal. The model (package model) is built from
// bitpack's exported layouts only (Describe, Fingerprint, and the
// layout's own answers to which arrays are unrolled and which values are
// delta items), so the plan stays the single source of truth: the types
// to declare in dependency order (structs, registered unions with their
// wire indices, hook types), and for each struct its fields in wire
// order, each a value tree carrying its step. A step (model.Op) is what
// every reader and writer does for the value — one bit, an integer's
// code, a raw or compressed float, a string, byte slice or byte array,
// elements, a presence bit, a sparse list, a struct called or sent in
// place under a tag of its field's, a union's index and member, a hook,
// a map's entries, a quaternion, a check — with every number the step
// needs worked out once: length prefixes, a fixed-width value's code
// (width, offset, limit, flip, the delta short form's width), the fewest
// bits an element takes, a sparse array's slots, the order of map keys,
// whether an array is unrolled and whether a value is a delta item, and
// what bitpack's commit keeps. Model.Dump prints it; its goldens
// (internal/model/testdata) are the model's specification by example.
//
// The renderers print steps and decide nothing about the wire: no line
// of gen outside the model names a bitpack kind. Each is a package with
// its runtime beside it: cpp (the header's structs and Serialize in
// header.go and steps.go, deltas in delta.go and delta_containers.go,
// the runtime block in runtime_*.h), csharp (csharp.go, read.go,
// write.go, delta*.go, clone.go; the runtime in *.cs), typescript
// (typescript.go, read.go, write.go, delta*.go; the runtime in *.ts),
// golang (golang.go, read.go, write.go) and rust (rust.go; the runtime in
// *.rs). What C# and TypeScript
// print alike (field path expressions, string literals) is package code.
// The wire rules the generated code repeats have one home, bitpack's
// internal/rules: the quaternion tolerance is filled into every runtime
// from it (code.Rules), gen.Go writes its unit= rounding word for word,
// and its Version, a hash of the rules' code, versions generated Go.
package gen

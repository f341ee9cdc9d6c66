package gen

import (
	"cmp"
	"io"
	"reflect"
	"slices"

	"github.com/bitpack-go/bitpack/gen/internal/cpp"
	"github.com/bitpack-go/bitpack/gen/internal/csharp"
	"github.com/bitpack-go/bitpack/gen/internal/golang"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/gen/internal/rust"
	"github.com/bitpack-go/bitpack/gen/internal/typescript"
)

// Options configures a generated file.
type Options struct {
	Namespace string // C++ namespace for everything generated; "" = none
	Include   string // the serialize header to #include; "" = "serialize.h"
	Package   string // Go: the generated file's package name; "" = the last element of the types' import path

	// Enums are named integer types' constants, which name the types'
	// values in the generated code: a field of such a type is declared
	// with an enum of its own (C++ enum class, C# enum, TypeScript a
	// union of the values with an as-const object of the names). The
	// wire does not change. Reflection cannot see constants: bitpack gen
	// reads them from the package's source (every named integer type of
	// the module whose package declares constants of it) and fills this
	// in; a program calling gen itself lists them, with EnumOf. Types no
	// field holds are not used.
	Enums []Enum
}

// An Enum is a Go named integer type's constants: the type, by the
// import path of its package and its name, and each constant's name and
// value, in the order the generated enum lists them (the declaration's).
type Enum struct {
	PkgPath   string
	Name      string
	Constants []EnumConstant
}

// An EnumConstant is one constant of an Enum: its name in Go and its
// value (for an unsigned type, the bits of the value: int64(uint64(v))).
type EnumConstant struct {
	Name  string
	Value int64
}

// EnumOf is the Enum of T, a named integer type, whose constants are
// named by constants' keys, listed in the order of their values (names
// break ties):
//
//	gen.EnumOf(map[string]game.Team{"Red": game.Red, "Blue": game.Blue, "Spectator": game.Spectator})
func EnumOf[T ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64](constants map[string]T) Enum {
	t := reflect.TypeFor[T]()
	e := Enum{PkgPath: t.PkgPath(), Name: t.Name()}
	for name, v := range constants {
		e.Constants = append(e.Constants, EnumConstant{Name: name, Value: int64(v)})
	}
	slices.SortFunc(e.Constants, func(a, b EnumConstant) int {
		x, y := constants[a.Name], constants[b.Name]
		return cmp.Or(cmp.Compare(x, y), cmp.Compare(a.Name, b.Name))
	})
	return e
}

// build is the model of values with the options' enums.
func build(opts Options, values []any) (*model.Model, error) {
	specs := make([]model.EnumSpec, 0, len(opts.Enums))
	for _, e := range opts.Enums {
		s := model.EnumSpec{PkgPath: e.PkgPath, Name: e.Name}
		for _, c := range e.Constants {
			s.Constants = append(s.Constants, model.SpecConstant{Name: c.Name, Value: c.Value})
		}
		specs = append(specs, s)
	}
	return model.Build(values, specs...)
}

// CPP writes one self-contained C++11 header for the types of values
// (struct values or pointers to them; nil pointers are enough) and every
// type they reach: for each, a struct of plain fields with a serialize
// member function template, Serialize(Stream &), written with serialize's
// macros and bitpack's helpers, in dependency order (a named integer type
// with constants, Options.Enums, is an enum class of its underlying type;
// a time.Duration with unit=U an int64_t counting U). The output is
// deterministic: the same types give the same bytes. Nothing is written
// when an error is returned.
func CPP(w io.Writer, opts Options, values ...any) error {
	m, err := build(opts, values)
	if err != nil {
		return err
	}
	e, err := cpp.New(m, cpp.Options{Namespace: opts.Namespace, Include: opts.Include})
	if err != nil {
		return err
	}
	_, err = w.Write(e.File())
	return err
}

// CSharp writes one self-contained C# file (C# 7.2, no package to
// install) for the types of values (struct values or pointers to them;
// nil pointers are enough) and every type they reach, in namespace
// opts.Namespace ("" = the global namespace; Include is not used). Each Go
// struct type T becomes public sealed class T with a public field per
// wire field, named as in Go (a public struct when its fields are all
// fixed-width and it is not a root, a union's member, a pointee or a
// sparse slot: gen/README.md, Structs; a named integer type with
// constants, Options.Enums, is a C# enum of its underlying type; a
// time.Duration with unit=U a long counting U), and
//
//	public static bool TryRead(byte[] packet, out T value, out string error)
//	public bool TryWrite(out byte[] packet, out string error)
//	public static bool TryReadDelta(byte[] packet, T baseValue, out T value, out string error)
//	public bool TryWriteDelta(T baseValue, out byte[] packet, out string error)
//
// with overloads over (byte[], offset, count) and ArraySegment<byte> that
// read into values and write into buffers the caller owns without
// allocating; each root type T also gets TReceiver, the client's end of a
// Go snapshot.Sender[T]'s stream (TryRead, Ack, Reset), reading it as
// snapshot.Receiver does.
//
// which read and write exactly bitpack's bytes (full packets, and deltas
// as AppendDelta and UnmarshalDelta), and refuse what bitpack refuses,
// with an error naming the field and bit as bitpack's do; the
// stream-level Read, ReadFrom, WriteTo, ReadDelta, WriteDelta,
// ReadDeltaBody and WriteDeltaBody are what types that hold T call. The
// file carries its own bit reader and writer, Seal and Open. The output is
// deterministic. Nothing is written when an error is returned.
func CSharp(w io.Writer, opts Options, values ...any) error {
	m, err := build(opts, values)
	if err != nil {
		return err
	}
	e, err := csharp.New(m, opts.Namespace)
	if err != nil {
		return err
	}
	_, err = w.Write(e.File())
	return err
}

// TypeScript writes one self-contained TypeScript module (ES2020, no
// runtime dependency) for the types of values and every type they reach.
// Each Go struct type T becomes
//
//	export interface T                                 // fields named as in Go
//	export function readT(packet: Uint8Array): T       // throws BitpackError
//	export function writeT(value: T): BitpackBytes     // throws BitpackError
//
// plus newT (a value as Go's zero value is), the stream-level readTFrom
// and writeTTo, the constant TFingerprint, and deltas:
// readTDelta(packet, base) and writeTDelta(base, value), bitpack's
// UnmarshalDelta and AppendDelta, their stream-level readTDeltaFrom and
// writeTDeltaTo, with cloneT and copyT. For each root type (the values
// given) whose zero value bitpack encodes, TReceiver reads a Go
// snapshot.Sender's stream as snapshot.Receiver does. Integers of up to
// 32 bits are numbers, 64-bit ones bigint; a named integer type with
// constants (Options.Enums) is the union of its values, with an as-const
// object of the same name naming them; a time.Duration with unit=U is its
// count of U (a number, a bigint where the count's range passes 2^53);
// pointers are T | null; a registered interface is a union discriminated
// by type. Reads and writes are bitpack's, and so are their refusals. The
// module compiles with TypeScript 5.0 and later under strict settings
// (the README lists them). opts is not used (a module needs no
// namespace). Nothing is written when an error is returned.
func TypeScript(w io.Writer, opts Options, values ...any) error {
	m, err := build(opts, values)
	if err != nil {
		return err
	}
	e, err := typescript.New(m)
	if err != nil {
		return err
	}
	_, err = w.Write(e.File())
	return err
}

// Go writes a Go source file for the package that declares the types of
// values (struct values or pointers to them): for each, straight-line
// functions that append and decode it exactly as bitpack's plan does, with
// every width, bound and quantizer an immediate, registered with
// bitpack.RegisterGenerated from the file's init. A bitpack.Codec of the
// type then runs them in Append, Marshal and Unmarshal and falls back to the plan
// for anything they do not accept, so errors are the plan's. The plan
// stays the reference: gen's differential fuzz target checks that the two
// agree on bytes, values and verdicts.
//
// The file belongs in the package of the types (opts.Package names it; ""
// takes the last element of the types' import path). The types must be
// fixed-shape: no maps, unions, hooks, sparse arrays or serialize checks,
// nothing recursive, a decoded value that cannot reach bitpack's decode
// allowances (about 4096 values or 512 KiB) and needs at most 16 KiB of
// locals to decode into, and fields the package can reach (none
// unexported in another). Anything else is an error naming the field;
// such types are left to the plan. Nothing is written on error. One
// package holds one file gen.Go wrote: the helpers of two would collide.
func Go(w io.Writer, opts Options, values ...any) error {
	m, err := build(opts, values)
	if err != nil {
		return err
	}
	src, err := golang.File(m, opts.Package)
	if err != nil {
		return err
	}
	_, err = w.Write(src)
	return err
}

// Rust writes one self-contained Rust module (edition 2021, std only, no
// unsafe; Rust 1.63 and newer) for the types of values (struct values or
// pointers to them; nil pointers are enough) and every type they reach;
// include it with mod (of opts only Enums is used: the module's name is
// the file's). Each Go struct type T becomes a struct with its fields in
// snake_case (Go int and uint are i64 and u64, pointers Option<Box<T>>,
// maps BTreeMap, unions enums of their members; a named integer type with
// constants, Options.Enums, a newtype of its integer, pub struct
// Team(pub u8), with the constants as associated consts named as in Go,
// Team::Red, so that a value no constant names is still held; a
// time.Duration with unit=U an i64 counted in U, as the wire carries it,
// the unit in the field's comment) and
//
//	pub fn read(packet: &[u8]) -> Result<T, Error>                 // bitpack.Unmarshal
//	pub fn write(&self) -> Result<Vec<u8>, Error>                  // bitpack.Marshal
//	pub fn read_delta(packet: &[u8], base: &T) -> Result<T, Error> // bitpack.UnmarshalDelta
//	pub fn write_delta(&self, base: &T) -> Result<Vec<u8>, Error>  // bitpack.AppendDelta
//	pub const FINGERPRINT: u32                                     // bitpack.Fingerprint
//
// which read and write exactly bitpack's bytes and refuse what bitpack
// refuses, the Go decoder's allowances included, with an Error naming the
// field and bit as bitpack's errors do. The module also carries seal and
// open, and Receiver<T> for package snapshot's streams. The output is
// deterministic. Nothing is written when an error is returned.
func Rust(w io.Writer, opts Options, values ...any) error {
	m, err := build(opts, values)
	if err != nil {
		return err
	}
	_, err = w.Write(rust.New(m).File())
	return err
}

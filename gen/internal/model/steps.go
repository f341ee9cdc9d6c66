package model

import (
	"math"
	"reflect"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/rules"
)

// Steps: how each value travels, decided once, here, for every renderer.
// A value's Op is the step every reader and writer takes for it, and the
// fields beside it hold every number the step needs: the length prefix,
// a fixed-width value's code, the fewest bits an element takes, the
// slots of a sparse array, whether bitpack unrolls an array, the order of
// a map's keys, whether a value is an item of its struct's delta. The
// renderers print these steps in their languages; none decides what the
// wire is, and none looks at bitpack's kinds.

// Op is the step a value takes on the wire.
type Op uint8

const (
	OpBool       Op = iota + 1 // one bit (Code)
	OpInt                      // an integer's code (Code): raw, ranged, in units (Unit) or clamped (Clamp); a time.Time's units (Time)
	OpFloat                    // a raw IEEE-754 float: its bits (Code)
	OpCompressed               // a compressed float's code (Code, Steps, Min, Max, Res)
	OpString                   // Prefix; align; that many bytes, valid UTF-8 without NUL
	OpBytes                    // Prefix; align; that many bytes
	OpByteArray                // align; Len bytes
	OpArray                    // Len elements (Elem)
	OpSlice                    // Prefix; that many elements (Elem)
	OpPointer                  // a presence bit; when set, Elem
	OpSparse                   // Prefix for a slice; each present slot's index as int_relative from the last (from -1) and its Elem; Slots ends it
	OpStruct                   // a struct in its type's own form: the type's steps (Type)
	OpFields                   // a struct under tags of its own: the steps of Fields, in place
	OpUnion                    // the type index (Type.IndexBits); the member's steps
	OpHook                     // the type's own code (MarshalBits), which the programmer supplies
	OpMap                      // Prefix; the entries in ascending key order (Order): Key, then Elem
	OpQuat                     // smallest three: the largest component's index in 2 bits, three codes of Bits
	OpCheck                    // align; a 32-bit hash of CheckName
	opCount
)

var opNames = [opCount]string{OpBool: "bool", OpInt: "integer", OpFloat: "float", OpCompressed: "compressed float",
	OpString: "string", OpBytes: "byte slice", OpByteArray: "byte array", OpArray: "array", OpSlice: "slice",
	OpPointer: "pointer", OpSparse: "sparse array", OpStruct: "struct", OpFields: "struct", OpUnion: "union",
	OpHook: "hook", OpMap: "map", OpQuat: "quaternion", OpCheck: "check"}

func (o Op) String() string {
	if o > 0 && o < opCount {
		return opNames[o]
	}
	return "invalid step"
}

// IsStruct reports whether the step is a struct's (called or in place).
func (o Op) IsStruct() bool { return o == OpStruct || o == OpFields }

// IsScalar reports whether the step is a fixed-width value's: one code of
// Code.Bits bits, which a delta changes as a number.
func (o Op) IsScalar() bool { return o >= OpBool && o <= OpCompressed }

// Count is a length prefix: a count from 0 to Max in Bits bits.
type Count struct {
	Bits int // bits_required(0, Max)
	Max  int
}

// Code is how a fixed-width value travels: its offset code (the value,
// in units, minus Lo; a compressed float's quantizer code; a float's
// bits), from 0 to Limit, XORed with Flip on the wire, in Bits bits.
// In a delta a changed value sends its new code whole, or, when Short is
// not 0, the difference from the base's in Short bits when it fits.
type Code struct {
	Bits  int
	Lo    uint64 // the value of offset code 0 (a signed one as two's complement)
	Limit uint64
	Flip  uint64 // a raw signed integer's sign bit: offset code to two's complement
	Short int    // the short form's width (package rules)
}

// KeyOrder is the order a map's entries travel in: ascending keys, each
// once.
type KeyOrder uint8

const (
	KeysNumeric    KeyOrder = iota + 1 // integers by value
	KeysFalseFirst                     // bools: false, then true
	KeysBytewise                       // strings by their UTF-8 bytes
)

// step fills v's step from layout node f (v's parameters are filled).
func step(v *Value, f *bitpack.Field) {
	v.item = f.Kind != bitpack.KindStruct && f.DeltaItem()
	switch f.Kind {
	case bitpack.KindBool:
		v.Op, v.Code = OpBool, Code{Bits: 1, Limit: 1}
	case bitpack.KindInt, bitpack.KindTime:
		lo, hi, flip := IntBounds(v)
		v.Op, v.Code = OpInt, Code{Bits: UnitBits(v), Lo: uint64(lo), Limit: uint64(hi) - uint64(lo), Flip: flip}
	case bitpack.KindUint:
		lo, hi := UintBounds(v)
		v.Op, v.Code = OpInt, Code{Bits: UnitBits(v), Lo: lo, Limit: hi - lo}
	case bitpack.KindFloat:
		v.Op, v.Code = OpFloat, Code{Bits: v.FloatBits, Limit: math.MaxUint64 >> (64 - v.FloatBits)}
	case bitpack.KindCompressedFloat:
		v.Op, v.Code = OpCompressed, Code{Bits: v.Bits, Limit: uint64(v.Steps)}
	case bitpack.KindString:
		v.Op, v.Prefix = OpString, count(v.MaxLen)
	case bitpack.KindBytes:
		v.Op, v.Prefix = OpBytes, count(v.MaxLen)
	case bitpack.KindByteArray:
		v.Op = OpByteArray
	case bitpack.KindArray:
		v.Op, v.Unrolled = OpArray, f.Unrolled()
	case bitpack.KindSlice:
		v.Op, v.Prefix, v.Each = OpSlice, count(v.MaxLen), f.Elem.CountBits
		v.Charge = chargeFrom(f.EachCharge())
	case bitpack.KindPointer:
		v.Op, v.Charge = OpPointer, chargeOf(f.Elem)
		v.Charge.Twice = false
	case bitpack.KindSparse:
		v.Op, v.Slots, v.Charge = OpSparse, v.Len, chargeOf(f.Elem)
		v.Charge.Twice = false
		if f.Type.Kind() == reflect.Slice {
			v.Prefix, v.Slots = count(v.MaxLen), v.MaxLen
		}
	case bitpack.KindStruct:
		v.Op = OpStruct
		if v.Fields != nil {
			v.Op = OpFields
		}
	case bitpack.KindUnion:
		v.Op = OpUnion
	case bitpack.KindCustom:
		v.Op, v.Charge = OpHook, chargeOf(f)
		v.Charge.Twice = false
	case bitpack.KindMap:
		v.Op, v.Prefix, v.Each = OpMap, count(v.MaxLen), min(f.Key.CountBits+f.Elem.CountBits, rules.MaxFigure)
		v.Charge = entryCharge(f.Key.Charge, f.Elem.Charge)
		v.Order = KeysNumeric
		switch v.Key.Op {
		case OpBool:
			v.Order = KeysFalseFirst
		case OpString:
			v.Order = KeysBytewise
		}
	case bitpack.KindQuat:
		v.Op = OpQuat
	case bitpack.KindCheck:
		v.Op = OpCheck
	}
	if v.Code.Bits > 0 {
		v.Code.Short = rules.ShortBits(v.Code.Bits)
	}
}

func count(maxlen int) *Count { return &Count{Bits: LengthBits(maxlen), Max: maxlen} }

// Charge is what the Go decoder charges its work and memory allowances
// for each value a step brings (docs/wire.md, "The allowances, exactly"),
// which every reader must charge alike to accept exactly the packets Go
// accepts: a slice's element, a pointee, a sparse element, a hook's call,
// a map's entry (Value.Charge); a value of a struct type (Type.Charge), a
// decode of which starts by charging its Work, and a union member of
// which is charged whole. The figures are bitpack's (Field.Charge),
// copied; the runtimes multiply them by a count and round the bytes.
type Charge struct {
	Work  int64 // the values one visits
	Bytes int64 // its Go size on a 64-bit platform; a map entry's slot: its key's, its value's and a control byte
	Twice bool  // a slice's: the element keeps fields off the wire, so its memory is charged twice
}

// chargeOf copies layout node f's charge.
func chargeOf(f *bitpack.Field) Charge { return chargeFrom(f.Charge) }

// chargeFrom copies a bitpack.Charge.
func chargeFrom(c bitpack.Charge) Charge {
	return Charge{Work: c.Work, Bytes: c.Bytes, Twice: c.Partial}
}

// entryCharge is a map entry's: its key's and its value's values, and its
// slot, as bitpack's decoder counts them (kind_map.go, mapx.slot).
func entryCharge(key, elem bitpack.Charge) Charge {
	return Charge{Work: satAdd(key.Work, elem.Work), Bytes: satAdd(satAdd(key.Bytes, elem.Bytes), 1)}
}

// satAdd adds figures, saturating at rules.Saturated as bitpack's do.
func satAdd(a, b int64) int64 { return min(a+b, rules.Saturated) }

// Package gohostile holds types hostile to the Go code gen.Go generates,
// the code it generates for them (bitpack_gen.go, which gen's
// TestGoHostileGolden keeps current) and that code's functions by type
// (generated.go), for gen's tests to hold to the plan.
package gohostile

import (
	"time"

	"github.com/bitpack-go/bitpack/gen/internal/othertypes"
)

// Types hostile to gen.Go's generated code, where the table's types do
// not reach: raw numbers of 57 to 64 bits that a 57-bit group must split,
// int and uint (32 bits on 386), ranges of 0 bits and at the int64
// limits, unit= with clamp, named types of every kind, quaternions whose
// word passes 57 or 64 bits, byte arrays under pointers and in slices,
// strings last in the packet, maxlen=0, fields off the wire inside
// slices, pointers and arrays, nesting, and types of another package.

// Vectors, quaternion holders and an embedded struct of this package's
// own.
type (
	AtkVec3  struct{ X, Y, Z float32 }
	AtkQXYZW struct{ X, Y, Z, W float32 }
	AtkQGL   struct {
		W float32
		V [3]float32
	}
	AtkBase struct {
		ID uint16
		X  int8
	}
)

// AtkWide holds raw numbers wider than one 57-bit group, ranges at the
// int64 and uint64 limits, and int and uint, whose 64 wire bits a 32-bit
// platform's int cannot always hold.
type AtkWide struct {
	A     uint8   `bits:"bits=3"`
	U57   uint64  `bits:"bits=57"`
	U58   uint64  `bits:"bits=58"`
	S63   int64   `bits:"bits=63"`
	U64   uint64  //
	F64   float64 //
	F32   float32 //
	I64   int64   //
	R     uint64  `bits:"range=1..18446744073709551615"`
	N     int64   `bits:"range=-9223372036854775808..9223372036854775806"`
	Top   int64   `bits:"range=9223372036854775000..9223372036854775807"`
	Raw   [3]uint64
	RawS  []uint64   `bits:"maxlen=3"`
	Raw58 [2]uint64  `bits:"bits=58"`
	RawF  [2]float64 //
	I     int
	U     uint
	Ints  []int `bits:"maxlen=3"`
	Last  bool
}

// AtkZero has fields of no bits and containers of maxlen 0, and a string
// last.
type AtkZero struct {
	Five uint8         `bits:"range=5..5"`
	Min  int64         `bits:"range=-9223372036854775808..-9223372036854775808"`
	Max  uint64        `bits:"range=18446744073709551615..18446744073709551615"`
	Arr  [9]int8       `bits:"range=-1..-1"`
	S    []uint16      `bits:"maxlen=0"`
	Str  string        `bits:"maxlen=0"`
	B    []byte        `bits:"maxlen=0"`
	Dur  time.Duration `bits:"unit=1s,range=3..3"`
	Tail string        `bits:"maxlen=3"`
}

// AtkUnits has unit= with clamp, on durations and near the int64 limits.
type AtkUnits struct {
	D   time.Duration    `bits:"unit=1ms,range=-1000..1000,clamp"`
	DR  time.Duration    //
	DB  time.Duration    `bits:"unit=1h,bits=20,clamp"`
	U   uint8            `bits:"unit=5,range=0..51,clamp"`
	S   int8             `bits:"unit=4,bits=6,clamp"`
	Big uint64           `bits:"unit=1000000007,bits=34"`
	Neg int64            `bits:"unit=3,range=-3074457345618258602..3074457345618258602,clamp"`
	I   int              `bits:"unit=7,range=-1000..1000,clamp"`
	Un  uint             `bits:"unit=9,bits=8"`
	Ds  [3]time.Duration `bits:"unit=1us,range=0..100,clamp"`
}

// AtkTime has time.Time fields at the edges: nanoseconds past int64's
// (before 1677, after 2262) clamped, every Unix second a time.Time has, a
// unit of math.MaxInt64 nanoseconds, a range of one unit, and a pointer
// that may point at T, which the plan commits after the pointers.
type AtkTime struct {
	Ns   time.Time  `bits:"unit=1ns,bits=64,clamp"`
	Edge time.Time  `bits:"unit=1s,range=-9223372036854775808..9223371974719179007"`
	Big  time.Time  `bits:"unit=2562047h47m16.854775807s,bits=3,clamp"`
	One  time.Time  `bits:"unit=1h,range=5..5"`
	T    time.Time  `bits:"unit=1ms,range=0..1000"`
	P    *time.Time `bits:"unit=1ms,range=0..1000"`
}

// AtkOrder has parts a pointer of the target may point at too, each in a
// pass of the plan's commit (commit.go: copies, strings, pointers,
// slices, the other kinds) that field order would not give it: a slice
// and a byte slice before a pointer into them, a pointer before a
// string, times and an integer in an unrolled array (AtkOrderF: the
// times last, the integers first), pointers and slices in one (AtkOrderE:
// all the pointers before the slices), a time before an array of
// pointers too long to unroll.
type AtkOrder struct {
	L   []time.Time `bits:"maxlen=2,unit=1ms,range=0..1000"`
	PL  *time.Time  `bits:"unit=1ms,range=0..1000"`
	PS  *string     `bits:"maxlen=4"`
	Str string      `bits:"maxlen=4"`
	B   []byte      `bits:"maxlen=2"`
	PB  *uint8
	F   [2]AtkOrderF
	PF  *int16
	E   [2]AtkOrderE
	T   time.Time      `bits:"unit=1ms,range=0..1000"`
	A   [33]*time.Time `bits:"unit=1ms,range=0..1000"`
}

type (
	AtkOrderF struct {
		T time.Time `bits:"unit=1ms,range=0..1000"`
		X int16
	}
	AtkOrderE struct {
		P *int16
		S []int16 `bits:"maxlen=1"`
	}
)

// Named types of every kind.
type (
	NBool   bool
	NInt    int16
	NUint   uint32
	NF32    float32
	NF64    float64
	NStr    string
	NBytes  []byte
	NArr    [3]uint8
	NKey    [5]byte
	NSlice  []NInt
	NQuat   [4]float32
	NDur    time.Duration
	NStruct struct {
		A NBool
		B NInt `bits:"range=0..3"`
	}
	AtkNamed struct {
		B  NBool
		I  NInt  `bits:"range=-5..5"`
		U  NUint `bits:"bits=7"`
		F  NF32
		CF NF32   `bits:"float,min=-2,max=2,res=0.5"`
		D  NF64   `bits:"float,min=0,max=1,res=0.001,clamp"`
		S  NStr   `bits:"maxlen=6"`
		Bs NBytes `bits:"maxlen=4"`
		A  NArr   `bits:"bits=3"`
		K  NKey
		L  NSlice `bits:"maxlen=3,range=0..9"`
		P  *NInt
		Q  NQuat `bits:"quat,bits=10"`
		T  NDur  `bits:"unit=1000000,range=0..1000"`
		St NStruct
		SP []*NStruct `bits:"maxlen=2"`
		R  NF64
	}
)

// AtkQuat has quaternions whose word passes 57 and 64 bits, with float64
// components, in structs, arrays of nine, under pointers and in slices.
type AtkQuat struct {
	Q21  [4]float32                   `bits:"quat,bits=21"`
	Q22  AtkQXYZW                     `bits:"quat,bits=22"`
	Q64  [4]float64                   `bits:"quat,bits=21"`
	S    struct{ X, Y, Z, W float64 } `bits:"quat,bits=20"`
	Arr  [9][4]float32                `bits:"quat,bits=5"`
	P    *[4]float64                  `bits:"quat,bits=22"`
	L    [][4]float32                 `bits:"maxlen=2,quat,bits=22"`
	GL   *AtkQGL                      `bits:"quat,bits=18"`
	Tail bool
}

// AtkBytes has byte arrays under pointers, in slices and arrays, and
// strings last in the packet (a tail load).
type AtkBytes struct {
	B   bool
	Bs  []byte `bits:"maxlen=9"`
	P   *[3]byte
	Ks  [][2]byte `bits:"maxlen=3"`
	AK  [2][3]byte
	Ps  []*[4]byte `bits:"maxlen=2"`
	PP  **string   `bits:"maxlen=5"`
	BB  [][]byte   `bits:"maxlen=2,elem.maxlen=3"`
	Big [9][1]byte
	S   string `bits:"maxlen=20"`
}

// Off-wire fields (bits:"-" and unexported) inside slices, pointers and
// arrays: the plan's commit keeps their values where it fills the
// caller's value in place.
type (
	AtkInner struct {
		A    uint8  `bits:"range=0..7"`
		Note string `bits:"-"`
		B    bool
	}
	AtkItem struct {
		Name string `bits:"maxlen=4"`
		P    *uint8 `bits:"range=0..3"`
		Keep int    `bits:"-"`
		In   *AtkInner
	}
	AtkOff struct {
		Keep   int         `bits:"-"`
		hidden int         //lint:ignore U1000 off the wire: the tests set it and check that decodes keep it
		Items  []AtkItem   `bits:"maxlen=3"`
		Ptrs   []*AtkInner `bits:"maxlen=3"`
		PI     *AtkInner
		Arr    [2]AtkInner
		Nest   [][]AtkInner `bits:"maxlen=2,elem.maxlen=2"`
		Flat   []AtkInner   `bits:"maxlen=3"`
		PA     *[2]AtkInner //
		Strs   []string     `bits:"maxlen=2,elem.maxlen=3"`
	}
)

// AtkNest nests anonymous structs, embeds structs, has arrays of more
// than eight elements and pointers to pointers to pointers.
type (
	AtkEmb struct {
		E uint8 `bits:"range=0..200"`
	}
	AtkNest struct {
		AtkBase
		AtkEmb
		Anon struct {
			In struct {
				X [9]int16 `bits:"range=-300..300"`
				S []struct {
					Y uint8 `bits:"bits=2"`
					Z *bool
				} `bits:"maxlen=2"`
			}
			T string `bits:"maxlen=2"`
		}
		Big  [12]uint8   `bits:"range=0..2"`
		Bigs [10]AtkVec3 `bits:"float,min=-1,max=1,res=0.1"`
		PPP  ***int8
		Mat  [3][3]float32
		SS   [][9]uint16 `bits:"maxlen=2,range=0..500"`
	}
)

// AtkFloat has compressed floats with power-of-two spans, clamp, many
// bits, float64 and arrays of nine.
type AtkFloat struct {
	Pow2  float32    `bits:"float,min=0,max=1024,res=0.25"`
	Pow2n float32    `bits:"float,min=-512,max=512,res=1,clamp"`
	Small float32    `bits:"float,min=-0.5,max=0.5,res=0.00001"`
	Wide  float32    `bits:"float,min=-1e30,max=1e30,res=1e24,clamp"`
	F64   float64    `bits:"float,min=-1e9,max=1e9,res=0.0001,clamp"`
	F64b  float64    `bits:"float,min=0,max=1,res=1e-9"`
	Arr   [9]float32 `bits:"float,min=-8,max=8,res=0.125,clamp"`
	Neg   float32    `bits:"float,min=-3,max=-1,res=0.01"`
	Odd   float32    `bits:"float,min=-0.3,max=0.7,res=0.001,clamp"`
	P     *float64   `bits:"float,min=-2,max=2,res=0.5,clamp"`
}

// AtkOther holds types of another package.
type AtkOther struct {
	P  othertypes.Pos
	T  []othertypes.Tagged `bits:"maxlen=2"`
	K  othertypes.Kind     `bits:"range=0..4"`
	PP *othertypes.Pos
}

// AtkGrow is the smallest type whose decode grows a slice of pointers
// whose pointees keep a field off the wire: the old pointees are reused
// (filled in place, their Notes kept), the new ones are new.
type (
	AtkKeep struct {
		A    uint8  `bits:"range=0..7"`
		Note string `bits:"-"`
	}
	AtkGrow struct {
		L []*AtkKeep `bits:"maxlen=2"`
	}
)

// AtkBB is a slice of byte slices: an element the packet leaves empty is
// nil or the target's own, cut to length 0 (see TestPlanNilOrEmpty).
type AtkBB struct {
	BB [][]byte `bits:"maxlen=2,elem.maxlen=3"`
}

// AtkAlias is decoded into a value whose pointer points at its own
// field: the plan's commit copies the fixed-width fields first, then fills
// pointees.
type AtkAlias struct {
	P *int16
	X int16
	S []int16 `bits:"maxlen=2"`
	Y int16
}

// AtkStr is a string alone: its packet is its length, then its bytes.
type AtkStr struct {
	S string `bits:"maxlen=8"`
}

// Compressed floats alone, for decodes of every code: a span not a
// power of two, a power of two, a wide float32 and a float64.
type (
	AtkCF1 struct {
		F float32 `bits:"float,min=-0.3,max=0.7,res=0.0001"`
	}
	AtkCF2 struct {
		F float32 `bits:"float,min=-512,max=512,res=0.25"`
	}
	AtkCF3 struct {
		F float32 `bits:"float,min=-1000,max=1000,res=0.001"`
	}
	AtkCF4 struct {
		F float64 `bits:"float,min=-3.7,max=12.1,res=0.00001"`
	}
)

// AtkInt is an int and a uint, 64 bits on the wire, 32 in Go on 386.
type AtkInt struct {
	I int
	U uint
}

// AtkIntRange and AtkUintRange have int and uint ranges past 32 bits:
// their layout, and so the generated code and the hash it registers with,
// is the same on every host; on a 32-bit one the decode refuses a value
// the Go type cannot hold and the plan words the error (TestGoIntRange).
type (
	AtkIntRange struct {
		IR int  `bits:"range=-2147483649..2147483648"`
		UR uint `bits:"range=4294967290..4294967300"`
	}
	AtkUintRange struct {
		L []uint `bits:"maxlen=2,range=0..4294967296"`
	}
	AtkIntRange32 struct { // at the 32-bit bounds: generated
		IR int  `bits:"range=-2147483648..2147483647"`
		UR uint `bits:"range=4294967290..4294967295"`
	}
)

// AtkHuge and AtkWideSlice hold more than gen.Go's 16 KiB of shadow,
// which its decode zeroes on every call (AtkHuge's byte arrays in an
// array, so not read in place): gen.Go refuses them.
type (
	AtkHuge struct {
		N uint8
		X [2][16 << 10]byte
	}
	AtkWideSlice struct {
		L []struct{ K [128]byte } `bits:"maxlen=200"`
	}
)

// AtkFreeElems holds a slice of elements that take no bits, each charged
// 64 values by the allowances (what one bit pays for): 100 of them are
// past what every packet may decode (4096 values), so gen.Go refuses it
// and the plan counts.
type (
	FreeElem struct {
		A int8 `bits:"range=5..5"`
	}
	AtkFreeElems struct {
		L []FreeElem `bits:"maxlen=100"`
	}
	// AtkFreeCells holds 100 of them in an array: each counts its value
	// and 64 for itself nested in a value, 6500 in all.
	AtkFreeCells struct {
		C [100]FreeElem
	}
)

// AtkNamedBytes and AtkNamedByteArray hold bytes of a named type, which
// Go will not copy []byte into: gen.Go refuses them.
type (
	NByte         uint8
	AtkNamedBytes struct {
		L []NByte `bits:"maxlen=3"`
	}
	AtkNamedByteArray struct {
		P *[2]NByte
	}
)

// AtkGeneric holds instances of a generic type, which reflect names with
// their arguments' import paths: gen.Go refuses it where its code would
// name one (a shadow of its own; AtkGenericFields, flat, is its own
// shadow).
type (
	AtkG[T any] struct{ X T }
	AtkGeneric  struct {
		A AtkG[NByte]
		L []AtkG[NByte] `bits:"maxlen=2"`
	}
	AtkGenericFields struct { // generated: flat, its shadow is itself, no instance named
		A AtkG[NByte]
		B AtkG[[2]int8]
	}
)

// Types named as the generated code's own variables: gen.Go refuses the
// types that hold them where its code names them. (A type named as an
// import, math say, would do too, but would clash with these tests'
// imports.)
type (
	pos    struct{ X, Y int16 }
	end    uint8
	q3     bool
	AtkPos struct {
		L []pos `bits:"maxlen=2"`
	}
	AtkEnd struct {
		E end `bits:"range=0..9"`
	}
	AtkQ3     struct{ B q3 }
	AtkLocals struct { // named like locals, but not as the code's: generated
		V vec3
	}
	vec3 struct{ X, Y, Z float32 }
)

// AtkOtherHidden embeds, through another package's type, an unexported
// struct, and AtkOtherPrivate an anonymous struct with an unexported
// field: code in package gen cannot name either.
type (
	AtkOtherHidden  struct{ W othertypes.Wrapped }
	AtkOtherPrivate struct{ P othertypes.Private }
)

// Protos are the types bitpack_gen.go holds the generated code of.
func Protos() []any {
	return []any{AtkWide{}, AtkZero{}, AtkUnits{}, AtkNamed{}, AtkQuat{}, AtkBytes{}, AtkOff{}, AtkNest{}, AtkFloat{}, AtkOther{}, AtkOtherPrivate{}, AtkIntRange32{}, AtkIntRange{}, AtkUintRange{}, AtkGrow{}, AtkInt{}, AtkAlias{}, AtkStr{}, AtkCF1{}, AtkCF2{}, AtkCF3{}, AtkCF4{}, AtkGenericFields{}, AtkLocals{}, AtkBB{}, AtkTime{}, AtkOrder{}}
}

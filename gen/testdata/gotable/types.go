// Package gen (gen/testdata/gotable) holds the fixed-shape types of gen's
// cross-language table that gen.Go generates code for, declared again in
// a package that can carry that code (bitpack_gen.go, which gen's
// TestGoGolden keeps current), with its functions by type
// (generated.go). The package is named gen like the table's, so the
// types have the table's layouts to the byte (gen's goTable checks it)
// and the generated code is what gen.Go writes for the table's types.
package gen

import "time"

type Vec3 struct{ X, Y, Z float32 }

type Scalars struct {
	B   bool
	I8  int8
	I16 int16
	I32 int32
	I64 int64
	I   int
	U8  uint8
	U16 uint16
	U32 uint32
	U64 uint64
	U   uint
	F32 float32
	F64 float64
}

type Ranges struct {
	Health  int32  `bits:"range=0..1000"`
	Temp    int16  `bits:"range=-40..85"`
	Fixed   uint8  `bits:"range=5..5"`
	NegOne  int8   `bits:"range=-1..-1"`
	Wide    uint32 `bits:"range=0..4294967295"`
	Upper   uint32 `bits:"range=3000000000..3000000100"`
	Big     int64  `bits:"range=-5000000000..5000000000"`
	Full    uint64 `bits:"range=0..18446744073709551615"`
	High    uint64 `bits:"range=18446744073709551000..18446744073709551615"`
	I32Full int32  `bits:"range=-2147483648..2147483647"`
	Low     int64  `bits:"range=-9223372036854775808..-9223372036854775000"`
	IntR    int    `bits:"range=-3..3"`
	UintR   uint   `bits:"range=100..200"`
	Byte    uint8  `bits:"range=0..255"`
	Span31  int64  `bits:"range=-1073741824..1073741823"`
}

type Bits struct {
	Weapon uint32   `bits:"bits=4"`
	Delta  int8     `bits:"bits=3"`
	S40    int64    `bits:"bits=40"`
	U40    uint64   `bits:"bits=40"`
	U1     uint16   `bits:"bits=1"`
	I1     int32    `bits:"bits=1"`
	U64    uint64   `bits:"bits=64"`
	I64    int64    `bits:"bits=64"`
	U32    uint32   `bits:"bits=32"`
	I32    int32    `bits:"bits=32"`
	Flags  [3]uint8 `bits:"bits=5"`
}

type Floats struct {
	Pos    Vec3       `bits:"float,min=-1024,max=1024,res=0.01"`
	Vel    Vec3       `bits:"float,min=-64,max=64,res=0.125,clamp"`
	Raw    Vec3       // the type's own form: raw floats
	Angle  float32    `bits:"float,min=-3.1415927,max=3.1415927,res=0.001"`
	Odd    float32    `bits:"float,min=0.1,max=0.7,res=0.3"`
	Dist   float64    `bits:"float,min=0,max=100000,res=0.001"`
	Unit   float64    `bits:"float,min=-1,max=1,res=1e-6,clamp"`
	Orient [4]float32 `bits:"float,min=-1,max=1,res=0.0001"`
}

// Pinned holds compressed floats whose arithmetic the tests pin code by
// code: V is the quant package's example (over [0, 10] at res 0.01 the
// float32 arithmetic gives 0.005→1, 0.025→3, 0.105→11, 9.995→1000); A and
// W have deltas that are not powers of two, so a product fused into a
// multiply-add changes bits.
type Pinned struct {
	V float32 `bits:"float,min=0,max=10,res=0.01"`
	A float32 `bits:"float,min=-3.1415927,max=3.1415927,res=0.001"`
	W float64 `bits:"float,min=-0.3,max=4.7,res=0.001"`
}

type Text struct {
	Name  string   `bits:"maxlen=15"`
	Empty string   `bits:"maxlen=0"`
	Note  string   `bits:"maxlen=40"`
	Blob  []byte   `bits:"maxlen=40"`
	None  []byte   `bits:"maxlen=0"`
	Key   [16]byte //
	Zero  [0]byte
	Codes []uint8  `bits:"maxlen=5,range=1..200"`
	Nib   [4]uint8 `bits:"bits=4"`
}

type Label struct {
	Text string `bits:"maxlen=7"`
}

type Player struct {
	Health int32  `bits:"range=0..1000"`
	Pos    Vec3   `bits:"float,min=-1024,max=1024,res=0.01"`
	Name   string `bits:"maxlen=15"`
	Alive  bool
}

type Containers struct {
	Ammo    [8]int32     `bits:"range=0..200"`
	Grid    [3][2]uint16 `bits:"range=0..999"`
	IDs     []uint32     `bits:"maxlen=16"`
	Opt     *int32       `bits:"range=-5..5"`
	OptVec  *Vec3        `bits:"float,min=-1,max=1,res=0.01"`
	Players []Player     `bits:"maxlen=4"`
	Labels  [2]Label     //
	PP      **uint8      //
	Lists   [2][]uint8   `bits:"maxlen=3"`
	Nested  []*[2]int8   `bits:"maxlen=2"`
	Empty   []uint16     `bits:"maxlen=0"`
	Anon    struct {
		A uint8 `bits:"range=0..3"`
		B bool
	}
	Lines []struct {
		Text string `bits:"maxlen=7"`
	} `bits:"maxlen=2"`
}

type Base struct {
	ID uint16
	X  int8
}

type inner struct {
	Secret uint8 `bits:"range=0..7"`
}

type Embeds struct {
	Base
	X int8 `bits:"range=-1..1"` // hides Base.X
	inner
	Tail bool
}

// Deep nests pointers where generated code nests most: inside a struct
// sent under a tag, pointers to pointers to structs, in slices.
type (
	Opt struct {
		P *float32
		Q [2]*float32
	}
	Deep struct {
		O   Opt `bits:"float,min=0,max=1,res=0.25"`
		PP  **Vec3
		PPT **Vec3    `bits:"float,min=0,max=1,res=0.5"`
		L   []**Label `bits:"maxlen=2"`
	}
)

// Quaternions in every shape bitpack takes: arrays (x, y, z, w, or w
// first with wxyz), structs named W, X, Y, Z in any order, four unnamed
// floats with xyzw or wxyz, a float and a vector of three in either order
// (mathgl's Quat{W; V}), float64 components, under pointers, in slices,
// and reached through a struct tagged quat.
type (
	QuatXYZW    struct{ X, Y, Z, W float32 }
	QuatWFirst  struct{ W, X, Y, Z float32 }
	QuatUnnamed struct{ A, B, C, D float32 }
	QuatGL      struct {
		W float32
		V [3]float32
	}
	QuatVec struct {
		V Vec3
		W float32
	}
	Quat64 struct{ X, Y, Z, W float64 }
	Pose   struct {
		A QuatXYZW
		B [4]float32
	}
	Rotations struct {
		Arr   [4]float32  `bits:"quat,bits=9"`
		ArrW  [4]float32  `bits:"quat,bits=10,wxyz"`
		Arr64 [4]float64  `bits:"quat,bits=12"`
		Named QuatWFirst  `bits:"quat,bits=4"`
		Plain QuatXYZW    `bits:"quat,bits=22"`
		Gonum QuatUnnamed `bits:"quat,bits=8,wxyz"`
		Order QuatUnnamed `bits:"quat,bits=8,xyzw"`
		GL    QuatGL      `bits:"quat,bits=11"`
		Vec   QuatVec     `bits:"quat,bits=7"`
		Wide  Quat64      `bits:"quat,bits=16"`
		Opt   *QuatXYZW   `bits:"quat,bits=9"`
		List  []QuatXYZW  `bits:"maxlen=3,quat,bits=9"`
		Pose  Pose        `bits:"quat,bits=6"`
	}
)

// Units has unit= on durations (a Go duration as the unit) and on other
// integers, ranged and raw, signed and not, and integer clamp, with and
// without a unit.
type Units struct {
	Timeout time.Duration `bits:"unit=1ms,range=0..60000"`
	Delay   time.Duration `bits:"unit=50us,bits=12"`
	Neg     int32         `bits:"unit=10,range=-100..100"`
	Raw     int64         `bits:"unit=1000,bits=20"`
	Big     uint64        `bits:"unit=3,range=0..1000000"`
	UBits   uint16        `bits:"unit=2,bits=8"`
	HP      int16         `bits:"range=0..100,clamp"`
	Lvl     uint8         `bits:"range=1..60,clamp"`
	Tilt    int8          `bits:"bits=3,clamp"`
	Count   uint32        `bits:"bits=5,clamp"`
	Wide    int64         `bits:"range=-5000000000..5000000000,clamp"`
	Slow    time.Duration `bits:"unit=1s,range=-10..10,clamp"`
	Ticks   []int32       `bits:"maxlen=3,unit=16,range=0..255,clamp"`
}

// Stamps has time.Time fields, which every client holds as their Unix
// time counted in units: units of 1ms, 1s, 1h, 1ns and 1.5s (which
// divides no second), ranges from year 1 (the zero time.Time) and before
// 1970, raw bits, ranges past 2^53 units (a bigint in TypeScript), clamp,
// and times in a slice, an array and behind a pointer.
type Stamps struct {
	At   time.Time    `bits:"unit=1ms,range=0..4102444800000"`             // 1970 to 2100: 42 bits
	Born time.Time    `bits:"unit=1s,range=-62135596800..4102444800"`      // year 1 to 2100: 36 bits
	Deep time.Time    `bits:"unit=1s,range=-9007199254740993..4102444800"` // from 2^53+1 s before 1970: 54 bits
	Tick time.Time    `bits:"unit=1h,bits=8"`                              // ±128 hours around 1970
	Fine time.Time    `bits:"unit=1ns,bits=64"`                            // 1677 to 2262
	Near time.Time    `bits:"unit=1500ms,range=-1000..1000,clamp"`         // ±25 minutes around 1970
	Log  []time.Time  `bits:"maxlen=3,unit=1s,range=0..4102444800"`
	Pair [2]time.Time `bits:"unit=1us,bits=40"` // ±6.4 days around 1970
	Opt  *time.Time   `bits:"unit=1ms,range=-5000..5000"`
}

// Epochs has time.Time fields at the ends of int64 and of time.Time:
// every Unix second a time.Time has (64 bits), 1ns over int64 clamped,
// a unit of math.MaxInt64 ns, a range of one unit (no bits), ranges at
// the bottom of int64 in milliseconds and at its top in microseconds
// (clamped), ±2^63 ns in units of 3ns, a unit just over a second from
// the earliest Unix second to the latest, and ±2^53 ms (the widest range a
// TypeScript number holds).
type Epochs struct {
	Edge time.Time `bits:"unit=1s,range=-9223372036854775808..9223371974719179007"`
	Ns   time.Time `bits:"unit=1ns,bits=64,clamp"`
	Big  time.Time `bits:"unit=2562047h47m16.854775807s,bits=3,clamp"`
	One  time.Time `bits:"unit=1h,range=5..5"`
	Low  time.Time `bits:"unit=1ms,range=-9223372036854775808..-9223372036854775000"`
	High time.Time `bits:"unit=1us,range=9223372036854775000..9223372036854775807,clamp"`
	Odd  time.Time `bits:"unit=3ns,range=-3074457345618258602..3074457345618258602"`
	Slow time.Time `bits:"unit=1000000001ns,range=-9223372027631403780..9223371965495807042"`
	Safe time.Time `bits:"unit=1ms,range=-9007199254740992..9007199254740992"`
}

// QuatProbe pins the quaternion arithmetic code by code, as Pinned does
// the compressed floats': A at 4 bits per component, whose every code the
// probes decode; B at 9 and C (float64 components) at 13, decoded from
// random codes and encoded from values near the ties where a rounding
// step done differently (a fused multiply-add, a double kept for a float)
// changes a code.
type QuatProbe struct {
	A [4]float32 `bits:"quat,bits=4"`
	B [4]float32 `bits:"quat,bits=9"`
	C [4]float64 `bits:"quat,bits=13"`
}

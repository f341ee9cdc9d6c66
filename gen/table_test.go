package gen

import (
	"errors"
	"math/rand"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/bitpacktest"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// The table of types the cross-language tests generate C++ for: every tag
// kind of the README's tag table, nesting, arrays of structs, slices,
// pointers, unions of registered interfaces (numbered with At and
// IndexBits too), sparse arrays, checks, hooks, float64 compressed floats,
// signed bits=N, raw floats, 64-bit ranges, quaternions in every shape,
// maps, unit= and integer clamp, time.Time.

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

type Obj struct {
	Kind uint8 `bits:"range=0..9"`
	HP   int16
}

type World struct {
	Objects [40]*Obj  `bits:"sparse"`
	Extra   []*Obj    `bits:"maxlen=300,sparse"`
	Bytes   [8]*uint8 `bits:"sparse,range=0..3"`
}

// Far reaches int_relative's absolute tier (a gap above 69914). Its 70000
// slots are values the Go decoder visits, so its packets carry Pad: the
// decoder's work allowance is 4096 + 64 values per bit (not a wire rule:
// the C++ reader has none).
type Far struct {
	Pad   [130]byte
	Slots [70000]*uint8 `bits:"sparse,range=0..3"`
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

type Checked struct {
	Start bitpack.Check `bits:"check=start"`
	X     uint8         `bits:"range=0..7"`
	Mid   bitpack.Check `bits:"check=mid"`
	End   bitpack.Check `bits:"check=end of packet"`
}

// Msg is a registered union of three members, One of one (0 index bits).
type (
	Msg  interface{ isMsg() }
	One  interface{ isOne() }
	Move struct {
		DX int8 `bits:"range=-8..7"`
		DY int8 `bits:"range=-8..7"`
	}
	Fire struct {
		Power uint8 `bits:"range=0..3"`
	}
	Chat struct {
		Text string `bits:"maxlen=20"`
	}
	Ping struct{ Seq uint16 }
)

func (Move) isMsg()  {}
func (*Fire) isMsg() {}
func (Chat) isMsg()  {}
func (Ping) isOne()  {}

type Envelope struct {
	First Msg
	Rest  []Msg `bits:"maxlen=4"`
	Solo  One
}

// Stamp encodes itself: its 12 bits as the high 4, an align, then the
// low 8, so the bits it takes depend on where it starts (16 from bit 0,
// 14 from bit 2, where a delta of Hooked puts it); values above 4095
// refused. Each client's side is written by hand (testdata/hooks.h,
// hooks.cs, driver_cases.ts, rust/driver.rs).
type Stamp struct{ v uint16 }

func (s *Stamp) MarshalBits(w *bitio.Writer) error {
	if s.v > 4095 {
		return errors.New("stamp out of range")
	}
	w.WriteBits(uint64(s.v>>8), 4)
	w.Align()
	w.WriteBits(uint64(s.v&255), 8)
	return w.Err()
}

func (s *Stamp) UnmarshalBits(r *bitio.Reader) error {
	high := r.ReadBits(4)
	r.Align()
	s.v = uint16(high<<8 | r.ReadBits(8))
	return r.Err()
}

type Hooked struct {
	At Stamp
	N  uint8 `bits:"range=0..9"`
}

// Nib encodes itself in 4 bits, of which 15 is reserved: UnmarshalBits
// reads it, MarshalBits refuses it, so a packet can bring a value, or a
// delta's base, that cannot be written. Each client's side is written by
// hand, as Stamp's.
type Nib struct{ v uint8 }

func (n *Nib) MarshalBits(w *bitio.Writer) error {
	if n.v > 14 {
		return errors.New("nib out of range")
	}
	w.WriteBits(uint64(n.v), 4)
	return w.Err()
}

func (n *Nib) UnmarshalBits(r *bitio.Reader) error {
	n.v = uint8(r.ReadBits(4))
	return r.Err()
}

// HookBox holds hooks where a delta reaches them through each container's
// code (array and slice elements, a pointee, sparse slots, map values, a
// struct element's field), each after other bits, so that Stamps start at
// bits of every parity and their aligns take other padding in a delta
// than on their own; and Nibs, whose reserved value makes a base or a
// value read that cannot be written (Nib at bit 0 of a packet).
type HookBox struct {
	Nib   Nib
	Odd   bool
	Pair  [2]Stamp
	List  []Stamp `bits:"maxlen=3"`
	Ptr   *Stamp
	Slots [3]*Stamp       `bits:"sparse"`
	ByID  map[uint8]Stamp `bits:"maxlen=2,key.range=0..7"`
	Elems []StampBeside   `bits:"maxlen=2"`
	Nibs  []Nib           `bits:"maxlen=2"`
	NibAt map[uint8]Nib   `bits:"maxlen=2,key.range=0..3"`
}

// StampBeside is a struct element holding a Stamp after 2 bits.
type StampBeside struct {
	N  uint8 `bits:"range=0..2"`
	At Stamp
}

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

// Maps with keys of every kind (strings with key.maxlen, unsigned, bools,
// ranged signed keys, 64-bit keys and a range near the top of uint64), and
// values that are structs, pointers under a float tag, slices of strings,
// quaternions; maps in an array, and a map of maxlen 0.
type Maps struct {
	Scores map[string]int32     `bits:"maxlen=4,key.maxlen=6,range=-100..100"`
	ByID   map[uint16]Player    `bits:"maxlen=3"`
	Flags  map[bool]uint8       `bits:"maxlen=2,bits=3"`
	Signed map[int8]*Vec3       `bits:"maxlen=3,key.range=-5..5,float,min=-1,max=1,res=0.01"`
	Big    map[int64]uint64     `bits:"maxlen=2"`
	Lists  map[uint8][]string   `bits:"maxlen=2,elem.maxlen=2,elem.elem.maxlen=4"`
	Rot    map[uint8][4]float32 `bits:"maxlen=2,quat,bits=9"`
	Nested [2]map[uint8]bool    `bits:"maxlen=2"`
	Empty  map[uint8]uint8      `bits:"maxlen=0"`
	High   map[uint64]bool      `bits:"maxlen=2,key.range=18446744073709551000..18446744073709551615"`
}

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

// TimeBoxes has time.Time fields in the containers Stamps has not: an
// embedded time, a pointer to a pointer, a slice of slices, a map's
// values, a sparse slice, a map of slices (gen.Go leaves it to the plan:
// maps and sparse slices).
type TimeBoxes struct {
	Emb   TimeEmbed
	PP    **time.Time          `bits:"unit=1ms,range=0..1000"`
	Rows  [][]time.Time        `bits:"maxlen=2,elem.maxlen=2,unit=1s,range=-5..5"`
	ByKey map[uint8]time.Time  `bits:"maxlen=3,unit=1s,range=0..10,clamp"`
	Slots []*time.Time         `bits:"maxlen=4,sparse,unit=1s,range=0..10"`
	Hours map[int8][]time.Time `bits:"maxlen=2,elem.maxlen=2,unit=1h,bits=4"`
}

// TimeEmbed embeds a time.Time, which takes its tag.
type TimeEmbed struct {
	time.Time `bits:"unit=1s,range=0..100"`
	N         int8
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

// Named holds enums, named integer types whose constants tableEnums
// gives (so the clients declare these fields with enums of their own), in
// every place an integer goes: ranged, raw, signed, 64-bit, in a slice, an
// array, under a pointer, as a map's keys and values; Side's 3 and most
// of Raw's values no constant names. And durations that C# and
// TypeScript hold counted in units: more than 2^53 of them (a bigint in
// TypeScript), more than 2^32 (a number all the same), and clamped.
type (
	Team   uint8
	Offset int16
	Rank   int64
	Named  struct {
		Side   Team            `bits:"range=0..3"`
		Raw    Team            ``
		Shift  Offset          `bits:"range=-2..2"`
		Rank   Rank            ``
		Ranks  []Rank          `bits:"maxlen=3,range=-5..5"`
		Row    [3]Offset       ``
		Opt    *Team           `bits:"range=0..2"`
		ByTeam map[Team]Offset `bits:"maxlen=3,key.range=0..3"`
		Fine   time.Duration   `bits:"unit=2ns,bits=62"`
		Beat   time.Duration   `bits:"unit=1us,bits=40"`
		Lag    time.Duration   `bits:"unit=1ms,range=-5000..5000,clamp"`
	}
)

// tableEnums are the constants of the table's enums, as bitpack gen
// would read them: Team's in declaration order, not by value.
var tableEnums = []Enum{
	{PkgPath: "github.com/bitpack-go/bitpack/gen", Name: "Team", Constants: []EnumConstant{{"Red", 1}, {"Blue", 2}, {"Spectator", 0}}},
	EnumOf(map[string]Offset{"Left": -1, "Centre": 0, "Right": 1}),
	EnumOf(map[string]Rank{"Bottom": -1 << 40, "Top": 1 << 40}), // no constant is 0, Go's zero value
}

// Unions numbered their own way: Cmd's members have the indices 7, 9 and
// 10 (At), Tall takes 5 index bits for two members (IndexBits), Lone is one
// member at index 2 in 2 bits.
type (
	Cmd  interface{ isCmd() }
	Tall interface{ isTall() }
	Lone interface{ isLone() }
	Jump struct {
		H uint8 `bits:"range=0..15"`
	}
	Duck struct{ Low bool }
	Say  struct {
		Text string `bits:"maxlen=8"`
	}
	Up   struct{ N int8 }
	Down struct{ N uint8 }
	Solo struct {
		Q [4]float32 `bits:"quat,bits=5"`
	}
	Numbered struct {
		C    Cmd
		More []Cmd `bits:"maxlen=3"`
		T    Tall
		L    Lone
	}
)

func (Jump) isCmd()  {}
func (*Duck) isCmd() {}
func (Say) isCmd()   {}
func (Up) isTall()   {}
func (Down) isTall() {}
func (Solo) isLone() {}

func registerUnion[I any](members ...any) {
	u, err := bitpack.NewUnion(members...)
	if err != nil {
		panic(err)
	}
	if err := bitpack.RegisterUnion[I](u); err != nil {
		panic(err)
	}
}

func init() {
	registerUnion[Cmd](bitpack.At(7, Jump{}), bitpack.At(9, &Duck{}), Say{})
	registerUnion[Tall](bitpack.IndexBits(5), Up{}, Down{})
	registerUnion[Lone](bitpack.IndexBits(2), bitpack.At(2, Solo{}))
	mu, err := bitpack.NewUnion(Move{}, &Fire{}, Chat{})
	if err != nil {
		panic(err)
	}
	if err := bitpack.RegisterUnion[Msg](mu); err != nil {
		panic(err)
	}
	ou, err := bitpack.NewUnion(Ping{})
	if err != nil {
		panic(err)
	}
	if err := bitpack.RegisterUnion[One](ou); err != nil {
		panic(err)
	}
}

// tableEntry is one root type of the table and a generator of its valid
// values.
type tableEntry struct {
	proto any
	gen   gopter.Gen
}

func stampGen() gopter.Gen {
	return gen.UInt16Range(0, 4095).Map(func(v uint16) Stamp { return Stamp{v} })
}

func nibGen() gopter.Gen {
	return gen.UInt8Range(0, 14).Map(func(v uint8) Nib { return Nib{v} })
}

// table returns the entries. (A function: the generators compile plans,
// which must wait for init's union registrations.)
func table() []tableEntry {
	return []tableEntry{
		{Scalars{}, bitpacktest.Gen[Scalars]()},
		{Ranges{}, bitpacktest.Gen[Ranges]()},
		{Bits{}, bitpacktest.Gen[Bits]()},
		{Floats{}, bitpacktest.Gen[Floats]()},
		{Pinned{}, bitpacktest.Gen[Pinned]()},
		{Text{}, bitpacktest.Gen[Text]()},
		{Containers{}, bitpacktest.Gen[Containers](bitpacktest.MaxElems(6))},
		{Embeds{}, bitpacktest.Gen[Embeds]()},
		{World{}, bitpacktest.Gen[World](bitpacktest.MaxElems(6))},
		{Far{}, bitpacktest.Gen[Far]()},
		{Checked{}, bitpacktest.Gen[Checked]()},
		{Deep{}, bitpacktest.Gen[Deep]()},
		{Envelope{}, bitpacktest.Gen[Envelope]()},
		{Hooked{}, bitpacktest.Gen[Hooked](bitpacktest.Custom[Stamp](stampGen()))},
		{HookBox{}, bitpacktest.Gen[HookBox](bitpacktest.Custom[Stamp](stampGen()), bitpacktest.Custom[Nib](nibGen()), bitpacktest.MaxElems(3))},
		{Rotations{}, bitpacktest.Gen[Rotations]()},
		{Maps{}, bitpacktest.Gen[Maps](bitpacktest.MaxElems(6))},
		{Units{}, bitpacktest.Gen[Units]()},
		{Named{}, bitpacktest.Gen[Named](bitpacktest.MaxElems(3))},
		{Numbered{}, bitpacktest.Gen[Numbered]()},
		{QuatProbe{}, bitpacktest.Gen[QuatProbe]()},
		{Stamps{}, stampsGen(false)},
		{Epochs{}, epochsGen(false)},
		{TimeBoxes{}, timeBoxesGen()},
	}
}

// sample draws n values of entry e from a fixed seed.
func (e tableEntry) sample(seed int64, n int) []any {
	p := gopter.DefaultGenParameters()
	p.Rng = rand.New(rand.NewSource(seed))
	var out []any
	for len(out) < n {
		if v, ok := e.gen(p).Retrieve(); ok {
			out = append(out, v)
		}
	}
	return out
}

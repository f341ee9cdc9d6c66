package gen

import (
	"errors"
	"math/rand"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/bitpacktest"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// The table of types the cross-language tests generate C++ for: every tag
// kind of the README's tag table, nesting, arrays of structs, slices,
// pointers, unions of registered interfaces, sparse arrays, checks, hooks,
// float64 compressed floats, signed bits=N, raw floats and 64-bit ranges.

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

// Stamp encodes itself: 12 bits, values above 4095 refused. The C++ side
// is hand-written in testdata/hooks.h.
type Stamp struct{ v uint16 }

func (s *Stamp) MarshalBits(w *bitio.Writer) error {
	if s.v > 4095 {
		return errors.New("stamp out of range")
	}
	w.WriteBits(uint64(s.v), 12)
	return w.Err()
}

func (s *Stamp) UnmarshalBits(r *bitio.Reader) error {
	s.v = uint16(r.ReadBits(12))
	return r.Err()
}

type Hooked struct {
	At Stamp
	N  uint8 `bits:"range=0..9"`
}

func init() {
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

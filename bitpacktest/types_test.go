package bitpacktest

import (
	"errors"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// Types shared by the package's tests.

type vec3 struct{ X, Y, Z float32 }

type quatStruct struct{ X, Y, Z, W float64 }

type level uint8 // a named integer

type meters float32 // a named float

// nibble is a custom type: 4 bits of its own, 15 reserved.
type nibble struct{ v uint8 }

func (n *nibble) MarshalBits(w *bitio.Writer) error {
	if n.v > 14 {
		return errors.New("nibble: 15 is reserved")
	}
	w.WriteBits(uint64(n.v), 4)
	return nil
}

func (n *nibble) UnmarshalBits(r *bitio.Reader) error {
	n.v = uint8(r.ReadBits(4))
	if n.v == 15 {
		return errors.New("nibble: 15 is reserved")
	}
	return nil
}

// nibbleGen generates valid nibbles.
func nibbleGen() gopter.Gen {
	return gen.UInt8Range(0, 14).Map(func(v uint8) nibble { return nibble{v} })
}

type embedded struct{ Tag uint16 }

type hiddenEmbed struct{ Secret int8 }

// tree is recursive through a pointer and a slice.
type tree struct {
	Val  int16 `bits:"range=-5..5"`
	Left *tree
	Kids []tree `bits:"maxlen=3"`
}

// allKinds exercises every tag kind bitpack supports.
type allKinds struct {
	scalarKinds
	Q32 [4]float32           `bits:"quat,bits=9"`
	Q64 quatStruct           `bits:"quat,bits=12"`
	Q4  [4]float32           `bits:"quat,bits=4"`
	QM  map[uint8]quatStruct `bits:"maxlen=2,quat,bits=9"` // quaternions compared within tolerance inside a map
}

// scalarKinds is allKinds without the quaternions.
type scalarKinds struct {
	embedded
	hiddenEmbed
	B     bool
	I8    int8
	I16   int16 `bits:"range=-300..300"`
	I32   int32 `bits:"bits=5"`
	I64   int64
	I     int   `bits:"range=-9223372036854775808..9223372036854775807"`
	U8    uint8 `bits:"range=3..3"`
	U16   uint16
	U32   uint32 `bits:"range=1000..1010"`
	U64   uint64 `bits:"bits=33"`
	U     uint
	Lvl   level `bits:"range=1..99"`
	F32   float32
	F64   float64
	M     meters
	C32   float32 `bits:"float,min=-10,max=10,res=0.01"`
	C32c  float32 `bits:"float,min=0,max=1,res=0.001,clamp"`
	C64   float64 `bits:"float,min=-1000,max=1000,res=0.0001"`
	C64c  float64 `bits:"float,min=-1,max=1,res=0.5,clamp"`
	CM    meters  `bits:"float,min=0,max=100,res=0.5"`
	Name  string  `bits:"maxlen=13"`
	Long  string  `bits:"maxlen=300"`
	Blob  []byte  `bits:"maxlen=9"`
	Nib   []byte  `bits:"maxlen=4,range=0..15"`
	Key   [5]byte
	Bits  [3]uint8  `bits:"bits=3"`
	Arr   [3]int32  `bits:"range=-1..1"`
	Big   [40]uint8 `bits:"range=0..7"`
	Vecs  []vec3    `bits:"maxlen=4,float,min=-100,max=100,res=0.125"`
	Ptr   *uint16   `bits:"range=10..20"`
	PVec  *vec3
	Pos   vec3 `bits:"float,min=-5,max=5,res=0.01"`
	Cust  nibble
	Custs []nibble `bits:"maxlen=3"`
	Tree  *tree
	Proto protoKinds
	Maps  mapKinds
	Skip  int `bits:"-"`
	priv  int
}

// mapKinds holds maps with every kind of key (raw, ranged and bits=
// integers, named ones, strings, bools) and values of several kinds.
// Slots and Tags have no more distinct keys than their maxlen: a full map
// holds every key there is.
type mapKinds struct {
	Inv    map[uint8]uint16      `bits:"maxlen=5"`
	Score  map[string]int32      `bits:"maxlen=4,key.maxlen=6,range=-100..100"`
	Flags  map[bool]vec3         `bits:"maxlen=2,float,min=-4,max=4,res=0.5"`
	Groups map[int16][]string    `bits:"maxlen=3,key.range=-2..2,elem.maxlen=2,elem.elem.maxlen=4"`
	Opt    map[int64]*level      `bits:"maxlen=3,range=1..9"`
	Slots  map[uint32][2]float32 `bits:"maxlen=4,key.bits=2,float,min=0,max=1,res=0.25,clamp"`
	Tags   map[string]bool       `bits:"maxlen=3,key.maxlen=0"`
	Clamp  map[level]int8        `bits:"maxlen=3,key.range=1..99,range=-5..5,clamp"`
}

// mapTree is recursive through a map's values.
type mapTree struct {
	V    int8             `bits:"range=-3..3"`
	Kids map[int8]mapTree `bits:"maxlen=3,key.range=-3..3"`
}

// command is an interface field type, encoded through a registered union;
// groupCmd makes it recursive, directly (Lead) and through a slice.
type command interface{ isCommand() }

type moveCmd struct {
	DX, DY int8    `bits:"range=-8..7"`
	Speed  float32 `bits:"float,min=0,max=10,res=0.1"`
}

type fireCmd struct {
	Target uint16
	Power  float64 `bits:"float,min=0,max=1,res=0.01"`
}

type sayCmd struct {
	Text string `bits:"maxlen=12"`
}

type groupCmd struct {
	Lead command
	Cmds []command `bits:"maxlen=3"`
}

func (moveCmd) isCommand()   {}
func (*fireCmd) isCommand()  {}
func (sayCmd) isCommand()    {}
func (*groupCmd) isCommand() {}

func init() {
	u, err := bitpack.NewUnion(moveCmd{}, &fireCmd{}, sayCmd{}, &groupCmd{})
	if err != nil {
		panic(err)
	}
	if err := bitpack.RegisterUnion[command](u); err != nil {
		panic(err)
	}
}

type entity struct {
	ID uint16 `bits:"range=0..4095"`
	HP int8
}

// protoKinds holds the protocol kinds: unions, sparse arrays and slices,
// serialize checks.
type protoKinds struct {
	Seq   uint16 `bits:"range=0..1023"`
	Cmd   command
	More  []command     `bits:"maxlen=4"`
	Mid   bitpack.Check `bits:"check=middle"`
	Slots [6]*vec3      `bits:"sparse,float,min=-8,max=8,res=0.5"`
	Ents  []*entity     `bits:"sparse,maxlen=40"`
	End   bitpack.Check `bits:"check=end of packet"`
}

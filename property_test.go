package bitpack_test

import (
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitpacktest"
)

// Property tests: bitpacktest.CheckRoundTrip generates values
// that satisfy each type's tags and checks, for each, that Marshal accepts
// it, that Unmarshal gives it back (compressed floats at their quantum,
// quaternions within the documented angle, raw floats bit for bit), that
// the decoded value re-encodes to the same bytes, and that the packet size
// lies within the type's layout. Seeds are fixed per type; a failure prints
// a shrunk counterexample and the bitpacktest.Seed that replays it.

// rtLobby: strings with multi-byte runes, pointers (to structs, floats and
// strings), nested structs and slices of them, quantized floats and a
// quaternion.
type rtLobby struct {
	ID      uint32
	Name    string `bits:"maxlen=24"`
	Host    *Player
	Players []Player `bits:"maxlen=8"`
	Map     [4]byte
	Spawn   Vec3     `bits:"float,min=-1000,max=1000,res=0.05"`
	Facing  Quat     `bits:"quat,bits=10"`
	Wind    *float64 `bits:"float,min=0,max=50,res=0.001"`
	Scores  []int16  `bits:"maxlen=16,range=-500..500"`
	Motd    *string  `bits:"maxlen=64"`
	Ranked  bool
}

// rtZone is recursive, through a slice and a pointer.
type rtZone struct {
	ID     uint16   `bits:"range=0..4095"`
	Bounds [2]Vec3  `bits:"float,min=-4096,max=4096,res=0.25"`
	Label  string   `bits:"maxlen=8"`
	Kids   []rtZone `bits:"maxlen=4"`
	Portal *rtZone
}

// rtGear is a named integer type.
type rtGear int8

type rtWheel struct {
	Angle float32 `bits:"float,min=-0.7,max=0.7,res=0.001"`
	Grip  uint8   `bits:"bits=5"`
	Flat  bool
}

// rtVehicle: an embedded struct, a named type, compressed float64 and a
// clamped float32, raw floats, an array of structs and a float64
// quaternion.
type rtVehicle struct {
	Base
	Gear     rtGear  `bits:"range=-1..6"`
	Speed    float64 `bits:"float,min=0,max=400,res=0.01"`
	Throttle float32 `bits:"float,min=0,max=1,res=0.001,clamp"`
	Fuel     float32
	Odometer float64
	Wheels   [4]rtWheel
	Rot      [4]float64 `bits:"quat,bits=12"`
}

// rtEvent is a union of match events, registered below.
type rtEvent interface{ isRTEvent() }

type rtKill struct {
	Killer, Victim uint8 `bits:"range=0..63"`
	Headshot       bool
}

type rtSay struct {
	From uint8  `bits:"range=0..63"`
	Text string `bits:"maxlen=40"`
}

type rtSpawn struct {
	Who uint8 `bits:"range=0..63"`
	At  Vec3  `bits:"float,min=-1000,max=1000,res=0.05"`
}

func (rtKill) isRTEvent()   {}
func (*rtSay) isRTEvent()   {}
func (rtSpawn) isRTEvent()  {}
func (*rtRound) isRTEvent() {}

// rtRound nests events: recursion through the interface.
type rtRound struct {
	Number uint8     `bits:"range=1..30"`
	Events []rtEvent `bits:"maxlen=4"`
}

func init() {
	u, err := bitpack.NewUnion(rtKill{}, &rtSay{}, rtSpawn{}, &rtRound{})
	if err != nil {
		panic(err)
	}
	if err := bitpack.RegisterUnion[rtEvent](u); err != nil {
		panic(err)
	}
}

// rtMatchLog: unions, sparse fields and serialize checks.
type rtMatchLog struct {
	Tick   uint32
	First  rtEvent
	Events []rtEvent     `bits:"maxlen=6"`
	Mid    bitpack.Check `bits:"check=events done"`
	Alive  [16]*Player   `bits:"sparse"`
	Flags  []*rtWheel    `bits:"sparse,maxlen=20"`
	End    bitpack.Check `bits:"check=end of packet"`
}

func TestPropertyBenchPacket(t *testing.T) { bitpacktest.CheckRoundTrip[BenchPacket](t) }

func TestPropertyPlayer(t *testing.T) { bitpacktest.CheckRoundTrip[Player](t) }

func TestPropertySnapshot(t *testing.T) { bitpacktest.CheckRoundTrip[Snapshot](t) }

func TestPropertyLobby(t *testing.T) { bitpacktest.CheckRoundTrip[rtLobby](t) }

func TestPropertyZone(t *testing.T) { bitpacktest.CheckRoundTrip[rtZone](t) }

func TestPropertyVehicle(t *testing.T) { bitpacktest.CheckRoundTrip[rtVehicle](t) }

func TestPropertyMatchLog(t *testing.T) { bitpacktest.CheckRoundTrip[rtMatchLog](t) }

// Memory layouts: element stride larger than the wire field, padding next
// to skipped fields, non-struct recursion (see FuzzShapes).
func TestPropertyShapes(t *testing.T) { bitpacktest.CheckRoundTrip[rtShapes](t) }

// Embedded fields hidden and promoted as encoding/json does.
func TestPropertyEmbedShadow(t *testing.T) { bitpacktest.CheckRoundTrip[tEmbedShadow](t) }

// The adoption features' shapes: string lists, byte-slice lists, clamped
// integers, units and durations.
type rtAdoption struct {
	Names  []string      `bits:"maxlen=4,elem.maxlen=12"`
	Blobs  [][]byte      `bits:"maxlen=3,elem.maxlen=5"`
	Lag    time.Duration `bits:"range=-500..500,unit=1ms"`
	Scaled [3]int32      `bits:"range=-100..100,unit=250"`
	Level  uint16        `bits:"range=0..99,clamp"`
	Nested [][]string    `bits:"maxlen=2,elem.maxlen=2,elem.elem.maxlen=4"`
}

func TestPropertyAdoption(t *testing.T) { bitpacktest.CheckRoundTrip[rtAdoption](t) }

// rtMaps: maps with every kind of key (integers raw, ranged, bits= and
// named; strings; bools) and values with options of their own (key.,
// elem. and unprefixed): string lists, structs with compressed floats and
// pointers, pointers to structs, quaternions.
type rtMaps struct {
	Ammo    map[uint8]uint16   `bits:"maxlen=7"`
	Scores  map[string]int32   `bits:"maxlen=5,key.maxlen=8,range=-1000..1000"`
	Groups  map[int16][]string `bits:"maxlen=4,key.range=-50..50,elem.maxlen=3,elem.elem.maxlen=12"`
	Units   map[uint16]rtUnit  `bits:"maxlen=6,key.range=0..999"`
	Doors   map[bool]rtDoor    `bits:"maxlen=2"`
	Team    map[rtSide]*Player `bits:"maxlen=3,key.range=0..3"`
	Facings map[int32]Quat     `bits:"maxlen=3,key.bits=4,quat,bits=10"`
}

// rtSide is a named integer used as a map key (an enum).
type rtSide uint8

type rtUnit struct {
	Pos    Vec3     `bits:"float,min=-500,max=500,res=0.1"`
	Speed  *float32 `bits:"float,min=0,max=20,res=0.05,clamp"`
	Target *uint16  `bits:"range=0..999"`
	Leader *Player
	Note   string `bits:"-"`
}

type rtDoor struct {
	Open  bool
	Angle float64 `bits:"float,min=0,max=3.2,res=0.001"`
	Lock  *int8   `bits:"range=-1..9,clamp"`
}

func TestPropertyMaps(t *testing.T) { bitpacktest.CheckRoundTrip[rtMaps](t) }

// rtMapTree is recursive through a map's values.
type rtMapTree struct {
	Name string              `bits:"maxlen=4"`
	Sub  map[uint8]rtMapTree `bits:"maxlen=3"`
}

func TestPropertyMapTree(t *testing.T) { bitpacktest.CheckRoundTrip[rtMapTree](t) }

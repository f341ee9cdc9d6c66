package bitpack_test

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// The gameplay message: what a game sends many times a second for each
// entity, the shape issue 19 measures the plan on — four groups of fields
// behind presence bits (pointers), fixed-point integers, an enum, flag bits,
// compressed floats whose spans are not powers of two, a quaternion, a
// short string, byte arrays and raw uint32 arrays. 194 bytes on the wire
// as gameplaySample fills it.
//
// The same message is written and read three ways: by the plan
// (Codec[gameplayMsg]), by hand against bitio (gameplay_hand_test.go: one
// call per field, quantizers precomputed, WriteUints/ReadUints for the raw
// arrays, the same checks) and as generated code would do it
// (straightline_test.go: every width, bound and constant an immediate).
// TestGameplayThreeWays checks the three write the same bytes and read the
// same values.

// Stance is an enum: its values are the range of the field.
type Stance uint8

const (
	StanceIdle Stance = iota
	StanceWalk
	StanceRun
	StanceCrouch
	StanceProne
	StanceSwim // the last: range=0..5
)

type gameplayMsg struct {
	Tick     uint32     `bits:"range=0..16777215"`
	Entity   uint16     `bits:"range=0..4095"`
	Stance   Stance     `bits:"range=0..5"`
	Flags    uint8      `bits:"bits=6"` // input flags, one bit each
	Grounded bool       //
	Firing   bool       //
	Pos      Vec3       `bits:"float,min=-3000,max=3000,res=0.02"`
	Vel      Vec3       `bits:"float,min=-60,max=60,res=0.01"`
	Accel    Vec3       `bits:"float,min=-20,max=20,res=0.01"`
	Rot      Quat       `bits:"quat,bits=11"`
	Aim      [2]float32 `bits:"float,min=-90,max=90,res=0.05"` // pitch, yaw
	Name     string     `bits:"maxlen=23"`
	Weapon   *gpWeapon
	Anim     *gpAnim
	Vehicle  *gpVehicle
	Stats    *gpStats
	Inputs   [32]byte   // the last inputs, for the server's rewind
	Seen     [10]uint32 // entity IDs in view, raw
	Events   []uint32   `bits:"maxlen=16"` // event IDs, raw
}

type gpWeapon struct {
	ID        uint8   `bits:"range=0..63"`
	Ammo      uint16  `bits:"range=0..999"`
	Clip      uint8   `bits:"range=0..60"`
	Heat      float32 `bits:"float,min=0,max=1.5,res=0.01"`
	Reloading bool
	Mode      uint8 `bits:"range=0..2"` // an enum
}

type gpAnim struct {
	Seq   uint16  `bits:"range=0..511"`
	Phase float32 `bits:"float,min=0,max=3,res=0.002"`
	Blend float32 `bits:"float,min=0,max=1.2,res=0.01"`
	Layer uint8   `bits:"range=0..7"`
}

type gpVehicle struct {
	ID       uint16  `bits:"range=0..4095"`
	Seat     uint8   `bits:"range=0..7"`
	Speed    float32 `bits:"float,min=-100,max=300,res=0.1"`
	Steer    float32 `bits:"float,min=-1.5,max=1.5,res=0.005"`
	Throttle uint8   `bits:"range=0..255"`  // fixed point: 1/255ths
	Fuel     uint16  `bits:"range=0..1000"` // fixed point: tenths of a percent
}

type gpStats struct {
	Health  int16  `bits:"range=-100..1000"` // fixed point: tenths
	Armor   uint16 `bits:"range=0..2000"`
	Stamina uint16 `bits:"range=0..1000"`
	Kills   uint16 `bits:"range=0..999"`
	Deaths  uint16 `bits:"range=0..999"`
	Score   int32  `bits:"range=-100000..100000"`
	Ping    uint16 `bits:"range=0..1023"`
	Team    uint8  `bits:"range=0..3"` // an enum
}

func gameplaySample() gameplayMsg {
	m := gameplayMsg{
		Tick: 1234567, Entity: 3071, Stance: StanceCrouch, Flags: 0x2d, Grounded: true, Firing: true,
		Pos:     Vec3{1024.5, -377.25, 12.75},
		Vel:     Vec3{3.5, -0.25, 9.81},
		Accel:   Vec3{-1.5, 0, -9.81},
		Rot:     Quat{X: 0.1, Y: -0.3, Z: 0.2, W: 0.927362},
		Aim:     [2]float32{-12.5, 45.25},
		Name:    "Kestrel-07/alpha",
		Weapon:  &gpWeapon{ID: 17, Ammo: 240, Clip: 30, Heat: 0.42, Reloading: false, Mode: 2},
		Anim:    &gpAnim{Seq: 300, Phase: 1.25, Blend: 0.75, Layer: 3},
		Vehicle: &gpVehicle{ID: 2048, Seat: 1, Speed: 87.3, Steer: -0.35, Throttle: 200, Fuel: 640},
		Stats:   &gpStats{Health: 875, Armor: 1500, Stamina: 620, Kills: 12, Deaths: 3, Score: -4200, Ping: 48, Team: 2},
	}
	for i := range m.Inputs {
		m.Inputs[i] = byte(i*29 + 7)
	}
	for i := range m.Seen {
		m.Seen[i] = uint32(uint64(i+1) * 2246822519)
	}
	for i := 0; i < 12; i++ {
		m.Events = append(m.Events, uint32(uint64(i+3)*3266489917))
	}
	return m
}

// TestGameplayThreeWays: the plan, the hand-written bitio code and the
// straight-line code write the same bytes for the sample (with and without
// each group, and with the groups all absent), read them back to the same
// value, and refuse the same bad values and packets. Three independent
// writers agreeing is the check: none of them is computed from another.
func TestGameplayThreeWays(t *testing.T) {
	c, err := bitpack.NewCodec[gameplayMsg]()
	if err != nil {
		t.Fatal(err)
	}
	variants := map[string]func(*gameplayMsg){
		"all groups":  func(*gameplayMsg) {},
		"no weapon":   func(m *gameplayMsg) { m.Weapon = nil },
		"no anim":     func(m *gameplayMsg) { m.Anim = nil },
		"no vehicle":  func(m *gameplayMsg) { m.Vehicle = nil },
		"no stats":    func(m *gameplayMsg) { m.Stats = nil },
		"no groups":   func(m *gameplayMsg) { m.Weapon, m.Anim, m.Vehicle, m.Stats = nil, nil, nil, nil },
		"no events":   func(m *gameplayMsg) { m.Events = nil; m.Name = "" },
		"full events": func(m *gameplayMsg) { m.Events = make([]uint32, 16); m.Name = "abcdefghijklmnopqrstuvw" },
		"identity":    func(m *gameplayMsg) { m.Rot = Quat{} },
	}
	for name, change := range variants {
		m := gameplaySample()
		change(&m)
		want, err := c.Marshal(&m)
		if err != nil {
			t.Fatalf("%s: Marshal: %v", name, err)
		}
		var hw bitio.Writer
		if err := handWriteGameplay(&hw, &m); err != nil {
			t.Fatalf("%s: hand-written write: %v", name, err)
		}
		if !bytes.Equal(hw.Bytes(), want) {
			t.Fatalf("%s: hand-written bytes differ:\n got %x\nwant %x", name, hw.Bytes(), want)
		}
		out, err := straightAppendGameplay(nil, &m)
		if err != nil {
			t.Fatalf("%s: straight-line write: %v", name, err)
		}
		if !bytes.Equal(out, want) {
			t.Fatalf("%s: straight-line bytes differ:\n got %x\nwant %x", name, out, want)
		}
		var viaCodec, viaHand, viaStraight gameplayMsg
		if err := c.Unmarshal(want, &viaCodec); err != nil {
			t.Fatalf("%s: Unmarshal: %v", name, err)
		}
		if err := handReadGameplay(want, &viaHand); err != nil {
			t.Fatalf("%s: hand-written read: %v", name, err)
		}
		if err := straightReadGameplay(want, &viaStraight); err != nil {
			t.Fatalf("%s: straight-line read: %v", name, err)
		}
		if !reflect.DeepEqual(viaHand, viaCodec) || !reflect.DeepEqual(viaStraight, viaCodec) {
			t.Fatalf("%s: reads differ:\ncodec    %+v\nhand     %+v\nstraight %+v", name, viaCodec, viaHand, viaStraight)
		}
		if name == "all groups" && len(want) != 194 {
			t.Errorf("the sample takes %d bytes, the doc comment says 194", len(want))
		}
	}
}

// TestGameplayRefusals: values the tags refuse are refused by all three
// writers, and damaged packets by all three readers.
func TestGameplayRefusals(t *testing.T) {
	c, err := bitpack.NewCodec[gameplayMsg]()
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(*gameplayMsg){
		"tick":        func(m *gameplayMsg) { m.Tick = 1 << 24 },
		"stance":      func(m *gameplayMsg) { m.Stance = 6 },
		"flags":       func(m *gameplayMsg) { m.Flags = 64 },
		"pos":         func(m *gameplayMsg) { m.Pos.Y = 3000.5 },
		"vel NaN":     func(m *gameplayMsg) { m.Vel.X = float32(math.NaN()) },
		"rot":         func(m *gameplayMsg) { m.Rot = Quat{X: 0.5, W: 0.5} },
		"name":        func(m *gameplayMsg) { m.Name = "bad\x00name" },
		"heat":        func(m *gameplayMsg) { m.Weapon.Heat = -0.01 },
		"mode":        func(m *gameplayMsg) { m.Weapon.Mode = 3 },
		"steer":       func(m *gameplayMsg) { m.Vehicle.Steer = 1.6 },
		"health":      func(m *gameplayMsg) { m.Stats.Health = -101 },
		"score":       func(m *gameplayMsg) { m.Stats.Score = 100001 },
		"events":      func(m *gameplayMsg) { m.Events = make([]uint32, 17) },
		"name length": func(m *gameplayMsg) { m.Name = "abcdefghijklmnopqrstuvwx" },
	}
	for name, change := range bad {
		m := gameplaySample()
		change(&m)
		if _, err := c.Marshal(&m); err == nil {
			t.Errorf("%s: Codec accepts it", name)
		}
		var w bitio.Writer
		if err := handWriteGameplay(&w, &m); err == nil {
			t.Errorf("%s: the hand-written writer accepts it", name)
		}
		if _, err := straightAppendGameplay(nil, &m); err == nil {
			t.Errorf("%s: the straight-line writer accepts it", name)
		}
	}

	m := gameplaySample()
	good, err := c.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	packets := map[string][]byte{
		"short":    good[:len(good)-1],
		"trailing": append(append([]byte{}, good...), 0),
		"stance 7": func() []byte { b := append([]byte{}, good...); b[4] |= 0x70; return b }(), // bits 36..38: the stance
	}
	for name, p := range packets {
		var a, b, s gameplayMsg
		errC := c.Unmarshal(p, &a)
		errH := handReadGameplay(p, &b)
		errS := straightReadGameplay(p, &s)
		if errC == nil || errH == nil || errS == nil {
			t.Errorf("%s: accepted: codec %v, hand %v, straight %v", name, errC, errH, errS)
		}
		if errors.Is(errC, bitpack.ErrTrailing) != errors.Is(errS, bitpack.ErrTrailing) {
			t.Errorf("%s: codec says %v, straight-line %v", name, errC, errS)
		}
	}
}

// TestStraightLineConstants: the immediates of the straight-line code are
// what quant works out for the tags, and quant proves the reciprocal the
// straight-line reader multiplies by exact for every code.
func TestStraightLineConstants(t *testing.T) {
	for _, c := range []struct {
		q           *quant.Float
		delta       float32
		m           uint32
		bits        int
		pow2Inverse float32 // the straight-line writer multiplies by it instead of dividing by delta
	}{
		{&gpPos, 6000, 300000, 19, 0}, {&gpVel, 120, 12000, 14, 0}, {&gpAccel, 40, 4000, 12, 0},
		{&gpAim, 180, 3600, 12, 0}, {&gpHeat, 1.5, 150, 8, 0}, {&gpPhase, 3, 1500, 11, 0},
		{&gpBlend, 1.2, 121, 7, 0}, {&gpSpeed, 400, 4000, 12, 0}, {&gpSteer, 3, 600, 10, 0},
		{&refPos, 2048, 204800, 18, 1.0 / 2048}, {&refOrient, 2, 20000, 15, 0.5},
	} {
		q := *c.q
		if got := q.Max() - q.Min(); got != c.delta || q.MaxCode() != c.m || q.Bits() != c.bits {
			t.Errorf("[%v, %v]: delta %v, M %d, %d bits; the straight-line code has %v, %d, %d", q.Min(), q.Max(), got, q.MaxCode(), q.Bits(), c.delta, c.m, c.bits)
		}
		if !q.VerifyReciprocal() {
			t.Errorf("[%v, %v]: the reciprocal of M is not exact: the straight-line reader must divide", q.Min(), q.Max())
		}
		if c.pow2Inverse != 0 && c.pow2Inverse*c.delta != 1 {
			t.Errorf("[%v, %v]: %v is not 1/delta", q.Min(), q.Max(), c.pow2Inverse)
		}
	}
	if gpRot.Bits() != 35 {
		t.Errorf("the quaternion takes %d bits; the straight-line code writes 35", gpRot.Bits())
	}
}

// TestPowerOfTwoDivision: for the power-of-two spans the straight-line
// writer multiplies by, x*(1/d) rounds to the same float32 as x/d (both
// are the same real number, the reciprocal being exact), over every
// 4093rd float32 bit pattern (all signs and exponents, subnormals, NaN and
// infinities) and every pattern near zero, the smallest normal and the
// largest finite float32.
func TestPowerOfTwoDivision(t *testing.T) {
	check := func(d, inv float32, b uint32) {
		x := math.Float32frombits(b)
		div, mul := float32(x/d), float32(x*inv)
		if math.Float32bits(div) != math.Float32bits(mul) && !(div != div && mul != mul) {
			t.Fatalf("d=%v x=%v (%#x): x/d = %v, x*(1/d) = %v", d, x, b, div, mul)
		}
	}
	for _, c := range []struct{ d, inv float32 }{{2048, 1.0 / 2048}, {2, 0.5}, {0.5, 2}, {4096, 1.0 / 4096}} {
		for b := uint64(0); b < 1<<32; b += 4093 {
			check(c.d, c.inv, uint32(b))
		}
		for _, edge := range []uint32{0, 0x00800000, 0x7f7fffff} {
			for k := uint32(0); k < 1<<12; k++ {
				check(c.d, c.inv, edge+k)
				check(c.d, c.inv, edge-k)
				check(c.d, c.inv, (edge+k)|1<<31)
			}
		}
	}
}

// BenchmarkGameplay writes and reads the gameplay message by hand against
// bitio ("hand", the baseline), as straight-line code ("straight") and
// through Codec[gameplayMsg] ("codec"), all four groups present.
func BenchmarkGameplay(b *testing.B) {
	m := gameplaySample()
	c, err := bitpack.NewCodec[gameplayMsg]()
	if err != nil {
		b.Fatal(err)
	}
	packet, err := c.Marshal(&m)
	if err != nil {
		b.Fatal(err)
	}
	size := int64(len(packet))
	buf := make([]byte, 0, 256)
	b.Run("write/hand", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		var w bitio.Writer
		for b.Loop() {
			w.Reset(buf[:0])
			if err := handWriteGameplay(&w, &m); err != nil {
				b.Fatal(err)
			}
			buf = w.Bytes()
		}
	})
	b.Run("write/straight", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = straightAppendGameplay(buf[:0], &m)
		}
	})
	b.Run("write/codec", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = c.Append(buf[:0], &m)
		}
	})
	cg, err := bitpack.NewCodec[gameplayGen]() // runs the generated code
	if err != nil {
		b.Fatal(err)
	}
	b.Run("write/generated", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		mg := gameplayGen(m)
		for b.Loop() {
			buf, _ = cg.Append(buf[:0], &mg)
		}
	})
	for _, r := range []struct {
		name string
		read func([]byte, *gameplayMsg) error
	}{
		{"read/hand", handReadGameplay},
		{"read/straight", straightReadGameplay},
		{"read/codec", c.Unmarshal},
		{"read/generated", func(p []byte, v *gameplayMsg) error { return cg.Unmarshal(p, (*gameplayGen)(v)) }},
	} {
		var back gameplayMsg
		if err := r.read(packet, &back); err != nil { // sizes back's buffers once
			b.Fatal(err)
		}
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if err := r.read(packet, &back); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

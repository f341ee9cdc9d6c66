package bitpack_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------------------
// Golden bytes: one table row per row of the Types table
// (docs/wire.md#types). Every
// expectation is built bit by bit with the bitsOf oracle (helpers_test.go),
// never by calling bitpack. These bytes must never change.

type Vec3 struct{ X, Y, Z float32 }

type Quat struct{ X, Y, Z, W float32 }

type Base struct{ ID uint16 }

type hidden struct{ Secret uint8 }

// counter is a custom type: 3 bits of its own.
type counter struct{ n uint8 }

func (c *counter) MarshalBits(w *bitio.Writer) error {
	w.WriteBits(uint64(c.n), 3)
	return nil
}

func (c *counter) UnmarshalBits(r *bitio.Reader) error {
	c.n = uint8(r.ReadBits(3))
	if c.n == 7 {
		return errors.New("7 is reserved")
	}
	return nil
}

type (
	tBools struct{ A, B, C bool }
	tRaw   struct {
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
	}
	tRange struct {
		Health int32  `bits:"range=0..1000"`
		Temp   int8   `bits:"range=-40..80"`
		Fixed  uint16 `bits:"range=7..7"`
		Big    uint64 `bits:"range=0x10..0x1f"`
	}
	tBitsN struct {
		S int8   `bits:"bits=4"`
		U uint16 `bits:"bits=5"`
		I int64  `bits:"bits=40"`
	}
	tFloats struct {
		F32 float32
		F64 float64
	}
	tCompressed struct {
		A float32 `bits:"float,min=0,max=10,res=0.01"`
		B float32 `bits:"float,min=0,max=10,res=0.01,clamp"`
		C float64 `bits:"float,min=-1,max=1,res=0.001"`
	}
	tString struct {
		Flag bool
		Name string `bits:"maxlen=15"`
	}
	tBytes struct {
		Flag bool
		Data []byte `bits:"maxlen=7"`
	}
	tBytesRanged struct {
		Data []byte `bits:"maxlen=3,range=0..3"`
	}
	tByteArray struct {
		Flag bool
		Key  [3]byte
	}
	tByteArrayBits struct {
		Nib [3]byte `bits:"bits=4"`
	}
	tArray struct {
		Dirs [3]int8 `bits:"range=-1..1"`
	}
	tLongArray struct {
		Vals [40]uint8 `bits:"range=0..1"`
	}
	tSlice struct {
		IDs []uint16 `bits:"maxlen=4,bits=10"`
	}
	tPointer struct {
		A *int32 `bits:"range=0..3"`
		B *int32 `bits:"range=0..3"`
	}
	tInherit struct {
		Pos Vec3 `bits:"float,min=-8,max=8,res=0.5"`
		Vel Vec3
	}
	tEmbedded struct {
		Base
		hidden
		Tail bool
	}
	tQuat struct {
		Q Quat       `bits:"quat,bits=9"`
		A [4]float64 `bits:"quat,bits=4"`
	}
	tHook struct {
		C    counter
		Tail bool
	}
	tQuatArray struct {
		Qs [2]Quat `bits:"quat,bits=4"`
	}
	// As encoding/json promotes fields: X at depth 0 hides shadowInner.X,
	// and the two Z at depth 1 hide each other, so neither is sent; Y and
	// W are promoted.
	tEmbedShadow struct {
		X int8 `bits:"range=0..3"`
		shadowInner
		shadowOther
	}
	tEmbedSkipped struct {
		A         uint8
		smallInts `bits:"-"`
	}
	tSkip struct {
		A       uint8
		B       uint8 `bits:"-"`
		private int
		C       uint8
	}
)

func i32(v int32) *int32 { return &v }

func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want []byte
	}{
		{"bool", &tBools{true, false, true}, bitsOf(f{1, 1}, f{0, 1}, f{1, 1})},
		{"raw integers (int and uint are 64 bits)", &tRaw{-2, -3, -4, -5, -6, 0xab, 0xabcd, 0xdeadbeef, 0x0123456789abcdef, 7},
			bitsOf(f{0xfe, 8}, f{0xfffd, 16}, f{0xfffffffc, 32}, f{0xfffffffffffffffb, 64}, f{0xfffffffffffffffa, 64},
				f{0xab, 8}, f{0xabcd, 16}, f{0xdeadbeef, 32}, f{0x0123456789abcdef, 64}, f{7, 64})},
		{"range", &tRange{731, -40, 7, 0x1e}, bitsOf(f{731, 10}, f{0, 7}, f{0xe, 4})},
		{"bits=N", &tBitsN{-3, 17, -(1 << 39)}, bitsOf(f{0xd, 4}, f{17, 5}, f{1 << 39, 40})},
		{"raw floats keep every bit", &tFloats{float32(math.Copysign(0, -1)), math.Float64frombits(0x7ff0000000000001)},
			bitsOf(f{0x80000000, 32}, f{0x7ff0000000000001, 64})},
		// 2.5 -> 250/1000 (10 bits); 11 clamps to 1000; -0.25 over [-1,1]
		// at 0.001 -> 750 of 2000 (11 bits).
		{"compressed float", &tCompressed{2.5, 11, -0.25}, bitsOf(f{250, 10}, f{1000, 10}, f{750, 11})},
		{"string", &tString{true, "hi"}, bitsOf(f{1, 1}, f{2, 4}, raw('h', 'i'))},
		{"empty string still aligns", &tString{true, ""}, bitsOf(f{1, 1}, f{0, 4}, align)},
		{"[]byte", &tBytes{true, []byte{1, 2, 3}}, bitsOf(f{1, 1}, f{3, 3}, raw(1, 2, 3))},
		{"[]byte with element range", &tBytesRanged{[]byte{3, 0, 2}}, bitsOf(f{3, 2}, f{3, 2}, f{0, 2}, f{2, 2})},
		{"[N]byte is an aligned block", &tByteArray{true, [3]byte{0xa, 0xb, 0xc}}, bitsOf(f{1, 1}, raw(0xa, 0xb, 0xc))},
		{"[N]byte with bits", &tByteArrayBits{[3]byte{1, 15, 7}}, bitsOf(f{1, 4}, f{15, 4}, f{7, 4})},
		{"[N]T", &tArray{[3]int8{-1, 0, 1}}, bitsOf(f{0, 2}, f{1, 2}, f{2, 2})},
		{"[N]T over the unroll limit", &tLongArray{Vals: [40]uint8{0: 1, 39: 1}}, bitsOf(f{1, 1}, f{0, 38}, f{1, 1})},
		{"[]T", &tSlice{[]uint16{1, 1023}}, bitsOf(f{2, 3}, f{1, 10}, f{1023, 10})},
		{"empty []T", &tSlice{nil}, bitsOf(f{0, 3})},
		{"*T", &tPointer{nil, i32(2)}, bitsOf(f{0, 1}, f{1, 1}, f{2, 2})},
		// Pos inherits the float tag: 32 steps of 0.5 over [-8,8] = 6 bits each.
		{"struct options reach the leaves", &tInherit{Vec3{-8, 0, 8}, Vec3{1, 2, 3}},
			bitsOf(f{0, 6}, f{16, 6}, f{32, 6}, f{uint64(math.Float32bits(1)), 32}, f{uint64(math.Float32bits(2)), 32}, f{uint64(math.Float32bits(3)), 32})},
		{"embedded structs inline, exported or not", &tEmbedded{Base{0x1234}, hidden{0x56}, true}, bitsOf(f{0x1234, 16}, f{0x56, 8}, f{1, 1})},
		// (0,0,0,1): largest is index 3; zero is the middle code M/2: 255 of
		// M = 2^9-2 = 510. [4]float64 (1,0,0,0) at 4 bits: largest 0, zero
		// -> code 7 of 14.
		{"quat", &tQuat{Quat{0, 0, 0, 1}, [4]float64{1, 0, 0, 0}}, bitsOf(f{3, 2}, f{255, 9}, f{255, 9}, f{255, 9}, f{0, 2}, f{7, 4}, f{7, 4}, f{7, 4})},
		{"custom hooks", &tHook{counter{5}, true}, bitsOf(f{5, 3}, f{1, 1})},
		// quat on an array of quaternions reaches each element.
		{"[N]quat", &tQuatArray{[2]Quat{{0, 0, 0, 1}, {0, 1, 0, 0}}}, bitsOf(f{3, 2}, f{7, 4}, f{7, 4}, f{7, 4}, f{1, 2}, f{7, 4}, f{7, 4}, f{7, 4})},
		{"embedded fields promoted as encoding/json does", &tEmbedShadow{2, shadowInner{6, true, 7}, shadowOther{8, true}}, bitsOf(f{2, 2}, f{1, 1}, f{1, 1})},
		{"embedded struct skipped whole", &tEmbedSkipped{A: 9, smallInts: smallInts{1, 2}}, bitsOf(f{9, 8})},
		{"skipped and unexported fields", &tSkip{A: 1, B: 2, private: 3, C: 4}, bitsOf(f{1, 8}, f{4, 8})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := bitpack.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("Marshal = %x\n          want %x", got, tt.want)
			}
			// Decode into a fresh value and encode again: the same bytes.
			out := reflect.New(reflect.TypeOf(tt.in).Elem())
			if err := bitpack.Unmarshal(got, out.Interface()); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			again, err := bitpack.Marshal(out.Interface())
			if err != nil || !bytes.Equal(again, got) {
				t.Fatalf("re-encoded %x (%v), want %x", again, err, got)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// The reference packet (docs/wire.md#the-reference-packet), whose bytes
// come from the reference C++ serialize implementation.

type BenchPacket struct {
	Sequence    uint64
	Position    [3]float32 `bits:"float,min=-1024,max=1024,res=0.01"`
	Orientation [4]float32 `bits:"float,min=-1,max=1,res=0.0001"`
	Health      int32      `bits:"range=0..1000"`
	Weapon      uint32     `bits:"bits=4"`
	Ammo        [8]int32   `bits:"range=0..200"`
	Firing      bool
	EventIDs    []uint32 `bits:"maxlen=16"`
	Payload     [64]byte
}

func referencePacket() BenchPacket {
	p := BenchPacket{
		Sequence:    0x123456789ABCDEF0,
		Position:    [3]float32{102.4, -55.3, 12.75},
		Orientation: [4]float32{0.1, 0.2, 0.3, 0.9},
		Health:      731,
		Weapon:      11,
		Firing:      true,
	}
	for i := range p.Ammo {
		p.Ammo[i] = int32(i * 13 % 200)
	}
	for i := 0; i < 9; i++ {
		p.EventIDs = append(p.EventIDs, uint32(uint64(i)*2654435761))
	}
	for i := range p.Payload {
		p.Payload[i] = byte(i * 47)
	}
	return p
}

const referenceHex = "f0debc9a7856341200b899e9b54f19be0adc852cc3516ebb000d1a2734414e5b13000000406cde8da7d8bc1bcf449ba936b179375e1d58c585893653edf514e11462f36e3c002f5e8dbceb1a4978a7d605346392c1f01f4e7dacdb0a396897c6f5245382b1e00f3e6d9ccbfa295887b6e5144372a1d0ff2e5d8cbbea194877a6d504336291"

func TestReferencePacket(t *testing.T) {
	p := referencePacket()
	want := mustHex(t, referenceHex)
	if len(want) != 133 {
		t.Fatalf("golden packet has %d bytes", len(want))
	}
	got, err := bitpack.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Marshal:\n got %x\nwant %x", got, want)
	}
	c, err := bitpack.NewCodec[BenchPacket]()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Append([]byte{0xee}, &p); err != nil || !bytes.Equal(got[1:], want) || got[0] != 0xee {
		t.Fatalf("Codec.Append: %x, %v", got, err)
	}
	var q BenchPacket
	if err := c.Unmarshal(want, &q); err != nil {
		t.Fatal(err)
	}
	// Quantized fields come back as their quanta (values from the reference
	// reader: 102.4 -> 102.400024 etc.); everything else exactly.
	wantBack := p
	wantBack.Position = [3]float32{102.400024, -55.299988, 12.75}
	wantBack.Orientation = [4]float32{0.100000024, 0.20000005, 0.29999995, 0.9}
	if diff := cmp.Diff(wantBack, q); diff != "" {
		t.Fatalf("decoded packet (-want +got):\n%s", diff)
	}
	if l := c.Layout(); l.MinBits > 133*8 || l.MaxBits < 133*8 {
		t.Errorf("layout says %d..%d bits; the packet has %d", l.MinBits, l.MaxBits, 133*8)
	}
}

// ---------------------------------------------------------------------------
// Encode refusals: exact sentinel, path and message.

type Player struct {
	Health int32  `bits:"range=0..1000"`
	Pos    Vec3   `bits:"float,min=-10,max=10,res=0.01"`
	Name   string `bits:"maxlen=15"`
}

type Snapshot struct {
	Players []Player `bits:"maxlen=8"`
}

type tNaN struct {
	A float32 `bits:"float,min=0,max=10,res=0.01,clamp"`
}

type tBytesLimit struct {
	B []byte `bits:"maxlen=2"`
}

type tQuatOnly struct {
	Q [4]float32 `bits:"quat,bits=9"`
}

type failingHook struct{}

func (failingHook) MarshalBits(w *bitio.Writer) error    { return errors.New("no wire form today") }
func (*failingHook) UnmarshalBits(r *bitio.Reader) error { return nil }

type tFailingHook struct{ F failingHook }

type ring struct {
	V    uint8
	Next *ring
}

func TestEncodeErrors(t *testing.T) {
	cyc := &ring{V: 1}
	cyc.Next = cyc
	tests := []struct {
		name     string
		in       any
		sentinel error
		msg      string
	}{
		{"int above range", &tRange{Health: 1013}, bitpack.ErrRange,
			"bitpack: encode bitpack_test.tRange: field Health: value 1013 out of range [0, 1000]"},
		{"int below range", &tRange{Temp: -41}, bitpack.ErrRange, "field Temp: value -41 out of range [-40, 80]"},
		{"degenerate range", &tRange{Fixed: 8}, bitpack.ErrRange, "field Fixed: value 8 out of range [7, 7]"},
		{"signed bits=N", &tBitsN{S: 8}, bitpack.ErrRange, "field S: value 8 does not fit in 4 bits (range [-8, 7])"},
		{"unsigned bits=N", &tBitsN{U: 32}, bitpack.ErrRange, "field U: value 32 does not fit in 5 bits"},
		{"compressed float out of range", &tCompressed{A: 10.5}, bitpack.ErrRange,
			"field A: value 10.5 out of range [0, 10] (add clamp to the tag to clamp instead)"},
		{"compressed float NaN with clamp", &tNaN{A: float32(math.NaN())}, bitpack.ErrRange, "field A: value NaN cannot be quantized"},
		{"compressed float Inf with clamp", &tNaN{A: float32(math.Inf(-1))}, bitpack.ErrRange, "field A: value -Inf cannot be quantized"},
		{"string too long", &Player{Name: strings.Repeat("x", 40)}, bitpack.ErrRange,
			"bitpack: encode bitpack_test.Player: field Name: string of 40 bytes exceeds maxlen 15"},
		{"string invalid UTF-8", &Player{Name: "a\xffb"}, bitpack.ErrInvalidString, "field Name: invalid UTF-8 at offset 1"},
		{"string NUL", &Player{Name: "a\x00"}, bitpack.ErrInvalidString, "field Name: NUL byte at offset 1"},
		{"[]byte too long", &tBytesLimit{B: []byte{1, 2, 3}}, bitpack.ErrRange, "field B: 3 bytes exceed maxlen 2"},
		{"slice too long", &tSlice{IDs: make([]uint16, 5)}, bitpack.ErrRange, "field IDs: slice of 5 elements exceeds maxlen 4"},
		{"raw slice too long", &BenchPacket{EventIDs: make([]uint32, 17)}, bitpack.ErrRange, "field EventIDs: slice of 17 elements exceeds maxlen 16"},
		{"slice element", &tSlice{IDs: []uint16{1, 1024}}, bitpack.ErrRange, "field IDs[1]: value 1024 does not fit in 10 bits"},
		{"nested path", &Snapshot{Players: []Player{{}, {}, {}, {Pos: Vec3{X: 11}}}}, bitpack.ErrRange,
			"bitpack: encode bitpack_test.Snapshot: field Players[3].Pos.X: value 11 out of range [-10, 10]"},
		{"pointer target", &tPointer{B: i32(4)}, bitpack.ErrRange, "field B: value 4 out of range [0, 3]"},
		{"quat NaN", &tQuatOnly{Q: [4]float32{0, float32(math.NaN()), 0, 1}}, bitpack.ErrRange, "field Q: quaternion [0 NaN 0 1] has a component that is not finite"},
		{"hook error", &tFailingHook{}, bitpack.ErrRange, "field F: hook refused the value: no wire form today"},
		{"cycle", cyc, bitpack.ErrDepth, "more than 64 nested levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte{0xaa}
			out, err := bitpack.Append(dst, tt.in)
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("err = %v, want %v", err, tt.sentinel)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %q\nwant it to contain %q", err, tt.msg)
			}
			var be *bitpack.Error
			if !errors.As(err, &be) || be.Op != "encode" || be.Bit != -1 {
				t.Errorf("not an encode *bitpack.Error: %#v", err)
			}
			if !bytes.Equal(out, []byte{0xaa}) {
				t.Errorf("Append returned %x on error; want dst unchanged", out)
			}
			if b, err2 := bitpack.Marshal(tt.in); b != nil || err2 == nil {
				t.Errorf("Marshal = %x, %v", b, err2)
			}
		})
	}
}

func TestHookErrorUnwraps(t *testing.T) {
	_, err := bitpack.Marshal(&tFailingHook{})
	var be *bitpack.Error
	if !errors.As(err, &be) || be.Cause == nil || be.Cause.Error() != "no wire form today" {
		t.Fatalf("hook error not kept: %#v", err)
	}
}

// TestEncodeIntoWriter composes two values in one packet and checks that a
// failed Encode leaves nothing behind and fails the writer.
func TestEncodeIntoWriter(t *testing.T) {
	w := bitio.NewWriter(nil)
	if err := bitpack.Encode(w, &tBools{true, true, false}); err != nil {
		t.Fatal(err)
	}
	if err := bitpack.Encode(w, &tRange{Health: 5, Temp: 0, Fixed: 7, Big: 0x10}); err != nil {
		t.Fatal(err)
	}
	want := bitsOf(f{1, 1}, f{1, 1}, f{0, 1}, f{5, 10}, f{40, 7}, f{0, 4})
	if !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("composed %x, want %x", w.Bytes(), want)
	}
	r := bitio.NewReader(w.Bytes())
	var a tBools
	var b tRange
	if err := bitpack.Decode(r, &a); err != nil {
		t.Fatal(err)
	}
	if err := bitpack.Decode(r, &b); err != nil {
		t.Fatal(err)
	}
	if a != (tBools{true, true, false}) || b != (tRange{5, 0, 7, 0x10}) {
		t.Fatalf("decoded %+v %+v", a, b)
	}

	before := w.BitsWritten()
	err := bitpack.Encode(w, &Snapshot{Players: []Player{{Health: 1}, {Health: 2000}}})
	if !errors.Is(err, bitpack.ErrRange) {
		t.Fatalf("err = %v", err)
	}
	if w.BitsWritten() != before || !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("failed Encode left %d bits (%x); want %d (%x)", w.BitsWritten(), w.Bytes(), before, want)
	}
	if !errors.Is(w.Err(), bitpack.ErrRange) {
		t.Fatalf("writer not failed: %v", w.Err())
	}
}

// ---------------------------------------------------------------------------
// Decoding hostile bytes: a gob-style bad-data table, hex in, error out.

type tNode struct {
	Next *tNode
}

func TestBadData(t *testing.T) {
	tests := []struct {
		name     string
		hex      string
		into     any
		sentinel error
		msg      string
	}{
		{"range", "f503", new(tRange), bitpack.ErrRange,
			"bitpack: decode bitpack_test.tRange: field Health at bit 0: value 1013 out of range [0, 1000]"},
		{"range second field", hex.EncodeToString(bitsOf(f{5, 10}, f{121, 7})), new(tRange), bitpack.ErrRange,
			"field Temp at bit 10: value 81 out of range [-40, 80]"},
		{"empty packet", "", new(tRange), bitpack.ErrOverflow, "field Health at bit 0: needs 10 bits, 0 remain"},
		{"truncated", "0500", new(tRange), bitpack.ErrOverflow, "field Temp at bit 10: needs 7 bits, 6 remain"},
		{"trailing byte", hex.EncodeToString(bitsOf(f{5, 10}, f{40, 7}, f{0, 4})) + "00", new(tRange), bitpack.ErrTrailing,
			"bitpack: decode bitpack_test.tRange: at bit 21: 1 trailing byte after the value"},
		{"string padding", hex.EncodeToString(bitsOf(f{1, 1}, f{2, 4}, f{1, 3}, raw('h', 'i'))), new(tString), bitpack.ErrPadding,
			"field Name at bit 5: padding bits 0b1 are not zero"},
		{"string length", hex.EncodeToString(bitsOf(f{0, 1}, f{15, 4}, align)), new(tString), bitpack.ErrOverflow,
			"field Name at bit 8: needs 15 bytes, 0 remain"},
		{"string UTF-8", hex.EncodeToString(bitsOf(f{0, 1}, f{2, 4}, raw(0xc3, 0x28))), new(tString), bitpack.ErrInvalidString,
			"field Name at bit 1: invalid UTF-8 at offset 0"},
		{"string NUL", hex.EncodeToString(bitsOf(f{0, 1}, f{2, 4}, raw('a', 0))), new(tString), bitpack.ErrInvalidString,
			"field Name at bit 1: NUL byte at offset 1"},
		{"[]byte length", hex.EncodeToString(bitsOf(f{0, 1}, f{7, 3}, raw(1))), new(tBytes), bitpack.ErrOverflow,
			"field Data at bit 1: needs 7 bytes, 1 remain"},
		{"slice length above maxlen", hex.EncodeToString(bitsOf(f{5, 3})), new(tSlice), bitpack.ErrRange,
			"field IDs at bit 0: length 5 exceeds maxlen 4"},
		{"slice elements past the end", hex.EncodeToString(bitsOf(f{2, 3}, f{1, 10})), new(tSlice), bitpack.ErrOverflow,
			"field IDs at bit 3: 2 elements need at least 20 bits, 13 remain"},
		{"compressed float code above M", hex.EncodeToString(bitsOf(f{1001, 10}, f{0, 10}, f{0, 11})), new(tCompressed), bitpack.ErrRange,
			"field A at bit 0: compressed float code 1001 out of range [0, 1000]"},
		{"nested path", hex.EncodeToString(bitsOf(f{2, 4}, f{0, 10}, f{0, 11}, f{0, 11}, f{0, 11}, f{0, 4}, align, f{1001, 10}, f{0, 64})), new(Snapshot), bitpack.ErrRange,
			"bitpack: decode bitpack_test.Snapshot: field Players[1].Health at bit 56: value 1001 out of range [0, 1000]"},
		{"hook refuses", hex.EncodeToString(bitsOf(f{7, 3}, f{0, 1})), new(tHook), bitpack.ErrRange,
			"field C at bit 0: hook refused the value: 7 is reserved"},
		{"depth", strings.Repeat("ff", 100), new(tNode), bitpack.ErrDepth, "more than 64 nested levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := bitpack.Unmarshal(mustHex(t, tt.hex), tt.into)
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("err = %v, want %v", err, tt.sentinel)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %q\nwant it to contain %q", err, tt.msg)
			}
			var be *bitpack.Error
			if !errors.As(err, &be) || be.Op != "decode" {
				t.Errorf("not a decode *bitpack.Error: %#v", err)
			}
			if !reflect.ValueOf(tt.into).Elem().IsZero() {
				t.Errorf("failed Unmarshal changed the value: %+v", tt.into)
			}
		})
	}
}

type tPlatformInt struct {
	I int
	U uint `bits:"range=0..0x1ffffffff"`
}

// TestPlatformInts: int and uint are 64 bits on the wire everywhere; on a
// 32-bit platform a value that does not fit is ErrRange (run the suite with
// GOARCH=arm, under qemu-user as CI does, to see that side).
func TestPlatformInts(t *testing.T) {
	big := bitsOf(f{1 << 40, 64}, f{1 << 32, 33})
	small := bitsOf(f{0xffffffffffffff85, 64}, f{7, 33}) // I = -123
	var v tPlatformInt
	if err := bitpack.Unmarshal(small, &v); err != nil || v.I != -123 || v.U != 7 {
		t.Fatalf("small values: %+v, %v", v, err)
	}
	err := bitpack.Unmarshal(big, &v)
	if strconv.IntSize == 64 {
		if err != nil || uint64(v.I) != 1<<40 || uint64(v.U) != 1<<32 {
			t.Fatalf("64-bit platform: %+v, %v", v, err)
		}
		return
	}
	if !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), "field I at bit 0: value 1099511627776 does not fit a 32-bit int (range [-2147483648, 2147483647])") {
		t.Fatalf("32-bit platform: %v", err)
	}
	if v.I != -123 {
		t.Fatal("failed decode changed the value")
	}
	if err := bitpack.Unmarshal(bitsOf(f{5, 64}, f{1 << 32, 33}), &v); !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), "field U at bit 64: value 4294967296 does not fit a 32-bit uint (range [0, 4294967295])") {
		t.Fatalf("32-bit platform, uint: %v", err)
	}
}

// TestDepthLimit: 64 nested struct levels work both ways, 65 fail both ways.
func TestDepthLimit(t *testing.T) {
	chain := func(n int) *tNode {
		var head *tNode
		for i := 0; i < n; i++ {
			head = &tNode{Next: head}
		}
		return head
	}
	b, err := bitpack.Marshal(chain(64))
	if err != nil {
		t.Fatalf("64 levels: %v", err)
	}
	// 63 presence bits of 1, then a 0: the 64th node has no successor.
	if want := bitsOf(f{1<<63 - 1, 63}, f{0, 1}); !bytes.Equal(b, want) {
		t.Fatalf("64 levels encoded %x, want %x", b, want)
	}
	var back tNode
	if err := bitpack.Unmarshal(b, &back); err != nil {
		t.Fatalf("64 levels decode: %v", err)
	}
	n := 0
	for p := &back; p != nil; p = p.Next {
		n++
	}
	if n != 64 {
		t.Fatalf("decoded %d levels", n)
	}
	if _, err := bitpack.Marshal(chain(65)); !errors.Is(err, bitpack.ErrDepth) {
		t.Fatalf("65 levels encode: %v", err)
	}
	// 64 ones and a zero: the 65th level is refused before it is read.
	var deep tNode
	err = bitpack.Unmarshal(bitsOf(f{math.MaxUint64, 64}, f{0, 1}), &deep)
	var be *bitpack.Error
	if !errors.Is(err, bitpack.ErrDepth) || !errors.As(err, &be) || be.Bit != 64 {
		t.Fatalf("65 levels decode: %v", err)
	}
	if deep.Next != nil {
		t.Fatal("failed decode changed the value")
	}
}

// ---------------------------------------------------------------------------
// Tag errors.

type (
	bUnknown struct {
		A int32 `bits:"rnage=0..1"`
	}
	bBadNumber struct {
		A int32 `bits:"range=0..1x"`
	}
	bReversed struct {
		A int32 `bits:"range=10..1"`
	}
	bTooWide struct {
		A uint8 `bits:"range=0..300"`
	}
	bBitsWide struct {
		A int16 `bits:"bits=17"`
	}
	bBitsZero struct {
		A int16 `bits:"bits=0"`
	}
	bRes0 struct {
		A float32 `bits:"float,min=0,max=1,res=0"`
	}
	bNonFinite struct {
		A float64 `bits:"float,min=-1e400,max=1,res=0.1"`
	}
	bMinMax struct {
		A float32 `bits:"float,min=10,max=-10,res=0.01"`
	}
	bNoFloat struct {
		A float32 `bits:"min=0,max=1,res=0.1"`
	}
	bNoMaxlen   struct{ S string }
	bSliceNoMax struct{ S []int }
	bFloatOnInt struct {
		A int32 `bits:"float,min=0,max=1,res=0.1"`
	}
	bRangeFloat struct {
		A float32 `bits:"range=0..1"`
	}
	bBoolOpt struct {
		A bool `bits:"range=0..1"`
	}
	bInheritNo struct {
		V Vec3 `bits:"range=0..10"`
	}
	bInheritFit struct {
		S struct{ Kills uint8 } `bits:"range=0..300"`
	}
	bNonCanon struct {
		A float32 `bits:"float,min=0,max=100000,res=0.01"`
	}
	bUnexported struct {
		a int32 `bits:"range=0..1"` //lint:ignore U1000 the tag on an unexported field is what is tested
	}
	bMap       struct{ M map[string]int }
	bIface     struct{ I any }
	bChan      struct{ C chan int }
	bFunc      struct{ F func() }
	bComplex   struct{ C complex64 }
	bTime      struct{ T struct{ wall, ext uint64 } }
	bHalfHook  struct{ H halfHook }
	bQuatShape struct {
		Q [3]float32 `bits:"quat,bits=9"`
	}
	bQuatBits struct {
		Q Quat `bits:"quat,bits=40"`
	}
	bQuatBits3 struct {
		Q Quat `bits:"quat,bits=3"`
	}
	bSpaces struct {
		A int32 `bits:"range=0..1, bits=3"`
	}
	bTwice struct {
		A int32 `bits:"bits=3,bits=4"`
	}
	bRangeBits struct {
		A int32 `bits:"range=0..1,bits=3"`
	}
	bMaxlenNum struct {
		S string `bits:"maxlen=-1"`
	}
	bHookOpts struct {
		C counter `bits:"range=0..1"`
	}
	bSparseArrayMaxlen struct {
		P [4]*Vec3 `bits:"sparse,maxlen=4"`
	}
	bQuatTaggedParts struct {
		Q taggedQuat `bits:"quat,bits=9"`
	}
	bQuatNoBits struct {
		Q Quat `bits:"quat"`
	}
	bFloatMissing struct {
		A float32 `bits:"float,min=0,max=1"`
	}
	bEmbedUnexportedOpts struct {
		smallInts `bits:"range=0..3"`
	}
	bHiddenTagged struct {
		X int8
		taggedX
	}
)

// taggedX's X says how it is to be sent, but a struct embedding it next
// to another X never sends it.
type taggedX struct {
	X int8 `bits:"range=0..7"`
}

// taggedQuat has four floats, but each says how it is sent itself, so it
// is not a quaternion.
type taggedQuat struct {
	X, Y, Z float32 `bits:"float,min=-1,max=1,res=0.01"`
	W       float32
}

type smallInts struct{ A, B int8 }

type shadowInner struct {
	X int8
	Y bool
	Z uint8
}

type shadowOther struct {
	Z uint16
	W bool
}

type halfHook struct{}

func (halfHook) MarshalBits(w *bitio.Writer) error { return nil }

func TestTagErrors(t *testing.T) {
	tests := []struct {
		in      any
		field   string
		tag     string
		problem string
	}{
		{bUnknown{}, "A", "rnage=0..1", `unknown option "rnage"`},
		{bBadNumber{}, "A", "range=0..1x", `range bound "1x" is not an integer`},
		{bReversed{}, "A", "range=10..1", "range 10..1: A > B"},
		{bTooWide{}, "A", "range=0..300", "range 0..300 does not fit uint8"},
		{bBitsWide{}, "A", "bits=17", "bits=17 does not fit int16 (1..16)"},
		{bBitsZero{}, "A", "bits=0", "bits=0 does not fit int16"},
		{bRes0{}, "A", "float,min=0,max=1,res=0", "res must be finite and > 0"},
		{bNonFinite{}, "A", "float,min=-1e400,max=1,res=0.1", "min=-1e400 is not a finite number"},
		{bMinMax{}, "A", "float,min=10,max=-10,res=0.01", "min must be < max"},
		{bNoFloat{}, "A", "min=0,max=1,res=0.1", `add "float"`},
		{bNoMaxlen{}, "S", "", "string needs a maxlen tag"},
		{bSliceNoMax{}, "S", "", "[]int needs a maxlen tag"},
		{bFloatOnInt{}, "A", "float,min=0,max=1,res=0.1", "float does not apply to int32"},
		{bRangeFloat{}, "A", "range=0..1", "range does not apply to float32"},
		{bBoolOpt{}, "A", "range=0..1", "range does not apply to bool"},
		{bInheritNo{}, "V", "range=0..10", "applies to no field of bitpack_test.Vec3: range/bits reach no integer field"},
		{bInheritFit{}, "S", "range=0..300", "at S.Kills: range 0..300 does not fit uint8"},
		{bNonCanon{}, "A", "float,min=0,max=100000,res=0.01", "float32 cannot hold res=0.01 canonically over [0, 100000] (quant: code 3276829 decodes to 32768.29296875, which quantizes back to 3276830); use a coarser res or a float64 field"},
		{bUnexported{}, "a", "range=0..1", "unexported fields are never encoded"},
		{bMap{}, "M", "", `map[string]int needs a maxlen tag of its own, e.g. bits:"maxlen=16"`},
		{bIface{}, "I", "", "interface {} is not supported (interfaces not registered with RegisterUnion have no wire form)"},
		{bChan{}, "C", "", "chan int is not supported"},
		{bFunc{}, "F", "", "func() is not supported"},
		{bComplex{}, "C", "", "complex64 is not supported"},
		{bTime{}, "T", "", "has no exported fields and no MarshalBits/UnmarshalBits methods"},
		{bHalfHook{}, "H", "", "implements MarshalBits but not UnmarshalBits; implement both"},
		{bQuatShape{}, "Q", "quat,bits=9", "quat applies to [4]float32, [4]float64, a struct of four untagged exported float fields of one type (named W, X, Y, Z, or in the order xyzw or wxyz says), or a struct of a float w and a vector of three (mathgl's Quat{W; V}), not [3]float32"},
		{bQuatBits{}, "Q", "quat,bits=40", "quat bits=40: each component needs 4..22 bits"},
		{bQuatBits3{}, "Q", "quat,bits=3", "quat bits=3: each component needs 4..22 bits (fewer allow errors past 45°; with more, float32 cannot hold every code's own value, so decoded quaternions would not re-encode to the same bytes)"},
		{bSpaces{}, "A", "range=0..1, bits=3", "contains spaces"},
		{bTwice{}, "A", "bits=3,bits=4", `option "bits" given twice`},
		{bRangeBits{}, "A", "range=0..1,bits=3", "range and bits are alternatives"},
		{bMaxlenNum{}, "S", "maxlen=-1", "maxlen=-1 is not a count"},
		{bHookOpts{}, "C", "range=0..1", "options do not apply to bitpack_test.counter, which encodes itself"},
		{bSparseArrayMaxlen{}, "P", "sparse,maxlen=4", "maxlen does not apply to [4]*bitpack_test.Vec3 (arrays have a fixed length)"},
		{bQuatTaggedParts{}, "Q", "quat,bits=9", "quat applies to [4]float32, [4]float64, a struct of four untagged exported float fields of one type (named W, X, Y, Z, or in the order xyzw or wxyz says), or a struct of a float w and a vector of three (mathgl's Quat{W; V}), not bitpack_test.taggedQuat"},
		{bQuatNoBits{}, "Q", "quat", "quat needs bits= (bits per component, 4..22)"},
		{bFloatMissing{}, "A", "float,min=0,max=1", "float needs min=, max= and res="},
		{bEmbedUnexportedOpts{}, "smallInts", "range=0..3", `an unexported embedded struct takes no options (its exported fields are inlined; bits:"-" skips them all)`},
		{bHiddenTagged{}, "X", "range=0..7", "embedded in bitpack_test.bHiddenTagged, the field is hidden by another field named X (Go's and encoding/json's promotion rules), so it is never encoded; remove the tag or rename one of them"},
	}
	for _, tt := range tests {
		typ := reflect.TypeOf(tt.in)
		t.Run(typ.Name(), func(t *testing.T) {
			_, err := bitpack.Describe(tt.in)
			var te *bitpack.TagError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want a *TagError", err)
			}
			if te.Field != tt.field || te.Tag != tt.tag || !strings.Contains(te.Problem, tt.problem) {
				t.Errorf("got field %q tag %q problem %q\nwant field %q tag %q problem containing %q", te.Field, te.Tag, te.Problem, tt.field, tt.tag, tt.problem)
			}
			if !strings.HasPrefix(err.Error(), "bitpack: type ") {
				t.Errorf("message %q lacks the bitpack: type prefix", err)
			}
			// The same error from every entry point, and no panic.
			if _, err2 := bitpack.Marshal(tt.in); !errors.As(err2, &te) {
				t.Errorf("Marshal: %v", err2)
			}
			if err2 := bitpack.Unmarshal(nil, reflect.New(typ).Interface()); !errors.As(err2, &te) {
				t.Errorf("Unmarshal: %v", err2)
			}
		})
	}
	// The message in full (the README quotes the same words for its own type).
	_, err := bitpack.Describe(bMinMax{})
	if want := `bitpack: type bitpack_test.bMinMax field A: tag "float,min=10,max=-10,res=0.01": min must be < max`; err == nil || err.Error() != want {
		t.Errorf("message:\n got %v\nwant %s", err, want)
	}
}

// ---------------------------------------------------------------------------
// Programmer errors are errors, not panics.

func TestUsageErrors(t *testing.T) {
	var nilPlayer *Player
	if _, err := bitpack.Marshal(nil); err == nil {
		t.Error("Marshal(nil) succeeded")
	}
	if _, err := bitpack.Marshal(nilPlayer); err == nil {
		t.Error("Marshal(nil pointer) succeeded")
	}
	if err := bitpack.Unmarshal(nil, Player{}); err == nil || !strings.Contains(err.Error(), "non-nil pointer") {
		t.Errorf("Unmarshal(non-pointer) = %v", err)
	}
	if err := bitpack.Unmarshal(nil, nilPlayer); err == nil {
		t.Error("Unmarshal(nil pointer) succeeded")
	}
	if err := bitpack.Encode(nil, &Player{}); err == nil {
		t.Error("Encode(nil writer) succeeded")
	}
	if err := bitpack.Decode(nil, &Player{}); err == nil {
		t.Error("Decode(nil reader) succeeded")
	}
	var c *bitpack.Codec[Player]
	if _, err := c.Marshal(&Player{}); err == nil || err.Error() != "bitpack: method called on a nil *Codec (use NewCodec)" {
		t.Errorf("nil Codec: %v", err)
	}
	c2, _ := bitpack.NewCodec[Player]()
	if _, err := c2.Append(nil, nil); err == nil || err.Error() != "bitpack: nil *bitpack_test.Player passed to Codec" {
		t.Errorf("Codec.Append(nil) = %v", err)
	}
	if _, err := bitpack.NewCodec[bMap](); err == nil {
		t.Error("NewCodec of an unsupported type succeeded")
	}
	// A value (not a pointer) marshals too.
	if b, err := bitpack.Marshal(tBools{true, false, true}); err != nil || !bytes.Equal(b, []byte{5}) {
		t.Errorf("Marshal(value) = %x, %v", b, err)
	}
}

// ---------------------------------------------------------------------------
// Decoding into an existing value: fields off the wire keep their values,
// slices reuse their memory.

type tReuse struct {
	Keep  uint8    `bits:"-"`
	IDs   []uint16 `bits:"maxlen=8"`
	Ptr   *Vec3
	Name  string   `bits:"maxlen=8"`
	Empty []uint16 `bits:"maxlen=8"`
}

func TestDecodeIntoExisting(t *testing.T) {
	src := tReuse{IDs: []uint16{1, 2}, Ptr: &Vec3{1, 2, 3}, Name: "bob", Empty: nil}
	b, err := bitpack.Marshal(&src)
	if err != nil {
		t.Fatal(err)
	}
	backing := make([]uint16, 5, 8)
	ptr := &Vec3{9, 9, 9}
	dst := tReuse{Keep: 42, IDs: backing, Ptr: ptr, Name: "bob", Empty: []uint16{7}}
	if err := bitpack.Unmarshal(b, &dst); err != nil {
		t.Fatal(err)
	}
	if dst.Keep != 42 {
		t.Error("a field not on the wire was overwritten")
	}
	if &dst.IDs[0] != &backing[0] || len(dst.IDs) != 2 || dst.IDs[1] != 2 {
		t.Error("slice capacity was not reused")
	}
	if dst.Ptr != ptr || *ptr != (Vec3{1, 2, 3}) {
		t.Error("pointer target was not reused")
	}
	if dst.Empty == nil || len(dst.Empty) != 0 {
		t.Errorf("empty slice decoded as %#v; want length 0 keeping the backing array", dst.Empty)
	}
	// A nil pointer on the wire clears the field.
	b2, _ := bitpack.Marshal(&tReuse{})
	if err := bitpack.Unmarshal(b2, &dst); err != nil || dst.Ptr != nil || dst.IDs == nil || len(dst.IDs) != 0 {
		t.Errorf("decode of zero value: %v %+v", err, dst)
	}
}

// TestAtomicUnmarshal: after every possible truncation of a packet, and
// every single-bit corruption that is refused, the value is untouched.
func TestAtomicUnmarshal(t *testing.T) {
	good := referencePacket()
	packet, _ := bitpack.Marshal(&good)
	prefill := func() BenchPacket {
		p := BenchPacket{Sequence: 1, Health: 2, EventIDs: make([]uint32, 3, 16)}
		p.EventIDs[0], p.Payload[0] = 99, 7
		return p
	}
	check := func(data []byte, what string) {
		v := prefill()
		if err := bitpack.Unmarshal(data, &v); err == nil {
			return
		}
		if diff := cmp.Diff(prefill(), v); diff != "" {
			t.Fatalf("%s: failed Unmarshal changed the value:\n%s", what, diff)
		}
	}
	for n := 0; n < len(packet); n++ {
		v := prefill()
		if err := bitpack.Unmarshal(packet[:n], &v); err == nil {
			t.Fatalf("truncated to %d bytes: accepted", n)
		}
		check(packet[:n], "truncation")
	}
	refused := 0
	for bit := 0; bit < 8*len(packet); bit++ {
		bad := bytes.Clone(packet)
		bad[bit/8] ^= 1 << (bit % 8)
		var v BenchPacket
		if bitpack.Unmarshal(bad, &v) != nil {
			refused++
		}
		check(bad, "bit flip")
	}
	if refused == 0 {
		t.Fatal("no single-bit corruption was refused")
	}

	// The same with nested slices of structs and strings.
	snap := Snapshot{Players: []Player{{Health: 5, Name: "ann"}, {Health: 6, Name: "bo"}, {Health: 7, Pos: Vec3{1, 2, 3}}}}
	packet, _ = bitpack.Marshal(&snap)
	for n := 0; n < len(packet); n++ {
		v := Snapshot{Players: []Player{{Health: 1, Name: "keep"}}}
		if err := bitpack.Unmarshal(packet[:n], &v); err == nil {
			t.Fatalf("snapshot truncated to %d bytes: accepted", n)
		}
		if len(v.Players) != 1 || v.Players[0] != (Player{Health: 1, Name: "keep"}) {
			t.Fatalf("snapshot truncated to %d: value changed to %+v", n, v)
		}
	}
}

// ---------------------------------------------------------------------------
// Guarantees: bounded allocation, concurrent first use, zero-allocation hot
// paths.

type big72 struct{ A [9]uint64 }

type tHuge struct {
	Items []big72 `bits:"maxlen=999999"`
}

// TestAllocationBound: a 10-byte packet claiming 999,999 elements of a
// 72-byte struct fails without allocating for them.
func TestAllocationBound(t *testing.T) {
	packet := bitsOf(f{999999, 20}, f{0xdeadbeefcafe, 60})
	if len(packet) != 10 {
		t.Fatalf("packet is %d bytes", len(packet))
	}
	var v tHuge
	if err := bitpack.Unmarshal(packet, &v); err != nil { // compile the plan outside the measurement
		_ = err
	}
	var before, after runtimeStats
	before.read()
	err := bitpack.Unmarshal(packet, &v)
	after.read()
	if !errors.Is(err, bitpack.ErrOverflow) {
		t.Fatalf("err = %v, want ErrOverflow", err)
	}
	if grew := after.totalAlloc - before.totalAlloc; grew > 16<<10 {
		t.Fatalf("decoding a 10-byte packet allocated %d bytes", grew)
	}
	if v.Items != nil {
		t.Fatal("value changed")
	}
}

// TestConcurrentFirstUse: many goroutines meet a new type at once; its plan
// is compiled exactly once and every goroutine gets the same bytes.
func TestConcurrentFirstUse(t *testing.T) {
	for round := 0; round < 8; round++ {
		// A type no other test has seen: reflect.StructOf with a fresh name.
		typ := reflect.StructOf([]reflect.StructField{
			{Name: "Health" + strconv.Itoa(round) + uniqueSuffix(), Type: reflect.TypeFor[int32](), Tag: `bits:"range=0..1000"`},
			{Name: "Pos", Type: reflect.TypeFor[Vec3](), Tag: `bits:"float,min=-10,max=10,res=0.01"`},
		})
		v := reflect.New(typ)
		v.Elem().Field(0).SetInt(731)
		start := make(chan struct{})
		results := make([][]byte, 16)
		var wg sync.WaitGroup
		for g := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				b, err := bitpack.Marshal(v.Interface())
				if err != nil {
					t.Error(err)
				}
				out := reflect.New(typ)
				if err := bitpack.Unmarshal(b, out.Interface()); err != nil {
					t.Error(err)
				}
				results[g] = b
			}()
		}
		close(start)
		wg.Wait()
		for _, r := range results {
			if !bytes.Equal(r, results[0]) {
				t.Fatalf("goroutines disagree: %x vs %x", r, results[0])
			}
		}
		if n := bitpack.CompileCount(typ); n != 1 {
			t.Fatalf("plan compiled %d times", n)
		}
	}
}

var suffixes atomic.Int64

// uniqueSuffix makes names no earlier round (or -count run) has used.
func uniqueSuffix() string { return "X" + strconv.FormatInt(suffixes.Add(1), 10) }

type runtimeStats struct{ totalAlloc uint64 }

func (s *runtimeStats) read() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.totalAlloc = m.TotalAlloc
}

func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates; the plain test run checks this")
	}
	c, err := bitpack.NewCodec[BenchPacket]()
	if err != nil {
		t.Fatal(err)
	}
	p := referencePacket()
	buf := make([]byte, 0, 256)
	packet := mustHex(t, referenceHex)
	var q BenchPacket
	if err := c.Unmarshal(packet, &q); err != nil { // sizes q.EventIDs once
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		allocs float64
		fn     func()
	}{
		{"Codec.Append", 0, func() { buf, _ = c.Append(buf[:0], &p) }},
		{"Codec.Unmarshal", 0, func() { _ = c.Unmarshal(packet, &q) }},
		{"Append", 0, func() { buf, _ = bitpack.Append(buf[:0], &p) }},
		{"Unmarshal", 0, func() { _ = bitpack.Unmarshal(packet, &q) }},
		{"Marshal (the returned slice)", 1, func() { _, _ = bitpack.Marshal(&p) }},
		{"Codec.Encode", 0, func() { w := bitio.Writer{}; w.Reset(buf[:0]); _ = c.Encode(&w, &p) }},
		{"Codec.Decode", 0, func() { r := bitio.Reader{}; r.Reset(packet); _ = c.Decode(&r, &q) }},
	}
	// The world snapshot: slices of structs, which encode a chunk of
	// elements at a time through a buffer on the stack.
	wld := world.New(200, 1)
	for range 10 {
		wld.Step()
	}
	snap := new(world.Snapshot)
	wld.Snapshot(snap)
	sc, err := bitpack.NewCodec[world.Snapshot]()
	if err != nil {
		t.Fatal(err)
	}
	snapBuf, _ := sc.Append(nil, snap)
	cases = append(cases, struct {
		name   string
		allocs float64
		fn     func()
	}{"Codec.Append (world snapshot)", 0, func() { snapBuf, _ = sc.Append(snapBuf[:0], snap) }})
	for _, tc := range cases {
		if got := testing.AllocsPerRun(200, tc.fn); got != tc.allocs {
			t.Errorf("%s: %v allocs per run, want %v", tc.name, got, tc.allocs)
		}
	}
	if !bytes.Equal(buf, packet) || q.Health != 731 {
		t.Fatal("the measured calls did not do their work")
	}
}

// TestAtomicWorld: the example world's snapshot (slices of structs holding
// pointers and quaternions) after every possible truncation and a sweep of
// bit flips: a failed decode never changes the target.
func TestAtomicWorld(t *testing.T) {
	w := world.New(40, 3)
	for i := 0; i < 5; i++ {
		w.Step()
	}
	var snap world.Snapshot
	w.Snapshot(&snap)
	packet, err := bitpack.Marshal(&snap)
	if err != nil {
		t.Fatal(err)
	}
	var before world.Snapshot // a different, earlier snapshot as the target
	world.New(40, 9).Snapshot(&before)
	target := func() world.Snapshot {
		var s world.Snapshot
		world.New(40, 9).Snapshot(&s)
		return s
	}
	for n := 0; n < len(packet); n++ {
		v := target()
		if err := bitpack.Unmarshal(packet[:n], &v); err == nil {
			t.Fatalf("truncated to %d bytes: accepted", n)
		}
		if diff := cmp.Diff(before, v); diff != "" {
			t.Fatalf("truncated to %d bytes: target changed:\n%s", n, diff)
		}
	}
	for bit := 0; bit < 8*len(packet); bit += 7 {
		bad := bytes.Clone(packet)
		bad[bit/8] ^= 1 << (bit % 8)
		v := target()
		if err := bitpack.Unmarshal(bad, &v); err != nil {
			if diff := cmp.Diff(before, v); diff != "" {
				t.Fatalf("bit %d flipped: refused, but the target changed:\n%s", bit, diff)
			}
		}
	}
	v := target()
	if err := bitpack.Unmarshal(packet, &v); err != nil || len(v.Players) != len(snap.Players) || v.Tick != snap.Tick {
		t.Fatalf("whole packet: %v", err)
	}
}

type tWideItems struct {
	Items []padded `bits:"maxlen=4096"` // 64 bytes for 1 bit each
}

// TestScratchNotPinned: a packet that makes decoding grow big buffers (here
// 4096 elements of 64 bytes from a 514-byte packet, which the tags and the
// allowances allow) does not leave them pinned in the type's scratch
// value; small ones stay for the next decode to reuse.
func TestScratchNotPinned(t *testing.T) {
	typ := reflect.TypeFor[tWideItems]()
	var small, big tWideItems
	if err := bitpack.Unmarshal(bitsOf(f{3, 13}), &small); err != nil || len(small.Items) != 3 {
		t.Fatalf("small: %v %d", err, len(small.Items))
	}
	if !bitpack.ScratchKept(typ) || !bitpack.ScratchHoldsBuffers(typ) {
		t.Fatal("a small decode's scratch value was not kept with its buffers")
	}
	packet := append(bitsOf(f{4096, 13}), make([]byte, 512)...)
	if err := bitpack.Unmarshal(packet, &big); err != nil || len(big.Items) != 4096 || big.Items[4095].B {
		t.Fatalf("big: %v %d", err, len(big.Items))
	}
	if !bitpack.ScratchKept(typ) || bitpack.ScratchHoldsBuffers(typ) {
		t.Fatalf("after growing 4096 elements the scratch value is kept %v, holds its buffers %v; want kept, not holding them", bitpack.ScratchKept(typ), bitpack.ScratchHoldsBuffers(typ))
	}
}

type tKeepItem struct {
	A     uint8
	Keep  uint8 `bits:"-"`
	B     uint16
	local int8
}

type tKeepList struct {
	Items [2]tKeepItem
	More  []tKeepItem `bits:"maxlen=4"`
}

// TestDecodeKeepsOffWireFields: fields not on the wire keep their values in
// the target, also inside arrays and slice elements (which decoding copies
// as whole blocks only when nothing off the wire lives in them).
func TestDecodeKeepsOffWireFields(t *testing.T) {
	src := tKeepList{Items: [2]tKeepItem{{A: 1, B: 2}, {A: 3, B: 4}}, More: []tKeepItem{{A: 5, B: 6}}}
	b, err := bitpack.Marshal(&src)
	if err != nil {
		t.Fatal(err)
	}
	dst := tKeepList{
		Items: [2]tKeepItem{{Keep: 7, local: -1}, {Keep: 8, local: -2}},
		More:  []tKeepItem{{Keep: 9, local: -3}, {Keep: 10}},
	}
	if err := bitpack.Unmarshal(b, &dst); err != nil {
		t.Fatal(err)
	}
	want := tKeepList{
		Items: [2]tKeepItem{{A: 1, Keep: 7, B: 2, local: -1}, {A: 3, Keep: 8, B: 4, local: -2}},
		More:  []tKeepItem{{A: 5, Keep: 9, B: 6, local: -3}},
	}
	if diff := cmp.Diff(want, dst, cmp.AllowUnexported(tKeepItem{})); diff != "" {
		t.Fatalf("decoded (-want +got):\n%s", diff)
	}
}

// TestAppendStaysInBounds: Append writes nothing into dst's spare
// capacity past the packet it returns, for packets ending on a partial
// byte, on byte data, and on slices of structs.
func TestAppendStaysInBounds(t *testing.T) {
	type tiny struct {
		A uint8 `bits:"range=0..3"`
	}
	type tail struct {
		N uint8
		B [1]byte
	}
	wld := world.New(50, 2)
	snap := new(world.Snapshot)
	wld.Snapshot(snap)
	ref := referencePacket()
	for _, v := range []any{&tiny{A: 2}, &tail{N: 7, B: [1]byte{9}}, &ref, snap} {
		backing := bytes.Repeat([]byte{0xe5}, 16<<10)
		out, err := bitpack.Append(backing[:3], v)
		if err != nil {
			t.Fatal(err)
		}
		if &out[0] != &backing[0] {
			t.Fatalf("%T: Append left dst's array", v)
		}
		for i := len(out); i < len(backing); i++ {
			if backing[i] != 0xe5 {
				t.Errorf("%T: byte %d past the %d-byte result overwritten", v, i, len(out))
				break
			}
		}
	}
}

package bitpack_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

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

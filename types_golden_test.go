package bitpack_test

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
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

package bitio_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
)

func TestBitsRequired(t *testing.T) {
	tests := []struct {
		min, max uint64
		want     int
	}{
		{0, 0, 0},
		{0, 1, 1},
		{0, 7, 3},
		{0, 8, 4},
		{5, 5, 0},
		{10, 90, 7},
		{0, math.MaxUint32, 32},
		{0, math.MaxUint64, 64},
		{1, math.MaxUint64, 64},
		{uint64(1) << 63, math.MaxUint64, 63},
		{u64(minInt64), math.MaxInt64, 64}, // full int64 span
		{u64(-100), 100, 8},                // signed bounds pass through uint64
		{u64(-1), 0, 1},
	}
	for _, tt := range tests {
		if got := bitio.BitsRequired(tt.min, tt.max); got != tt.want {
			t.Errorf("BitsRequired(%d, %d) = %d, want %d", tt.min, tt.max, got, tt.want)
		}
	}
}

const minInt64 = -1 << 63

func u64(v int64) uint64 { return uint64(v) }

func TestWriterPrimitives(t *testing.T) {
	tests := []struct {
		name  string
		write func(w *bitio.Writer)
		want  []byte
		bits  int
	}{
		{"nothing", func(w *bitio.Writer) {}, nil, 0},
		{"zero-width bits", func(w *bitio.Writer) { w.WriteBits(0, 0) }, nil, 0},
		{"bool", func(w *bitio.Writer) { w.WriteBool(true); w.WriteBool(false); w.WriteBool(true) }, pack(f{1, 1}, f{0, 1}, f{1, 1}), 3},
		{"64 bits", func(w *bitio.Writer) { w.WriteBits(0x0123456789abcdef, 64) }, []byte{0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01}, 64},
		{"straddle word", func(w *bitio.Writer) { w.WriteBits(5, 3); w.WriteBits(math.MaxUint64, 64); w.WriteBits(1, 1) },
			pack(f{5, 3}, f{math.MaxUint64, 64}, f{1, 1}), 68},
		{"int min==max costs 0", func(w *bitio.Writer) { w.WriteInt(7, 7, 7); w.WriteBits(1, 1) }, []byte{1}, 1},
		{"int signed", func(w *bitio.Writer) { w.WriteInt(-2, -10, 10) }, pack(f{8, 5}), 5},
		{"int full int64", func(w *bitio.Writer) { w.WriteInt(minInt64, minInt64, math.MaxInt64) }, make([]byte, 8), 64},
		{"uint", func(w *bitio.Writer) { w.WriteUint(1000, 0, 1000) }, pack(f{1000, 10}), 10},
		{"uint offset", func(w *bitio.Writer) { w.WriteUint(13, 10, 17) }, pack(f{3, 3}), 3},
		{"float32 -0", func(w *bitio.Writer) { w.WriteFloat32(float32(math.Copysign(0, -1))) }, []byte{0, 0, 0, 0x80}, 32},
		{"float64 NaN payload", func(w *bitio.Writer) { w.WriteFloat64(math.Float64frombits(0x7ff0000000000001)) },
			[]byte{1, 0, 0, 0, 0, 0, 0xf0, 0x7f}, 64},
		{"align when aligned", func(w *bitio.Writer) { w.WriteBits(0xab, 8); w.Align() }, []byte{0xab}, 8},
		{"align pads zeros", func(w *bitio.Writer) { w.WriteBits(1, 1); w.Align(); w.WriteBits(1, 1) }, []byte{1, 1}, 9},
		{"empty bytes still aligns", func(w *bitio.Writer) { w.WriteBits(1, 3); w.WriteBytes(nil); w.WriteBits(1, 1) }, []byte{1, 1}, 9},
		{"bytes after partial word", func(w *bitio.Writer) { w.WriteBits(0x3ff, 10); w.WriteBytes([]byte{0xaa, 0xbb}) },
			[]byte{0xff, 0x03, 0xaa, 0xbb}, 32},
		{"string", func(w *bitio.Writer) { w.WriteBool(true); w.WriteString("hi", 15) },
			append(pack(f{1, 1}, f{2, 4}), 'h', 'i'), 24},
		{"empty string maxlen 0", func(w *bitio.Writer) { w.WriteBool(true); w.WriteString("", 0) }, []byte{1}, 8},
		{"compressed float", func(w *bitio.Writer) { w.WriteCompressedFloat(2.5, 0, 10, 0.01) }, pack(f{250, 10}), 10},
		{"compressed float clamps finite", func(w *bitio.Writer) {
			w.WriteCompressedFloat(-3, 0, 10, 0.01)
			w.WriteCompressedFloat(99, 0, 10, 0.01)
		}, pack(f{0, 10}, f{1000, 10}), 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := bitio.NewWriter(nil)
			tt.write(w)
			if err := w.Err(); err != nil {
				t.Fatal(err)
			}
			if got := w.Bytes(); !bytes.Equal(got, tt.want) {
				t.Errorf("bytes = %x, want %x", got, tt.want)
			}
			if got := w.BitsWritten(); got != tt.bits {
				t.Errorf("BitsWritten = %d, want %d", got, tt.bits)
			}
		})
	}
}

func TestWriterRewind(t *testing.T) {
	for cut := 0; cut <= 150; cut++ {
		w := bitio.NewWriter([]byte{0x7e})
		for i := 0; i < 150; i++ {
			w.WriteBits(uint64(i&1), 1)
		}
		w.Rewind(cut)
		if w.BitsWritten() != cut {
			t.Fatalf("cut %d: BitsWritten %d", cut, w.BitsWritten())
		}
		w.WriteBits(0x3, 2)
		fields := []f{{0x7e, 8}}
		for i := 0; i < cut; i++ {
			fields = append(fields, f{uint64(i & 1), 1})
		}
		fields = append(fields, f{3, 2})
		if want := pack(fields...); !bytes.Equal(w.Bytes(), want) {
			t.Fatalf("cut %d: %x, want %x", cut, w.Bytes(), want)
		}
	}
	w := bitio.NewWriter(nil)
	w.WriteBits(1, 4)
	w.Rewind(5)
	if !errors.Is(w.Err(), bitio.ErrRange) {
		t.Fatalf("rewind forward: %v", w.Err())
	}
}

func TestWriterBytesDoesNotDisturb(t *testing.T) {
	w := bitio.NewWriter(make([]byte, 0, 64))
	w.WriteBits(0x5, 3)
	if got := w.Bytes(); !bytes.Equal(got, []byte{0x05}) {
		t.Fatalf("%x", got)
	}
	w.WriteBits(0x1f, 5)
	w.WriteBits(0x1, 1)
	if got := w.Bytes(); !bytes.Equal(got, []byte{0xfd, 0x01}) {
		t.Fatalf("%x", got)
	}
}

// TestBytesExactCapacity: when dst has room for exactly the packet, Bytes
// (which stores the whole scratch word when 8 bytes are free) still
// returns the packet in dst's own array, with the right bytes.
func TestBytesExactCapacity(t *testing.T) {
	for n := 1; n <= 80; n++ {
		buf := make([]byte, 0, (n+7)/8)
		var w, ref bitio.Writer
		w.Reset(buf)
		ref.Reset(nil)
		for i := 0; i < n; i++ {
			w.WriteBool(i%3 != 1)
			ref.WriteBool(i%3 != 1)
		}
		out := w.Bytes()
		if len(out) != (n+7)/8 || cap(out) != cap(buf) || &out[0] != &buf[:1][0] {
			t.Fatalf("%d bits: Bytes returned %d bytes (cap %d), not in dst's array of %d", n, len(out), cap(out), cap(buf))
		}
		if want := ref.Bytes(); !bytes.Equal(out, want) {
			t.Fatalf("%d bits: Bytes = %x, want %x", n, out, want)
		}
	}
}

// TestWriterStaysInBounds: whatever is written, the bytes of dst's spare
// capacity past what Bytes returns are never touched (a caller may pack
// several packets into one buffer, or write into part of a larger one).
func TestWriterStaysInBounds(t *testing.T) {
	const sentinel = 0xe5
	for seed := uint64(0); seed < 2000; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		backing := make([]byte, 256)
		for i := range backing {
			backing[i] = sentinel
		}
		prefix := r.IntN(4)
		w := bitio.NewWriter(backing[:prefix])
		for ops := r.IntN(8); ops >= 0; ops-- {
			switch r.IntN(5) {
			case 0:
				n := r.IntN(65)
				w.WriteBits(r.Uint64()>>(64-n)&(1<<n-1), n)
			case 1:
				w.WriteBytes(make([]byte, r.IntN(12)))
			case 2:
				w.WriteString(strings.Repeat("x", r.IntN(10)), 16)
			case 3:
				w.Align()
			default:
				bitio.WriteUints(w, []uint32{r.Uint32(), r.Uint32(), r.Uint32()}[:r.IntN(4)], 32)
			}
		}
		out := w.Bytes()
		if w.Err() != nil || &out[:1][0] != &backing[0] {
			t.Fatalf("seed %d: %v, or the writer left dst's array", seed, w.Err())
		}
		for i := len(out); i < len(backing); i++ {
			if backing[i] != sentinel {
				t.Fatalf("seed %d: byte %d past the %d returned was overwritten (%#x)", seed, i, len(out), backing[i])
			}
		}
	}
}

// TestWriteBitsUnchecked: for values that fit, the unchecked writer lays
// out exactly the oracle's bits, like WriteBits, from every start offset
// and at every width; after an error it writes nothing; and values that
// break its contract (too wide, a bad count) give garbage bits but never
// a panic, and leave a Writer every other method still works on.
func TestWriteBitsUnchecked(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for off := 0; off < 64; off++ {
		for n := 0; n <= 64; n++ {
			fields := []f{{1 & (1<<off - 1), off}}
			w := bitio.NewWriter([]byte{0xee})
			w.WriteBits(fields[0].v, off)
			for range 3 {
				v := r.Uint64() & (1<<n - 1) // 1<<64 - 1 is all ones
				w.WriteBitsUnchecked(v, n)
				fields = append(fields, f{v, n})
			}
			want := append([]byte{0xee}, pack(fields...)...)
			if got := w.Bytes(); !bytes.Equal(got, want) || w.Err() != nil || w.BitsWritten() != off+3*n {
				t.Fatalf("off %d n %d: % x (%v, %d bits), want % x", off, n, got, w.Err(), w.BitsWritten(), want)
			}
		}
	}

	w := bitio.NewWriter(nil)
	w.WriteBits(1, 1)
	w.WriteBits(4, 2) // refused: 4 does not fit in 2 bits
	w.WriteBitsUnchecked(3, 2)
	if w.BitsWritten() != 1 || !errors.Is(w.Err(), bitio.ErrRange) {
		t.Fatalf("after an error: %d bits, %v", w.BitsWritten(), w.Err())
	}

	for _, n := range []int{-1, -64, 65, 100, 1 << 20} {
		for _, v := range []uint64{0, 1, math.MaxUint64} {
			w := bitio.NewWriter(nil)
			w.WriteBits(5, 3)
			w.WriteBitsUnchecked(v, n)
			w.WriteBitsUnchecked(math.MaxUint64, 7) // too wide for 7 bits
			w.WriteBits(1, 1)
			w.WriteBytes([]byte{1, 2, 3})
			w.WriteString("ok", 4)
			w.Align()
			if bits := w.BitsWritten(); bits < 0 || bits%8 != 0 {
				t.Fatalf("n %d v %#x: %d bits after Align", n, v, bits)
			}
			w.Rewind(3)
			if b := w.Bytes(); len(b) != 1 || b[0] != 5 || w.Err() != nil {
				t.Fatalf("n %d v %#x: rewound to % x, %v", n, v, b, w.Err())
			}
		}
	}
}

package bitio_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// mixed holds 1024 values of 1..32 bits each, from a fixed seed.
var mixed = func() (m struct {
	vals   []uint64
	widths []int
	bits   int
}) {
	rng := rand.New(rand.NewPCG(1, 1024))
	for i := 0; i < 1024; i++ {
		n := 1 + rng.IntN(32)
		m.vals = append(m.vals, rng.Uint64()>>(64-n))
		m.widths = append(m.widths, n)
		m.bits += n
	}
	return m
}()

// rawWrite is the physical limit of this design: the same 64-bit scratch
// and little-endian flush as the Writer, with no checks and nothing that
// can stop it inlining. It appends into out, which must have capacity.
func rawWrite(out []byte, vals []uint64, widths []int) []byte {
	var scratch uint64
	var pending uint
	for i, v := range vals {
		n := uint(widths[i])
		scratch |= v << pending
		pending += n
		if pending >= 64 {
			out = binary.LittleEndian.AppendUint64(out, scratch)
			pending -= 64
			scratch = v >> (n - pending)
		}
	}
	for ; pending > 0; pending -= min(pending, 8) {
		out = append(out, byte(scratch))
		scratch >>= 8
	}
	return out
}

// rawRead reads the values back with unchecked 64-bit window loads; data
// must have 8 bytes of slack past the last value.
func rawRead(data []byte, widths []int, out []uint64) {
	pos := 0
	for i, n := range widths {
		out[i] = binary.LittleEndian.Uint64(data[pos>>3:]) >> (pos & 7) & (1<<n - 1)
		pos += n
	}
}

func writeMixed(w *bitio.Writer) {
	for i, v := range mixed.vals {
		w.WriteBits(v, mixed.widths[i])
	}
}

func readMixed(r *bitio.Reader, out []uint64) {
	for i, n := range mixed.widths {
		out[i] = r.ReadBits(n)
	}
}

func TestRawMatchesWriter(t *testing.T) {
	// The baseline must do the same work: identical bytes, identical values.
	w := bitio.NewWriter(nil)
	writeMixed(w)
	raw := rawWrite(nil, mixed.vals, mixed.widths)
	if string(raw) != string(w.Bytes()) {
		t.Fatal("raw writer and Writer disagree")
	}
	got := make([]uint64, len(mixed.vals))
	rawRead(append(raw, make([]byte, 8)...), mixed.widths, got)
	for i := range got {
		if got[i] != mixed.vals[i] {
			t.Fatalf("raw read %d: %d != %d", i, got[i], mixed.vals[i])
		}
	}
}

// BenchmarkMixed compares bitio with the unchecked inlined loop on 1024
// mixed 1-32-bit values; the ratio bitio/raw is the number that matters.
func BenchmarkMixed(b *testing.B) {
	size := int64((mixed.bits + 7) / 8)
	buf := make([]byte, 0, size+16)
	b.Run("write/raw", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			buf = rawWrite(buf[:0], mixed.vals, mixed.widths)
		}
	})
	b.Run("write/bitio", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		var w bitio.Writer
		for b.Loop() {
			w.Reset(buf[:0])
			writeMixed(&w)
		}
	})
	packet := rawWrite(nil, mixed.vals, mixed.widths)
	padded := append(packet[:len(packet):len(packet)], make([]byte, 8)...)
	out := make([]uint64, len(mixed.vals))
	b.Run("read/raw", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			rawRead(padded, mixed.widths, out)
		}
	})
	b.Run("read/bitio", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		var r bitio.Reader
		for b.Loop() {
			r.Reset(packet)
			readMixed(&r, out)
		}
	})
}

// BenchmarkBytes writes and reads byte blocks at an unaligned start, the
// way a struct's [N]byte field follows a few bits of other fields.
func BenchmarkBytes(b *testing.B) {
	for _, n := range []int{16, 64, 1024} {
		block := make([]byte, n)
		for i := range block {
			block[i] = byte(i * 47)
		}
		buf := make([]byte, 0, n+16)
		b.Run("write/"+itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			var w bitio.Writer
			for b.Loop() {
				w.Reset(buf[:0])
				w.WriteBits(5, 3)
				w.WriteBytes(block)
			}
		})
		w := bitio.NewWriter(nil)
		w.WriteBits(5, 3)
		w.WriteBytes(block)
		packet := w.Bytes()
		dst := make([]byte, n)
		b.Run("read/"+itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			var r bitio.Reader
			for b.Loop() {
				r.Reset(packet)
				r.ReadBits(3)
				r.ReadBytes(dst)
			}
		})
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// BenchmarkCompressedFloat compares precomputed parameters (WriteQuantized,
// ReadQuantized) with parameters recomputed on every call, over 1024 floats.
func BenchmarkCompressedFloat(b *testing.B) {
	const min, max, res = -1024, 1024, 0.01
	q, _ := quant.NewFloat(min, max, res)
	rng := rand.New(rand.NewPCG(3, 3))
	vals := make([]float32, 1024)
	for i := range vals {
		vals[i] = min + rng.Float32()*(max-min)
	}
	size := int64(len(vals) * q.Bits() / 8)
	buf := make([]byte, 0, size+16)
	b.Run("write/precomputed", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		var w bitio.Writer
		for b.Loop() {
			w.Reset(buf[:0])
			for _, v := range vals {
				w.WriteQuantized(&q, v)
			}
		}
	})
	b.Run("write/per-call", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		var w bitio.Writer
		for b.Loop() {
			w.Reset(buf[:0])
			for _, v := range vals {
				w.WriteCompressedFloat(v, min, max, res)
			}
		}
	})
	w := bitio.NewWriter(nil)
	for _, v := range vals {
		w.WriteQuantized(&q, v)
	}
	packet := w.Bytes()
	out := make([]float32, len(vals))
	b.Run("read/precomputed", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		var r bitio.Reader
		for b.Loop() {
			r.Reset(packet)
			for i := range out {
				out[i] = r.ReadQuantized(&q)
			}
		}
	})
	b.Run("read/per-call", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		var r bitio.Reader
		for b.Loop() {
			r.Reset(packet)
			for i := range out {
				out[i] = r.ReadCompressedFloat(min, max, res)
			}
		}
	})
}

// TestAllocs: writing into a slice with capacity, and reading, allocate
// nothing (ReadString's result aside; ReadStringBytes does not allocate).
func TestAllocs(t *testing.T) {
	q, _ := quant.NewFloat(-1024, 1024, 0.01)
	qq, _ := quant.NewQuat(9)
	block := make([]byte, 64)
	write := func(w *bitio.Writer) {
		writeMixed(w)
		w.WriteBool(true)
		w.WriteInt(-5, -10, 10)
		w.WriteUint(731, 0, 1000)
		w.WriteFloat32(1.5)
		w.WriteFloat64(2.5)
		w.WriteQuantized(&q, 12.75)
		w.WriteCompressedFloat(3.25, 0, 10, 0.01)
		w.WriteIntRelative(-1, 40)
		w.WriteIntRelative(40, 100000)
		w.WriteQuat(&qq, [4]float32{0, 0, 0, 1})
		w.WriteBytes(block)
		w.WriteString("player one", 15)
		w.Align()
	}
	buf := make([]byte, 0, 4096)
	var w bitio.Writer
	if n := testing.AllocsPerRun(100, func() {
		w.Reset(buf[:0])
		write(&w)
	}); n != 0 {
		t.Errorf("write: %v allocs", n)
	}
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	packet := w.Bytes()
	out := make([]uint64, len(mixed.vals))
	dst := make([]byte, 64)
	var r bitio.Reader
	if n := testing.AllocsPerRun(100, func() {
		r.Reset(packet)
		readMixed(&r, out)
		r.ReadBool()
		r.ReadInt(-10, 10)
		r.ReadUint(0, 1000)
		r.ReadFloat32()
		r.ReadFloat64()
		r.ReadQuantized(&q)
		r.ReadCompressedFloat(0, 10, 0.01)
		r.ReadIntRelative(-1)
		r.ReadIntRelative(40)
		r.ReadQuat(&qq)
		r.ReadBytes(dst)
		r.ReadStringBytes(15)
		r.Align()
	}); n != 0 {
		t.Errorf("read: %v allocs", n)
	}
	if r.Err() != nil || r.BitsRemaining() != 0 {
		t.Fatalf("read back: %v, %d bits left", r.Err(), r.BitsRemaining())
	}
}

// BenchmarkQuat writes and reads 1024 unit quaternions (fixed seed) at 9
// bits per component; ns/op is per quaternion.
func BenchmarkQuat(b *testing.B) {
	qq, _ := quant.NewQuat(9)
	rng := rand.New(rand.NewPCG(3, 14))
	rots := make([][4]float32, 1024)
	for i := range rots {
		v := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		n := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3])
		rots[i] = [4]float32{float32(v[0] / n), float32(v[1] / n), float32(v[2] / n), float32(v[3] / n)}
	}
	buf := make([]byte, 0, 1024*4+8)
	var w bitio.Writer
	b.Run("write", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w.Reset(buf[:0])
			for i := range rots {
				w.WriteQuat(&qq, rots[i])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rots)), "ns/quat")
	})
	if w.Err() != nil {
		b.Fatal(w.Err())
	}
	packet := w.Bytes()
	var r bitio.Reader
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.Reset(packet)
			for range rots {
				r.ReadQuat(&qq)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rots)), "ns/quat")
	})
	if r.Err() != nil {
		b.Fatal(r.Err())
	}
}

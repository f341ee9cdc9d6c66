package bitio_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// A fuzz script is a byte string turned into a sequence of operations with
// their parameters; the same script drives a hostile read, a write of what
// was read, and a second read.

type opKind uint8

const (
	opBits opKind = iota
	opBool
	opInt
	opUint
	opFloat32
	opFloat64
	opCFloat
	opRelative
	opAlign
	opBytes
	opString
	opQuat
	numOps
)

type scriptOp struct {
	kind     opKind
	n        int // bits, bytes length, maxlen, quat bits
	min, max int64
	umin     uint64
	umax     uint64
	q        *quant.Float
	quat     *quant.Quat
	prev     int32
}

var intRanges = [][2]int64{
	{0, 0}, {0, 1}, {-10, 10}, {0, 1000}, {5, 5}, {-100, 10000},
	{math.MinInt64, math.MaxInt64}, {math.MinInt32, math.MaxInt32}, {math.MaxInt64 - 3, math.MaxInt64},
}

var uintRanges = [][2]uint64{
	{0, 0}, {0, 1}, {2, 6}, {0, 1000}, {0, math.MaxUint64}, {1 << 63, math.MaxUint64}, {10, 90},
}

// Canonical declarations only, so the write-back must reproduce the bits.
var fuzzFloats = func() []quant.Float {
	var qs []quant.Float
	for _, p := range [][3]float32{{0, 10, 0.01}, {-1024, 1024, 0.01}, {-1, 1, 0.0001}, {0, 1, 2}, {-5, 3, 0.5}} {
		q, err := quant.NewFloat(p[0], p[1], p[2])
		if err != nil || q.CheckCanonical() != nil {
			panic("fuzz table holds a bad declaration")
		}
		qs = append(qs, q)
	}
	return qs
}()

var quats = func() []quant.Quat {
	var qs []quant.Quat
	for b := 2; b <= quant.QuatMaxBits; b++ {
		q, _ := quant.NewQuat(b)
		qs = append(qs, q)
	}
	return qs
}()

var relativePrevs = []int32{-1, 0, 1, 1000, math.MaxInt32 - 5, math.MaxInt32, math.MinInt32, -70000}

func parseScript(script []byte) []scriptOp {
	var ops []scriptOp
	next := func() byte {
		if len(script) == 0 {
			return 0
		}
		b := script[0]
		script = script[1:]
		return b
	}
	for len(script) > 0 && len(ops) < 64 {
		op := scriptOp{kind: opKind(next() % byte(numOps))}
		switch op.kind {
		case opBits:
			op.n = int(next() % 65)
		case opInt:
			r := intRanges[int(next())%len(intRanges)]
			op.min, op.max = r[0], r[1]
		case opUint:
			r := uintRanges[int(next())%len(uintRanges)]
			op.umin, op.umax = r[0], r[1]
		case opCFloat:
			op.q = &fuzzFloats[int(next())%len(fuzzFloats)]
		case opRelative:
			op.prev = relativePrevs[int(next())%len(relativePrevs)]
		case opBytes:
			op.n = int(next() % 20)
		case opString:
			op.n = int(next() % 40)
		case opQuat:
			op.quat = &quats[int(next())%len(quats)]
		}
		ops = append(ops, op)
	}
	return ops
}

// value is what one op read: integers in u, floats by bit pattern, bytes.
type value struct {
	u uint64
	f [4]float32
	b []byte
}

func readScriptOp(r *bitio.Reader, op scriptOp) value {
	var v value
	switch op.kind {
	case opBits:
		v.u = r.ReadBits(op.n)
	case opBool:
		if r.ReadBool() {
			v.u = 1
		}
	case opInt:
		v.u = uint64(r.ReadInt(op.min, op.max))
	case opUint:
		v.u = r.ReadUint(op.umin, op.umax)
	case opFloat32:
		v.u = uint64(math.Float32bits(r.ReadFloat32()))
	case opFloat64:
		v.u = math.Float64bits(r.ReadFloat64())
	case opCFloat:
		v.u = uint64(math.Float32bits(r.ReadQuantized(op.q)))
	case opRelative:
		v.u = uint64(r.ReadIntRelative(op.prev))
	case opAlign:
		r.Align()
	case opBytes:
		v.b = make([]byte, op.n)
		r.ReadBytes(v.b)
	case opString:
		v.b = []byte(r.ReadString(op.n))
	case opQuat:
		v.f = r.ReadQuat(op.quat)
	}
	return v
}

func writeScriptOp(w *bitio.Writer, op scriptOp, v value) {
	switch op.kind {
	case opBits:
		w.WriteBits(v.u, op.n)
	case opBool:
		w.WriteBool(v.u == 1)
	case opInt:
		w.WriteInt(int64(v.u), op.min, op.max)
	case opUint:
		w.WriteUint(v.u, op.umin, op.umax)
	case opFloat32:
		w.WriteFloat32(math.Float32frombits(uint32(v.u)))
	case opFloat64:
		w.WriteFloat64(math.Float64frombits(v.u))
	case opCFloat:
		w.WriteQuantized(op.q, math.Float32frombits(uint32(v.u)))
	case opRelative:
		w.WriteIntRelative(op.prev, int32(v.u))
	case opAlign:
		w.Align()
	case opBytes:
		w.WriteBytes(v.b)
	case opString:
		w.WriteString(string(v.b), op.n)
	case opQuat:
		w.WriteQuat(op.quat, v.f)
	}
}

func isZeroValue(v value) bool {
	if v.u != 0 || v.f != [4]float32{} {
		return false
	}
	for _, b := range v.b {
		if b != 0 {
			return false
		}
	}
	return true
}

func sameValue(a, b value) bool {
	return a.u == b.u && a.f == b.f && bytes.Equal(a.b, b.b)
}

// bitsEqual reports whether a and b agree on their first n bits.
func bitsEqual(a, b []byte, n int) bool {
	if len(a)*8 < n || len(b)*8 < n {
		return false
	}
	if !bytes.Equal(a[:n/8], b[:n/8]) {
		return false
	}
	if rem := n % 8; rem != 0 {
		mask := byte(1)<<rem - 1
		return a[n/8]&mask == b[n/8]&mask
	}
	return true
}

func FuzzOps(f *testing.F) {
	f.Add([]byte{byte(opBits), 13, byte(opInt), 3, byte(opString), 15, byte(opAlign)}, []byte{0xdb, 0x97, 0x00, 0x02, 'h', 'i'})
	f.Add([]byte{byte(opCFloat), 1, byte(opCFloat), 1, byte(opQuat), 7, byte(opRelative), 0}, bytes.Repeat([]byte{0x5a}, 20))
	f.Add([]byte{byte(opFloat64), byte(opUint), 4, byte(opBytes), 9, byte(opRelative), 1}, bytes.Repeat([]byte{0xff}, 24))
	f.Add([]byte{byte(opBool), byte(opInt), 6, byte(opString), 39}, []byte{})
	f.Fuzz(func(t *testing.T, script, packet []byte) {
		ops := parseScript(script)
		packet = packet[:len(packet):len(packet)] // any read beyond len panics

		// 1. Hostile read.
		r := bitio.NewReader(packet)
		var got []value
		consumed := 0 // bits taken by the ops that succeeded
		for _, op := range ops {
			before := r.BitsRead()
			v := readScriptOp(r, op)
			if r.BitsRead() > 8*len(packet) {
				t.Fatalf("read position %d past the %d-bit packet", r.BitsRead(), 8*len(packet))
			}
			if err := r.Err(); err != nil {
				if !errors.Is(err, bitio.ErrOverflow) && !errors.Is(err, bitio.ErrRange) &&
					!errors.Is(err, bitio.ErrPadding) && !errors.Is(err, bitio.ErrInvalidString) {
					t.Fatalf("error %v wraps no sentinel", err)
				}
				var be *bitio.Error
				if !errors.As(err, &be) || be.Bit < before || be.Bit > 8*len(packet) {
					t.Fatalf("error %v has a bad offset (op began at bit %d)", err, before)
				}
				if !isZeroValue(v) {
					t.Fatalf("op %d returned %+v with error %v", op.kind, v, err)
				}
				break
			}
			got = append(got, v)
			consumed = r.BitsRead()
		}

		// 2. Write back what was read: it must be accepted, and (every table
		// declaration and quaternion being canonical) reproduce the
		// packet's bits exactly.
		w := bitio.NewWriter(nil)
		for i, v := range got {
			writeScriptOp(w, ops[i], v)
		}
		if werr := w.Err(); werr != nil {
			t.Fatalf("writing back decoded values failed: %v", werr)
		}
		out := w.Bytes()
		if w.BitsWritten() != consumed || !bitsEqual(out, packet, consumed) {
			t.Fatalf("re-encoding is not canonical:\n read %d bits of %x\nwrote %d bits:  %x", consumed, packet, w.BitsWritten(), out)
		}

		// 3. Read the written packet back: the same values.
		r2 := bitio.NewReader(out)
		for i, want := range got {
			v := readScriptOp(r2, ops[i])
			if r2.Err() != nil {
				t.Fatalf("op %d: reading our own packet failed: %v", i, r2.Err())
			}
			if !sameValue(v, want) {
				t.Fatalf("op %d (%d): wrote %+v, read %+v", i, ops[i].kind, want, v)
			}
		}
		if r2.BitsRemaining() >= 8 {
			t.Fatalf("%d bits left over in our own packet", r2.BitsRemaining())
		}
	})
}

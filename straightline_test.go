package bitpack_test

import (
	"errors"

	"github.com/bitpack-go/bitpack/bitio"
)

// Straight-line code: the reference packet and the gameplay message
// written and read the way a code generator would emit them (issue 19's
// strongest peer): one function per message, every width, bound and
// quantization constant an immediate, each value checked against its
// bounds and then written unchecked, dequantization by the float64
// reciprocal where quant proves it exact for every code (it does for every
// declaration here: TestStraightLineConstants) and quantization by a
// multiply where the span is a power of two (exact: see quant's
// TestPowerOfTwoDivision), else by the pinned float32 division. Written by
// hand for this benchmark; it decodes straight into the value, so a
// damaged packet leaves it half-written, but it refuses everything bitpack
// refuses (TestGameplayRefusals), trailing bytes included.

var errStraight = errors.New("value outside its tag")

// qcode is quant's truncCode with the code limit an immediate at each call
// site: floor(s) for s in [0.5, 2^32], at most max.
func qcode(s float32, max uint64) uint64 {
	if c := uint64(int64(s)); c < max {
		return c
	}
	return max
}

// qenc2 is qenc (straightline_gameplay_test.go) for a span that is a
// power of two: the division by it is a multiply by its reciprocal,
// exactly.
func qenc2(f, min, max, inv float32, m uint64) (uint64, bool) {
	if !(f >= min && f <= max) {
		return 0, false
	}
	n := float32(float32(f-min) * inv)
	return qcode(float32(float32(n*float32(m))+0.5), m), true
}

// The reference packet (BenchPacket).

func straightAppendPacket(dst []byte, p *BenchPacket) ([]byte, error) {
	var w bitio.Writer
	w.Reset(dst)
	w.WriteBitsUnchecked(p.Sequence, 64)
	pos0, ok0 := qenc2(p.Position[0], -1024, 1024, 1.0/2048, 204800)
	pos1, ok1 := qenc2(p.Position[1], -1024, 1024, 1.0/2048, 204800)
	pos2, ok2 := qenc2(p.Position[2], -1024, 1024, 1.0/2048, 204800)
	if !(ok0 && ok1 && ok2) {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(pos0, 18)
	w.WriteBitsUnchecked(pos1, 18)
	w.WriteBitsUnchecked(pos2, 18)
	ori0, ok0 := qenc2(p.Orientation[0], -1, 1, 0.5, 20000)
	ori1, ok1 := qenc2(p.Orientation[1], -1, 1, 0.5, 20000)
	ori2, ok2 := qenc2(p.Orientation[2], -1, 1, 0.5, 20000)
	ori3, ok3 := qenc2(p.Orientation[3], -1, 1, 0.5, 20000)
	if !(ok0 && ok1 && ok2 && ok3) {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(ori0, 15)
	w.WriteBitsUnchecked(ori1, 15)
	w.WriteBitsUnchecked(ori2, 15)
	w.WriteBitsUnchecked(ori3, 15)
	if uint32(p.Health) > 1000 || p.Weapon > 15 {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(uint64(p.Health), 10)
	w.WriteBitsUnchecked(uint64(p.Weapon), 4)
	a := &p.Ammo
	if uint32(a[0]) > 200 || uint32(a[1]) > 200 || uint32(a[2]) > 200 || uint32(a[3]) > 200 || uint32(a[4]) > 200 || uint32(a[5]) > 200 || uint32(a[6]) > 200 || uint32(a[7]) > 200 {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(uint64(a[0]), 8)
	w.WriteBitsUnchecked(uint64(a[1]), 8)
	w.WriteBitsUnchecked(uint64(a[2]), 8)
	w.WriteBitsUnchecked(uint64(a[3]), 8)
	w.WriteBitsUnchecked(uint64(a[4]), 8)
	w.WriteBitsUnchecked(uint64(a[5]), 8)
	w.WriteBitsUnchecked(uint64(a[6]), 8)
	w.WriteBitsUnchecked(uint64(a[7]), 8)
	w.WriteBitsUnchecked(bit(p.Firing), 1)
	if len(p.EventIDs) > 16 {
		return dst, errStraight
	}
	w.WriteBitsUnchecked(uint64(len(p.EventIDs)), 5)
	bitio.WriteUints(&w, p.EventIDs, 32)
	w.WriteBytes(p.Payload[:])
	return w.Bytes(), nil
}

func straightReadPacket(data []byte, p *BenchPacket) error {
	var r bitio.Reader
	r.Reset(data)
	p.Sequence = r.ReadBits(64)
	if c0, c1, c2 := r.ReadBits(18), r.ReadBits(18), r.ReadBits(18); c0 > 204800 || c1 > 204800 || c2 > 204800 {
		return errStraight
	} else {
		p.Position = [3]float32{qdec(c0, -1024, 2048, 1.0/204800), qdec(c1, -1024, 2048, 1.0/204800), qdec(c2, -1024, 2048, 1.0/204800)}
	}
	if c0, c1, c2, c3 := r.ReadBits(15), r.ReadBits(15), r.ReadBits(15), r.ReadBits(15); c0 > 20000 || c1 > 20000 || c2 > 20000 || c3 > 20000 {
		return errStraight
	} else {
		p.Orientation = [4]float32{qdec(c0, -1, 2, 1.0/20000), qdec(c1, -1, 2, 1.0/20000), qdec(c2, -1, 2, 1.0/20000), qdec(c3, -1, 2, 1.0/20000)}
	}
	h := r.ReadBits(10)
	if h > 1000 {
		return errStraight
	}
	p.Health = int32(h)
	p.Weapon = uint32(r.ReadBits(4))
	a0 := r.ReadBits(8)
	a1 := r.ReadBits(8)
	a2 := r.ReadBits(8)
	a3 := r.ReadBits(8)
	a4 := r.ReadBits(8)
	a5 := r.ReadBits(8)
	a6 := r.ReadBits(8)
	a7 := r.ReadBits(8)
	if a0 > 200 || a1 > 200 || a2 > 200 || a3 > 200 || a4 > 200 || a5 > 200 || a6 > 200 || a7 > 200 {
		return errStraight
	}
	p.Ammo = [8]int32{int32(a0), int32(a1), int32(a2), int32(a3), int32(a4), int32(a5), int32(a6), int32(a7)}
	p.Firing = r.ReadBits(1) != 0
	n := r.ReadBits(5)
	if n > 16 {
		return errStraight
	}
	if err := r.Err(); err != nil {
		return err
	}
	if cap(p.EventIDs) >= int(n) {
		p.EventIDs = p.EventIDs[:n]
	} else {
		p.EventIDs = make([]uint32, n)
	}
	bitio.ReadUints(&r, p.EventIDs, 32)
	r.ReadBytes(p.Payload[:])
	if err := r.Err(); err != nil {
		return err
	}
	if r.BitsRemaining() >= 8 {
		return errTrailingHand
	}
	return nil
}

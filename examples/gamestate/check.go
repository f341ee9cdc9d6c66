package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
	"github.com/bitpack-go/bitpack/quant"
)

// tolerances bound how far a decoded value may be from the original. The
// zero value demands exact equality (the lossless formats).
type tolerances struct {
	pos, vel, gruntPos float64 // largest |decoded − original| per axis
	quatDeg            float64 // largest rotation between the two quaternions
}

// maxErrors records the largest differences seen.
type maxErrors struct {
	pos, vel, gruntPos, quatDeg float64
}

// exact checks that a lossless format gave back exactly the original.
func exact(orig, got *world.Snapshot, _ []byte) error {
	return compare(orig, got, tolerances{}, new(maxErrors))
}

// compare checks got against orig: lengths, integers and bools exactly,
// floats and quaternions within tol. It names the first field that differs.
func compare(orig, got *world.Snapshot, tol tolerances, seen *maxErrors) error {
	if orig.Tick != got.Tick {
		return fmt.Errorf("field Tick: got %d, want %d", got.Tick, orig.Tick)
	}
	if len(orig.Players) != len(got.Players) || len(orig.Grunts) != len(got.Grunts) {
		return fmt.Errorf("got %d players and %d grunts, want %d and %d",
			len(got.Players), len(got.Grunts), len(orig.Players), len(orig.Grunts))
	}
	for i := range orig.Players {
		a, b := &orig.Players[i], &got.Players[i]
		path := fmt.Sprintf("Players[%d]", i)
		switch {
		case a.ID != b.ID:
			return fmt.Errorf("%s.ID: got %d, want %d", path, b.ID, a.ID)
		case a.Health != b.Health:
			return fmt.Errorf("%s.Health: got %d, want %d", path, b.Health, a.Health)
		case (a.Weapon == nil) != (b.Weapon == nil):
			return fmt.Errorf("%s.Weapon: got %v, want %v", path, b.Weapon, a.Weapon)
		case a.Weapon != nil && *a.Weapon != *b.Weapon:
			return fmt.Errorf("%s.Weapon: got %+v, want %+v", path, *b.Weapon, *a.Weapon)
		}
		if err := near(path+".Pos", a.Pos, b.Pos, tol.pos, &seen.pos); err != nil {
			return err
		}
		if err := near(path+".Vel", a.Vel, b.Vel, tol.vel, &seen.vel); err != nil {
			return err
		}
		if tol.quatDeg == 0 {
			if a.Rot != b.Rot {
				return fmt.Errorf("%s.Rot: got %v, want %v", path, b.Rot, a.Rot)
			}
			continue
		}
		d := angleDeg(a.Rot, b.Rot)
		seen.quatDeg = max(seen.quatDeg, d)
		if d > tol.quatDeg {
			return fmt.Errorf("%s.Rot: got %v, want %v: %.3f° apart, more than %.3f°", path, b.Rot, a.Rot, d, tol.quatDeg)
		}
	}
	for i := range orig.Grunts {
		a, b := &orig.Grunts[i], &got.Grunts[i]
		path := fmt.Sprintf("Grunts[%d]", i)
		switch {
		case a.ID != b.ID:
			return fmt.Errorf("%s.ID: got %d, want %d", path, b.ID, a.ID)
		case a.Health != b.Health:
			return fmt.Errorf("%s.Health: got %d, want %d", path, b.Health, a.Health)
		}
		if err := near(path+".Pos", a.Pos, b.Pos, tol.gruntPos, &seen.gruntPos); err != nil {
			return err
		}
	}
	return nil
}

// near checks each axis of got against want within tol, recording the
// largest difference in *seen.
func near(path string, want, got world.Vec3, tol float64, seen *float64) error {
	for k, ab := range [3][2]float32{{want.X, got.X}, {want.Y, got.Y}, {want.Z, got.Z}} {
		d := math.Abs(float64(ab[0]) - float64(ab[1]))
		*seen = max(*seen, d)
		if !(d <= tol) {
			return fmt.Errorf("%s.%c: got %v, want %v (off by %g, tolerance %g)", path, "XYZ"[k], ab[1], ab[0], d, tol)
		}
	}
	return nil
}

// angleDeg is the angle of the rotation taking a to b, in degrees. Both are
// normalised first (a decoded quaternion is unit only to within rounding)
// and the half-angle is taken as atan2(|a−b|, |a+b|), which unlike acos of
// the dot product stays accurate for tiny angles.
func angleDeg(a, b world.Quat) float64 {
	qa := unit(a)
	qb := unit(b)
	dot := qa[0]*qb[0] + qa[1]*qb[1] + qa[2]*qb[2] + qa[3]*qb[3]
	if dot < 0 { // q and −q are the same rotation
		for i := range qb {
			qb[i] = -qb[i]
		}
	}
	var diff, sum float64
	for i := range qa {
		diff += (qa[i] - qb[i]) * (qa[i] - qb[i])
		sum += (qa[i] + qb[i]) * (qa[i] + qb[i])
	}
	return 4 * math.Atan2(math.Sqrt(diff), math.Sqrt(sum)) * 180 / math.Pi
}

func unit(q world.Quat) [4]float64 {
	v := [4]float64{float64(q.X), float64(q.Y), float64(q.Z), float64(q.W)}
	n := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3])
	for i := range v {
		v[i] /= n
	}
	return v
}

// bitpackChecker checks bitpack's round trip. Its tolerances come from the
// compiled layout, so they follow the tags if those change.
type bitpackChecker struct {
	codec *bitpack.Codec[world.Snapshot]
	tol   tolerances
	res   struct{ pos, vel, gruntPos float64 } // the tags' resolutions, for the report
	seen  maxErrors
	re    []byte // re-encoding buffer
}

func newBitpackChecker(c *bitpack.Codec[world.Snapshot]) (*bitpackChecker, error) {
	l := c.Layout()
	k := &bitpackChecker{codec: c}
	var err error
	if k.tol.pos, k.res.pos, err = vecTolerance(l, "Players", "Pos"); err != nil {
		return nil, err
	}
	if k.tol.vel, k.res.vel, err = vecTolerance(l, "Players", "Vel"); err != nil {
		return nil, err
	}
	if k.tol.gruntPos, k.res.gruntPos, err = vecTolerance(l, "Grunts", "Pos"); err != nil {
		return nil, err
	}
	rot := fieldAt(l.Root, "Players", "Rot")
	if rot == nil || rot.Kind != bitpack.KindQuat {
		return nil, errors.New("layout: Players[].Rot is not a quaternion")
	}
	// quant documents a worst case of 4·√3·m/M radians, M = 2^b - 2 steps
	// per component (0.55° at 9 bits); allow 1% on top for float32.
	m := float64(quant.QuatComponentMax)
	k.tol.quatDeg = 1.01 * 4 * math.Sqrt(3) * m / float64(uint64(1)<<rot.Bits-2) * 180 / math.Pi
	return k, nil
}

// fieldAt follows struct field names from root, stepping through slices,
// arrays and pointers to their elements.
func fieldAt(root *bitpack.Field, names ...string) *bitpack.Field {
	f := root
	for _, name := range names {
		for f != nil && f.Kind != bitpack.KindStruct {
			f = f.Elem
		}
		if f == nil {
			return nil
		}
		var next *bitpack.Field
		for _, c := range f.Fields {
			if c.Name == name {
				next = c
			}
		}
		f = next
	}
	return f
}

// vecTolerance returns how far a decoded axis of the Vec3 at path may be
// from the original: half the tag's resolution (a step is never wider than
// res), plus two float32 ulps at the range's largest magnitude for the
// rounding of the decode arithmetic.
func vecTolerance(l bitpack.Layout, path ...string) (tol, res float64, err error) {
	for _, axis := range []string{"X", "Y", "Z"} {
		f := fieldAt(l.Root, append(path[:len(path):len(path)], axis)...)
		if f == nil || f.Kind != bitpack.KindCompressedFloat {
			return 0, 0, fmt.Errorf("layout: %v.%s is not a compressed float", path, axis)
		}
		big := float32(max(math.Abs(f.FloatMin), math.Abs(f.FloatMax)))
		ulp := float64(math.Nextafter32(big, float32(math.Inf(1))) - big)
		tol = max(tol, f.Res/2+2*ulp)
		res = max(res, f.Res)
	}
	return tol, res, nil
}

// check verifies one decoded snapshot: values within their quantum, then
// canonical bytes: re-encoding must reproduce the packet exactly.
func (k *bitpackChecker) check(orig, got *world.Snapshot, packet []byte) error {
	if err := compare(orig, got, k.tol, &k.seen); err != nil {
		return err
	}
	re, err := k.codec.Append(k.re[:0], got)
	if err != nil {
		return fmt.Errorf("re-encoding the decoded snapshot: %w", err)
	}
	k.re = re
	if !bytes.Equal(re, packet) {
		i := 0
		for i < min(len(re), len(packet)) && re[i] == packet[i] {
			i++
		}
		return fmt.Errorf("re-encoding the decoded snapshot gives %d bytes that differ from the %d-byte packet at byte %d", len(re), len(packet), i)
	}
	return nil
}

// report prints the largest errors seen against what the tags allow.
func (k *bitpackChecker) report(out io.Writer) {
	fmt.Fprintf(out, "bitpack: integers and bools exact; every packet re-encodes to the same bytes.\n")
	// The tags' numbers were parsed as float32: print them that way.
	fmt.Fprintf(out, "  largest float error  player Pos %.4f m (res %g), Vel %.4f m/s (res %g), grunt Pos %.4f m (res %g)\n",
		k.seen.pos, float32(k.res.pos), k.seen.vel, float32(k.res.vel), k.seen.gruntPos, float32(k.res.gruntPos))
	fmt.Fprintf(out, "  quaternions          largest error %.3f° (limit %.3f°)\n", k.seen.quatDeg, k.tol.quatDeg)
	fmt.Fprintf(out, "json, gob, raw: every snapshot decoded exactly.\n")
}

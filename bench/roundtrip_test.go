package bench_test

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bitpack-go/bitpack/bench"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
)

// The world snapshot every snapshot benchmark encodes: New(1000, 1) after
// one second of play. The world's own tests pin its bitpack and raw sizes.
const (
	snapshotObjects = 1000
	snapshotSeed    = 1
	snapshotTicks   = 60
)

func worldSnapshot() *world.Snapshot {
	w := world.New(snapshotObjects, snapshotSeed)
	for range snapshotTicks {
		w.Step()
	}
	s := new(world.Snapshot)
	w.Snapshot(s)
	return s
}

// TestPacketRoundTrip checks every format once on the reference packet:
// what it decodes equals the original (quantized floats within half a
// quantum for bitpack), it decodes the same way into a value that already
// holds a decoded packet, and it refuses the packet cut short.
func TestPacketRoundTrip(t *testing.T) {
	p := bench.ReferencePacket()
	testRoundTrip(t, packetFormats(t, &p))
}

// TestSnapshotRoundTrip does the same on the world snapshot.
func TestSnapshotRoundTrip(t *testing.T) {
	testRoundTrip(t, snapshotFormats(t, worldSnapshot()))
}

func testRoundTrip(t *testing.T, formats []format) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			enc, err := f.encode()
			if err != nil {
				t.Fatal(err)
			}
			data := bytes.Clone(enc)
			for i := range 2 { // the second time into a used value
				if err := f.decode(data); err != nil {
					t.Fatalf("decode %d: %v", i, err)
				}
				if err := f.check(); err != nil {
					t.Fatalf("decode %d: %v", i, err)
				}
			}
			again, err := f.encode()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, data) {
				t.Errorf("second encoding differs from the first")
			}
			if err := f.decode(data[:len(data)-1]); err == nil {
				if why, ok := acceptsTruncated[f.name]; ok {
					t.Logf("known: decoded a packet missing its last byte: %s", why)
				} else {
					t.Errorf("decoded a packet missing its last byte")
				}
			}
			t.Logf("%d bytes", len(data))
		})
	}
}

// acceptsTruncated lists the formats known to decode some packets cut
// short without an error, and why.
var acceptsTruncated = map[string]string{
	// msgp.ReadExactBytes (v1.6.5), which generated code uses for [N]byte
	// fields, checks the bin header's length against N but not against the
	// bytes left, and copies what there is: the reference packet ends with
	// its 64-byte Payload, so a packet missing its last byte decodes, and
	// Payload[63] keeps whatever it held before.
	fMsgp: "msgp.ReadExactBytes does not check the input length",
}

// TestBitpackSizes pins the sizes the README quotes.
func TestBitpackSizes(t *testing.T) {
	p := bench.ReferencePacket()
	s := worldSnapshot()
	for _, c := range []struct {
		formats []format
		want    int
	}{
		{packetFormats(t, &p), 133},
		{snapshotFormats(t, s), 8666},
	} {
		enc, err := c.formats[0].encode()
		if err != nil {
			t.Fatal(err)
		}
		if c.formats[0].name != fBitpack || len(enc) != c.want {
			t.Errorf("%s: %d bytes, want %d", c.formats[0].name, len(enc), c.want)
		}
	}
}

// TestBitioHandMatchesBitpack checks that the hand-written bitio rows do
// bitpack's work: the same bytes.
func TestBitioHandMatchesBitpack(t *testing.T) {
	p := bench.ReferencePacket()
	for _, formats := range [][]format{packetFormats(t, &p), snapshotFormats(t, worldSnapshot())} {
		enc := map[string][]byte{}
		for _, f := range formats {
			if f.name == fBitpack || f.name == fBitpackAny || f.name == fBitioHand {
				b, err := f.encode()
				if err != nil {
					t.Fatal(err)
				}
				enc[f.name] = bytes.Clone(b)
			}
		}
		if !bytes.Equal(enc[fBitioHand], enc[fBitpack]) || !bytes.Equal(enc[fBitpackAny], enc[fBitpack]) {
			t.Errorf("bitpack, bitpack-any and bitio-hand differ: %d, %d and %d bytes", len(enc[fBitpack]), len(enc[fBitpackAny]), len(enc[fBitioHand]))
		}
	}
}

// diff reports whether want and got differ, and how.
func diff(want, got any) error {
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("decoded value differs (-want +got):\n%s", d)
	}
	return nil
}

// within reports an error unless got[i] is want[i] quantized with step res
// in [-bound, bound]: at most half a step away, plus the float32 rounding of
// the encoder's arithmetic, which works on values offset by the minimum and
// so rounds at the scale of the bound (a grunt at z = -1.1500063 is 1022.85
// above the minimum: float32 rounds that up to the next code, -1.1).
func within(field string, want, got []float32, res, bound float64) error {
	if len(want) != len(got) {
		return fmt.Errorf("%s: %d values, want %d", field, len(got), len(want))
	}
	for i := range want {
		w, g := float64(want[i]), float64(got[i])
		tol := res/2 + 4*math.Pow(2, -23)*math.Max(1, 2*bound)
		if math.Abs(w-g) > tol {
			return fmt.Errorf("%s[%d] = %v, want %v ± %v", field, i, g, w, tol)
		}
	}
	return nil
}

// checkQuantizedSnapshot compares a snapshot decoded by bitpack with the
// original: positions and velocities within half their quantum, rotations
// within the 9-bit smallest-three error (q and -q are the same rotation),
// everything else exact.
func checkQuantizedSnapshot(want, got *world.Snapshot) error {
	if got.Tick != want.Tick || len(got.Players) != len(want.Players) || len(got.Grunts) != len(want.Grunts) {
		return fmt.Errorf("tick %d, %d players, %d grunts; want %d, %d, %d",
			got.Tick, len(got.Players), len(got.Grunts), want.Tick, len(want.Players), len(want.Grunts))
	}
	vec := func(v world.Vec3) []float32 { return []float32{v.X, v.Y, v.Z} }
	for i := range want.Players {
		w, g := &want.Players[i], &got.Players[i]
		name := fmt.Sprintf("Players[%d]", i)
		if err := within(name+".Pos", vec(w.Pos), vec(g.Pos), 0.01, 1024); err != nil {
			return err
		}
		if err := within(name+".Vel", vec(w.Vel), vec(g.Vel), 0.01, 32); err != nil {
			return err
		}
		dot := float64(w.Rot.X*g.Rot.X + w.Rot.Y*g.Rot.Y + w.Rot.Z*g.Rot.Z + w.Rot.W*g.Rot.W)
		if math.Abs(dot) < 1-1e-4 {
			return fmt.Errorf("%s.Rot = %v, want %v (dot %v)", name, g.Rot, w.Rot, dot)
		}
		if g.ID != w.ID || g.Health != w.Health || !cmp.Equal(g.Weapon, w.Weapon) {
			return fmt.Errorf("%s = %+v, want %+v", name, *g, *w)
		}
	}
	for i := range want.Grunts {
		w, g := &want.Grunts[i], &got.Grunts[i]
		name := fmt.Sprintf("Grunts[%d]", i)
		if err := within(name+".Pos", vec(w.Pos), vec(g.Pos), 0.1, 1024); err != nil {
			return err
		}
		if g.ID != w.ID || g.Health != w.Health {
			return fmt.Errorf("%s = %+v, want %+v", name, *g, *w)
		}
	}
	return nil
}

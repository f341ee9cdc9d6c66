package world_test

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
)

func newCodec(t *testing.T) *bitpack.Codec[world.Snapshot] {
	t.Helper()
	c, err := bitpack.NewCodec[world.Snapshot]()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPinnedSize pins the bitpack size of one snapshot. Every field of the
// snapshot has a fixed width on the wire, so the size depends only on how
// many players are armed and how many grunts are alive — integer state,
// drawn from the events stream alone — and is the same on every platform.
// (The bytes themselves are not pinned: they carry the positions, whose
// float64 motion may round differently on CPUs that fuse multiply-adds.)
//
// These numbers must never change unless the tags in types.go or the
// simulation's discrete rules change; the bench module and the README quote
// packets of this world. If you changed neither, a change here is a bug.
func TestPinnedSize(t *testing.T) {
	const (
		objects, seed, ticks = 1000, 1, 60
		wantBitpack          = 8666  // bytes
		wantRaw              = 17580 // bytes; the raw format of raw.go
	)
	c := newCodec(t)
	w := world.New(objects, seed)
	for range ticks {
		w.Step()
	}
	var s world.Snapshot
	w.Snapshot(&s)
	data, err := c.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != wantBitpack {
		t.Errorf("bitpack snapshot of New(%d, %d) after %d ticks: %d bytes, pinned %d", objects, seed, ticks, len(data), wantBitpack)
	}
	if raw := world.AppendRaw(nil, &s); len(raw) != wantRaw {
		t.Errorf("raw snapshot: %d bytes, pinned %d", len(raw), wantRaw)
	}

	// Where the number comes from: Tick 32 bits, a 9-bit player count, 138
	// bits per player plus 8 for a weapon, a 12-bit grunt count and 63 bits
	// per living grunt, rounded up to whole bytes.
	bits := 32 + 9 + 12 + 63*len(s.Grunts)
	for _, p := range s.Players {
		bits += 138
		if p.Weapon != nil {
			bits += 8
		}
	}
	if (bits+7)/8 != len(data) {
		t.Errorf("%d players, %d grunts: %d bits = %d bytes, but the packet has %d", len(s.Players), len(s.Grunts), bits, (bits+7)/8, len(data))
	}
}

// TestRoundTrip runs a small world and checks that every snapshot survives
// bitpack and re-encodes to the same bytes, and that the raw format
// round-trips exactly.
func TestRoundTrip(t *testing.T) {
	c := newCodec(t)
	w := world.New(300, 3)
	var s, got, raw world.Snapshot
	var buf, re, rawBuf []byte
	for range 30 {
		w.Step()
		w.Snapshot(&s)
		var err error
		if buf, err = c.Append(buf[:0], &s); err != nil {
			t.Fatalf("tick %d: %v", s.Tick, err)
		}
		if err := c.Unmarshal(buf, &got); err != nil {
			t.Fatalf("tick %d: %v", s.Tick, err)
		}
		if len(got.Players) != len(s.Players) || len(got.Grunts) != len(s.Grunts) || got.Tick != s.Tick {
			t.Fatalf("tick %d: decoded %d players, %d grunts, tick %d", s.Tick, len(got.Players), len(got.Grunts), got.Tick)
		}
		if re, err = c.Append(re[:0], &got); err != nil {
			t.Fatalf("tick %d: re-encode: %v", s.Tick, err)
		}
		if !bytes.Equal(re, buf) {
			t.Fatalf("tick %d: re-encoding the decoded snapshot changed the bytes", s.Tick)
		}

		rawBuf = world.AppendRaw(rawBuf[:0], &s)
		if err := world.DecodeRaw(rawBuf, &raw); err != nil {
			t.Fatalf("tick %d: raw: %v", s.Tick, err)
		}
		if !reflect.DeepEqual(raw, s) {
			t.Fatalf("tick %d: raw round trip differs", s.Tick)
		}
	}
}

// TestDeterministic: the same seed gives the same snapshots; another seed
// does not.
func TestDeterministic(t *testing.T) {
	a, b, other := world.New(200, 7), world.New(200, 7), world.New(200, 8)
	var sa, sb, so world.Snapshot
	for range 30 {
		a.Step()
		b.Step()
		other.Step()
		a.Snapshot(&sa)
		b.Snapshot(&sb)
		other.Snapshot(&so)
		if !reflect.DeepEqual(sa, sb) {
			t.Fatalf("tick %d: two worlds with the same seed differ", sa.Tick)
		}
	}
	if reflect.DeepEqual(sa, so) {
		t.Fatal("worlds with different seeds are identical")
	}
}

// TestLongRunStaysInTags runs long enough for deaths, respawns, reloads and
// dropped weapons, and checks that bitpack accepts every snapshot (it
// refuses values outside the tags) and that quaternions are unit, which
// bitpack cannot check. It also checks the run reached the states whose
// encodings differ (armed and unarmed, dead players, absent grunts), so the
// round-trip tests cover them.
func TestLongRunStaysInTags(t *testing.T) {
	c := newCodec(t)
	w := world.New(100, 11)
	np, ng := w.Counts()
	var s world.Snapshot
	var buf []byte
	var armed, unarmed, dead, reloading, missing int
	for range 3000 {
		w.Step()
		w.Snapshot(&s)
		var err error
		if buf, err = c.Append(buf[:0], &s); err != nil {
			t.Fatal(err)
		}
		for _, p := range s.Players {
			q := p.Rot
			if n := math.Sqrt(float64(q.X*q.X + q.Y*q.Y + q.Z*q.Z + q.W*q.W)); math.Abs(n-1) > 1e-6 {
				t.Fatalf("tick %d: player %d: |Rot| = %v", s.Tick, p.ID, n)
			}
			switch {
			case p.Health == 0:
				dead++
			case p.Weapon == nil:
				unarmed++
			case !p.Weapon.Chambered:
				reloading++
			default:
				armed++
			}
		}
		if len(s.Players) != np {
			t.Fatalf("tick %d: %d players, want %d", s.Tick, len(s.Players), np)
		}
		missing += ng - len(s.Grunts)
	}
	if armed == 0 || unarmed == 0 || dead == 0 || reloading == 0 || missing == 0 {
		t.Errorf("states not reached: armed %d, unarmed %d, dead %d, reloading %d, dead grunts %d",
			armed, unarmed, dead, reloading, missing)
	}
}

// TestDecodeRawTruncated: every strict prefix of a raw packet, and the
// packet with a byte appended, is refused.
func TestDecodeRawTruncated(t *testing.T) {
	w := world.New(20, 5)
	w.Step()
	var s, got world.Snapshot
	w.Snapshot(&s)
	data := world.AppendRaw(nil, &s)
	for n := range len(data) {
		if err := world.DecodeRaw(data[:n], &got); err == nil {
			t.Fatalf("DecodeRaw accepted %d of %d bytes", n, len(data))
		}
	}
	if err := world.DecodeRaw(append(data, 0), &got); err == nil {
		t.Fatal("DecodeRaw accepted a trailing byte")
	}
}

func TestNewPanicsOnBadCount(t *testing.T) {
	for _, n := range []int{0, -1, world.MaxObjects + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%d) did not panic", n)
				}
			}()
			world.New(n, 1)
		}()
	}
	// The largest world fits the snapshot's maxlen tags.
	w := world.New(world.MaxObjects, 1)
	np, ng := w.Counts()
	if np > world.MaxPlayers || ng > world.MaxGrunts {
		t.Fatalf("New(MaxObjects): %d players, %d grunts", np, ng)
	}
}

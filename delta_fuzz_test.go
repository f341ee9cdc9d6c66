package bitpack_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fzDelta has a field of every kind a delta handles: numbers in both
// forms, a quaternion, strings and bytes, arrays the compiler unrolls and
// one it loops over, slices of structs, pointers, sparse arrays and
// slices, unions and a hook.
type fzDelta struct {
	Ping  deltaPing
	Lobby rtLobby
	Log   rtMatchLog
	Grid  [40]uint8 `bits:"range=0..200"`
	Small [3]deltaVec
	Blob  []byte `bits:"maxlen=8"`
	Key   [4]byte
	Count counter
	Ammo  map[uint8]uint16     `bits:"maxlen=4,range=0..1000"`
	Names map[string]*deltaVec `bits:"maxlen=3,key.maxlen=4"`
}

// fzDeltaBase is the fixed base FuzzDelta decodes against.
func fzDeltaBase() *fzDelta {
	host := Player{Health: 500, Pos: Vec3{1, 2, 3}, Name: "host"}
	motd := "welcome"
	wind := 12.5
	b := &fzDelta{
		Ping: deltaPing{731, true, 0.105},
		Lobby: rtLobby{ID: 77, Name: "lobby", Host: &host, Players: []Player{host, {Health: 3, Name: "x"}},
			Map: [4]byte{1, 2, 3, 4}, Spawn: Vec3{10, -10, 0.5}, Facing: Quat{0, 0, 0, 1}, Wind: &wind,
			Scores: []int16{-500, 0, 499}, Motd: &motd, Ranked: true},
		Log:   rtMatchLog{Tick: 9, First: rtKill{Killer: 1, Victim: 2}, Events: []rtEvent{&rtSay{From: 3, Text: "gg"}, rtSpawn{Who: 4}}},
		Blob:  []byte{9, 8, 7},
		Key:   [4]byte{0xde, 0xad, 0xbe, 0xef},
		Count: counter{5},
		Ammo:  map[uint8]uint16{1: 10, 5: 50, 9: 90},
		Names: map[string]*deltaVec{"a": {1, 2}, "bb": nil},
	}
	b.Log.Alive[3] = &Player{Health: 1, Name: "a"}
	b.Log.Alive[15] = &Player{Health: 2}
	b.Log.Flags = []*rtWheel{nil, {Angle: 0.5, Grip: 3}}
	for i := range b.Grid {
		b.Grid[i] = uint8(i * 5)
	}
	b.Small[1] = deltaVec{-8, 7}
	return b
}

// fzDeltaSeeds returns values whose deltas against the base seed the
// corpus: a change in each part.
func fzDeltaSeeds() []*fzDelta {
	var out []*fzDelta
	edit := func(f func(v *fzDelta)) {
		v := fzDeltaBase()
		f(v)
		out = append(out, v)
	}
	edit(func(v *fzDelta) {})
	edit(func(v *fzDelta) { v.Ping.Health, v.Ping.Alive = 740, false })
	edit(func(v *fzDelta) { v.Lobby.Host = nil; v.Lobby.Players = append(v.Lobby.Players, Player{Name: "new"}) })
	edit(func(v *fzDelta) { v.Lobby.Host.Pos.X = 9; v.Lobby.Facing = Quat{0, 0, 0.70710677, 0.70710677} })
	edit(func(v *fzDelta) { v.Log.First = &rtSay{Text: "hi"}; v.Log.Events = v.Log.Events[:1] })
	edit(func(v *fzDelta) {
		v.Log.Alive[3] = nil
		v.Log.Alive[4] = &Player{Name: "b"}
		v.Log.Alive[15].Health = 3
	})
	edit(func(v *fzDelta) { v.Log.Flags = append(v.Log.Flags, nil, &rtWheel{Flat: true}) })
	edit(func(v *fzDelta) { v.Grid[0], v.Grid[39] = 200, 0; v.Small[2].Y = 3 })
	edit(func(v *fzDelta) { v.Blob = nil; v.Key[0] = 0; v.Count.n = 2 })
	edit(func(v *fzDelta) { v.Ammo = map[uint8]uint16{1: 10, 5: 53, 7: 70} })
	edit(func(v *fzDelta) { v.Names = map[string]*deltaVec{"a": {1, 3}, "bb": {0, 0}, "ccc": nil} })
	return out
}

// FuzzDelta: UnmarshalDelta of hostile bytes against a fixed base. It
// fails the input on a panic; an error that is not a *bitpack.Error
// wrapping one of the sentinels; a refused delta that changed the target,
// whether the target is another value or the base itself; an accepted
// delta that does not re-encode, against the base, to its own bits; and
// a decode into the base itself that differs from one into another value.
func FuzzDelta(f *testing.F) {
	base := fzDeltaBase()
	for _, v := range fzDeltaSeeds() {
		d, err := bitpack.AppendDelta(nil, base, v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(d)
		f.Add(d[:len(d)/2])
	}
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := checkDelta(base, data); err != nil {
			t.Fatal(err)
		}
	})
}

var deltaSentinels = []error{bitpack.ErrOverflow, bitpack.ErrRange, bitpack.ErrPadding, bitpack.ErrInvalidString,
	bitpack.ErrTrailing, bitpack.ErrDepth, bitpack.ErrCheck}

// checkDelta runs one FuzzDelta input.
func checkDelta(base *fzDelta, data []byte) error {
	target, pristine := fzDeltaBase(), fzDeltaBase()
	target.Ping.Health = 1 // another value than the base
	pristine.Ping.Health = 1
	err := bitpack.UnmarshalDelta(data, base, target)
	if !reflect.DeepEqual(base, fzDeltaBase()) {
		return fmt.Errorf("delta %x changed the base it was decoded against (%v)", data, err)
	}
	self := fzDeltaBase()
	errSelf := bitpack.UnmarshalDelta(data, self, self)
	if (err == nil) != (errSelf == nil) {
		return fmt.Errorf("delta %x: into another value: %v; into the base itself: %v", data, err, errSelf)
	}
	if err != nil {
		var be *bitpack.Error
		if !errors.As(err, &be) {
			return fmt.Errorf("delta %x: error %T is not a *bitpack.Error: %v", data, err, err)
		}
		wraps := false
		for _, s := range deltaSentinels {
			wraps = wraps || errors.Is(err, s)
		}
		if !wraps {
			return fmt.Errorf("delta %x: error wraps no sentinel: %v", data, err)
		}
		if !reflect.DeepEqual(target, pristine) {
			return fmt.Errorf("delta %x was refused (%v) but changed the target", data, err)
		}
		if !reflect.DeepEqual(self, base) {
			return fmt.Errorf("delta %x was refused (%v) but changed the base it was decoded into", data, err)
		}
		return nil
	}
	again, n, err := bitpack.DeltaBits(base, target)
	if err != nil {
		return fmt.Errorf("delta %x decodes to a value AppendDelta refuses: %v", data, err)
	}
	if !sameBits(again, data, n) {
		return fmt.Errorf("delta %x decodes to a value whose delta is %x", data, again)
	}
	// (nil and empty slices are the same on the wire: which one a decode
	// leaves depends on what the target held)
	if opts := []cmp.Option{cmp.AllowUnexported(counter{}), cmpopts.EquateEmpty()}; !cmp.Equal(self, target, opts...) {
		return fmt.Errorf("delta %x: decoding into the base itself differs from decoding into another value (-self +other):\n%s", data,
			cmp.Diff(self, target, opts...))
	}
	return nil
}

// sameBits reports whether a and b are the same length and the same in
// their first n bits (the rest of the last byte is padding).
func sameBits(a, b []byte, n int) bool {
	if len(a) != len(b) || len(a) == 0 {
		return len(a) == len(b)
	}
	last := len(a) - 1
	mask := byte(0xff)
	if r := n - 8*last; r > 0 && r < 8 {
		mask = 1<<r - 1
	}
	return bytes.Equal(a[:last], b[:last]) && a[last]&mask == b[last]&mask
}

package bitpack_test

import (
	"testing"

	"github.com/bitpack-go/bitpack"
)

// A world as a snapshot stream's views hold it (issue 28): a sparse array
// of 1,000 slots, a third of them full, and a map of 100 entries.
type (
	viewMob struct {
		HP  int32 `bits:"range=0..1000"`
		Pos Vec3  `bits:"float,min=-1024,max=1024,res=0.01"`
	}
	viewItem struct {
		Count uint8
		Owner uint16 `bits:"range=0..999"`
	}
	viewWorld struct {
		Tick  uint32
		Mobs  [1000]*viewMob      `bits:"sparse"`
		Items map[uint16]viewItem `bits:"maxlen=100"`
	}
)

// viewWorlds returns n ticks of a world whose mobs move and whose items
// change hands; tick n is tick 0 again, so the deltas can be cycled.
func viewWorlds(n int) []*viewWorld {
	out := make([]*viewWorld, n)
	for k := range out {
		w := &viewWorld{Tick: uint32(k), Items: map[uint16]viewItem{}}
		for i := 0; i < 1000; i += 3 {
			w.Mobs[i] = &viewMob{HP: int32(i % 1000), Pos: Vec3{float32(i), float32((i*k)%100) * 0.25, 1}}
		}
		for i := range 100 {
			w.Items[uint16(i*5)] = viewItem{Count: uint8(i), Owner: uint16((i + k) % 7 * 100)}
		}
		out[k] = w
	}
	return out
}

// TestDeltaRecycledViewAllocs: decoding each tick's delta into a view the
// stream no longer needs (an older one, of the same shape), or into the
// base itself, allocates nothing once warm — what a snapshot Receiver
// that recycles its views needs.
func TestDeltaRecycledViewAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates; the plain test run checks this")
	}
	c, err := bitpack.NewCodec[viewWorld]()
	if err != nil {
		t.Fatal(err)
	}
	const ticks, history = 6, 4
	worlds := viewWorlds(ticks)
	deltas := make([][]byte, ticks) // deltas[k]: from tick k-1 to tick k
	for k := range deltas {
		if deltas[k], err = c.AppendDelta(nil, worlds[(k+ticks-1)%ticks], worlds[k]); err != nil {
			t.Fatal(err)
		}
	}
	views := make([]viewWorld, history)
	for i := range views {
		if err := c.UnmarshalDelta([]byte{0}, worlds[0], &views[i]); err != nil {
			t.Fatal(err)
		}
	}
	// views[k%history] holds tick k; tick 0 is in every view to start.
	k := 1
	recycle := func() {
		if err = c.UnmarshalDelta(deltas[k%ticks], &views[(k-1)%history], &views[k%history]); err != nil {
			t.Fatal(err)
		}
		k++
	}
	var self viewWorld
	if err := c.UnmarshalDelta([]byte{0}, worlds[0], &self); err != nil {
		t.Fatal(err)
	}
	j := 1
	inPlace := func() {
		if err = c.UnmarshalDelta(deltas[j%ticks], &self, &self); err != nil {
			t.Fatal(err)
		}
		j++
	}
	for _, tc := range []struct {
		name string
		fn   func()
	}{{"into a recycled view", recycle}, {"into the base itself", inPlace}} {
		for range 2 * ticks * history { // warm up
			tc.fn()
		}
		if allocs := testing.AllocsPerRun(100, tc.fn); allocs != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tc.name, allocs)
		}
	}
	for i := range views { // and the views hold the ticks they should
		want, err := bitpack.Marshal(worlds[((k-1-i)%ticks+ticks)%ticks])
		if err != nil {
			t.Fatal(err)
		}
		got, err := bitpack.Marshal(&views[(k-1-i)%history])
		if err != nil || string(got) != string(want) {
			t.Errorf("view of tick %d: %x (%v), want %x", k-1-i, got, err, want)
		}
	}
	want, _ := bitpack.Marshal(worlds[(j-1)%ticks])
	if got, err := bitpack.Marshal(&self); err != nil || string(got) != string(want) {
		t.Errorf("the world decoded in place: %x (%v), want %x", got, err, want)
	}
}

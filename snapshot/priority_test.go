package snapshot_test

import (
	"bytes"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/snapshot"
)

// dot is an entity of the priority tests: it moves every tick.
type dot struct {
	X uint16 `bits:"range=0..4095"`
	Y uint16 `bits:"range=0..4095"`
}

type dots struct {
	Dots [200]*dot `bits:"sparse"`
}

// moveDots moves every dot by a few units (always a change on the wire).
func moveDots(w *dots, tick int) {
	for i, d := range w.Dots {
		d.X = uint16((int(d.X) + 1 + (i+tick)%3) % 4096)
		d.Y = uint16((int(d.Y) + 2) % 4096)
	}
}

// sends runs a lossless stream of dots that all move every tick, each
// packet acknowledged before the next, and returns for each dot the ticks
// at which a packet carried it (its value in the client's view is then
// the world's of that tick: it moved since any other).
func sends(t *testing.T, budget int, priority func(*dots, snapshot.Entity) float64, ticks int) [][]int {
	t.Helper()
	opts := snapshot.Options[dots]{Budget: budget, Entities: []string{"Dots"}, Priority: priority, Stream: 8}
	s, err := snapshot.NewSender(opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := snapshot.NewReceiver(opts)
	if err != nil {
		t.Fatal(err)
	}
	var w, v dots
	for i := range w.Dots {
		w.Dots[i] = &dot{X: uint16(i * 13), Y: uint16(i * 7)}
	}
	for range 60 { // the world arrives, at rest
		pkt, err := s.Append(nil, &w)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Read(pkt, &v); err != nil {
			t.Fatal(err)
		}
		s.Ack(r.Ack())
	}
	at := make([][]int, len(w.Dots))
	for tick := range ticks {
		moveDots(&w, tick)
		pkt, err := s.Append(nil, &w)
		if err != nil {
			t.Fatal(err)
		}
		if budget > 0 && len(pkt) > budget {
			t.Fatalf("a packet of %d bytes, Budget %d", len(pkt), budget)
		}
		if _, err := r.Read(pkt, &v); err != nil {
			t.Fatal(err)
		}
		s.Ack(r.Ack())
		for i, d := range v.Dots {
			if *d == *w.Dots[i] {
				at[i] = append(at[i], tick)
			}
		}
	}
	return at
}

// quarterBudget returns a budget that fits a quarter of the dots' changes:
// the header and a quarter of the delta of all of them.
func quarterBudget(t *testing.T) int {
	var a, b dots
	for i := range a.Dots {
		a.Dots[i] = &dot{X: uint16(i * 13), Y: uint16(i * 7)}
		c := *a.Dots[i]
		b.Dots[i] = &c
	}
	moveDots(&b, 0)
	c, err := bitpack.NewCodec[dots]()
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.AppendDelta(nil, &a, &b)
	if err != nil {
		t.Fatal(err)
	}
	return 7 + len(d)/4
}

// TestPriorityAccumulator checks item 4 of issue 28: with equal priorities
// and a budget that fits a quarter of the entities that change every
// tick, none waits more than 2×4+1 ticks between sends; entities of
// priority 4 go about four times as often as those of priority 1 (between
// 2× and 8×).
func TestPriorityAccumulator(t *testing.T) {
	budget := quarterBudget(t)
	const ticks = 400
	at := sends(t, budget, nil, ticks)
	worst := 0
	for i, ts := range at {
		prev := -1
		for _, tick := range append(ts, ticks) {
			if gap := tick - prev; gap > worst {
				worst = gap
				if gap > 9 {
					t.Fatalf("dot %d waited %d ticks (sent at %v)", i, gap, ts)
				}
			}
			prev = tick
		}
	}
	t.Logf("Budget %d: the longest wait %d ticks", budget, worst)

	prio := func(_ *dots, e snapshot.Entity) float64 {
		if e.Key%2 == 0 {
			return 4
		}
		return 1
	}
	at = sends(t, budget, prio, ticks)
	var n4, n1 int
	for i, ts := range at {
		if i%2 == 0 {
			n4 += len(ts)
		} else {
			n1 += len(ts)
		}
	}
	ratio := float64(n4) / float64(max(n1, 1))
	t.Logf("priority 4: %d sends, priority 1: %d sends: %.2fx", n4, n1, ratio)
	if ratio < 2 || ratio > 8 {
		t.Fatalf("priority 4 sent %.2fx as often as priority 1, want 2x to 8x", ratio)
	}
}

// TestRelevanceEnters checks item 5 of issue 28: an entity that becomes
// relevant appears with its current value within the convergence bound
// of item 3, 2·⌈D/(Budget−16)⌉+8 packets, D the delta from the client's
// newest view; one that leaves relevance is gone from the next view.
func TestRelevanceEnters(t *testing.T) {
	const budget = 120
	visible := 50 // dots [0, visible) are relevant
	rel := func(_ *dots, e snapshot.Entity) bool { return int(e.Key) < visible }
	opts := snapshot.Options[dots]{Budget: budget, Entities: []string{"Dots"}, Relevant: rel, Stream: 9}
	s, err := snapshot.NewSender(opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := snapshot.NewReceiver(opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := bitpack.NewCodec[dots]()
	if err != nil {
		t.Fatal(err)
	}
	var w, v dots
	for i := range w.Dots {
		w.Dots[i] = &dot{X: uint16(i * 13), Y: uint16(i * 7)}
	}
	step := func() {
		pkt, err := s.Append(nil, &w)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Read(pkt, &v); err != nil {
			t.Fatal(err)
		}
		s.Ack(r.Ack())
		for i, d := range v.Dots {
			if d != nil && i >= visible {
				t.Fatalf("the view holds dot %d; %d are relevant", i, visible)
			}
		}
	}
	want := func() *dots {
		var f dots
		for i := range visible {
			f.Dots[i] = w.Dots[i]
		}
		return &f
	}
	for range 40 {
		step()
	}
	for _, n := range []int{120, 200, 10, 150} {
		visible = n
		d, err := c.AppendDelta(nil, &v, want())
		if err != nil {
			t.Fatal(err)
		}
		bound := 2*((len(d)+budget-16-1)/(budget-16)) + 8
		took := 0
		for {
			step()
			took++
			a, _ := c.Marshal(&v)
			b, _ := c.Marshal(want())
			if bytes.Equal(a, b) {
				break
			}
			if took > bound {
				t.Fatalf("%d dots relevant: the view is not the world after %d packets (bound %d)", n, took, bound)
			}
		}
		t.Logf("%d dots relevant: the view caught up in %d packets (bound %d, D %d bytes)", n, took, bound, len(d))
	}
}

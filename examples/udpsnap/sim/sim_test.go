package sim

import (
	"reflect"
	"testing"
)

// TestMoving: after SetMoving(f), exactly round(f·n) entities change
// between two ticks, the others stay bit for bit as they were; the same
// seed gives the same snapshots.
func TestMoving(t *testing.T) {
	for _, f := range []float64{0, 0.01, 0.1, 0.5} {
		w := New(500, 30, 1)
		w.SetMoving(f)
		var a, b Snapshot
		w.Snapshot(&a)
		w.Step()
		w.Snapshot(&b)
		changed := 0
		for i := range a.Entities {
			if a.Entities[i] != b.Entities[i] {
				changed++
			}
		}
		if want := int(f*500 + 0.5); changed != want {
			t.Errorf("moving %v: %d entities changed, want %d", f, changed, want)
		}
		w2 := New(500, 30, 1)
		w2.SetMoving(f)
		w2.Step()
		var c Snapshot
		w2.Snapshot(&c)
		if !reflect.DeepEqual(b, c) {
			t.Errorf("moving %v: the same seed gave another world", f)
		}
	}
}

// TestScene: a Scene holds the Snapshot's entities, one per slot in order,
// the slots past them empty; filling it again reuses its entities.
func TestScene(t *testing.T) {
	w := New(300, 30, 2)
	w.SetMoving(0.5)
	w.Step()
	var snap Snapshot
	var sc Scene
	w.Snapshot(&snap)
	w.Scene(&sc)
	for i, e := range sc.Entities {
		switch {
		case i < len(snap.Entities) && (e == nil || *e != snap.Entities[i]):
			t.Fatalf("slot %d: %v, want %v", i, e, snap.Entities[i])
		case i >= len(snap.Entities) && e != nil:
			t.Fatalf("slot %d past the %d entities holds %v", i, len(snap.Entities), e)
		}
	}
	first := sc.Entities[0]
	w.Step()
	w.Scene(&sc)
	if sc.Entities[0] != first {
		t.Error("Scene replaced an entity it could reuse")
	}
}

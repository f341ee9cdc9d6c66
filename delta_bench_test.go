package bitpack_test

import (
	"fmt"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
	"github.com/bitpack-go/bitpack/examples/udpsnap/sim"
)

// BenchmarkDelta: AppendDelta and UnmarshalDelta of a world snapshot
// against the previous tick's, each beside Append and Unmarshal of the
// whole snapshot in the same run, so that the ratios the performance
// target is stated in come out of one run (docs/performance.md has the
// command). "gamestate" is examples/gamestate's world of 1000 objects, all
// of which move every tick (deltas' worst case); "moving1" to "moving50"
// are examples/udpsnap's world of 500 entities with 1%, 10% and 50% of
// them moving.
func BenchmarkDelta(b *testing.B) {
	gs, err := bitpack.NewCodec[world.Snapshot]()
	if err != nil {
		b.Fatal(err)
	}
	w := world.New(1000, 1)
	for range 60 {
		w.Step()
	}
	base, next := new(world.Snapshot), new(world.Snapshot)
	w.Snapshot(base)
	w.Step()
	w.Snapshot(next)
	benchDelta(b, "gamestate", gs, base, next)

	sc, err := bitpack.NewCodec[sim.Snapshot]()
	if err != nil {
		b.Fatal(err)
	}
	for _, pct := range []int{1, 10, 50} {
		sw := sim.New(500, 30, 1)
		sw.SetMoving(float64(pct) / 100)
		sw.Step()
		base, next := new(sim.Snapshot), new(sim.Snapshot)
		sw.Snapshot(base)
		sw.Step()
		sw.Snapshot(next)
		benchDelta(b, fmt.Sprintf("moving%d", pct), sc, base, next)
	}
}

// benchDelta runs the four benchmarks of one pair: write and read, whole
// (full) and as a delta against base. Both are quantized, as a server
// that keeps the snapshots it sends holds them (and its clients hold
// them): a field that did not move is then the same in memory too, which
// AppendDelta tells without coding it.
func benchDelta[T any](b *testing.B, name string, c *bitpack.Codec[T], base, next *T) {
	if err := c.Quantize(base); err != nil {
		b.Fatal(err)
	}
	if err := c.Quantize(next); err != nil {
		b.Fatal(err)
	}
	full, err := c.Marshal(next)
	if err != nil {
		b.Fatal(err)
	}
	delta, err := c.AppendDelta(nil, base, next)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 2*len(full))
	var got T
	if err := c.UnmarshalDelta(delta, base, &got); err != nil { // sizes got once
		b.Fatal(err)
	}
	b.Run(name+"/write/full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = c.Append(buf[:0], next)
		}
		b.ReportMetric(float64(len(full)), "bytes")
	})
	b.Run(name+"/write/delta", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = c.AppendDelta(buf[:0], base, next)
		}
		b.ReportMetric(float64(len(delta)), "bytes")
	})
	b.Run(name+"/read/full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Unmarshal(full, &got); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(name+"/read/delta", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := c.UnmarshalDelta(delta, base, &got); err != nil {
				b.Fatal(err)
			}
		}
	})
}

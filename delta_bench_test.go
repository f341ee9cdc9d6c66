package bitpack_test

import (
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
)

// deltaPair returns two consecutive snapshots of the example world (1000
// objects, after warmUp ticks): the base a client acknowledged and the
// next one.
func deltaPair(warmUp int) (base, next *world.Snapshot) {
	w := world.New(1000, 1)
	for range warmUp {
		w.Step()
	}
	base, next = new(world.Snapshot), new(world.Snapshot)
	w.Snapshot(base)
	w.Step()
	w.Snapshot(next)
	return base, next
}

// BenchmarkDelta: AppendDelta and UnmarshalDelta of the example world's
// snapshot against the previous tick's, each beside Append and Unmarshal
// of the whole snapshot, so that benchratio -base full gives the ratios
// the performance target is stated in (docs/performance.md).
func BenchmarkDelta(b *testing.B) {
	c, err := bitpack.NewCodec[world.Snapshot]()
	if err != nil {
		b.Fatal(err)
	}
	base, next := deltaPair(60)
	if err := c.Quantize(base); err != nil {
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
	var got world.Snapshot
	if err := c.UnmarshalDelta(delta, base, &got); err != nil {
		b.Fatal(err)
	}
	b.Run("write/full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = c.Append(buf[:0], next)
		}
		b.ReportMetric(float64(len(full)), "bytes")
	})
	b.Run("write/delta", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = c.AppendDelta(buf[:0], base, next)
		}
		b.ReportMetric(float64(len(delta)), "bytes")
	})
	b.Run("read/full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Unmarshal(full, &got); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read/delta", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := c.UnmarshalDelta(delta, base, &got); err != nil {
				b.Fatal(err)
			}
		}
	})
}

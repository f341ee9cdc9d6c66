package bench_test

import (
	"bytes"
	"testing"

	"github.com/bitpack-go/bitpack/bench"
	"github.com/bitpack-go/bitpack/bench/internal/msgptypes"
)

// The benchmarks are named Benchmark<Packet|Snapshot>/<encode|decode>/<format>
// so that the root module's ratio tool, grouping by the name up to the last
// '/', divides every format by bitpack's Codec in each group:
//
//	go test -run '^$' -bench . -count 10 | (cd .. && go run ./internal/benchratio -base bitpack)
//
// Every benchmark reports the encoded size as the "bytes" metric, and
// SetBytes with it, so MB/s is the rate of wire bytes produced or consumed.

// BenchmarkPacket measures the reference packet
// (docs/wire.md#the-reference-packet).
func BenchmarkPacket(b *testing.B) {
	p := bench.ReferencePacket()
	runFormats(b, packetFormats(b, &p))
}

// BenchmarkSnapshot measures a snapshot of the gamestate world (1000
// objects, seed 1, after 60 ticks).
func BenchmarkSnapshot(b *testing.B) {
	runFormats(b, snapshotFormats(b, worldSnapshot()))
}

func runFormats(b *testing.B, formats []format) {
	for _, f := range formats {
		b.Run("encode/"+f.name, func(b *testing.B) {
			enc, err := f.encode() // warm up: buffers, caches, gob's stream
			if err != nil {
				b.Fatal(err)
			}
			size := len(enc)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.encode(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size), "bytes")
		})
	}
	for _, f := range formats {
		b.Run("decode/"+f.name, func(b *testing.B) {
			enc, err := f.encode()
			if err != nil {
				b.Fatal(err)
			}
			data := bytes.Clone(enc)
			if err := f.decode(data); err != nil { // warm up, and fill the reused value
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := f.decode(data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data)), "bytes")
		})
	}
}

// BenchmarkSnapshotConvert measures what the code-generating formats leave
// out of BenchmarkSnapshot: filling their generated types from the game's
// own world.Snapshot, which a game that does not keep its state in those
// types pays on every send (and the reverse on every receive).
func BenchmarkSnapshotConvert(b *testing.B) {
	s := worldSnapshot()
	b.Run("protobuf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = bench.SnapshotToProto(s)
		}
	})
	b.Run("msgp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = msgptypes.FromWorld(s)
		}
	})
}

package bitio_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// TestQuatRoundTrip: golden bits and decoded values, computed by hand from
// quant's documented algorithm (float32 at every step; M = 1022 at 10
// bits, code 511 is 0).
func TestQuatRoundTrip(t *testing.T) {
	q, _ := quant.NewQuat(10)
	tests := []struct {
		name  string
		in    [4]float32
		codes []f // index, then three codes
		back  [4]float32
	}{
		// The four tie; the highest index wins and is negative, so all
		// flip: (-0.5, 0.5, -0.5) are sent. (0.5 + m)/2m = 0.8535534,
		// ×1022 = 872.33, +0.5: 872; -0.5: 0.14644662×1022 + 0.5 = 150.17:
		// 150. They decode to -0.49954116 (0xbeffc3dc) and 0.49954122
		// (0x3effc3de), rebuilding 0.50137395 (0x3f005a0b): larger, so the
		// natural code stands.
		{"tie", [4]float32{0.5, -0.5, 0.5, -0.5}, []f{{3, 2}, {150, 10}, {872, 10}, {150, 10}},
			[4]float32{math.Float32frombits(0xbeffc3dc), math.Float32frombits(0x3effc3de), math.Float32frombits(0xbeffc3dc), math.Float32frombits(0x3f005a0b)}},
		{"identity", [4]float32{0, 0, 0, 1}, []f{{3, 2}, {511, 10}, {511, 10}, {511, 10}}, [4]float32{0, 0, 0, 1}},
		// Go's zero value: all four tie at 0, index 3 wins: the identity.
		{"zero", [4]float32{}, []f{{3, 2}, {511, 10}, {511, 10}, {511, 10}}, [4]float32{0, 0, 0, 1}},
	}
	for _, tt := range tests {
		w := bitio.NewWriter(nil)
		w.WriteBits(1, 1)
		w.WriteQuat(&q, tt.in)
		want := pack(append([]f{{1, 1}}, tt.codes...)...)
		if w.Err() != nil || w.BitsWritten() != 1+32 || !bytes.Equal(w.Bytes(), want) {
			t.Fatalf("%s: wrote %x (%d bits, %v), want %x", tt.name, w.Bytes(), w.BitsWritten(), w.Err(), want)
		}
		r := bitio.NewReader(w.Bytes())
		r.ReadBits(1)
		if out := r.ReadQuat(&q); r.Err() != nil || out != tt.back {
			t.Fatalf("%s: read %v (%v), want %v", tt.name, out, r.Err(), tt.back)
		}
	}
}

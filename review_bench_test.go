package bitpack_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
)

// rvPerBit: one bit and 63 zero-bit values per element, the most the work
// allowance (64 values per bit) lets a packet's bits buy.
type (
	rvPerBitElem struct {
		B bool
		A [63]int8 `bits:"range=0..0"`
	}
	rvPerBit struct {
		L []rvPerBitElem `bits:"maxlen=20000"`
	}
)

// BenchmarkReviewAmplification decodes, in rounds alternating with the
// 64-player snapshot of BenchmarkHostile, packets the allowances admit
// (or refuse only after spending them) and reports each one's time in
// snapshot decodes and, per byte, in the snapshot's time per byte:
//
//   - per-bit-64: a packet of the snapshot's size whose every bit buys 64
//     values (accepted; issue 13's target for long packets is 100× the
//     snapshot per byte);
//   - wide-*: packets of 2–16 bytes that spend the 1 MiB memory allowance
//     on values wide for their bits (issue 13's target for packets of at
//     most 64 bytes is 10 snapshot decodes);
//   - short-heavy-*: TestReviewShortPacketWork's packets.
func BenchmarkReviewAmplification(b *testing.B) {
	snapshot := hostileSnapshotPacket(b)
	var snap hostileSnapshot
	perBit := rvPerBit{L: make([]rvPerBitElem, 8*len(snapshot)-15)}
	perBitPacket, err := bitpack.Marshal(&perBit)
	if err != nil {
		b.Fatal(err)
	}
	wideSlicePacket, err := bitpack.Marshal(&wideSlice{L: make([]wideOne, 7)})
	if err != nil {
		b.Fatal(err)
	}
	var wu wideUnions
	for range 14 {
		wu.M = append(wu.M, wideMember{})
	}
	wideUnionsPacket, err := bitpack.Marshal(&wu)
	if err != nil {
		b.Fatal(err)
	}
	var (
		perBitOut    rvPerBit
		wideSliceOut wideSlice
		widePtrOut   widePointers
		wideUnionOut wideUnions
		heavyPtrOut  rvHeavyPtr
		heavyOut     rvHeavySlice
	)
	for _, tc := range []struct {
		name   string
		packet []byte
		decode func([]byte) error
	}{
		{"per-bit-64", perBitPacket, func(p []byte) error { return bitpack.Unmarshal(p, &perBitOut) }},
		{"wide-slice-7", wideSlicePacket, func(p []byte) error { return bitpack.Unmarshal(p, &wideSliceOut) }},
		{"wide-unions-14", wideUnionsPacket, func(p []byte) error { return bitpack.Unmarshal(p, &wideUnionOut) }},
		{"wide-pointers-refused", bytes.Repeat([]byte{0xff}, 16), func(p []byte) error { return bitpack.Unmarshal(p, &widePtrOut) }},
		{"short-heavy-pointer", []byte{1}, func(p []byte) error { return bitpack.Unmarshal(p, &heavyPtrOut) }},
		{"short-heavy-slice", append([]byte{0xe8, 0x03}, make([]byte, 62)...), func(p []byte) error { return bitpack.Unmarshal(p, &heavyOut) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			const round = 4
			var caseTime, snapTime time.Duration
			for b.Loop() {
				start := time.Now()
				for range round {
					_ = tc.decode(tc.packet)
				}
				mid := time.Now()
				for range round {
					if err := bitpack.Unmarshal(snapshot, &snap); err != nil {
						b.Fatal(err)
					}
				}
				caseTime += mid.Sub(start)
				snapTime += time.Since(mid)
			}
			ratio := float64(caseTime) / float64(snapTime)
			b.ReportMetric(ratio, "snapshots")
			b.ReportMetric(ratio*float64(len(snapshot))/float64(len(tc.packet)), "x-per-byte")
			b.ReportMetric(float64(len(tc.packet)), "packet-bytes")
		})
	}
}

package snapshot_test

import (
	"errors"
	"testing"

	"github.com/bitpack-go/bitpack/snapshot"
)

// fuzzStream returns the packets of a short stream of the test world (a
// small one): the first ones build a Receiver's state, the rest seed the
// fuzzer.
func fuzzStream(tb testing.TB) [][]byte {
	opts := snapshot.Options[World]{Budget: 300, Entities: worldEntities, Relevant: relevance, History: 16, Stream: 77}
	s, err := snapshot.NewSender(opts)
	if err != nil {
		tb.Fatal(err)
	}
	sm := newSim(5, 6, 40, 12)
	var out [][]byte
	for i := range 24 {
		sm.step(0.3)
		pkt, err := s.Append(nil, &sm.w)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, pkt)
		if i%3 != 2 { // some acks lost: bases of several ages
			s.Ack(uint16(i))
		}
	}
	return out
}

// prefix is how many packets of fuzzStream a Receiver reads before the
// fuzzed one.
const prefix = 12

// FuzzReceiverRead feeds a Receiver that holds a few views any packet:
// Read never panics, refuses with an error that wraps ErrNoBase or one of
// bitpack's sentinels, and a refused packet leaves the Receiver as it
// was. Seeded with the stream's real packets (zero base, deltas on bases
// of several ages) and a few damaged ones.
func FuzzReceiverRead(f *testing.F) {
	pkts := fuzzStream(f)
	for _, p := range pkts[prefix:] {
		f.Add(p)
		if len(p) > 12 {
			d := append([]byte(nil), p...)
			d[len(d)/2] ^= 0x5a
			f.Add(d)
		}
	}
	f.Add([]byte{12, 0, 0x03, 0x01, 0, 0, 0, 0, 0}) // a long form carrying a short offset
	f.Fuzz(func(t *testing.T, packet []byte) {
		r, err := snapshot.NewReceiver(snapshot.Options[World]{History: 16})
		if err != nil {
			t.Fatal(err)
		}
		var v World
		for _, p := range pkts[:prefix] {
			if _, err := r.Read(p, &v); err != nil {
				t.Fatal(err)
			}
		}
		before := r.State()
		if _, err := r.Read(packet, &v); err != nil {
			if !errors.Is(err, snapshot.ErrNoBase) && !isSentinel(err) {
				t.Fatalf("an error that wraps no sentinel: %v", err)
			}
			if r.State() != before {
				t.Fatalf("a refused packet (%v) changed the Receiver", err)
			}
		}
	})
}

package snapshot

import (
	"testing"

	"github.com/bitpack-go/bitpack/internal/snapwire"
)

// TestAckBeforeFirstReadAtWrap: a Receiver that has read nothing
// acknowledges 0xFFFF (docs/wire.md), which is also a sequence the Sender
// sends once every 65536 packets. A client that reconnects while packet
// 65535 of the new stream is in flight or lost, and sends its input with
// that Ack, must not make the Sender build on a view it never read: every
// packet that follows must be one it can read.
func TestAckBeforeFirstReadAtWrap(t *testing.T) {
	opts := Options[ackWorld]{Entities: []string{"Units", "Shots", "Items"}, History: 64, Stream: 31}
	s, err := NewSender(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.seq = 65530 // a long session; the client then drops and reconnects
	s.Reset()     // a new stream, for a fresh Receiver
	r, err := NewReceiver(opts)
	if err != nil {
		t.Fatal(err)
	}
	w := ackWorld{Items: map[int8]bool{}}
	for i := range 6 { // packets 65530 to 65535: lost, or not yet arrived
		w.Tick = uint16(i)
		if _, err := s.Append(nil, &w); err != nil {
			t.Fatal(err)
		}
	}
	if r.Ack() != snapwire.NoAck {
		t.Fatalf("Ack %#x before the first read", r.Ack())
	}
	s.Ack(r.Ack()) // the client's input: nothing read yet
	var got ackWorld
	for i := range 80 {
		w.Tick = uint16(100 + i)
		pkt, err := s.Append(nil, &w)
		if err != nil {
			t.Fatal(err)
		}
		if seq, err := r.Read(pkt, &got); err != nil {
			t.Fatalf("after an Ack sent before any read, packet %d refused: %v", seq, err)
		}
		s.Ack(r.Ack())
	}
	if st := s.Stats(); st.Acks != 80 || st.Ignored != 1 {
		t.Fatalf("stats %+v: want the 80 Acks of packets read taken, 0xFFFF ignored", st)
	}
}

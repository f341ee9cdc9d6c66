package snapshot_test

import (
	"testing"

	"github.com/bitpack-go/bitpack/snapshot"
)

// TestAckBeforeFirstReadAtWrap: a Receiver that has read nothing
// acknowledges 0xFFFF (docs/wire.md), which is also a sequence the Sender
// sends once every 65536 packets. A client that reconnects while packet
// 65535 of the new stream is in flight or lost, and sends its input with
// that Ack, must not make the Sender build on a view it never read: the
// packets that follow must be ones it can read.
func TestAckBeforeFirstReadAtWrap(t *testing.T) {
	p := newPair(t, snapshot.Options[goldenWorld]{History: 64, Stream: 31})
	for i := range 65530 { // a long session; the client then drops
		p.send(world(i))
	}
	p.s.Reset() // the client reconnects: a new stream, a fresh Receiver
	r, err := snapshot.NewReceiver(snapshot.Options[goldenWorld]{History: 64})
	if err != nil {
		t.Fatal(err)
	}
	p.r = r
	for i := 65530; i < 65536; i++ {
		p.send(world(i)) // the new stream's first packets: lost (or not yet arrived)
	}
	if p.r.Ack() != 0xFFFF {
		t.Fatalf("Ack %#x before the first read", p.r.Ack())
	}
	p.s.Ack(p.r.Ack()) // the client's input: nothing read yet
	refused := 0
	for i := 65536; i < 65536+80; i++ {
		pkt := p.send(world(i))
		if _, err := p.r.Read(pkt, &p.v); err != nil {
			refused++
			p.s.Ack(p.r.Ack())
			continue
		}
		p.s.Ack(p.r.Ack())
	}
	if refused > 0 {
		t.Fatalf("after an Ack sent before any read, %d of the next 80 packets were refused", refused)
	}
}

package main

import (
	"errors"
	"math/rand/v2"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/udpsnap/sim"
	"github.com/bitpack-go/bitpack/snapshot"
)

// inputPeer is one end that sends input packets to the server and reads
// what comes back.
type inputPeer struct {
	t    *testing.T
	conn *net.UDPConn
	pid  uint32
	in   *bitpack.Codec[input]
}

func (p *inputPeer) send(client uint8, ack uint16) {
	p.t.Helper()
	b, err := p.in.Marshal(&input{Client: client, Ack: ack})
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.conn.Write(bitpack.Seal(nil, p.pid, b)); err != nil {
		p.t.Fatal(err)
	}
}

// read returns the next snapshot packet within wait, or nil.
func (p *inputPeer) read(wait time.Duration) []byte {
	buf := make([]byte, 2048)
	p.conn.SetReadDeadline(time.Now().Add(wait))
	n, err := p.conn.Read(buf)
	if err != nil {
		return nil
	}
	pkt, err := bitpack.Open(p.pid, buf[:n])
	if err != nil {
		p.t.Fatalf("a snapshot that does not open: %v", err)
	}
	return pkt
}

// TestInputFromAnotherAddress: an input packet names its client by a
// 6-bit id, and the server believes it, whatever address it came from.
// Client 0's stream must stay client 0's: a datagram from another
// address that claims id 0 (the protocol id is computed from the
// program's public types, so anyone can seal one) must neither take the
// stream away from it nor move its Sender's base to a view it never read.
func TestInputFromAnotherAddress(t *testing.T) {
	codec, err := bitpack.NewCodec[sim.Scene]()
	if err != nil {
		t.Fatal(err)
	}
	in, err := bitpack.NewCodec[input]()
	if err != nil {
		t.Fatal(err)
	}
	opts := snapshot.Options[sim.Scene]{Budget: budget, Entities: []string{"Entities"}, History: history}
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	pid := protocolID()
	srv := &server{conn: conn, id: pid, codec: codec, in: in, world: sim.New(50, 30, 1),
		rng: rand.New(rand.NewPCG(1, 1)), log: &tickLog{}, truth: &truth{m: map[uint32][]byte{}}, peers: make([]peer, 1)}
	if srv.peers[0].sender, err = snapshot.NewSender(opts); err != nil {
		t.Fatal(err)
	}
	go srv.listen()
	dial := func() *inputPeer {
		c, err := net.DialUDP("udp", nil, conn.LocalAddr().(*net.UDPAddr))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return &inputPeer{t: t, conn: c, pid: pid, in: in}
	}
	honest, hostile := dial(), dial()
	receiver, err := snapshot.NewReceiver(opts)
	if err != nil {
		t.Fatal(err)
	}
	var view sim.Scene
	// from reports, within wait, whether the server's address for client
	// 0 is p's.
	from := func(p *inputPeer, wait time.Duration) bool {
		want := p.conn.LocalAddr().String()
		for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			srv.mu.Lock()
			a := srv.peers[0].addr
			srv.mu.Unlock()
			if a != nil && a.String() == want {
				return true
			}
		}
		return false
	}
	addrIs := func(p *inputPeer) {
		if !from(p, 2*time.Second) {
			t.Fatal("the server never took the client's input")
		}
	}
	honest.send(0, receiver.Ack())
	addrIs(honest)
	for tick := range uint32(3) {
		if err := srv.tick(tick, 0, false); err != nil {
			t.Fatal(err)
		}
		pkt := honest.read(2 * time.Second)
		if pkt == nil {
			t.Fatalf("tick %d: no packet", tick)
		}
		if _, err := receiver.Read(pkt, &view); err != nil {
			t.Fatal(err)
		}
		honest.send(0, receiver.Ack())
		addrIs(honest)
	}

	// One datagram from elsewhere, claiming to be client 0.
	hostile.send(0, 0xFFFF)
	from(hostile, 200*time.Millisecond) // it arrived, and was taken or not
	if err := srv.tick(3, 0, false); err != nil {
		t.Fatal(err)
	}
	stolen := hostile.read(2 * time.Second)
	if stolen != nil {
		// It acknowledges the packet it took, then the client speaks again.
		hostile.send(0, seqOf(stolen))
		time.Sleep(20 * time.Millisecond)
		honest.send(0, receiver.Ack())
		addrIs(honest)
	}
	refused := 0
	for tick := uint32(4); tick < 12; tick++ {
		if err := srv.tick(tick, 0, false); err != nil {
			t.Fatal(err)
		}
		pkt := honest.read(2 * time.Second)
		if pkt == nil {
			t.Fatalf("tick %d: no packet for client 0", tick)
		}
		if _, err := receiver.Read(pkt, &view); errors.Is(err, snapshot.ErrNoBase) {
			refused++
		} else if err != nil {
			t.Fatal(err)
		}
		honest.send(0, receiver.Ack())
		addrIs(honest)
	}
	if stolen != nil || refused > 0 {
		t.Fatalf("a datagram from %s naming client 0 took packet %d of its stream (%d bytes), and its ack made client 0 refuse %d of the next 8 packets",
			hostile.conn.LocalAddr(), seqOf(stolen), len(stolen), refused)
	}
}

// TestPeerInput: the first address to name a client keeps it, inputs
// from any other are dropped, and a flood keeps only the newest maxAcks
// acks until the next tick.
func TestPeerInput(t *testing.T) {
	a := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}
	b := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4001}
	var p peer
	p.input(a, 1)
	p.input(b, 2) // another address: dropped
	if p.addr != a || !slices.Equal(p.acks, []uint16{1}) {
		t.Fatalf("after a's and b's inputs: addr %v, acks %v; want %v, [1]", p.addr, p.acks, a)
	}
	for ack := uint16(2); ack <= 20; ack++ {
		p.input(a, ack)
	}
	if want := []uint16{13, 14, 15, 16, 17, 18, 19, 20}; !slices.Equal(p.acks, want) {
		t.Fatalf("after 20 inputs: acks %v, want %v", p.acks, want)
	}
}

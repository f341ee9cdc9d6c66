package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/udpsnap/sim"
	"github.com/bitpack-go/bitpack/snapshot"
)

// server owns the world. Every tick it steps the world, quantizes it once
// (for all its clients: a Sender then finds an entity that did not move
// with one comparison), and sends each client the next packet of its
// stream — a delta from the newest view that client acknowledged, at
// most 1,200 bytes.
type server struct {
	conn  *net.UDPConn
	id    uint32 // protocol id
	codec *bitpack.Codec[sim.Scene]
	in    *bitpack.Codec[input]
	world *sim.World
	scene sim.Scene
	list  sim.Snapshot // the same world as a list, for JSON
	loss  float64
	rng   *rand.Rand // drops packets
	log   *tickLog
	truth *truth

	packet []byte // reused for every packet

	mu    sync.Mutex
	peers []peer // by client id
}

// peer is what the server knows of a client.
type peer struct {
	addr   *net.UDPAddr
	sender *snapshot.Sender[sim.Scene]
	acks   []uint16 // arrived since the last tick, the newest maxAcks
}

// maxAcks is the most acks a client's inputs keep between two ticks: the
// newest, as a Sender takes an ack only if it is newer than its base. A
// flood of inputs costs the server no more memory than this.
const maxAcks = 8

// listen reads input packets until the connection closes, recording
// each client's address and acks. Packets that fail Open or decode are
// dropped, and so are those naming a client whose address the server
// already has from another address: anyone can seal an input (the
// protocol id comes from public types), so taking the newest address
// would let one forged datagram take a client's stream, and its ack move
// the Sender's base to a view the client never read. The first address
// to name a client keeps it; a real game authenticates that first hello
// (a connection token, a challenge it must answer) before it sends an
// address anything.
func (s *server) listen() {
	buf := make([]byte, 2048)
	var in input
	for {
		n, addr, err := s.conn.ReadFromUDP(buf)
		if err != nil {
			return // closed
		}
		payload, err := bitpack.Open(s.id, buf[:n])
		if err != nil || s.in.Unmarshal(payload, &in) != nil || int(in.Client) >= len(s.peers) {
			continue
		}
		s.mu.Lock()
		s.peers[in.Client].input(addr, in.Ack)
		s.mu.Unlock()
	}
}

// input records an input's ack from addr: the client's address if it has
// none yet, and nothing if it has another (see listen).
func (p *peer) input(addr *net.UDPAddr, ack uint16) {
	if p.addr == nil {
		p.addr = addr
	}
	if p.addr.AddrPort() != addr.AddrPort() {
		return
	}
	if len(p.acks) == maxAcks {
		p.acks = append(p.acks[:0], p.acks[1:]...)
	}
	p.acks = append(p.acks, ack)
}

// waitForClients waits until every client has said hello.
func (s *server) waitForClients(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		ready := true
		for _, p := range s.peers {
			ready = ready && p.addr != nil
		}
		s.mu.Unlock()
		if ready {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
	return errors.New("clients did not say hello")
}

// tick runs one server tick: step, quantize, and a packet to every client.
func (s *server) tick(tick uint32, phase int, late bool) error {
	s.world.Step()
	s.world.Scene(&s.scene)
	if err := s.codec.Quantize(&s.scene); err != nil {
		return err
	}
	full, err := s.codec.Marshal(&s.scene)
	if err != nil {
		return err
	}
	s.world.Snapshot(&s.list)
	js, err := json.Marshal(&s.list)
	if err != nil {
		return err
	}
	for c := range s.peers {
		s.mu.Lock()
		p := &s.peers[c]
		acks, addr := p.acks, p.addr
		p.acks = nil
		s.mu.Unlock()
		for _, a := range acks {
			p.sender.Ack(a)
		}
		s.packet, err = p.sender.Append(s.packet[:0], &s.scene)
		if err != nil {
			return err
		}
		st := p.sender.Stats()
		// What the client must read from this packet: the Sender's view,
		// for the client's check (the example runs both ends in one
		// process).
		var view sim.Scene
		if !p.sender.View(st.Seq, &view) {
			return errors.New("the sender does not hold the view it just sent")
		}
		want, err := s.codec.Marshal(&view)
		if err != nil {
			return err
		}
		s.truth.put(c, st.Seq, want)
		s.log.add(record{tick: tick, phase: phase, client: c, bytes: len(s.packet), sent: st.Sent, waiting: st.Waiting,
			stalest: st.Stalest, base: st.Base, full: len(full), json: len(js), late: late})
		if s.rng.Float64() < s.loss {
			continue // lost on the way
		}
		if _, err := s.conn.WriteToUDP(bitpack.Seal(nil, s.id, s.packet), addr); err != nil {
			return err
		}
	}
	return nil
}

// truth holds, for each client and sequence, the encoding of the view the
// server sent, for the clients' check.
type truth struct {
	mu sync.Mutex
	m  map[uint32][]byte
}

func (t *truth) key(client int, seq uint16) uint32 {
	return uint32(client)<<16 | uint32(seq)
}

func (t *truth) put(client int, seq uint16, b []byte) {
	t.mu.Lock()
	t.m[t.key(client, seq)] = b
	t.mu.Unlock()
}

func (t *truth) get(client int, seq uint16) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[t.key(client, seq)]
}

// seqOf is a snapshot packet's sequence (its first two bytes).
func seqOf(packet []byte) uint16 { return binary.LittleEndian.Uint16(packet) }

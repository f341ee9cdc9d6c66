package main

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/udpsnap/sim"
)

// server owns the world. Every tick it steps the world, keeps the
// snapshot (quantized: exactly what its clients decode) in its history,
// and sends each client that snapshot as a delta against the newest tick
// that client acknowledged, or whole when it has none in the history.
type server struct {
	conn  *net.UDPConn
	id    uint32 // protocol id
	codec *bitpack.Codec[sim.Snapshot]
	hdr   *bitpack.Codec[header]
	in    *bitpack.Codec[input]
	world *sim.World
	hist  [historySize]stored
	loss  float64
	rng   *rand.Rand // drops packets
	log   *tickLog
	truth *truth

	body, packet []byte // reused for every packet

	mu    sync.Mutex
	peers []peer // by client id
}

// stored is one snapshot of the history.
type stored struct {
	tick uint32
	snap sim.Snapshot
}

// peer is what the server knows of a client.
type peer struct {
	addr *net.UDPAddr
	ack  uint32 // the newest tick it decoded, 0 if none
}

// listen reads input packets until the connection closes, recording
// each client's address and newest ack. Packets that fail Open or decode
// are dropped.
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
		p := &s.peers[in.Client]
		p.addr = addr
		p.ack = max(p.ack, in.Ack) // packets may arrive out of order
		s.mu.Unlock()
	}
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

// tick runs one server tick: step, snapshot, send to every client.
func (s *server) tick(tick uint32, phase int) error {
	s.world.Step()
	cur := &s.hist[tick%historySize]
	cur.tick = tick
	s.world.Snapshot(&cur.snap)
	if err := s.codec.Quantize(&cur.snap); err != nil {
		return err
	}
	full, err := s.codec.Marshal(&cur.snap)
	if err != nil {
		return err
	}
	s.truth.put(tick, full)
	js, err := json.Marshal(&cur.snap)
	if err != nil {
		return err
	}
	s.mu.Lock()
	peers := append([]peer(nil), s.peers...)
	s.mu.Unlock()
	for c, p := range peers {
		h := header{Tick: tick}
		if p.ack > 0 && tick-p.ack < historySize && s.hist[p.ack%historySize].tick == p.ack {
			h.Base = p.ack
		}
		body, err := s.hdr.Append(s.body[:0], &h)
		if err == nil && h.Base == 0 {
			body, err = s.codec.Append(body, &cur.snap)
		} else if err == nil {
			body, err = s.codec.AppendDelta(body, &s.hist[h.Base%historySize].snap, &cur.snap)
		}
		if err != nil {
			return err
		}
		s.body = body
		s.packet = bitpack.Seal(s.packet[:0], s.id, body)
		s.log.add(record{tick: tick, phase: phase, client: c, delta: h.Base != 0, payload: len(body) - headerBytes,
			full: len(full), json: len(js), age: ageOf(tick, h.Base)})
		if s.rng.Float64() < s.loss {
			continue // lost on the way
		}
		if _, err := s.conn.WriteToUDP(s.packet, p.addr); err != nil {
			return err
		}
	}
	return nil
}

// ageOf is how many ticks old a delta's base is (0 for a full snapshot).
func ageOf(tick, base uint32) int {
	if base == 0 {
		return 0
	}
	return int(tick - base)
}

package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/udpsnap/sim"
)

// client receives snapshots, decodes each against the base its header
// names (a snapshot it decoded earlier and still keeps), checks it against
// what the server sent, and acknowledges the newest in an input packet.
type client struct {
	id    uint8
	conn  *net.UDPConn // connected to the server
	pid   uint32
	codec *bitpack.Codec[sim.Snapshot]
	hdr   *bitpack.Codec[header]
	in    *bitpack.Codec[input]
	hist  [historySize]stored
	truth *truth
	loss  float64
	rng   *rand.Rand

	newest  uint32 // the newest tick decoded
	decoded int    // snapshots decoded and checked
	err     error  // the first failure
}

// hello tells the server where the client is, until the first snapshot
// arrives (a hello may be lost like any packet).
func (c *client) hello(stop <-chan struct{}) {
	for {
		c.send(0, false)
		select {
		case <-stop:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// send sends an input packet acknowledging ack, dropped at the loss rate
// when lossy.
func (c *client) send(ack uint32, lossy bool) {
	if lossy && c.rng.Float64() < c.loss {
		return
	}
	payload, err := c.in.Marshal(&input{Client: c.id, Ack: ack})
	if err == nil {
		_, err = c.conn.Write(bitpack.Seal(nil, c.pid, payload))
	}
	if err != nil && c.err == nil {
		c.err = err
	}
}

// run reads snapshots until the connection is closed.
func (c *client) run(wg *sync.WaitGroup) {
	defer wg.Done()
	stop := make(chan struct{})
	go c.hello(stop)
	stopped := false
	buf := make([]byte, 64<<10)
	for {
		n, err := c.conn.Read(buf)
		if err != nil {
			if !stopped {
				close(stop)
			}
			return // closed
		}
		if !stopped {
			close(stop)
			stopped = true
		}
		if err := c.receive(buf[:n]); err != nil && c.err == nil {
			c.err = err
		}
		c.send(c.newest, true)
	}
}

// receive decodes one snapshot packet into the history and checks it.
func (c *client) receive(packet []byte) error {
	body, err := bitpack.Open(c.pid, packet)
	if err != nil || len(body) < headerBytes {
		return fmt.Errorf("client %d: a packet that does not open: %v", c.id, err)
	}
	var h header
	if err := c.hdr.Unmarshal(body[:headerBytes], &h); err != nil {
		return err
	}
	payload := body[headerBytes:]
	dst := &c.hist[h.Tick%historySize]
	switch {
	case h.Base == 0:
		err = c.codec.Unmarshal(payload, &dst.snap)
	case c.hist[h.Base%historySize].tick != h.Base || h.Tick-h.Base >= historySize:
		return fmt.Errorf("client %d: tick %d is a delta against tick %d, which it no longer holds", c.id, h.Tick, h.Base)
	default:
		err = c.codec.UnmarshalDelta(payload, &c.hist[h.Base%historySize].snap, &dst.snap)
	}
	if err != nil {
		return fmt.Errorf("client %d, tick %d (base %d): %w", c.id, h.Tick, h.Base, err)
	}
	dst.tick = h.Tick
	// The decoded snapshot must be exactly the server's.
	again, err := c.codec.Marshal(&dst.snap)
	if err != nil || !bytes.Equal(again, c.truth.get(h.Tick)) {
		return fmt.Errorf("client %d, tick %d (base %d): decoded a snapshot other than the server's (%v)", c.id, h.Tick, h.Base, err)
	}
	c.decoded++
	c.newest = max(c.newest, h.Tick)
	return nil
}

// truth holds the full encoding of every tick's snapshot, for the
// clients' check (the example runs both ends in one process).
type truth struct {
	mu sync.Mutex
	m  map[uint32][]byte
}

func (t *truth) put(tick uint32, b []byte) {
	t.mu.Lock()
	t.m[tick] = b
	t.mu.Unlock()
}

func (t *truth) get(tick uint32) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[tick]
}

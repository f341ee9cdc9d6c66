package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/udpsnap/sim"
	"github.com/bitpack-go/bitpack/snapshot"
)

// client reads its stream: each packet decoded on the view its header
// names (one its Receiver keeps), checked against what the server sent,
// and acknowledged in an input packet.
type client struct {
	id       uint8
	conn     *net.UDPConn // connected to the server
	pid      uint32
	codec    *bitpack.Codec[sim.Scene]
	in       *bitpack.Codec[input]
	receiver *snapshot.Receiver[sim.Scene]
	view     sim.Scene
	truth    *truth
	loss     float64
	rng      *rand.Rand

	decoded, refused int   // packets read and checked; refused (a base lost with its ack)
	err              error // the first failure
}

// hello tells the server where the client is, until the first snapshot
// arrives (a hello may be lost like any packet).
func (c *client) hello(stop <-chan struct{}) {
	for {
		c.send(false)
		select {
		case <-stop:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// send sends an input packet with the Receiver's ack, dropped at the loss
// rate when lossy.
func (c *client) send(lossy bool) {
	if lossy && c.rng.Float64() < c.loss {
		return
	}
	payload, err := c.in.Marshal(&input{Client: c.id, Ack: c.receiver.Ack()})
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
		c.send(true)
	}
}

// receive reads one snapshot packet and checks the view.
func (c *client) receive(sealed []byte) error {
	packet, err := bitpack.Open(c.pid, sealed)
	if err != nil {
		return fmt.Errorf("client %d: a packet that does not open: %v", c.id, err)
	}
	seq, err := c.receiver.Read(packet, &c.view)
	if errors.Is(err, snapshot.ErrNoBase) {
		// Possible, rarely: the view it builds on was evicted. The
		// Sender moves on when the next ack arrives.
		c.refused++
		return nil
	}
	if err != nil {
		return fmt.Errorf("client %d, packet %d: %w", c.id, seqOf(packet), err)
	}
	// The view must be exactly the one the server meant.
	got, err := c.codec.Marshal(&c.view)
	if err != nil || !bytes.Equal(got, c.truth.get(int(c.id), seq)) {
		return fmt.Errorf("client %d, packet %d: read a view other than the server's (%v)", c.id, seq, err)
	}
	c.decoded++
	return nil
}

// Command udpsnap runs a game server and several clients over real UDP
// sockets on 127.0.0.1 and streams each client the world with package
// snapshot, the way Quake 3's per-client frames and Glenn Fiedler's
// "Snapshot Compression" and "State Synchronization" do:
//
//   - the server keeps a snapshot.Sender per client: every tick, the next
//     packet of that client's stream, a delta from the newest view the
//     client acknowledged, at most 1,200 bytes (below a typical MTU), the
//     entities that waited longest first; the world, quantized once per
//     tick for every client;
//   - each client keeps a snapshot.Receiver: it reads each packet on the
//     view the header names, checks the view against the server's, and
//     acknowledges the newest in its input packets;
//   - packets are sealed with a protocol id mixed with the Fingerprint of
//     every type they carry, and -loss drops that fraction of them both
//     ways, so acks lag and packets build on older views.
//
// The world holds a fixed table of entities; a chosen fraction moves. The
// program runs four phases — at rest, 1%, 10% and 50% of the entities
// moving — and prints, per phase, the bytes of a packet (against the world
// sent whole), the entities it carried, how long the stalest waited, and
// the bandwidth per client. The first packets bring the world, over
// several ticks; at 50% the budget binds and entities take turns. It
// checks the targets: no packet over the budget; at rest, the world
// reaches every client, then 8 bytes a packet; once a phase settled (its
// second half), at most 1/20 of the whole snapshot at 1% movement, 1/5
// at 10%. With -svg FILE it
// writes a chart of client 0's packets and stalest entity, tick by tick.
//
// Usage:
//
//	go run ./examples/udpsnap [-entities 500] [-clients 4] [-hz 30] [-ticks 30] [-loss 0.05] [-seed 1] [-svg chart.svg]
//
// It runs for 4 × ticks / hz seconds: about 4 seconds with the defaults.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/udpsnap/sim"
	"github.com/bitpack-go/bitpack/snapshot"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		var ue usageError
		switch {
		case errors.Is(err, flag.ErrHelp):
			os.Exit(0)
		case errors.As(err, &ue):
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "udpsnap:", err)
		os.Exit(1)
	}
}

// usageError is a bad command line, already reported by the flag package.
type usageError struct{ error }

// phases are the movement rates the program runs, in order.
var phases = []struct {
	name   string
	moving float64
}{{"at rest", 0}, {"1%", 0.01}, {"10%", 0.10}, {"50%", 0.50}}

// config is the command line.
type config struct {
	entities, clients, ticks int
	hz, loss                 float64
	seed                     uint64
	svg                      string
}

func parse(args []string, out io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("udpsnap", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.IntVar(&c.entities, "entities", 500, fmt.Sprintf("entities in the world, 1..%d", sim.MaxEntities))
	fs.IntVar(&c.clients, "clients", 4, fmt.Sprintf("clients, 1..%d", maxClients))
	fs.Float64Var(&c.hz, "hz", 30, "snapshots per second, 1..1000")
	fs.IntVar(&c.ticks, "ticks", 30, "ticks per phase")
	fs.Float64Var(&c.loss, "loss", 0.05, "fraction of packets lost, each way, 0..0.9")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed of the world and the losses")
	fs.StringVar(&c.svg, "svg", "", "write a chart of client 0's packets and stalest entity, tick by tick, to this SVG file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, usageError{err}
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	case c.entities < 1 || c.entities > sim.MaxEntities:
		return c, fmt.Errorf("-entities %d: want 1..%d", c.entities, sim.MaxEntities)
	case c.clients < 1 || c.clients > maxClients:
		return c, fmt.Errorf("-clients %d: want 1..%d", c.clients, maxClients)
	case !(c.hz >= 1 && c.hz <= 1000):
		return c, fmt.Errorf("-hz %v: want 1..1000", c.hz)
	case c.ticks < 2:
		return c, fmt.Errorf("-ticks %d: want at least 2", c.ticks)
	case !(c.loss >= 0 && c.loss <= 0.9):
		return c, fmt.Errorf("-loss %v: want 0..0.9", c.loss)
	}
	return c, nil
}

// run is the program: it parses args (without the program name), runs the
// server and the clients, and writes the report to out. An error means a
// bad command line, a failure on either side, or a missed target.
func run(args []string, out io.Writer) error {
	cfg, err := parse(args, out)
	if err != nil {
		return err
	}
	rep, err := simulate(cfg)
	if err != nil {
		return err
	}
	rep.print(out, cfg)
	if cfg.svg != "" {
		if err := writeChart(cfg.svg, rep, cfg); err != nil {
			return err
		}
		fmt.Fprintf(out, "\nChart of client 0's stream: %s\n", cfg.svg)
	}
	if missed := rep.missed(); len(missed) > 0 {
		return fmt.Errorf("targets missed: %v", missed)
	}
	return nil
}

// simulate runs the server and the clients for every phase and returns
// what was sent.
func simulate(cfg config) (*report, error) {
	codec, err := bitpack.NewCodec[sim.Scene]()
	if err != nil {
		return nil, err // a tag error: the message names the field
	}
	in, err := bitpack.NewCodec[input]()
	if err != nil {
		return nil, err
	}
	opts := snapshot.Options[sim.Scene]{Budget: budget, Entities: []string{"Entities"}, History: history}
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	pid := protocolID()
	tr := &truth{m: map[uint32][]byte{}}
	log := &tickLog{}
	srv := &server{conn: conn, id: pid, codec: codec, in: in, world: sim.New(cfg.entities, cfg.hz, cfg.seed),
		loss: cfg.loss, rng: rand.New(rand.NewPCG(cfg.seed, 1)), log: log, truth: tr, peers: make([]peer, cfg.clients)}
	for i := range srv.peers {
		if srv.peers[i].sender, err = snapshot.NewSender(opts); err != nil {
			return nil, err
		}
	}
	go srv.listen()

	clients := make([]*client, cfg.clients)
	var wg sync.WaitGroup
	for i := range clients {
		cc, err := net.DialUDP("udp", nil, conn.LocalAddr().(*net.UDPAddr))
		if err != nil {
			return nil, err
		}
		defer cc.Close()
		r, err := snapshot.NewReceiver(opts)
		if err != nil {
			return nil, err
		}
		clients[i] = &client{id: uint8(i), conn: cc, pid: pid, codec: codec, in: in, receiver: r, truth: tr,
			loss: cfg.loss, rng: rand.New(rand.NewPCG(cfg.seed, uint64(2+i)))}
		wg.Add(1)
		go clients[i].run(&wg)
	}
	if err := srv.waitForClients(2 * time.Second); err != nil {
		return nil, err
	}

	period := time.Duration(float64(time.Second) / cfg.hz)
	next := time.Now()
	tick := uint32(0)
	for p, ph := range phases {
		srv.world.SetMoving(ph.moving)
		for i := range cfg.ticks {
			tick++
			if err := srv.tick(tick, p, 2*i >= cfg.ticks); err != nil {
				return nil, err
			}
			// A tick that ends late does not make the next ones run
			// back to back to catch up (which starves the clients of the
			// time to read and ack): the schedule restarts from now.
			next = next.Add(period)
			if wait := time.Until(next); wait > 0 {
				time.Sleep(wait)
			} else {
				next = time.Now()
			}
		}
	}
	time.Sleep(50 * time.Millisecond) // the last packets and acks arrive
	for _, c := range clients {
		c.conn.Close()
	}
	wg.Wait()
	rep := &report{log: log.records, entities: cfg.entities}
	for _, c := range clients {
		if c.err != nil {
			return nil, c.err
		}
		rep.decoded += c.decoded
		rep.refused += c.refused
	}
	return rep, nil
}

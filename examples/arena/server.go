package main

import (
	"embed"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"net/http"
	"sync"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/arena/world"
	"github.com/bitpack-go/bitpack/snapshot"
	"github.com/gorilla/websocket"
)

// web is the page: index.html, and main.js and net.js, which tsc
// compiles from client/ (see the go:generate lines in main.go).
//
//go:embed web
var web embed.FS

// Config is how the server runs the world.
type Config struct {
	Hz     int    // ticks per second
	Budget int    // the most bytes a packet takes; 0: no limit
	Ticks  int    // the world stops after this many ticks; 0: never
	Seed   uint64 // the world's seed
	Wait   bool   // the world starts when the first browser connects
}

// History is the snapshot History of every stream (the page's
// WorldReceiver is made with the same).
const History = 64

// Server runs the arena and streams it to every browser connected to /ws.
type Server struct {
	cfg      Config
	codec    *bitpack.Codec[world.World]
	handler  http.Handler
	upgrader websocket.Upgrader
	stop     chan struct{}
	stopped  sync.WaitGroup

	mu      sync.Mutex // guards what follows
	sim     *world.Sim
	clients map[*client]bool
	closed  bool
}

// client is one browser: its stream and what its acks said.
type client struct {
	conn *websocket.Conn
	out  chan []byte // packets to write; full: the packet is dropped, as a lossy link would

	mu     sync.Mutex // guards sender and stats
	sender *snapshot.Sender[world.World]
	stats  ClientStats
}

// ClientStats counts what a client's acks said.
type ClientStats struct {
	Sent     int    // packets sent
	Acked    int    // acks whose view the server checked and found the one it meant
	Mismatch int    // acks whose view differed from the one the server meant
	Ignored  int    // acks the Sender did not take (not newer than its base, or of a packet it no longer keeps): not checked
	Ack      uint16 // the newest sequence acknowledged
}

// NewServer starts the world's clock.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Hz <= 0 {
		return nil, errors.New("hz must be positive")
	}
	codec, err := bitpack.NewCodec[world.World]()
	if err != nil {
		return nil, err
	}
	page, err := fs.Sub(web, "web")
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, codec: codec, stop: make(chan struct{}), sim: world.New(cfg.Seed), clients: map[*client]bool{}}
	if err := codec.Quantize(&s.sim.World); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServerFS(page))
	mux.HandleFunc("/ws", s.serveStream)
	s.handler = mux
	s.stopped.Add(1)
	go s.clock()
	return s, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Close stops the clock and disconnects every client.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.stop)
	for c := range s.clients {
		c.conn.Close()
	}
	s.mu.Unlock()
	s.stopped.Wait()
}

// World returns a copy of the world as it is (quantized: what a client
// that caught up holds), and each client's statistics.
func (s *Server) World() (world.World, []ClientStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var w world.World
	b, err := s.codec.Marshal(&s.sim.World)
	if err == nil {
		err = s.codec.Unmarshal(b, &w)
	}
	var stats []ClientStats
	for c := range s.clients {
		c.mu.Lock()
		stats = append(stats, c.stats)
		c.mu.Unlock()
	}
	return w, stats, err
}

// clock steps the world every tick (until cfg.Ticks) and sends each
// client the next packet of its stream.
func (s *Server) clock() {
	defer s.stopped.Done()
	t := time.NewTicker(time.Second / time.Duration(s.cfg.Hz))
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.mu.Lock()
		waiting := s.cfg.Wait && s.sim.World.Tick == 0 && len(s.clients) == 0
		if !waiting && (s.cfg.Ticks == 0 || int(s.sim.World.Tick) < s.cfg.Ticks) {
			s.sim.Step()
			// Quantized once for every client: an entity that did not
			// move is then found with one comparison, and a client that
			// caught up holds exactly this.
			if err := s.codec.Quantize(&s.sim.World); err != nil {
				panic(err) // every value of the simulation is within its tags
			}
		}
		for c := range s.clients {
			c.mu.Lock()
			p, err := c.sender.Append(nil, &s.sim.World)
			if err == nil {
				c.stats.Sent++
			}
			c.mu.Unlock()
			if err != nil {
				c.conn.Close()
				continue
			}
			select {
			case c.out <- p:
			default:
			}
		}
		s.mu.Unlock()
	}
}

// serveStream upgrades a request to a WebSocket and streams the world to
// it: binary messages, one packet each; the page answers each packet it
// reads with 6 bytes, its sequence and the CRC-32 of its view's full
// encoding, both little-endian.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request) {
	conn, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	sender, err := snapshot.NewSender(snapshot.Options[world.World]{
		Budget: s.cfg.Budget, Entities: []string{"Entities"}, History: History,
	})
	if err != nil {
		conn.Close()
		return
	}
	c := &client{conn: conn, out: make(chan []byte, 8), sender: sender}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		conn.Close()
		return
	}
	s.clients[c] = true
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case p := <-c.out:
				conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
				if conn.WriteMessage(websocket.BinaryMessage, p) != nil {
					conn.Close()
					return
				}
			case <-s.stop:
				return
			}
		}
	}()
	s.readAcks(c)
	s.mu.Lock()
	delete(s.clients, c)
	s.mu.Unlock()
	conn.Close()
	<-done
}

// maxAckMessage is the longest message a client may send: an ack is 6
// bytes (its sequence and the CRC-32 of the view it read).
const maxAckMessage = 64

// readAcks reads a client's acks until it goes: each checked against the
// view the server sent (while the Sender still keeps that packet), then
// handed to the Sender. What a client sends costs the server no more than
// what it sends the client: a message longer than maxAckMessage closes the
// connection (the WebSocket library would otherwise buffer it whole), and
// only an ack the Sender takes is checked (each check decodes and encodes
// a whole world; the Sender takes an ack once, and only a newer one).
func (s *Server) readAcks(c *client) {
	var view world.World
	c.conn.SetReadLimit(maxAckMessage)
	for {
		kind, msg, err := c.conn.ReadMessage()
		if err != nil {
			return
		}
		if kind != websocket.BinaryMessage || len(msg) != 6 {
			continue
		}
		seq, sum := binary.LittleEndian.Uint16(msg), binary.LittleEndian.Uint32(msg[2:])
		c.mu.Lock()
		taken := c.sender.Stats().Acks
		c.sender.Ack(seq)
		c.stats.Ack = seq
		switch {
		case c.sender.Stats().Acks == taken || !c.sender.View(seq, &view):
			c.stats.Ignored++
		default:
			b, err := s.codec.Marshal(&view)
			if err == nil && crc32.ChecksumIEEE(b) == sum {
				c.stats.Acked++
			} else {
				c.stats.Mismatch++
			}
		}
		c.mu.Unlock()
	}
}

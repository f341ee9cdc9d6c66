package main

import (
	"fmt"
	"io"
	"sync"
)

// record is one packet the server sent (or lost on the way) to one
// client.
type record struct {
	tick       uint32
	phase      int
	client     int
	bytes      int  // the packet, header included (Seal's CRC aside)
	sent       int  // entities it carried
	waiting    int  // entities that differ from the client's acknowledged view and wait for a later packet
	stalest    int  // packets since the longest-waiting of them was last sent
	base       int  // how many packets back its base is (0: the zero base)
	full, json int  // bytes of the same world whole, and as JSON
	late       bool // in the second half of its phase: the stream has settled
}

// tickLog collects records; the server is its only writer.
type tickLog struct {
	mu      sync.Mutex
	records []record
}

func (l *tickLog) add(r record) {
	l.mu.Lock()
	l.records = append(l.records, r)
	l.mu.Unlock()
}

// crc is what Seal adds to each packet.
const crc = 4

// report is what a run sent.
type report struct {
	log              []record
	entities         int
	decoded, refused int // packets the clients read and checked; refused
}

// phaseStats sums up one phase's records.
type phaseStats struct {
	full, json         int // bytes of the world whole and as JSON (the phase's last)
	packets            int
	minB, maxB, sumB   int          // packet bytes
	late               int          // packets in the phase's second half
	maxLate            int          // the largest of those
	synced             map[int]bool // clients whose view was the whole world (a packet that carried nothing and left nothing waiting)
	maxSynced          int          // the largest packet to a client after that
	sumSent            int
	maxStale, maxBase  int
	worst              float64 // the largest packet/full of those
	clients            map[int]bool
	firstTick, endTick uint32
}

func (r *report) stats(phase int) phaseStats {
	s := phaseStats{minB: -1, clients: map[int]bool{}, synced: map[int]bool{}}
	for _, x := range r.log {
		if x.phase != phase {
			continue
		}
		if s.firstTick == 0 || x.tick < s.firstTick {
			s.firstTick = x.tick
		}
		s.endTick = max(s.endTick, x.tick)
		s.clients[x.client] = true
		s.full, s.json = x.full, x.json
		s.packets++
		s.sumB += x.bytes
		if s.minB < 0 || x.bytes < s.minB {
			s.minB = x.bytes
		}
		s.maxB = max(s.maxB, x.bytes)
		s.sumSent += x.sent
		s.maxStale = max(s.maxStale, x.stalest)
		s.maxBase = max(s.maxBase, x.base)
		if s.synced[x.client] {
			s.maxSynced = max(s.maxSynced, x.bytes)
		} else if x.sent == 0 && x.waiting == 0 {
			s.synced[x.client] = true
		}
		if x.late {
			s.late++
			s.maxLate = max(s.maxLate, x.bytes)
			s.worst = max(s.worst, float64(x.bytes)/float64(x.full))
		}
	}
	return s
}

// targets: the largest packet/full a phase may send once settled, in the
// second half of the phase (at rest: 8 bytes once a client has the world,
// checked apart).
var targets = map[string]float64{"1%": 1.0 / 20, "10%": 1.0 / 5}

// missed lists the targets a run missed.
func (r *report) missed() []string {
	var out []string
	for p, ph := range phases {
		s := r.stats(p)
		switch {
		case s.packets == 0:
			out = append(out, ph.name+": no packet was sent")
			continue
		case s.maxB > budget:
			out = append(out, fmt.Sprintf("%s: a packet of %d bytes, over the budget of %d", ph.name, s.maxB, budget))
		case ph.moving == 0 && len(s.synced) < len(s.clients):
			out = append(out, fmt.Sprintf("at rest: the world reached %d of the %d clients", len(s.synced), len(s.clients)))
		case ph.moving == 0 && s.maxSynced > 8:
			out = append(out, fmt.Sprintf("at rest: a packet of %d bytes to a client that had the world, not 8", s.maxSynced))
		}
		if t, ok := targets[ph.name]; ok && s.worst > t {
			out = append(out, fmt.Sprintf("%s moving: a packet of %.4f of the full snapshot, more than %.4f", ph.name, s.worst, t))
		}
	}
	return out
}

// print writes the report.
func (r *report) print(out io.Writer, cfg config) {
	fmt.Fprintf(out, "bitpack udpsnap: a server and %d clients over UDP on 127.0.0.1, %d entities, %g Hz, %d ticks per phase, %.0f%% of packets lost each way, budget %d bytes, seed %d\n\n",
		cfg.clients, r.entities, cfg.hz, cfg.ticks, 100*cfg.loss, budget, cfg.seed)
	const row = "%-8s %7s %9s %11s %9s %9s %7s %9s %9s %9s\n"
	fmt.Fprintf(out, row, "moving", "full B", "packet B", "min/max B", "entities", "stalest", "worst", "full", "sent", "JSON")
	fmt.Fprintf(out, row, "", "", "(avg)", "", "(avg)", "(max)", "pkt/full", "kbit/s", "kbit/s", "kbit/s")
	for p, ph := range phases {
		s := r.stats(p)
		seconds := float64(int(s.endTick-s.firstTick)+1) / cfg.hz * float64(len(s.clients))
		kbit := func(bytes int) string { return fmt.Sprintf("%.1f", float64(bytes)*8/1000/seconds) }
		avg, ents := 0.0, 0.0
		if s.packets > 0 {
			avg, ents = float64(s.sumB)/float64(s.packets), float64(s.sumSent)/float64(s.packets)
		}
		fmt.Fprintf(out, row, ph.name, fmt.Sprint(s.full), fmt.Sprintf("%.1f", avg), fmt.Sprintf("%d/%d", max(s.minB, 0), s.maxB),
			fmt.Sprintf("%.1f", ents), fmt.Sprint(s.maxStale), worstText(s.worst),
			kbit(s.packets*(s.full+crc)), kbit(s.sumB+s.packets*crc), kbit(s.packets*(s.json+crc)))
	}
	fmt.Fprintf(out, `
A packet is what snapshot.Sender.Append wrote: its header (7 bytes on an
acknowledged view, 11 on the zero base) and the delta from the client's
newest acknowledged view, at most %d bytes; the world arrives over the
first packets, highest priority first. "entities" is how many a packet
carried, "stalest" the most packets an entity that changed waited to be
sent, "worst" the largest packet of the phase's second half (the stream
settled) against the whole snapshot. kbit/s is per client, %d bytes of CRC a packet included: the
whole snapshot every tick, what was sent, and JSON every tick.
The clients read and checked %d packets: each view is exactly the server's (%d refused).
`, budget, crc, r.decoded, r.refused)
	if missed := r.missed(); len(missed) == 0 {
		fmt.Fprintf(out, "Targets met: every packet within %d bytes; at rest, once a client has the world, 8 bytes; settled, 1%% moving at most 1/20 of the full snapshot, 10%% at most 1/5.\n", budget)
	} else {
		fmt.Fprintf(out, "Targets MISSED: %v\n", missed)
	}
}

func worstText(w float64) string {
	if w == 0 {
		return "-"
	}
	return fmt.Sprintf("1/%.0f", 1/w)
}

package main

import (
	"fmt"
	"io"
	"sync"
)

// record is one snapshot the server sent (or lost on the way) to one
// client.
type record struct {
	tick       uint32
	phase      int
	client     int
	delta      bool // a delta; else the full snapshot
	payload    int  // bytes of the snapshot part (header and CRC aside)
	full, json int  // bytes of the same snapshot whole, and as JSON
	age        int  // a delta's base is this many ticks old
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

// overhead is what each packet adds to its payload: the header and the
// CRC Seal prepends.
const overhead = headerBytes + 4

// report is what a run sent.
type report struct {
	log      []record
	entities int
	decoded  int // snapshots the clients decoded and checked
}

// phaseStats sums up one phase's records.
type phaseStats struct {
	full, json         int     // bytes of a snapshot whole and as JSON (the phase's last)
	deltas, fulls      int     // packets of each kind
	minD, maxD, sumD   int     // delta payload bytes
	worst              float64 // the largest delta/full of a tick
	sent, sentJSON     int     // bytes sent, and what full snapshots and JSON would have sent (packets included)
	sentFull           int
	maxAge             int
	clients            map[int]bool
	firstTick, endTick uint32
}

func (r *report) stats(phase int) phaseStats {
	s := phaseStats{minD: -1, clients: map[int]bool{}}
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
		s.sent += x.payload + overhead
		s.sentFull += x.full + overhead
		s.sentJSON += x.json + overhead
		if !x.delta {
			s.fulls++
			continue
		}
		s.deltas++
		s.sumD += x.payload
		if s.minD < 0 || x.payload < s.minD {
			s.minD = x.payload
		}
		s.maxD = max(s.maxD, x.payload)
		s.worst = max(s.worst, float64(x.payload)/float64(x.full))
		s.maxAge = max(s.maxAge, x.age)
	}
	return s
}

// targets: the largest delta/full a phase may send in any tick (at rest,
// 1 byte, checked apart).
var targets = map[string]float64{"1%": 1.0 / 20, "10%": 1.0 / 5}

// missed lists the targets a run missed.
func (r *report) missed() []string {
	var out []string
	for p, ph := range phases {
		s := r.stats(p)
		if s.deltas == 0 {
			out = append(out, ph.name+": no delta was sent")
			continue
		}
		if ph.moving == 0 && s.maxD != 1 {
			out = append(out, fmt.Sprintf("at rest: a delta of %d bytes, not 1", s.maxD))
		}
		if t, ok := targets[ph.name]; ok && s.worst > t {
			out = append(out, fmt.Sprintf("%s moving: a delta of %.4f of the full snapshot, more than %.4f", ph.name, s.worst, t))
		}
	}
	return out
}

// print writes the report.
func (r *report) print(out io.Writer, cfg config) {
	fmt.Fprintf(out, "bitpack udpsnap: a server and %d clients over UDP on 127.0.0.1, %d entities, %g Hz, %d ticks per phase, %.0f%% of packets lost each way, seed %d\n\n",
		cfg.clients, r.entities, cfg.hz, cfg.ticks, 100*cfg.loss, cfg.seed)
	const row = "%-8s %7s %7s %13s %9s %8s %9s %9s %9s\n"
	fmt.Fprintf(out, row, "moving", "full B", "delta B", "min/max B", "worst", "fulls", "full", "delta", "JSON")
	fmt.Fprintf(out, row, "", "", "(avg)", "", "delta/full", "sent", "kbit/s", "kbit/s", "kbit/s")
	for p, ph := range phases {
		s := r.stats(p)
		seconds := float64(int(s.endTick-s.firstTick)+1) / cfg.hz * float64(len(s.clients))
		kbit := func(bytes int) string { return fmt.Sprintf("%.1f", float64(bytes)*8/1000/seconds) }
		avg := 0.0
		if s.deltas > 0 {
			avg = float64(s.sumD) / float64(s.deltas)
		}
		fmt.Fprintf(out, row, ph.name, fmt.Sprint(s.full), fmt.Sprintf("%.1f", avg), fmt.Sprintf("%d/%d", max(s.minD, 0), s.maxD),
			worstText(s.worst), fmt.Sprint(s.fulls), kbit(s.sentFull), kbit(s.sent), kbit(s.sentJSON))
	}
	fmt.Fprintf(out, `
Bytes are a snapshot's payload: full as Append writes it, delta as AppendDelta
does against the client's newest acknowledged tick (deltas only; "fulls sent"
counts the ticks a client had no acknowledged snapshot the server still kept).
kbit/s is per client, packets included (%d bytes of header and CRC each): full
snapshots every tick, what was sent, and JSON every tick. "worst" is the largest
delta of any tick and client against the full snapshot of that tick.
The clients decoded and checked %d snapshots: each is exactly the server's.
`, overhead, r.decoded)
	if missed := r.missed(); len(missed) == 0 {
		fmt.Fprintln(out, "Targets met in every tick: at rest 1 byte; 1% moving at most 1/20 of the full snapshot; 10% at most 1/5.")
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

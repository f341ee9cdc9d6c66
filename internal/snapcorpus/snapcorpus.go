// Package snapcorpus records snapshot streams for other Receivers to
// replay, snapshot/testdata/stream.json (History 16) and a file for each
// other History of Recordings: the packets one client's Receiver got, in the order it got
// them, then packets crafted to reach each refusal the channel did not,
// each with what Go's Receiver did with it. A Receiver written from
// docs/wire.md ("Snapshot streams") must do the same, step for step; the
// generated clients' tests replay the files. Record writes them and
// snapshot's TestRecordedStream checks them (-update rewrites them). The
// files' format, what their steps hold and the World type of their views
// are in docs/wire.md ("The recorded streams"), where an implementer of a
// Receiver reads them.
package snapcorpus

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/snapwire"
	"github.com/bitpack-go/bitpack/snapshot"
)

// Unit, Shot, Item and World are the recorded stream's types: an entity
// set of each kind (a sparse array, a sparse slice, a map with integer
// keys) and non-entity fields.
type Unit struct {
	X, Y float32 `bits:"float,min=-100,max=100,res=0.01"`
	HP   uint8   `bits:"range=0..100"`
	Name string  `bits:"maxlen=8"`
}

type Shot struct {
	Dir uint8 `bits:"range=0..63"`
}

type Item struct {
	Count uint16 `bits:"range=0..999"`
}

type World struct {
	Tick  uint32
	Units [40]*Unit       `bits:"sparse"`
	Shots []*Shot         `bits:"sparse,maxlen=16"`
	Items map[int16]*Item `bits:"maxlen=32"`
}

// File is the recorded stream.
type File struct {
	Type        string `json:"type"`
	Fingerprint string `json:"fingerprint"`
	Schema      string `json:"schema"`
	History     int    `json:"history"`
	Steps       []Step `json:"steps,omitempty"`
}

// Step is one thing the Receiver is given, and what it did.
type Step struct {
	Why    string `json:"why,omitempty"`
	Reset  bool   `json:"reset,omitempty"`
	Packet string `json:"packet,omitempty"`
	Seq    *int   `json:"seq,omitempty"`
	View   string `json:"view,omitempty"`
	Error  string `json:"error,omitempty"`
	Ack    int    `json:"ack"`
}

// History is the History of stream.json, the first recorded stream.
const History = 16

// A Recording is one recorded stream: its History, the file under
// snapshot/testdata that holds it, and how its channel runs.
type Recording struct {
	History int
	File    string
	ticks   int    // how many packets the client's Sender sends it
	skipped uint16 // packets both Senders send before the first the client is sent: where the sequences start
	deaf    [2]int // the ticks [from, to) whose Acks the Sender does not get
}

// Recordings are the recorded streams: History 16 (stream.json); 2, the
// smallest (a view evicted every other sequence, packets older than the
// history off the channel; the sequences wrap from 65535 to 0 on the
// way); and 256, where offsets past 127 are legal (a run of 201 packets
// whose Acks are lost, so that the Sender's base falls up to 202 back and
// the offsets take the long form, 127 and 128 among them; the sequences
// wrap during the run, so that bases lie across it).
var Recordings = []Recording{
	{History: History, File: "stream.json", ticks: 160},
	{History: 2, File: "stream-history2.json", ticks: 160, skipped: 65536 - 74},
	{History: 256, File: "stream-history256.json", ticks: 340, skipped: 65536 - 250, deaf: [2]int{119, 320}},
}

// Entities are the World's entity sets.
var Entities = []string{"Units", "Shots", "Items"}

// relevant hides units by a boundary that sweeps across them, and items
// by turns.
func relevant(w *World, e snapshot.Entity) bool {
	switch e.Field {
	case "Units":
		return w.Units[e.Key].X < float32(int(w.Tick%50)*4-100)
	case "Items":
		return e.Key%3 != int64(w.Tick/9%3)
	}
	return true
}

// sim is the world the server runs.
type sim struct {
	rng *rand.Rand
	w   World
}

func newSim(seed uint64) *sim {
	s := &sim{rng: rand.New(rand.NewPCG(seed, 29))}
	for i := range 30 {
		s.w.Units[i] = &Unit{X: s.coord(), Y: s.coord(), HP: 100, Name: string(rune('a' + i%26))}
	}
	s.w.Items = map[int16]*Item{}
	for range 12 {
		s.w.Items[int16(s.rng.IntN(200)-100)] = &Item{Count: uint16(s.rng.IntN(1000))}
	}
	return s
}

func (s *sim) coord() float32 { return float32(s.rng.Float64()*190 - 95) }

// step moves the world a tick.
func (s *sim) step() {
	w := &s.w
	w.Tick++
	for i, u := range w.Units {
		switch {
		case u == nil && s.rng.IntN(40) == 0:
			w.Units[i] = &Unit{X: s.coord(), Y: s.coord(), HP: 50, Name: "new"}
		case u != nil && s.rng.IntN(60) == 0:
			w.Units[i] = nil
		case u != nil && s.rng.IntN(3) == 0:
			u.X = min(99, max(-99, u.X+float32(s.rng.Float64()-0.5)*4))
			u.HP = uint8(s.rng.IntN(101))
		}
	}
	if s.rng.IntN(3) == 0 && len(w.Shots) < 16 {
		w.Shots = append(w.Shots, &Shot{Dir: uint8(s.rng.IntN(64))})
	}
	if len(w.Shots) > 0 && s.rng.IntN(4) == 0 {
		w.Shots[s.rng.IntN(len(w.Shots))] = nil
	}
	if len(w.Shots) > 10 {
		w.Shots = w.Shots[:4]
	}
	for _, k := range slices.Sorted(maps.Keys(w.Items)) { // in key order: the same on every run
		it := w.Items[k]
		if s.rng.IntN(5) == 0 {
			it.Count = uint16(s.rng.IntN(1000))
		}
		if s.rng.IntN(40) == 0 {
			delete(w.Items, k)
		}
	}
	if s.rng.IntN(6) == 0 && len(w.Items) < 32 {
		w.Items[int16(s.rng.IntN(200)-100)] = &Item{Count: 1}
	}
}

// Record plays a client's stream over a lossy channel and records what
// its Receiver, of History history (one of Recordings'), was given and
// did. It is deterministic.
func Record(history int) (*File, error) {
	i := slices.IndexFunc(Recordings, func(r Recording) bool { return r.History == history })
	if i < 0 {
		return nil, fmt.Errorf("snapcorpus: no recording of History %d", history)
	}
	rc := Recordings[i]
	codec, err := bitpack.NewCodec[World]()
	if err != nil {
		return nil, err
	}
	fp, err := bitpack.Fingerprint(&World{})
	if err != nil {
		return nil, err
	}
	rec := &recorder{codec: codec, rng: rand.New(rand.NewPCG(28, 29)), old: map[string]bool{},
		file: &File{Type: "snapcorpus.World", Fingerprint: fmt.Sprintf("%#08x", fp), Schema: codec.Layout().Schema(), History: history}}
	opts := snapshot.Options[World]{Budget: 160, Entities: Entities, Relevant: relevant, History: history, Stream: 0x5eed0001}
	if rec.s, err = snapshot.NewSender(opts); err != nil {
		return nil, err
	}
	if rec.r, err = snapshot.NewReceiver(opts); err != nil {
		return nil, err
	}
	other := opts
	other.Stream, other.Relevant = 0x5eed0002, nil
	if rec.other, err = snapshot.NewSender(other); err != nil {
		return nil, err
	}
	// Packets of an empty world the client is not sent, from the zero
	// base (nothing is acknowledged): they move both Senders' sequences
	// to where the recording starts.
	var skip []byte
	for range rc.skipped {
		for _, s := range []*snapshot.Sender[World]{rec.s, rec.other} {
			if skip, err = s.Append(skip[:0], &World{}); err != nil {
				return nil, err
			}
		}
	}
	world := newSim(1)
	var sent [][]byte // every packet of the stream, by the order sent
	for tick := range rc.ticks {
		rec.deaf = rc.deaf[0] <= tick && tick < rc.deaf[1]
		world.step()
		pkt, err := rec.s.Append(nil, &world.w)
		if err != nil {
			return nil, err
		}
		sent = append(sent, pkt)
		o, err := rec.other.Append(nil, &world.w)
		if err != nil {
			return nil, err
		}
		rec.other.Ack(binary.LittleEndian.Uint16(o)) // the other client reads everything
		rec.send(tick, pkt)
		switch {
		case tick == 100:
			// The client reconnects: both ends start a new stream; the old
			// stream's packets still on the way arrive after.
			rec.s.Reset()
			rec.r.Reset()
			rec.add(Step{Why: "the client reconnects", Reset: true})
		case tick%7 == 3 && o[2] != 0:
			rec.deliver("another client's stream, the same sequences", o)
		case tick%11 == 5:
			rec.deliver("a damaged check", damage(pkt, 4))
		case tick%13 == 6 && evicted(sent, history) != nil:
			rec.deliver("a packet whose base was evicted", evicted(sent, history))
		case tick%17 == 8:
			rec.deliver("a damaged offset", damage(pkt, 2))
		case tick%19 == 9:
			rec.deliver("a truncated packet", pkt[:len(pkt)/2])
		}
		if tick == 100 {
			for _, q := range rec.queue {
				rec.old[string(q.b)] = true
			}
		}
		if tick == 110 {
			// The old stream's first packet, from the zero base, arrives
			// once the new stream has begun: starting the new stream left
			// the old one, so it is refused (read, it would take the
			// Receiver back to a stream its Sender has left).
			rec.deliver("the old stream's zero base, late after the reconnect", sent[0])
		}
		for _, b := range rec.arrivals(tick) {
			rec.deliver(rec.why(b), b)
		}
	}
	for _, b := range rec.arrivals(1 << 30) {
		rec.deliver(rec.why(b), b)
	}
	// The crafted packets are made from the last one accepted on a view,
	// which must still be readable: at a small History the channel may
	// leave the Receiver past its base. Then the Sender, acknowledged,
	// sends more, none lost, until one is on the newest view.
	for !rec.lastReadable(history) {
		if len(sent) > rc.ticks+4 {
			return nil, errors.New("snapcorpus: no packet on a view the Receiver holds")
		}
		rec.s.Ack(rec.r.Ack())
		world.step()
		pkt, err := rec.s.Append(nil, &world.w)
		if err != nil {
			return nil, err
		}
		sent = append(sent, pkt)
		rec.deliver("after the channel, acknowledged, on the newest view", pkt)
	}
	for _, c := range crafted(rec.lastZero, rec.last, rec.r.Ack(), history) {
		if c.packet == nil {
			rec.r.Reset()
			rec.add(Step{Why: c.why, Reset: true})
			continue
		}
		rec.deliver(c.why, c.packet)
	}
	return rec.file, nil
}

// evicted is the newest packet sent history+24 or more packets ago
// built on a view (not the zero base), or nil: its base is more than
// history+24 back, a view no Receiver of the History holds any longer.
func evicted(sent [][]byte, history int) []byte {
	for k := len(sent) - history - 24; k >= 0; k-- {
		if sent[k][2] != 0 {
			return sent[k]
		}
	}
	return nil
}

// craftedStep is a packet made to reach a refusal (or a reset: packet nil).
type craftedStep struct {
	why    string
	packet []byte
}

// crafted makes, from the stream's last accepted packets from the zero
// base (lastZero) and from a view (last), and the newest sequence read,
// the packets that reach each of a Receiver's refusals the channel did
// not: each header check, a delta cut short, damaged or with a byte
// after it, a packet older than the history, a reset, and zero bases of
// streams started and left — more than the 4 left a Receiver remembers,
// so that the oldest is forgotten.
func crafted(lastZero, last []byte, newest uint16, history int) []craftedStep {
	stream := binary.LittleEndian.Uint32(lastZero[7:])
	// A zero-base packet of stream, unchanged, at seq.
	atRestIn := func(stream uint32, seq uint16) []byte {
		p := binary.LittleEndian.AppendUint16(nil, seq)
		p = append(p, 0)
		p = binary.LittleEndian.AppendUint32(p, crc32.ChecksumIEEE(binary.LittleEndian.AppendUint32(nil, stream)))
		p = binary.LittleEndian.AppendUint32(p, stream)
		return append(p, 0)
	}
	atRest := func(seq uint16) []byte { return atRestIn(stream, seq) }
	flip := func(p []byte, bit int) []byte {
		q := slices.Clone(p)
		q[bit/8] ^= 1 << (bit % 8)
		return q
	}
	n := snapwire.HeaderSize(last)
	// last with another offset field: a byte, or the long form's two.
	offset := func(field ...byte) []byte { return slices.Concat(last[:2], field, last[n-4:]) }
	long := func(offset int) []byte { w := uint16(offset)<<1 | 1; return []byte{byte(w), byte(w >> 8)} }
	past := offset(byte(history) << 1)
	if history > 127 {
		past = offset(long(history)...)
	}
	steps := []craftedStep{
		{"7 bytes", last[:7]},
		{"a zero-base header and no delta", lastZero[:11]},
		{"a long form that the short form carries", offset(long(5)...)},
		{"an offset past History", past},
		{"a zero base whose check is wrong", flip(lastZero, 8*4)},
		{"the current stream's zero base, older than the history", atRest(newest - uint16(history) - 4)},
		{"a delta cut short", last[:len(last)-1]},
		{"a byte after the delta", append(slices.Clone(last), 0)},
		{"a delta that changes nothing", append(slices.Clone(last[:n]), 0x01)},
	}
	for bit := 8 * n; bit < min(8*len(last), 8*n+48); bit += 5 {
		steps = append(steps, craftedStep{fmt.Sprintf("the last packet, delta bit %d flipped", bit-8*n), flip(last, bit)})
	}
	steps = append(steps,
		craftedStep{"the last packet again", last},
		craftedStep{"the current stream's zero base, the newest", atRest(newest + 1)},
		craftedStep{"a reset", nil},
		craftedStep{"a packet on a view forgotten", last},
		craftedStep{"the current stream's zero base after the reset", atRest(newest + 2)},
	)
	// Streams started and left: the first (before the reconnect, which
	// Reset did not leave), five others, and the first again, by then no
	// longer among the 4 streams left remembered.
	others := []uint32{0x5eed0001, stream, 0x0badf00d, 0x5eed0001, 0x11111111, 0x22222222, 0x33333333, 0x44444444, 0x5eed0001, stream, 0x0badf00d}
	for k, s := range others {
		steps = append(steps, craftedStep{fmt.Sprintf("stream %#08x's zero base", s), atRestIn(s, newest+3+uint16(k))})
	}
	return steps
}

// damage flips a bit of byte i.
func damage(pkt []byte, i int) []byte {
	b := slices.Clone(pkt)
	if i < len(b) {
		b[i] ^= 0x08
	}
	return b
}

// recorder is the channel and the client's end.
type recorder struct {
	codec    *bitpack.Codec[World]
	rng      *rand.Rand
	s, other *snapshot.Sender[World]
	r        *snapshot.Receiver[World]
	v        World
	queue    []queued
	old      map[string]bool // packets of the stream before the reconnect, still on the way then
	file     *File
	deaf     bool // the client's Acks are lost
	// the last packets accepted from the zero base and from a view
	lastZero, last []byte
}

// lastReadable reports whether the Receiver still holds the base of the
// last packet it accepted on a view.
func (c *recorder) lastReadable(history int) bool {
	if c.last == nil {
		return false
	}
	offset := uint16(c.last[2] >> 1)
	if c.last[2]&1 != 0 {
		offset = binary.LittleEndian.Uint16(c.last[2:]) >> 1
	}
	base := binary.LittleEndian.Uint16(c.last) - offset
	return int(c.r.Ack()-base) < history
}

// why says what a packet off the channel is.
func (c *recorder) why(b []byte) string {
	if c.old[string(b)] {
		return "the old stream, after the reconnect"
	}
	return ""
}

type queued struct {
	at int
	b  []byte
}

// send puts a packet on the channel: 10% lost, 5% duplicated, delayed
// up to 2 ticks.
func (c *recorder) send(now int, b []byte) {
	copies := 1
	if c.rng.Float64() < 0.05 {
		copies = 2
	}
	for range copies {
		if c.rng.Float64() < 0.10 {
			continue
		}
		c.queue = append(c.queue, queued{at: now + c.rng.IntN(3), b: b})
	}
}

// arrivals returns the packets due at now, shuffled.
func (c *recorder) arrivals(now int) [][]byte {
	var due [][]byte
	kept := c.queue[:0]
	for _, q := range c.queue {
		if q.at <= now {
			due = append(due, q.b)
		} else {
			kept = append(kept, q)
		}
	}
	c.queue = kept
	c.rng.Shuffle(len(due), func(i, j int) { due[i], due[j] = due[j], due[i] })
	return due
}

// deliver reads a packet, records the step and sends the ack back (lost
// like packets, 10%).
func (c *recorder) deliver(why string, b []byte) {
	seq, err := c.r.Read(b, &c.v)
	st := Step{Why: why, Packet: hex.EncodeToString(b)}
	if err != nil {
		st.Error = Category(err)
	} else {
		view, err := c.codec.Marshal(&c.v)
		if err != nil {
			panic(err) // a view bitpack decoded encodes
		}
		n := int(seq)
		st.Seq, st.View = &n, hex.EncodeToString(view)
		if b[2] == 0 {
			c.lastZero = b
		} else {
			c.last = b
		}
		if c.rng.Float64() >= 0.10 && !c.deaf {
			c.s.Ack(c.r.Ack())
		}
	}
	c.add(st)
}

func (c *recorder) add(st Step) {
	st.Ack = int(c.r.Ack())
	c.file.Steps = append(c.file.Steps, st)
}

// Category names the refusal err reports: "no-base", or bitpack's
// category.
func Category(err error) string {
	for _, c := range []struct {
		err  error
		name string
	}{
		{snapshot.ErrNoBase, "no-base"}, {bitpack.ErrRange, "range"}, {bitpack.ErrOverflow, "overflow"},
		{bitpack.ErrPadding, "padding"}, {bitpack.ErrInvalidString, "invalid-string"},
		{bitpack.ErrTrailing, "trailing"}, {bitpack.ErrDepth, "depth"},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	return "other: " + err.Error()
}

// Replay gives f's steps to a new Go Receiver and reports the first step
// it does not do as recorded.
func Replay(f *File) error {
	codec, err := bitpack.NewCodec[World]()
	if err != nil {
		return err
	}
	r, err := snapshot.NewReceiver(snapshot.Options[World]{History: f.History})
	if err != nil {
		return err
	}
	var v World
	for i, st := range f.Steps {
		if st.Reset {
			r.Reset()
		} else {
			pkt, err := hex.DecodeString(st.Packet)
			if err != nil {
				return fmt.Errorf("step %d: %v", i, err)
			}
			seq, err := r.Read(pkt, &v)
			switch {
			case err != nil && Category(err) != st.Error:
				return fmt.Errorf("step %d (%s): refused as %s (%v), recorded %q", i, st.Why, Category(err), err, st.Error)
			case err == nil && st.Error != "":
				return fmt.Errorf("step %d (%s): accepted, recorded refused as %s", i, st.Why, st.Error)
			case err == nil:
				view, err := codec.Marshal(&v)
				if err != nil {
					return err
				}
				if st.Seq == nil || int(seq) != *st.Seq || hex.EncodeToString(view) != st.View {
					return fmt.Errorf("step %d: sequence %d and its view differ from the recorded", i, seq)
				}
			}
		}
		if int(r.Ack()) != st.Ack {
			return fmt.Errorf("step %d (%s): Ack %d, recorded %d", i, st.Why, r.Ack(), st.Ack)
		}
	}
	return nil
}

// Marshal writes f as the file is written: indented JSON, one step a
// line.
func Marshal(f *File) ([]byte, error) {
	head := *f
	head.Steps = nil
	b, err := marshal(head, "  ")
	if err != nil {
		return nil, err
	}
	b = b[:len(b)-3] // the closing "\n}\n"
	b = append(b, ",\n  \"steps\": ["...)
	for i, st := range f.Steps {
		line, err := marshal(st, "")
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = append(b, line[:len(line)-1]...)
	}
	return append(b, "\n  ]\n}\n"...), nil
}

// marshal encodes v as JSON without escaping <, > and & (the schema holds
// them), indented by indent unless it is "", with a newline at the end.
func marshal(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if indent != "" {
		e.SetIndent("", indent)
	}
	err := e.Encode(v)
	return b.Bytes(), err
}

package gen

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/snapcorpus"
	"github.com/bitpack-go/bitpack/internal/snapwire"
	"github.com/bitpack-go/bitpack/snapshot"
)

// The damaged stream: every packet of snapshot/testdata/stream.json,
// damaged systematically (every bit of its header and of the first 16
// bytes of its delta flipped, cut at every length, a byte appended, its
// header's fields set to edge values), given to each language's receiver
// at two points — before the packet itself, and just after it — and
// then the rest of the stream. Every answer must be Go's Receiver's; a
// packet Go refuses is given inline, so the stream's later packets (the
// views, the sequences, the acks) show whether the refusal changed
// anything; a packet Go accepts changes the receiver, so it is given on
// a fork of its own: a new receiver, the stream up to it, the packet,
// and the next damageWindow steps.

var damageAll = flag.Bool("gen.damage", false, "give the receivers every damaged packet of the recorded stream (a campaign, minutes of CPU), not a sample")

// damageWindow is how many of the stream's steps follow a damaged packet
// Go accepts: more than History, so that every view the packet could
// have changed is a base, or evicted, by the end of it.
const damageWindow = 24

// damageBodyBytes is how many bytes of a packet's delta are flipped bit
// by bit (its header's always are).
const damageBodyBytes = 16

// damageSample: BITPACK_FULL=1 gives one damaged packet in damageSample
// of stream.json's two streams.
const damageSample = 16

// damageSamplePlan is BITPACK_FULL=1's plan for the stream of History
// history: one damaged packet in damageSample and a fork for a delta bit
// flipped at one place in 32 at History 16 (forks are most of the cost:
// each replays the stream up to it); the other Histories' streams are
// longer, and at 256 a fork is most of the stream, so a sample of them
// is thinner.
func damageSamplePlan(history int) damagePlan {
	rng := rand.New(rand.NewPCG(7, uint64(history)))
	keep, fork, forks := damageSample, 4, 32
	if history != snapcorpus.History {
		keep, fork, forks = 64, 4, 0
	}
	return damagePlan{
		keep: func() bool { return rng.IntN(keep) == 0 },
		fork: func() bool { return rng.IntN(fork) == 0 },
		bodyForks: func(step, at int) int {
			if forks > 0 && (2*step+at)%forks == 0 {
				return 1
			}
			return 0
		},
	}
}

// damageAllPlan gives every damaged packet, and two forks of each
// packet's with a delta bit flipped at each place.
var damageAllPlan = damagePlan{keep: func() bool { return true }, fork: func() bool { return true }, bodyForks: func(int, int) int { return 2 }}

// An rxStep is a command for a receiver driver and Go's answer to it.
type rxStep struct {
	what    string
	op      byte // 'n': a new receiver of History history; 'r': reset; 'p': the packet
	history int  // 'n': the new receiver's History
	packet  []byte
	damaged bool // a damaged packet given inline (Go refuses it)

	ok   bool
	seq  uint16
	view string // the view's full encoding, hex
	err  error
	ack  uint16
}

// rxOracle is Go's Receiver, answering rxSteps.
type rxOracle struct {
	codec *bitpack.Codec[snapcorpus.World]
	r     *snapshot.Receiver[snapcorpus.World]
	v     snapcorpus.World
}

func newRxOracle(t *testing.T) *rxOracle {
	t.Helper()
	codec, err := bitpack.NewCodec[snapcorpus.World]()
	if err != nil {
		t.Fatal(err)
	}
	return &rxOracle{codec: codec}
}

// do gives st to Go's Receiver and records its answer in st.
func (o *rxOracle) do(t *testing.T, st *rxStep) {
	t.Helper()
	switch st.op {
	case 'n':
		r, err := snapshot.NewReceiver(snapshot.Options[snapcorpus.World]{History: st.history})
		if err != nil {
			t.Fatal(err)
		}
		o.r = r
	case 'r':
		o.r.Reset()
	default:
		before, err := o.codec.Marshal(&o.v)
		if err != nil {
			t.Fatal(err)
		}
		seq, err := o.r.Read(st.packet, &o.v)
		st.seq, st.err, st.ok = seq, err, err == nil
		if after, _ := o.codec.Marshal(&o.v); err != nil && !bytes.Equal(after, before) {
			t.Fatalf("%s: Go's Receiver refused packet %x (%v) and changed the value read into: %x, was %x", st.what, st.packet, err, after, before)
		}
		if err == nil {
			view, err := o.codec.Marshal(&o.v)
			if err != nil {
				t.Fatal(err)
			}
			st.view = hex.EncodeToString(view)
		}
	}
	st.ack = o.r.Ack()
}

// decodes reports whether delta decodes against the base of packet p
// (the view held as base, or the zero base): whether Go's receiver would
// accept p with delta for its own, given that it accepts p's header.
func (o *rxOracle) decodes(p, delta []byte, base uint16) bool {
	var b, v snapcorpus.World
	if snapwire.HeaderSize(p) != snapwire.ZeroHeader && !o.r.View(base, &b) {
		return false
	}
	return o.codec.UnmarshalDelta(delta, &b, &v) == nil
}

// A damage is a packet made from one of the stream's, and how.
type damage struct {
	what   string
	packet []byte
	bit    int // the bit flipped, or -1
}

// zeroBaseID is the id of stream s's zero base: the CRC-32 of its 4
// little-endian bytes (docs/wire.md, "Ids").
func zeroBaseID(s uint32) uint32 {
	return crc32.ChecksumIEEE(binary.LittleEndian.AppendUint32(nil, s))
}

// damageEdges is what the receiver holds where a packet is damaged,
// which the damages' edges are chosen by.
type damageEdges struct {
	history int
	newest  uint16     // the receiver's Ack
	evicted []heldView // views it held and evicted, sharing the slot of the packet's base
	rim     []heldView // the oldest view it holds, and views just past its history that their slots still hold
	streams []uint32   // stream values to re-base the packet on
	// others: the edges met from other sequences (the packet's base
	// named from History−1 ahead of it, the rim's views), which Go
	// mostly accepts: at 256 each costs a fork of most of the stream, so
	// they are made once for each packet, after it.
	others bool
}

// damagesOf are the damaged packets made from p, each made once (the
// first way, when two ways make the same bytes).
func damagesOf(p []byte, e damageEdges) []damage {
	var out []damage
	made := map[string]bool{string(p): true} // p itself is no damage
	add := func(what string, q []byte) {
		if !made[string(q)] {
			made[string(q)] = true
			out = append(out, damage{what, q, -1})
		}
	}
	n := snapwire.HeaderSize(p)
	for bit := range 8 * min(len(p), n+damageBodyBytes) {
		q := slices.Clone(p)
		q[bit/8] ^= 1 << (bit % 8)
		made[string(q)] = true
		out = append(out, damage{fmt.Sprintf("bit %d flipped", bit), q, bit})
	}
	for k := range len(p) {
		add(fmt.Sprintf("cut to %d bytes", k), slices.Clone(p[:k]))
	}
	add("a byte 00 appended", append(slices.Clone(p), 0))
	add("a byte ff appended", append(slices.Clone(p), 0xff))
	if len(p) < n+1 {
		return out
	}
	seq := binary.LittleEndian.Uint16(p)
	h, newest := uint16(e.history), e.newest
	// The sequence's edges: the wrap, half the space away (from the
	// packet's own and from the newest read: newer at most SeqHalf ahead),
	// the history's ends (newest−History+1 is the oldest a packet may be;
	// on a view base it is not held, from the zero base it is read).
	for _, s := range []uint16{0, 1, 0x7fff, 0x8000, 0xffff, seq ^ 0x8000, seq + 1, seq - 1, seq + h - 1, seq + h, seq - h, seq - h + 1, seq + 0x7fff, seq + 0x8001,
		newest - h + 1, newest - h, newest + 1, newest + snapwire.SeqHalf, newest + snapwire.SeqHalf + 1} {
		q := slices.Clone(p)
		binary.LittleEndian.PutUint16(q, s)
		add(fmt.Sprintf("sequence %d", s), q)
	}
	delta := p[n:]
	var check uint32
	var offset uint16
	switch n {
	case snapwire.LongHeader:
		offset, check = binary.LittleEndian.Uint16(p[2:])>>1, binary.LittleEndian.Uint32(p[4:])
	default:
		offset, check = uint16(p[2]>>1), binary.LittleEndian.Uint32(p[3:])
	}
	// header writes a header of any form: the long form for long, the
	// short one (or the zero base's, for offset 0) else.
	header := func(seq, offset uint16, long bool, check, stream uint32) []byte {
		q := binary.LittleEndian.AppendUint16(nil, seq)
		if long {
			q = binary.LittleEndian.AppendUint16(q, offset<<1|1)
		} else {
			q = append(q, byte(offset<<1))
		}
		q = binary.LittleEndian.AppendUint32(q, check)
		if offset == 0 && !long {
			q = binary.LittleEndian.AppendUint32(q, stream)
		}
		return append(q, delta...)
	}
	// The offset's edges, at the packet's sequence (another base):
	// History's, and the forms' (the short form carries 1 to 127, the
	// long one 128 to 32767; a long form of 127 or less is refused).
	for _, o := range []uint16{1, 2, h - 1, h, h + 1, 63, 127} {
		if o <= snapwire.MaxShort {
			add(fmt.Sprintf("offset %d, short form", o), header(seq, o, false, check, 0))
		}
	}
	for _, o := range []uint16{0, 1, offset, h - 1, h, h + 1, 127, 128, 0x3fff, 0x7fff} {
		add(fmt.Sprintf("offset %d, long form", o), header(seq, o, true, check, 0))
	}
	// The same base named from another sequence: the delta still decodes
	// on it, so History's edges and the forms' are met up to the view
	// read (newest moved up to History−1 ahead, views evicted with it).
	if offset != 0 && e.others {
		base := seq - offset
		for _, o := range []uint16{h - 1, h, h + 1, 127, 128} {
			if o != offset && o < snapwire.MaxHistory {
				add(fmt.Sprintf("sequence %d on the same base (offset %d)", base+o, o), header(base+o, o, o > snapwire.MaxShort, check, 0))
			}
		}
		add(fmt.Sprintf("sequence %d on the same base, offset 127 in the long form", base+127), header(base+127, 127, true, check, 0))
	}
	for _, c := range []uint32{check ^ 1, check ^ 0x80000000, 0, 0xffffffff, zeroBaseID(0)} {
		add(fmt.Sprintf("check %#08x", c), header(seq, offset, offset > snapwire.MaxShort, c, binary.LittleEndian.Uint32(p[min(7, len(p)-4):])))
	}
	if offset == 0 {
		stream := binary.LittleEndian.Uint32(p[7:])
		for _, s := range append([]uint32{stream ^ 1, 0, 0xffffffff}, e.streams...) {
			add(fmt.Sprintf("stream %#08x, check its zero base's", s), header(seq, 0, false, zeroBaseID(s), s))
			add(fmt.Sprintf("stream %#08x, check kept", s), header(seq, 0, false, check, s))
		}
	} else {
		for _, s := range e.streams {
			add(fmt.Sprintf("re-based on stream %#08x's zero base", s), header(seq, 0, false, zeroBaseID(s), s))
		}
	}
	// Views the receiver evicted: named by their own sequence (an offset
	// History or more back, or one the slot now holds another view for)
	// and by the offset the packet has.
	for _, v := range e.evicted {
		add(fmt.Sprintf("check of evicted view %d", v.seq), header(seq, offset, offset > snapwire.MaxShort, v.id, 0))
		back := seq - v.seq
		if back != 0 && back < snapwire.MaxHistory {
			add(fmt.Sprintf("on evicted view %d (offset %d)", v.seq, back), header(seq, back, back > snapwire.MaxShort, v.id, 0))
		}
	}
	// The history's rim, from the sequence after each view, unchanged
	// (a delta of 00 decodes on any base): the oldest view held is read
	// on, one a History or more behind the newest is not, though its
	// slot still holds it.
	delta = []byte{0}
	if e.others {
		for _, v := range e.rim {
			add(fmt.Sprintf("sequence %d on view %d (offset 1), unchanged", v.seq+1, v.seq), header(v.seq+1, 1, false, v.id, 0))
		}
	}
	return out
}

// shiftedStream is f with every packet's sequence d later (mod 2^16) and
// every check of a view's id the id of the shifted packet that produced
// it (a check no packet's id matches, damaged, is left as it is), and
// what the file records shifted as Go's Receiver does it: so that a
// stream of a few hundred packets crosses the wrap from 65535 to 0.
func shiftedStream(t *testing.T, f *snapcorpus.File, d uint16) *snapcorpus.File {
	t.Helper()
	g := *f
	g.Steps = slices.Clone(f.Steps)
	ids := map[uint32]uint32{} // a packet's id: its shifted packet's
	for i := range g.Steps {
		st := &g.Steps[i]
		if st.Reset {
			if st.Ack != snapwire.NoAck {
				t.Fatalf("step %d: a reset acknowledges %d", i, st.Ack)
			}
			continue
		}
		p, err := hex.DecodeString(st.Packet)
		if err != nil {
			t.Fatal(err)
		}
		q := slices.Clone(p)
		if len(q) >= 2 {
			binary.LittleEndian.PutUint16(q, binary.LittleEndian.Uint16(q)+d)
		}
		if n := snapwire.HeaderSize(q); n != snapwire.ZeroHeader && len(q) >= n {
			at := n - 4
			if id, ok := ids[binary.LittleEndian.Uint32(q[at:])]; ok {
				binary.LittleEndian.PutUint32(q[at:], id)
			}
		}
		ids[crc32.ChecksumIEEE(p)] = crc32.ChecksumIEEE(q)
		st.Packet = hex.EncodeToString(q)
		if st.Seq != nil {
			seq := int(uint16(*st.Seq) + d)
			st.Seq = &seq
		}
		if st.Ack != snapwire.NoAck { // the recorded stream's sequences are below 65535: NoAck is nothing read
			st.Ack = int(uint16(st.Ack) + d)
		}
	}
	return &g
}

// heldView is a view a receiver accepted: its sequence and id.
type heldView struct {
	seq uint16
	id  uint32
}

// damageFork is a damaged packet Go accepts, and where: before step i
// of the stream, or after it.
type damageFork struct {
	step   int
	after  bool
	newest uint16 // the receiver's Ack where it is given
	d      damage
}

// A damagePlan says which damaged packets a campaign gives.
type damagePlan struct {
	keep      func() bool            // whether to give the next damaged packet made
	fork      func() bool            // whether to give the next kept one Go accepts (on its fork)
	bodyForks func(step, at int) int // how many of step's packets with a delta bit flipped that Go accepts to give (at 0 before the step, 1 after)
}

// damageCampaign builds the damaged stream's steps with Go's answers:
// the inline part, then the forks.
func damageCampaign(t *testing.T, f *snapcorpus.File, plan damagePlan) (steps []rxStep, c damageCounts) {
	t.Helper()
	o := newRxOracle(t)
	h := f.History
	fresh := rxStep{what: fmt.Sprintf("a new receiver of History %d", h), op: 'n', history: h}
	var raw []rxStep // the stream's steps, as recorded
	for i, st := range f.Steps {
		s := rxStep{what: fmt.Sprintf("step %d", i), op: 'r'}
		if !st.Reset {
			p, err := hex.DecodeString(st.Packet)
			if err != nil {
				t.Fatal(err)
			}
			s.op, s.packet = 'p', p
		}
		raw = append(raw, s)
	}
	// streams: the recorded stream's, another client's, a left one.
	streams := []uint32{0x5eed0001, 0x5eed0002}
	for _, st := range raw {
		if st.op == 'p' && len(st.packet) >= 11 && st.packet[2] == 0 {
			if s := binary.LittleEndian.Uint32(st.packet[7:]); !slices.Contains(streams, s) {
				streams = append(streams, s)
			}
		}
	}
	// replay makes o a new receiver that has read raw[:i].
	replay := func(i int) {
		s := fresh
		o.do(t, &s)
		for j := range i {
			s := raw[j]
			o.do(t, &s)
		}
	}
	var accepted []heldView // every view accepted on the main line, in order
	var since []heldView    // those accepted since the last reset
	evictedBy := func(seq uint16) []heldView {
		// The newest two views accepted whose sequences share seq's
		// slot modulo History but are not the newest there.
		var out []heldView
		newest := true
		for _, a := range slices.Backward(accepted) {
			if int(a.seq)%h != int(seq)%h {
				continue
			}
			if newest {
				newest = false
				continue
			}
			if out = append(out, a); len(out) == 2 {
				break
			}
		}
		return out
	}
	// rim: the oldest view the receiver holds, and the two nearest past
	// its history that their slots still hold (no later view took it).
	rim := func(newest uint16) []heldView {
		var oldest, past []heldView
		taken := map[int]bool{}
		for _, a := range slices.Backward(since) {
			if taken[int(a.seq)%h] {
				continue
			}
			taken[int(a.seq)%h] = true
			switch back := int(newest - a.seq); {
			case back < h && (oldest == nil || back > int(newest-oldest[0].seq)):
				oldest = []heldView{a}
			case back >= h && back < h+8:
				past = append(past, a)
			}
		}
		slices.SortFunc(past, func(a, b heldView) int { return int(b.seq-newest) - int(a.seq-newest) })
		return append(oldest, past[:min(2, len(past))]...)
	}
	var pending []damageFork
	k, inlined, skipped := 0, 0, 0
	inline := func(i int, after bool) {
		st := raw[i]
		if st.op != 'p' {
			return
		}
		n := snapwire.HeaderSize(st.packet)
		base := binary.LittleEndian.Uint16(st.packet) - 1 // a packet too short for its header: any
		if n != snapwire.ZeroHeader && len(st.packet) >= n+1 {
			off := uint16(st.packet[2] >> 1)
			if n == snapwire.LongHeader {
				off = binary.LittleEndian.Uint16(st.packet[2:]) >> 1
			}
			base = binary.LittleEndian.Uint16(st.packet) - off
		}
		quota := plan.bodyForks(i, map[bool]int{false: 0, true: 1}[after])
		bodyForks := 0 // the runs of flipped delta bits a fork was given from
		newest := o.r.Ack()
		for _, d := range damagesOf(st.packet, damageEdges{history: h, newest: newest, evicted: evictedBy(base), rim: rim(newest), streams: streams, others: after}) {
			k++
			if !plan.keep() {
				continue
			}
			// A bit of the delta flipped is often a value changed: Go
			// accepts it, and each costs a fork. One fork from each of
			// quota runs of the flipped bits of the delta, so that they
			// spread over it, is enough; the rest, which Go would accept
			// too, are not given (o.decodes tells without changing Go's
			// receiver).
			body := d.bit >= 8*n
			run := 0
			if body {
				run = (d.bit - 8*n) * max(quota, 1) / (8 * (min(len(st.packet), n+damageBodyBytes) - n))
				if run < bodyForks || run >= quota {
					if o.decodes(st.packet, d.packet[n:], base) {
						skipped++
						continue
					}
				}
			}
			s := rxStep{what: fmt.Sprintf("step %d's packet, %s (%s it)", i, d.what, map[bool]string{false: "before", true: "after"}[after]), op: 'p', packet: d.packet, damaged: true}
			o.do(t, &s)
			if s.ok && !plan.fork() {
				replay(i + map[bool]int{false: 0, true: 1}[after])
				skipped++
				continue
			}
			if s.ok {
				if body {
					bodyForks = run + 1
				}
				pending = append(pending, damageFork{step: i, after: after, newest: newest, d: d})
				// Go's receiver took it: back to where the stream was.
				replay(i + map[bool]int{false: 0, true: 1}[after])
				continue
			}
			steps = append(steps, s)
			inlined++
		}
	}
	acks := make([]uint16, len(raw)+1) // the main line's Ack before each step, and after the last
	steps = append(steps, fresh)
	o.do(t, &steps[0])
	for i := range raw {
		inline(i, false)
		acks[i] = o.r.Ack()
		s := raw[i]
		s.what = fmt.Sprintf("step %d of the stream", i)
		o.do(t, &s)
		if rec := f.Steps[i]; s.op == 'p' && (s.ok != (rec.Error == "") || int(s.ack) != rec.Ack || s.ok && s.view != rec.View) {
			t.Fatalf("%s: Go's receiver answers ok=%v ack %d (%v), the file records %q ack %d: a refused damage changed it", s.what, s.ok, s.ack, s.err, rec.Error, rec.Ack)
		}
		steps = append(steps, s)
		switch {
		case s.op == 'r':
			since = nil
		case s.ok:
			accepted = append(accepted, heldView{s.seq, crc32.ChecksumIEEE(s.packet)})
			since = append(since, accepted[len(accepted)-1])
		}
		inline(i, true)
	}
	acks[len(raw)] = o.r.Ack()
	forkSteps := 0
	for _, fk := range pending {
		start := len(steps)
		steps = append(steps, fresh)
		o.do(t, &steps[start])
		upto := fk.step
		if fk.after {
			upto++
		}
		for j := range upto {
			s := raw[j]
			s.what = fmt.Sprintf("fork %s of step %d: step %d of the stream", fk.d.what, fk.step, j)
			o.do(t, &s)
			steps = append(steps, s)
		}
		s := rxStep{what: fmt.Sprintf("step %d's packet, %s (%s it), accepted", fk.step, fk.d.what, map[bool]string{false: "before", true: "after"}[fk.after]), op: 'p', packet: fk.d.packet}
		o.do(t, &s)
		if !s.ok {
			t.Fatalf("%s: refused on its fork (%v)", s.what, s.err)
		}
		steps = append(steps, s)
		for j := upto; j < forkEnd(acks, upto, fk.newest, s.seq, h); j++ {
			s := raw[j]
			s.what = fmt.Sprintf("fork of step %d's packet, %s: then step %d of the stream", fk.step, fk.d.what, j)
			o.do(t, &s)
			steps = append(steps, s)
		}
		forkSteps += len(steps) - start
	}
	return steps, damageCounts{made: k, inline: inlined, forks: len(pending), skipped: skipped, forkSteps: forkSteps}
}

// forkEnd is where the fork of a damaged packet Go accepted ends (the
// stream's steps up to it are given after the packet): the packet read
// at sequence seq where the newest was newest, the stream's steps from
// upto, whose Acks on the main line, before each, are acks.
//
// What an accepted packet changes is seen at once or by the packets
// that name a view: its view is named by none of the stream's (its id
// is no packet's check), but the view its slot held is evicted, and a
// sequence read newer than the newest evicts every view History behind
// it — views the stream's packets name until the stream's newest is
// History past the newest at the packet, and past the packet's
// sequence. So the fork goes on until the main line's Ack is History
// past both (its views and the fork's are the same ones again, but for
// what is seen at every step: the Ack, the streams left), and at least
// damageWindow steps, or to the end of the stream. At History 16 that is
// mostly the damageWindow steps; at 256 (a stream of 340 sequences) it
// is mostly the rest of the stream: a fork of 24 steps would end before
// the packets that name the evicted views come.
func forkEnd(acks []uint16, upto int, newest, seq uint16, history int) int {
	ref := newest
	if newest == snapwire.NoAck || newerSeq(seq, newest) {
		ref = seq
	}
	end := upto
	for ; end < len(acks)-1; end++ {
		if a := acks[end]; end-upto >= damageWindow && a != snapwire.NoAck && newerSeq(a, ref) && int(a-ref) >= history {
			break
		}
	}
	return end
}

// newerSeq reports whether sequence a is newer than b (serialize's
// sequence_greater_than, as snapshot's Receiver compares them).
func newerSeq(a, b uint16) bool {
	return a > b && a-b <= snapwire.SeqHalf || a < b && b-a > snapwire.SeqHalf
}

// damageCounts counts a campaign's damaged packets: made, given inline
// (Go refuses them), given on forks (Go accepts them), and not given (a
// flipped bit of a delta, which Go would accept, past the forks given).
type damageCounts struct{ made, inline, forks, skipped, forkSteps int }

// damageLanguage is one language's receiver driver: how it is built and
// run, its commands and Go's answers in its words.
type damageLanguage struct {
	name string
	run  func(t *testing.T, cmds []string) []damageAnswers
	cmd  func(i int, st rxStep) string
	want func(t *testing.T, st rxStep) string
}

// damageAnswers are one build's answers.
type damageAnswers struct {
	build   string
	answers []string
}

// tsRustWant is Go's answer as receiver_cases.ts and the Rust driver
// word it.
func tsRustWant(t *testing.T, st rxStep) string {
	switch {
	case st.op != 'p':
		return fmt.Sprintf("ack %d", st.ack)
	case st.ok:
		return fmt.Sprintf("ok %d %s ack %d", st.seq, st.view, st.ack)
	}
	return fmt.Sprintf("refused %s %s ack %d", snapcorpus.Category(st.err), st.err, st.ack)
}

func tsCmd(i int, st rxStep) string {
	switch st.op {
	case 'n':
		return fmt.Sprintf("new %d", st.history)
	case 'r':
		return "reset"
	}
	return []string{"read ", "view "}[i%2] + hex.EncodeToString(st.packet)
}

// damageLanguages are the four generated receivers; history is the
// History of the first step's new receiver.
func damageLanguages(history int) []damageLanguage {
	return []damageLanguage{
		{
			name: "TypeScript",
			run: func(t *testing.T, cmds []string) []damageAnswers {
				return []damageAnswers{{"node", runReceiverDriver(t, requireTSC(t), requireTool(t, "node", "TypeScript"), cmds)}}
			},
			cmd:  tsCmd,
			want: tsRustWant,
		},
		{
			name: "Rust",
			run: func(t *testing.T, cmds []string) []damageAnswers {
				driver, _, _ := buildRustDriver(t)
				return []damageAnswers{{"rustc", runDriver(t, "rust", exec.Command(driver), cmds)}}
			},
			cmd: func(i int, st rxStep) string {
				return "V " + strings.TrimPrefix(tsCmd(0, st), "read ")
			},
			want: tsRustWant,
		},
		{
			name: "C#",
			run: func(t *testing.T, cmds []string) []damageAnswers {
				mono := requireTool(t, "mono", "C#")
				requireTool(t, "mcs", "C#")
				exe := csReceiverExe(t)
				// The program's first lines answer no command: the
				// Histories it refuses (4 lines), a new receiver's Ack.
				cmd := exec.Command(mono, exe, fmt.Sprint(history), fmt.Sprint(snapwire.DefaultHistory))
				cmd.Stdin = strings.NewReader(strings.Join(cmds, "\n") + "\n")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("mono: %v\n%s", err, tail(stderr.String(), 4000))
				}
				got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
				if len(got) != 5+len(cmds) {
					t.Fatalf("mono answered %d lines to %d commands (and 5 of its own)", len(got), len(cmds))
				}
				return []damageAnswers{{"mono", got[5:]}}
			},
			cmd: func(i int, st rxStep) string {
				switch st.op {
				case 'n':
					return fmt.Sprintf("N %d", st.history)
				case 'r':
					return "R"
				}
				return fmt.Sprintf("P %x %d", st.packet, i%3)
			},
			want: func(t *testing.T, st rxStep) string {
				switch {
				case st.op == 'n':
					return fmt.Sprintf("NEW %d", st.ack)
				case st.op == 'r':
					return fmt.Sprintf("RESET %d", st.ack)
				case st.ok:
					return fmt.Sprintf("OK %d %s %d", st.seq, st.view, st.ack)
				}
				return fmt.Sprintf("ERR %d %s %d", st.seq, st.err, st.ack)
			},
		},
		{
			name: "C++",
			run: func(t *testing.T, cmds []string) []damageAnswers {
				var out []damageAnswers
				for _, bin := range buildReceiverDrivers(t, requireCompiler(t)) { // the sanitized build too with BITPACK_FULL=1
					cmd := exec.Command(bin.path)
					cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0", "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
					out = append(out, damageAnswers{bin.name, runDriver(t, "C++ "+bin.name, cmd, cmds)})
				}
				return out
			},
			cmd: func(i int, st rxStep) string {
				switch st.op {
				case 'n':
					return fmt.Sprintf("fresh %d", st.history)
				case 'r':
					return "reset"
				}
				return "packet " + hex.EncodeToString(st.packet)
			},
			want: func(t *testing.T, st rxStep) string {
				switch {
				case st.op != 'p':
					return fmt.Sprintf("ack=%d", st.ack)
				case st.ok:
					return fmt.Sprintf("OK seq=%d ack=%d view=%s", st.seq, st.ack, st.view)
				}
				return fmt.Sprintf("REFUSED %s seq=%d ack=%d", cppReceiveResult(t, st.err), st.seq, st.ack)
			},
		},
	}
}

// TestReceiversDamaged gives every generated receiver the damaged
// streams — the recorded one at each History of snapcorpus.Recordings
// (16, 2, 256), and stream.json again with its sequences shifted across
// the wrap (the others cross it as recorded) — and compares each answer
// with Go's: with BITPACK_FULL=1 a sample (drawn the same on every run),
// with -gen.damage all; neither, nothing (the quick run's receivers tests
// replay the streams and crafted packets of their own).
func TestReceiversDamaged(t *testing.T) {
	if raceEnabled {
		t.Skip("the other languages do not change under Go's race detector")
	}
	if !*damageAll && !fullSweeps() {
		t.Skip("with BITPACK_FULL=1 (a sample of the damaged streams) or -gen.damage (all of them)")
	}
	for _, f := range readStreams(t) {
		files := []*snapcorpus.File{f}
		if f.History == snapcorpus.History {
			// stream.json's sequences stay below the wrap: the same
			// shifted to cross it from 65535 to 0 at its 80th.
			shifted := shiftedStream(t, f, 65536-80)
			if err := snapcorpus.Replay(shifted); err != nil {
				t.Fatalf("the shifted stream is not the recorded one: %v", err)
			}
			files = append(files, shifted)
		}
		t.Run(fmt.Sprintf("History%d", f.History), func(t *testing.T) {
			start := time.Now()
			var steps []rxStep
			for _, g := range files {
				if !crossesWrap(g) && (g != f || f.History != snapcorpus.History) {
					t.Fatalf("History %d: the damaged stream does not cross the wrap", g.History)
				}
				plan := damageAllPlan
				if !*damageAll {
					plan = damageSamplePlan(g.History)
				}
				s, counts := damageCampaign(t, g, plan)
				t.Logf("History %d (across the wrap: %v): %d damaged packets made, %d given: %d refused by Go and given inline, %d accepted and given on forks (%d steps); %d more accepted and not given; %d steps in all",
					g.History, crossesWrap(g), counts.made, counts.inline+counts.forks, counts.inline, counts.forks, counts.forkSteps, counts.skipped, len(s))
				steps = append(steps, s...)
			}
			t.Logf("%d steps (%v in Go)", len(steps), time.Since(start))
			for _, lang := range damageLanguages(steps[0].history) {
				t.Run(lang.name, func(t *testing.T) { damageCompare(t, lang, steps) })
			}
		})
	}
}

// damageChunk is how many steps at most a driver is given at a time
// (each chunk from a new receiver): the full campaign's millions of
// steps' answers are not held at once. A chunk can only end where a new
// receiver starts, so History 256's main line, one receiver's 1.9 million
// steps, is one chunk: the TypeScript driver reads and answers line by
// line for it (runReceiverDriver), which node's heap could not hold as
// one string and an array of answers.
const damageChunk = 50_000

// damageCompare gives lang's drivers the steps and compares every answer
// with Go's.
func damageCompare(t *testing.T, lang damageLanguage, steps []rxStep) {
	start := time.Now()
	bad := map[string]int{}
	for from := 0; from < len(steps); {
		to := min(len(steps), from+damageChunk)
		for to < len(steps) && steps[to].op != 'n' {
			to--
		}
		if to == from {
			to = len(steps)
		}
		cmds := make([]string, to-from)
		for i := range cmds {
			cmds[i] = lang.cmd(from+i, steps[from+i])
		}
		for _, got := range lang.run(t, cmds) {
			for i, st := range steps[from:to] {
				if want := lang.want(t, st); got.answers[i] != want {
					if bad[got.build]++; bad[got.build] <= 10 {
						t.Errorf("%s: step %d, %s: packet %x\n got %s\nwant %s", got.build, from+i, st.what, st.packet, tail(got.answers[i], 300), tail(want, 300))
					}
				}
			}
		}
		from = to
	}
	t.Logf("%d commands answered (%v since the build began)", len(steps), time.Since(start))
	for build, n := range bad {
		t.Errorf("%s: %d of %d answers differ from Go's", build, n, len(steps))
	}
}

// crossesWrap reports whether f's receiver reads sequences on both
// sides of the wrap from 65535 to 0: one of the last 256 and, after it,
// one of the first 256.
func crossesWrap(f *snapcorpus.File) bool {
	high := false
	for _, st := range f.Steps {
		switch {
		case st.Seq == nil || st.Error != "":
		case *st.Seq >= 0xff00:
			high = true
		case *st.Seq < 0x100 && high:
			return true
		}
	}
	return false
}

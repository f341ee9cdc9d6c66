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
// (of each of the two streams).
const damageSample = 16

// damageAllPlan gives every damaged packet, and two forks of each
// packet's with a delta bit flipped at each place.
var damageAllPlan = damagePlan{keep: func() bool { return true }, bodyForks: func(int, int) int { return 2 }}

// An rxStep is a command for a receiver driver and Go's answer to it.
type rxStep struct {
	what    string
	op      byte // 'n': a new receiver of History history; 'r': reset; 'p': the packet
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
	codec   *bitpack.Codec[snapcorpus.World]
	history int
	r       *snapshot.Receiver[snapcorpus.World]
	v       snapcorpus.World
}

func newRxOracle(t *testing.T, history int) *rxOracle {
	t.Helper()
	codec, err := bitpack.NewCodec[snapcorpus.World]()
	if err != nil {
		t.Fatal(err)
	}
	return &rxOracle{codec: codec, history: history}
}

// do gives st to Go's Receiver and records its answer in st.
func (o *rxOracle) do(t *testing.T, st *rxStep) {
	t.Helper()
	switch st.op {
	case 'n':
		r, err := snapshot.NewReceiver(snapshot.Options[snapcorpus.World]{History: o.history})
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
	if headerSizeOf(p) != snapwire.ZeroHeader && !o.r.View(base, &b) {
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

// headerSizeOf is the size of p's header by its byte 2 (docs/wire.md:
// bit 0 set, 8; else offset 0, 11; else 7).
func headerSizeOf(p []byte) int {
	switch {
	case len(p) < 3:
		return snapwire.ShortHeader
	case p[2]&1 == 1:
		return snapwire.LongHeader
	case p[2] == 0:
		return snapwire.ZeroHeader
	}
	return snapwire.ShortHeader
}

// zeroBaseID is the id of stream s's zero base: the CRC-32 of its 4
// little-endian bytes (docs/wire.md, "Ids").
func zeroBaseID(s uint32) uint32 {
	return crc32.ChecksumIEEE(binary.LittleEndian.AppendUint32(nil, s))
}

// damagesOf are the damaged packets made from p. evicted are ids of
// views the receiver held and evicted, with their sequences; streams are
// stream values to re-base the packet on.
func damagesOf(p []byte, history int, evicted []heldView, streams []uint32) []damage {
	var out []damage
	add := func(what string, q []byte) { out = append(out, damage{what, q, -1}) }
	n := headerSizeOf(p)
	for bit := range 8 * min(len(p), n+damageBodyBytes) {
		q := slices.Clone(p)
		q[bit/8] ^= 1 << (bit % 8)
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
	h := uint16(history)
	for _, s := range []uint16{0, 1, 0x7fff, 0x8000, 0xffff, seq ^ 0x8000, seq + 1, seq - 1, seq + h - 1, seq + h, seq - h, seq - h + 1, seq + 0x7fff, seq + 0x8001} {
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
	for _, o := range []uint16{1, 2, h - 1, h, h + 1, 63, 127} {
		add(fmt.Sprintf("offset %d, short form", o), header(seq, o, false, check, 0))
	}
	for _, o := range []uint16{0, 1, offset, h - 1, h, 127, 128, 0x3fff, 0x7fff} {
		add(fmt.Sprintf("offset %d, long form", o), header(seq, o, true, check, 0))
	}
	for _, c := range []uint32{check ^ 1, check ^ 0x80000000, 0, 0xffffffff, zeroBaseID(0)} {
		add(fmt.Sprintf("check %#08x", c), header(seq, offset, offset > snapwire.MaxShort, c, binary.LittleEndian.Uint32(p[min(7, len(p)-4):])))
	}
	if offset == 0 {
		stream := binary.LittleEndian.Uint32(p[7:])
		for _, s := range append([]uint32{stream ^ 1, 0, 0xffffffff}, streams...) {
			add(fmt.Sprintf("stream %#08x, check its zero base's", s), header(seq, 0, false, zeroBaseID(s), s))
			add(fmt.Sprintf("stream %#08x, check kept", s), header(seq, 0, false, check, s))
		}
	} else {
		for _, s := range streams {
			add(fmt.Sprintf("re-based on stream %#08x's zero base", s), header(seq, 0, false, zeroBaseID(s), s))
		}
	}
	// Views the receiver evicted: named by their own sequence (an offset
	// History or more back, or one the slot now holds another view for)
	// and by the offset the packet has.
	for _, e := range evicted {
		add(fmt.Sprintf("check of evicted view %d", e.seq), header(seq, offset, offset > snapwire.MaxShort, e.id, 0))
		back := seq - e.seq
		if back != 0 && back < snapwire.MaxHistory {
			add(fmt.Sprintf("on evicted view %d (offset %d)", e.seq, back), header(seq, back, back > snapwire.MaxShort, e.id, 0))
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
		if n := headerSizeOf(q); n != snapwire.ZeroHeader && len(q) >= n {
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
	step  int
	after bool
	d     damage
}

// A damagePlan says which damaged packets a campaign gives.
type damagePlan struct {
	keep      func() bool            // whether to give the next damaged packet made
	bodyForks func(step, at int) int // how many of step's packets with a delta bit flipped that Go accepts to give (at 0 before the step, 1 after)
}

// damageCampaign builds the damaged stream's steps with Go's answers:
// the inline part, then the forks.
func damageCampaign(t *testing.T, f *snapcorpus.File, plan damagePlan) (steps []rxStep, c damageCounts) {
	t.Helper()
	o := newRxOracle(t, f.History)
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
		o.do(t, &rxStep{op: 'n'})
		for j := range i {
			s := raw[j]
			o.do(t, &s)
		}
	}
	var accepted []heldView // every view accepted on the main line, in order
	evictedBy := func(seq uint16) []heldView {
		// The newest two views accepted whose sequences share seq's
		// slot modulo History but are not the newest there.
		var out []heldView
		newest := true
		for _, a := range slices.Backward(accepted) {
			if int(a.seq)%f.History != int(seq)%f.History {
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
	var pending []damageFork
	k, inlined, skipped := 0, 0, 0
	inline := func(i int, after bool) {
		st := raw[i]
		if st.op != 'p' {
			return
		}
		n := headerSizeOf(st.packet)
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
		for _, d := range damagesOf(st.packet, f.History, evictedBy(base), streams) {
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
			if s.ok {
				if body {
					bodyForks = run + 1
				}
				pending = append(pending, damageFork{step: i, after: after, d: d})
				// Go's receiver took it: back to where the stream was.
				replay(i + map[bool]int{false: 0, true: 1}[after])
				continue
			}
			steps = append(steps, s)
			inlined++
		}
	}
	steps = append(steps, rxStep{what: "a new receiver", op: 'n'})
	o.do(t, &steps[0])
	for i := range raw {
		inline(i, false)
		s := raw[i]
		s.what = fmt.Sprintf("step %d of the stream", i)
		o.do(t, &s)
		if rec := f.Steps[i]; s.op == 'p' && (s.ok != (rec.Error == "") || int(s.ack) != rec.Ack || s.ok && s.view != rec.View) {
			t.Fatalf("%s: Go's receiver answers ok=%v ack %d (%v), the file records %q ack %d: a refused damage changed it", s.what, s.ok, s.ack, s.err, rec.Error, rec.Ack)
		}
		steps = append(steps, s)
		if s.ok {
			accepted = append(accepted, heldView{s.seq, crc32.ChecksumIEEE(s.packet)})
		}
		inline(i, true)
	}
	for _, fk := range pending {
		start := len(steps)
		steps = append(steps, rxStep{what: "a new receiver", op: 'n'})
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
		for j := upto; j < min(len(raw), upto+damageWindow); j++ {
			s := raw[j]
			s.what = fmt.Sprintf("fork of step %d's packet, %s: then step %d of the stream", fk.step, fk.d.what, j)
			o.do(t, &s)
			steps = append(steps, s)
		}
	}
	return steps, damageCounts{made: k, inline: inlined, forks: len(pending), skipped: skipped}
}

// damageCounts counts a campaign's damaged packets: made, given inline
// (Go refuses them), given on forks (Go accepts them), and not given (a
// flipped bit of a delta, which Go would accept, past the forks given).
type damageCounts struct{ made, inline, forks, skipped int }

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

func tsCmd(history int) func(int, rxStep) string {
	return func(i int, st rxStep) string {
		switch st.op {
		case 'n':
			return fmt.Sprintf("new %d", history)
		case 'r':
			return "reset"
		}
		return []string{"read ", "view "}[i%2] + hex.EncodeToString(st.packet)
	}
}

// damageLanguages are the four generated receivers.
func damageLanguages(t *testing.T, history int) []damageLanguage {
	return []damageLanguage{
		{
			name: "TypeScript",
			run: func(t *testing.T, cmds []string) []damageAnswers {
				return []damageAnswers{{"node", runReceiverDriver(t, requireTSC(t), requireTool(t, "node", "TypeScript"), cmds)}}
			},
			cmd:  tsCmd(history),
			want: tsRustWant,
		},
		{
			name: "Rust",
			run: func(t *testing.T, cmds []string) []damageAnswers {
				driver, _, _ := buildRustDriver(t)
				return []damageAnswers{{"rustc", runDriver(t, "rust", exec.Command(driver), cmds)}}
			},
			cmd: func(i int, st rxStep) string {
				return "V " + strings.TrimPrefix(tsCmd(history)(0, st), "read ")
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
					return fmt.Sprintf("N %d", history)
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
					return fmt.Sprintf("fresh %d", history)
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

// TestReceiversDamaged gives every generated receiver the damaged stream
// — the recorded one, and the same with its sequences shifted across the
// wrap — and compares each answer with Go's: with BITPACK_FULL=1 a sample
// (one damaged packet in damageSample, drawn the same on every run), with
// -gen.damage all; neither, nothing (the quick run's receivers tests
// replay the stream and crafted packets of their own).
func TestReceiversDamaged(t *testing.T) {
	if raceEnabled {
		t.Skip("the other languages do not change under Go's race detector")
	}
	if !*damageAll && !fullSweeps() {
		t.Skip("with BITPACK_FULL=1 (a sample of the damaged stream) or -gen.damage (all of it)")
	}
	f := readStream(t)
	if f.History != 16 {
		t.Fatalf("the stream's History is %d: the campaign's edges were chosen for 16", f.History)
	}
	plan := damageAllPlan
	if !*damageAll {
		// One damaged packet in damageSample, and a fork for a delta
		// bit flipped at one place in 32: forks are most of the cost
		// (each replays the stream up to it).
		rng := rand.New(rand.NewPCG(7, 16))
		plan = damagePlan{
			keep: func() bool { return rng.IntN(damageSample) == 0 },
			bodyForks: func(step, at int) int {
				if (2*step+at)%32 == 0 {
					return 1
				}
				return 0
			},
		}
	}
	start := time.Now()
	var steps []rxStep
	// The recorded stream, and the same shifted to cross the wrap of the
	// sequences from 65535 to 0 at its 80th.
	shifted := shiftedStream(t, f, 65536-80)
	if err := snapcorpus.Replay(shifted); err != nil {
		t.Fatalf("the shifted stream is not the recorded one: %v", err)
	}
	for _, g := range []*snapcorpus.File{f, shifted} {
		s, counts := damageCampaign(t, g, plan)
		t.Logf("%d damaged packets made, %d given: %d refused by Go and given inline, %d accepted and given on forks; %d more accepted and not given; %d steps in all",
			counts.made, counts.inline+counts.forks, counts.inline, counts.forks, counts.skipped, len(s))
		steps = append(steps, s...)
	}
	t.Logf("%d steps (%v in Go)", len(steps), time.Since(start))
	for _, lang := range damageLanguages(t, f.History) {
		t.Run(lang.name, func(t *testing.T) {
			cmds := make([]string, len(steps))
			for i, st := range steps {
				cmds[i] = lang.cmd(i, st)
			}
			start := time.Now()
			for _, got := range lang.run(t, cmds) {
				t.Logf("%s: %d commands answered (%v since the build began)", got.build, len(cmds), time.Since(start))
				bad := 0
				for i, st := range steps {
					if want := lang.want(t, st); got.answers[i] != want {
						if bad++; bad <= 10 {
							t.Errorf("%s: step %d, %s: packet %x\n got %s\nwant %s", got.build, i, st.what, st.packet, tail(got.answers[i], 300), tail(want, 300))
						}
					}
				}
				if bad > 0 {
					t.Errorf("%s: %d of %d answers differ from Go's", got.build, bad, len(steps))
				}
			}
		})
	}
}

package gen

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/snapcorpus"
	"github.com/bitpack-go/bitpack/internal/snapwire"
	"github.com/bitpack-go/bitpack/snapshot"
)

// The largest History, snapwire.MaxHistory (32768: half the sequence
// space, the long form's offsets 128 to 32767 all legal), which no
// recorded stream reaches: a Go Sender whose packets mostly never arrive
// makes a stream of a few packets at its edges, and every generated
// receiver must answer each as Go's does.

// maxHistoryPlan is one packet the client is given: the Sender's n-th
// (from 0; its sequence is n mod 65536), the base offset its header must
// carry (0: the zero base), and what the wire's rules say of it, worked
// out from docs/wire.md, not from Go: accepted (want nil), or refused
// with the sentinel want and these words, and the Ack after it.
type maxHistoryPlan struct {
	n      int
	offset int
	ack    uint16 // the Receiver's Ack after it: the newest sequence
	want   error
	words  string
	why    string
}

// maxHistoryStream: the Sender sends packets 0 to 105536, of which the
// client is given these, in this order; the Sender hears the Receiver's
// Ack after each packet accepted, so its base is the newest accepted.
var maxHistoryStream = []maxHistoryPlan{
	{0, 0, 0, nil, "", "the zero base"},
	{32767, 32767, 32767, nil, "", "the long form's largest offset, on the view of sequence 0"},
	{1, 1, 32767, nil, "", "late, 32766 behind the newest, on the view of sequence 0"},
	{32768, 1, 32768, nil, "", "the newest view takes sequence 0's slot"},
	{0, 0, 32768, bitpack.ErrRange, "snapshot: packet 0: older than the 32768 sequences kept up to 32768", "sequence 0 again: History behind the newest"},
	{2, 2, 32768, snapshot.ErrNoBase, "snapshot: packet 2: its base 0 (offset 2) is not held", "late, on the view of sequence 0, whose slot sequence 32768 took"},
	{40000, 7232, 40000, nil, "", "on the view of 32768"},
	{72767, 32767, 7231, nil, "", "the largest offset across the wrap from 65535 to 0, on the view of 40000"},
	{40001, 1, 7231, nil, "", "late, 32766 behind the newest across the wrap, on the view of 40000"},
	{72768, 1, 7232, nil, "", "the newest view takes sequence 40000's slot"},
	{40002, 2, 7232, snapshot.ErrNoBase, "snapshot: packet 40002: its base 40000 (offset 2) is not held", "late, on the view of 40000, whose slot sequence 7232 took"},
	// Rule 4 (the base) comes before rule 6 (the history): the view of
	// 32768 is no longer held, (7232 - 32768) mod 2^16 = 40000 being
	// past History.
	{40000, 7232, 7232, snapshot.ErrNoBase, "snapshot: packet 40000: its base 32768 (offset 7232) is not held", "sequence 40000 again, on a view past the history"},
	// The Sender, hearing no Ack since 72768, has no view to send from
	// once it is History back: the zero base. Its sequence, 40000, is
	// exactly 32768 past the newest, 7232: newer (a > b, a - b <= 32768).
	{105536, 0, 40000, nil, "", "the zero base at sequence 40000, exactly half the sequences past the newest"},
	// Sequence 0 is 40000 behind the newest, more than half the
	// sequences: newer (a < b, b - a > 32768), so it takes the newest
	// place.
	{0, 0, 0, nil, "", "sequence 0's zero base, 40000 behind the newest: newer across the wrap"},
}

// maxHistorySteps are the stream's steps with Go's answers, after
// checking each packet's header and Go's answers against the plan.
func maxHistorySteps(t *testing.T) []rxStep {
	t.Helper()
	const history = snapwire.MaxHistory
	s, err := snapshot.NewSender(snapshot.Options[snapcorpus.World]{Entities: snapcorpus.Entities, History: history, Stream: 0x5eed0003})
	if err != nil {
		t.Fatal(err)
	}
	o := newRxOracle(t)
	steps := []rxStep{{what: "a new receiver", op: 'n', history: history}}
	o.do(t, &steps[0])
	planned := map[int]bool{}
	for _, p := range maxHistoryStream {
		planned[p.n] = true
	}
	sent := map[int][]byte{} // the planned packets, by n
	var w snapcorpus.World
	next := 0 // the Sender's packets sent
	for i, p := range maxHistoryStream {
		for ; next <= p.n; next++ {
			w.Tick = uint32(next)
			w.Units[next%len(w.Units)] = &snapcorpus.Unit{X: float32(next%200) - 100, HP: uint8(next % 101), Name: "u"}
			pkt, err := s.Append(nil, &w)
			if err != nil {
				t.Fatal(err)
			}
			if planned[next] {
				sent[next] = pkt
			}
		}
		pkt := sent[p.n]
		offset := 0
		switch snapwire.HeaderSize(pkt) {
		case snapwire.LongHeader:
			offset = int(uint16(pkt[2])|uint16(pkt[3])<<8) >> 1
		case snapwire.ShortHeader:
			offset = int(pkt[2] >> 1)
		}
		seq := uint16(p.n)
		if got := binary.LittleEndian.Uint16(pkt); got != seq || offset != p.offset {
			t.Fatalf("step %d (%s): the Sender's packet %d is sequence %d on offset %d; the plan's is sequence %d on offset %d", i, p.why, p.n, got, offset, seq, p.offset)
		}
		st := rxStep{what: fmt.Sprintf("sequence %d: %s", seq, p.why), op: 'p', packet: pkt}
		o.do(t, &st)
		switch {
		case p.want == nil && !st.ok:
			t.Fatalf("%s: Go refused it: %v", st.what, st.err)
		case p.want != nil && (st.ok || !errors.Is(st.err, p.want) || !strings.HasPrefix(st.err.Error(), p.words+": ")):
			t.Fatalf("%s: Go answered %v; the plan refuses it with %q (%v)", st.what, st.err, p.words, p.want)
		}
		if st.ack != p.ack {
			t.Fatalf("%s: Go's Ack is %d after it, the plan's %d", st.what, st.ack, p.ack)
		}
		if st.ok {
			s.Ack(st.ack)
		}
		steps = append(steps, st)
	}
	return steps
}

// TestReceiversAtMaxHistory gives every generated receiver the stream at
// the largest History, each packet in its place, with it damaged as
// TestReceiversDamaged damages the recorded ones (every bit of each
// packet's header and first 16 delta bytes flipped, every truncation, a
// byte appended, the header's edges chosen for the History; each damaged
// packet Go accepts on a fork of its own), and compares each answer with
// Go's: every damaged packet with BITPACK_FULL=1 or -gen.damage (10,830
// steps), else TestReceiversDamaged's sample (135 steps).
func TestReceiversAtMaxHistory(t *testing.T) {
	if raceEnabled {
		t.Skip("the other languages do not change under Go's race detector")
	}
	f := &snapcorpus.File{History: snapwire.MaxHistory}
	for _, st := range maxHistorySteps(t)[1:] {
		rec := snapcorpus.Step{Packet: hex.EncodeToString(st.packet), View: st.view, Ack: int(st.ack)}
		if st.err != nil {
			rec.Error = st.err.Error()
		}
		f.Steps = append(f.Steps, rec)
	}
	plan := damageAllPlan
	if !fullSweeps() && !*damageAll {
		plan = damageSamplePlan(snapwire.MaxHistory)
	}
	steps, counts := damageCampaign(t, f, plan)
	t.Logf("%d damaged packets made, %d refused by Go and given inline, %d accepted and given on forks (%d steps); %d steps in all",
		counts.made, counts.inline, counts.forks, counts.forkSteps, len(steps))
	for _, lang := range damageLanguages(snapwire.MaxHistory) {
		t.Run(lang.name, func(t *testing.T) {
			t.Parallel()
			damageCompare(t, lang, steps)
		})
	}
}

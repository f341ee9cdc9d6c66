package snapshot_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/snapshot"
)

// pair is a Sender and a Receiver of the golden world over a clean link.
type pair struct {
	t     testing.TB
	s     *snapshot.Sender[goldenWorld]
	r     *snapshot.Receiver[goldenWorld]
	codec *bitpack.Codec[goldenWorld]
	v     goldenWorld
}

func newPair(t testing.TB, opts snapshot.Options[goldenWorld]) *pair {
	t.Helper()
	if opts.Entities == nil {
		opts.Entities = []string{"Units"}
	}
	s, err := snapshot.NewSender(opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := snapshot.NewReceiver(opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := bitpack.NewCodec[goldenWorld]()
	if err != nil {
		t.Fatal(err)
	}
	return &pair{t: t, s: s, r: r, codec: c}
}

// send makes a packet of w.
func (p *pair) send(w *goldenWorld) []byte {
	p.t.Helper()
	pkt, err := p.s.Append(nil, w)
	if err != nil {
		p.t.Fatal(err)
	}
	return pkt
}

// deliver reads pkt, which must be accepted, checks the view is the
// Sender's, and acknowledges it.
func (p *pair) deliver(pkt []byte) {
	p.t.Helper()
	seq, err := p.r.Read(pkt, &p.v)
	if err != nil {
		p.t.Fatalf("packet %d: %v", binary.LittleEndian.Uint16(pkt), err)
	}
	var want goldenWorld
	if p.s.View(seq, &want) && !bytes.Equal(p.enc(&want), p.enc(&p.v)) {
		p.t.Fatalf("packet %d: the view read is not the Sender's", seq)
	}
	p.s.Ack(p.r.Ack())
}

func (p *pair) enc(w *goldenWorld) []byte {
	b, err := p.codec.Marshal(w)
	if err != nil {
		p.t.Fatal(err)
	}
	return b
}

// world returns the golden world at tick i: units come and go, and
// their HP changes.
func world(i int) *goldenWorld {
	w := &goldenWorld{Tick: uint8(i)}
	for k := range w.Units {
		if (i+k)%5 != 0 {
			w.Units[k] = &goldenUnit{HP: uint8((i*7 + k*13) % 101)}
		}
	}
	return w
}

// refuse reads pkt, which must be refused with an error wrapping want and
// containing text, and must leave the Receiver as it was.
func refuse(t *testing.T, r *snapshot.Receiver[goldenWorld], v *goldenWorld, pkt []byte, want error, text string) {
	t.Helper()
	before, vb := r.State(), *v
	_, err := r.Read(pkt, v)
	if !errors.Is(err, want) || !strings.Contains(fmtErr(err), text) {
		t.Fatalf("% x: %v, want %v containing %q", pkt, err, want, text)
	}
	if r.State() != before || *v != vb {
		t.Fatalf("% x: refused, but the Receiver or v changed", pkt)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestReadRefusals: packets a Receiver must refuse before any work, each
// with its error, leaving the Receiver and v as they were.
func TestReadRefusals(t *testing.T) {
	p := newPair(t, snapshot.Options[goldenWorld]{History: 256, Stream: 9})
	var pkts [][]byte
	for i := range 10 {
		pkt := p.send(world(i))
		p.deliver(pkt)
		pkts = append(pkts, pkt)
	}
	last := pkts[9]
	with := func(pkt []byte, f func(b []byte)) []byte {
		b := slices.Clone(pkt)
		f(b)
		return b
	}
	for _, tc := range []struct {
		name string
		pkt  []byte
		want error
		text string
	}{
		{"empty", nil, bitpack.ErrOverflow, "a packet of 0 bytes: the smallest is 8"},
		{"a header alone", last[:7], bitpack.ErrOverflow, "a packet of 7 bytes"},
		{"a zero-base header without its delta", pkts[0][:11], bitpack.ErrOverflow, "packet 0: a 11-byte header and a delta in 11 bytes"},
		{"a long header without its delta", []byte{9, 0, 0x03, 0x01, 1, 2, 3, 4}, bitpack.ErrOverflow, "packet 9: a 8-byte header and a delta in 8 bytes"},
		{"a short offset in the long form", []byte{9, 0, 0x03, 0x00, 1, 2, 3, 4, 0}, bitpack.ErrRange, "base offset 1 in the long form"},
		{"an offset past History", []byte{9, 0, 0x59, 0x02, 1, 2, 3, 4, 0}, bitpack.ErrRange, "base offset 300 out of range [0, 255] (History 256)"},
		{"a base never read", with(last, func(b []byte) { b[0] = 30 }), snapshot.ErrNoBase, "packet 30: its base 29 (offset 1) is not held"},
		{"a damaged check", with(last, func(b []byte) { b[5] ^= 0x10 }), snapshot.ErrNoBase, "packet 9: the view held as 8 is not its base"},
		{"a damaged offset", with(last, func(b []byte) { b[2] = 3 << 1 }), snapshot.ErrNoBase, "the view held as 6 is not its base"},
		{"a damaged stream value", with(pkts[0], func(b []byte) { b[8] ^= 1 }), snapshot.ErrNoBase, "packet 0: the zero base of stream 0x00000109 has id"},
		{"an offset damaged to the zero base", with(last, func(b []byte) { b[2] = 0 }), snapshot.ErrNoBase, "the zero base of stream"},
	} {
		t.Run(tc.name, func(t *testing.T) { refuse(t, p.r, &p.v, tc.pkt, tc.want, tc.text) })
	}
	// A delta that does not decode (bitpack's refusal), after a header
	// that passes.
	bad := with(last, func(b []byte) { b[len(b)-1] = 0xff })
	bad = append(bad, 0xff, 0xff)
	before := p.r.State()
	if _, err := p.r.Read(bad, &p.v); err == nil || errors.Is(err, snapshot.ErrNoBase) || p.r.State() != before {
		t.Fatalf("a damaged delta: %v", err)
	}
}

// TestReadOldAndDuplicate: a packet older than the newest read, or a
// duplicate, is accepted when its base is held: v becomes its view and
// Ack does not move. A packet older than the History kept is refused.
func TestReadOldAndDuplicate(t *testing.T) {
	p := newPair(t, snapshot.Options[goldenWorld]{History: 8, Stream: 3})
	var pkts [][]byte
	for i := range 6 {
		pkts = append(pkts, p.send(world(i))) // none acknowledged: all from the zero base
	}
	p.deliver(pkts[5])
	for _, k := range []int{3, 5, 0} {
		seq, err := p.r.Read(pkts[k], &p.v)
		if err != nil || int(seq) != k || p.r.Ack() != 5 {
			t.Fatalf("packet %d read late: seq %d, %v, Ack %d", k, seq, err, p.r.Ack())
		}
		if !bytes.Equal(p.enc(&p.v), p.enc(quantizedGolden(p, pkts[k]))) {
			t.Fatalf("packet %d: v is not its view", k)
		}
	}
	for i := 6; i < 20; i++ {
		p.deliver(p.send(world(i)))
	}
	refuse(t, p.r, &p.v, pkts[2], bitpack.ErrRange, "packet 2: older than the 8 sequences kept up to 19")
}

// quantizedGolden returns the view a packet from the zero base gives.
func quantizedGolden(p *pair, pkt []byte) *goldenWorld {
	r, err := snapshot.NewReceiver(snapshot.Options[goldenWorld]{History: 8})
	if err != nil {
		p.t.Fatal(err)
	}
	var v goldenWorld
	if _, err := r.Read(pkt, &v); err != nil {
		p.t.Fatal(err)
	}
	return &v
}

// TestCrossStream: another client's stream, in step with this one (the
// same world, the same sequences, the same acks), is refused packet for
// packet once it builds on a view: its bases have the same sequences and
// the same contents, but another stream's ids.
func TestCrossStream(t *testing.T) {
	a := newPair(t, snapshot.Options[goldenWorld]{Stream: 1})
	b := newPair(t, snapshot.Options[goldenWorld]{Stream: 2})
	refused := 0
	for i := range 300 {
		w := world(i)
		pa, pb := a.send(w), b.send(w)
		if pa[2] != 0 && !bytes.Equal(pa[:2], pb[:2]) {
			t.Fatalf("the streams fell out of step: % x, % x", pa[:3], pb[:3])
		}
		if pb[2] != 0 {
			refuse(t, a.r, &a.v, pb, snapshot.ErrNoBase, "is not its base")
			refused++
		}
		a.deliver(pa)
		b.deliver(pb)
	}
	if refused < 290 {
		t.Fatalf("%d packets of the other stream tried", refused)
	}
}

// TestEvictedBase: a packet whose base the Receiver has evicted (more than
// History sequences before its newest) is refused, though the Sender of
// another Receiver would still build on it.
func TestEvictedBase(t *testing.T) {
	p := newPair(t, snapshot.Options[goldenWorld]{History: 16, Stream: 4})
	p.deliver(p.send(world(0)))
	late := p.send(world(1)) // on base 0
	for i := 2; i < 40; i++ {
		p.deliver(p.send(world(i)))
	}
	refuse(t, p.r, &p.v, late, snapshot.ErrNoBase, "packet 1: its base 0 (offset 1) is not held")
}

// TestWraparound: a stream of 100,000 packets, sequences wrapping past
// 65535 more than once, every packet read and acknowledged, every view
// the Sender's; and a Receiver that lost 3 of 4 packets keeps up.
func TestWraparound(t *testing.T) {
	p := newPair(t, snapshot.Options[goldenWorld]{Stream: 5})
	q := newPair(t, snapshot.Options[goldenWorld]{Stream: 6})
	for i := range 100000 {
		w := world(i)
		p.deliver(p.send(w))
		pkt := q.send(w)
		if i%4 == 0 {
			q.deliver(pkt)
		}
	}
	if p.r.Ack() != 99999%65536 || q.r.Ack() != 99996%65536 {
		t.Fatalf("Acks %d, %d", p.r.Ack(), q.r.Ack())
	}
	// Every Ack taken but the one of packet 65535: 0xFFFF is also what a
	// Receiver that has read nothing acknowledges, which the Sender ignores.
	if got := p.s.Stats(); got.Packets != 100000 || got.Acks != 99999 || got.Ignored != 1 {
		t.Fatalf("stats %+v", got)
	}
}

// TestSequenceOrder: serialize's sequence_greater_than.
func TestSequenceOrder(t *testing.T) {
	for _, tc := range []struct {
		a, b uint16
		want bool
	}{
		{1, 0, true}, {0, 1, false}, {0, 65535, true}, {65535, 0, false},
		{32768, 0, true}, {32769, 0, false}, {0, 32768, false}, {0, 32769, true}, {7, 7, false},
	} {
		if got := snapshot.Newer(tc.a, tc.b); got != tc.want {
			t.Errorf("newer(%d, %d) = %v", tc.a, tc.b, got)
		}
	}
}

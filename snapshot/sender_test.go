package snapshot_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/snapshot"
)

// TestAckRules: an Ack of a sequence the Sender never sent, no longer
// keeps, or not newer than its base is ignored; an Ack moves the base, and
// the next packet names it.
func TestAckRules(t *testing.T) {
	p := newPair(t, snapshot.Options[goldenWorld]{History: 8, Stream: 11})
	var pkts [][]byte
	for i := range 12 {
		pkts = append(pkts, p.send(world(i)))
	}
	base := func() (uint16, bool) { return p.s.BaseSeq() }
	for _, seq := range []uint16{0xffff, 12, 3} { // never sent; not yet sent; evicted (12 sent, 8 kept)
		p.s.Ack(seq)
		if _, ok := base(); ok {
			t.Fatalf("Ack(%d) moved the base", seq)
		}
	}
	if got := p.s.Stats().Ignored; got != 3 {
		t.Fatalf("%d Acks ignored, want 3", got)
	}
	for _, k := range []int{10, 6, 11} { // Receiver reads 10 (the zero base), then 6, then 11
		if _, err := p.r.Read(pkts[k], &p.v); err != nil {
			t.Fatal(err)
		}
	}
	p.s.Ack(10)
	if seq, ok := base(); !ok || seq != 10 {
		t.Fatalf("base %d %v after Ack(10)", seq, ok)
	}
	p.s.Ack(6) // older than the base
	p.s.Ack(10)
	if seq, _ := base(); seq != 10 || p.s.Stats().Ignored != 5 {
		t.Fatalf("base %d, %d ignored", seq, p.s.Stats().Ignored)
	}
	pkt := p.send(world(12))
	if pkt[2] != 2<<1 { // packet 12 on base 10: offset 2
		t.Fatalf("packet 12's base byte %#x", pkt[2])
	}
	p.s.Ack(11) // sent before the base moved, on the zero base: newer, so it is the base now
	if seq, _ := base(); seq != 11 {
		t.Fatalf("base %d after Ack(11)", seq)
	}
	p.deliver(pkt)
	if seq, _ := base(); seq != 12 {
		t.Fatalf("base %d after Ack(12)", seq)
	}
}

// TestBaseTooOld: a Sender whose acknowledged view falls History packets
// behind sends from the zero base again, which any Receiver reads: a
// client that lost its views (or never had them) gets the world back.
func TestBaseTooOld(t *testing.T) {
	p := newPair(t, snapshot.Options[goldenWorld]{History: 16, Stream: 12})
	p.deliver(p.send(world(0)))
	p.r.Reset() // the client lost everything, and its acks are lost too
	var last []byte
	for i := 1; i <= 16; i++ {
		last = p.send(world(i))
		if i < 16 {
			refuse(t, p.r, &p.v, last, snapshot.ErrNoBase, "is not held")
		}
	}
	if last[2] != 0 {
		t.Fatalf("packet 16, 16 after its base, is not from the zero base: % x", last[:3])
	}
	p.deliver(last)
	p.deliver(p.send(world(17)))
}

// TestReconnect: a client reconnects — the server resets its Sender (a new
// stream, the sequences going on), the client its Receiver — while packets
// of the old stream are still on the way. The old stream's deltas are
// refused; its packets from the zero base may be read (any Receiver reads
// those), and with them the client acknowledges an old sequence, which the
// Sender ignores; the client converges on the new stream.
func TestReconnect(t *testing.T) {
	p := newPair(t, snapshot.Options[goldenWorld]{Stream: 13})
	var old [][]byte
	for i := range 40 {
		pkt := p.send(world(i))
		old = append(old, pkt)
		if i < 30 {
			p.deliver(pkt)
		}
	}
	p.s.Reset()
	p.r.Reset()
	oldStream := p.s.Stats().Resets
	if oldStream != 1 {
		t.Fatal("Reset not counted")
	}
	for i := 40; i < 60; i++ {
		pkt := p.send(world(i))
		if pkt[2] == 0 && binary.LittleEndian.Uint32(pkt[7:]) == 13 {
			t.Fatal("the new stream kept the old stream's value")
		}
		p.deliver(pkt)
		// The old stream's last packets arrive: deltas on its views.
		for _, o := range old[30+(i-40)/2 : 31+(i-40)/2] {
			refuse(t, p.r, &p.v, o, snapshot.ErrNoBase, "")
		}
	}
	if seq, ok := p.s.BaseSeq(); !ok || seq != 59 {
		t.Fatalf("base %d %v", seq, ok)
	}
}

// TestReconnectLateZeroBase: after a reconnect (both ends Reset), the
// old stream's first packet, from the zero base, arrives once the new
// stream has begun. Starting the new stream left the old one, so the
// late packet is refused, and the client goes on with the new stream;
// were it read, the Receiver would follow the old stream back, leave the
// new one, and refuse every packet the server sends from then on.
func TestReconnectLateZeroBase(t *testing.T) {
	p := newPair(t, snapshot.Options[goldenWorld]{History: 16, Stream: 31})
	oldZero := p.send(world(0))
	p.deliver(oldZero)
	for i := 1; i < 10; i++ {
		p.deliver(p.send(world(i)))
	}
	p.s.Reset()
	p.r.Reset()
	p.deliver(p.send(world(10))) // the new stream's first packet, from its zero base
	refuse(t, p.r, &p.v, oldZero, snapshot.ErrNoBase, "packet 0: of stream 0x0000001f, which this receiver left")
	for i := 11; i < 60; i++ {
		p.deliver(p.send(world(i)))
	}
}

// TestReconnectOldAcks: the server makes a new Sender (sequences from 0
// again) for a client whose Receiver still holds the old stream's views at
// the same sequences, and whose Ack names an old view; and a packet of the
// old stream from the zero base arrives after the new stream began. The
// Receiver follows the stream that starts (a packet from another stream's
// zero base) and refuses the one it left, never takes one stream's delta
// for another's, and the Sender ignores the Ack it cannot use (or, for a
// sequence it sent too, builds on a view the client does not hold, which
// the client refuses until a newer Ack moves the base): the stream goes
// on.
func TestReconnectOldAcks(t *testing.T) {
	const history = 32
	p := newPair(t, snapshot.Options[goldenWorld]{History: history, Stream: 21})
	var oldZero []byte
	for i := range 50 {
		pkt := p.send(world(i))
		if i == 0 {
			oldZero = pkt
		}
		p.deliver(pkt)
	}
	// A new Sender, sequences from 0; the Receiver is not reset.
	s2, err := snapshot.NewSender(snapshot.Options[goldenWorld]{Entities: []string{"Units"}, History: history, Stream: 22})
	if err != nil {
		t.Fatal(err)
	}
	p.s = s2
	reads, refusals := 0, 0
	for i := 50; i < 200; i++ {
		pkt := p.send(world(i))
		if i == 53 {
			p.s.Ack(49) // an Ack the old stream earned, of a sequence the new one has not sent
			p.s.Ack(2)  // and one it has: the client holds the old stream's view 2
		}
		if i == 60 {
			// The old stream's first packet, late: the Receiver left it.
			refuse(t, p.r, &p.v, oldZero, snapshot.ErrNoBase, "packet 0: of stream 0x00000015, which this receiver left")
		}
		seq, err := p.r.Read(pkt, &p.v)
		if err != nil {
			if !errors.Is(err, snapshot.ErrNoBase) {
				t.Fatal(err)
			}
			refusals++
			continue
		}
		reads++
		var want goldenWorld
		if !p.s.View(seq, &want) || !bytes.Equal(p.enc(&want), p.enc(&p.v)) {
			t.Fatalf("packet %d of the new stream: the view read is not the Sender's", seq)
		}
		p.s.Ack(p.r.Ack())
	}
	t.Logf("new stream: %d packets read, %d refused", reads, refusals)
	if refusals > 4 {
		t.Fatalf("%d packets refused: the stream stalled", refusals)
	}
	if seq, ok := p.s.BaseSeq(); !ok || seq != 149 {
		t.Fatalf("the new stream ended on base %d %v, want 149", seq, ok)
	}
}

// TestNewSenderErrors: NewSender names what it refuses.
func TestNewSenderErrors(t *testing.T) {
	type inner struct {
		Units [4]*goldenUnit `bits:"sparse"`
	}
	type Embedded struct {
		More [4]*goldenUnit `bits:"sparse"`
	}
	type shapes struct {
		Embedded
		Tick   uint8
		In     inner
		Ptr    *inner
		List   []goldenUnit          `bits:"maxlen=4"`
		Names  map[string]int        `bits:"maxlen=4,key.maxlen=8"`
		IDs    map[uint16]goldenUnit `bits:"maxlen=64"`
		Skip   [4]*goldenUnit        `bits:"-"`
		Blob   [100]byte
		hidden [4]*goldenUnit
	}
	_ = shapes{}.hidden // the unexported field a path must not name
	for _, tc := range []struct {
		opts snapshot.Options[shapes]
		want string
	}{
		{snapshot.Options[shapes]{Entities: []string{"Nope"}}, `Entities path "Nope" in snapshot_test.shapes: snapshot_test.shapes has no field Nope`},
		{snapshot.Options[shapes]{Entities: []string{"Tick"}}, `Entities path "Tick" in snapshot_test.shapes: a uint8 (uint): an entity set is a sparse [N]*E array`},
		{snapshot.Options[shapes]{Entities: []string{"List"}}, `a []snapshot_test.goldenUnit (slice)`},
		{snapshot.Options[shapes]{Entities: []string{"Names"}}, `a map with string keys`},
		{snapshot.Options[shapes]{Entities: []string{"Skip"}}, `field Skip is not on the wire`},
		{snapshot.Options[shapes]{Entities: []string{"hidden"}}, `field hidden is unexported`},
		{snapshot.Options[shapes]{Entities: []string{"Ptr.Units"}}, `Ptr is a *snapshot_test.inner, not a struct`},
		{snapshot.Options[shapes]{Entities: []string{"Tick.X"}}, `Tick is a uint8, not a struct`},
		{snapshot.Options[shapes]{Entities: []string{"In.Units", "In.Units"}}, `Entities lists "In.Units" twice`},
		{snapshot.Options[shapes]{Entities: []string{""}}, `Entities path "" in snapshot_test.shapes: empty`},
		{snapshot.Options[shapes]{History: 1}, `History 1: want 0 (the default, 64) or a power of two from 2 to 32768 (sequences wrap at 65536, which History must divide)`},
		{snapshot.Options[shapes]{History: 100}, `History 100: want 0 (the default, 64) or a power of two`},
		{snapshot.Options[shapes]{History: 32769}, `History 32769`},
		{snapshot.Options[shapes]{Budget: -1}, `Budget -1`},
		{snapshot.Options[shapes]{Budget: 11}, `Budget 11: a packet from the zero base is at least 12 bytes`},
	} {
		_, err := snapshot.NewSender(tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opts.Entities, err, tc.want)
		}
	}
	// The paths that are entity sets: nested, promoted, a map.
	if _, err := snapshot.NewSender(snapshot.Options[shapes]{Entities: []string{"In.Units", "More", "IDs"}}); err != nil {
		t.Fatal(err)
	}
	// Non-entity fields of at most 8 + 7 (align) + 800 bits, 3 items and
	// the packet's changed bit: 819 bits, 103 bytes, and the zero base's
	// 11-byte header.
	type heavy struct {
		Tick  uint8
		Blob  [100]byte
		Units [4]*goldenUnit `bits:"sparse"`
	}
	if _, err := snapshot.NewSender(snapshot.Options[heavy]{Budget: 113, Entities: []string{"Units"}}); err == nil ||
		!strings.Contains(err.Error(), "Budget 113: the non-entity fields of snapshot_test.heavy take up to 114 bytes with the header") {
		t.Errorf("non-entity fields larger than the budget: %v", err)
	}
	// One entity: 7 + 2400 bits whole, its index, changed bit and the end
	// marker (38 + 1 + 38), 1 item and the changed bit: 2486 bits, 311
	// bytes, and the header.
	type big struct {
		Slots [8]*struct {
			Blob [300]byte
		} `bits:"sparse"`
	}
	if _, err := snapshot.NewSender(snapshot.Options[big]{Budget: 300, Entities: []string{"Slots"}}); err == nil ||
		!strings.Contains(err.Error(), "Budget 300: one entity of Slots, entering alone, takes up to 322 bytes with the header") {
		t.Errorf("an entity larger than the budget: %v", err)
	}
	type nonzero struct {
		Level uint8 `bits:"range=1..10"`
	}
	if _, err := snapshot.NewSender(snapshot.Options[nonzero]{}); err == nil || !strings.Contains(err.Error(), "the zero value of snapshot_test.nonzero is every stream's first base") {
		t.Errorf("a zero value bitpack cannot encode: %v", err)
	}
	if _, err := snapshot.NewReceiver(snapshot.Options[nonzero]{}); err == nil {
		t.Error("NewReceiver took a zero value bitpack cannot encode")
	}
}

// TestRemovalsOverBudget: when the removals alone (with the non-entity
// fields) cannot fit, Append fails naming the budget, and the Sender is
// as it was.
func TestRemovalsOverBudget(t *testing.T) {
	type crate struct {
		X uint8
	}
	type scene struct {
		Crates [1000]*crate `bits:"sparse"`
	}
	opts := snapshot.Options[scene]{Budget: 40, Entities: []string{"Crates"}, Stream: 3, History: 1024}
	s, err := snapshot.NewSender(opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := snapshot.NewReceiver(opts)
	if err != nil {
		t.Fatal(err)
	}
	var w, v scene
	for i := 0; i < 1000; i += 3 {
		w.Crates[i] = &crate{X: 1}
	}
	for range 400 { // the world arrives
		pkt, err := s.Append(nil, &w)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Read(pkt, &v); err != nil {
			t.Fatal(err)
		}
		s.Ack(r.Ack())
	}
	if st := s.Stats(); st.Waiting != 0 || st.Sent != 0 {
		t.Fatalf("the world did not arrive in 400 packets of 40 bytes: %+v", st)
	}
	clear(w.Crates[:]) // every crate gone at once: 334 removals
	before := s.Stats()
	dst := []byte("keep")
	out, err := s.Append(dst, &w)
	if err == nil || !strings.Contains(err.Error(), "its header, non-entity fields and 334 removals take") ||
		!strings.Contains(err.Error(), "more than Budget 40") || !errors.Is(err, bitpack.ErrRange) {
		t.Fatalf("Append: %v", err)
	}
	if string(out) != "keep" || s.Stats().Seq != before.Seq || s.Stats().Packets != before.Packets {
		t.Fatalf("a failed Append changed dst or the Sender: %q %+v", out, s.Stats())
	}
}

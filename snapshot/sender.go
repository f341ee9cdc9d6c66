package snapshot

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"unsafe"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/snapwire"
)

// Sender builds one client's stream: each packet a delta from the newest
// view the client acknowledged to a target view (see the package doc). A
// Sender is not safe for concurrent use; a server keeps one per client.
type Sender[T any] struct {
	codec   *bitpack.Codec[T]
	opts    Options[T]
	history int
	sets    []*entitySet
	states  []setState // per set: the entities' accumulators and memos

	seq    uint16 // the next packet's
	stream uint32 // the current stream's value
	rng    *rand.PCG

	recs []record[T] // by sequence modulo history
	base *view[T]    // the newest view the client acknowledged; nil: the zero base
	free []*view[T]  // views no record and no base refers to, for reuse

	zero   T // the zero base, never written
	target T // the packet's target view, shallow: it points into the world and the base

	cands   []cand  // entities waiting, this packet
	scratch []byte  // the skeleton's encoding (budget.go)
	plan    planner // budget.go
	stats   Stats
}

// view is a view the Sender holds, decoded from the packet that produced
// it, exactly as the client decoded it.
type view[T any] struct {
	v    T
	seq  uint16
	id   uint32
	refs int // records whose base it is, and 1 while it is the Sender's base
}

// record is what the Sender keeps of a packet it sent, until it is
// acknowledged, overtaken by a newer acknowledgement, or evicted.
type record[T any] struct {
	seq   uint16
	live  bool // sent in this stream, and an Ack of it can still move the base
	id    uint32
	base  *view[T] // nil: the zero base
	delta []byte   // the packet after its header: decoded against base on Ack
	sent  []sentEntity
	raw   []byte // the raw values of the memo entities it carried (sentEntity.raw)
}

// sentEntity is an entity of a memo set a packet carried: when the packet
// is acknowledged, the Sender learns which decoded value its raw value
// gave (see setState.memo).
type sentEntity struct {
	set, state int32
	slot       int32 // the slot in the view (arrays and slices)
	raw        int32 // offset of its raw bytes in record.raw
}

// Stats describe a Sender's stream and its last packet.
type Stats struct {
	Seq     uint16 // the last packet's sequence
	Bytes   int    // its size, header included
	Base    int    // how many packets back its base is; 0: the zero base
	Sent    int    // entities it carried (changed or entering)
	Removed int    // entities it removed (gone from the world or from relevance)
	Waiting int    // relevant entities the acknowledged view does not match that it left for later packets
	Stalest int    // the most packets one of those has not been current for in the client's views: since the last packet that carried it, or since it changed; 0: none waits
	Encodes int    // delta encodings Append ran for it: 1 unless the budget bound

	Packets uint64 // packets Append returned since NewSender
	Acks    uint64 // acknowledgements that moved the base
	Ignored uint64 // acknowledgements ignored: unknown, evicted, not newer than the base, 0xFFFF
	Resets  uint64 // calls to Reset
}

// NewSender returns a Sender for T. It refuses, with an error naming it,
// an Entities path that is not a sparse array or slice or an integer-keyed
// map of T on the wire, a History out of range, and a Budget that some
// packet could never fit: smaller than a header and an empty delta, or
// than the largest non-entity fields, or than one entity of the largest
// encoding entering alone.
func NewSender[T any](opts Options[T]) (*Sender[T], error) {
	h, err := history(opts.History)
	if err != nil {
		return nil, err
	}
	codec, err := newCodec[T]()
	if err != nil {
		return nil, err
	}
	if opts.Budget < 0 {
		return nil, fmt.Errorf("snapshot: Budget %d: want 0 (no limit) or a number of bytes", opts.Budget)
	}
	layout := codec.Layout()
	sets, err := resolveEntities(reflect.TypeFor[T](), layout.Root, opts.Entities)
	if err != nil {
		return nil, err
	}
	if err := checkBudget(opts.Budget, layout, sets); err != nil {
		return nil, err
	}
	s := &Sender[T]{codec: codec, opts: opts, history: h, sets: sets, recs: make([]record[T], h)}
	s.states = make([]setState, len(sets))
	for i, set := range sets {
		s.states[i].init(set)
	}
	seed := uint64(opts.Stream)
	if seed == 0 {
		seed = rand.Uint64()
	}
	s.rng = rand.NewPCG(seed, 0x736e6170) // "snap"
	s.stream = opts.Stream
	if s.stream == 0 {
		s.stream = uint32(s.rng.Uint64())
	}
	s.plan.init(sets)
	return s, nil
}

// newCodec returns T's codec, refusing a T whose zero value bitpack cannot
// encode: it is every stream's first base.
func newCodec[T any]() (*bitpack.Codec[T], error) {
	c, err := bitpack.NewCodec[T]()
	if err != nil {
		return nil, err
	}
	var zero T
	if _, err := c.Marshal(&zero); err != nil {
		return nil, fmt.Errorf("snapshot: the zero value of %T is every stream's first base, and it cannot be encoded: %w", zero, err)
	}
	return c, nil
}

var errNilSender = errors.New("snapshot: method called on a nil or zero Sender (use NewSender)")

// Append appends the next packet to dst: a header and the delta from the
// newest view the client acknowledged to the packet's target view, at
// most Budget bytes. On error it returns dst unchanged and the Sender is
// as it was (the sequence is not used).
func (s *Sender[T]) Append(dst []byte, world *T) ([]byte, error) {
	if s == nil || s.codec == nil {
		return dst, errNilSender
	}
	if world == nil {
		return dst, errors.New("snapshot: Append of a nil world")
	}
	if s.base != nil && s.seq-s.base.seq >= uint16(s.history) {
		// Too old to name: the client may no longer hold it (and a base
		// that leads nowhere — a view the client lost — ends here too).
		s.release(s.base)
		s.base = nil
	}
	h := header{seq: s.seq, check: zeroID(s.stream), stream: s.stream}
	base := &s.zero
	if s.base != nil {
		h.offset, h.check, base = s.seq-s.base.seq, s.base.id, &s.base.v
	}
	start := len(dst)
	dst = appendHeader(dst, h)
	out, err := s.build(dst, world, base, len(dst)-start)
	if err != nil {
		return dst[:start], err
	}
	s.commit(out[start:], h, world)
	return out, nil
}

// commit records the packet just built and moves the sequence on.
func (s *Sender[T]) commit(packet []byte, h header, world *T) {
	r := &s.recs[int(h.seq)%s.history]
	s.retire(r)
	r.seq, r.live, r.id, r.base = h.seq, true, viewID(packet), s.base
	if s.base != nil {
		s.base.refs++
	}
	r.delta = append(r.delta[:0], packet[headerSize(h.offset):]...)
	s.remember(r, world)
	s.settle()
	s.stats.Seq, s.stats.Bytes, s.stats.Base = h.seq, len(packet), int(h.offset)
	s.stats.Packets++
	s.seq++
}

// retire ends a record's life: an Ack of it can no longer move the base.
func (s *Sender[T]) retire(r *record[T]) {
	if r.live {
		r.live = false
		if r.base != nil {
			s.release(r.base)
		}
		r.base = nil
	}
}

// release drops one reference to v, keeping it for reuse when none is
// left.
func (s *Sender[T]) release(v *view[T]) {
	if v.refs--; v.refs == 0 {
		s.free = append(s.free, v)
	}
}

// Ack tells the Sender the client acknowledged packet seq (its Receiver's
// Ack): that view becomes the base of the packets that follow. An Ack of a
// sequence this stream never sent or no longer holds, or not newer than
// the base, is ignored, and so is 0xFFFF: it is what a Receiver that has
// read nothing acknowledges (a client that reconnected, say), so taking it
// for packet 65535 could build on a view the client never had. A client
// whose newest is 65535 acknowledges a later packet next.
func (s *Sender[T]) Ack(seq uint16) {
	if s == nil || s.codec == nil {
		return
	}
	r := &s.recs[int(seq)%s.history]
	if seq == snapwire.NoAck || !r.live || r.seq != seq || s.base != nil && !newer(seq, s.base.seq) {
		s.stats.Ignored++
		return
	}
	// The view is the record's base with its delta applied: decoded as
	// the client decoded it, in place when nothing else needs the base.
	base := &s.zero
	var v *view[T]
	if r.base != nil {
		base = &r.base.v
		if r.base.refs == 1 && r.base != s.base {
			v = r.base
		}
	}
	if v == nil {
		v = s.newView()
	}
	if err := s.codec.UnmarshalDelta(r.delta, base, &v.v); err != nil {
		// It decoded when it was built; a failure here is a bug, and the
		// Sender stays on its base rather than guess.
		if v != r.base {
			s.free = append(s.free, v)
		}
		s.stats.Ignored++
		return
	}
	v.seq, v.id = seq, r.id
	v.refs++
	s.learn(r, v)
	if s.base != nil {
		s.release(s.base)
	}
	s.base = v
	// Every packet up to seq is settled: none of their Acks can move the
	// base again.
	for k := seq; ; k-- {
		rk := &s.recs[int(k)%s.history]
		if !rk.live || rk.seq != k {
			break
		}
		s.retire(rk)
	}
	s.stats.Acks++
}

// newView returns a view to decode into: a free one, or a new one.
func (s *Sender[T]) newView() *view[T] {
	if n := len(s.free); n > 0 {
		v := s.free[n-1]
		s.free = s.free[:n-1]
		return v
	}
	return new(view[T])
}

// Reset starts a new stream, as after a client reconnects: the Sender
// forgets every view and acknowledgement, draws a new stream value, and
// sends from the zero base again. Sequences go on from where they were,
// so that Acks of the old stream's packets are told from the new one's.
func (s *Sender[T]) Reset() {
	if s == nil || s.codec == nil {
		return
	}
	for i := range s.recs {
		s.retire(&s.recs[i])
	}
	if s.base != nil {
		s.release(s.base)
		s.base = nil
	}
	s.stream = uint32(s.rng.Uint64())
	for i := range s.states {
		s.states[i].reset()
	}
	s.stats.Resets++
}

// Stats returns the Sender's statistics.
func (s *Sender[T]) Stats() Stats { return s.stats }

// View makes *v the view packet seq gave the client, if the Sender still
// keeps that packet (it was sent in this stream and is not yet settled by
// an Ack of a newer one, or it is the base), and reports whether it did.
// For tests and tools: it decodes the packet, as the client does.
func (s *Sender[T]) View(seq uint16, v *T) bool {
	if s == nil || s.codec == nil || v == nil {
		return false
	}
	if s.base != nil && s.base.seq == seq {
		return s.codec.UnmarshalDelta(unchanged, &s.base.v, v) == nil
	}
	r := &s.recs[int(seq)%s.history]
	if !r.live || r.seq != seq {
		return false
	}
	base := &s.zero
	if r.base != nil {
		base = &r.base.v
	}
	return s.codec.UnmarshalDelta(r.delta, base, v) == nil
}

// ptr is the address of a T, as the entity sets read it.
func ptr[T any](v *T) unsafe.Pointer { return unsafe.Pointer(v) }

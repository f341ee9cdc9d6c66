package snapshot

import (
	"errors"
	"fmt"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/snapwire"
)

// Receiver reads a stream of packets from a Sender: it keeps the views of
// the last History sequences up to the newest it read, decodes each packet
// against the view its header names, and tells the client what to
// acknowledge. A Receiver is not safe for concurrent use.
type Receiver[T any] struct {
	codec   *bitpack.Codec[T]
	history int
	slots   []*slot[T] // by sequence modulo history; made when first written (a view can be large, and History up to 32768)
	zero    T          // the zero base, never written
	newest  uint16     // the newest sequence read (when read)
	stream  uint32     // the stream of the newest view (when on)
	read    bool       // a packet was read since creation or Reset
	on      bool       // a packet was read since creation: stream is the current stream, which Reset keeps
	spare   *slot[T]   // a slot for the first packet of a sequence modulo History, until one is accepted
	left    [leftStreams]uint32
	nleft   int // streams left so far (the last leftStreams are kept)
}

// leftStreams is how many of the streams it left a Receiver remembers,
// to refuse their packets.
const leftStreams = snapwire.LeftStreams

// slot is one view of a Receiver's history.
type slot[T any] struct {
	view   T
	seq    uint16
	id     uint32 // viewID of the packet that produced it
	stream uint32 // the value its ids chain from
	full   bool
}

// unchanged is the delta of a value equal to its base: decoding it copies
// the base (it is how a Receiver hands a view over).
var unchanged = []byte{0}

// NewReceiver returns a Receiver of T's stream. It uses opts.History only
// (which must be the Sender's).
func NewReceiver[T any](opts Options[T]) (*Receiver[T], error) {
	h, err := history(opts.History)
	if err != nil {
		return nil, err
	}
	codec, err := newCodec[T]()
	if err != nil {
		return nil, err
	}
	return &Receiver[T]{codec: codec, history: h, slots: make([]*slot[T], h)}, nil
}

// Read reads one packet: on success *v becomes the packet's view and seq is
// the packet's sequence. A refused packet changes nothing, neither the
// Receiver (its history, its Ack) nor *v; the error wraps ErrNoBase when
// the packet's base is not a view the Receiver holds, else one of
// bitpack's sentinels (ErrOverflow, ErrRange, ...). seq is the packet's
// sequence whenever its header could be read.
//
// *v becomes the view the Receiver keeps, shallowly: what its pointers,
// slices and maps refer to (the entities of a sparse array, a map) is the
// Receiver's, shared with the views it builds on this one, so it must
// not be modified; and the Receiver reuses that memory once the view
// leaves its history, History packets later. Copying the view would cost
// as much as decoding it again; a client that changes what it read copies
// it first (View makes a copy of its own). Fields of T that are not on the
// wire are zero in v.
//
// A packet is accepted when its header is well formed, its base is the
// zero value of T (its check the zero base's id in the stream the packet
// names) or a view the Receiver holds whose id matches the header's
// check, its stream is not one the Receiver left, its sequence is one the
// history can hold, and its delta decodes. Its view is stored under its
// sequence — an older packet's or a duplicate's too — and becomes the
// newest when its sequence is newer than the newest read in the same
// stream, or when it starts another stream: a packet from the zero base
// of a stream the Receiver is not on. The stream it was on (before a
// Reset too) is then one it left, whose packets it refuses from then on:
// they were sent before a reconnect.
func (r *Receiver[T]) Read(packet []byte, v *T) (seq uint16, err error) {
	if r == nil || r.codec == nil {
		return 0, errors.New("snapshot: Read on a nil or zero Receiver (use NewReceiver)")
	}
	if v == nil {
		return 0, errors.New("snapshot: Read into a nil *T")
	}
	h, n, err := parseHeader(packet, r.history)
	if err != nil {
		return h.seq, err
	}
	base, stream := &r.zero, h.stream
	if h.offset == 0 {
		if z := zeroID(h.stream); h.check != z {
			return h.seq, fmt.Errorf(snapwire.ZeroBase+": %w", h.seq, h.stream, z, h.check, ErrNoBase)
		}
	} else {
		b := h.seq - h.offset
		s := r.slots[int(b)%r.history]
		if !r.holds(s, b) {
			return h.seq, fmt.Errorf(snapwire.NotHeld+": %w", h.seq, b, h.offset, ErrNoBase)
		}
		if s.id != h.check {
			return h.seq, fmt.Errorf(snapwire.NotBase+": %w", h.seq, b, h.check, s.id, ErrNoBase)
		}
		base, stream = &s.view, s.stream
	}
	if r.hasLeft(stream) {
		return h.seq, fmt.Errorf(snapwire.LeftStream+": %w", h.seq, stream, ErrNoBase)
	}
	starts := h.offset == 0 && (!r.read || stream != r.stream)
	takes := starts || stream == r.stream && newer(h.seq, r.newest)
	if !takes && r.newest-h.seq >= uint16(r.history) {
		return h.seq, fmt.Errorf(snapwire.TooOld+": %w", h.seq, r.history, r.newest, bitpack.ErrRange)
	}
	dst := r.slots[int(h.seq)%r.history]
	if dst == nil { // a slot never used: it joins the history if the packet is accepted
		if r.spare == nil {
			r.spare = new(slot[T])
		}
		dst = r.spare
	}
	if err := r.codec.UnmarshalDelta(packet[n:], base, &dst.view); err != nil {
		return h.seq, fmt.Errorf(snapwire.Delta+": %w", h.seq, err)
	}
	dst.seq, dst.id, dst.stream, dst.full = h.seq, viewID(packet), stream, true
	if dst == r.spare {
		r.slots[int(h.seq)%r.history], r.spare = dst, nil
	}
	if starts && r.on && stream != r.stream {
		r.leave()
	}
	if takes {
		r.newest, r.stream, r.read, r.on = h.seq, stream, true, true
	}
	*v = dst.view
	return h.seq, nil
}

// holds reports whether s holds the view of sequence seq: read, and within
// the last History sequences up to the newest.
func (r *Receiver[T]) holds(s *slot[T], seq uint16) bool {
	return r.read && s != nil && s.full && s.seq == seq && r.newest-seq < uint16(r.history)
}

// Ack returns the sequence the client should acknowledge: the newest it
// read, or 0xFFFF before the first.
func (r *Receiver[T]) Ack() uint16 {
	if !r.read {
		return snapwire.NoAck
	}
	return r.newest
}

// hasLeft reports whether stream is one the Receiver left.
func (r *Receiver[T]) hasLeft(stream uint32) bool {
	for i := range min(r.nleft, leftStreams) {
		if r.left[i] == stream {
			return true
		}
	}
	return false
}

// leave adds the current stream to the streams left.
func (r *Receiver[T]) leave() {
	if !r.hasLeft(r.stream) {
		r.left[r.nleft%leftStreams] = r.stream
		r.nleft++
	}
}

// Reset forgets every view, as a new Receiver would, after a reconnect: no
// packet builds on what it held. It still refuses the streams it left;
// the one it was on is not among them (its Sender may go on, sending from
// the zero base) until a packet starts another, which leaves it: a late
// packet of the old stream from the zero base must not take the Receiver
// back to a stream its server has left.
func (r *Receiver[T]) Reset() {
	r.read = false
	for _, s := range r.slots {
		if s != nil {
			s.full = false
		}
	}
}

// View copies into *v the view the Receiver holds under seq and reports
// whether it holds one (for tests and tools: what a packet built on seq
// would be decoded against).
func (r *Receiver[T]) View(seq uint16, v *T) bool {
	s := r.slots[int(seq)%r.history]
	if !r.holds(s, seq) || v == nil {
		return false
	}
	return r.codec.UnmarshalDelta(unchanged, &s.view, v) == nil
}

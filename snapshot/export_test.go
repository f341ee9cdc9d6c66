package snapshot

import (
	"fmt"
	"hash/crc32"
)

// State is a digest of everything a Receiver keeps: its newest sequence
// and stream, and every slot's sequence, id, stream and view (encoded), so
// that a test can tell that a refused packet changed nothing.
func (r *Receiver[T]) State() string { return r.state(-1) }

// StateOf is State with the view of slot seq%History only (encoding every
// view is slow): a packet of sequence seq could write no other.
func (r *Receiver[T]) StateOf(seq uint16) string { return r.state(int(seq) % r.history) }

func (r *Receiver[T]) state(only int) string {
	s := fmt.Sprintf("read %v on %v newest %d stream %#x left %x %d;", r.read, r.on, r.newest, r.stream, r.left, r.nleft)
	for i, sl := range r.slots {
		if sl == nil {
			s += fmt.Sprintf(" [%d: none]", i)
			continue
		}
		s += fmt.Sprintf(" [%d: full %v seq %d id %#x stream %#x", i, sl.full, sl.seq, sl.id, sl.stream)
		if only < 0 || only == i {
			b, err := r.codec.Marshal(&sl.view)
			s += fmt.Sprintf(" view %#x %v", crc32.ChecksumIEEE(b), err)
		}
		s += "]"
	}
	return s
}

// StreamValue is the Sender's current stream value.
func (s *Sender[T]) StreamValue() uint32 { return s.stream }

// BaseSeq is the sequence of the Sender's base, and whether it has one.
func (s *Sender[T]) BaseSeq() (uint16, bool) {
	if s.base == nil {
		return 0, false
	}
	return s.base.seq, true
}

// Ratios are the planner's learned ratios (entering, changing) per set.
func (s *Sender[T]) Ratios() [][2]float64 { return s.plan.ratio }

// ViewID computes a packet's view id.
func ViewID(packet []byte) uint32 { return viewID(packet) }

// Newer is the sequence comparison.
func Newer(a, b uint16) bool { return newer(a, b) }

// ZeroID is the zero base's id of a stream.
func ZeroID(stream uint32) uint32 { return zeroID(stream) }

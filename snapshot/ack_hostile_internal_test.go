package snapshot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// A world for hostile acks: not quantized (raw floats: the memo path),
// a sparse array, a sparse slice and a map.
type ackUnit struct {
	X, Y float32 `bits:"float,min=-100,max=100,res=0.5,clamp"`
	HP   uint8   `bits:"range=0..100"`
}

type ackShot struct {
	D uint8 `bits:"range=0..63"`
}

type ackWorld struct {
	Tick  uint16
	Units [12]*ackUnit  `bits:"sparse"`
	Shots []*ackShot    `bits:"sparse,maxlen=10"`
	Items map[int8]bool `bits:"maxlen=8"`
}

// ackScript runs ops against a Sender while an honest Receiver reads
// every packet in order (nothing lost): whatever Acks arrive — future,
// very old, of another stream, repeated, across the wrap — every packet
// must be accepted and read as the Sender's view, and the Sender's views
// must stay accounted for (no view both free and in use, none freed
// twice, no more than History+1 in use).
func ackScript(t *testing.T, ops []byte, startSeq uint16, history, budget int) {
	opts := Options[ackWorld]{Entities: []string{"Units", "Shots", "Items"}, History: history, Budget: budget, Stream: 5}
	s, err := NewSender(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.seq = startSeq
	r, err := NewReceiver(opts)
	if err != nil {
		t.Fatal(err)
	}
	codec, _ := bitpack.NewCodec[ackWorld]()
	var w ackWorld
	w.Items = map[int8]bool{}
	var got, want ackWorld
	var acks []string
	next := func(i *int) byte {
		if *i < len(ops) {
			b := ops[*i]
			*i++
			return b
		}
		return 0
	}
	n := 0
	for i := 0; i < len(ops); {
		op := next(&i)
		switch op % 8 {
		case 0, 1, 2, 3:
			m := next(&i)
			w.Tick++
			k := int(m) % len(w.Units)
			switch m >> 6 {
			case 0:
				if w.Units[k] == nil {
					w.Units[k] = &ackUnit{}
				}
				w.Units[k].X += float32(int8(m)) * 0.37
				w.Units[k].Y = float32(int(m)%90) * 0.61
			case 1:
				w.Units[k] = nil
			case 2:
				if len(w.Shots) < 10 {
					w.Shots = append(w.Shots, &ackShot{D: m % 64})
				} else {
					w.Shots = w.Shots[:int(m)%10]
				}
			case 3:
				if len(w.Items) < 8 || w.Items[int8(m%16)] {
					w.Items[int8(m%16)] = !w.Items[int8(m%16)]
				}
				if m&1 == 0 {
					delete(w.Items, int8(m%16))
				}
			}
			pkt, err := s.Append(nil, &w)
			if err != nil {
				t.Fatalf("Append: %v", err)
			}
			seq, err := r.Read(pkt, &got)
			if err != nil {
				t.Fatalf("the honest Receiver refused packet %d (% x) after acks %v: %v", seq, pkt[:min(len(pkt), 11)], acks, err)
			}
			if !s.View(seq, &want) {
				t.Fatalf("the Sender does not keep packet %d", seq)
			}
			a, _ := codec.Marshal(&got)
			b, _ := codec.Marshal(&want)
			if !bytes.Equal(a, b) {
				t.Fatalf("packet %d: Receiver's view %x, Sender's %x", seq, a, b)
			}
			acks = acks[:0]
		case 4: // an ack of a packet sent up to 2·History ago (the client holds the last History)
			k := uint16(next(&i)) % uint16(2*history+1)
			a := s.seq - 1 - k
			acks = append(acks, fmt.Sprint(a))
			s.Ack(a)
		case 5: // any sequence
			a := binary.LittleEndian.Uint16([]byte{next(&i), next(&i)})
			acks = append(acks, fmt.Sprint(a))
			s.Ack(a)
		case 6: // not yet sent, or the other side of the half-range
			k := uint16(next(&i))
			a := s.seq + k
			if op&8 != 0 {
				a = s.seq + 32768 + k - 128
			}
			acks = append(acks, fmt.Sprint(a))
			s.Ack(a)
		case 7:
			acks = append(acks, "reset")
			s.Reset()
		}
		if n++; n%ackScriptEvery == 0 {
			checkViews(t, s)
		}
	}
}

// ackScriptEvery is how many ops ackScript runs between checks of the
// views (each walks the History's records).
var ackScriptEvery = 1

// checkViews checks the Sender's view accounting: every view in use
// (the base, live records' bases) has as many references as its users,
// none is on the free list, the free list holds each view once, and no
// more than History+1 views exist.
func checkViews[T any](t *testing.T, s *Sender[T]) {
	t.Helper()
	refs := map[*view[T]]int{}
	if s.base != nil {
		refs[s.base]++
	}
	for i := range s.recs {
		if r := &s.recs[i]; r.live && r.base != nil {
			refs[r.base]++
		}
	}
	for v, n := range refs {
		if v.refs != n {
			t.Fatalf("view %d: refs %d, %d users", v.seq, v.refs, n)
		}
	}
	seen := map[*view[T]]bool{}
	for _, v := range s.free {
		if refs[v] > 0 || seen[v] {
			t.Fatalf("view %d free twice or free while in use", v.seq)
		}
		seen[v] = true
	}
	if n := len(refs) + len(seen); n > s.history+2 {
		t.Fatalf("%d views for History %d", n, s.history)
	}
}

func FuzzSenderHostileAcks(f *testing.F) {
	f.Add([]byte{0, 1, 4, 0, 1, 2, 4, 0, 6, 3, 14, 3, 5, 255, 255, 7, 0, 9}, uint16(0), uint8(2), uint16(0))
	f.Add([]byte{0, 1, 0, 2, 0, 3, 4, 1, 0, 4, 4, 2, 0, 5}, uint16(65533), uint8(1), uint16(60))
	f.Fuzz(func(t *testing.T, ops []byte, start uint16, hbits uint8, budget uint16) {
		if len(ops) > 400 {
			return
		}
		b := int(budget % 200)
		if b != 0 {
			b += 60 // a budget that fits a unit entering alone and the skeleton
		}
		ackScript(t, ops, start, 2<<(hbits%5), b)
	})
}

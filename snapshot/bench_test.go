package snapshot_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/udpsnap/sim"
	"github.com/bitpack-go/bitpack/snapshot"
)

// scenes returns two consecutive ticks of examples/udpsnap's world of 500
// entities with the given fraction moving, quantized or not.
func scenes(tb testing.TB, moving float64, quantize bool) (a, b *sim.Scene) {
	w := sim.New(500, 30, 1)
	w.SetMoving(moving)
	w.Step()
	a, b = new(sim.Scene), new(sim.Scene)
	w.Scene(a)
	w.Step()
	w.Scene(b)
	if quantize {
		c, err := bitpack.NewCodec[sim.Scene]()
		if err != nil {
			tb.Fatal(err)
		}
		if err := c.Quantize(a); err != nil {
			tb.Fatal(err)
		}
		if err := c.Quantize(b); err != nil {
			tb.Fatal(err)
		}
	}
	return a, b
}

// sceneStream is a Sender and a Receiver of scenes, brought to the steady
// state: world a sent and acknowledged, so that the next packet of world
// b is the delta of one tick's change.
type sceneStream struct {
	s     *snapshot.Sender[sim.Scene]
	r     *snapshot.Receiver[sim.Scene]
	v     sim.Scene
	buf   []byte
	a, b  *sim.Scene
	ab    []byte // the packet of b on a's view
	ba    []byte // the packet of a on b's view
	tb    testing.TB
	limit int // Appends on one base before it must move (History)
}

func newSceneStream(tb testing.TB, budget, history int, a, b *sim.Scene) *sceneStream {
	opts := snapshot.Options[sim.Scene]{Budget: budget, Entities: []string{"Entities"}, History: history, Stream: 1}
	s, err := snapshot.NewSender(opts)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := snapshot.NewReceiver(opts)
	if err != nil {
		tb.Fatal(err)
	}
	x := &sceneStream{s: s, r: r, a: a, b: b, tb: tb, limit: history - 2}
	// Send a until the client holds it whole (a budget takes several
	// packets), every packet read and acknowledged.
	for range 64 {
		x.send(a)
		var got sim.Scene
		if r.View(r.Ack(), &got) && s.Stats().Waiting == 0 && s.Stats().Sent == 0 {
			break
		}
	}
	x.ab = x.send(b)
	x.ba = x.send(a)
	x.ab = x.send(b)
	return x
}

// send sends w, reads the packet and acknowledges it.
func (x *sceneStream) send(w *sim.Scene) []byte {
	var err error
	x.buf, err = x.s.Append(x.buf[:0], w)
	if err != nil {
		x.tb.Fatal(err)
	}
	if _, err := x.r.Read(x.buf, &x.v); err != nil {
		x.tb.Fatal(err)
	}
	x.s.Ack(x.r.Ack())
	return append([]byte(nil), x.buf...)
}

// BenchmarkStream measures the targets of issue 28 on examples/udpsnap's
// world of 500 entities, with 1%, 10% and 50% of them moving, quantized
// as a server that quantizes its world once per tick (for all its
// clients) holds it: in each group the baseline is bitpack's own delta of
// the same change.
//
//   - write: Sender.Append (no budget; and a budget of 1,200 bytes, which
//     binds only at 50%) against Codec.AppendDelta from the previous
//     tick's quantized world to this one;
//   - read: Receiver.Read against Codec.UnmarshalDelta of that delta;
//   - tick: what a client costs the server per tick, Append and Ack
//     (the clients a core serves at 30 Hz are 1s / 30 / this).
//
// The "raw" variants send a world that is not quantized.
func BenchmarkStream(b *testing.B) {
	codec, err := bitpack.NewCodec[sim.Scene]()
	if err != nil {
		b.Fatal(err)
	}
	for _, pct := range []int{1, 10, 50} {
		for _, quantized := range []bool{true, false} {
			name := fmt.Sprintf("moving%d", pct)
			if !quantized {
				name += "raw"
			}
			wa, wb := scenes(b, float64(pct)/100, quantized)
			qa, qb := quantizedCopy(b, codec, wa), quantizedCopy(b, codec, wb)
			dab, _ := codec.AppendDelta(nil, &qa, wb)
			dba, _ := codec.AppendDelta(nil, &qb, wa)
			buf := make([]byte, 0, 8192)
			b.Run(name+"/write/appenddelta", func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if i&1 == 0 {
						buf, _ = codec.AppendDelta(buf[:0], &qa, wb)
					} else {
						buf, _ = codec.AppendDelta(buf[:0], &qb, wa)
					}
					i++
				}
				b.ReportMetric(float64(len(dab)), "bytes")
			})
			for _, budget := range []int{0, 1200} {
				b.Run(fmt.Sprintf("%s/write/budget%d", name, budget), func(b *testing.B) {
					benchAppend(b, budget, wa, wb)
				})
			}
			b.Run(name+"/tick/budget0", func(b *testing.B) {
				x := newSceneStream(b, 0, 64, wa, wb)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					w := wb
					if i&1 == 1 {
						w = wa
					}
					x.buf, _ = x.s.Append(x.buf[:0], w)
					x.s.Ack(binary.LittleEndian.Uint16(x.buf))
					i++
				}
			})
			var got sim.Scene
			b.Run(name+"/read/unmarshaldelta", func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if i&1 == 0 {
						_ = codec.UnmarshalDelta(dab, &qa, &got)
					} else {
						_ = codec.UnmarshalDelta(dba, &qb, &got)
					}
					i++
				}
			})
			b.Run(name+"/read/read", func(b *testing.B) {
				x := newSceneStream(b, 0, 64, wa, wb)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					p := x.ab
					if i&1 == 1 {
						p = x.ba
					}
					if _, err := x.r.Read(p, &x.v); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(float64(len(x.ab)), "bytes")
			})
		}
	}
}

// benchAppend times Append of world b on a's view (and, every History
// packets, the other way round, so that the base never gets too old).
func benchAppend(b *testing.B, budget int, wa, wb *sim.Scene) {
	const history = 256 // an Ack every 254 packets: its cost spread thin
	a := newAppender(b, budget, history, wa, wb)
	for range 2 * history { // every record used once: the steady state
		a.append()
	}
	b.ReportAllocs()
	size := 0
	for b.Loop() {
		size += a.append()
	}
	b.ReportMetric(float64(size)/float64(b.N), "bytes")
}

// appender sends one world after the other on a base it moves every
// History packets: each Append is the delta of one tick's change.
type appender struct {
	x           *sceneStream
	n           int
	next, other *sim.Scene
}

func newAppender(tb testing.TB, budget, history int, wa, wb *sim.Scene) *appender {
	return &appender{x: newSceneStream(tb, budget, history, wa, wb), next: wa, other: wb}
}

// append makes one packet and returns its size.
func (a *appender) append() int {
	x := a.x
	x.buf, _ = x.s.Append(x.buf[:0], a.next)
	if a.n++; a.n == x.limit {
		x.s.Ack(binary.LittleEndian.Uint16(x.buf))
		a.next, a.other, a.n = a.other, a.next, 0
	}
	return len(x.buf)
}

func quantizedCopy(tb testing.TB, c *bitpack.Codec[sim.Scene], w *sim.Scene) sim.Scene {
	data, err := c.Marshal(w)
	if err != nil {
		tb.Fatal(err)
	}
	var q sim.Scene
	if err := c.Unmarshal(data, &q); err != nil {
		tb.Fatal(err)
	}
	return q
}

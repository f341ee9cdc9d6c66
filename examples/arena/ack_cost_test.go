package main

import (
	"encoding/binary"
	"hash/crc32"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/arena/world"
	"github.com/bitpack-go/bitpack/snapshot"
	"github.com/gorilla/websocket"
)

// TestLongAckMessage: an ack is 6 bytes, and the server drops any other
// message; a browser's message of 32 MiB must not cost the server 32 MiB
// of memory before it is dropped (the WebSocket's read limit is what
// bounds it).
func TestLongAckMessage(t *testing.T) {
	srv, hs := startServer(t)
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, _, err := conn.ReadMessage(); err != nil { // the stream runs
		t.Fatal(err)
	}
	big := make([]byte, 32<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := conn.WriteMessage(websocket.BinaryMessage, big); err != nil {
		t.Logf("write: %v (the server closed the connection)", err)
	}
	// An ack after it: once the server checked it, it has read the long
	// message (or closed the connection).
	if err := conn.WriteMessage(websocket.BinaryMessage, []byte{0, 0, 0, 0, 0, 0}); err == nil {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			_, st, _ := srv.World()
			if len(st) == 0 || st[0].Mismatch+st[0].Acked+st[0].Ignored > 0 {
				break
			}
		}
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Fatalf("a 32 MiB message the server drops cost it %d MiB of allocations", grew>>20)
	}
}

// BenchmarkAckCheck is what readAcks does for each 6-byte ack message
// the Sender takes: decode the view, encode it whole, CRC it. An ack the
// Sender ignores is not checked, so a client pays for at most one check a
// packet it reads.
func BenchmarkAckCheck(b *testing.B) {
	codec, err := bitpack.NewCodec[world.World]()
	if err != nil {
		b.Fatal(err)
	}
	sim := world.New(7)
	s, err := snapshot.NewSender(snapshot.Options[world.World]{Budget: 600, Entities: []string{"Entities"}, History: History})
	if err != nil {
		b.Fatal(err)
	}
	var pkt []byte
	for range 20 {
		sim.Step()
		if err := codec.Quantize(&sim.World); err != nil {
			b.Fatal(err)
		}
		if pkt, err = s.Append(pkt[:0], &sim.World); err != nil {
			b.Fatal(err)
		}
		s.Ack(binary.LittleEndian.Uint16(pkt))
	}
	full, _ := codec.Marshal(&sim.World)
	seq := binary.LittleEndian.Uint16(pkt)
	var view world.World
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if !s.View(seq, &view) {
			b.Fatal("not kept")
		}
		enc, err := codec.Marshal(&view)
		if err != nil {
			b.Fatal(err)
		}
		_ = crc32.ChecksumIEEE(enc)
		s.Ack(seq)
	}
	b.ReportMetric(float64(len(full)), "world-bytes")
}

// TestRepeatedAckNotChecked: an ack is checked (a whole world decoded
// and encoded) once, when the Sender takes it; the same ack again is
// ignored and not checked, so a client cannot make the server encode a
// world for each 6-byte message it sends.
func TestRepeatedAckNotChecked(t *testing.T) {
	srv, hs := startServer(t)
	conn, r, codec := dialStream(t, hs)
	_, p, err := conn.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	var v world.World
	seq, err := r.Read(p, &v)
	if err != nil {
		t.Fatal(err)
	}
	full, err := codec.Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}
	ack := binary.LittleEndian.AppendUint16(nil, seq)
	ack = binary.LittleEndian.AppendUint32(ack, crc32.ChecksumIEEE(full))
	for range 3 {
		if err := conn.WriteMessage(websocket.BinaryMessage, ack); err != nil {
			t.Fatal(err)
		}
	}
	var st []ClientStats
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, st, _ = srv.World(); len(st) == 1 && st[0].Acked+st[0].Ignored+st[0].Mismatch >= 3 {
			break
		}
	}
	if len(st) != 1 || st[0].Acked != 1 || st[0].Ignored != 2 || st[0].Mismatch != 0 {
		t.Fatalf("stats %+v after the same ack three times: want 1 checked and found right, 2 ignored", st)
	}
}

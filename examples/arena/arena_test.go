package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/arena/world"
	"github.com/bitpack-go/bitpack/gen"
	"github.com/bitpack-go/bitpack/snapshot"
	"github.com/gorilla/websocket"
)

// ticks is how long the tests run the world: from the moment the client
// connects, 200 ticks at 60 a second; then it stops, and the stream goes
// on at rest.
const ticks = 200

func startServer(t *testing.T) (*Server, *httptest.Server) {
	t.Helper()
	srv, err := NewServer(Config{Hz: 60, Budget: 600, Ticks: ticks, Seed: 7, Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return srv, hs
}

// caughtUp waits (up to a minute) until the world stopped, look (which
// returns a client's view of it, its full encoding) returns the world's,
// and the server checked at least as many of the client's acks as the
// world had ticks, finding each the view it meant.
func caughtUp(t *testing.T, srv *Server, look func() ([]byte, error)) {
	t.Helper()
	codec, err := bitpack.NewCodec[world.World]()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	var got, want []byte
	var stats []ClientStats
	for time.Now().Before(deadline) {
		w, st, err := srv.World()
		if err != nil {
			t.Fatal(err)
		}
		stats = st
		if want, err = codec.Marshal(&w); err != nil {
			t.Fatal(err)
		}
		if got, err = look(); err != nil {
			t.Fatal(err)
		}
		if w.Tick == ticks && bytes.Equal(got, want) && len(stats) == 1 && stats[0].Acked >= ticks {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the client's world is not the server's after a minute:\n client %x\n server %x", got, want)
	}
	if len(stats) != 1 || stats[0].Acked < ticks || stats[0].Mismatch != 0 {
		t.Fatalf("the server's checks of the client's acks: %+v; want one client, at least %d views checked, none different", stats, ticks)
	}
	t.Logf("the client holds the server's world at tick %d (%d bytes); acks: %+v", ticks, len(want), stats[0])
}

// dialStream opens the page's WebSocket on hs, closed when the test ends,
// with a Go Receiver and a Codec to read its stream.
func dialStream(t *testing.T, hs *httptest.Server) (*websocket.Conn, *snapshot.Receiver[world.World], *bitpack.Codec[world.World]) {
	t.Helper()
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	r, err := snapshot.NewReceiver(snapshot.Options[world.World]{History: History})
	if err != nil {
		t.Fatal(err)
	}
	codec, err := bitpack.NewCodec[world.World]()
	if err != nil {
		t.Fatal(err)
	}
	return conn, r, codec
}

// TestStream reads the stream with Go's snapshot.Receiver over the same
// WebSocket the page uses, acknowledging as the page does.
func TestStream(t *testing.T) {
	srv, hs := startServer(t)
	conn, r, codec := dialStream(t, hs)
	views := make(chan []byte, 1)
	errs := make(chan error, 1)
	go func() {
		var v world.World
		for {
			_, p, err := conn.ReadMessage()
			if err != nil {
				errs <- err
				return
			}
			seq, err := r.Read(p, &v)
			if err != nil {
				errs <- err
				return
			}
			b, err := codec.Marshal(&v)
			if err != nil {
				errs <- err
				return
			}
			ack := binary.LittleEndian.AppendUint16(nil, seq)
			if err := conn.WriteMessage(websocket.BinaryMessage, binary.LittleEndian.AppendUint32(ack, crc32.ChecksumIEEE(b))); err != nil {
				errs <- err
				return
			}
			select {
			case <-views:
			default:
			}
			views <- b
		}
	}()
	var last []byte
	caughtUp(t, srv, func() ([]byte, error) {
		select {
		case err := <-errs:
			return nil, err
		case last = <-views:
		default:
		}
		return last, nil
	})
}

// TestClientUpToDate: client/net.ts is what bitpack gen writes for
// world.World, and web/main.js and web/net.js are what the repository's
// tsc compiles from client/ (go generate writes them all again).
func TestClientUpToDate(t *testing.T) {
	var module bytes.Buffer
	if err := gen.TypeScript(&module, gen.Options{}, world.World{}); err != nil {
		t.Fatal(err)
	}
	if have, err := os.ReadFile(filepath.Join("client", "net.ts")); err != nil || !bytes.Equal(have, module.Bytes()) {
		t.Fatalf("client/net.ts is not what bitpack gen writes (%v): run go generate", err)
	}
	tsc := requireTool(t, filepath.Join("..", "..", "gen", "testdata", "ts", "node_modules", ".bin", "tsc"), "npm ci in gen/testdata/ts installs it")
	out := t.TempDir()
	if o, err := exec.Command(tsc, "-p", "client", "--outDir", out).CombinedOutput(); err != nil {
		t.Fatalf("tsc -p client: %v\n%s", err, o)
	}
	for _, name := range []string{"main.js", "net.js"} {
		want, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if have, err := os.ReadFile(filepath.Join("web", name)); err != nil || !bytes.Equal(have, want) {
			t.Errorf("web/%s is not what tsc compiles from client/ (%v): run go generate", name, err)
		}
	}
}

// TestBrowser opens the page in headless Chromium, driven over the
// DevTools protocol: the page's WorldReceiver (the generated TypeScript,
// compiled) reads the stream, and once the world stopped, after 200
// ticks, the world it decoded must be the server's, byte for byte, every
// one of its acks the view the server meant, and nothing refused or
// thrown.
func TestBrowser(t *testing.T) {
	chromium := requireTool(t, "chromium", "Debian's chromium package installs it")
	srv, hs := startServer(t)
	b := launch(t, chromium)
	page, err := b.open(hs.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	caughtUp(t, srv, func() ([]byte, error) {
		var st struct {
			Tick    int      `json:"tick"`
			Packets int      `json:"packets"`
			Refused int      `json:"refused"`
			Errors  []string `json:"errors"`
			Hex     string   `json:"hex"`
		}
		if err := b.eval(page, `window.arena ? {tick: arena.tick(), packets: arena.packets, refused: arena.refused, errors: arena.errors, hex: arena.hex()} : {tick: -1}`, &st); err != nil {
			return nil, err
		}
		if st.Refused > 0 || len(st.Errors) > 0 || len(b.thrown) > 0 {
			return nil, fmt.Errorf("the page refused %d packets (%q) and threw %q", st.Refused, st.Errors, b.thrown)
		}
		return hex.DecodeString(st.Hex)
	})
}

// requireTool returns the path of a program, or skips the test when it is
// not installed, unless BITPACK_REQUIRE_TOOLCHAINS=1.
func requireTool(t *testing.T, name, how string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("BITPACK_REQUIRE_TOOLCHAINS") == "1" {
		t.Fatalf("%s not found and BITPACK_REQUIRE_TOOLCHAINS=1 (%s): %v", name, how, err)
	}
	t.Skipf("%s not found (%s): %v; set BITPACK_REQUIRE_TOOLCHAINS=1 to make this a failure", name, how, err)
	return ""
}

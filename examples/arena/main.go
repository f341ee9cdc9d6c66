// Command arena serves a page that shows a game world streamed to the
// browser: a Go server simulates the arena (package world) and sends
// each browser that opens the page its own snapshot stream (package
// snapshot) over a WebSocket, every tick the next packet, a delta from the
// newest view the browser acknowledged, at most -budget bytes; the page
// reads the stream with the TypeScript client `bitpack gen -lang ts`
// wrote for world.World (web/net.ts: WorldReceiver), draws the entities
// on a canvas and the bandwidth as a line under them, and acknowledges
// each packet with its sequence and the CRC-32 of its view, which the
// server checks against the view it meant.
//
// Usage:
//
//	go run . [-addr 127.0.0.1:8080] [-hz 30] [-budget 600] [-ticks 0] [-seed 1] [-wait]
//
// then open http://127.0.0.1:8080/. -ticks N stops the world after N ticks
// (the stream goes on, at rest); 0 runs it until the server stops. -wait
// starts it when the first browser connects.
//
// The page is web/index.html and web/main.js, with the client module
// web/net.js; main.js and net.js are compiled from client/main.ts and
// client/net.ts by the TypeScript compiler the repository's tests install
// (gen/testdata/ts), with client/tsconfig.json. go generate writes them
// again:
//
//go:generate go run github.com/bitpack-go/bitpack/cmd/bitpack gen -lang ts -o client/net.ts ./world World
//go:generate ../../gen/testdata/ts/node_modules/.bin/tsc -p client
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "arena:", err)
		}
		os.Exit(2)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("arena", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "address to serve the page on")
	var cfg Config
	fs.IntVar(&cfg.Hz, "hz", 30, "ticks per second")
	fs.IntVar(&cfg.Budget, "budget", 600, "the most bytes a packet may take (0: no limit)")
	fs.IntVar(&cfg.Ticks, "ticks", 0, "stop the world after this many ticks (0: never)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "the world's seed")
	fs.BoolVar(&cfg.Wait, "wait", false, "start the world when the first browser connects")
	if err := fs.Parse(args); err != nil {
		return err
	}
	srv, err := NewServer(cfg)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Printf("arena: http://%s/\n", ln.Addr())
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, os.Interrupt)
		<-stop
		hs.Close()
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

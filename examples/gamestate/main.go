// Command gamestate shows what bitpack buys a game server: it simulates a
// world of about a thousand objects (players with a position, orientation,
// velocity, health and an optional weapon; grunts with a position and
// health — the classes of Glenn Fiedler's "Reading and Writing Packets"),
// and every tick encodes the world snapshot (every player, the living
// grunts) with a bitpack.Codec, decodes it, and checks the round trip:
//
//   - integers and bools come back exactly, floats within half a
//     quantization step, quaternions within the smallest-three error;
//   - re-encoding the decoded snapshot reproduces the packet byte for byte
//     (bitpack's canonical guarantee).
//
// The same snapshots are also encoded with encoding/json, encoding/gob and
// a hand-written fixed-width encoding/binary format, and the program ends
// with a table of packet sizes, bandwidth at common tick rates and
// encode/decode times, followed by the bitpack layout of a Player.
//
// Usage:
//
//	go run ./examples/gamestate [-objects 1000] [-ticks 300] [-seed 1]
//
// Sizes depend only on the flags and are the same on every run; the timing
// columns are whatever this machine measures (for careful numbers use the
// benchmarks).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		var ue usageError
		switch {
		case errors.Is(err, flag.ErrHelp):
			os.Exit(0)
		case errors.As(err, &ue): // the flag package has printed it with the usage
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "gamestate:", err)
		os.Exit(1)
	}
}

// usageError is a bad command line, already reported by the flag package.
type usageError struct{ error }

// format is one encoding under comparison, with its running totals.
type format struct {
	name   string
	encode func(dst []byte, s *world.Snapshot) ([]byte, error)
	decode func(data []byte, s *world.Snapshot) error
	// check compares the decoded snapshot with the original.
	check func(orig, got *world.Snapshot, packet []byte) error

	buf      []byte         // reused output buffer
	got      world.Snapshot // reused decode target
	bytes    int
	enc, dec time.Duration
}

// run is the program: it parses args (without the program name), runs the
// simulation and writes the report to out. An error means a bad command
// line or a failed round trip.
func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("gamestate", flag.ContinueOnError)
	fs.SetOutput(out)
	objects := fs.Int("objects", 1000, fmt.Sprintf("number of objects, 1..%d (a tenth are players, the rest grunts)", world.MaxObjects))
	ticks := fs.Int("ticks", 300, fmt.Sprintf("ticks to simulate (%d per second)", world.TickRate))
	seed := fs.Uint64("seed", 1, "random seed of the world")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case *objects < 1 || *objects > world.MaxObjects:
		return fmt.Errorf("-objects %d: want 1..%d", *objects, world.MaxObjects)
	case *ticks < 1:
		return fmt.Errorf("-ticks %d: want at least 1", *ticks)
	}

	codec, err := bitpack.NewCodec[world.Snapshot]()
	if err != nil {
		return err // a tag error: the message names the field and the problem
	}
	chk, err := newBitpackChecker(codec)
	if err != nil {
		return err
	}
	formats := []*format{
		{name: "bitpack", encode: codec.Append, decode: codec.Unmarshal, check: chk.check},
		{name: "raw fixed-width binary", encode: rawEncode, decode: world.DecodeRaw, check: exact},
		newGobStream(),
		{name: "encoding/gob (packet)²", encode: gobPacketEncode, decode: gobPacketDecode, check: exact},
		{name: "encoding/json", encode: jsonEncode, decode: jsonDecode, check: exact},
	}

	w := world.New(*objects, *seed)
	np, ng := w.Counts()
	fmt.Fprintf(out, "bitpack gamestate: %d objects (%d players, %d grunts), %d ticks at %d Hz, seed %d\n\n",
		*objects, np, ng, *ticks, world.TickRate, *seed)

	var snap world.Snapshot
	grunts, fewest, most := 0, world.MaxGrunts, 0 // living grunts per snapshot
	for range *ticks {
		w.Step()
		w.Snapshot(&snap)
		grunts += len(snap.Grunts)
		fewest, most = min(fewest, len(snap.Grunts)), max(most, len(snap.Grunts))
		for _, f := range formats {
			start := time.Now()
			buf, err := f.encode(f.buf[:0], &snap)
			f.enc += time.Since(start)
			if err != nil {
				return fmt.Errorf("tick %d: %s: encode: %w", snap.Tick, f.name, err)
			}
			f.buf = buf
			f.bytes += len(buf)

			start = time.Now()
			err = f.decode(buf, &f.got)
			f.dec += time.Since(start)
			if err != nil {
				return fmt.Errorf("tick %d: %s: decode: %w", snap.Tick, f.name, err)
			}
			if err := f.check(&snap, &f.got, buf); err != nil {
				return fmt.Errorf("tick %d: %s: round trip: %w", snap.Tick, f.name, err)
			}
		}
	}

	fmt.Fprintf(out, "Each snapshot carries the %d players and the living grunts (dead ones are left out): %.1f on average, %d to %d.\n",
		np, float64(grunts)/float64(*ticks), fewest, most)
	fmt.Fprintf(out, "Round trip: all %d snapshots decoded and checked.\n", *ticks)
	chk.report(out)
	fmt.Fprintln(out)
	printTable(out, formats, *ticks)
	fmt.Fprintln(out)

	l := codec.Layout()
	fmt.Fprintf(out, "A Snapshot takes %d to %d bytes (0 to %d players, 0 to %d grunts). Per object:\n\n",
		(l.MinBits+7)/8, (l.MaxBits+7)/8, world.MaxPlayers, world.MaxGrunts)
	pl, err := bitpack.Describe(world.Player{})
	if err != nil {
		return err
	}
	fmt.Fprint(out, pl)
	gl, err := bitpack.Describe(world.Grunt{})
	if err != nil {
		return err
	}
	fmt.Fprintln(out)
	fmt.Fprint(out, gl)
	return nil
}

// printTable prints sizes, bandwidth and timings per format, with ratios
// against bitpack (the first format).
func printTable(out io.Writer, formats []*format, ticks int) {
	n := float64(ticks)
	base := formats[0]
	perSnap := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / n }
	ratio := func(a, b float64) string {
		switch {
		case b == 0:
			return "-"
		case a/b < 0.95:
			return fmt.Sprintf("%.2f×", a/b)
		}
		return fmt.Sprintf("%.1f×", a/b)
	}
	const row = "%-24s %10s %6s %12s %6s %6s %8s %6s %8s %6s\n"
	fmt.Fprintf(out, row, "format", "bytes/snap", "×", "kbit/s@20Hz", "@30Hz", "@60Hz", "enc µs", "×", "dec µs", "×")
	for _, f := range formats {
		b := float64(f.bytes) / n
		kbit := func(hz float64) string { return fmt.Sprintf("%.0f", b*8*hz/1000) }
		fmt.Fprintf(out, row,
			f.name, fmt.Sprintf("%.1f", b), ratio(b, float64(base.bytes)/n),
			kbit(20), kbit(30), kbit(60),
			fmt.Sprintf("%.1f", perSnap(f.enc)), ratio(perSnap(f.enc), perSnap(base.enc)),
			fmt.Sprintf("%.1f", perSnap(f.dec)), ratio(perSnap(f.dec), perSnap(base.dec)))
	}
	fmt.Fprintf(out, `
× columns are relative to bitpack. kbit/s is the bandwidth of sending one
client the whole snapshot at 20, 30 or 60 Hz (no delta compression, no packet
headers). Times are averages over %d ticks on this machine: rough, see the
benchmarks for careful numbers. bitpack checks every value against its tag
(in both directions) and leaves the target untouched when a decode fails.
raw: encoding/binary, every field at its Go width, floats as float32 (world/raw.go).
¹ one gob.Encoder for the whole run: gob's type descriptions travel once, in
  the first snapshot (counted in the average); needs a reliable ordered stream.
² a fresh gob.Encoder per snapshot, so each packet carries the type
  descriptions and decodes on its own, as an unreliable datagram must.
`, ticks)
}

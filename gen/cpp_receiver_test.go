package gen

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/snapcorpus"
	"github.com/bitpack-go/bitpack/internal/snapwire"
	"github.com/bitpack-go/bitpack/snapshot"
)

// A receiverStep is one command of the C++ receiver driver
// (testdata/receiver.cpp) and the answer Go's snapshot.Receiver gives.
type receiverStep struct {
	what string // for a person
	cmd  string
	want string
	size int // packets: the packet's length
}

// TestCPPReceiver replays snapshot/testdata/stream.json (the Go
// Receiver's recorded stream: loss, duplicates, reordering, another
// client's stream, damaged checks and offsets, truncations, evicted
// bases, a reconnect), then crafted packets (every truncation and every
// bit flipped of one packet, each header check broken in turn, trailing
// bytes, a packet older than the history, a reset in a stream), through
// bitpack::Receiver<World, 16> over the generated header, then the
// streams recorded at the other Histories (2 and 256: eviction every
// other sequence, the long form, bases across the wrap) through a
// Receiver<World, 2> and a Receiver<World, 256>, and compares each step
// with Go's: the view (its full encoding), the sequence, the refusal and
// its reason, the ack. The driver checks that a refusal leaves the
// caller's value untouched and that view(seq) holds what read handed
// out. Then, on a steady stream at History 16, that read allocates
// nothing once its history is made (but for a packet longer than any
// before, whose delta may need a larger buffer). Both builds run it (the
// first with BITPACK_FULL=1 only): AddressSanitizer and UBSan (each
// packet in a buffer of exactly its size), and -O2 -march=native.
func TestCPPReceiver(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	if raceEnabled {
		t.Skip("the C++ side does not change under Go's race detector; the plain run covers it")
	}
	gxx := requireCompiler(t)
	files := readStreams(t)
	var steps []receiverStep
	for i, file := range files {
		g := newGoReceiver(t, file.History)
		steps = append(steps, receiverStep{what: fmt.Sprintf("a new receiver of History %d", file.History), cmd: fmt.Sprintf("fresh %d", file.History), want: fmt.Sprintf("ack=%d", g.r.Ack())})
		steps = append(steps, g.corpus(t, file)...)
		if i == 0 { // History 16: the crafted edges are chosen for it
			steps = append(steps, g.crafted(t, leftStreams(t, file))...)
		}
	}
	g := newGoReceiver(t, files[0].History)
	steady := g.steady(t)
	steps = append(steps, steady...)

	bins := buildReceiverDrivers(t, gxx)
	var cmds []string
	for _, st := range steps {
		cmds = append(cmds, st.cmd)
	}
	for _, bin := range bins {
		cmd := exec.Command(bin.path)
		cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0", "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
		answers := runDriver(t, bin.name+" receiver driver", cmd, cmds)
		failures := 0
		for i, st := range steps {
			if st.want == "" { // allocs, checked below
				continue
			}
			if answers[i] != st.want {
				failures++
				if failures <= 12 {
					t.Errorf("%s build: step %d (%s): %s\n  Go:  %s\n  C++: %s", bin.name, i, st.what, tail(st.cmd, 80), st.want, answers[i])
				}
			}
		}
		if failures > 12 {
			t.Errorf("%s build: %d disagreements in all (first 12 shown)", bin.name, failures)
		}
		checkSteadyAllocs(t, bin.name, g.history, steps[len(steps)-len(steady):], answers[len(steps)-len(steady):])
	}
}

// checkSteadyAllocs checks the allocations of the steady phase: a
// "fresh" receiver, "allocs", then packets each followed by "allocs".
// Once every slot of the history holds a view and the spare view is made
// (after History+1 packets), a read allocates nothing, but once for a
// packet longer than any before (its delta may need a larger buffer).
func checkSteadyAllocs(t *testing.T, build string, history int, steps []receiverStep, answers []string) {
	t.Helper()
	first, last, longest, packets, warm := int64(-1), int64(0), 0, 0, int64(0)
	for i, st := range steps {
		if st.cmd != "allocs" {
			continue
		}
		var n int64
		if _, err := fmt.Sscanf(answers[i], "allocs %d", &n); err != nil {
			t.Fatalf("%s build: %q is no allocation count", build, answers[i])
		}
		if first < 0 {
			first, last = n, n
			continue
		}
		size := steps[i-1].size
		packets++
		switch {
		case packets <= history+1:
			warm += n - last
		case size > longest && n-last > 1, size <= longest && n != last:
			t.Errorf("%s build: packet %d of the steady stream (%d bytes, the longest before %d) made %d allocations", build, packets, size, longest, n-last)
		}
		last, longest = n, max(longest, size)
	}
	if packets < 3*history {
		t.Fatalf("%s build: a steady stream of %d packets, want at least %d", build, packets, 3*history)
	}
	if warm > int64(history)+1+8 {
		t.Errorf("%s build: %d allocations in the first %d packets, want at most %d views and a few buffers", build, warm, history+1, history+1)
	}
	if warm < int64(history)+1 {
		// Each slot's view and the spare are made once: fewer counted
		// means the driver's counter misses allocations.
		t.Errorf("%s build: %d allocations in the first %d packets, fewer than their %d views", build, warm, history+1, history+1)
	}
	t.Logf("%s build: %d allocations in the first %d packets of the steady stream, %d in the %d after", build, warm, history+1, last-first-warm, packets-history-1)
}

// goReceiver is Go's receiver, the one whose answers the C++ must give.
type goReceiver struct {
	codec   *bitpack.Codec[snapcorpus.World]
	r       *snapshot.Receiver[snapcorpus.World]
	history int
	v       snapcorpus.World
}

func newGoReceiver(t *testing.T, history int) *goReceiver {
	t.Helper()
	codec, err := bitpack.NewCodec[snapcorpus.World]()
	if err != nil {
		t.Fatal(err)
	}
	g := &goReceiver{codec: codec, history: history}
	g.fresh(t)
	return g
}

func (g *goReceiver) fresh(t *testing.T) {
	t.Helper()
	r, err := snapshot.NewReceiver(snapshot.Options[snapcorpus.World]{History: g.history})
	if err != nil {
		t.Fatal(err)
	}
	g.r = r
}

// read gives pkt to the Go receiver and returns the driver's command and
// the answer it must give.
func (g *goReceiver) read(t *testing.T, what string, pkt []byte) receiverStep {
	t.Helper()
	st := receiverStep{what: what, cmd: "packet " + hex.EncodeToString(pkt), size: len(pkt)}
	seq, err := g.r.Read(pkt, &g.v)
	if err != nil {
		st.want = fmt.Sprintf("REFUSED %s seq=%d ack=%d", cppReceiveResult(t, err), seq, g.r.Ack())
		return st
	}
	view, err := g.codec.Marshal(&g.v)
	if err != nil {
		t.Fatal(err)
	}
	st.want = fmt.Sprintf("OK seq=%d ack=%d view=%x", seq, g.r.Ack(), view)
	return st
}

func (g *goReceiver) reset(what string) receiverStep {
	g.r.Reset()
	return receiverStep{what: what, cmd: "reset", want: fmt.Sprintf("ack=%d", g.r.Ack())}
}

// cppReceiveResult is the bitpack::ReceiveResult of a Go refusal: no_base
// for ErrNoBase; for the delta's refusals (a *bitpack.Error) trailing or
// refused; for the header's and the history's, overflow or range.
func cppReceiveResult(t *testing.T, err error) string {
	t.Helper()
	var decode *bitpack.Error
	switch {
	case errors.Is(err, snapshot.ErrNoBase):
		return "no_base"
	case errors.Is(err, bitpack.ErrTrailing):
		return "trailing"
	case errors.As(err, &decode):
		return "refused"
	case errors.Is(err, bitpack.ErrOverflow):
		return "overflow"
	case errors.Is(err, bitpack.ErrRange):
		return "range"
	}
	t.Fatalf("a refusal of no category: %v", err)
	return ""
}

// corpus turns the recorded steps into the driver's, each checked
// against what the file recorded Go's Receiver did.
func (g *goReceiver) corpus(t *testing.T, f *snapcorpus.File) []receiverStep {
	t.Helper()
	var steps []receiverStep
	for i, rec := range f.Steps {
		what := fmt.Sprintf("History %d, recorded step %d %s", f.History, i, rec.Why)
		var st receiverStep
		if rec.Reset {
			st = g.reset(what)
		} else {
			pkt, err := hex.DecodeString(rec.Packet)
			if err != nil {
				t.Fatal(err)
			}
			st = g.read(t, what, pkt)
			want := fmt.Sprintf("REFUSED %%s seq=%%d ack=%d", rec.Ack)
			if rec.Error == "" {
				want = fmt.Sprintf("OK seq=%d ack=%d view=%s", *rec.Seq, rec.Ack, rec.View)
			}
			if got := st.want; rec.Error != "" && !strings.HasPrefix(got, "REFUSED ") || rec.Error == "" && got != want {
				t.Fatalf("%s: Go's receiver answers %q, the file recorded %q %s", what, got, rec.Error, want)
			}
		}
		steps = append(steps, st)
	}
	return steps
}

// craftWorld is a world of tick n: a few units that move with it.
func craftWorld(n int) *snapcorpus.World {
	w := &snapcorpus.World{Tick: uint32(n)}
	for i := range 6 {
		if (n+i)%5 != 0 {
			w.Units[i*7] = &snapcorpus.Unit{X: float32((n*3+i)%190 - 95), Y: float32(i * 10), HP: uint8((n + i) % 101), Name: "u"}
		}
	}
	w.Shots = []*snapcorpus.Shot{{Dir: uint8(n % 64)}, nil, {Dir: 3}}
	w.Items = map[int16]*snapcorpus.Item{int16(n % 7): {Count: uint16(n)}, -5: {Count: 999}}
	return w
}

// crafted is a stream of its own after the recorded one, built with Go's
// Sender, and packets made from it that break one rule each.
func (g *goReceiver) crafted(t *testing.T, left [][]byte) []receiverStep {
	t.Helper()
	s, err := snapshot.NewSender(snapshot.Options[snapcorpus.World]{History: g.history, Entities: snapcorpus.Entities, Stream: 0x0c0ffee1})
	if err != nil {
		t.Fatal(err)
	}
	var sent [][]byte
	send := func(n int) []byte {
		p, err := s.Append(nil, craftWorld(n))
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, p)
		return p
	}
	var steps []receiverStep
	read := func(what string, p []byte) { steps = append(steps, g.read(t, what, p)) }
	// expect reads a packet crafted to meet one rule, and checks that
	// Go's answer is that rule's.
	expect := func(what string, p []byte, answer string) {
		read(what, p)
		if got := steps[len(steps)-1].want; !strings.HasPrefix(got, answer) {
			t.Fatalf("%s: Go answers %q, the step was crafted for %q", what, got, answer)
		}
	}
	// Nothing acknowledged: every packet from the zero base. The first
	// starts the stream (leaving the recorded one).
	for n := range 20 {
		read("a crafted packet from the zero base", send(n))
	}
	expect("older than the history keeps", sent[2], "REFUSED range seq=2 ")
	expect("exactly History older than the newest", sent[3], "REFUSED range seq=3 ")
	expect("History-1 older than the newest: a duplicate the history holds", sent[4], "OK seq=4 ack=19 ")
	expect("the zero base of the stream the receiver left for this one", left[1], "REFUSED no_base ")
	s.Ack(19)
	p := send(20) // on 19, one back
	if p[2] != 1<<1 {
		t.Fatalf("packet 20's offset byte is %#x, want 2 (one back)", p[2])
	}
	expect("a trailing byte", append(slices.Clip(p), 0), "REFUSED trailing seq=20 ")
	expect("an offset of 1 in the long form", slices.Concat(p[:2], []byte{1<<1 | 1, 0}, p[3:]), "REFUSED range seq=0 ")
	w := uint16(200)<<1 | 1
	expect("an offset of 200 in the long form", slices.Concat(p[:2], []byte{byte(w), byte(w >> 8)}, p[3:]), "REFUSED range seq=0 ")
	for _, c := range []struct {
		offset byte
		answer string
	}{{3, "REFUSED no_base seq=20 "}, {byte(g.history), "REFUSED range seq=0 "}, {127, "REFUSED range seq=0 "}} {
		q := slices.Clone(p)
		q[2] = c.offset << 1
		expect(fmt.Sprintf("offset %d", c.offset), q, c.answer)
	}
	for n := range len(p) {
		read(fmt.Sprintf("packet 20 truncated to %d bytes", n), p[:n])
	}
	for bit := range 8 * len(p) {
		q := slices.Clone(p)
		q[bit/8] ^= 1 << (bit % 8)
		read(fmt.Sprintf("packet 20 with bit %d flipped", bit), q)
	}
	expect("packet 20", p, "OK seq=20 ack=20 ")
	// 21 to 35 build on 20 (acknowledged), 36 and 37 on the zero base (20
	// is History back). 21 and 36 are lost; when 21 arrives, 20 is still
	// in its slot but History or more older than the newest, 37: not held.
	s.Ack(20)
	for n := 21; n <= 37; n++ {
		send(n)
	}
	for n := 22; n <= 37; n++ {
		if n != 36 {
			expect(fmt.Sprintf("packet %d", n), sent[n], fmt.Sprintf("OK seq=%d ack=%d ", n, n))
		}
	}
	expect("on a view still in its slot but older than the history", sent[21], "REFUSED no_base seq=21 ack=37")
	steps = append(steps, g.reset("a reset in the stream"))
	expect("on a view the reset forgot", sent[35], "REFUSED no_base seq=35 ack=65535")
	expect("the stream's zero base after the reset", sent[36], "OK seq=36 ack=36 ")
	expect("after it, on a view from before the reset", sent[35], "REFUSED no_base seq=35 ack=36")
	// The recorded stream's first stream was left when the stream after
	// the reconnect started (a Reset keeps the stream it was on until
	// then): a late packet of it is refused, and the receiver stays.
	expect("the zero base of the stream the receiver reset on, late", left[0], "REFUSED no_base seq=0 ack=36")
	expect("after it, a packet of this stream", sent[37], "OK seq=37 ack=37 ")
	// Six streams one after the other: the receiver remembers the last 4
	// it left, so the first of them starts again and the second does not.
	var firsts [][]byte
	for i := range 6 {
		o, err := snapshot.NewSender(snapshot.Options[snapcorpus.World]{History: g.history, Entities: snapcorpus.Entities, Stream: 0x51 + uint32(i)})
		if err != nil {
			t.Fatal(err)
		}
		p, err := o.Append(nil, craftWorld(i))
		if err != nil {
			t.Fatal(err)
		}
		expect(fmt.Sprintf("the first packet of stream %d of 6", i+1), p, "OK seq=0 ack=0 ")
		firsts = append(firsts, p)
	}
	expect("stream 1 of 6, which the last 4 streams left do not hold", firsts[0], "OK seq=0 ack=0 ")
	expect("stream 3 of 6, one of the last 4 left", firsts[2], "REFUSED no_base seq=0 ack=0")
	return steps
}

// leftStreams are two packets of the recorded stream from the zero base
// of the two streams it was on: the first, before the reconnect, and the
// last, which the crafted stream leaves.
func leftStreams(t *testing.T, f *snapcorpus.File) [][]byte {
	t.Helper()
	var first, last []byte
	for _, st := range f.Steps {
		p, err := hex.DecodeString(st.Packet)
		if err != nil {
			t.Fatal(err)
		}
		if st.Error == "" && len(p) > 2 && p[2] == 0 {
			if first == nil {
				first = p
			}
			last = p
		}
	}
	if first == nil || bytes.Equal(first[7:11], last[7:11]) {
		t.Fatal("the recorded stream has no zero-base packets of two streams")
	}
	return [][]byte{first, last}
}

// steady is a fresh receiver given a stream with no loss, each packet
// acknowledged, each followed by "allocs".
func (g *goReceiver) steady(t *testing.T) []receiverStep {
	t.Helper()
	s, err := snapshot.NewSender(snapshot.Options[snapcorpus.World]{History: g.history, Entities: snapcorpus.Entities, Stream: 0x0c0ffee2})
	if err != nil {
		t.Fatal(err)
	}
	g.fresh(t)
	steps := []receiverStep{{what: "a fresh receiver", cmd: fmt.Sprintf("fresh %d", g.history), want: fmt.Sprintf("ack=%d", g.r.Ack())}, {what: "allocations before", cmd: "allocs"}}
	for n := range 4 * g.history {
		p, err := s.Append(nil, craftWorld(n))
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, g.read(t, "the steady stream", p), receiverStep{what: "allocations", cmd: "allocs"})
		s.Ack(g.r.Ack())
	}
	return steps
}

// receiverDrivers are the builds of testdata/receiver.cpp, made once for
// the tests that run them (TestCPPReceiver, TestReceiversDamaged).
var receiverDrivers struct {
	once    sync.Once
	drivers []driver
	err     error
}

// buildReceiverDrivers generates the header of snapcorpus.World and
// compiles testdata/receiver.cpp with it, a Receiver for each History of
// snapcorpus.Recordings and for the largest, snapwire.MaxHistory: in
// both builds with BITPACK_FULL=1, else in the optimised one alone (whose
// float contractions are the ones that could differ from Go's).
func buildReceiverDrivers(t *testing.T, gxx string) []driver {
	t.Helper()
	receiverDrivers.once.Do(func() {
		receiverDrivers.drivers, receiverDrivers.err = buildReceiverDriversOnce(gxx)
	})
	if receiverDrivers.err != nil {
		t.Fatal(receiverDrivers.err)
	}
	return receiverDrivers.drivers
}

// receiverDriverSources are the files under testdata that the receiver
// driver is built from, beside the generated header it includes as
// receiver.h.
var receiverDriverSources = []string{"minserialize.h", "counting_new.h", "receiver.cpp"}

func buildReceiverDriversOnce(gxx string) ([]driver, error) {
	dir, err := sharedTempDir("receiver")
	if err != nil {
		return nil, err
	}
	var header bytes.Buffer
	if err := CPP(&header, Options{Include: "minserialize.h"}, &snapcorpus.World{}); err != nil {
		return nil, err
	}
	files := map[string][]byte{"receiver.h": header.Bytes()}
	for _, name := range receiverDriverSources {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return nil, err
		}
	}
	histories := ""
	for _, rc := range snapcorpus.Recordings {
		histories += fmt.Sprintf("EACH(%d) ", rc.History)
	}
	histories += fmt.Sprintf("EACH(%d)", snapwire.MaxHistory) // TestReceiversAtMaxHistory's
	builds := []string{"fast"}
	if fullSweeps() {
		builds = []string{"sanitized", "fast"}
	}
	var drivers []driver
	errs := make([]error, len(builds))
	var wg sync.WaitGroup
	for i, name := range builds {
		d := driver{name: name, path: filepath.Join(dir, "receiver_"+name)}
		drivers = append(drivers, d)
		args := append([]string{"-std=c++11", "-Wall", "-Wextra", "-Werror", "-DHISTORIES=" + histories}, cppFlags[name]...)
		args = append(args, "-o", d.path, filepath.Join(dir, "receiver.cpp"))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return drivers, nil
}

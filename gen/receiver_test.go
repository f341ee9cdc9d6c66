package gen

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/snapcorpus"
	"github.com/bitpack-go/bitpack/internal/snapwire"
	"github.com/bitpack-go/bitpack/snapshot"
)

// The generated TypeScript receivers of snapshot streams, against Go's
// snapshot.Receiver on the streams internal/snapcorpus records
// (snapshot/testdata/stream.json at History 16, and one file for each
// other History of snapcorpus.Recordings: loss, duplicates, reordering,
// another client's stream, damaged headers, evicted bases, a reconnect).

// readStreams reads the recorded streams, stream.json (History 16) first.
func readStreams(t *testing.T) []*snapcorpus.File {
	t.Helper()
	var files []*snapcorpus.File
	for _, rc := range snapcorpus.Recordings {
		data, err := os.ReadFile(filepath.Join("..", "snapshot", "testdata", rc.File))
		if err != nil {
			t.Fatal(err)
		}
		var f snapcorpus.File
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		if f.History != rc.History {
			t.Fatalf("%s: History %d, snapcorpus records it at %d", rc.File, f.History, rc.History)
		}
		files = append(files, &f)
	}
	return files
}

// readStream reads stream.json, the recorded stream at History 16.
func readStream(t *testing.T) *snapcorpus.File {
	t.Helper()
	return readStreams(t)[0]
}

// receiverScript is the stream's steps as receiver_cases.ts commands
// (verb "read", or "view" for each packet a subarray of a larger buffer),
// with the answers Go's Receiver gives: the recorded results, checked
// again here, and each refusal's message.
func receiverScript(t *testing.T, f *snapcorpus.File, verb string) (cmds, want []string) {
	t.Helper()
	codec, err := bitpack.NewCodec[snapcorpus.World]()
	if err != nil {
		t.Fatal(err)
	}
	r, err := snapshot.NewReceiver(snapshot.Options[snapcorpus.World]{History: f.History})
	if err != nil {
		t.Fatal(err)
	}
	cmds = append(cmds, fmt.Sprintf("new %d", f.History))
	want = append(want, fmt.Sprintf("ack %d", r.Ack()))
	var v snapcorpus.World
	for i, st := range f.Steps {
		if st.Reset {
			r.Reset()
			cmds = append(cmds, "reset")
			want = append(want, fmt.Sprintf("ack %d", r.Ack()))
			continue
		}
		packet, err := hex.DecodeString(st.Packet)
		if err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, verb+" "+st.Packet)
		seq, err := r.Read(packet, &v)
		switch {
		case err != nil:
			if cat := snapcorpus.Category(err); cat != st.Error {
				t.Fatalf("step %d: Go refuses it as %s (%v), the file says %q", i, cat, err, st.Error)
			}
			want = append(want, fmt.Sprintf("refused %s %s ack %d", st.Error, err, r.Ack()))
		default:
			view, err := codec.Marshal(&v)
			if err != nil {
				t.Fatal(err)
			}
			if st.Seq == nil || int(seq) != *st.Seq || hex.EncodeToString(view) != st.View {
				t.Fatalf("step %d: Go reads sequence %d, view %x; the file says %v, %s", i, seq, view, st.Seq, st.View)
			}
			want = append(want, fmt.Sprintf("ok %d %s ack %d", seq, st.View, r.Ack()))
		}
		if int(r.Ack()) != st.Ack {
			t.Fatalf("step %d: Go's Ack is %d, the file says %d", i, r.Ack(), st.Ack)
		}
	}
	return cmds, want
}

// scriptSteps name the n commands of f's receiverScript: a new receiver
// of f's History, then f's steps.
func scriptSteps(f *snapcorpus.File, verb string, n int) []string {
	whats := []string{fmt.Sprintf("a new receiver of History %d", f.History)}
	for i := range n - 1 {
		whats = append(whats, fmt.Sprintf("History %d (%s), recorded step %d", f.History, verb, i))
	}
	return whats
}

// TestTypeScriptReceiver replays the recorded streams (History 16, 2
// and 256, each through a new WorldReceiver of its History) through the
// generated WorldReceiver: stream.json twice, each packet its own
// Uint8Array, then each a subarray of a larger buffer; the stream at 256
// the first way, at 2 the second. Every step must do what Go's
// Receiver does: the same view (compared by its full encoding), the same
// refusal (its category, and Go's message word for word), the same ack,
// before the first packet too. Then the Histories Go refuses, refused in
// Go's words.
func TestTypeScriptReceiver(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	tsc := requireTSC(t)
	node := requireTool(t, "node", "TypeScript")
	var cmds, want, whats []string
	kinds := map[string]int{}
	for i, f := range readStreams(t) {
		verbs := []string{"read", "view"}
		if i > 0 { // how the packet is held does not depend on the History
			verbs = verbs[i%2 : i%2+1]
		}
		for _, verb := range verbs {
			c, w := receiverScript(t, f, verb)
			cmds, want, whats = append(cmds, c...), append(want, w...), append(whats, scriptSteps(f, verb, len(c))...)
			for _, line := range w {
				switch f := strings.Fields(line); f[0] {
				case "refused":
					kinds["refused "+f[1]+" ("+f[3]+")"]++
				default:
					kinds[f[0]]++
				}
			}
		}
	}
	t.Logf("%d commands: %v", len(cmds), kinds)
	for _, w := range snapwire.Words { // every refusal is among them
		if text, _, _ := strings.Cut(w.Format, "%"); w.Name != "History" && !strings.Contains(strings.Join(want, "\n"), text) {
			t.Errorf("no refusal %s (%q) in the script", w.Name, w.Format)
		}
	}
	for _, h := range []int{0, 1, 3, 48, 65536, -2} {
		cmds = append(cmds, fmt.Sprintf("new %d", h))
		_, err := snapshot.NewReceiver(snapshot.Options[snapcorpus.World]{History: h})
		if err != nil {
			want = append(want, "throws "+err.Error())
		} else {
			want = append(want, "ack 65535")
		}
	}
	cmds, want = append(cmds, "new -"), append(want, "ack 65535")
	for len(whats) < len(cmds) {
		whats = append(whats, "a new receiver")
	}
	got := runReceiverDriver(t, tsc, node, cmds)
	bad := 0
	for i := range cmds {
		if got[i] != want[i] {
			if bad++; bad <= 10 {
				t.Errorf("command %d, %s (%.60s):\n got %s\nwant %s", i, whats[i], cmds[i], got[i], want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d answers differ from Go's", bad, len(cmds))
	}
}

// receiverCasesBuild is the World module compiled with
// receiver_cases.ts, made once for the tests that run it
// (TestTypeScriptReceiver, TestReceiversDamaged).
var receiverCasesBuild = sharedBuild{name: "receiver-ts"}

// receiverCasesDir generates the World module and compiles it with
// receiver_cases.ts, once, and returns where.
func receiverCasesDir(t *testing.T, tsc string) string {
	t.Helper()
	return receiverCasesBuild.get(t, func(dir string) string {
		var module bytes.Buffer
		if err := TypeScript(&module, Options{}, snapcorpus.World{}); err != nil {
			t.Fatal(err)
		}
		cases, err := os.ReadFile(filepath.Join("testdata", "receiver_cases.ts"))
		if err != nil {
			t.Fatal(err)
		}
		tsCompile(t, tsc, dir, map[string][]byte{"world.ts": module.Bytes(), "receiver_cases.ts": cases})
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	})
}

// runReceiverDriver returns node's answers to cmds, given to
// receiver_cases.ts.
func runReceiverDriver(t *testing.T, tsc, node string, cmds []string) []string {
	t.Helper()
	dir := receiverCasesDir(t, tsc)
	// Line by line, the answers written as they come (a pipe's writes are
	// synchronous on Linux): the damage campaign's History 256 stream is
	// millions of commands for one receiver, more than node's heap holds
	// as one string and its answers.
	script := `import { createInterface } from "node:readline";
import { answer } from "./out/receiver_cases.js";
let out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  out.push(answer(line));
  if (out.length === 4096) {
    process.stdout.write(out.join("\n") + "\n");
    out = [];
  }
}
if (out.length > 0) {
  process.stdout.write(out.join("\n") + "\n");
}`
	cmd := exec.Command(node, "--input-type=module", "-e", script)
	cmd.Dir = dir
	return runDriver(t, "node", cmd, cmds)
}

// steadyStream is a stream of 240 packets of a world whose every unit,
// shot and item changes every tick, and whose entities stay: each packet
// acknowledged at once, so each builds on the one before. It returns the
// packets and the last world, quantized as the receiver sees it.
func steadyStream(t *testing.T) (packets [][]byte, last []byte) {
	t.Helper()
	s, err := snapshot.NewSender(snapshot.Options[snapcorpus.World]{Entities: snapcorpus.Entities, History: 16, Stream: 7})
	if err != nil {
		t.Fatal(err)
	}
	r, err := snapshot.NewReceiver(snapshot.Options[snapcorpus.World]{History: 16})
	if err != nil {
		t.Fatal(err)
	}
	var w, view snapcorpus.World
	for i := range 30 {
		w.Units[i] = &snapcorpus.Unit{Name: "unit"}
	}
	for range 10 {
		w.Shots = append(w.Shots, &snapcorpus.Shot{})
	}
	w.Items = map[int16]*snapcorpus.Item{}
	for i := range 12 {
		w.Items[int16(i*3-10)] = &snapcorpus.Item{}
	}
	for tick := range 240 {
		w.Tick++
		for i, u := range w.Units {
			if u != nil {
				u.X = float32((tick*7+i)%180) - 90
				u.Y = float32((tick*3+i*5)%180) - 90
				u.HP = uint8((tick + i) % 101)
			}
		}
		for i, s := range w.Shots {
			s.Dir = uint8((tick + i) % 64)
		}
		for k, it := range w.Items {
			it.Count = uint16((tick*11 + int(k) + 100) % 1000)
		}
		p, err := s.Append(nil, &w)
		if err != nil {
			t.Fatal(err)
		}
		if tick > 0 && p[2] != 1<<1 {
			t.Fatalf("packet %d is not on the one before: % x", tick, p[:3])
		}
		if _, err := r.Read(p, &view); err != nil {
			t.Fatal(err)
		}
		s.Ack(r.Ack())
		packets = append(packets, p)
	}
	last, err = bitpack.Marshal(&view)
	if err != nil {
		t.Fatal(err)
	}
	return packets, last
}

// TestTypeScriptReceiverAllocations counts the objects WorldReceiver.read
// makes per packet once its history is full, on a stream where every
// field of 52 entities changes every packet and no entity comes or goes
// (receiver_allocs.mjs counts them with V8's sampling heap profiler,
// under --jitless so that what is counted is the code's own). It reuses
// the objects of the views it evicts: what is left is a constant few per
// packet (the result, its reader of the delta and that reader's view of
// the packet), nothing per field or entity. readWorldDelta on the same
// deltas, which builds a new world from each, is the control: the count
// sees its objects.
func TestTypeScriptReceiverAllocations(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	tsc := requireTSC(t)
	node := requireTool(t, "node", "TypeScript")
	packets, last := steadyStream(t)
	var module bytes.Buffer
	if err := TypeScript(&module, Options{}, snapcorpus.World{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tsCompile(t, tsc, dir, map[string][]byte{"world.ts": module.Bytes()})
	script, err := os.ReadFile(filepath.Join("testdata", "receiver_allocs.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string][]byte{"out/receiver_allocs.mjs": script, "package.json": []byte(`{"type": "module"}` + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var in strings.Builder
	for _, p := range packets {
		in.WriteString(hex.EncodeToString(p) + "\n")
	}
	cmd := exec.Command(node, "--jitless", filepath.Join(dir, "out", "receiver_allocs.mjs"))
	cmd.Stdin = strings.NewReader(in.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, tail(stderr.String(), 4000))
	}
	type count struct {
		PerPacket float64  `json:"perPacket"`
		Top       [][2]any `json:"top"`
	}
	var got struct {
		Receiver, Control count
		View, ControlView string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("objects per packet: WorldReceiver.read %.2f %v; readWorldDelta %.2f %v", got.Receiver.PerPacket, got.Receiver.Top, got.Control.PerPacket, got.Control.Top)
	if want := hex.EncodeToString(last); got.View != want || got.ControlView != want {
		t.Fatalf("the last view read is not Go's:\n receiver %s\n control  %s\n Go       %s", got.View, got.ControlView, want)
	}
	// The three objects of every packet, and no more: one per changed
	// entity would be 52, one per changed field 112.
	if got.Receiver.PerPacket > 3 {
		t.Errorf("WorldReceiver.read makes %.2f objects per packet once warm, want at most 3", got.Receiver.PerPacket)
	}
	if got.Control.PerPacket < 52 {
		t.Errorf("readWorldDelta makes %.2f objects per packet: the count misses objects (a new world holds at least one per entity)", got.Control.PerPacket)
	}
}

package gen

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// The performance report (go test ./gen -run TestPerformanceReport
// -gen.perf): the root package's reference packet read and written by Go
// (Codec), and by the generated C++ (g++ -O2, against -gen.serialize, by
// default gen's own test implementation of the stream API), C# (mono) and
// TypeScript (node), each timed by its own clock over many packets in one
// process. It prints a table for docs/performance.md (Generated
// clients); it is a report, not a test: nothing fails on a time.

var (
	perf          = flag.Bool("gen.perf", false, "measure the reference packet in every language (a report, not a test)")
	perfSerialize = flag.String("gen.serialize", "", "the serialize.h the C++ measurement includes (default: testdata/minserialize.h)")
)

// BenchPacket is the root package's reference packet (reference_packet_test.go),
// whose bytes come from the reference C++ serialize implementation.
type BenchPacket struct {
	Sequence    uint64
	Position    [3]float32 `bits:"float,min=-1024,max=1024,res=0.01"`
	Orientation [4]float32 `bits:"float,min=-1,max=1,res=0.0001"`
	Health      int32      `bits:"range=0..1000"`
	Weapon      uint32     `bits:"bits=4"`
	Ammo        [8]int32   `bits:"range=0..200"`
	Firing      bool
	EventIDs    []uint32 `bits:"maxlen=16"`
	Payload     [64]byte
}

const referenceHex = "f0debc9a7856341200b899e9b54f19be0adc852cc3516ebb000d1a2734414e5b13000000406cde8da7d8bc1bcf449ba936b179375e1d58c585893653edf514e11462f36e3c002f5e8dbceb1a4978a7d605346392c1f01f4e7dacdb0a396897c6f5245382b1e00f3e6d9ccbfa295887b6e5144372a1d0ff2e5d8cbbea194877a6d504336291"

func referencePacket() BenchPacket {
	p := BenchPacket{
		Sequence:    0x123456789ABCDEF0,
		Position:    [3]float32{102.4, -55.3, 12.75},
		Orientation: [4]float32{0.1, 0.2, 0.3, 0.9},
		Health:      731,
		Weapon:      11,
		Firing:      true,
	}
	for i := range p.Ammo {
		p.Ammo[i] = int32(i * 13 % 200)
	}
	for i := 0; i < 9; i++ {
		p.EventIDs = append(p.EventIDs, uint32(uint64(i)*2654435761))
	}
	for i := range p.Payload {
		p.Payload[i] = byte(i * 47)
	}
	return p
}

// perfLoops is how many packets each language reads and writes per timing.
const perfLoops = 1000000

// TestReferencePacket checks that the gen tests' BenchPacket is the root
// package's: the same bytes for the same value.
func TestReferencePacket(t *testing.T) {
	p := referencePacket()
	b, err := bitpack.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(b); got != referenceHex {
		t.Fatalf("the reference packet encodes as\n%s, want\n%s", got, referenceHex)
	}
}

func TestPerformanceReport(t *testing.T) {
	if !*perf {
		t.Skip("a report, not a test: run with -gen.perf")
	}
	packet, err := hex.DecodeString(referenceHex)
	if err != nil {
		t.Fatal(err)
	}
	rows := []string{goPerf(t, packet)}
	var hostile []string
	dir := t.TempDir()
	for _, f := range []func(*testing.T, string, []byte) (string, string){cppPerf, csPerf, tsPerf} {
		row, h := f(t, dir, packet)
		rows, hostile = append(rows, row), append(hostile, h)
	}
	hostile = append(hostile, rustPerf(t, dir))
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\nReference packet (%d bytes), ns per packet; load average while measuring: %s\n", len(packet), strings.TrimSpace(string(load)))
	fmt.Println("| language | read | read into a value again | write | write into a writer again |")
	fmt.Println("|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Println(r)
	}
	fmt.Printf("\nHostile packets, each reader's time as a multiple of its own decode of the %d-byte snapshot: median of %d rounds (lowest-highest)\n", len(perfSnapshotPacket()), hostileRounds)
	fmt.Println("| language | packet | bytes | verdict | snapshots |")
	fmt.Println("|---|---|---|---|---|")
	for _, h := range hostile {
		fmt.Println(h)
	}
}

// hostileRounds is how many rounds each hostile packet is timed in.
const hostileRounds = 21

// perfProtos are the types the report's generated code holds.
func perfProtos() []any { return append([]any{&BenchPacket{}}, hostileProtos()...) }

// measure runs a program that prints one table row, and returns it.
func measure(t *testing.T, name string, cmd *exec.Cmd) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

func goPerf(t *testing.T, packet []byte) string {
	c, err := bitpack.NewCodec[BenchPacket]()
	if err != nil {
		t.Fatal(err)
	}
	p := referencePacket()
	var q BenchPacket
	read := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v BenchPacket
			if err := c.Unmarshal(packet, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	again := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Unmarshal(packet, &q); err != nil {
				b.Fatal(err)
			}
		}
	})
	buf := make([]byte, 0, 256)
	write := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Marshal(&p); err != nil {
				b.Fatal(err)
			}
		}
	})
	append_ := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = c.Append(buf[:0], &p)
		}
	})
	if !bytes.Equal(buf, packet) {
		t.Fatalf("Codec.Append wrote %x", buf)
	}
	cell := func(r testing.BenchmarkResult) string {
		return fmt.Sprintf("%d (%d B)", r.NsPerOp(), r.AllocedBytesPerOp())
	}
	return fmt.Sprintf("| Go %s (Codec: Unmarshal into a new value; into the same; Marshal; Append) | %s | %s | %s | %s |",
		strings.TrimPrefix(runtimeVersion(), "go"), cell(read), cell(again), cell(write), cell(append_))
}

func runtimeVersion() string {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

func perfBytes(p []byte) string {
	parts := make([]string, len(p))
	for i, b := range p {
		parts[i] = fmt.Sprint(b)
	}
	return strings.Join(parts, ", ")
}

func cppPerf(t *testing.T, dir string, packet []byte) (string, string) {
	gxx := requireCompiler(t)
	include, header := "minserialize.h", filepath.Join("testdata", "minserialize.h")
	what := "gen's test serialize (bit by bit)"
	if *perfSerialize != "" {
		include, header, what = "serialize.h", *perfSerialize, "serialize.h"
	}
	var h bytes.Buffer
	if err := CPP(&h, Options{Include: include}, perfProtos()...); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(header)
	if err != nil {
		t.Fatal(err)
	}
	bench, err := os.ReadFile(filepath.Join("testdata", "bench.cpp"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"bench.h": h.Bytes(), include: src, "hostile.inc": []byte(hostileCPP(t, perfModel(t))),
		"bench.cpp": []byte(fmt.Sprintf("#include %q\n#include \"bench.h\"\nstatic const uint8_t packet[] = { %s };\nstatic const char * what = %q;\n%s",
			include, perfBytes(packet), what, bench))}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "bench_cpp")
	if out, err := exec.Command(gxx, "-std=c++11", "-O2", "-o", exe, filepath.Join(dir, "bench.cpp")).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	return measure(t, "C++", exec.Command(exe, fmt.Sprint(perfLoops))), measure(t, "C++", exec.Command(exe, "hostile", fmt.Sprint(hostileRounds)))
}

func csPerf(t *testing.T, dir string, packet []byte) (string, string) {
	mono := requireTool(t, "mono", "C#")
	var cs bytes.Buffer
	if err := CSharp(&cs, Options{Namespace: "Perf"}, perfProtos()...); err != nil {
		t.Fatal(err)
	}
	bench, err := os.ReadFile(filepath.Join("testdata", "bench.cs"))
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string][]byte{"perf.cs": cs.Bytes(), "hostile.cs": []byte(hostileCS(t, perfModel(t))),
		"bench.cs": bytes.Replace(bench, []byte("/*PACKET*/"), []byte(perfBytes(packet)), 1)}
	exe := filepath.Join(dir, "bench_cs.exe")
	csCompile(t, sources, exe)
	return measure(t, "C#", exec.Command(mono, "-O=all", exe, fmt.Sprint(perfLoops))), measure(t, "C#", exec.Command(mono, "-O=all", exe, "hostile", fmt.Sprint(hostileRounds)))
}

func tsPerf(t *testing.T, dir string, packet []byte) (string, string) {
	tsc := requireTSC(t)
	node := requireTool(t, "node", "TypeScript")
	var ts bytes.Buffer
	if err := TypeScript(&ts, Options{}, perfProtos()...); err != nil {
		t.Fatal(err)
	}
	tsCompile(t, tsc, dir, map[string][]byte{"perf.ts": ts.Bytes()})
	bench, err := os.ReadFile(filepath.Join("testdata", "bench.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"package.json": []byte(`{"type": "module"}` + "\n"),
		"out/bench.mjs": bytes.Replace(bench, []byte("/*PACKET*/"), []byte(perfBytes(packet)), 1), "out/hostile.mjs": []byte(hostileTS(t, perfModel(t)))}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(dir, "out", "bench.mjs")
	return measure(t, "TypeScript", exec.Command(node, script, fmt.Sprint(perfLoops))), measure(t, "TypeScript", exec.Command(node, script, "hostile", fmt.Sprint(hostileRounds)))
}

// rustPerf builds the Rust hostile program (rustc -O) and returns its
// rows; Rust has no reference-packet row yet.
func rustPerf(t *testing.T, dir string) string {
	rustc := requireRustc(t)
	var module bytes.Buffer
	if err := Rust(&module, Options{}, perfProtos()...); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"table.rs": module.Bytes(), "main.rs": []byte(hostileRust(t, perfModel(t)))}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "hostile_rs")
	if out, err := exec.Command(rustc, "--edition", "2021", "-O", "-o", exe, filepath.Join(dir, "main.rs")).CombinedOutput(); err != nil {
		t.Fatalf("rustc: %v\n%s", err, tail(string(out), 4000))
	}
	return measure(t, "Rust", exec.Command(exe, fmt.Sprint(hostileRounds)))
}

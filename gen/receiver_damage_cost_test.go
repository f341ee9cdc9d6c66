package gen

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/snapcorpus"
	"github.com/bitpack-go/bitpack/snapshot"
)

// What the damaged stream's packets of at most 64 bytes cost each
// generated receiver (-gen.damage: a report, not a test): each packet Go
// refuses is read damageCostReads times at its place in the stream (a
// refusal changes nothing, so each read is the same work), in the
// language's CPU time (TypeScript and C#: wall time) and bytes allocated,
// next to the same program's decode of BenchmarkHostile's 1.6 KB
// snapshot (perfSnapshotPacket), timed every 128 packets. The costliest
// are then timed again, 64 reads each between snapshot decodes.

const damageCostReads = 4

// The timing programs read commands, one a line, and answer each:
//
//	new H       a new receiver of History H: "n"
//	reset       "r"
//	p HEX       read the packet once: "ok" or "no"
//	t HEX N     read the packet N times: "t NS BYTES REFUSED" (BYTES -1 when unknown)
//	y HEX N     decode the snapshot HEX N times: "y NS BYTES"

const damageCostTS = `import { readFileSync } from "node:fs";
import * as t from "./world.js";

const hexBytes = (h) => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));
let r = new t.WorldReceiver(16);
const out = [];
const heap = () => process.memoryUsage().heapUsed;
for (const line of readFileSync(0, "utf8").trim().split("\n")) {
  const [cmd, a, b] = line.split(" ");
  switch (cmd) {
    case "new":
      r = new t.WorldReceiver(Number(a));
      out.push("n");
      break;
    case "reset":
      r.reset();
      out.push("r");
      break;
    case "p":
      try {
        r.read(hexBytes(a));
        out.push("ok");
      } catch (e) {
        if (!(e instanceof t.BitpackError)) throw e;
        out.push("no");
      }
      break;
    case "t":
    case "y": {
      const p = hexBytes(a);
      const n = Number(b);
      let refused = 0;
      const h0 = heap();
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        try {
          if (cmd === "t") r.read(p);
          else t.readPerfSnapshot(p);
        } catch (e) {
          if (!(e instanceof t.BitpackError)) throw e;
          refused++;
        }
      }
      const ns = process.hrtime.bigint() - start;
      const h1 = heap();
      out.push(cmd + " " + ns + " " + (h1 >= h0 ? h1 - h0 : -1) + (cmd === "t" ? " " + refused : ""));
      break;
    }
    default:
      out.push("BADCOMMAND " + line);
  }
}
process.stdout.write(out.join("\n") + "\n");
`

const damageCostCS = `using System;
using System.Diagnostics;
using Snap;

static class Program
{
    static byte[] Bytes(string h)
    {
        byte[] p = new byte[h.Length / 2];
        for (int i = 0; i < p.Length; i++)
            p[i] = Convert.ToByte(h.Substring(2 * i, 2), 16);
        return p;
    }

    static int Main()
    {
        WorldReceiver r = new WorldReceiver(16);
        var w = new System.IO.StreamWriter(Console.OpenStandardOutput());
        string line;
        while ((line = Console.ReadLine()) != null)
        {
            string[] f = line.Split(' ');
            World v;
            ushort seq;
            string error;
            switch (f[0])
            {
                case "new": r = new WorldReceiver(int.Parse(f[1])); w.WriteLine("n"); break;
                case "reset": r.Reset(); w.WriteLine("r"); break;
                case "p": w.WriteLine(r.TryRead(Bytes(f[1]), out v, out seq, out error) ? "ok" : "no"); break;
                case "t":
                case "y":
                {
                    byte[] p = Bytes(f[1]);
                    int n = int.Parse(f[2]), refused = 0;
                    long before = GC.GetAllocatedBytesForCurrentThread();
                    Stopwatch sw = Stopwatch.StartNew();
                    for (int i = 0; i < n; i++)
                    {
                        if (f[0] == "t")
                        {
                            if (!r.TryRead(p, out v, out seq, out error))
                                refused++;
                        }
                        else
                        {
                            PerfSnapshot s;
                            PerfSnapshot.TryRead(p, out s, out error);
                        }
                    }
                    long ns = (long)(sw.Elapsed.TotalMilliseconds * 1e6);
                    long bytes = GC.GetAllocatedBytesForCurrentThread() - before;
                    w.WriteLine(f[0] + " " + ns + " " + bytes + (f[0] == "t" ? " " + refused : ""));
                    break;
                }
                default: w.WriteLine("BADCOMMAND " + line); break;
            }
        }
        w.Flush();
        return 0;
    }
}
`

const damageCostCPP = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <new>
#include <vector>
#include "minserialize.h"
#include "receiver.h"

#include "counting_new.h"

static long long thread_ns()
{
    timespec ts;
    clock_gettime( CLOCK_THREAD_CPUTIME_ID, &ts );
    return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static std::vector<uint8_t> bytes_of( const char * h )
{
    std::vector<uint8_t> p;
    for ( ; h[0] && h[1]; h += 2 )
    {
        unsigned int b = 0;
        sscanf( h, "%2x", &b );
        p.push_back( uint8_t( b ) );
    }
    return p;
}

int main()
{
    static char line[1 << 16];
    counting_allocations = true;
    bitpack::Receiver<World, 16> * r = new bitpack::Receiver<World, 16>();
    World * out = new World();
    PerfSnapshot * snap = new PerfSnapshot();
    while ( fgets( line, sizeof line, stdin ) )
    {
        line[strcspn( line, "\r\n" )] = 0;
        char * arg = strchr( line, ' ' );
        if ( arg != NULL )
            *arg++ = 0;
        uint16_t seq = 0;
        if ( strcmp( line, "new" ) == 0 )
        {
            if ( arg == NULL || atoi( arg ) != 16 )
            {
                printf( "only History 16 is built, not %s\n", arg == NULL ? "none" : arg );
                return 1;
            }
            delete r;
            r = new bitpack::Receiver<World, 16>();
            puts( "n" );
        }
        else if ( strcmp( line, "reset" ) == 0 )
        {
            r->reset();
            puts( "r" );
        }
        else if ( strcmp( line, "p" ) == 0 )
        {
            std::vector<uint8_t> p = bytes_of( arg );
            puts( r->read( p.data(), p.size(), *out, seq ) ? "ok" : "no" );
        }
        else if ( strcmp( line, "t" ) == 0 || strcmp( line, "y" ) == 0 )
        {
            char * count = strchr( arg, ' ' );
            *count++ = 0;
            std::vector<uint8_t> p = bytes_of( arg );
            const size_t size = p.size();
            p.resize( size + 8 ); // serialize's reader reads whole words
            const int n = atoi( count );
            int refused = 0;
            const long long a0 = allocated_bytes, start = thread_ns();
            for ( int i = 0; i < n; i++ )
            {
                if ( line[0] == 't' )
                    refused += !r->read( p.data(), size, *out, seq );
                else
                {
                    serialize::ReadStream s( p.data(), int64_t( size ) );
                    bitpack::read_packet( s, int64_t( size ), *snap );
                }
            }
            const long long ns = thread_ns() - start;
            if ( line[0] == 't' )
                printf( "t %lld %lld %d\n", ns, allocated_bytes - a0, refused );
            else
                printf( "y %lld %lld\n", ns, allocated_bytes - a0 );
        }
        else
            puts( "BADCOMMAND" );
    }
    return 0;
}
`

const damageCostRust = `mod snap;

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;
static ALLOCATED: AtomicU64 = AtomicU64::new(0);
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(l.size() as u64, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) { System.dealloc(p, l) }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCATED.fetch_add(n as u64, Ordering::Relaxed);
        System.realloc(p, l, n)
    }
}
#[global_allocator]
static A: Counting = Counting;

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}
extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}
fn thread_ns() -> i64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    unsafe { clock_gettime(3, &mut ts) };
    ts.sec * 1_000_000_000 + ts.nsec
}

fn bytes(h: &str) -> Vec<u8> {
    (0..h.len() / 2).map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap_or(0)).collect()
}

fn main() {
    let mut r = snap::Receiver::<snap::World>::new(16);
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for line in stdin.lock().lines() {
        let line = line.unwrap_or_default();
        let f: Vec<&str> = line.split(' ').collect();
        let a = match f[0] {
            "new" => {
                r = snap::Receiver::new(f[1].parse().expect("new H: a History"));
                "n".to_string()
            }
            "reset" => {
                r.reset();
                "r".to_string()
            }
            "p" => if r.read(&bytes(f[1])).is_ok() { "ok" } else { "no" }.to_string(),
            "t" | "y" => {
                let p = bytes(f[1]);
                let n: usize = f[2].parse().unwrap_or(1);
                let mut refused = 0;
                let (a0, start) = (ALLOCATED.load(Ordering::Relaxed), thread_ns());
                for _ in 0..n {
                    if f[0] == "t" {
                        refused += std::hint::black_box(r.read(&p)).is_err() as usize;
                    } else {
                        std::hint::black_box(snap::PerfSnapshot::read(&p)).ok();
                    }
                }
                let (ns, b) = (thread_ns() - start, ALLOCATED.load(Ordering::Relaxed) - a0);
                if f[0] == "t" { format!("t {} {} {}", ns, b, refused) } else { format!("y {} {}", ns, b) }
            }
            _ => format!("BADCOMMAND {}", line),
        };
        writeln!(out, "{}", a).unwrap_or(());
    }
}
`

// damageCostRunners build each language's timing program for
// snapcorpus.World and PerfSnapshot and return a function running it.
func damageCostRunners(t *testing.T) map[string]func([]string) []string {
	t.Helper()
	protos := []any{&snapcorpus.World{}, &PerfSnapshot{}}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	build := func(name string, args ...string) {
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(string(out), 4000))
		}
	}
	run := func(name string, cmd func() *exec.Cmd) func([]string) []string {
		return func(cmds []string) []string { return runDriver(t, name, cmd(), cmds) }
	}
	runners := map[string]func([]string) []string{}

	var ts bytes.Buffer
	if err := TypeScript(&ts, Options{}, protos...); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "ts"), 0o755); err != nil {
		t.Fatal(err)
	}
	tsCompile(t, requireTSC(t), filepath.Join(dir, "ts"), map[string][]byte{"world.ts": ts.Bytes()})
	write("ts/package.json", []byte(`{"type": "module"}`+"\n"))
	script := write("ts/out/cost.mjs", []byte(damageCostTS))
	node := requireTool(t, "node", "TypeScript")
	runners["TypeScript"] = run("node", func() *exec.Cmd { return exec.Command(node, script) })

	var cs bytes.Buffer
	if err := CSharp(&cs, Options{Namespace: "Snap"}, protos...); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "cs", "cost.exe")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	csCompile(t, map[string][]byte{"world.cs": cs.Bytes(), "main.cs": []byte(damageCostCS)}, exe)
	mono := requireTool(t, "mono", "C#")
	runners["C#"] = run("mono", func() *exec.Cmd { return exec.Command(mono, exe) })

	var cpp bytes.Buffer
	if err := CPP(&cpp, Options{Include: "minserialize.h"}, protos...); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"minserialize.h", "counting_new.h"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		write("cpp/"+name, b)
	}
	write("cpp/receiver.h", cpp.Bytes())
	src := write("cpp/cost.cpp", []byte(damageCostCPP))
	cppBin := filepath.Join(dir, "cpp", "cost")
	build(requireCompiler(t), append(append([]string{"-std=c++11"}, cppFlags["fast"]...), "-o", cppBin, src)...)
	runners["C++"] = run("C++", func() *exec.Cmd { return exec.Command(cppBin) })

	var rs bytes.Buffer
	if err := Rust(&rs, Options{}, protos...); err != nil {
		t.Fatal(err)
	}
	write("rust/snap.rs", rs.Bytes())
	main := write("rust/main.rs", []byte(damageCostRust))
	rsBin := filepath.Join(dir, "rust", "cost")
	build(requireRustc(t), "--edition", "2021", "-C", "opt-level=3", "-C", "target-cpu=native", "-o", rsBin, main)
	runners["Rust"] = run("Rust", func() *exec.Cmd { return exec.Command(rsBin) })
	runners["Go"] = func(cmds []string) []string { return damageCostGo(t, cmds) }
	return runners
}

// damageCostGo answers the timing programs' commands with Go's Receiver
// and bitpack.Unmarshal (wall time; bytes from runtime.MemStats).
func damageCostGo(t *testing.T, cmds []string) []string {
	t.Helper()
	var r *snapshot.Receiver[snapcorpus.World]
	var v snapcorpus.World
	var out []string
	var ms runtime.MemStats
	allocated := func() uint64 { runtime.ReadMemStats(&ms); return ms.TotalAlloc }
	for _, line := range cmds {
		f := strings.Split(line, " ")
		var p []byte
		if len(f) > 1 && f[0] != "new" {
			var err error
			if p, err = hex.DecodeString(f[1]); err != nil {
				t.Fatal(err)
			}
		}
		switch f[0] {
		case "new":
			history, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			if r, err = snapshot.NewReceiver(snapshot.Options[snapcorpus.World]{History: history}); err != nil {
				t.Fatal(err)
			}
			out = append(out, "n")
		case "reset":
			r.Reset()
			out = append(out, "r")
		case "p":
			_, err := r.Read(p, &v)
			out = append(out, map[bool]string{true: "ok", false: "no"}[err == nil])
		case "t", "y":
			n, _ := strconv.Atoi(f[2])
			refused := 0
			var snap PerfSnapshot
			a0 := allocated()
			start := time.Now()
			for range n {
				if f[0] == "t" {
					if _, err := r.Read(p, &v); err != nil {
						refused++
					}
				} else if err := bitpack.Unmarshal(p, &snap); err != nil {
					t.Fatal(err)
				}
			}
			ns := time.Since(start).Nanoseconds()
			b := allocated() - a0
			if f[0] == "t" {
				out = append(out, fmt.Sprintf("t %d %d %d", ns, b, refused))
			} else {
				out = append(out, fmt.Sprintf("y %d %d", ns, b))
			}
		}
	}
	return out
}

// damageCostStep is a command of the cost script and what it measures.
type damageCostStep struct {
	cmd  string
	what string // the damaged packet, for a "t"
}

// TestDamagedReceiverCost reports what the damaged packets of at most 64
// bytes cost each receiver (see above).
func TestDamagedReceiverCost(t *testing.T) {
	if !*damageAll {
		t.Skip("a report: run with -gen.damage")
	}
	f := readStream(t)
	steps, _ := damageCampaign(t, f, damageAllPlan)
	snap := hex.EncodeToString(perfSnapshotPacket())
	yard := func(n int) damageCostStep { return damageCostStep{cmd: fmt.Sprintf("y %s %d", snap, n)} }
	var script []damageCostStep
	var timed []int // the script's index of each "t"
	for i, st := range steps {
		if i > 0 && st.op == 'n' {
			break // the forks: Go accepts their damaged packets
		}
		switch {
		case st.op == 'n':
			script = append(script, damageCostStep{cmd: fmt.Sprintf("new %d", f.History)})
		case st.op == 'r':
			script = append(script, damageCostStep{cmd: "reset"})
		case st.damaged && len(st.packet) <= 64:
			if len(timed)%128 == 0 {
				script = append(script, yard(damageCostReads))
			}
			timed = append(timed, len(script))
			script = append(script, damageCostStep{cmd: fmt.Sprintf("t %x %d", st.packet, damageCostReads), what: fmt.Sprintf("%s: %x", st.what, st.packet)})
		default:
			script = append(script, damageCostStep{cmd: fmt.Sprintf("p %x", st.packet)})
		}
	}
	cmds := func(s []damageCostStep) []string {
		out := make([]string, len(s))
		for i, c := range s {
			out[i] = c.cmd
		}
		return out
	}
	runners := damageCostRunners(t)
	for _, lang := range []string{"Go", "C++", "C#", "TypeScript", "Rust"} {
		// Each packet's cost in snapshot decodes: its reads' time over
		// the nearest snapshot timing's before it, the less of two runs
		// (what a run adds — a collection, another process — is noise).
		type cost struct {
			at     int
			ratio  float64
			bytes  int64
			perRdN float64
		}
		var costs []cost
		var yardNS float64
		var maxBytes int64
		first, second := runners[lang](cmds(script)), runners[lang](cmds(script))
		got := make([]string, len(first))
		for i := range first {
			got[i] = first[i]
			var a, b int64
			if strings.HasPrefix(first[i], "t ") {
				fmt.Sscanf(first[i], "t %d", &a)
				fmt.Sscanf(second[i], "t %d", &b)
				if b < a {
					got[i] = second[i]
				}
			}
		}
		for i, line := range got {
			var ns, b int64
			var refused int
			switch {
			case strings.HasPrefix(line, "y "):
				if _, err := fmt.Sscanf(line, "y %d %d", &ns, &b); err != nil {
					t.Fatalf("%s: %q", lang, line)
				}
				yardNS = float64(ns) / damageCostReads
			case strings.HasPrefix(line, "t "):
				if _, err := fmt.Sscanf(line, "t %d %d %d", &ns, &b, &refused); err != nil {
					t.Fatalf("%s: %q", lang, line)
				}
				if refused != damageCostReads {
					t.Errorf("%s: %s: accepted %d of %d reads (Go refuses it)", lang, script[i].what, damageCostReads-refused, damageCostReads)
				}
				per := float64(ns) / damageCostReads
				costs = append(costs, cost{at: i, ratio: per / yardNS, bytes: b / damageCostReads, perRdN: per})
				maxBytes = max(maxBytes, b/damageCostReads)
			}
		}
		slices.SortFunc(costs, func(a, b cost) int {
			if a.ratio > b.ratio {
				return -1
			}
			if a.ratio < b.ratio {
				return 1
			}
			return 0
		})
		var sum float64
		for _, c := range costs {
			sum += c.ratio
		}
		t.Logf("%s: %d packets timed, %d reads each: mean %.3f snapshot decodes, median %.3f, the costliest %.3f (%.0f ns; %s); at most %d bytes allocated a read",
			lang, len(costs), damageCostReads, sum/float64(len(costs)), costs[len(costs)/2].ratio, costs[0].ratio, costs[0].perRdN, script[costs[0].at].what, maxBytes)
		// The costliest 12 again, each read 64 times between two
		// snapshot timings of 64 decodes, at its place in the stream.
		top := map[int]bool{}
		for _, c := range costs[:min(12, len(costs))] {
			top[c.at] = true
		}
		var again []damageCostStep
		for i, s := range script {
			switch {
			case strings.HasPrefix(s.cmd, "y "):
				continue
			case strings.HasPrefix(s.cmd, "t ") && !top[i]:
				continue
			case strings.HasPrefix(s.cmd, "t "):
				fields := strings.Split(s.cmd, " ")
				again = append(again, yard(64), damageCostStep{cmd: fmt.Sprintf("t %s 64", fields[1]), what: s.what}, yard(64))
			default:
				again = append(again, s)
			}
		}
		got = runners[lang](cmds(again))
		for i, s := range again {
			if !strings.HasPrefix(s.cmd, "t ") {
				continue
			}
			var y0, y1, ns, b int64
			var refused int
			fmt.Sscanf(got[i-1], "y %d", &y0)
			fmt.Sscanf(got[i+1], "y %d", &y1)
			fmt.Sscanf(got[i], "t %d %d %d", &ns, &b, &refused)
			t.Logf("%s again: %.3f snapshot decodes (%.0f ns a read, the snapshot %.0f ns), %d bytes a read: %s", lang, float64(ns)/float64(min(y0, y1)), float64(ns)/64, float64(min(y0, y1))/64, b/64, s.what)
		}
	}
}

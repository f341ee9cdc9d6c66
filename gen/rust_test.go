package gen

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/rust"
	"github.com/bitpack-go/bitpack/internal/snapcorpus"
	"github.com/bitpack-go/bitpack/internal/snapwire"
	"github.com/bitpack-go/bitpack/snapshot"
)

// The generated Rust is built with the rustc on PATH (the newest stable
// here), and type-checked with Debian 12's rustc 1.63 (/usr/bin/rustc)
// when it is there. One driver binary, built once per test binary with
// every table type, answers all of the corpora's commands.

// requireRustc returns the path of rustc, or skips the test when it is not
// installed, unless BITPACK_REQUIRE_TOOLCHAINS=1.
func requireRustc(t *testing.T) string { return requireTool(t, "rustc", "Rust") }

// rustCases is the generated part of the Rust driver (cases.rs): for each
// table type a read that writes the value back, the write cases, and the
// delta commands, by the table's type numbers.
func rustCases(c *corpus, e *rust.Emitter) ([]byte, []string) {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("use crate::table;\n\npub fn read(k: usize, p: &[u8]) -> String {\n    match k {")
	for k, r := range c.m.Roots {
		p("        %d => crate::read::<table::%s>(p),", k, e.TypeName(r))
	}
	p("        _ => \"BADTYPE\".into(),\n    }\n}\n\npub fn write_value(n: usize) -> String {\n    match n {")
	var skipped []string // the write cases with no Rust form, by number
	for n, w := range c.writes {
		a := &rsValue{e: e}
		expr := a.structValue(w.root, nil, w.value)
		if a.why != "" {
			skipped = append(skipped, a.why)
			p("        %d => \"NO RUST FORM\".into(),", n)
			continue
		}
		skipped = append(skipped, "")
		p("        %d => crate::answer(%s.write(), true),", n, expr)
	}
	p("        _ => \"BADCASE\".into(),\n    }\n}\n")
	for _, fn := range []string{"delta_read", "delta_write"} {
		p("pub fn %s(k: usize, b: &[u8], d: &[u8]) -> String {\n    match k {", fn)
		for k, r := range c.m.Roots {
			p("        %d => crate::%s::<table::%s>(b, d),", k, fn, e.TypeName(r))
		}
		p("        _ => \"BADTYPE\".into(),\n    }\n}\n")
	}
	return []byte(b.String()), skipped
}

// rustDriver is the two builds of the driver, made once (with the main
// corpus's write cases): the driver of every command, built quickly
// (-C opt-level=0, integer overflow checked), and floats, the float and
// quaternion probes with every optimisation for the machine it runs on
// (-C opt-level=3 -C target-cpu=native: the pinned float arithmetic must
// hold there too); and which write cases have no Rust form. Without
// BITPACK_FULL=1 both are built with -C panic=abort.
var rustDriver struct {
	once           sync.Once
	driver, floats string
	skipped        []string
	err            error
}

func buildRustDriver(t *testing.T) (driver, floats string, skipped []string) {
	t.Helper()
	rustc := requireRustc(t)
	c := sharedCorpus(t)
	rustDriver.once.Do(func() { rustDriver.err = buildRust(t, rustc, c) })
	if rustDriver.err != nil {
		t.Fatal(rustDriver.err)
	}
	return rustDriver.driver, rustDriver.floats, rustDriver.skipped
}

func buildRust(t *testing.T, rustc string, c *corpus) error {
	dir, err := sharedTempDir("rust")
	if err != nil {
		return err
	}
	var snap, floats bytes.Buffer
	if err := Rust(&snap, Options{}, snapcorpus.World{}); err != nil {
		return err
	}
	if err := Rust(&floats, Options{}, Pinned{}, QuatProbe{}); err != nil {
		return err
	}
	e := rust.New(c.m)
	cases, skipped := rustCases(c, e)
	files := map[string][]byte{"table.rs": e.File(), "snap.rs": snap.Bytes(), "floats_table.rs": floats.Bytes(), "cases.rs": cases}
	for _, name := range []string{"driver.rs", "probes.rs", "floats.rs"} {
		if files[name], err = os.ReadFile(filepath.Join("testdata", "rust", name)); err != nil {
			return err
		}
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			return err
		}
	}
	for _, b := range []struct{ src, exe string }{{"driver.rs", "driver"}, {"floats.rs", "floats"}} {
		flags := []string{"-C", "opt-level=0"}
		if b.exe == "floats" {
			flags = []string{"-C", "opt-level=3", "-C", "target-cpu=native"}
		}
		if !fullSweeps() {
			// No unwinding code: a fifth less CPU, and a panic still
			// ends the driver (aborted) with its message.
			flags = append(flags, "-C", "panic=abort")
		}
		start := time.Now()
		args := append(append([]string{"--edition", "2021"}, flags...), "-o", filepath.Join(dir, b.exe), filepath.Join(dir, b.src))
		if out, err := exec.Command(rustc, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("rustc %s: %v\n%s", strings.Join(args, " "), err, tail(string(out), 6000))
		}
		t.Logf("rustc built %s in %v", b.exe, time.Since(start))
	}
	rustDriver.driver, rustDriver.floats, rustDriver.skipped = filepath.Join(dir, "driver"), filepath.Join(dir, "floats"), skipped
	return nil
}

// rustCheck compares one Rust answer with Go's, strictly: the same
// verdict and bytes, and for every refusal of a value Rust can hold Go's
// error exactly — kind, field path, bit and words, running out of packet
// included (docs/wire.md, "Truncated packets"). A refusal answered by a
// type's wire twin on a 32-bit host (corpus_host_test.go) has no Go error
// in the type's own words, so only the verdict is compared, as for every
// client.
func rustCheck(cmd command, got string) string {
	if cmd.agrees(got) {
		return ""
	}
	if cmd.want != "REFUSED" {
		return "answers differ"
	}
	r, ok := parseRefusal(got)
	switch {
	case !ok:
		return "answers differ"
	case cmd.err == nil || !cmd.exact:
		return ""
	case r.kind != goKind(cmd.err):
		return "refused as " + r.kind + ", Go: " + goKind(cmd.err)
	case r.path != cmd.err.Path:
		return "refusal names field " + strconv.Quote(r.path) + ", Go: " + strconv.Quote(cmd.err.Path)
	case r.bit != cmd.err.Bit:
		return "refusal at bit " + strconv.Itoa(r.bit) + ", Go: " + strconv.Itoa(cmd.err.Bit)
	case r.message != cmd.err.Error():
		return "error " + strconv.Quote(r.message) + ", Go: " + strconv.Quote(cmd.err.Error())
	}
	return ""
}

// compareRust checks every answer of the Rust driver, reporting the first
// dozen disagreements. A write case with no Rust form must be one Go
// refuses.
func compareRust(t *testing.T, c *corpus, answers []string, skipped []string) {
	t.Helper()
	failures, refusals, noForm := 0, 0, 0
	for i, cmd := range c.cmds {
		got := answers[i]
		why := ""
		if got == "NO RUST FORM" {
			n, _ := strconv.Atoi(strings.TrimPrefix(cmd.line, "W "))
			noForm++
			if cmd.want != "REFUSED" {
				why = "Go writes it, and it has no Rust form: " + skipped[n]
			}
		} else {
			why = rustCheck(cmd, got)
		}
		if strings.HasPrefix(got, "REFUSED\t") {
			refusals++
		}
		if why != "" {
			failures++
			if failures <= 12 {
				t.Errorf("Rust: %s: %s\n  Go:   %s\n  Rust: %s", cmd.what, why, cmd.want, got)
			}
		}
	}
	if failures > 12 {
		t.Errorf("Rust: %d disagreements in all (first 12 shown)", failures)
	}
	if len(c.writes) > 0 {
		// A nil union has no Rust form: that hand error is the type's to refuse.
		hand := slices.Clone(answers)
		for i, a := range hand {
			if a == "NO RUST FORM" {
				hand[i] = "REFUSED\t\t\t0\t" + c.cmds[i].err.Error()
			}
		}
		checkHandErrors(t, "Rust", c, hand)
	}
	t.Logf("Rust: %d commands (%d packets read, %d values written, %d codes decoded); %d refusals, each with Go's error word for word; %d values (nil unions, strings not UTF-8) have no Rust form",
		len(c.cmds), c.reads, len(c.writes), c.probes, refusals, noForm)
}

// TestRustCrossLanguage is the cross-language test of the generated Rust:
// the corpus of TestCPPCrossLanguage (random valid values read and
// written back, every truncation, bit flip and appended byte of their
// packets, random packets, crafted ones, spoiled values, float and
// quaternion probes, framing) through the Rust driver, built with
// -C opt-level=3 -C target-cpu=native; verdicts, bytes and every
// refusal's kind, path, bit and words are Go's.
func TestRustCrossLanguage(t *testing.T) {
	if raceEnabled {
		t.Skip("the Rust side does not change under Go's race detector; the plain run covers it")
	}
	t.Parallel() // each language's process runs beside another's: two cores
	driver, floats, skipped := buildRustDriver(t)
	c := sharedCorpus(t)
	start := time.Now()
	answers := runDriver(t, "rust", exec.Command(driver), c.lines())
	t.Logf("the driver ran in %v", time.Since(start))
	compareRust(t, c, answers, skipped)
	fast := runDriver(t, "rust floats", exec.Command(floats), c.lines())
	probes, failures := 0, 0
	for i, cmd := range c.cmds {
		if fast[i] == "SKIP" {
			continue
		}
		probes++
		if why := rustCheck(cmd, fast[i]); why != "" {
			if failures++; failures <= 12 {
				t.Errorf("Rust (opt-level=3, target-cpu=native): %s: %s\n  Go:   %s\n  Rust: %s", cmd.what, why, cmd.want, fast[i])
			}
		}
	}
	t.Logf("Rust (opt-level=3, target-cpu=native): %d float and quaternion probes, %d disagreements", probes, failures)
}

// TestRustDeltas runs the delta corpus (D: apply a delta to a base, E:
// write a value's delta against a base) through the Rust driver:
// bitpack's bytes, its verdicts and its refusals word for word.
func TestRustDeltas(t *testing.T) {
	if raceEnabled {
		t.Skip("the Rust side does not change under Go's race detector; the plain run covers it")
	}
	t.Parallel() // each language's process runs beside another's: two cores
	driver, _, _ := buildRustDriver(t)
	c := sharedDeltaCorpus(t)
	compareRust(t, c, runDriver(t, "rust", exec.Command(driver), c.lines()), nil)
}

// TestRustSnapshot replays the recorded snapshot streams
// (snapshot/testdata/stream.json at History 16, and those at 2 and 256:
// eviction every other sequence, the long form, bases across the wrap),
// each with the packets crafted for the refusals its channel lacks,
// through the Rust Receiver of the stream's type, a new one of each
// stream's History: step for step, the same sequences, views (their full
// encodings), refusals (their category and Go's error text word for
// word) and acks as Go's Receiver; then the Histories Go refuses, refused
// in Go's words.
func TestRustSnapshot(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	driver, _, _ := buildRustDriver(t)
	var cmds, want, whats []string
	for _, f := range readStreams(t) {
		if fp, _ := bitpack.Fingerprint(&snapcorpus.World{}); fmt.Sprintf("%#08x", fp) != f.Fingerprint {
			t.Fatalf("the stream is of fingerprint %s, snapcorpus.World's is %#08x", f.Fingerprint, fp)
		}
		c, w := receiverScript(t, f, "read")
		cmds, want, whats = append(cmds, c...), append(want, w...), append(whats, scriptSteps(f, "read", len(c))...)
	}
	for _, w := range snapwire.Words { // every refusal is among them
		if text, _, _ := strings.Cut(w.Format, "%"); w.Name != "History" && !strings.Contains(strings.Join(want, "\n"), text) {
			t.Errorf("no refusal %s (%q) in the script", w.Name, w.Format)
		}
	}
	for _, h := range []int{0, 1, 3, 48, 65536} {
		cmds = append(cmds, fmt.Sprintf("new %d", h))
		if _, err := snapshot.NewReceiver(snapshot.Options[snapcorpus.World]{History: h}); err != nil {
			want = append(want, "throws "+err.Error())
		} else {
			want = append(want, fmt.Sprintf("ack %d", snapwire.NoAck))
		}
	}
	for len(whats) < len(cmds) {
		whats = append(whats, "a new receiver")
	}
	lines := make([]string, len(cmds))
	for i, c := range cmds {
		lines[i] = "V " + strings.TrimPrefix(c, "read ")
	}
	got := runDriver(t, "rust", exec.Command(driver), lines)
	failures, refused := 0, 0
	for i := range want {
		if strings.HasPrefix(want[i], "refused") {
			refused++
		}
		if got[i] != want[i] {
			if failures++; failures <= 10 {
				t.Errorf("command %d, %s (%.60s):\n got %s\nwant %s", i, whats[i], cmds[i], got[i], want[i])
			}
		}
	}
	t.Logf("replayed %d commands (%d refused)", len(want), refused)
}

// TestRustGenerated: the module compiles warning-free as a library
// (#![deny(warnings)]) with the rustc on PATH, with clippy where
// installed, and with BITPACK_FULL=1 with Rust 1.63 (Debian 12's) where
// installed; and
// generating it again gives the same bytes.
func TestRustGenerated(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	rustc := requireRustc(t)
	var module, again bytes.Buffer
	var protos []any
	for _, e := range table() {
		protos = append(protos, e.proto)
	}
	if err := Rust(&module, Options{}, protos...); err != nil {
		t.Fatal(err)
	}
	if err := Rust(&again, Options{}, protos...); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(module.Bytes(), again.Bytes()) {
		t.Error("generating the module again gave other bytes")
	}
	dir := t.TempDir()
	lib := "#![deny(warnings)]\npub mod table;\n" + rustStamp
	for name, text := range map[string][]byte{"table.rs": module.Bytes(), "lib.rs": []byte(lib)} {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what, tool string, extra ...string) {
		args := append([]string{"--edition", "2021", "--crate-type", "lib", "--emit", "metadata", "-o", filepath.Join(dir, "lib.rmeta")}, extra...)
		cmd := exec.Command(tool, append(args, filepath.Join(dir, "lib.rs"))...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", what, err, tail(string(out), 6000))
		}
	}
	// clippy-driver is the rustc on PATH with clippy's lints beside its
	// own: without BITPACK_FULL=1 it alone checks the module where it is
	// installed.
	clippy, err := exec.LookPath("clippy-driver")
	if err != nil || fullSweeps() {
		check("rustc", rustc)
	}
	if err == nil {
		check("clippy", clippy, "-D", "warnings")
	} else {
		t.Logf("clippy-driver not found: clippy not run")
	}
	old := "/usr/bin/rustc" // Debian 12's: Rust 1.63
	if !fullSweeps() {
		// As the oldest TypeScript: a second compiler, left to .ci/run.
		t.Logf("%s (the oldest Rust) checks the module with BITPACK_FULL=1", old)
		return
	}
	if _, err := os.Stat(old); err != nil {
		t.Logf("%s (Debian 12's Rust 1.63) not found: the module was not checked with it", old)
		return
	}
	version, _ := exec.Command(old, "--version").Output()
	t.Logf("checked with %s: %s", old, strings.TrimSpace(string(version)))
	check(old, old)
}

// rustStamp is gen.Stamp and gen.Nib in Rust, as the driver declares them.
const rustStamp = `
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stamp {
    pub v: u16,
}

impl table::Hook for Stamp {
    fn read(r: &mut table::Reader) -> Result<Stamp, table::Error> {
        Ok(Stamp { v: r.bits(12)? as u16 })
    }
    fn write(&self, w: &mut table::Writer) -> Result<(), table::Error> {
        if self.v > 4095 {
            return Err(w.refuse("stamp out of range"));
        }
        w.bits(self.v as u64, 12);
        Ok(())
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Nib {
    pub v: u8,
}

impl table::Hook for Nib {
    fn read(r: &mut table::Reader) -> Result<Nib, table::Error> {
        Ok(Nib { v: r.bits(4)? as u8 })
    }
    fn write(&self, w: &mut table::Writer) -> Result<(), table::Error> {
        if self.v > 14 {
            return Err(w.refuse("nib out of range"));
        }
        w.bits(self.v as u64, 4);
        Ok(())
    }
}
`

// TestRustGoldenCompiles builds the golden modules into one program (every
// warning an error) that checks their fingerprint constants against Go's,
// round-trips a player and refuses a time past its range in Go's words;
// with a module of ZeroClocks, that zero values (Default) hold the counts
// Go writes for the zero time.Time and write Go's zero value's bytes.
func TestRustGoldenCompiles(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	rustc := requireRustc(t)
	dir := t.TempDir()
	files := map[string][]byte{}
	for _, name := range []string{"player.rs", "envelope.rs", "loadout.rs", "named.rs", "stamps.rs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "golden", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	var clocks bytes.Buffer
	if err := Rust(&clocks, Options{}, &ZeroClocks{}); err != nil {
		t.Fatal(err)
	}
	files["clocks.rs"] = clocks.Bytes()
	clocksPacket, err := bitpack.Marshal(&ZeroClocks{})
	if err != nil {
		t.Fatal(err)
	}
	fpPlayer, _ := bitpack.Fingerprint(&Player{})
	fpEnvelope, _ := bitpack.Fingerprint(&Envelope{})
	fpLoadout, _ := bitpack.Fingerprint(&Loadout{})
	packet, err := bitpack.Marshal(&Player{Health: 1000, Pos: Vec3{X: 1.5, Y: -2, Z: 1024}, Name: "ada", Alive: true})
	if err != nil {
		t.Fatal(err)
	}
	// Named: a Team no constant names (3), a Rank one does, durations
	// held as their counts of 2ns, 1µs and 1ms.
	named := Named{Side: 3, Rank: -1 << 40, Fine: 14, Beat: 5 * time.Millisecond, Lag: 1500 * time.Millisecond}
	namedPacket, err := bitpack.Marshal(&named)
	if err != nil {
		t.Fatal(err)
	}
	bumped := named
	bumped.Side, bumped.Lag = 2, 1501*time.Millisecond
	bumpedPacket, err := bitpack.Marshal(&bumped)
	if err != nil {
		t.Fatal(err)
	}
	// Stamps: a time a millisecond past At's range, which Go refuses in
	// the words the Rust module must give for its count.
	late := Stamps{At: time.UnixMilli(4102444800001), Born: time.Unix(0, 0), Tick: time.Unix(0, 0), Fine: time.Unix(0, 0), Near: time.Unix(0, 0), Pair: [2]time.Time{time.Unix(0, 0), time.Unix(0, 0)}}
	_, lateErr := bitpack.Marshal(&late)
	if lateErr == nil {
		t.Fatal("Go writes a Stamps whose At is past its range")
	}
	files["main.rs"] = []byte(fmt.Sprintf(`#![deny(warnings)]
mod clocks;
mod envelope;
mod loadout;
mod named;
mod player;
mod stamps;

fn main() {
    let p = player::Player::read(&[%s]).unwrap_or_default();
    let again: String = p.write().unwrap_or_default().iter().map(|b| format!("{:02x}", b)).collect();
    let fp = (player::Player::FINGERPRINT, envelope::Envelope::FINGERPRINT, loadout::Loadout::FINGERPRINT);
    println!("{:08x} {:08x} {:08x} {} {} {} {}", fp.0, fp.1, fp.2, p.health, p.pos.x, p.name, again);
    let mut n = named::Named::read(&[%s]).unwrap_or_default();
    println!("{} {} {} {} {}", n.side.0, n.rank == named::Rank::Bottom, n.fine, n.beat, n.lag);
    n.side = named::Team::Blue;
    n.lag += 1;
    let bumped: String = n.write().unwrap_or_default().iter().map(|b| format!("{:02x}", b)).collect();
    println!("{}", bumped);
    let s = stamps::Stamps { at: 4102444800001, ..Default::default() };
    match s.write() {
        Ok(_) => println!("written"),
        Err(e) => println!("{}", e),
    }
    // The zero values' times hold the counts Go writes for year 1.
    let z = stamps::Stamps::default();
    println!("{} {} {} {} {} {} {:?}", z.at, z.born, z.deep, z.tick, z.fine, z.near, z.pair);
    let c = clocks::ZeroClocks::default();
    let grid: Vec<String> = c.grid.iter().flatten().map(|x| x.to_string()).collect();
    let zero: String = c.write().unwrap_or_default().iter().map(|b| format!("{:02x}", b)).collect();
    println!("{} {} {} {}", grid.join(" "), c.near, c.late, zero);
}
`, csBytes(packet), csBytes(namedPacket)))
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "main")
	if out, err := exec.Command(rustc, "--edition", "2021", "-o", exe, filepath.Join(dir, "main.rs")).CombinedOutput(); err != nil {
		t.Fatalf("rustc: %v\n%s", err, tail(string(out), 4000))
	}
	out, err := exec.Command(exe).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Stamps' zero value, worked out by hand: At 0 (its range starts at
	// 1970), Born and Deep year 1 (-62135596800 s), Tick, Fine and Pair 0
	// (8 bits of hours, nanoseconds, 40 bits of microseconds: no year 1),
	// Near clamped to its lower bound; ZeroClocks' as its comment says.
	want := fmt.Sprintf("%08x %08x %08x 1000 1.5 ada %s\n3 true 7 5000 1500\n%s\n%s\n%s\n%s %s\n", fpPlayer, fpEnvelope, fpLoadout,
		strings.Join(hexBytes(packet), ""), strings.Join(hexBytes(bumpedPacket), ""), lateErr,
		"0 -62135596800 -62135596800 0 0 -1000 [0, 0]", zeroClocksCounts, strings.Join(hexBytes(clocksPacket), ""))
	if string(out) != want {
		t.Errorf("golden Rust printed %q, want %q", out, want)
	}
}

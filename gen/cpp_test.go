package gen

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/cpp"
)

// requireCompiler returns the path of g++, or skips the test when there
// is none, unless BITPACK_REQUIRE_TOOLCHAINS=1 (as in CI), which makes a
// missing compiler a failure.
func requireCompiler(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("g++")
	if err == nil {
		return path
	}
	if os.Getenv("BITPACK_REQUIRE_TOOLCHAINS") == "1" {
		t.Fatalf("g++ not found and BITPACK_REQUIRE_TOOLCHAINS=1: %v", err)
	}
	t.Skipf("g++ not found (%v): skipping the generated C++ tests; set BITPACK_REQUIRE_TOOLCHAINS=1 to make this a failure", err)
	return ""
}

// cppFlags are the builds of the driver: one with the sanitizers for
// hostile packets, one optimised with every contraction of floats allowed,
// for the pinned float arithmetic; and, without BITPACK_FULL=1, a quick
// one (unoptimised: a third of the optimised build's compile time) beside
// the probes build, the optimised flags on the float and quaternion
// probes alone (driver.cpp with -DPROBES_ONLY).
var cppFlags = map[string][]string{
	"sanitized": {"-O0", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"},
	"fast":      {"-O2", "-march=native", "-ffp-contract=fast"},
	"quick":     {"-O0"},
	"probes":    {"-O2", "-march=native", "-ffp-contract=fast", "-DPROBES_ONLY"},
}

// driverBuilds are the builds the driver's tests run: sanitized and fast
// with BITPACK_FULL=1 (see fullSweeps), else quick and probes.
func driverBuilds() []string {
	if fullSweeps() {
		return []string{"sanitized", "fast"}
	}
	return []string{"quick", "probes"}
}

// driver is the compiled C++ test driver of one build.
type driver struct {
	name string
	path string
}

// probesOnly reports whether the driver answers only the float and
// quaternion probes (SKIP to every other command).
func (d driver) probesOnly() bool { return d.name == "probes" }

// builtDrivers are the drivers buildDrivers built last: TestCPPCrossLanguage
// and TestCPPDeltas compile the same dispatch (the corpus's), once per test
// binary. TestMain removes their directories.
var builtDrivers struct {
	sync.Mutex
	dispatch string
	drivers  []driver
	dirs     []string
}

// removeBuiltDrivers removes the directories of the drivers built.
func removeBuiltDrivers() {
	builtDrivers.Lock()
	defer builtDrivers.Unlock()
	for _, dir := range builtDrivers.dirs {
		os.RemoveAll(dir)
	}
	builtDrivers.dirs, builtDrivers.drivers = nil, nil
}

// buildDrivers generates the table's header and dispatch into a fresh
// directory and compiles the driver once per build, in parallel, unless
// the drivers of the same dispatch were built before.
func buildDrivers(t *testing.T, gxx string, dispatch string) []driver {
	t.Helper()
	builtDrivers.Lock()
	defer builtDrivers.Unlock()
	if builtDrivers.drivers != nil && builtDrivers.dispatch == dispatch {
		t.Log("the drivers were built by an earlier test")
		return builtDrivers.drivers
	}
	dir, err := os.MkdirTemp("", "bitpack-cpp-driver")
	if err != nil {
		t.Fatal(err)
	}
	builtDrivers.dirs = append(builtDrivers.dirs, dir)
	var header, probes bytes.Buffer
	if err := CPP(&header, Options{Include: "minserialize.h", Enums: tableEnums}, corpusProtos()...); err != nil {
		t.Fatal(err)
	}
	if err := CPP(&probes, Options{Include: "minserialize.h"}, Pinned{}, QuatProbe{}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"table.h": header.Bytes(), "dispatch.inc": []byte(dispatch), "probes.h": probes.Bytes()}
	for _, name := range []string{"minserialize.h", "hooks.h", "driver.cpp"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var drivers []driver
	var wg sync.WaitGroup
	errs := make(map[string]error)
	var mu sync.Mutex
	for _, name := range driverBuilds() {
		d := driver{name: name, path: filepath.Join(dir, "driver_"+name)}
		drivers = append(drivers, d)
		args := append([]string{"-std=c++11", "-Wall", "-Wextra", "-Werror"}, cppFlags[name]...)
		args = append(args, "-o", d.path, filepath.Join(dir, "driver.cpp"))
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(gxx, args...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				mu.Lock()
				errs[name] = fmt.Errorf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
				mu.Unlock()
				return
			}
			t.Logf("%s build: %v of CPU", name, (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Round(time.Millisecond))
		}()
	}
	wg.Wait()
	for _, name := range driverBuilds() {
		if err := errs[name]; err != nil {
			t.Fatal(err)
		}
	}
	builtDrivers.dispatch, builtDrivers.drivers = dispatch, drivers
	return drivers
}

// run feeds the commands to the driver, started with args, and returns
// its answers, one per command.
func (d driver) run(t *testing.T, commands []string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(d.path, args...)
	cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0", "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
	return runDriver(t, d.name+" driver", cmd, commands)
}

// runDriver runs a driver program with the commands on its standard
// input, one per line, and returns its answers, one line per command.
func runDriver(t *testing.T, name string, cmd *exec.Cmd, commands []string) []string {
	t.Helper()
	lines, err := driverAnswers(name, cmd, commands)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func driverAnswers(name string, cmd *exec.Cmd, commands []string) ([]string, error) {
	cmd.Stdin = strings.NewReader(strings.Join(commands, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", name, err, tail(stderr.String(), 4000))
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != len(commands) {
		return nil, fmt.Errorf("%s answered %d of %d commands\n%s", name, len(lines), len(commands), tail(stderr.String(), 4000))
	}
	return lines, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func goWrite(v any) (string, error) {
	b, err := bitpack.Marshal(v)
	if err != nil {
		return "", err
	}
	return "OK " + hex.EncodeToString(b), nil
}

// TestCPPCrossLanguage is the cross-language test of the generated C++:
// Go writes random valid values of every table type and the C++ driver
// reads them and writes them back byte for byte; hostile packets (every
// truncation, every bit flipped, trailing bytes, random bytes, and packets
// crafted to break one rule each) are refused by both sides or accepted by
// both and written back identically; values Marshal refuses (each leaf of
// sample values spoiled in turn) are refused by the C++ writer, and the
// others are written identically; and every code of a float32 and a
// float64 compressed float decodes to the same bits. With BITPACK_FULL=1
// it runs once with AddressSanitizer and UBSan, once optimised with
// -march=native -ffp-contract=fast; without, once unoptimised, and the
// float and quaternion probes once more through their optimised build.
func TestCPPCrossLanguage(t *testing.T) {
	if raceEnabled {
		t.Skip("the C++ side does not change under Go's race detector; the plain run covers it")
	}
	t.Parallel() // each language's process runs beside another's: two cores
	gxx := requireCompiler(t)
	c := sharedCorpus(t)
	e, err := cpp.New(c.m, cpp.Options{Include: "minserialize.h"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	drivers := buildDrivers(t, gxx, cppDispatch(c, e))
	t.Logf("builds in %v", time.Since(start))
	lines := c.lines()
	for _, d := range drivers {
		start = time.Now()
		answers := d.run(t, lines)
		t.Logf("%s build ran in %v", d.name, time.Since(start))
		failures, probes := 0, 0
		for i, cmd := range c.cmds {
			if d.probesOnly() && answers[i] == "SKIP" {
				continue
			}
			probes++
			if got := answers[i]; !cmd.agrees(got) {
				failures++
				if failures <= 12 {
					t.Errorf("%s build: %s\n  Go:  %s\n  C++: %s", d.name, cmd.what, cmd.want, got)
				}
			}
		}
		if failures > 12 {
			t.Errorf("%s build: %d disagreements in all (first 12 shown)", d.name, failures)
		}
		if d.probesOnly() {
			if probes < c.probes {
				t.Errorf("%s build: answered %d commands, fewer than the %d probes", d.name, probes, c.probes)
			}
			t.Logf("%s build: %d float and quaternion probes", d.name, probes)
			continue
		}
		t.Logf("%s build: %d commands (%d packets read, %d values written, %d codes decoded)", d.name, len(c.cmds), c.reads, len(c.writes), c.probes)
	}
}

// cppDispatch is the generated part of the C++ driver: reads by type
// index, and the write cases as C++ assignments.
func cppDispatch(c *corpus, e *cpp.Emitter) string {
	var b strings.Builder
	b.WriteString("static void dispatch_read( int type, const Packet & p )\n{\n    switch ( type )\n    {\n")
	for k, r := range c.m.Roots {
		fmt.Fprintf(&b, "    case %d: read_packet<%s>( p ); break;\n", k, e.TypeName(r))
	}
	b.WriteString("    default: puts( \"BADTYPE\" ); break;\n    }\n}\n\n")
	for _, f := range []struct{ name, template string }{{"dispatch_delta_read", "apply_delta"}, {"dispatch_delta_write", "write_delta"}} {
		fmt.Fprintf(&b, "static void %s( int type, const Packet & a, const Packet & b )\n{\n    switch ( type )\n    {\n", f.name)
		for k, r := range c.m.Roots {
			fmt.Fprintf(&b, "    case %d: %s<%s>( a, b ); break;\n", k, f.template, e.TypeName(r))
		}
		b.WriteString("    default: puts( \"BADTYPE\" ); break;\n    }\n}\n\n")
	}
	for n, w := range c.writes {
		a := &assigner{e: e}
		a.structFields(w.root, nil, w.value, "v->")
		name := e.TypeName(w.root)
		fmt.Fprintf(&b, "static void write_case_%d()\n{\n    %s * v = new %s();\n    %s\n    write_value( v, 1 << 20 );\n    delete v;\n}\n\n",
			n, name, name, strings.Join(a.lines, "\n    "))
	}
	b.WriteString("static void ( * const write_cases[] )() =\n{\n")
	for i := range c.writes {
		fmt.Fprintf(&b, "    write_case_%d,\n", i)
	}
	b.WriteString("};\n\nstatic void dispatch_write( int n )\n{\n")
	b.WriteString("    if ( n < 0 || n >= int( sizeof write_cases / sizeof write_cases[0] ) )\n        puts( \"BADCASE\" );\n    else\n        write_cases[n]();\n}\n")
	return b.String()
}

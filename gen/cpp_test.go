package gen

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
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

// cppFlags are the two builds of the driver: one with the sanitizers for
// hostile packets, one optimised with every contraction of floats allowed,
// for the pinned float arithmetic.
var cppFlags = map[string][]string{
	"sanitized": {"-O0", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"},
	"fast":      {"-O2", "-march=native", "-ffp-contract=fast"},
}

// driver is the compiled C++ test driver of one build.
type driver struct {
	name string
	path string
}

// buildDrivers generates the table's header and dispatch into a fresh
// directory and compiles the driver once per build, in parallel.
func buildDrivers(t *testing.T, gxx string, dispatch string) []driver {
	t.Helper()
	dir := t.TempDir()
	var protos []any
	for _, e := range table() {
		protos = append(protos, e.proto)
	}
	var header bytes.Buffer
	if err := CPP(&header, Options{Include: "minserialize.h"}, protos...); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"table.h": header.Bytes(), "dispatch.inc": []byte(dispatch)}
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
	for _, name := range []string{"sanitized", "fast"} {
		d := driver{name: name, path: filepath.Join(dir, "driver_"+name)}
		drivers = append(drivers, d)
		args := append([]string{"-std=c++11", "-Wall", "-Wextra", "-Werror"}, cppFlags[name]...)
		args = append(args, "-o", d.path, filepath.Join(dir, "driver.cpp"))
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := exec.Command(gxx, args...).CombinedOutput()
			if err != nil {
				mu.Lock()
				errs[name] = fmt.Errorf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, name := range []string{"sanitized", "fast"} {
		if err := errs[name]; err != nil {
			t.Fatal(err)
		}
	}
	return drivers
}

// run feeds the commands to the driver and returns its answers, one per
// command.
func (d driver) run(t *testing.T, commands []string) []string {
	t.Helper()
	cmd := exec.Command(d.path)
	cmd.Stdin = strings.NewReader(strings.Join(commands, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0", "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s driver: %v\n%s", d.name, err, tail(stderr.String(), 4000))
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != len(commands) {
		t.Fatalf("%s driver answered %d of %d commands\n%s", d.name, len(lines), len(commands), tail(stderr.String(), 4000))
	}
	return lines
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// goVerdict is what bitpack says about a packet: the packet it re-encodes
// to, or the error it refuses it with.
func goRead(typ reflect.Type, packet []byte) (string, error) {
	v := reflect.New(typ)
	if err := bitpack.Unmarshal(packet, v.Interface()); err != nil {
		return "", err
	}
	again, err := bitpack.Marshal(v.Interface())
	if err != nil {
		return "", fmt.Errorf("re-encoding an accepted packet failed: %w", err)
	}
	return "OK " + hex.EncodeToString(again), nil
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
// float64 compressed float decodes to the same bits. It runs once with
// AddressSanitizer and UBSan, once optimised with -march=native
// -ffp-contract=fast.
func TestCPPCrossLanguage(t *testing.T) {
	if raceEnabled {
		t.Skip("the C++ side does not change under Go's race detector; the plain run covers it")
	}
	gxx := requireCompiler(t)
	start := time.Now()
	c := newCorpus(t)
	t.Logf("corpus of %d commands in %v", len(c.commands), time.Since(start))
	start = time.Now()
	drivers := buildDrivers(t, gxx, c.dispatch(t))
	t.Logf("both builds in %v", time.Since(start))
	for _, d := range drivers {
		start = time.Now()
		answers := d.run(t, c.commands)
		t.Logf("%s build ran in %v", d.name, time.Since(start))
		failures := 0
		for i, want := range c.want {
			if got := answers[i]; !c.agree(want, got) {
				failures++
				if failures <= 12 {
					t.Errorf("%s build: %s\n  Go:  %s\n  C++: %s", d.name, c.what[i], want, got)
				}
			}
		}
		if failures > 12 {
			t.Errorf("%s build: %d disagreements in all (first 12 shown)", d.name, failures)
		}
		t.Logf("%s build: %d commands (%d packets read, %d values written, %d codes decoded)", d.name, len(c.commands), c.reads, len(c.writes), c.probes)
	}
}

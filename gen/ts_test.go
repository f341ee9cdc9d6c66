package gen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/typescript"
)

// The TypeScript compiler the tests run is pinned in testdata/ts
// (package.json, package-lock.json); .ci/run installs it there with npm ci.
var tscPath = filepath.Join("testdata", "ts", "node_modules", ".bin", "tsc")

// tsFlags are the compiler settings the generated module must pass.
var tsFlags = []string{"--strict", "--noEmitOnError", "--module", "es2020", "--moduleResolution", "bundler"}

// requireTSC returns the path of tsc, or skips the test when it is not
// installed, unless BITPACK_REQUIRE_TOOLCHAINS=1.
func requireTSC(t *testing.T) string {
	t.Helper()
	requireTool(t, "node", "TypeScript")
	if _, err := os.Stat(tscPath); err != nil {
		if os.Getenv("BITPACK_REQUIRE_TOOLCHAINS") == "1" {
			t.Fatalf("%s not found and BITPACK_REQUIRE_TOOLCHAINS=1: run npm ci in gen/testdata/ts", tscPath)
		}
		t.Skipf("%s not found: skipping the generated TypeScript tests (npm ci in gen/testdata/ts installs it); set BITPACK_REQUIRE_TOOLCHAINS=1 to make this a failure", tscPath)
	}
	abs, err := filepath.Abs(tscPath)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// tsCompile writes the sources into dir and compiles them into dir/out
// with the flags the generated code must pass, ES2020 and its library
// only (no DOM, no Node types).
func tsCompile(t *testing.T, tsc, dir string, sources map[string][]byte, extra ...string) {
	t.Helper()
	args := append(append(append([]string{}, tsFlags...), "--target", "es2020", "--lib", "es2020"), extra...)
	args = append(args, "--outDir", filepath.Join(dir, "out"))
	for name, src := range sources {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, path)
	}
	if o, err := exec.Command(tsc, args...).CombinedOutput(); err != nil {
		t.Fatalf("tsc %s: %v\n%s", strings.Join(args, " "), err, tail(string(o), 4000))
	}
}

// tsCases is the generated part of the TypeScript driver: for each table
// type a read that writes the value back, and the write cases.
func tsCases(t *testing.T, c *corpus, e *typescript.Emitter) []byte {
	t.Helper()
	head, err := os.ReadFile(filepath.Join("testdata", "driver_cases.ts"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(head)
	b.WriteString("\nfunction read(type: number, p: Uint8Array): string {\n  switch (type) {\n")
	for k, r := range c.m.Roots {
		n, goName := e.TypeName(r), code.Quote(r.Go.String())
		fmt.Fprintf(&b, "    case %d:\n      return readCase(p, t.read%[2]s, t.new%[2]s, t.read%[2]sFrom, %[3]s, (v) => writeCase(v, t.write%[2]s, t.write%[2]sTo, %[3]s));\n", k, n, goName)
	}
	b.WriteString("  }\n  return \"BADTYPE\";\n}\n\nfunction writeValue(n: number): string {\n  switch (n) {\n")
	for n, w := range c.writes {
		name, goName := e.TypeName(w.root), code.Quote(w.root.Go.String())
		fmt.Fprintf(&b, "    case %d:\n      return writeCase<t.%s>(%s, t.write%s, t.write%sTo, %s);\n", n, name, tsValue{e, c.m}.structValue(w.root, w.value), name, name, goName)
	}
	b.WriteString("  }\n  return \"BADCASE\";\n}\n")
	b.WriteString("\nfunction deltaRead(type: number, base: Uint8Array, d: Uint8Array): string {\n  switch (type) {\n")
	for k, r := range c.m.Roots {
		fmt.Fprintf(&b, "    case %d:\n      return deltaReadCase(%[1]d, base, d, { read: t.read%[2]s, apply: t.read%[2]sDelta, from: t.read%[2]sDeltaFrom, copy: t.copy%[2]s, write: t.write%[2]s, type: %[3]s });\n", k, e.TypeName(r), code.Quote(r.Go.String()))
	}
	b.WriteString("  }\n  return \"BADTYPE\";\n}\n\nfunction deltaWrite(type: number, base: Uint8Array, value: Uint8Array): string {\n  switch (type) {\n")
	for k, r := range c.m.Roots {
		fmt.Fprintf(&b, "    case %d:\n      return deltaWriteCase(base, value, t.read%[2]s, t.write%[2]sDelta, t.write%[2]s);\n", k, e.TypeName(r))
	}
	b.WriteString("  }\n  return \"BADTYPE\";\n}\n")
	return []byte(b.String())
}

// TestTypeScriptCrossLanguage is the cross-language test of the generated
// TypeScript: the corpus of TestCPPCrossLanguage (random valid values read
// and written back, hostile packets, spoiled values, float probes,
// framing), run through node. Besides the verdicts, refusals must give
// bitpack's error word for word.
func TestTypeScriptCrossLanguage(t *testing.T) {
	if raceEnabled {
		t.Skip("the TypeScript side does not change under Go's race detector; the plain run covers it")
	}
	t.Parallel() // each language's process runs beside another's: two cores
	c := sharedCorpus(t)
	compareClient(t, "node", c, runTSDriver(t, c), true)
}

// TestTypeScriptDeltas runs the delta corpus (D: apply a delta to a base,
// E: write a value's delta against a base) through the same driver:
// bitpack's bytes, its verdicts and its refusals word for word; the driver
// also checks that no delta read or write changes the values it is given.
func TestTypeScriptDeltas(t *testing.T) {
	if raceEnabled {
		t.Skip("the TypeScript side does not change under Go's race detector; the plain run covers it")
	}
	t.Parallel() // each language's process runs beside another's: two cores
	c := sharedDeltaCorpus(t)
	compareClient(t, "node", c, runTSDriver(t, c), true)
}

// tsDriverBuild is the TypeScript driver, compiled once for the corpus's
// table (its write cases with it) and run by TestTypeScriptCrossLanguage
// and TestTypeScriptDeltas: the delta corpus has the same types, by the
// same numbers.
var tsDriverBuild = sharedBuild{name: "ts-driver"}

// runTSDriver generates the module and the driver for the corpus's types,
// compiles them (once) and returns node's answers to c's commands.
func runTSDriver(t *testing.T, c *corpus) []string {
	t.Helper()
	tsc := requireTSC(t)
	node := requireTool(t, "node", "TypeScript")
	driver := tsDriverBuild.get(t, func(dir string) string {
		c := sharedCorpus(t)
		e, err := typescript.New(c.m)
		if err != nil {
			t.Fatal(err)
		}
		sources := map[string][]byte{"table.ts": e.File(), "cases.ts": tsCases(t, c, e)}
		start := time.Now()
		tsCompile(t, tsc, dir, sources)
		t.Logf("tsc in %v", time.Since(start))
		driver, err := os.ReadFile(filepath.Join("testdata", "driver.mjs"))
		if err != nil {
			t.Fatal(err)
		}
		for name, text := range map[string]string{"out/driver.mjs": string(driver), "package.json": `{"type": "module"}` + "\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return filepath.Join(dir, "out", "driver.mjs")
	})
	start := time.Now()
	answers := runDriver(t, "node", exec.Command(node, driver), c.lines())
	t.Logf("node ran in %v", time.Since(start))
	return answers
}

// TestTypeScriptGoldenCompiles compiles each golden module with exactly
// the settings the generated code must pass (tsc --strict --noEmitOnError
// --module es2020 --moduleResolution bundler, the compiler's default
// target and library), then runs a program that checks the fingerprint
// constants against Go's and round-trips a player.
func TestTypeScriptGoldenCompiles(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	tsc := requireTSC(t)
	node := requireTool(t, "node", "TypeScript")
	dir := t.TempDir()
	sources := map[string][]byte{}
	for _, name := range []string{"player.ts", "envelope.ts", "loadout.ts", "stamps.ts"} {
		b, err := os.ReadFile(filepath.Join("testdata", "golden", name))
		if err != nil {
			t.Fatal(err)
		}
		sources[name] = b
	}
	fpPlayer, _ := bitpack.Fingerprint(&Player{})
	fpEnvelope, _ := bitpack.Fingerprint(&Envelope{})
	packet, err := bitpack.Marshal(&Player{Health: 1000, Pos: Vec3{X: 1.5, Y: -2, Z: 1024}, Name: "ada", Alive: true})
	if err != nil {
		t.Fatal(err)
	}
	sources["main.ts"] = []byte(fmt.Sprintf(`import { PlayerFingerprint, readPlayer, writePlayer } from "./player.js";
import { EnvelopeFingerprint } from "./envelope.js";

const p = readPlayer(new Uint8Array([%s]));
const again = writePlayer(p);
const hex = Array.from(again, (b) => b.toString(16).padStart(2, "0")).join(" ");
export const line = [PlayerFingerprint.toString(16).padStart(8, "0"), EnvelopeFingerprint.toString(16).padStart(8, "0"), p.Health, p.Pos.X, p.Name, hex].join(" ");
`, csBytes(packet)))
	tsCompile(t, tsc, dir, sources)
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--input-type=module", "-e", `import { line } from "./out/main.js"; console.log(line);`)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := fmt.Sprintf("%08x %08x 1000 1.5 ada %s\n", fpPlayer, fpEnvelope, strings.Join(hexBytes(packet), " "))
	if string(out) != want {
		t.Errorf("golden TypeScript printed %q, want %q", out, want)
	}
}

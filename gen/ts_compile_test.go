package gen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/gen/internal/typescript"
)

// The compilers of the compile matrix: the newest TypeScript release
// (testdata/ts, the one every other TypeScript test runs) and the oldest
// the generated modules support (testdata/ts-oldest). .ci/run installs
// both with npm ci.
var tsCompilers = []struct{ name, dir string }{
	{"newest", filepath.Join("testdata", "ts")},
	{"oldest", filepath.Join("testdata", "ts-oldest")},
}

// tsMatrixBase are the settings every configuration of the matrix has: what a
// web team's bundler-based build passes.
var tsMatrixBase = []string{"--strict", "--noEmitOnError", "--module", "es2020", "--moduleResolution", "bundler", "--target", "es2020"}

// tsStrictest are the stricter settings teams turn on, which the
// generated modules must pass too; erasableSyntaxOnly (no enums,
// parameter properties or namespaces: what Node's type stripping runs)
// exists from TypeScript 5.8 on.
var tsStrictest = []string{"--noUncheckedIndexedAccess", "--exactOptionalPropertyTypes", "--verbatimModuleSyntax"}

// tsConsumer uses a generated module as web code does: what writeT,
// writeTDelta and seal return goes to anything that takes bytes, typed
// as strictly as TypeScript types them; a receiver reads a view of a
// buffer; a delta is read and written after a header. It is compiled with
// every configuration; tsDOMConsumer, with the DOM library, hands bytes
// to WebSocket.send, a fetch body and a Blob, and feeds a receiver from a
// WebSocket.
const tsConsumer = `import { newPlayer, open, readPlayer, seal, writePlayer, writePlayerDelta, PlayerFingerprint, BitpackError } from "./player.js";
import { BitReader, BitWriter, PlayerReceiver, copyPlayer, readPlayerDeltaFrom, writePlayerDeltaTo } from "./player.js";
import type { BitpackBytes, BitpackErrorKind, Player } from "./player.js";

export function roundTrip(p: Player): Player {
  const payload: BitpackBytes = writePlayer(p);
  const own: ArrayBuffer = payload.buffer;
  const sealed: Uint8Array = seal(PlayerFingerprint, payload);
  const opened = open(PlayerFingerprint, sealed.subarray(0));
  if (opened === null || own.byteLength < payload.length) {
    throw new Error("damaged");
  }
  return readPlayer(opened);
}

export function refusal(p: Uint8Array): string {
  try {
    readPlayer(p);
    return "";
  } catch (e) {
    return e instanceof BitpackError ? e.kind + " " + e.path + " " + e.bit : String(e);
  }
}

export const delta: BitpackBytes = writePlayerDelta(newPlayer(), newPlayer());

const receiver = new PlayerReceiver(64);

export function stream(buffer: Uint8Array, mine: Player): number {
  try {
    const { seq, value } = receiver.read(buffer.subarray(4, 40));
    copyPlayer(value, mine);
    return seq;
  } catch (e) {
    const kind: BitpackErrorKind | "" = e instanceof BitpackError ? e.kind : "";
    return kind === "NoBase" ? -2 : -1;
  }
}

export function headerThenDelta(packet: Uint8Array, base: Player, into: Player): number {
  const r = new BitReader(packet);
  const tick = r.readBits(16);
  if (!readPlayerDeltaFrom(r, base, into) || !r.finish()) {
    throw r.error("gen.Player");
  }
  const w = new BitWriter();
  w.writeBits(tick, 16);
  return writePlayerDeltaTo(w, base, into) ? w.bytes().length + receiver.ack : -1;
}
`

const tsDOMConsumer = `import { newPlayer, seal, writePlayer, writePlayerDelta, PlayerFingerprint, PlayerReceiver } from "./player.js";

export function send(ws: WebSocket): void {
  ws.send(writePlayer(newPlayer()));
  ws.send(seal(PlayerFingerprint, writePlayer(newPlayer())));
  ws.send(writePlayerDelta(newPlayer(), newPlayer()));
}

export function post(url: string): Promise<Response> {
  const body: BodyInit = seal(PlayerFingerprint, writePlayer(newPlayer()));
  return fetch(url, { method: "POST", body: writePlayer(newPlayer()) }).then(() => fetch(url, { method: "POST", body }));
}

export const blob = new Blob([writePlayer(newPlayer())]);

export function listen(ws: WebSocket, receiver: PlayerReceiver): void {
  ws.binaryType = "arraybuffer";
  ws.onmessage = (ev: MessageEvent<ArrayBuffer>) => {
    const { value } = receiver.read(new Uint8Array(ev.data));
    ws.send(writePlayer(value));
  };
}
`

// TestTypeScriptCompileMatrix compiles every generated module the tests
// know (the cross-language table's, the goldens) and the consumers above
// with the oldest and the newest TypeScript, each in every
// configuration web teams compile with: the base settings with the
// ES2020 library alone and with the DOM's, each alone and with the
// strictest settings. One tsc run per configuration takes all the files.
// Without BITPACK_FULL=1 only the newest compiler runs, with the
// strictest settings alone (which only add errors to the base ones), with
// each library, and checks without writing the JavaScript out (--noEmit:
// the same errors, in two thirds of the time); the oldest, the JavaScript
// one, costs five times the newest's CPU and is left to .ci/run.
func TestTypeScriptCompileMatrix(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	requireTool(t, "node", "TypeScript")
	sources := tsMatrixSources(t)
	dir := t.TempDir()
	var files, domFiles []string
	for name, src := range sources {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		if name == "dom.ts" {
			domFiles = append(domFiles, path)
		} else {
			files = append(files, path)
		}
	}
	for _, comp := range tsCompilers {
		if !fullSweeps() && comp.name == "oldest" {
			t.Logf("the oldest TypeScript (%s) runs with BITPACK_FULL=1", comp.dir)
			continue
		}
		tsc := requireTSCIn(t, comp.dir)
		version := tscVersion(t, tsc)
		for _, lib := range []string{"es2020", "es2020,dom"} {
			for _, strictest := range []bool{false, true} {
				if !fullSweeps() && !strictest {
					continue
				}
				args := append([]string{}, tsMatrixBase...)
				args = append(args, "--lib", lib)
				name := fmt.Sprintf("%s-%s/lib=%s", comp.name, version, lib)
				if strictest {
					args = append(args, tsStrictest...)
					if version.atLeast(5, 8) {
						args = append(args, "--erasableSyntaxOnly")
					}
					name += "/strictest"
				}
				in := files
				if strings.Contains(lib, "dom") {
					in = append(append([]string{}, files...), domFiles...)
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					all := append(args, "--noEmit")
					if fullSweeps() {
						all = append(args, "--outDir", t.TempDir())
					}
					flags := strings.Join(all, " ")
					all = append(all, in...)
					start := time.Now()
					if o, err := exec.Command(tsc, all...).CombinedOutput(); err != nil {
						t.Fatalf("tsc %s: %v\n%s", flags, err, tail(string(o), 6000))
					}
					t.Logf("tsc %s: %d files in %v", flags, len(in), time.Since(start))
				})
			}
		}
	}
}

// tsMatrixSources are the files of the compile matrix: every generated
// module and the consumers.
func tsMatrixSources(t *testing.T) map[string][]byte {
	t.Helper()
	var protos []any
	for _, e := range table() {
		protos = append(protos, e.proto)
	}
	m, err := model.Build(protos)
	if err != nil {
		t.Fatal(err)
	}
	e, err := typescript.New(m)
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string][]byte{"table.ts": e.File(), "consumer.ts": []byte(tsConsumer), "dom.ts": []byte(tsDOMConsumer)}
	for _, gc := range goldenCases {
		if strings.HasSuffix(gc.file, ".ts") {
			var b strings.Builder
			if err := gc.gen(&b, gc.opts, gc.values...); err != nil {
				t.Fatal(err)
			}
			sources[gc.file] = []byte(b.String())
		}
	}
	return sources
}

// requireTSCIn returns the path of the tsc installed in dir, or skips
// the test when it is not, unless BITPACK_REQUIRE_TOOLCHAINS=1.
func requireTSCIn(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "node_modules", ".bin", "tsc")
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("BITPACK_REQUIRE_TOOLCHAINS") == "1" {
			t.Fatalf("%s not found and BITPACK_REQUIRE_TOOLCHAINS=1: run npm ci in %s", path, dir)
		}
		t.Skipf("%s not found: skipping the TypeScript compile matrix (npm ci in %s installs it); set BITPACK_REQUIRE_TOOLCHAINS=1 to make this a failure", path, dir)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// tsVersion is a compiler's version, major.minor.patch.
type tsVersion [3]int

func (v tsVersion) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

func (v tsVersion) atLeast(major, minor int) bool {
	return v[0] > major || v[0] == major && v[1] >= minor
}

var tscVersionText = regexp.MustCompile(`Version (\d+)\.(\d+)\.(\d+)`)

// tscVersion asks tsc its version.
func tscVersion(t *testing.T, tsc string) tsVersion {
	t.Helper()
	out, err := exec.Command(tsc, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", tsc, err, out)
	}
	m := tscVersionText.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("%s --version printed %q", tsc, out)
	}
	var v tsVersion
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	return v
}

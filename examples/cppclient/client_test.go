package cppclient_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/cppclient"
	"github.com/google/go-cmp/cmp"
)

// TestClient compiles cpp/client.cpp with net.h (against gen's test
// implementation of serialize.h), runs it, and reads the packet it
// printed with bitpack.Open and Unmarshal, as a Go server would.
func TestClient(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		if os.Getenv("BITPACK_REQUIRE_TOOLCHAINS") == "1" {
			t.Fatalf("g++ not found and BITPACK_REQUIRE_TOOLCHAINS=1: %v", err)
		}
		t.Skipf("g++ not found (%v): skipping the C++ client; set BITPACK_REQUIRE_TOOLCHAINS=1 to make this a failure", err)
	}
	dir := t.TempDir()
	serialize, err := os.ReadFile("../../gen/testdata/minserialize.h")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "serialize.h"), serialize, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "client")
	if out, err := exec.Command(gxx, "-std=c++11", "-Wall", "-Wextra", "-Werror", "-I", ".", "-I", dir,
		"cpp/client.cpp", "-o", bin).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	checkClient(t, "C++", lines)
}

// checkClient reads the packet a client printed (its first line) with
// bitpack.Open and Unmarshal, as a Go server would, and checks the
// snapshot and what the client read back (its second line).
func checkClient(t *testing.T, name string, lines []string) {
	t.Helper()
	if len(lines) != 2 {
		t.Fatalf("%s client printed %q, want two lines", name, lines)
	}
	packet, err := hex.DecodeString(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	fp, err := bitpack.Fingerprint(&cppclient.Snapshot{})
	if err != nil {
		t.Fatal(err)
	}
	payload, err := bitpack.Open(cppclient.AppID^fp, packet)
	if err != nil {
		t.Fatal(err)
	}
	var got cppclient.Snapshot
	if err := bitpack.Unmarshal(payload, &got); err != nil {
		t.Fatal(err)
	}
	want := cppclient.Snapshot{Tick: 42, Players: []cppclient.Player{
		{ID: 7, Health: 1000, Pos: cppclient.Vec3{Y: -1024, Z: 1024}, Name: "ada", Alive: true},
		{ID: 999, Name: "bob"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the Go side read another snapshot (-want +got):\n%s", diff)
	}
	if lines[1] != "tick 42: 2 players, ada at y=-1024" {
		t.Errorf("%s client's second line %q", name, lines[1])
	}
}

// requireTool returns the path of a toolchain program, or skips the test
// when there is none, unless BITPACK_REQUIRE_TOOLCHAINS=1.
func requireTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("BITPACK_REQUIRE_TOOLCHAINS") == "1" {
		t.Fatalf("%s not found and BITPACK_REQUIRE_TOOLCHAINS=1: %v", name, err)
	}
	t.Skipf("%s not found (%v): skipping this client; set BITPACK_REQUIRE_TOOLCHAINS=1 to make this a failure", name, err)
	return ""
}

// TestCSharpClient compiles cs/Client.cs with cs/Net.cs (mcs, C# 7.2, every
// warning an error), runs it with mono and reads its packet on the Go side.
func TestCSharpClient(t *testing.T) {
	mcs, mono := requireTool(t, "mcs"), requireTool(t, "mono")
	exe := filepath.Join(t.TempDir(), "client.exe")
	if out, err := exec.Command(mcs, "-langversion:7.2", "-warn:4", "-warnaserror+", "-out:"+exe, "cs/Net.cs", "cs/Client.cs").CombinedOutput(); err != nil {
		t.Fatalf("mcs: %v\n%s", err, out)
	}
	out, err := exec.Command(mono, exe).Output()
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	checkClient(t, "C#", strings.Split(strings.TrimSpace(string(out)), "\n"))
}

// TestTypeScriptClient compiles ts/client.ts with ts/net.ts (the tsc gen's
// tests pin, strict), runs send and receive with node and reads the packet
// on the Go side.
func TestTypeScriptClient(t *testing.T) {
	node := requireTool(t, "node")
	tsc, err := filepath.Abs("../../gen/testdata/ts/node_modules/.bin/tsc")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tsc); err != nil {
		if os.Getenv("BITPACK_REQUIRE_TOOLCHAINS") == "1" {
			t.Fatalf("%s not found and BITPACK_REQUIRE_TOOLCHAINS=1: run npm ci in gen/testdata/ts", tsc)
		}
		t.Skipf("%s not found: skipping the TypeScript client (npm ci in gen/testdata/ts installs it)", tsc)
	}
	dir := t.TempDir()
	if out, err := exec.Command(tsc, "--strict", "--noEmitOnError", "--module", "es2020", "--moduleResolution", "bundler",
		"--outDir", dir, "ts/client.ts", "ts/net.ts").CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--input-type=module", "-e",
		`import { send, receive } from "./client.js"; const p = send(); console.log(Buffer.from(p).toString("hex")); console.log(receive(p));`)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	checkClient(t, "TypeScript", strings.Split(strings.TrimSpace(string(out)), "\n"))
}

// TestRustClient compiles rust/main.rs with rust/net.rs (rustc, edition
// 2021, every warning an error), runs it and reads its packet on the Go
// side.
func TestRustClient(t *testing.T) {
	rustc := requireTool(t, "rustc")
	bin := filepath.Join(t.TempDir(), "client")
	if out, err := exec.Command(rustc, "--edition", "2021", "-o", bin, "rust/main.rs").CombinedOutput(); err != nil {
		t.Fatalf("rustc: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	checkClient(t, "Rust", strings.Split(strings.TrimSpace(string(out)), "\n"))
}

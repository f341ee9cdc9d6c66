package cppclient_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
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
	if len(lines) != 2 {
		t.Fatalf("client printed %q, want two lines", out)
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
		t.Errorf("client's second line %q", lines[1])
	}
}

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack/examples/cppclient"
	"github.com/bitpack-go/bitpack/gen"
	"github.com/bitpack-go/bitpack/internal/sweeps"
)

// TestGenExample runs the command on the example package as the package's
// generate directive does: the header it writes is the checked-in net.h
// (regenerate with go generate ./examples/cppclient), byte for byte the
// same as gen.CPP's, and the temporary program is gone afterwards.
func TestGenExample(t *testing.T) {
	out := filepath.Join(t.TempDir(), "net.h")
	var stderr bytes.Buffer
	if err := run([]string{"gen", "-lang", "cpp", "-o", out, "../../examples/cppclient", "Snapshot"}, os.Stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var direct bytes.Buffer
	if err := gen.CPP(&direct, gen.Options{}, &cppclient.Snapshot{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, direct.Bytes()) {
		t.Error("the command's header differs from gen.CPP's")
	}
	pinned, err := os.ReadFile("../../examples/cppclient/net.h")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, pinned) {
		t.Error("examples/cppclient/net.h is out of date: run go generate ./examples/cppclient")
	}
	left, _ := filepath.Glob("../../.bitpack-gen-*")
	if len(left) > 0 {
		t.Errorf("temporary directories left behind: %v", left)
	}
}

// TestGenOptions: -namespace and -include reach gen.Options, and without
// -o the header goes to standard output.
func TestGenOptions(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run([]string{"gen", "-lang", "cpp", "-namespace", "game::net", "-include", "lib/serialize.h", "github.com/bitpack-go/bitpack/examples/cppclient", "Player", "Vec3"}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var direct bytes.Buffer
	if err := gen.CPP(&direct, gen.Options{Namespace: "game::net", Include: "lib/serialize.h"}, &cppclient.Player{}, &cppclient.Vec3{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stdout.Bytes(), direct.Bytes()) {
		t.Error("the command's header differs from gen.CPP's with the same options")
	}
}

// TestGenLanguages: -lang cs, ts, go and rust write what gen.CSharp,
// gen.TypeScript, gen.Go and gen.Rust write, -namespace reaching the C#, and the example's
// checked-in files are what they write (go generate ./examples/cppclient).
// Without BITPACK_FULL=1 the command runs for cs and go alone (each run
// builds a program: about a second and a half of CPU), and ts's and
// rust's checked-in files are compared with what the gen functions write.
func TestGenLanguages(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		gen    func(w io.Writer, opts gen.Options, values ...any) error
		opts   gen.Options
		pinned string
		quick  bool // run by go test ./... without BITPACK_FULL=1
	}{
		{[]string{"gen", "-lang", "cs", "-namespace", "Game.Net"}, gen.CSharp, gen.Options{Namespace: "Game.Net"}, "cs/Net.cs", true},
		{[]string{"gen", "-lang", "ts"}, gen.TypeScript, gen.Options{}, "ts/net.ts", false},
		{[]string{"gen", "-lang", "go"}, gen.Go, gen.Options{}, "bitpack_gen.go", true},
		{[]string{"gen", "-lang", "rust"}, gen.Rust, gen.Options{}, "rust/net.rs", false},
	} {
		var direct bytes.Buffer
		if err := tc.gen(&direct, tc.opts, &cppclient.Snapshot{}); err != nil {
			t.Fatal(err)
		}
		got := direct.Bytes()
		args := append(tc.args, "../../examples/cppclient", "Snapshot")
		if tc.quick || fullSweeps() {
			var stdout, stderr bytes.Buffer
			if err := run(args, &stdout, &stderr); err != nil {
				t.Fatalf("bitpack %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
			if !bytes.Equal(stdout.Bytes(), direct.Bytes()) {
				t.Errorf("bitpack %s differs from the gen function's output", strings.Join(args, " "))
			}
			got = stdout.Bytes()
		}
		pinned, err := os.ReadFile(filepath.Join("../../examples/cppclient", tc.pinned))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, pinned) {
			t.Errorf("examples/cppclient/%s is out of date: run go generate ./examples/cppclient", tc.pinned)
		}
	}
}

// fullSweeps reports whether the environment sets BITPACK_FULL=1, as
// .ci/run does (internal/sweeps reads it): every language then goes
// through the command.
func fullSweeps() bool { return sweeps.Full() }

// TestGenHelp: -h prints the usage and the flags and succeeds (exit 0):
// a help request is no error.
func TestGenHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run([]string{"gen", "-h"}, &stdout, &stderr); err != nil {
		t.Fatalf("bitpack gen -h: %v", err)
	}
	if !strings.HasPrefix(stderr.String(), "usage: bitpack gen -lang") || !strings.Contains(stderr.String(), "-namespace") {
		t.Errorf("bitpack gen -h printed %q, want the usage and the flags", stderr.String())
	}
}

func TestGenErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"build"}, "the only command is gen"},
		{[]string{"gen", "-lang", "cobol", ".", "T"}, `-lang "cobol": the languages are cpp, cs, ts, go and rust`},
		{[]string{"gen", "-lang", "ts", "-namespace", "game", ".", "T"}, "-namespace does not apply to -lang ts"},
		{[]string{"gen", "-lang", "cs", "-include", "serialize.h", ".", "T"}, "-include does not apply to -lang cs"},
		{[]string{"gen", "-lang", "rust", "-namespace", "game", ".", "T"}, "-namespace does not apply to -lang rust"},
		{[]string{"gen", "-lang", "cs", "../../examples/gamestate", "Player"}, "is package main, which no program can import: move the types to a package of their own, or call gen.CSharp from a test"},
		{[]string{"gen", "-lang", "cpp", "../../examples/cppclient"}, "name a package and at least one type"},
		{[]string{"gen", "-lang", "cpp", "../../examples/cppclient", "vec3"}, "type vec3 is not exported"},
		{[]string{"gen", "-lang", "cpp", "../../examples/cppclient", "Snap-shot"}, `"Snap-shot" is not a Go type name`},
		{[]string{"gen", "-lang", "cpp", "../../examples/gamestate", "Player"}, "github.com/bitpack-go/bitpack/examples/gamestate is package main, which no program can import"},
		{[]string{"gen", "-lang", "cpp", "../../examples/cppclient", "Nope"}, "generating failed"},
		{[]string{"gen", "-lang", "cpp", "../../examples/cppclient", "AppID"}, "generating failed"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(tc.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("bitpack %s: %v, want an error containing %q", strings.Join(tc.args, " "), err, tc.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("bitpack %s wrote to standard output", strings.Join(tc.args, " "))
		}
	}
}

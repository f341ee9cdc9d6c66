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
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/snapshot"
)

// Clock is a snapshot world whose time's range holds Go's zero time.Time
// (year 1, code 0): the zero base every stream starts from holds that
// time, not the Unix epoch.
type Clock struct {
	At time.Time `bits:"unit=1s,range=-62135596800..4102444800"`
	N  uint8     `bits:"range=0..9"`
}

// clockStream is a Sender's first two packets of Clock (History 16,
// stream 7): {N: 1}, its time left at the zero time, then the time set to
// the Unix epoch. Go's Receiver accepts both; views are their full
// encodings.
func clockStream(t *testing.T) (packets [][]byte, views []string) {
	t.Helper()
	s, err := snapshot.NewSender(snapshot.Options[Clock]{History: 16, Stream: 7})
	if err != nil {
		t.Fatal(err)
	}
	r, err := snapshot.NewReceiver(snapshot.Options[Clock]{History: 16})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []Clock{{N: 1}, {At: time.Unix(0, 0), N: 1}} {
		p, err := s.Append(nil, &w)
		if err != nil {
			t.Fatal(err)
		}
		var v Clock
		if _, err := r.Read(p, &v); err != nil {
			t.Fatalf("Go refuses % x: %v", p, err)
		}
		full, err := bitpack.Marshal(&v)
		if err != nil {
			t.Fatal(err)
		}
		packets, views = append(packets, p), append(views, hex.EncodeToString(full))
		s.Ack(r.Ack())
	}
	// Derived by hand (docs/wire.md): the zero base's time is year 1,
	// code 0 in 36 bits; the epoch is code 62135596800 (0xe7791f700).
	want := [][]string{
		{"000000a5e793bc070000002" + "5", "0000000010"},
		{"0100024c9aff1607b88fbc73", "00f791771e"},
	}
	for i := range want {
		if hex.EncodeToString(packets[i]) != want[i][0] || views[i] != want[i][1] {
			t.Fatalf("packet %d: % x view %s, want %s view %s", i, packets[i], views[i], want[i][0], want[i][1])
		}
	}
	return packets, views
}

// TestReceiverZeroBaseTime: every generated Receiver decodes a stream's
// first packet against Go's zero value, whose time.Time is year 1, not
// the Unix epoch: a time left at the zero time reads as year 1 (code 0),
// and a time set to the epoch is a change, not a non-canonical delta.
func TestReceiverZeroBaseTime(t *testing.T) {
	if raceEnabled {
		t.Skip("the clients do not change under Go's race detector; the plain run covers them")
	}
	packets, views := clockStream(t)
	want := func(format string) []string {
		var w []string
		for i, v := range views {
			w = append(w, fmt.Sprintf(format, i, v))
		}
		return w
	}
	check := func(t *testing.T, got, want []string) {
		t.Helper()
		for i := range want {
			if i >= len(got) || got[i] != want[i] {
				g := "nothing"
				if i < len(got) {
					g = got[i]
				}
				t.Errorf("packet %d (% x):\n got %s\nwant %s", i, packets[i], g, want[i])
			}
		}
	}
	rename := func(s string) string { return strings.ReplaceAll(s, "World", "Clock") }

	t.Run("TypeScript", func(t *testing.T) {
		t.Parallel()
		tsc := requireTSC(t)
		node := requireTool(t, "node", "TypeScript")
		var module bytes.Buffer
		if err := TypeScript(&module, Options{}, Clock{}); err != nil {
			t.Fatal(err)
		}
		cases, err := os.ReadFile(filepath.Join("testdata", "receiver_cases.ts"))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		tsCompile(t, tsc, dir, map[string][]byte{"clock.ts": module.Bytes(), "receiver_cases.ts": []byte(strings.ReplaceAll(rename(string(cases)), "./world.js", "./clock.js"))})
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(node, "--input-type=module", "-e", `import { readFileSync } from "node:fs";
import { answer } from "./out/receiver_cases.js";
const lines = readFileSync(0, "utf8").split("\n");
lines.pop();
process.stdout.write(lines.map(answer).join("\n") + "\n");`)
		cmd.Dir = dir
		cmds := []string{"new 16"}
		for _, p := range packets {
			cmds = append(cmds, "read "+hex.EncodeToString(p))
		}
		check(t, runDriver(t, "node", cmd, cmds)[1:], want("ok %d %s ack %[1]d"))
	})

	t.Run("C#", func(t *testing.T) {
		t.Parallel()
		mono := requireTool(t, "mono", "C#")
		requireTool(t, "mcs", "C#")
		var module bytes.Buffer
		if err := CSharp(&module, Options{Namespace: "Snap"}, &Clock{}); err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(t.TempDir(), "receiver.exe")
		csCompile(t, map[string][]byte{"clock.cs": module.Bytes(), "main.cs": []byte(rename(csReceiverProgram))}, exe)
		var in strings.Builder
		for _, p := range packets {
			fmt.Fprintf(&in, "P %x 0\n", p)
		}
		cmd := exec.Command(mono, exe, "16", "64")
		cmd.Stdin = strings.NewReader(in.String())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mono: %v\n%s", err, tail(string(out), 3000))
		}
		var lines []string
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		if len(lines) < 5 {
			t.Fatalf("mono answered %q", lines)
		}
		check(t, lines[5:], want("OK %d %s %[1]d"))
	})

	t.Run("C++", func(t *testing.T) {
		t.Parallel()
		gxx := requireCompiler(t)
		dir := t.TempDir()
		var header bytes.Buffer
		if err := CPP(&header, Options{Include: "minserialize.h"}, &Clock{}); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{"receiver.h": header.Bytes()}
		for _, name := range receiverDriverSources {
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			files[name] = []byte(rename(string(b)))
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		bin := filepath.Join(dir, "receiver")
		args := append([]string{"-std=c++11", "-Wall", "-Wextra", "-Werror", "-DHISTORIES=EACH(16)"}, cppFlags["quick"]...)
		if out, err := exec.Command(gxx, append(args, "-o", bin, filepath.Join(dir, "receiver.cpp"))...).CombinedOutput(); err != nil {
			t.Fatalf("g++: %v\n%s", err, tail(string(out), 4000))
		}
		cmds, w := []string{"fresh 16"}, []string{"ack=65535"}
		for _, p := range packets {
			cmds = append(cmds, "packet "+hex.EncodeToString(p))
		}
		for i, v := range views {
			w = append(w, fmt.Sprintf("OK seq=%d ack=%[1]d view=%s", i, v))
		}
		check(t, runDriver(t, "C++ receiver", exec.Command(bin), cmds), w)
	})

	t.Run("Rust", func(t *testing.T) {
		t.Parallel()
		rustc := requireRustc(t)
		dir := t.TempDir()
		var module bytes.Buffer
		if err := Rust(&module, Options{}, Clock{}); err != nil {
			t.Fatal(err)
		}
		main := `#[path = "snap.rs"]
mod snap;
use std::io::BufRead;

fn main() {
    let mut rx: snap::Receiver<snap::Clock> = snap::Receiver::new(16);
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let p: Vec<u8> = (0..line.len() / 2).map(|i| u8::from_str_radix(&line[2 * i..2 * i + 2], 16).unwrap()).collect();
        match rx.read(&p) {
            Ok((seq, v)) => println!("ok {} {}", seq, v.write().map(|b| b.iter().map(|x| format!("{:02x}", x)).collect::<String>()).unwrap_or_else(|e| e.to_string())),
            Err(e) => println!("refused {}", e),
        }
    }
}
`
		for name, text := range map[string][]byte{"snap.rs": module.Bytes(), "main.rs": []byte(main)} {
			if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		exe := filepath.Join(dir, "receiver")
		if out, err := exec.Command(rustc, "--edition", "2021", "-C", "opt-level=0", "-o", exe, filepath.Join(dir, "main.rs")).CombinedOutput(); err != nil {
			t.Fatalf("rustc: %v\n%s", err, tail(string(out), 4000))
		}
		var cmds []string
		for _, p := range packets {
			cmds = append(cmds, hex.EncodeToString(p))
		}
		check(t, runDriver(t, "rust", exec.Command(exe), cmds), want("ok %d %s"))
	})
}

package gen

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/internal/snapcorpus"
	"github.com/bitpack-go/bitpack/internal/snapwire"
)

// A snapshot stream's header numbers and refusal words have one home,
// package snapwire; these tests hold the generated receivers (C#, C++,
// TypeScript, Rust) to it. The receiver suites (TestCSharpReceiver,
// TestCPPReceiver, TestTypeScriptReceiver, TestRustSnapshot) check the
// same by behaviour on the replayed stream corpus.

// TestSnapwireRuntimes: each generated receiver states every snapwire
// number and word it uses once, as snapwire defines it, where its code
// reads it.
func TestSnapwireRuntimes(t *testing.T) {
	sw := func(format string, args ...any) string { return fmt.Sprintf(format, args...) }
	var csWords, tsWords, rsWords []string
	for _, w := range snapwire.Words {
		csWords = append(csWords, sw("internal const string %s = %s;", w.Name, code.Quote(w.Format)))
		tsWords = append(tsWords, sw("  %s: %s,", w.Name, code.Quote(w.Format)))
		rsWords = append(rsWords, sw("const %s: &str = %s;", strings.ToUpper(regexp.MustCompile(`\B[A-Z]`).ReplaceAllString(w.Name, "_$0")), code.Quote(w.Format)))
	}
	for _, s := range []struct{ kind, text string }{
		{"Overflow", bitpack.ErrOverflow.Error()}, {"Range", bitpack.ErrRange.Error()}, {"NoBase", snapwire.NoBase},
	} {
		csWords = append(csWords, sw("internal const string %s = %s; // the sentinel's text", s.kind, code.Quote(s.text)))
		tsWords = append(tsWords, sw("  %s: %s, // the sentinel's text", s.kind, code.Quote(s.text)))
	}
	rsWords = append(rsWords, sw("const OVERFLOW_TEXT: &str = %s;", code.Quote(bitpack.ErrOverflow.Error())),
		sw("const RANGE_TEXT: &str = %s;", code.Quote(bitpack.ErrRange.Error())), sw("const NO_BASE_TEXT: &str = %s;", code.Quote(snapwire.NoBase)))
	for _, lang := range []struct {
		name string
		gen  func(w *bytes.Buffer) error
		want []string
	}{
		{"C#", func(w *bytes.Buffer) error { return CSharp(w, Options{}, snapcorpus.World{}) }, append(csWords,
			sw("public const int DefaultHistory = %d;", snapwire.DefaultHistory),
			sw("private const int LeftStreams = %d, MinHistory = %d, MaxHistory = %d, MinPacket = %d;",
				snapwire.LeftStreams, snapwire.MinHistory, snapwire.MaxHistory, snapwire.MinPacket),
			sw("private const int ShortHeader = %d, LongHeader = %d, ZeroHeader = %d, MaxShort = %d;",
				snapwire.ShortHeader, snapwire.LongHeader, snapwire.ZeroHeader, snapwire.MaxShort),
			sw("private const ushort NoAck = %d;", snapwire.NoAck),
			sw("return a > b && a - b <= %d || a < b && b - a > %d;", snapwire.SeqHalf, snapwire.SeqHalf),
			"error = BitpackReceiverState.DeltaRefusal(h.Seq, r.Error(",
		)},
		{"C++", func(w *bytes.Buffer) error { return CPP(w, Options{}, snapcorpus.World{}) }, []string{
			sw("template <typename T, int History = %d> class Receiver", snapwire.DefaultHistory),
			sw("static_assert( History >= %d && History <= %d &&", snapwire.MinHistory, snapwire.MaxHistory),
			sw("for ( int i = 0; i < %d; i++ )\n                left_[i] = 0;", snapwire.LeftStreams),
			sw("if ( packet == NULL || bytes < %d )", snapwire.MinPacket),
			sw("size_t n = %d;", snapwire.ShortHeader),
			sw("n = %d;\n", snapwire.ZeroHeader),
			sw("n = %d;\n                offset", snapwire.LongHeader),
			sw("if ( n == %d && offset <= %d )", snapwire.LongHeader, snapwire.MaxShort),
			sw("uint16_t( %d )", snapwire.NoAck),
			sw("return ( a > b && a - b <= %d ) || ( a < b && b - a > %d );", snapwire.SeqHalf, snapwire.SeqHalf),
		}},
		{"TypeScript", func(w *bytes.Buffer) error { return TypeScript(w, Options{}, snapcorpus.World{}) }, append(tsWords,
			sw("const snapshotShortHeader = %d;", snapwire.ShortHeader),
			sw("const snapshotLongHeader = %d;", snapwire.LongHeader),
			sw("const snapshotZeroHeader = %d;", snapwire.ZeroHeader),
			sw("const snapshotMaxShort = %d;", snapwire.MaxShort),
			sw("const snapshotMinHistory = %d;", snapwire.MinHistory),
			sw("const snapshotMaxHistory = %d;", snapwire.MaxHistory),
			sw("const snapshotMinPacket = %d;", snapwire.MinPacket),
			sw("const snapshotDefaultHistory = %d;", snapwire.DefaultHistory),
			sw("const snapshotLeftStreams = %d;", snapwire.LeftStreams),
			sw("const snapshotNoAck = %d;", snapwire.NoAck),
			sw("const snapshotSeqHalf = %d;", snapwire.SeqHalf),
		)},
		{"Rust", func(w *bytes.Buffer) error { return Rust(w, Options{}, snapcorpus.World{}) }, append(rsWords,
			sw("const SHORT_HEADER: usize = %d;", snapwire.ShortHeader),
			sw("const LONG_HEADER: usize = %d;", snapwire.LongHeader),
			sw("const ZERO_HEADER: usize = %d;", snapwire.ZeroHeader),
			sw("const MAX_SHORT: u16 = %d;", snapwire.MaxShort),
			sw("const MIN_HISTORY: usize = %d;", snapwire.MinHistory),
			sw("const MAX_HISTORY: usize = %d;", snapwire.MaxHistory),
			sw("const MIN_PACKET: usize = %d;", snapwire.MinPacket),
			sw("const DEFAULT_HISTORY: usize = %d;", snapwire.DefaultHistory),
			sw("const LEFT_STREAMS: usize = %d;", snapwire.LeftStreams),
			sw("const NO_ACK: u16 = %d;", snapwire.NoAck),
			sw("const SEQ_HALF: u16 = %d;", snapwire.SeqHalf),
			"a > b && a - b <= SEQ_HALF || a < b && b - a > SEQ_HALF",
			"go_format(DELTA, &[s])",
		)},
	} {
		var out bytes.Buffer
		if err := lang.gen(&out); err != nil {
			t.Fatalf("%s: %v", lang.name, err)
		}
		text := out.String()
		if strings.Contains(text, "{{") {
			t.Errorf("%s: a placeholder is left in the output", lang.name)
		}
		for _, w := range lang.want {
			if n := strings.Count(text, w); n != 1 {
				t.Errorf("%s: %q appears %d times, want once", lang.name, w, n)
			}
		}
	}
}

// snapshotRuntimes are the sources of the generated receivers.
var snapshotRuntimes = []string{
	"internal/csharp/snapshot.cs", "internal/csharp/receiver.go",
	"internal/cpp/runtime_snapshot.h",
	"internal/typescript/snapshot.ts",
	"internal/rust/macros.rs",
}

// notSnapwire are the numeric literals of snapshotRuntimes that equal a
// snapwire number but are not one, each with what it is.
var notSnapwire = map[string]string{
	"& 0xffff":             "TypeScript's 16-bit sequence arithmetic",
	"capacity_ < 32 ? 64 ": "the first size of the C++ receiver's delta buffer",
}

// TestSnapwireLiterals: no source of the C#, C++, TypeScript or Rust generator
// writes a snapwire word (or a part of one) itself, and no receiver
// runtime writes one of snapwire's distinctive numbers: they take them
// from package snapwire, so that a change there changes every language.
func TestSnapwireLiterals(t *testing.T) {
	verb := regexp.MustCompile(`%#08x|%d`)
	var fragments []string
	for _, format := range append([]string{snapwire.NoBase}, wordFormats()...) {
		for _, f := range verb.Split(format, -1) {
			if len(strings.TrimSpace(f)) >= 10 && f != " out of range [0, " { // bitpack's own range refusals say that too
				fragments = append(fragments, f)
			}
		}
	}
	slices.Sort(fragments)
	fragments = slices.Compact(fragments)
	if len(fragments) < 2*len(snapwire.Words) {
		t.Fatalf("only %d fragments of snapwire's words to look for", len(fragments))
	}
	for _, dir := range []string{"internal/csharp", "internal/cpp", "internal/typescript", "internal/rust"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(src), "\n") {
				for _, f := range fragments {
					if strings.Contains(line, f) {
						t.Errorf("%s:%d writes snapwire's words %q: take them from package snapwire", path, i+1, f)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	distinctive := map[uint64]string{
		snapwire.ZeroHeader:     "ZeroHeader",
		snapwire.DefaultHistory: "DefaultHistory",
		snapwire.MaxShort:       "MaxShort",
		snapwire.MaxHistory:     "MaxHistory or SeqHalf", // equal: a key once
		snapwire.NoAck:          "NoAck",
	}
	number := regexp.MustCompile(`\b(0[xX][0-9a-fA-F]+|[0-9]+)\b`)
	for _, path := range snapshotRuntimes {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			for lit := range notSnapwire {
				line = strings.ReplaceAll(line, lit, "")
			}
			for _, lit := range number.FindAllString(line, -1) {
				v, err := strconv.ParseUint(lit, 0, 64)
				if err != nil {
					t.Fatalf("%s:%d: %q: %v", path, i+1, lit, err)
				}
				if name, ok := distinctive[v]; ok {
					t.Errorf("%s:%d writes %s (snapwire.%s): take it from package snapwire", path, i+1, lit, name)
				}
			}
		}
	}
}

func wordFormats() []string {
	var f []string
	for _, w := range snapwire.Words {
		f = append(f, w.Format)
	}
	return f
}

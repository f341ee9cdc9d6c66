package gen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/csharp"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// csNamespace is where the tests generate the table's C#.
const csNamespace = "BitpackGen.Table"

// requireTool returns the path of a toolchain program, or skips the test
// when there is none, unless BITPACK_REQUIRE_TOOLCHAINS=1 (as in CI), which
// makes a missing one a failure.
func requireTool(t *testing.T, name, what string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("BITPACK_REQUIRE_TOOLCHAINS") == "1" {
		t.Fatalf("%s not found and BITPACK_REQUIRE_TOOLCHAINS=1: %v", name, err)
	}
	t.Skipf("%s not found (%v): skipping the generated %s tests; set BITPACK_REQUIRE_TOOLCHAINS=1 to make this a failure", name, err, what)
	return ""
}

// csCompile compiles C# sources (name -> text) into an executable with
// mcs as the generated code must build: C# 7.2, every warning an error.
func csCompile(t *testing.T, sources map[string][]byte, out string) {
	t.Helper()
	mcs := requireTool(t, "mcs", "C#")
	dir := filepath.Dir(out)
	args := []string{"-langversion:7.2", "-warn:4", "-warnaserror+", "-optimize+", "-out:" + out}
	for name, src := range sources {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, path)
	}
	if o, err := exec.Command(mcs, args...).CombinedOutput(); err != nil {
		t.Fatalf("mcs %s: %v\n%s", strings.Join(args, " "), err, tail(string(o), 4000))
	}
}

// csCases is the generated part of the C# driver: for each table type a
// read (TryRead, checked against the stream-level Read and Finish) that
// writes the value back, and the write cases.
func csCases(c *corpus, e *csharp.Emitter) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "namespace %s\n{\n    static partial class Cases\n    {\n", csNamespace)
	p := func(format string, args ...any) { fmt.Fprintf(&b, "        "+format+"\n", args...) }
	p("static string Read(int type, byte[] p)\n        {\n            switch (type)\n            {")
	for k := range c.m.Roots {
		p("    case %d: return Read%d(p);", k, k)
	}
	p("}\n            return \"BADTYPE\";\n        }\n")
	for k, r := range c.m.Roots {
		name, goName := e.TypeName(r), code.Quote(r.Go.String())
		p(`static string Read%[1]d(byte[] p)
        {
            BitpackReader r = new BitpackReader(p);
            %[2]s v, v2;
            string error;
            bool ok = %[2]s.Read(ref r, out v) && r.Finish();
            if (%[2]s.TryRead(p, out v2, out error) != ok || (!ok && error != r.Error(%[3]s)))
                return "INCONSISTENT " + error;
            %[2]s v3;
            string error3;
            byte[] within = Within(p);
            if (%[2]s.TryRead(within, 5, p.Length, out v3, out error3) != ok || error3 != error)
                return "INCONSISTENT within an array " + error3;
            if (!ok)
                return Refused(r.ErrorKind, r.ErrorPath, r.ErrorBit, error);
            return Write%[1]d(v2);
        }

        static string Write%[1]d(%[2]s v)
        {
            BitpackWriter w = new BitpackWriter(16);
            bool ok = v.WriteTo(ref w);
            byte[] packet;
            string error;
            if (v.TryWrite(out packet, out error) != ok || (!ok && error != w.Error(%[3]s)) || (ok && !Same(packet, w)))
                return "INCONSISTENT " + error;
            string into = IntoBuffer(ok, packet, error, delegate(byte[] b, int at, int n, out int written, out string e) { return v.TryWrite(b, at, n, out written, out e); });
            if (into != null)
                return into;
            if (!ok)
                return Refused(w.ErrorKind, w.ErrorPath, -1, error);
            return "OK " + Hex(packet);
        }
`, k, name, goName)
	}
	csDeltaCases(&b, c, e)
	for k, r := range c.m.Roots {
		if r.Go == reflect.TypeOf(QuatProbe{}) {
			p("static string WriteQuatProbe(QuatProbe v) { return Write%d(v); }\n", k)
		}
	}
	p("static string Write(int n)\n        {\n            switch (n)\n            {")
	for n, w := range c.writes {
		k := rootIndex(c, w.root)
		p("    case %d: return Write%d(%s);", n, k, csValue{e}.structValue(w.root, w.value))
	}
	p("    default: return \"BADCASE\";")
	p("}\n        }")
	b.WriteString("    }\n}\n")
	return []byte(b.String())
}

func rootIndex(c *corpus, t *model.Type) int {
	for k, r := range c.m.Roots {
		if r == t {
			return k
		}
	}
	panic("not a root: " + t.Name)
}

// csDriverBuild is the C# driver, compiled once for the corpus's table
// (its write cases with it) and run by TestCSharpCrossLanguage and
// TestCSharpDeltas: the delta corpus has the same types, by the same
// numbers.
var csDriverBuild = sharedBuild{name: "cs-driver"}

// csDriver compiles the C# driver for the corpus's table, once: the
// generated file, the cases, driver.cs and hooks.cs.
func csDriver(t *testing.T) string {
	t.Helper()
	return csDriverBuild.get(t, func(dir string) string {
		c := sharedCorpus(t)
		e, err := csharp.New(c.m, csNamespace)
		if err != nil {
			t.Fatal(err)
		}
		sources := map[string][]byte{"table.cs": e.File(), "cases.cs": csCases(c, e)}
		for _, name := range []string{"driver.cs", "hooks.cs"} {
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			sources[name] = b
		}
		exe := filepath.Join(dir, "driver.exe")
		start := time.Now()
		csCompile(t, sources, exe)
		t.Logf("mcs in %v", time.Since(start))
		return exe
	})
}

// TestCSharpCrossLanguage is the cross-language test of the generated C#:
// the corpus TestCPPCrossLanguage runs (random valid values read and
// written back, hostile packets, spoiled values, float probes, framing),
// run through mono twice, as it is and with -O=-float32 (float32 held in
// double precision must not change a byte). Besides the verdicts, refusals
// must name the field and bit bitpack names.
func TestCSharpCrossLanguage(t *testing.T) {
	if raceEnabled {
		t.Skip("the C# side does not change under Go's race detector; the plain run covers it")
	}
	t.Parallel() // each language's process runs beside another's: two cores
	mono := requireTool(t, "mono", "C#")
	requireTool(t, "mcs", "C#")
	c := sharedCorpus(t)
	exe := csDriver(t)
	lines := c.lines()
	runs := []struct {
		name   string
		args   []string
		quiets bool
	}{
		{"mono", []string{exe}, true},
		{"mono -O=-float32", []string{"-O=-float32", exe}, true},
	}
	answers := make([][]string, len(runs))
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			answers[i], errs[i] = driverAnswers(r.name, exec.Command(mono, r.args...), lines)
			t.Logf("%s ran in %v", r.name, time.Since(start))
		}()
	}
	wg.Wait()
	for i, r := range runs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		compareClient(t, r.name, c, answers[i], r.quiets)
	}
}

// TestCSharpGoldenCompiles compiles the golden C# files together (one in
// the global namespace, the others in namespaces of their own, each with
// its own runtime) with mcs as the generated code must build, and runs a
// program that checks their fingerprint constants against Go's and
// round-trips a player.
func TestCSharpGoldenCompiles(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	mono := requireTool(t, "mono", "C#")
	sources := map[string][]byte{}
	for _, name := range []string{"player.cs", "envelope.cs", "loadout.cs", "stamps.cs"} {
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
	sources["main.cs"] = []byte(fmt.Sprintf(`static class Program
{
    static int Main()
    {
        Player p;
        string error;
        if (!Player.TryRead(new byte[] { %s }, out p, out error))
        {
            System.Console.WriteLine(error);
            return 1;
        }
        byte[] again;
        p.TryWrite(out again, out error);
        System.Console.WriteLine(Player.Fingerprint.ToString("x8") + " " + Game.Net.Envelope.Fingerprint.ToString("x8") + " " +
            p.Health + " " + p.Pos.X.ToString(System.Globalization.CultureInfo.InvariantCulture) + " " + p.Name + " " + System.BitConverter.ToString(again));
        return 0;
    }
}
`, csBytes(packet)))
	exe := filepath.Join(t.TempDir(), "golden.exe")
	csCompile(t, sources, exe)
	out, err := exec.Command(mono, exe).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := fmt.Sprintf("%08x %08x 1000 1.5 ada %s\n", fpPlayer, fpEnvelope, strings.ToUpper(strings.Join(hexBytes(packet), "-")))
	if string(out) != want {
		t.Errorf("golden C# printed %q, want %q", out, want)
	}
}

func csBytes(p []byte) string {
	var parts []string
	for _, b := range p {
		parts = append(parts, strconv.Itoa(int(b)))
	}
	return strings.Join(parts, ", ")
}

func hexBytes(p []byte) []string {
	var parts []string
	for _, b := range p {
		parts = append(parts, fmt.Sprintf("%02x", b))
	}
	return parts
}

// csDeltaCases adds to the C# cases the delta commands' functions: for each
// table type, ApplyDelta (TryReadDelta, checked against the stream-level
// ReadDelta and Finish, and the base checked untouched) writing the result
// back, and WriteDelta (TryWriteDelta, checked against the stream-level
// WriteDelta, and the delta read back to the value). The checks compare
// C#'s own encodings, which quiet the same signalling NaNs alike.
func csDeltaCases(b *strings.Builder, c *corpus, e *csharp.Emitter) {
	p := func(format string, args ...any) { fmt.Fprintf(b, "        "+format+"\n", args...) }
	for _, fn := range []string{"ApplyDelta", "WriteDelta"} {
		p("static string %s(int type, byte[] b, byte[] p)\n        {\n            switch (type)\n            {", fn)
		for k := range c.m.Roots {
			p("    case %d: return %s%d(b, p);", k, fn, k)
		}
		p("}\n            return \"BADTYPE\";\n        }\n")
	}
	for k, r := range c.m.Roots {
		name, goName := e.TypeName(r), code.Quote(r.Go.String())
		p(`static string ApplyDelta%[1]d(byte[] bp, byte[] d)
        {
            %[2]s b, v, v2;
            string error;
            if (!%[2]s.TryRead(bp, out b, out error))
                return "BADBASE " + error;
            string before = Enc%[1]d(b); // a base may hold a value its hook cannot write
            BitpackReader r = new BitpackReader(d);
            bool ok = %[2]s.ReadDelta(ref r, b, out v) && r.Finish();
            if (%[2]s.TryReadDelta(d, b, out v2, out error) != ok || (!ok && error != r.Error(%[3]s)) || (!ok && v2 != null))
                return "INCONSISTENT " + error;
            if (Enc%[1]d(b) != before)
                return "BASE CHANGED";
            string into = Into%[1]d(bp, d, b, ok ? v2 : null, error);
            if (into != null)
                return into;
            if (!ok)
                return Refused(r.ErrorKind, r.ErrorPath, r.ErrorBit, error);
            return Write%[1]d(v2);
        }

        static %[2]s last%[1]d = new %[2]s(); // the last delta's result: a value of another shape to read into

        // Into%[1]d checks TryReadDelta into a value against TryReadDelta's
        // verdict (want: the value, or null with the error): into a value
        // holding the last result, and into a copy of the base itself.
        static string Into%[1]d(byte[] bp, byte[] d, %[2]s b, %[2]s want, string error)
        {
            %[2]s other = last%[1]d, self;
            string e, none, before = Enc%[1]d(other), baseBefore = Enc%[1]d(b);
            byte[] within = Within(d);
            if (%[2]s.TryReadDelta(within, 5, d.Length, b, other, out e) != (want != null) || e != error)
                return "INCONSISTENT into a value " + e;
            string got = Enc%[1]d(other);
            if (want == null ? got != before : got != Enc%[1]d(want))
                return "INTO A VALUE " + (want == null ? "CHANGED" : "DIFFERS") + " " + got;
            if (Enc%[1]d(b) != baseBefore)
                return "INTO A VALUE: BASE CHANGED";
            if (!%[2]s.TryRead(bp, out self, out none))
                return "BADBASE " + none;
            if (%[2]s.TryReadDelta(new global::System.ArraySegment<byte>(d), self, self, out e) != (want != null) || e != error)
                return "INCONSISTENT into its base " + e;
            if (Enc%[1]d(self) != (want == null ? baseBefore : Enc%[1]d(want)))
                return "INTO ITS BASE " + (want == null ? "CHANGED" : "DIFFERS") + " " + Enc%[1]d(self);
            if (want != null)
                last%[1]d = want.Clone();
            return null;
        }

        // Enc%[1]d is v's full encoding, or its refusal.
        static string Enc%[1]d(%[2]s v)
        {
            byte[] p;
            string e;
            return v.TryWrite(out p, out e) ? Hex(p) : "UNWRITABLE " + e;
        }

        static string WriteDelta%[1]d(byte[] bp, byte[] vp)
        {
            %[2]s b, v, back;
            string error;
            if (!%[2]s.TryRead(bp, out b, out error) || !%[2]s.TryRead(vp, out v, out error))
                return "BADVALUE " + error;
            BitpackWriter w = new BitpackWriter(16);
            bool ok = v.WriteDelta(ref w, b);
            byte[] packet, again, direct;
            if (v.TryWriteDelta(b, out packet, out error) != ok || (!ok && error != w.Error(%[3]s)) || (ok && !Same(packet, w)))
                return "INCONSISTENT " + error;
            string into = IntoBuffer(ok, packet, error, delegate(byte[] buf, int at, int n, out int written, out string e) { return v.TryWriteDelta(b, buf, at, n, out written, out e); });
            if (into != null)
                return into;
            if (!ok)
                return Refused(w.ErrorKind, w.ErrorPath, -1, error);
            if (!%[2]s.TryReadDelta(packet, b, out back, out error) || !back.TryWrite(out again, out error) ||
                !v.TryWrite(out direct, out error) || Hex(again) != Hex(direct))
                return "NO ROUND TRIP " + Hex(packet) + " " + error;
            return "OK " + Hex(packet);
        }
`, k, name, goName)
	}
}

// TestCSharpDeltas runs the delta corpus (docs/wire.md, Delta encoding:
// deltas applied to bases, good, damaged and random, and values' deltas
// written against bases) through the generated C#'s TryReadDelta and
// TryWriteDelta, under mono as it is and with -O=-float32, with the same
// driver as TestCSharpCrossLanguage: every answer must be Go's, refusals
// word for word.
func TestCSharpDeltas(t *testing.T) {
	if raceEnabled {
		t.Skip("the C# side does not change under Go's race detector; the plain run covers it")
	}
	t.Parallel() // each language's process runs beside another's: two cores
	mono := requireTool(t, "mono", "C#")
	requireTool(t, "mcs", "C#")
	c := sharedDeltaCorpus(t)
	exe := csDriver(t)
	lines := c.lines()
	for _, r := range []struct {
		name string
		args []string
	}{
		{"mono", []string{exe}},
		{"mono -O=-float32", []string{"-O=-float32", exe}},
	} {
		answers, err := driverAnswers(r.name, exec.Command(mono, r.args...), lines)
		if err != nil {
			t.Fatal(err)
		}
		compareClient(t, r.name, c, answers, true)
	}
}

package gen

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The words of a time.Time's refusal in the runtimes that word one (C#,
// TypeScript, Rust): the time a count of units stands for, as Go's
// Time.String prints it in UTC, called directly with counts and units at
// the edges of Go's calendar and of int64, and held to Go's own String.
// (The cross-language corpus holds whole refusals to Go's, on fewer
// times.)

// timeRule holds a time, so that a generated runtime carries the words.
type timeRule struct {
	T time.Time `bits:"unit=1s,range=0..1"`
}

// calendarStart is the Unix second of Go's calendar's first day,
// -292277022400-03-01: a year that is a multiple of 400, as 2000 is, so
// whole 400-year cycles of 146097 days before 2000-03-01. (time.Date cannot
// take that year where int is 32 bits; TestCalendarStart checks it where it
// is 64.)
var calendarStart = time.Date(2000, time.March, 1, 0, 0, 0, 0, time.UTC).Unix() - (2000+292277022400)/400*146097*86400

func TestCalendarStart(t *testing.T) {
	if strconv.IntSize != 64 {
		t.Skip("time.Date takes the year as an int, 32 bits here")
	}
	year := int64(-292277022400)
	if want := time.Date(int(year), time.March, 1, 0, 0, 0, 0, time.UTC).Unix(); calendarStart != want {
		t.Fatalf("calendarStart = %d, time.Date gives %d", calendarStart, want)
	}
}

// timeWordProbes are counts and units: Unix seconds at the ends of
// time.Time, of Go's calendar (whose first day, -292277022400-03-01, is
// Unix second calendarStart, before which it wraps around 2^64 seconds),
// of year 0 and of four-digit years, around 2^53 and int64's ends, in
// units from 1ns to math.MaxInt64 ns (dividing a second, its multiples,
// neither), and random ones.
func timeWordProbes() []struct{ units, unit int64 } {
	latest := math.MaxInt64 + time.Time{}.Unix()
	seconds := []int64{0, 1, -1, math.MinInt64, math.MinInt64 + 1, math.MaxInt64, math.MaxInt64 - 1, latest, latest + 1, latest - 1,
		calendarStart, calendarStart - 1, calendarStart + 1, calendarStart - 86400, -62135596800, -62135596801, -62167219200, -62167219201,
		253402300799, 253402300800, 1 << 53, -(1 << 53), 1<<53 + 1, 4102444800, 951782400, 951868800, -2203891200}
	units := []int64{1, 2, 3, 7, 999, 1000, 1_000_000, 999_999_999, 1_000_000_000, 1_000_000_001, 1_500_000_000,
		int64(time.Hour), 86400 * int64(time.Second), 1 << 62, math.MaxInt64, 999_999_999_999}
	var out []struct{ units, unit int64 }
	for _, s := range seconds {
		for _, u := range units {
			// The count nearest s seconds in units of u, and its neighbours.
			k := new(big.Int).Mul(big.NewInt(s), big.NewInt(int64(time.Second)))
			k.Quo(k, big.NewInt(u))
			if !k.IsInt64() {
				continue
			}
			for _, d := range []int64{-1, 0, 1} {
				if n := k.Int64() + d; (d < 0) == (n < k.Int64()) {
					out = append(out, struct{ units, unit int64 }{n, u})
				}
			}
		}
	}
	r := rand.New(rand.NewSource(53))
	for range 2000 {
		u := units[r.Intn(len(units))]
		if r.Intn(3) == 0 {
			u = 1 + r.Int63n(1<<uint(r.Intn(63)))
		}
		out = append(out, struct{ units, unit int64 }{int64(r.Uint64()) >> uint(r.Intn(64)), u})
	}
	return out
}

// timeWordsSection is what Go says for each probe: the time the count
// stands for (computed with math/big) as time.Time's String prints it in
// UTC, or "count × unit" where it is no time.Time's.
func timeWordsSection() ruleSection {
	var r ruleSection
	latest := math.MaxInt64 + time.Time{}.Unix()
	for _, p := range timeWordProbes() {
		ns := new(big.Int).Mul(big.NewInt(p.units), big.NewInt(p.unit))
		sec, nsec := new(big.Int).DivMod(ns, big.NewInt(int64(time.Second)), new(big.Int)) // Euclidean: floored
		want := fmt.Sprintf("%d × %s", p.units, time.Duration(p.unit))
		if sec.IsInt64() && sec.Int64() <= latest {
			want = time.Unix(sec.Int64(), nsec.Int64()).UTC().String()
		}
		r.add(want, "%d units of %d ns", p.units, p.unit)
	}
	return r
}

// TestTimeWordsCSharp: Bitpack.TimeText.
func TestTimeWordsCSharp(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	mono := requireTool(t, "mono", "C#")
	var file bytes.Buffer
	if err := CSharp(&file, Options{}, timeRule{}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("public static class Probe\n{\n    static readonly long[] Counts = {")
	for _, p := range timeWordProbes() {
		fmt.Fprintf(&b, "%s, %s, ", csLongLit(p.units), csLongLit(p.unit))
	}
	b.WriteString("};\n    static readonly string[] Units = {")
	for _, p := range timeWordProbes() {
		fmt.Fprintf(&b, "%q, ", time.Duration(p.unit).String())
	}
	b.WriteString("};\n\n    public static void Main()\n    {\n        var o = System.Console.Out;\n")
	b.WriteString("        for (int i = 0; i < Units.Length; i++)\n            o.WriteLine(Bitpack.TimeText(Counts[2 * i], Counts[2 * i + 1], Units[i]));\n    }\n}\n")
	checkRules(t, "C#", csProbe(t, mono, file.Bytes(), b.String()), timeWordsSection())
}

// TestTimeWordsTypeScript: timeText.
func TestTimeWordsTypeScript(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	tsc := requireTSC(t)
	node := requireTool(t, "node", "TypeScript")
	var module bytes.Buffer
	if err := TypeScript(&module, Options{}, timeRule{}); err != nil {
		t.Fatal(err)
	}
	module.WriteString("export { timeText };\n") // for the probes
	var b strings.Builder
	b.WriteString("import { timeText } from \"./rules.js\";\n\ndeclare const console: { log(s: string): void };\nconst probes: [bigint, bigint, string][] = [\n")
	for _, p := range timeWordProbes() {
		fmt.Fprintf(&b, "  [%dn, %dn, %q],\n", p.units, p.unit, time.Duration(p.unit).String())
	}
	b.WriteString("];\nconsole.log(probes.map(([units, unit, text]) => timeText(units, unit, text)).join(\"\\n\"));\n")
	checkRules(t, "TypeScript", tsProbe(t, tsc, node, module.Bytes(), b.String()), timeWordsSection())
}

// TestTimeWordsRust: wire::time_text.
func TestTimeWordsRust(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	rustc := requireRustc(t)
	var module bytes.Buffer
	if err := Rust(&module, Options{}, timeRule{}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	// The probes as data and one loop: a println! per probe took rustc
	// ten times as long.
	b.WriteString("#![deny(warnings)]\nmod rules;\n\nconst PROBES: &[(i128, i128, &str)] = &[\n")
	for _, p := range timeWordProbes() {
		fmt.Fprintf(&b, "    (%d, %d, %q),\n", p.units, p.unit, time.Duration(p.unit).String())
	}
	b.WriteString("];\n\nfn main() {\n    for &(units, unit, text) in PROBES {\n        println!(\"{}\", rules::wire::time_text(units, unit, text));\n    }\n}\n")
	checkRules(t, "Rust", rustProbe(t, rustc, module.Bytes(), b.String()), timeWordsSection())
}

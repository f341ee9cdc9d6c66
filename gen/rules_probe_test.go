package gen

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/rules"
)

// The rules each runtime writes in its own code (unit= rounding, the
// delta short form's width, the quaternion tolerance, string validity,
// the allowances' rounding of an allocation),
// called directly with values at their edges and held to the Go
// definitions: package rules' functions, and bitpack's verdicts for the
// rest. (The cross-language suites check them on random values.)

type (
	quatRule struct {
		Q [4]float32 `bits:"quat,bits=9"`
	}
	textRule struct {
		S string `bits:"maxlen=16"`
	}
)

// unitProbes are unit= divisions: values at the halves, negative and
// positive, and near the ends of int64.
var unitProbes = []struct{ v, u int64 }{
	{15, 10}, {14, 10}, {-15, 10}, {-14, 10}, {-16, 10}, {5, 10}, {-5, 10}, {4, 10}, {-4, 10},
	{1, 2}, {-1, 2}, {3, 2}, {-3, 2}, {7, 3}, {-7, 3}, {8, 3}, {-8, 3}, {0, 1000},
	{1500, 1000}, {-1500, 1000}, {2499, 1000}, {-2500, 1000},
	{math.MaxInt64, 10}, {math.MinInt64, 10}, {math.MaxInt64, 2}, {math.MinInt64 + 1, 3}, {math.MaxInt32, 1000000},
}

// uunitProbes are the unsigned ones.
var uunitProbes = []struct{ v, u uint64 }{
	{15, 10}, {14, 10}, {5, 10}, {4, 10}, {1, 2}, {3, 2}, {7, 3}, {8, 3}, {0, 7},
	{math.MaxUint64, 10}, {math.MaxUint64, 2}, {math.MaxUint64 - 1, 3}, {math.MaxUint32, 1000},
}

// quatProbes are quaternions whose squared norm lies just inside and just
// outside the tolerance, the zero value, and ones not finite.
func quatProbes() [][4]float32 {
	var out [][4]float32
	for _, d := range []float64{0, 0.009, 0.0099, 0.0101, 0.011, -0.009, -0.0099, -0.0101, -0.011, 0.5} {
		s := float32(math.Sqrt(1 + d))
		out = append(out, [4]float32{s, 0, 0, 0}, [4]float32{0.5 * s, 0.5 * s, 0.5 * s, 0.5 * s})
	}
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	return append(out, [4]float32{}, [4]float32{inf, 0, 0, 0}, [4]float32{nan, 0, 0, 1}, [4]float32{0, 0, 0, 2})
}

// textProbes are byte strings Go's UTF-8 check and NUL rule judge.
var textProbes = []string{
	"", "abc", "a\x00b", "\x00", "é", "\xc3", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xed\xa0\x80",
	"\xed\x9f\xbf", "\xee\x80\x80", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80",
	"\x80", "ab\xff", "\xe2\x82", "\xe2\x82\xac",
}

// allocProbes are sizes of allocations the allowances round (Go's size
// classes): each side of 16, of every step up to 32 KiB's page rule, and
// far up to where a double still holds the result.
var allocProbes = []int64{-1, 0, 1, 15, 16, 17, 24, 25, 31, 32, 33, 47, 48, 49, 63, 64, 65, 1000, 4095, 4096, 4097,
	24576, 24577, 32767, 32768, 32769, 40000, 40960, 1 << 30, 1<<40 + 1, rules.MaxFigure - 8193}

// A rule section is what a probe program prints for one rule: a line per
// probe, each with its name and Go's answer.
type ruleSection struct {
	names, want []string
}

func (r *ruleSection) add(want, format string, args ...any) {
	r.want = append(r.want, want)
	r.names = append(r.names, fmt.Sprintf(format, args...))
}

// unitsSection is the rounded units of each probe (small: only those of
// 32-bit values).
func unitsSection(small bool) ruleSection {
	var r ruleSection
	for _, p := range unitProbes {
		if !small || p.v >= math.MinInt32 && p.v <= math.MaxInt32 {
			r.add(fmt.Sprint(int64(rules.UnitsSigned(p.v, p.u))), "UnitsSigned(%d, %d)", p.v, p.u)
		}
	}
	for _, p := range uunitProbes {
		if !small || p.v <= math.MaxInt32 {
			r.add(fmt.Sprint(rules.UnitsUnsigned(p.v, p.u)), "UnitsUnsigned(%d, %d)", p.v, p.u)
		}
	}
	return r
}

// shortSection is the short form's width of 0 to 64 bits.
func shortSection() ruleSection {
	var r ruleSection
	for b := 0; b <= 64; b++ {
		r.add(fmt.Sprint(rules.ShortBits(b)), "ShortBits(%d)", b)
	}
	return r
}

// quatSection and textSection are 1 or 0 for each quaternion and string
// Go encodes or refuses.
func quatSection() ruleSection {
	var r ruleSection
	for _, q := range quatProbes() {
		_, err := bitpack.Marshal(&quatRule{Q: q})
		r.add(verdict(err == nil), "quaternion %v encodes", q)
	}
	return r
}

func textSection() ruleSection {
	var r ruleSection
	for _, s := range textProbes {
		_, err := bitpack.Marshal(&textRule{S: s})
		r.add(verdict(err == nil), "string %q is valid", s)
	}
	return r
}

// allocSection is Go's rounding of each allocation probe.
func allocSection() ruleSection {
	var r ruleSection
	for _, n := range allocProbes {
		r.add(fmt.Sprint(rules.RoundAlloc(n)), "RoundAlloc(%d)", n)
	}
	return r
}

func verdict(ok bool) string {
	if ok {
		return "1"
	}
	return "0"
}

// checkRules compares a probe program's output with its sections, in
// order, naming each probe whose answer is not Go's.
func checkRules(t *testing.T, lang, out string, sections ...ruleSection) {
	t.Helper()
	var names, want []string
	for _, r := range sections {
		names, want = append(names, r.names...), append(want, r.want...)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("%s printed %d lines, want %d:\n%s", lang, len(got), len(want), out)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: %s = %s, Go's rule says %s", lang, names[i], got[i], want[i])
		}
	}
}

// f32hex is a float's bits as a C-family literal.
func f32hex(f float32) string { return fmt.Sprintf("%#08x", math.Float32bits(f)) }

// byteList is s's bytes, comma-separated.
func byteList(s string) string {
	var parts []string
	for i := 0; i < len(s); i++ {
		parts = append(parts, fmt.Sprint(s[i]))
	}
	return strings.Join(parts, ", ")
}

// TestRuleProbesCPP: the C++ runtime's copies (SignedField and
// UnsignedField's rounding, delta_short, quat_encodable, text_ok).
func TestRuleProbesCPP(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	gxx := requireCompiler(t)
	dir := t.TempDir()
	var h bytes.Buffer
	if err := CPP(&h, Options{Include: "minserialize.h"}, ruleProbe{}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <inttypes.h>\n#include \"rules.h\"\n\n")
	b.WriteString("static uint64_t le64( const uint8_t * p )\n{\n    uint64_t v = 0;\n    for ( int i = 7; i >= 0; i-- )\n        v = v << 8 | p[i];\n    return v;\n}\n\n")
	b.WriteString("int main()\n{\n    uint64_t code;\n    uint8_t buffer[16];\n")
	for _, p := range unitProbes {
		fmt.Fprintf(&b, "    bitpack::SignedField( INT64_MIN, INT64_MAX, 64, 0, %s, false ).code( int64_t( %s ), code );\n", cppIntLit(p.u), cppIntLit(p.v))
		b.WriteString("    printf( \"%\" PRId64 \"\\n\", int64_t( code + uint64_t( INT64_MIN ) ) );\n")
	}
	for _, p := range uunitProbes {
		fmt.Fprintf(&b, "    bitpack::UnsignedField( 0, UINT64_MAX, 64, UINT64_C( %d ), false ).code( uint64_t( UINT64_C( %d ) ), code );\n", p.u, p.v)
		b.WriteString("    printf( \"%\" PRIu64 \"\\n\", code );\n")
	}
	// The serialize path (signed_units, unsigned_units), a copy of its own.
	for _, p := range unitProbes {
		fmt.Fprintf(&b, "    { int64_t v = %s; serialize::WriteStream s( buffer, 16 ); bitpack::signed_units( s, v, INT64_MIN, INT64_MAX, 64, 0, %s, false ); s.Flush();\n", cppIntLit(p.v), cppIntLit(p.u))
		b.WriteString("      printf( \"%\" PRId64 \"\\n\", int64_t( le64( buffer ) + uint64_t( INT64_MIN ) ) ); }\n")
	}
	for _, p := range uunitProbes {
		fmt.Fprintf(&b, "    { uint64_t v = UINT64_C( %d ); serialize::WriteStream s( buffer, 16 ); bitpack::unsigned_units( s, v, 0, UINT64_MAX, 64, UINT64_C( %d ), false ); s.Flush();\n", p.v, p.u)
		b.WriteString("      printf( \"%\" PRIu64 \"\\n\", le64( buffer ) ); }\n")
	}
	b.WriteString("    for ( int n = 0; n <= 64; n++ )\n        printf( \"%d\\n\", bitpack::delta_short( n ) );\n")
	for _, q := range quatProbes() {
		fmt.Fprintf(&b, "    { const float q[4] = { bitpack::float_of_bits( %su ), bitpack::float_of_bits( %su ), bitpack::float_of_bits( %su ), bitpack::float_of_bits( %su ) };\n", f32hex(q[0]), f32hex(q[1]), f32hex(q[2]), f32hex(q[3]))
		b.WriteString("      printf( \"%d\\n\", bitpack::quat_encodable( q ) ? 1 : 0 ); }\n")
	}
	for _, s := range textProbes {
		fmt.Fprintf(&b, "    { const uint8_t p[] = { %s0 }; printf( \"%%d\\n\", bitpack::text_ok( p, %d ) ? 1 : 0 ); }\n", byteListComma(s), len(s))
	}
	for _, n := range allocProbes {
		fmt.Fprintf(&b, "    printf( \"%%\" PRId64 \"\\n\", bitpack::round_alloc( %s ) );\n", cppIntLit(n))
	}
	b.WriteString("    return 0;\n}\n")
	min, err := os.ReadFile(filepath.Join("testdata", "minserialize.h"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string][]byte{"minserialize.h": min, "rules.h": h.Bytes(), "probe.cpp": []byte(b.String())} {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "probe")
	if out, err := exec.Command(gxx, "-std=c++11", "-O2", "-Wall", "-Wextra", "-Werror", "-o", exe, filepath.Join(dir, "probe.cpp")).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, tail(string(out), 4000))
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	checkRules(t, "C++", string(out), unitsSection(false), unitsSection(false), shortSection(), quatSection(), textSection(), allocSection())
}

func cppIntLit(v int64) string {
	if v == math.MinInt64 {
		return "INT64_MIN"
	}
	return fmt.Sprintf("INT64_C( %d )", v)
}

func byteListComma(s string) string {
	if s == "" {
		return ""
	}
	return byteList(s) + ", "
}

// TestRuleProbesCSharp: the C# runtime's copies (Bitpack.Units, UnitsU,
// ShortBits, QuatProblem, TextProblem).
func TestRuleProbesCSharp(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	mono := requireTool(t, "mono", "C#")
	var file bytes.Buffer
	if err := CSharp(&file, Options{}, ruleProbe{}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("public static class Probe\n{\n    public static void Main()\n    {\n        var o = System.Console.Out;\n")
	for _, p := range unitProbes {
		fmt.Fprintf(&b, "        o.WriteLine(Bitpack.Units(%s, %dL));\n", csLongLit(p.v), p.u)
	}
	for _, p := range uunitProbes {
		fmt.Fprintf(&b, "        o.WriteLine(Bitpack.UnitsU(%dUL, %dUL));\n", p.v, p.u)
	}
	b.WriteString("        for (int n = 0; n <= 64; n++)\n            o.WriteLine(Bitpack.ShortBits(n));\n")
	for _, q := range quatProbes() {
		fmt.Fprintf(&b, "        o.WriteLine(Bitpack.QuatProblem(Bitpack.Float32FromBits(%su), Bitpack.Float32FromBits(%su), Bitpack.Float32FromBits(%su), Bitpack.Float32FromBits(%su)) == null ? 1 : 0);\n", f32hex(q[0]), f32hex(q[1]), f32hex(q[2]), f32hex(q[3]))
	}
	for _, s := range textProbes {
		fmt.Fprintf(&b, "        o.WriteLine(Bitpack.TextProblem(new byte[] { %s}, 0, %d) == null ? 1 : 0);\n", byteListComma(s), len(s))
	}
	for _, n := range allocProbes {
		fmt.Fprintf(&b, "        o.WriteLine(BitpackReader.RoundAlloc(%s));\n", csLongLit(n))
	}
	b.WriteString("    }\n}\n")
	out := csProbe(t, mono, file.Bytes(), b.String())
	checkRules(t, "C#", out, unitsSection(false), shortSection(), quatSection(), textSection(), allocSection())
}

func csLongLit(v int64) string {
	if v == math.MinInt64 {
		return "long.MinValue"
	}
	return fmt.Sprintf("%dL", v)
}

// TestRuleProbesTypeScript: the TypeScript runtime's copies (BitWriter's
// writeUnitsBig, quatProblem, textProblem; its deltas take the short
// form's width from the generator, which takes it from package rules).
func TestRuleProbesTypeScript(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	tsc := requireTSC(t)
	node := requireTool(t, "node", "TypeScript")
	var module bytes.Buffer
	if err := TypeScript(&module, Options{}, ruleProbe{}); err != nil {
		t.Fatal(err)
	}
	// The probes reach the module's own functions through an export the
	// test adds.
	module.WriteString("export { quatProblem, textProblem };\n")
	var b strings.Builder
	b.WriteString(`import { BitReader, BitWriter, float32FromBits, quatProblem, roundAlloc, textProblem } from "./rules.js";

declare const console: { log(s: string): void };
const lines: string[] = [];
function units(value: bigint, signed: boolean, unit: bigint): string {
  const w = new BitWriter(16);
  const min = signed ? -(1n << 63n) : 0n;
  const max = signed ? (1n << 63n) - 1n : (1n << 64n) - 1n;
  if (!w.writeUnitsBig(value, signed, min, max, 64, 0n, unit, false, String(unit), false)) {
    return "refused";
  }
  const code = new BitReader(w.bytes()).readBig(64);
  return String(signed ? BigInt.asIntN(64, code + min) : code);
}
function small(value: number, signed: boolean, unit: number): string {
  const w = new BitWriter(16);
  const min = signed ? -0x80000000 : 0;
  const max = signed ? 0x7fffffff : 0xffffffff;
  if (!w.writeUnits(value, min, max, min, max, 32, 0, unit, false, String(unit))) {
    return "refused";
  }
  return String(new BitReader(w.bytes()).readBits(32) + min);
}
`)
	for _, p := range unitProbes {
		fmt.Fprintf(&b, "lines.push(units(%dn, true, %dn));\n", p.v, p.u)
	}
	for _, p := range uunitProbes {
		fmt.Fprintf(&b, "lines.push(units(%dn, false, %dn));\n", p.v, p.u)
	}
	// The 32-bit path (writeUnits), a copy of its own.
	for _, p := range unitProbes {
		if p.v >= math.MinInt32 && p.v <= math.MaxInt32 {
			fmt.Fprintf(&b, "lines.push(small(%d, true, %d));\n", p.v, p.u)
		}
	}
	for _, p := range uunitProbes {
		if p.v <= math.MaxInt32 {
			fmt.Fprintf(&b, "lines.push(small(%d, false, %d));\n", p.v, p.u)
		}
	}
	for _, q := range quatProbes() {
		fmt.Fprintf(&b, "lines.push(quatProblem(float32FromBits(%s), float32FromBits(%s), float32FromBits(%s), float32FromBits(%s)) === \"\" ? \"1\" : \"0\");\n", f32hex(q[0]), f32hex(q[1]), f32hex(q[2]), f32hex(q[3]))
	}
	for _, s := range textProbes {
		fmt.Fprintf(&b, "lines.push(textProblem(new Uint8Array([%s]), 0, %d) === \"\" ? \"1\" : \"0\");\n", byteList(s), len(s))
	}
	for _, n := range allocProbes {
		fmt.Fprintf(&b, "lines.push(String(roundAlloc(%d)));\n", n)
	}
	b.WriteString("console.log(lines.join(\"\\n\"));\n")
	out := tsProbe(t, tsc, node, module.Bytes(), b.String())
	checkRules(t, "TypeScript", out, unitsSection(false), unitsSection(true), quatSection(), textSection(), allocSection())
}

// TestRuleProbesRust: the Rust runtime's copies (Wire::code's unit=
// rounding, the quaternion rule through a generated type's write,
// text_problem, the allowances' round; its deltas take the short form's
// width from the generator, which takes it from package rules).
func TestRuleProbesRust(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	rustc := requireRustc(t)
	var module bytes.Buffer
	if err := Rust(&module, Options{}, quatRule{}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`#![deny(warnings)]
mod rules;
use rules::wire::{Op, Wire, S, S0};

// units is v (as the Go type's 64 bits) in units of unit, as a field of
// 64 bits whose range is the whole type's writes it.
fn units<T: Wire>(v: T, signed: bool, unit: i128) -> String {
    let (lo, hi) = if signed { (i64::MIN as i128, i64::MAX as i128) } else { (0, u64::MAX as i128) };
    let s = S { op: Op::Int, bits: 64, limit: u64::MAX, lo, hi, unit, signed, ..S0 };
    match v.code(&s) {
        Ok(c) if signed => ((c as i128 + lo) as i64).to_string(),
        Ok(c) => c.to_string(),
        Err(_) => "refused".into(),
    }
}

`)
	// The probes as data, each rule in one loop (a println! per probe
	// costs rustc far more than a table).
	b.WriteString("const SIGNED: &[(i64, i128)] = &[")
	for _, p := range unitProbes {
		fmt.Fprintf(&b, "(%d, %d), ", p.v, p.u)
	}
	b.WriteString("];\nconst UNSIGNED: &[(u64, i128)] = &[")
	for _, p := range uunitProbes {
		fmt.Fprintf(&b, "(%d, %d), ", p.v, p.u)
	}
	b.WriteString("];\nconst QUATS: &[[u32; 4]] = &[")
	for _, q := range quatProbes() {
		fmt.Fprintf(&b, "[%s, %s, %s, %s], ", f32hex(q[0]), f32hex(q[1]), f32hex(q[2]), f32hex(q[3]))
	}
	b.WriteString("];\nconst TEXTS: &[&[u8]] = &[")
	for _, s := range textProbes {
		fmt.Fprintf(&b, "&[%s], ", byteList(s))
	}
	b.WriteString("];\nconst ALLOCS: &[i128] = &[")
	for _, n := range allocProbes {
		fmt.Fprintf(&b, "%d, ", n)
	}
	b.WriteString(`];

fn main() {
    for &(v, unit) in SIGNED {
        println!("{}", units(v, true, unit));
    }
    for &(v, unit) in UNSIGNED {
        println!("{}", units(v, false, unit));
    }
    for q in QUATS {
        let q = [f32::from_bits(q[0]), f32::from_bits(q[1]), f32::from_bits(q[2]), f32::from_bits(q[3])];
        println!("{}", rules::quatRule { q }.write().is_ok() as u8);
    }
    for p in TEXTS {
        println!("{}", rules::wire::text_problem(p).is_none() as u8);
    }
    for &n in ALLOCS {
        println!("{}", rules::wire::round(n));
    }
}
`)
	out := rustProbe(t, rustc, module.Bytes(), b.String())
	checkRules(t, "Rust", out, unitsSection(false), quatSection(), textSection(), allocSection())
}

// A probe program is a generated module (rules) and a main (probe) that
// prints a line per probe; csProbe, tsProbe and rustProbe build one and
// return what it printed.

func csProbe(t *testing.T, mono string, module []byte, probe string) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "probe.exe")
	csCompile(t, map[string][]byte{"rules.cs": module, "probe.cs": []byte(probe)}, exe)
	out, err := exec.Command(mono, exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func tsProbe(t *testing.T, tsc, node string, module []byte, probe string) string {
	t.Helper()
	dir := t.TempDir()
	tsCompile(t, tsc, dir, map[string][]byte{"rules.ts": module, "probe.ts": []byte(probe)})
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, filepath.Join(dir, "out", "probe.js")).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func rustProbe(t *testing.T, rustc string, module []byte, probe string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string][]byte{"rules.rs": module, "probe.rs": []byte(probe)} {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "probe")
	if out, err := exec.Command(rustc, "--edition", "2021", "-o", exe, filepath.Join(dir, "probe.rs")).CombinedOutput(); err != nil {
		t.Fatalf("rustc: %v\n%s", err, tail(string(out), 4000))
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

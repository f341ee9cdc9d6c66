package gen

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack/internal/rules"
)

// The wire rules generated code repeats have one home, package rules;
// these tests hold every runtime's copy to it. (The cross-language suites
// check the same rules by behaviour: the table's QuatProbe and Units.)

// ruleProbe is a type whose generated code carries every rule.
type ruleProbe struct {
	Q [4]float32 `bits:"quat,bits=9"`
	S int32      `bits:"unit=10,range=-100..100"`
	U uint16     `bits:"unit=2,bits=8"`
}

// TestRuntimeRules: the quaternion tolerance each runtime checks against
// is the Go definition, written where each runtime's rule reads it, and
// generated Go's unit= rounding is package rules' own code.
func TestRuntimeRules(t *testing.T) {
	tol := strconv.FormatFloat(rules.QuatNormTolerance, 'g', -1, 64)
	for _, lang := range []struct {
		name string
		gen  func(w *bytes.Buffer) error
		want []string // the rule's sites, as the runtime's code reads them
	}{
		{"C++", func(w *bytes.Buffer) error { return CPP(w, Options{}, ruleProbe{}) },
			[]string{"// rounded, within " + tol + " of 1", "return d <= " + tol + " && d >= -" + tol + ";"}},
		{"C#", func(w *bytes.Buffer) error { return CSharp(w, Options{}, ruleProbe{}) },
			[]string{"a squared norm more than " + tol + " from 1", "if (global::System.Math.Abs(n2 - 1) <= " + tol + ")"}},
		{"TypeScript", func(w *bytes.Buffer) error { return TypeScript(w, Options{}, ruleProbe{}) },
			[]string{"more than " + tol + " from 1;", "if (Math.abs(n2 - 1) <= " + tol + ") {"}},
		{"Rust", func(w *bytes.Buffer) error { return Rust(w, Options{}, ruleProbe{}) },
			append([]string{"more than " + tol + " from 1;", "(n2 - 1.0).abs() <= " + tol + ";"}, rustAllowances()...)},
		{"Go", func(w *bytes.Buffer) error { return Go(w, Options{}, ruleProbe{}) },
			[]string{"// " + tol + " of its squared norm", "-1) <= " + tol + " {", goRuleFunc(t, "UnitsSigned"), goRuleFunc(t, "UnitsUnsigned")}},
	} {
		var out bytes.Buffer
		if err := lang.gen(&out); err != nil {
			t.Fatalf("%s: %v", lang.name, err)
		}
		text := out.String()
		if strings.Contains(text, "{{") {
			t.Errorf("%s: a rule's placeholder is left in the output", lang.name)
		}
		for _, w := range lang.want {
			if n := strings.Count(text, w); n != 1 {
				t.Errorf("%s: %q appears %d times, want once", lang.name, w, n)
			}
		}
	}
}

// rustAllowances are the Rust runtime's definitions of the allowances,
// each written once from package rules (TestRuleLiterals holds its code
// to using them), and its refusals' words for them.
func rustAllowances() []string {
	def := func(name string, v int64) string {
		return "const " + name + ": i128 = " + strconv.FormatInt(v, 10) + ";"
	}
	return []string{
		def("WORK_BASE", rules.WorkBaseValues), def("WORK_PER_BIT", rules.WorkValuesPerBit),
		def("BYTES_BASE", rules.AllocBaseBytes), def("BYTES_PER_BIT", rules.AllocBytesPerBit),
		def("OVERHEAD", rules.DecodeOverheadBytes), def("HOOK_CALL", rules.HookCallBytes),
		def("MAP_HEADER", rules.MapHeaderBytes), def("MAP_SLOT_FACTOR", rules.MapSlotFactor),
		def("SLOTS_PER_VALUE", rules.SlotsPerValue), def("SLOT_BYTES", rules.SlotBytes),
		def("SAT", rules.Saturated), def("FIGURE", rules.MaxFigure),
		// the words of Go's allowance.go, for a decode and a delta's write
		"values it may visit for this input (4096 plus 64 per bit): the packet",
		"values it may visit for this input (4096 plus 64 per bit): the delta",
		"bytes it may allocate for this input (1 MiB plus 64 bytes per bit)\", what, self.mmax",
	}
}

// goRuleFunc is function name of package rules as a generated Go file
// carries it: renamed bitpackName, its code unchanged.
func goRuleFunc(t *testing.T, name string) string {
	t.Helper()
	src := rules.UnitsSource
	start := strings.Index(src, "// "+name+" ")
	if start < 0 {
		t.Fatalf("package rules has no documented %s", name)
	}
	end := strings.Index(src[start:], "\n}\n")
	return strings.ReplaceAll(src[start:start+end+3], name, "bitpack"+name)
}

// rustRetyped matches what the Rust runtime would write if it retyped an
// allowance (package rules' numbers, as its code used them before they
// were emitted) instead of naming the emitted constant.
var rustRetyped = regexp.MustCompile(`\b(4096|1024|256)\b|1 << 20|1 MiB|\b64 \* b\b|as i128 \+ 7\) >> 3|round\(8 \* n\b|, 8, (start|pos)\)|\b5 \* n\b|\b10 \* slot\b|i64::MAX as i128 / 4|\(1 << 53\)`)

// TestRuleLiterals: no runtime, renderer or model file writes the
// quaternion tolerance itself (it takes it from package rules), and the
// Rust runtime writes no allowance's number (TestSnapwireLiterals holds
// it to internal/snapwire's).
func TestRuleLiterals(t *testing.T) {
	tol := strconv.FormatFloat(rules.QuatNormTolerance, 'g', -1, 64)
	err := filepath.WalkDir("internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") {
			return err
		}
		switch filepath.Ext(path) {
		case ".go", ".h", ".cs", ".ts", ".rs":
		default:
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, tol) {
				t.Errorf("%s:%d writes the quaternion tolerance %s: take it from package rules", path, i+1, tol)
			}
			if filepath.Ext(path) == ".rs" && rustRetyped.MatchString(line) {
				t.Errorf("%s:%d writes an allowance's number (%s): take it from package rules", path, i+1, rustRetyped.FindString(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

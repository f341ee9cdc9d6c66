package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// fence is one fenced block of the README: its info string ("go", "sh",
// "cpp", ""), its text, and the README line its first text line is on.
type fence struct {
	lang, text string
	line       int
}

func fences(doc string) []fence {
	var out []fence
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		f := fence{lang: strings.TrimPrefix(lines[i], "```"), line: i + 2}
		var body []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		f.text = strings.Join(body, "\n") + "\n"
		out = append(out, f)
	}
	return out
}

// prelude declares the README's opening types at package level, for the
// blocks that use them without declaring them (the opening block declares
// them inside its function, as a reader pasting it would). Each
// declaration must be in the README as written here.
var prelude = []struct{ name, src string }{
	{"Vec3", "type Vec3 struct{ X, Y, Z float32 }"},
	{"Quat", "type Quat struct{ X, Y, Z, W float32 } // a unit quaternion (x, y, z, w)"},
	{"Player", "type Player struct {\n" +
		"\tHealth int32  `bits:\"range=0..1000\"`                     // 10 bits\n" +
		"\tPos    Vec3   `bits:\"float,min=-1024,max=1024,res=0.01\"` // 3 × 18 bits\n" +
		"\tRot    Quat   `bits:\"quat,bits=9\"`                       // 29 bits\n" +
		"\tName   string `bits:\"maxlen=15\"`                         // 4 bits + align + bytes\n" +
		"\tAlive  bool                                              // 1 bit\n" +
		"}"},
}

// The packages a README block may use without importing them.
var knownImports = map[string]string{
	"bitpack": "github.com/bitpack-go/bitpack", "bitpacktest": "github.com/bitpack-go/bitpack/bitpacktest",
	"bitio": "github.com/bitpack-go/bitpack/bitio", "errors": "errors", "fmt": "fmt", "log": "log",
	"time": "time", "testing": "testing", "snapshot": "github.com/bitpack-go/bitpack/snapshot",
}

// goFile renders a block as a Go file of package snippets: imports for
// the packages it names, and a //line directive so that compile errors
// name the README's lines.
func goFile(body string, line int, asFunc string) string {
	var b strings.Builder
	b.WriteString("package snippets\n\n")
	var names []string
	for name := range knownImports {
		if regexp.MustCompile(`\b` + name + `\.`).MatchString(body) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(&b, "import %q\n", knownImports[name])
	}
	if asFunc != "" {
		fmt.Fprintf(&b, "\nfunc %s() {\n//line README.md:%d\n%s}\n", asFunc, line, body)
	} else {
		fmt.Fprintf(&b, "\n//line README.md:%d\n%s", line, body)
	}
	return b.String()
}

// topLevel reports whether a Go block is a list of declarations (types,
// methods, functions, package-level vars), and the names it declares.
func topLevel(body string) (bool, []string) {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+body, 0)
	if err != nil {
		return false, nil
	}
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil {
				names = append(names, d.Name.Name)
			}
		}
	}
	return true, names
}

// TestReadmeGoCompiles compiles every Go block of the README as one
// package: declaration blocks at package level (so their names must not
// repeat), every other block as the body of a function of its own — so
// each compiles when pasted into a function, given the README's opening
// types. A block with a package clause is an excerpt of a file in the
// repository instead (TestReadmeExcerpts).
func TestReadmeGoCompiles(t *testing.T) {
	doc := readme(t)
	for _, p := range prelude {
		mustQuote(t, doc, p.src)
	}
	files := map[string]string{}
	declared := map[string]int{}
	n := 0
	for _, f := range fences(doc) {
		if f.lang != "go" || strings.HasPrefix(f.text, "package ") {
			continue
		}
		n++
		name := fmt.Sprintf("block%02d.go", n)
		if ok, names := topLevel(f.text); ok {
			for _, d := range names {
				if l, dup := declared[d]; dup && d != "init" {
					t.Errorf("README.md:%d declares %s again (first at line %d)", f.line, d, l)
				}
				declared[d] = f.line
			}
			files[name] = goFile(f.text, f.line, "")
		} else {
			files[name] = goFile(f.text, f.line, fmt.Sprintf("readmeBlock%02d", n))
		}
	}
	if n < 5 {
		t.Fatalf("found only %d Go blocks in the README", n)
	}
	var pre strings.Builder
	for _, p := range prelude {
		if _, dup := declared[p.name]; !dup {
			pre.WriteString(p.src + "\n\n")
		}
	}
	files["prelude.go"] = "package snippets\n\n" + pre.String()
	buildOverlay(t, files)
}

// buildOverlay compiles files as the package internal/readmecheck/snippets,
// which exists only in a go build -overlay: nothing is written into the
// repository.
func buildOverlay(t *testing.T, files map[string]string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	overlay := map[string]map[string]string{"Replace": {}}
	for name, src := range files {
		real := filepath.Join(tmp, name)
		if err := os.WriteFile(real, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		overlay["Replace"][filepath.Join(root, "internal/readmecheck/snippets", name)] = real
	}
	js, err := json.Marshal(overlay)
	if err != nil {
		t.Fatal(err)
	}
	ov := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ov, js, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-overlay", ov, "./internal/readmecheck/snippets")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the README's Go blocks do not compile: %v\n%s", err, out)
	}
}

// excerptOf fails unless every blank-line-separated chunk of block appears
// in one of the files, its lines consecutive (indentation and trailing
// spaces aside).
func excerptOf(t *testing.T, f fence, paths ...string) {
	t.Helper()
	var sources []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, trimLines(string(b)))
	}
	for _, chunk := range strings.Split(strings.TrimSpace(f.text), "\n\n") {
		c := trimLines(chunk)
		found := false
		for _, s := range sources {
			found = found || strings.Contains("\n"+s+"\n", "\n"+c+"\n")
		}
		if !found {
			t.Errorf("README.md:%d: this chunk is not in %v:\n%s", f.line, paths, chunk)
		}
	}
}

func trimLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}

// TestReadmeExcerpts: the C++ client code and the Go package it is
// generated from are quoted from examples/cppclient, which TestClient
// compiles and runs.
func TestReadmeExcerpts(t *testing.T) {
	n := 0
	for _, f := range fences(readme(t)) {
		switch {
		case f.lang == "cpp":
			excerptOf(t, f, "../../examples/cppclient/cpp/client.cpp", "../../examples/cppclient/net.h")
		case f.lang == "go" && strings.HasPrefix(f.text, "package cppclient"):
			excerptOf(t, f, "../../examples/cppclient/net.go")
		case f.lang == "go" && strings.HasPrefix(f.text, "package "):
			t.Errorf("README.md:%d: a block with a package clause that is no known excerpt", f.line)
		default:
			continue
		}
		n++
	}
	if n < 2 {
		t.Errorf("checked %d excerpts, want the C++ client's and its Go package's", n)
	}
}

// TestReadmeTestNames: every test, fuzz target and benchmark the README
// names exists.
func TestReadmeTestNames(t *testing.T) {
	var src strings.Builder
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			src.Write(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile("`((?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*)`").FindAllStringSubmatch(readme(t), -1)
	if len(names) < 10 {
		t.Fatalf("found only %d test names in the README", len(names))
	}
	for _, m := range names {
		if !strings.Contains(src.String(), "func "+m[1]+"(") {
			t.Errorf("the README names %s, which no test file declares", m[1])
		}
	}
}

package rules

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// ruleSources are the definitions Version hashes: every declaration of
// a file (no names), or the named ones, in this order.
var ruleSources = []struct {
	file  string
	names []string
}{
	{"rules.go", nil},
	{"units.go", nil},
	{"time.go", nil},
	{"../../quant/float.go", nil},
	{"../../quant/float64.go", nil},
	{"../../quant/quat.go", nil},
	{"../../bitio/writer.go", []string{"stringProblem", "bytesProblem"}},
	{"../../bitio/text.go", nil},
	{"../../kind_quat.go", []string{"quatEncodable", "quatNorm2", "zeroQuat", "quatNormTolerance"}},
}

// TestVersion recomputes Version from the rules' code.
func TestVersion(t *testing.T) {
	h := fnv.New64a()
	for _, src := range ruleSources {
		code, err := declarations(src.file, src.names)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s\n%s\n", filepath.Base(src.file), code)
	}
	if got := h.Sum64(); got != Version {
		t.Errorf("the rules' definitions hash to %#016x, Version is %#016x: a rule changed, so set Version to the new hash (every generated Go file is then stale: regenerate them)", got, Version)
	}
}

// declarations prints the declarations of file (the named ones, or all),
// without comments, in the file's order.
func declarations(file string, names []string) ([]byte, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0) // no comments
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	found := map[string]bool{}
	for _, d := range f.Decls {
		if names != nil {
			name := declName(d)
			if !slices.Contains(names, name) {
				continue
			}
			found[name] = true
		}
		if err := printer.Fprint(&out, fset, d); err != nil {
			return nil, err
		}
		out.WriteByte('\n')
	}
	for _, n := range names {
		if !found[n] {
			return nil, fmt.Errorf("%s declares no %s (a rule moved? update ruleSources)", file, n)
		}
	}
	return out.Bytes(), nil
}

// declName is the name a declaration declares (its first, for a group).
func declName(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return d.Name.Name
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.ValueSpec:
				return s.Names[0].Name
			case *ast.TypeSpec:
				return s.Name.Name
			}
		}
	}
	return ""
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// An enum is a named integer type of the module and the constants its
// package declares of it, in declaration order, as gen.Enum takes them.
type enum struct {
	pkgPath, name string
	constants     []enumConstant
}

type enumConstant struct {
	name  string
	value int64 // an unsigned type's: the value's bits
}

// listed is what go list says of a package.
type listed struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	Export     string
	Standard   bool
	Module     *struct{ Path string }
	Error      *struct{ Err string }
}

// moduleEnums reads the constants of the named integer types of
// importPath and of every package of its module it depends on, from
// their source (reflection cannot see constants): go list names the
// packages and their files (and compiles the others, whose export data
// the type checker reads), go/parser and go/types read the module's.
func moduleEnums(importPath string) ([]enum, error) {
	cmd := exec.Command("go", "list", "-deps", "-export", "-json=ImportPath,Name,Dir,GoFiles,Export,Standard,Module,Error", importPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps -export %s: %v\n%s", importPath, err, stderr.String())
	}
	var pkgs []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list -deps -export %s: %v", importPath, err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	module := ""
	for _, p := range pkgs {
		if p.ImportPath == importPath && p.Module != nil {
			module = p.Module.Path
		}
	}
	if module == "" {
		return nil, fmt.Errorf("go list -deps %s: the package is in no module", importPath)
	}
	fset := token.NewFileSet()
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	imp := &moduleImporter{
		checked: map[string]*types.Package{},
		export: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			if f := exports[path]; f != "" {
				return os.Open(f)
			}
			return nil, fmt.Errorf("go list gave no export data for %s", path)
		}),
	}
	var enums []enum
	// go list -deps lists a package after the packages it imports, so the
	// module's are checked before their importers need them.
	for _, p := range pkgs {
		if p.Standard || p.Module == nil || p.Module.Path != module {
			continue
		}
		pkg, err := checkSource(fset, imp, p)
		if err != nil {
			return nil, err
		}
		imp.checked[p.ImportPath] = pkg
		enums = append(enums, packageEnums(fset, pkg)...)
	}
	return enums, nil
}

// moduleImporter gives the type checker the module's packages as
// checked from source, and the others from their export data.
type moduleImporter struct {
	checked map[string]*types.Package
	export  types.Importer
}

func (m *moduleImporter) Import(path string) (*types.Package, error) {
	if p, ok := m.checked[path]; ok {
		return p, nil
	}
	return m.export.Import(path)
}

// checkSource type-checks a package's Go files. A package go list built
// has no errors but what the checker cannot see (cgo): those are
// ignored, and the constants they touch are left out.
func checkSource(fset *token.FileSet, imp types.Importer, p listed) (*types.Package, error) {
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: imp, Error: func(error) {}}
	pkg, _ := conf.Check(p.ImportPath, fset, files, nil)
	return pkg, nil
}

// packageEnums lists pkg's named integer types that it declares
// constants of, with those constants in declaration order.
func packageEnums(fset *token.FileSet, pkg *types.Package) []enum {
	byType := map[*types.TypeName][]*types.Const{}
	var order []*types.TypeName
	scope := pkg.Scope()
	for _, n := range scope.Names() {
		c, ok := scope.Lookup(n).(*types.Const)
		if !ok || c.Name() == "_" || c.Val().Kind() != constant.Int {
			continue
		}
		named, ok := types.Unalias(c.Type()).(*types.Named)
		if !ok || named.Obj().Pkg() != pkg || named.TypeParams().Len() > 0 {
			continue
		}
		if b, ok := named.Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
			continue
		}
		if byType[named.Obj()] == nil {
			order = append(order, named.Obj())
		}
		byType[named.Obj()] = append(byType[named.Obj()], c)
	}
	before := func(a, b token.Pos) int {
		pa, pb := fset.Position(a), fset.Position(b)
		return cmpPosition(pa, pb)
	}
	slices.SortFunc(order, func(a, b *types.TypeName) int { return before(a.Pos(), b.Pos()) })
	var enums []enum
	for _, tn := range order {
		consts := byType[tn]
		slices.SortFunc(consts, func(a, b *types.Const) int { return before(a.Pos(), b.Pos()) })
		e := enum{pkgPath: pkg.Path(), name: tn.Name()}
		unsigned := tn.Type().Underlying().(*types.Basic).Info()&types.IsUnsigned != 0
		for _, c := range consts {
			var v int64
			if unsigned {
				u, _ := constant.Uint64Val(c.Val())
				v = int64(u)
			} else {
				v, _ = constant.Int64Val(c.Val())
			}
			e.constants = append(e.constants, enumConstant{name: c.Name(), value: v})
		}
		enums = append(enums, e)
	}
	return enums
}

func cmpPosition(a, b token.Position) int {
	if c := strings.Compare(a.Filename, b.Filename); c != 0 {
		return c
	}
	return a.Offset - b.Offset
}

// enumsLiteral is the Go expression of enums as a []gen.Enum.
func enumsLiteral(enums []enum) string {
	var b strings.Builder
	b.WriteString("[]gen.Enum{")
	for _, e := range enums {
		fmt.Fprintf(&b, "\n\t\t{PkgPath: %q, Name: %q, Constants: []gen.EnumConstant{", e.pkgPath, e.name)
		for i, c := range e.constants {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{Name: %q, Value: %d}", c.name, c.value)
		}
		b.WriteString("}},")
	}
	if len(enums) > 0 {
		b.WriteString("\n\t")
	}
	b.WriteString("}")
	return b.String()
}

// Command bitpack generates client code from the Go types a bitpack
// server already has.
//
//	bitpack gen -lang cpp [-o net.h] [-namespace game] [-include serialize.h] ./path/to/pkg TypeA [TypeB ...]
//	bitpack gen -lang cs [-o Net.cs] [-namespace Game.Net] ./path/to/pkg TypeA [TypeB ...]
//	bitpack gen -lang ts [-o net.ts] ./path/to/pkg TypeA [TypeB ...]
//	bitpack gen -lang go [-o bitpack_gen.go] ./path/to/pkg TypeA [TypeB ...]
//	bitpack gen -lang rust [-o net.rs] ./path/to/pkg TypeA [TypeB ...]
//
// writes one C++11 header with a serialize Serialize function for each
// named type and every type it reaches, one C# file (Unity), one
// TypeScript module (the browser) or one Rust module reading and writing
// them, or a Go file for the package itself whose straight-line code its
// Codecs then run (see package gen). Run it inside the Go module that
// holds the package (go run github.com/bitpack-go/bitpack/cmd/bitpack uses
// the bitpack version of that module's go.mod). It works the way
// reflect-mode generators do: it writes a small Go program into a
// temporary directory of the module, which imports the package and calls
// gen.CPP (gen.CSharp, gen.TypeScript, gen.Go, gen.Rust) on the named
// types, runs it with go run, and removes it. The compiled plan of the
// package's own bitpack is the only source of truth, and registered
// unions are there because the package's init functions ran.
//
// What reflection cannot see, it reads from the source first: the
// constants of the named integer types of the package and of the
// packages of its module it imports (go list, go/parser, go/types), which
// it passes to gen as Options.Enums. A field of such a type is then
// declared with an enum of its values' names in C++, C# and TypeScript
// (the wire is the integer's). To keep a type plain, declare its
// constants untyped or of its underlying type.
//
// Types declared in package main cannot be imported, so this command
// cannot reach them: move the types to a package of their own (usual for
// a protocol shared by a server and its tools), or generate from inside
// package main with a test that calls gen.CPP (or gen.CSharp,
// gen.TypeScript), as gen's README shows.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bitpack:", err)
		os.Exit(1)
	}
}

const usage = `usage: bitpack gen -lang cpp|cs|ts|go|rust [-o file] [-namespace ns] [-include header] package Type [Type ...]

Generates client code for the named Go types of package (an import path,
or a directory such as ./net), and every type they reach: a C++11 header of
serialize functions (cpp), a C# file for Unity (cs), a TypeScript module
for the browser (ts), a Rust module (rust), or a Go file for package itself
with straight-line encode and decode functions that its bitpack Codecs run
(go). Run it inside the Go module that holds the package.
`

// languages maps -lang to the gen function that writes it and the options
// it takes.
var languages = map[string]struct {
	fn                 string
	namespace, include bool
}{
	"cpp":  {"CPP", true, true},
	"cs":   {"CSharp", true, false},
	"ts":   {"TypeScript", false, false},
	"go":   {"Go", false, false},
	"rust": {"Rust", false, false},
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "gen" {
		fmt.Fprint(stderr, usage)
		return errors.New("the only command is gen")
	}
	fs := flag.NewFlagSet("bitpack gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	lang := fs.String("lang", "", "the language to generate: cpp, cs, ts, go or rust")
	out := fs.String("o", "", "the file to write (default: standard output)")
	namespace := fs.String("namespace", "", "cpp: the C++ namespace of the generated code (a::b allowed); cs: the C# namespace (A.B allowed)")
	include := fs.String("include", "", `cpp: the serialize header to #include (default "serialize.h")`)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil // -h asked for the usage, which Parse printed
		}
		return err
	}
	l, ok := languages[*lang]
	if !ok {
		return fmt.Errorf("-lang %q: the languages are cpp, cs, ts, go and rust", *lang)
	}
	if *namespace != "" && !l.namespace {
		return fmt.Errorf("-namespace does not apply to -lang %s", *lang)
	}
	if *include != "" && !l.include {
		return fmt.Errorf("-include does not apply to -lang %s", *lang)
	}
	fn := l.fn
	if fs.NArg() < 2 {
		fs.Usage()
		return errors.New("name a package and at least one type")
	}
	pkg, types := fs.Arg(0), fs.Args()[1:]
	for _, t := range types {
		if !token.IsIdentifier(t) {
			return fmt.Errorf("%q is not a Go type name", t)
		}
		if !token.IsExported(t) {
			return fmt.Errorf("type %s is not exported: the generator program imports %s and can only name exported types", t, pkg)
		}
	}
	target, err := locate(pkg, fn)
	if err != nil {
		return err
	}
	var opts string
	if *lang != "go" {
		enums, err := moduleEnums(target.importPath)
		if err != nil {
			return err
		}
		opts = fmt.Sprintf("gen.Options{Namespace: %q, Include: %q, Enums: %s}", *namespace, *include, enumsLiteral(enums))
	} else {
		opts = fmt.Sprintf("gen.Options{Package: %q}", target.name)
		if *out != "" {
			// The package is built with the file being replaced out of
			// the way: code generated before a field was renamed would
			// not compile.
			restore, err := setAside(*out)
			if err != nil {
				return err
			}
			defer restore()
		}
	}
	src := program(target.importPath, fn, opts, types)
	code, err := runProgram(target.moduleDir, src, stderr)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(code)
		return err
	}
	return writeFile(*out, code)
}

// target is the package to generate from.
type target struct {
	importPath string
	name       string // the package's name
	moduleDir  string // the main module's root, where the program is built
}

// locate resolves pkg with go list from the current directory.
func locate(pkg, fn string) (target, error) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Name}}", pkg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	listed, err := cmd.Output()
	if err != nil {
		return target{}, fmt.Errorf("go list %s: %v\n%s", pkg, err, stderr.String())
	}
	fields := strings.Split(strings.TrimSpace(string(listed)), "\t")
	if len(fields) != 2 || strings.Contains(fields[1], "\n") {
		return target{}, fmt.Errorf("go list %s: expected one package, got %q", pkg, listed)
	}
	if fields[1] == "main" {
		return target{}, fmt.Errorf("%s is package main, which no program can import: move the types to a package of their own, or call gen.%s from a test in package main (see gen's README)", fields[0], fn)
	}
	env, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return target{}, fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(env))
	if gomod == "" || gomod == os.DevNull {
		return target{}, errors.New("not inside a Go module: run bitpack gen inside the module that holds the package")
	}
	return target{importPath: fields[0], name: fields[1], moduleDir: filepath.Dir(gomod)}, nil
}

// program is the source of the generator program.
func program(importPath, fn, opts string, types []string) string {
	var values []string
	for _, t := range types {
		values = append(values, "(*pkg."+t+")(nil)")
	}
	return fmt.Sprintf(`// Code generated by bitpack gen for one run; it removes this file.

package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/bitpack-go/bitpack/gen"
	pkg %s
)

func main() {
	var b bytes.Buffer
	if err := gen.%s(&b, %s, %s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(b.Bytes())
}
`, strconv.Quote(importPath), fn, opts, strings.Join(values, ", "))
}

// runProgram writes the program into a temporary directory of the module
// (a dot directory, which go's package patterns skip), runs it there and
// returns what it printed.
func runProgram(moduleDir, src string, stderr io.Writer) ([]byte, error) {
	dir, err := os.MkdirTemp(moduleDir, ".bitpack-gen-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "run", file)
	cmd.Dir = moduleDir
	var errs bytes.Buffer
	cmd.Stderr = &errs
	code, err := cmd.Output()
	if err != nil {
		msg := errs.String()
		if strings.Contains(msg, "github.com/bitpack-go/bitpack/gen") && strings.Contains(msg, "no required module provides") {
			msg += "(the module must require github.com/bitpack-go/bitpack: go get github.com/bitpack-go/bitpack)\n"
		}
		fmt.Fprint(stderr, msg)
		return nil, fmt.Errorf("generating failed: %v", err)
	}
	return code, nil
}

// setAside renames path, if it exists, to a name the Go tool ignores, and
// returns what puts it back unless a new file took its place.
func setAside(path string) (func(), error) {
	hidden := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".old")
	if err := os.Rename(path, hidden); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return func() {}, nil
		}
		return nil, err
	}
	return func() {
		if _, err := os.Stat(path); err == nil {
			os.Remove(hidden)
			return
		}
		os.Rename(hidden, path)
	}, nil
}

// writeFile replaces path with data only once data is complete.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Package golang renders a model as Go for the types' own package
// (gen.Go): straight-line functions bitpack's Codecs run.
package golang

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"math"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/internal/rules"
)

// File renders the Go file of model m for package pkg ("" = the last
// element of the types' import path), or returns the first reason the
// types are left to the plan.
func File(m *model.Model, pkg string) ([]byte, error) {
	e, err := newGoEmitter(m, pkg)
	if err != nil {
		return nil, err
	}
	for _, t := range m.Roots {
		if err := e.root(t); err != nil {
			return nil, err
		}
	}
	return e.file()
}

// goEmitter renders one Go file.
type goEmitter struct {
	pkgPath, pkgName string
	imports          map[string]string // import path -> name used
	quantizers       []string          // package-level quantizer declarations
	quantByKey       map[string]string
	helpers          map[string]bool // helper functions the file uses
	funcs            *bytes.Buffer   // the functions, unformatted
	decls            []string        // the shadow variables of the function being rendered
	pending          []goField       // fields of the group being read (see field)
	pendingBits      int
	wExpr            string // the word being written (see put)
	wBits            int
	declared         map[string]bool
	inits            []string     // RegisterGenerated calls
	locals           int          // locals declared in the current function
	rootType         reflect.Type // the type being rendered, for messages
	err              error        // the first unsupported value found
}

func newGoEmitter(m *model.Model, pkg string) (*goEmitter, error) {
	e := &goEmitter{imports: map[string]string{}, quantByKey: map[string]string{}, helpers: map[string]bool{}, funcs: &bytes.Buffer{}}
	for _, t := range m.Roots {
		p := t.Go.PkgPath()
		if p == "" {
			return nil, fmt.Errorf("gen: Go needs named types: %v has no package", t.Go)
		}
		if e.pkgPath == "" {
			e.pkgPath = p
		} else if p != e.pkgPath {
			return nil, fmt.Errorf("gen: Go writes one file for one package: %v is in %s, %v in %s", m.Roots[0].Go, e.pkgPath, t.Go, p)
		}
	}
	e.pkgName = pkg
	if e.pkgName == "" {
		e.pkgName = path.Base(e.pkgPath)
	}
	e.imports["github.com/bitpack-go/bitpack"] = "bitpack"
	e.imports["github.com/bitpack-go/bitpack/bitio"] = "bitio"
	return e, nil
}

// local returns a fresh local name with prefix.
func (e *goEmitter) local(prefix string) string {
	e.locals++
	return prefix + strconv.Itoa(e.locals-1)
}

func (e *goEmitter) printf(format string, args ...any) { fmt.Fprintf(e.funcs, format+"\n", args...) }

// fail records the first value Go cannot generate.
func (e *goEmitter) fail(v *model.Value, format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf("gen: Go: %v field %s: %s", e.rootType, v.Path, fmt.Sprintf(format, args...))
	}
}

// unsupported records a value of a kind Go does not generate.
func (e *goEmitter) unsupported(v *model.Value) {
	what := map[model.Op]string{model.OpSparse: "sparse arrays", model.OpCheck: "serialize checks",
		model.OpUnion: "unions", model.OpHook: "MarshalBits types", model.OpMap: "maps"}[v.Op]
	if what == "" {
		what = v.Op.String() + " values"
	}
	e.fail(v, "%s are not generated in Go (the plan encodes them; leave %v to the plan)", what, e.rootType)
}

// root renders the append and unmarshal functions of root type t and its
// registration.
func (e *goEmitter) root(t *model.Type) error {
	proto := reflect.New(t.Go).Interface()
	l, err := bitpack.Describe(proto)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	v := t.Value()
	if err := goBounds(v); err != nil {
		return err
	}
	name := goIdent(t.Name)
	typ := e.typeExpr(t.Go)
	e.rootType = t.Go

	e.locals = 0
	e.printf("// bitpackAppend%s appends v's encoding to dst, or reports false (and", name)
	e.printf("// returns dst) for a value the plan must word the refusal of.")
	e.printf("func bitpackAppend%s(dst []byte, v *%s) ([]byte, bool) {", name, typ)
	e.printf("var w bitio.Writer")
	e.printf("w.Reset(dst)")
	e.write(v, "(*v)", 1)
	e.wflush()
	e.printf("if w.Err() != nil {\nreturn dst, false\n}")
	e.printf("return w.Bytes(), true")
	e.printf("}\n")

	e.locals = 0
	e.printf("// bitpackUnmarshal%s decodes the whole packet data into v, or reports", name)
	e.printf("// false (v untouched) for a packet the plan must word the refusal of.")
	e.printf("func bitpackUnmarshal%s(data []byte, v *%s) bool {", name, typ)
	maxBytes := 1 << 28 // keeps 8*len(data) inside a 32-bit int
	if t.MaxBits >= 0 {
		maxBytes = (t.MaxBits + 7) / 8 // longer is trailing bytes
	}
	e.printf("if len(data) > %d {\n%s\n}", maxBytes, goReject)
	e.printf("end, pos := 8*len(data), 0")
	e.decls, e.declared = nil, map[string]bool{}
	out, body := e.funcs, &bytes.Buffer{}
	e.funcs = body
	e.read(v, "s", 1, true)
	e.flush()
	e.funcs = out
	e.printf("var (\n%s\n)", strings.Join(e.decls, "\n"))
	e.funcs.Write(body.Bytes())
	e.printf("if end-pos >= 8 {\n%s\n}", goReject)
	e.commit(v, "(*v)", "s", true)
	e.printf("return true")
	e.printf("}\n")
	if e.err != nil {
		return e.err
	}
	// What the allowances charge for the type's fixed part can be more
	// than goCost counts (a struct of no bits nested in it counts 64):
	// checked once the kinds Go does not generate have been named.
	if work, mem := goCost(v); float64(t.Charge.Work) > work {
		if err := goBoundsError(v, float64(t.Charge.Work), mem); err != nil {
			return err
		}
	}
	e.inits = append(e.inits, fmt.Sprintf("bitpack.RegisterGenerated(bitpack.Generated[%s]{Layout: %#x, Append: bitpackAppend%s, Unmarshal: bitpackUnmarshal%s})", typ, l.Hash(), name, name))
	return nil
}

// file assembles and formats the whole file.
func (e *goEmitter) file() ([]byte, error) {
	names := make([]string, 0, len(e.helpers))
	for h := range e.helpers {
		names = append(names, h)
	}
	sort.Strings(names)
	helpers := make([]string, len(names))
	for i, h := range names {
		src, ok := goHelpers[h]
		if !ok { // time.Time's rules, which name packages: by the file's names for them
			e.imports["math"] = "math"
			src = ruleFunc(rules.TimeSource, h, map[string]string{"time": e.pkg("time"), "bits": e.pkg("math/bits"), "math": "math"})
		}
		helpers[i] = code.Rules(src)
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by bitpack's gen.Go. DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package %s\n\n", e.pkgName)
	paths := make([]string, 0, len(e.imports))
	for p := range e.imports {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	b.WriteString("import (\n")
	for _, p := range paths {
		if n := e.imports[p]; n != path.Base(p) {
			fmt.Fprintf(&b, "%s %q\n", n, p)
		} else {
			fmt.Fprintf(&b, "%q\n", p)
		}
	}
	b.WriteString(")\n\n")
	b.WriteString("func init() {\n")
	for _, s := range e.inits {
		b.WriteString(s + "\n")
	}
	b.WriteString("}\n\n")
	if len(e.quantizers) > 0 {
		b.WriteString("// The quantizers, built as bitpack builds them.\nvar (\n")
		for _, q := range e.quantizers {
			b.WriteString(q + "\n")
		}
		b.WriteString(")\n\n")
	}
	b.Write(e.funcs.Bytes())
	for _, h := range helpers {
		b.WriteString(h)
		b.WriteString("\n")
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gen: Go: the generated file does not parse (a bug in gen): %w", err)
	}
	return src, nil
}

// typeExpr is the Go expression of type t in the generated file,
// importing the packages it names.
func (e *goEmitter) typeExpr(t reflect.Type) string {
	if strings.Contains(t.Name(), "[") {
		// reflect names a generic type's instance with its arguments'
		// import paths, which is not Go source.
		if e.err == nil {
			e.err = fmt.Errorf("gen: Go: %v is an instance of a generic type, which the generated code cannot name (leave the types that hold it to the plan)", t)
		}
		return "struct{}"
	}
	if t.Name() != "" {
		switch p := t.PkgPath(); p {
		case "":
			return t.Name() // a predeclared type
		case e.pkgPath:
			if goReserved(t.Name()) && e.err == nil {
				e.err = fmt.Errorf("gen: Go: type %v has a name the generated code gives a variable, an import or a helper of its own (rename it, or leave the types that hold it to the plan)", t)
			}
			return t.Name()
		default:
			return e.pkg(p) + "." + t.Name()
		}
	}
	switch t.Kind() {
	case reflect.Array:
		return "[" + strconv.Itoa(t.Len()) + "]" + e.typeExpr(t.Elem())
	case reflect.Slice:
		return "[]" + e.typeExpr(t.Elem())
	case reflect.Pointer:
		return "*" + e.typeExpr(t.Elem())
	case reflect.Struct:
		var b strings.Builder
		b.WriteString("struct {")
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if i > 0 {
				b.WriteString(";")
			}
			if f.Anonymous {
				b.WriteString(" " + e.typeExpr(f.Type))
			} else {
				b.WriteString(" " + f.Name + " " + e.typeExpr(f.Type))
			}
			if f.Tag != "" {
				b.WriteString(" " + strconv.Quote(string(f.Tag)))
			}
		}
		b.WriteString(" }")
		return b.String()
	}
	return t.String()
}

// pkg is the name the generated file imports package path p by,
// importing it on first use: bp and its last element (bptime), which no
// name of the types' package is made to hide.
func (e *goEmitter) pkg(p string) string {
	n, ok := e.imports[p]
	if !ok {
		n = "bp" + strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, path.Base(p))
		for taken := true; taken; {
			taken = false
			for _, m := range e.imports {
				if m == n {
					n += "_"
					taken = true
				}
			}
		}
		e.imports[p] = n
	}
	return n
}

// goReserved reports whether name, a type of the generated file's
// package, is one the generated code declares and so would hide where it
// names the type: a parameter or local (data, v, dst, w, end, pos, pad,
// the shadow s and s_..., and the numbered ones local makes: c0, n1,
// lo2, ok3, ...), an import or a helper (bitpack...).
func goReserved(name string) bool {
	switch name {
	case "data", "v", "dst", "w", "end", "pos", "pad", "s",
		"bitpack", "bitio", "quant", "binary", "bytes", "math", "utf8":
		return true
	}
	if strings.HasPrefix(name, "s_") || strings.HasPrefix(name, "bitpack") {
		return true
	}
	prefix := strings.TrimRight(name, "0123456789")
	return prefix != name && strings.Contains(" c err f g i l lo n neg ok p q u w word ", " "+prefix+" ")
}

// goIdent makes a model name a Go identifier part.
func goIdent(n string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, n)
}

// goBounds refuses a type whose decode could reach bitpack's allowances
// (allowance.go): the generated code does not count work or bytes, so it
// must be unable to reach them. A decode may always visit
// rules.WorkBaseValues (4096) values and allocate rules.AllocBaseBytes (1
// MiB) whatever the packet;
// the bounds here are what the value can hold at most, counted
// generously (every value, element and byte; each allocation at twice its
// size plus 64), against those, halved for the bytes.
func goBounds(v *model.Value) error {
	work, mem := goCost(v)
	if err := goBoundsError(v, work, mem); err != nil {
		return err
	}
	if n := goShadow(v, true); n > goShadowLimit {
		return fmt.Errorf("gen: Go: %v needs %.0f bytes of locals to decode into (over %d, zeroed on every call however short the packet), so its decode is left to the plan", v.Go, n, goShadowLimit)
	}
	return nil
}

// goBoundsError refuses a value that can hold work values and mem bytes,
// if either is past the bounds goBounds applies.
func goBoundsError(v *model.Value, work, mem float64) error {
	if work > rules.WorkBaseValues || mem > rules.AllocBaseBytes/2 {
		return fmt.Errorf("gen: Go: %v can hold up to %.0f values and %.0f bytes when decoded: beyond what every packet may decode (bitpack's allowances), so its decode is left to the plan", v.Go, work, mem)
	}
	return nil
}

// goShadowLimit bounds the bytes of a decode's shadow (see read.go):
// local variables the generated function zeroes on every call, however
// short the packet, where the plan's decode reuses a scratch value. A
// hostile packet of one byte would cost the zeroing of all of it (of a
// struct holding [3][4 << 20]byte, 12 MiB allocated and 6.7 ms on every
// call; of a slice of maxlen 2000 of [128]byte, 256 KiB and 0.37 ms).
const goShadowLimit = 16 << 10

// goShadow is the size in bytes of v's shadow, at a fixed place or not,
// as read declares it.
func goShadow(v *model.Value, fixed bool) float64 {
	switch {
	case goDeferred(v, fixed):
		return 8
	case goFlat(v):
		return float64(v.Go.Size())
	}
	switch v.Op {
	case model.OpQuat:
		return 16
	case model.OpString:
		return 24
	case model.OpBytes:
		return 8 + float64(v.MaxLen)
	case model.OpArray:
		return float64(v.Len) * goShadow(v.Elem, false)
	case model.OpSlice:
		return 8 + float64(v.MaxLen)*goShadow(v.Elem, false)
	case model.OpPointer:
		return 8 + goShadow(v.Elem, fixed)
	case model.OpStruct, model.OpFields:
		var n float64
		for _, u := range model.FieldUses(v) {
			n += goShadow(u.Value, fixed)
		}
		return n
	}
	return 0
}

// goCost bounds the values a decode of v visits and the bytes it
// allocates, saturating far above the limits goBounds applies.
func goCost(v *model.Value) (work, mem float64) {
	alloc := func(n float64) float64 { return 2*n + 64 }
	switch v.Op {
	case model.OpStruct, model.OpFields:
		work = 1
		for _, u := range model.FieldUses(v) {
			w, m := goCost(u.Value)
			work, mem = work+w, mem+m
		}

	case model.OpArray:
		w, m := goCost(v.Elem)
		work, mem = 1+float64(v.Len)*w, float64(v.Len)*m
	case model.OpSlice:
		w, m := goCost(v.Elem)
		// At least what the allowances charge for each element (more than
		// its values when it can take no bits).
		w = max(w, float64(v.Charge.Work))
		work, mem = 1+float64(v.MaxLen)*w, alloc(float64(v.MaxLen)*float64(v.Elem.Go.Size()))+float64(v.MaxLen)*m
	case model.OpPointer:
		w, m := goCost(v.Elem)
		work, mem = 1+w, alloc(float64(v.Elem.Go.Size()))+m
	case model.OpString, model.OpBytes:
		work, mem = 1+float64(v.MaxLen), alloc(float64(v.MaxLen))
	default:
		work = 1
	}
	return math.Min(work, 1e12), math.Min(mem, 1e12)
}

// The helpers a generated file may carry, by name: small functions the
// compiler inlines. Each is a wire rule of docs/wire.md written in Go:
// unit= rounding is package rules' own code (and so are time.Time's
// conversions, helpers named UnixUnits and TimeOfUnits after the
// functions of rules.TimeSource, rendered by file), the quaternion norm
// tolerance its constant; the code clamp and string validity repeat the
// plan's, as the inline float arithmetic repeats package quant's. The
// layout hash a file registers with folds in the hash of all those
// rules (rules.Version): a file written against other rules is refused
// as stale, never run.
var goHelpers = map[string]string{
	"bit": `// bitpackBit is a bool's wire bit.
func bitpackBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
`,
	"unitsSigned":   ruleFunc(rules.UnitsSource, "UnitsSigned", nil),
	"unitsUnsigned": ruleFunc(rules.UnitsSource, "UnitsUnsigned", nil),
	"quat": `// bitpackQuatOK reports whether a quaternion encodes: unit length within
// {{QUAT_NORM_TOLERANCE}} of its squared norm (summed in float64, each product rounded), or
// all four components ±0.
func bitpackQuatOK(x, y, z, w float32) bool {
	xx, yy := float64(float64(x)*float64(x)), float64(float64(y)*float64(y))
	zz, ww := float64(float64(z)*float64(z)), float64(float64(w)*float64(w))
	if math.Abs(float64(float64(float64(xx+yy)+zz)+ww)-1) <= {{QUAT_NORM_TOLERANCE}} {
		return true
	}
	return (math.Float32bits(x)|math.Float32bits(y)|math.Float32bits(z)|math.Float32bits(w))<<1 == 0
}
`,
	"trunc": `// bitpackTrunc is the code of a scaled value s in [0.5, 2^32]: floor(s),
// at most max (package quant's truncCode).
func bitpackTrunc(s float32, max uint32) uint32 {
	if c := uint64(int64(s)); c < uint64(max) {
		return uint32(c)
	}
	return max
}
`,
	"word": `// bitpackWord is the 64 bits of data from bit pos on, shifted down so that
// bit pos is bit 0 (at least 57 of them are data's; past its end, zeros).
func bitpackWord(data []byte, pos int) uint64 {
	if i := pos >> 3; i+8 <= len(data) {
		return binary.LittleEndian.Uint64(data[i:]) >> (pos & 7)
	}
	return bitpackTail(data, pos)
}

// bitpackTail is bitpackWord for the packet's last 7 bytes.
func bitpackTail(data []byte, pos int) uint64 {
	var b [8]byte
	copy(b[:], data[pos>>3:])
	return binary.LittleEndian.Uint64(b[:]) >> (pos & 7)
}
`,
	"text": `// bitpackText reports whether a string's bytes are valid UTF-8 without a
// NUL byte, as bitpack's strings must be.
func bitpackText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}
`,
	"must": `func bitpackMust[Q any](q Q, err error) Q {
	if err != nil {
		panic(err)
	}
	return q
}
`,
}

// ruleFunc is the source of function name of package rules, found in
// src (one of its files), its doc comment included, named bitpackName as
// a generated file's helper, with the packages it names (by their
// import names in src: time, bits) named as pkgs says.
func ruleFunc(src, name string, pkgs map[string]string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "rules.go", src, parser.ParseComments)
	if err != nil {
		panic("gen: package rules does not parse: " + err.Error())
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name || fd.Doc == nil {
			continue
		}
		start, end := fset.Position(fd.Doc.Pos()).Offset, fset.Position(fd.End()).Offset
		// The package names, replaced from the last so that offsets hold.
		var at []int
		ast.Inspect(fd, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && pkgs[id.Name] != "" {
					at = append(at, fset.Position(id.Pos()).Offset)
				}
			}
			return true
		})
		text := src[start:end]
		for i := len(at) - 1; i >= 0; i-- {
			o := at[i] - start
			old := text[o : strings.IndexByte(text[o:], '.')+o]
			text = text[:o] + pkgs[old] + text[o+len(old):]
		}
		return strings.ReplaceAll(text, name, "bitpack"+name) + "\n"
	}
	panic("gen: package rules has no documented function " + name)
}

package gen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Names the generated C# and TypeScript must adapt: a type named like the
// C# runtime (Bitpack) and like a JavaScript built-in (Error), an
// unexported type named like a C# keyword (object), fields named like the
// generated members (TryRead, Fingerprint) or like their class.
type (
	Bitpack struct{ X uint8 }
	Error   struct {
		Code uint8 `bits:"range=0..9"`
	}
	object   struct{ A bool }
	Keywords struct {
		object
		TryRead     uint8
		Fingerprint uint8
		Keywords    uint8
		Err         Error
		Pack        *Bitpack
		Here        Vec3
	}
)

// RustNames holds Go names Rust must adapt: a field named like a keyword,
// runs of capitals, two fields of one snake_case name, a type named like
// std's Option.
type (
	Option    struct{ A uint8 }
	RustNames struct {
		Type       uint8
		MaxHP      uint16
		HTTPServer bool
		ID         uint8
		Id         uint8
		Opt        Option
		Err        Error
	}
)

// TestRustNames: the Rust names of fields and types, and the module
// compiles with them.
func TestRustNames(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	var rs bytes.Buffer
	if err := Rust(&rs, Options{}, &RustNames{}, &Keywords{}, &Mixed{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"pub struct RustNames {", "    pub type_: u8,", "    pub max_hp: u16,", "    pub http_server: bool,", "    pub id: u8,",
		"    pub id_2: u8,", "pub struct Option_ {", "    pub opt: Option_,", "pub struct Error_ {", "    pub err: Error_,",
		"pub struct object {", "    pub object: object,", "    pub try_read: u8,", "pub struct gen_Vec3 {", "pub struct Mixed_Stats {",
		"    pub serialize: u8,",
	} {
		if !strings.Contains(rs.String(), want) {
			t.Errorf("generated Rust lacks %q", want)
		}
	}
	rustc := requireRustc(t)
	dir := t.TempDir()
	for name, text := range map[string][]byte{"names.rs": rs.Bytes(), "lib.rs": []byte("#![deny(warnings)]\npub mod names;\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(rustc, "--edition", "2021", "--crate-type", "lib", "--emit", "metadata", "-o", filepath.Join(dir, "lib.rmeta"), filepath.Join(dir, "lib.rs")).CombinedOutput(); err != nil {
		t.Fatalf("rustc: %v\n%s", err, tail(string(out), 4000))
	}
}

func TestClientNames(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	var cs, ts bytes.Buffer
	if err := CSharp(&cs, Options{Namespace: "Names"}, &Keywords{}, &Mixed{}); err != nil {
		t.Fatal(err)
	}
	if err := TypeScript(&ts, Options{}, &Keywords{}, &Mixed{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"public sealed class Bitpack_\n", "public struct Error : global::System.IEquatable<Error>\n",
		"public struct object_ : global::System.IEquatable<object_>\n",
		"public object_ object_;", "public byte TryRead_;", "public byte Fingerprint_;", "public byte Keywords_;",
		"public Bitpack_ Pack;", "public struct gen_Vec3 : global::System.IEquatable<gen_Vec3>\n",
		"public struct world_Vec3 : global::System.IEquatable<world_Vec3>\n",
		"public struct Mixed_Stats : global::System.IEquatable<Mixed_Stats>\n", "public byte Serialize;",
		"public sealed class KeywordsReceiver\n", "public sealed class MixedReceiver\n",
	} {
		if !strings.Contains(cs.String(), want) {
			t.Errorf("generated C# lacks %q", want)
		}
	}
	for _, want := range []string{
		"export interface Bitpack {", "export interface Error_ {", "export interface object_ {",
		"  object: object_;", "  TryRead: number;", "  Err: Error_;", "  Pack: Bitpack | null;",
		"export interface gen_Vec3 {", "export interface world_Vec3 {", "export function readMixed_Stats(",
	} {
		if !strings.Contains(ts.String(), want) {
			t.Errorf("generated TypeScript lacks %q", want)
		}
	}
	t.Run("CSharp", func(t *testing.T) {
		requireTool(t, "mcs", "C#")
		csCompile(t, map[string][]byte{"names.cs": cs.Bytes(), "main.cs": []byte("static class P { static void Main() { } }\n")},
			filepath.Join(t.TempDir(), "names.exe"))
	})
	t.Run("TypeScript", func(t *testing.T) {
		tsCompile(t, requireTSC(t), t.TempDir(), map[string][]byte{"names.ts": ts.Bytes()})
	})
}

func TestClientErrors(t *testing.T) {
	for _, tc := range []struct {
		gen  string
		opts Options
		want string
	}{
		{"cs", Options{Namespace: "Game..Net"}, `gen: Namespace "Game..Net": "" is not a C# identifier bitpack can use`},
		{"cs", Options{Namespace: "Game.class"}, `gen: Namespace "Game.class": "class" is not a C# identifier bitpack can use`},
		{"cs", Options{Namespace: "game::net"}, `gen: Namespace "game::net": "game::net" is not a C# identifier bitpack can use`},
	} {
		var out bytes.Buffer
		err := CSharp(&out, tc.opts, &Player{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("CSharp(%+v) = %v, want %q", tc.opts, err, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("CSharp(%+v) wrote %d bytes with an error", tc.opts, out.Len())
		}
	}
	for _, f := range []func(*bytes.Buffer, Options, ...any) error{
		func(b *bytes.Buffer, o Options, v ...any) error { return CSharp(b, o, v...) },
		func(b *bytes.Buffer, o Options, v ...any) error { return TypeScript(b, o, v...) },
		func(b *bytes.Buffer, o Options, v ...any) error { return Rust(b, o, v...) },
	} {
		var out bytes.Buffer
		for _, tc := range []struct {
			values []any
			want   string
		}{
			{nil, "gen: no types given"},
			{[]any{42}, "gen: argument 0 is int, not a struct or a pointer to one"},
			{[]any{loopy{}}, "gen: gen.loopy contains itself (through a pointer, slice, map or union): recursive types have no fixed-size form in the generated code, which stores everything inline"},
			{[]any{&loopyMap{}}, "gen: gen.loopyMap contains itself (through a pointer, slice, map or union): recursive types have no fixed-size form in the generated code, which stores everything inline"},
			{[]any{struct{ S string }{}}, `gen: bitpack: type struct { S string } field S: string needs a maxlen tag of its own, e.g. bits:"maxlen=32"`},
		} {
			if err := f(&out, Options{}, tc.values...); err == nil || err.Error() != tc.want {
				t.Errorf("%v: %v, want %q", tc.values, err, tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("%v: %d bytes written with an error", tc.values, out.Len())
			}
		}
	}
}

// Clash holds a type whose TypeScript functions would take another type's
// name: readClash is also a Go type here.
type (
	Clash     struct{ A uint8 }
	readClash struct{ B uint8 }
	Clashes   struct {
		C Clash
		R readClash
	}
)

func TestTypeScriptClash(t *testing.T) {
	var out bytes.Buffer
	err := TypeScript(&out, Options{}, &Clashes{})
	want := "gen: readClash, which TypeScript declares for gen.Clash, is also the name of gen.readClash; rename one of them"
	if err == nil || err.Error() != want {
		t.Errorf("TypeScript(Clashes) = %v, want %q", err, want)
	}
}

package gen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// Level is an unsigned enum of the enum tests whose largest value needs
// all 64 bits.
type Level uint64

// TestEnumOf: EnumOf names the type by its package and name and lists the
// constants by value (an unsigned one above the int64 range too), names
// breaking ties.
func TestEnumOf(t *testing.T) {
	got := EnumOf(map[string]Level{"Top": 1<<64 - 1, "Low": 1, "Zero": 0, "None": 0})
	want := Enum{PkgPath: "github.com/bitpack-go/bitpack/gen", Name: "Level", Constants: []EnumConstant{
		{"None", 0}, {"Zero", 0}, {"Low", 1}, {"Top", -1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("EnumOf = %+v, want %+v", got, want)
	}
}

// leveled holds a Level.
type leveled struct {
	L Level `bits:"range=0..3"`
}

// TestEnumErrors: constants that cannot name the type's values are
// refused by every generator, and nothing is written.
func TestEnumErrors(t *testing.T) {
	bad := Options{Enums: []Enum{{PkgPath: "github.com/bitpack-go/bitpack/gen", Name: "Level"}}}
	for name, g := range map[string]func(*bytes.Buffer) error{
		"CPP":        func(w *bytes.Buffer) error { return CPP(w, bad, &leveled{}) },
		"CSharp":     func(w *bytes.Buffer) error { return CSharp(w, bad, &leveled{}) },
		"TypeScript": func(w *bytes.Buffer) error { return TypeScript(w, bad, &leveled{}) },
		"Go":         func(w *bytes.Buffer) error { return Go(w, bad, &leveled{}) },
	} {
		var out bytes.Buffer
		err := g(&out)
		if err == nil || !strings.Contains(err.Error(), "the constants of github.com/bitpack-go/bitpack/gen.Level: none given") || out.Len() != 0 {
			t.Errorf("%s: %v, %d bytes written", name, err, out.Len())
		}
	}
}

// TestTypeScriptEnumTypes: an enum is a type TypeScript checks: a field
// of it takes its named values (and values read), and 7, which no
// constant of Team names, does not compile where a Team is wanted; the
// declarations are erasable syntax (no enum: erasableSyntaxOnly and
// isolatedModules accept them).
func TestTypeScriptEnumTypes(t *testing.T) {
	tsc := requireTSC(t)
	var module bytes.Buffer
	if err := TypeScript(&module, Options{Enums: tableEnums}, &Named{}); err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`(?m)^export (const )?enum `).Match(module.Bytes()) {
		t.Error("the module declares a TypeScript enum")
	}
	decls := regexp.MustCompile(`(?s)export const (Team|Offset|Rank) = \{.*?\} as const;\n\n/\*\*[^\n]*\*/\nexport type (Team|Offset|Rank) = [^\n]*\n`).FindAll(module.Bytes(), -1)
	if len(decls) != 3 {
		t.Fatalf("found %d enum declarations, want 3", len(decls))
	}
	dir := t.TempDir()
	compile := func(name, src string, extra ...string) (string, error) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append(append(append([]string{}, tsFlags...), "--noEmit", "--target", "es2020"), extra...)
		out, err := exec.Command(tsc, append(args, path)...).CombinedOutput()
		return string(out), err
	}
	if out, err := compile("decls.ts", string(bytes.Join(decls, nil)), "--erasableSyntaxOnly", "--isolatedModules", "--verbatimModuleSyntax"); err != nil {
		t.Errorf("the enum declarations alone: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "table.ts"), module.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	use := `import * as t from "./table.js";
const v = t.newNamed();
v.Side = t.Team.Blue;
v.Rank = t.Rank.Top;
v.Shift = t.Offset.Left;
v.ByTeam.set(t.Team.Red, t.Offset.Right);
const read: t.Team = t.readNamed(t.writeNamed(v)).Side;
const fine: bigint = v.Fine;
const beat: number = v.Beat + v.Lag;
export const out = [read, fine, beat];
`
	if out, err := compile("use.ts", use); err != nil {
		t.Errorf("named values: %v\n%s", err, out)
	}
	for _, bad := range []struct{ src, want string }{
		{`const x: t.Team = 7;`, "error TS2322: Type '7' is not assignable to type 'Team'."},
		{`t.newNamed().Side = 7;`, "error TS2322: Type '7' is not assignable to type 'Team'."},
		{`t.newNamed().Rank = 1n;`, "error TS2322: Type '1n' is not assignable to type 'Rank'."},
		{`t.newNamed().Shift = t.Team.Blue;`, "error TS2322: Type '2' is not assignable to type 'Offset'."},
	} {
		out, err := compile("bad.ts", `import * as t from "./table.js";`+"\n"+bad.src+"\nexport {};\n")
		if err == nil || !strings.Contains(out, bad.want) {
			t.Errorf("%s: %v\n%s\nwant %q", bad.src, err, out, bad.want)
		}
	}
}

// TestCSharpEnumTypes: an enum is a C# enum of the Go type's underlying
// type, its members Go's constants with their values; a field of it is
// declared with it, so an integer needs a cast to go there; a value no
// member names is read and written as it is.
func TestCSharpEnumTypes(t *testing.T) {
	mono := requireTool(t, "mono", "C#")
	mcs := requireTool(t, "mcs", "C#")
	var file bytes.Buffer
	if err := CSharp(&file, Options{Namespace: "Named", Enums: tableEnums}, &Named{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	use := `using System;
using Named;
static class Use
{
    static int Main()
    {
        var v = new Named.Named();
        v.Side = Team.Blue;
        v.Raw = (Team)7;
        v.Rank = Rank.Top;
        v.ByTeam[Team.Red] = Offset.Right;
        v.Lag = 1500;
        byte[] packet;
        string error;
        Named.Named back;
        if (!v.TryWrite(out packet, out error) || !Named.Named.TryRead(packet, out back, out error))
        {
            Console.WriteLine(error);
            return 1;
        }
        Console.WriteLine("{0} {1} {2} {3} {4} {5} {6} {7}", Enum.GetUnderlyingType(typeof(Team)), Enum.GetUnderlyingType(typeof(Offset)),
            Enum.GetUnderlyingType(typeof(Rank)), (long)Rank.Bottom, back.Side, (byte)back.Raw, back.ByTeam[Team.Red], back.Lag);
        return 0;
    }
}
`
	exe := filepath.Join(dir, "use.exe")
	csCompile(t, map[string][]byte{"named.cs": file.Bytes(), "use.cs": []byte(use)}, exe)
	out, err := exec.Command(mono, exe).CombinedOutput()
	if want := "System.Byte System.Int16 System.Int64 -1099511627776 Blue 7 Right 1500\n"; err != nil || string(out) != want {
		t.Errorf("mono: %v: %q, want %q", err, out, want)
	}
	bad := strings.Replace(use, "v.Side = Team.Blue;", "v.Side = 2;", 1)
	if err := os.WriteFile(filepath.Join(dir, "bad.cs"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := exec.Command(mcs, "-langversion:7.2", "-out:"+filepath.Join(dir, "bad.exe"), filepath.Join(dir, "named.cs"), filepath.Join(dir, "bad.cs")).CombinedOutput()
	if err == nil || !strings.Contains(string(o), "error CS0266: Cannot implicitly convert type `int' to `Named.Team'") {
		t.Errorf("an int assigned to a Team field: %v\n%s", err, o)
	}
}

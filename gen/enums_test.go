package gen

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
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
	t.Parallel() // a compiler and a program of its own: beside another test's
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
	write := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// compile type-checks the files in one tsc run.
	compile := func(paths []string, extra ...string) (string, error) {
		args := append(append(append([]string{}, tsFlags...), "--noEmit", "--target", "es2020", "--lib", "es2020"), extra...)
		out, err := exec.Command(tsc, append(args, paths...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := compile([]string{write("decls.ts", string(bytes.Join(decls, nil)))}, "--erasableSyntaxOnly", "--isolatedModules", "--verbatimModuleSyntax"); err != nil {
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
	if out, err := compile([]string{write("use.ts", use)}); err != nil {
		t.Errorf("named values: %v\n%s", err, out)
	}
	// Each misuse in a file of its own, all in one tsc run: each file
	// must have its error.
	bads := []struct{ src, want string }{
		{`const x: t.Team = 7;`, "error TS2322: Type '7' is not assignable to type 'Team'."},
		{`t.newNamed().Side = 7;`, "error TS2322: Type '7' is not assignable to type 'Team'."},
		{`t.newNamed().Rank = 1n;`, "error TS2322: Type '1n' is not assignable to type 'Rank'."},
		{`t.newNamed().Shift = t.Team.Blue;`, "error TS2322: Type '2' is not assignable to type 'Offset'."},
	}
	var paths []string
	for i, bad := range bads {
		paths = append(paths, write(fmt.Sprintf("bad%d.ts", i), `import * as t from "./table.js";`+"\n"+bad.src+"\nexport {};\n"))
	}
	out, err := compile(paths)
	for i, bad := range bads {
		found := false
		for _, line := range strings.Split(out, "\n") {
			found = found || strings.Contains(line, fmt.Sprintf("bad%d.ts(", i)) && strings.Contains(line, bad.want)
		}
		if err == nil || !found {
			t.Errorf("%s: %v\n%s\nwant %q in bad%d.ts", bad.src, err, out, bad.want, i)
		}
	}
}

// TestCSharpEnumTypes: an enum is a C# enum of the Go type's underlying
// type, its members Go's constants with their values; a field of it is
// declared with it, so an integer needs a cast to go there; a value no
// member names is read and written as it is.
func TestCSharpEnumTypes(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
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

// TestCPPEnumTypes: an enum is a C++ enum class of the Go type's
// underlying type whose members carry Go's values; a field of it (a map's
// keys too) is declared with it, so an integer needs a cast to go there;
// a value no member names is written as it is. A duration is its count of
// units (Lag = 1500 is 1.5s). The bytes written are Marshal's, and read
// back they give the same fields.
func TestCPPEnumTypes(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	gxx := requireCompiler(t)
	var header bytes.Buffer
	if err := CPP(&header, Options{Include: "minserialize.h", Namespace: "named", Enums: tableEnums}, &Named{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"enum class Team : uint8_t\n{\n    Red = 1,\n    Blue = 2,\n    Spectator = 0,\n};\n",
		"enum class Offset : int16_t\n{\n    Left = -1,\n    Centre = 0,\n    Right = 1,\n};\n",
		"enum class Rank : int64_t\n{\n    Bottom = INT64_C( -1099511627776 ),\n    Top = INT64_C( 1099511627776 ),\n};\n",
		"    Team Side; // int [0, 3]\n", "    Team ByTeam_keys[3];", "    Offset Row[3];",
	} {
		if !strings.Contains(header.String(), want) {
			t.Errorf("the header lacks %q", want)
		}
	}
	goValue := Named{Side: 2, Raw: 7, Shift: -1, Rank: 1 << 40, Ranks: []Rank{-5, 5}, Row: [3]Offset{1, 0, -1}, ByTeam: map[Team]Offset{1: 1, 3: -1},
		Beat: 7 * time.Microsecond, Lag: 1500 * time.Millisecond}
	packet, err := bitpack.Marshal(&goValue)
	if err != nil {
		t.Fatal(err)
	}
	use := `#include <stdio.h>
#include "named.h"
using namespace named;
int main()
{
    Named v{};
    v.Side = Team::Blue;
    v.Raw = static_cast<Team>( 7 );
    v.Shift = Offset::Left;
    v.Rank = Rank::Top;
    v.Ranks_count = 2;
    v.Ranks[0] = static_cast<Rank>( -5 );
    v.Ranks[1] = static_cast<Rank>( 5 );
    v.Row[0] = Offset::Right;
    v.Row[2] = Offset::Left;
    v.ByTeam_count = 2;
    v.ByTeam_keys[0] = static_cast<Team>( 3 );
    v.ByTeam[0] = Offset::Left;
    v.ByTeam_keys[1] = Team::Red;
    v.ByTeam[1] = Offset::Right;
    v.Beat = 7;
    v.Lag = 1500;
    uint8_t buffer[256];
    serialize::WriteStream w( buffer, sizeof buffer );
    if ( !v.Serialize( w ) )
        return 1;
    w.Flush();
    for ( int64_t i = 0; i < w.GetBytesProcessed(); i++ )
        printf( "%02x", buffer[i] );
    Named back{};
    serialize::ReadStream r( buffer, w.GetBytesProcessed() );
    if ( bitpack::read_packet( r, w.GetBytesProcessed(), back ) != bitpack::ReadResult::ok )
        return 2;
    printf( " %d %d %d %lld %d %lld %lld %d", back.Side == Team::Blue, int( back.Raw ), back.Shift == Offset::Left, (long long) back.Rank, int( back.Row[2] ),
        (long long) back.Beat, (long long) back.Lag, back.ByTeam_count );
    for ( int i = 0; i < back.ByTeam_count; i++ )
        printf( " %d:%d", int( back.ByTeam_keys[i] ), int( back.ByTeam[i] ) );
    printf( "\n" );
    return 0;
}
`
	dir := t.TempDir()
	min, err := os.ReadFile(filepath.Join("testdata", "minserialize.h"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"minserialize.h": min, "named.h": header.Bytes(), "use.cpp": []byte(use),
		"bad.cpp": []byte(strings.Replace(use, "v.Side = Team::Blue;", "v.Side = 2;", 1))} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "use")
	if out, err := exec.Command(gxx, "-std=c++11", "-Wall", "-Wextra", "-Werror", "-o", exe, filepath.Join(dir, "use.cpp")).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	out, err := exec.Command(exe).CombinedOutput()
	if want := fmt.Sprintf("%x 1 7 1 1099511627776 -1 7 1500 2 1:1 3:-1\n", packet); err != nil || string(out) != want {
		t.Errorf("the program: %v: %q, want %q", err, out, want)
	}
	bad := exec.Command(gxx, "-std=c++11", "-fsyntax-only", filepath.Join(dir, "bad.cpp"))
	bad.Env = append(os.Environ(), "LC_ALL=C") // ASCII quotes in the message
	o, err := bad.CombinedOutput()
	if err == nil || !strings.Contains(string(o), "cannot convert 'int' to 'named::Team' in assignment") {
		t.Errorf("an int assigned to a Team field: %v\n%s", err, o)
	}
}

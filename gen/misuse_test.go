package gen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The refusals only C# and TypeScript values can need: values Go's types
// rule out (an array of another length, a null struct, a string with a
// lone surrogate, a number that is not an integer, a union member of
// another type), written down by hand; and reading into a value again
// allocating nothing in C#.

// misuseWant are the errors the misuse programs print, one per line, in
// order. C# has no null struct of the types generated as C# structs
// (Containers_Anon, QuatXYZW, Vec3): that refusal is TypeScript's only.
var csMisuseWant = []string{
	"bitpack: encode gen.Containers: field Ammo: 7 elements for an array of 8",
	"bitpack: encode gen.Containers: field Grid[1]: null for an array of 2",
	"bitpack: encode gen.Containers: field Players[1]: null Player: only a Go pointer may be absent",
	"ok: a null slice is written as an empty one",
	"bitpack: encode gen.Text: field Name: invalid UTF-8 at offset 1 (a lone surrogate)",
	"bitpack: encode gen.Text: field Note: NUL byte at offset 3",
	"bitpack: encode gen.Text: field Key: 3 bytes for an array of 16",
	"bitpack: encode gen.Envelope: field First: nil gen.Msg: a union field must hold one of its members",
	"bitpack: encode gen.Envelope: field Rest[0]: BitpackGen.Table.NotAMember is not a member of gen.Msg",
	"bitpack: encode gen.Hooked: field At: hook refused the value: stamp out of range",
	"ok: a null map is written as an empty one",
	"bitpack: encode gen.Maps: field ByID[1]: null Player: only a Go pointer may be absent",
	"bitpack: encode gen.Maps: field Scores[\"a\ufffd\"]: invalid UTF-8 at offset 1 (a lone surrogate)",
	"bitpack: encode gen.Maps: field Scores: 5 entries exceed maxlen 4",
	"bitpack: encode gen.Rotations: field Arr: 3 elements for an array of 4",
	"bitpack: encode gen.Rotations: field GL: 2 elements for an array of 3",
	"delta 25",
	"bitpack: encode gen.Hooked: field At: hook refused the value: stamp out of range",
	"ReadFrom again allocated 0 bytes in 1000 reads",
}

var csMisuse = `using System;

namespace BitpackGen.Table
{
    sealed class NotAMember : Msg { }

    static class Misuse
    {
        static void Write(Func<string> write) { Console.WriteLine(write()); }

        static string Try(Containers c) { byte[] p; string e; return c.TryWrite(out p, out e) ? "ok: a null slice is written as an empty one" : e; }
        static string Try(Text t) { byte[] p; string e; return t.TryWrite(out p, out e) ? "ok" : e; }
        static string Try(Envelope v) { byte[] p; string e; return v.TryWrite(out p, out e) ? "ok" : e; }
        static string Try(Hooked v) { byte[] p; string e; return v.TryWrite(out p, out e) ? "ok" : e; }
        static string Try(Maps v) { byte[] p; string e; return v.TryWrite(out p, out e) ? "ok: a null map is written as an empty one" : e; }
        static string Try(Rotations v) { byte[] p; string e; return v.TryWrite(out p, out e) ? "ok" : e; }
        static string TryDelta(Hooked b, Hooked v) { byte[] p; string e; return v.TryWriteDelta(b, out p, out e) ? "delta " + BitConverter.ToString(p) : e; }

        static void Main()
        {
            Write(() => Try(new Containers { Ammo = new int[7] }));
            Write(() => { Containers c = new Containers(); c.Grid[1] = null; return Try(c); });
            Write(() => Try(new Containers { Players = new[] { new Player(), null } }));
            Write(() => Try(new Containers { IDs = null }));
            Write(() => Try(new Text { Name = "a\uD800" }));
            Write(() => Try(new Text { Note = "abc\0" }));
            Write(() => Try(new Text { Key = new byte[3] }));
            Write(() => Try(new Envelope { Solo = new Ping() }));
            Write(() => Try(new Envelope { First = new Move(), Rest = new Msg[] { new NotAMember() }, Solo = new Ping() }));
            Write(() => Try(new Hooked { At = new Stamp { v = 5000 } }));
            Write(() => Try(new Maps { Scores = null }));
            Write(() => Try(new Maps { ByID = new System.Collections.Generic.Dictionary<ushort, Player> { { 1, null } } }));
            Write(() => Try(new Maps { Scores = new System.Collections.Generic.Dictionary<string, int> { { "a\uD800", 1 } } }));
            Write(() => Try(new Maps { Scores = new System.Collections.Generic.Dictionary<string, int> { { "a", 1 }, { "b", 1 }, { "c", 1 }, { "d", 1 }, { "e", 1 } } }));
            Write(() => Try(new Rotations { Arr = new float[3] }));
            Write(() => { Rotations r = new Rotations(); r.GL.V = new float[2]; return Try(r); });
            // A hook value its WriteTo refuses, the base's own object: unchanged, as Go's
            // (the same in memory) is; another object, equal, is written and refused.
            Write(() => { Stamp refused = new Stamp { v = 5000 }; return TryDelta(new Hooked { At = refused, N = 1 }, new Hooked { At = refused, N = 2 }); });
            Write(() => TryDelta(new Hooked { At = new Stamp { v = 5000 }, N = 1 }, new Hooked { At = new Stamp { v = 5000 }, N = 2 }));

            Scalars s = new Scalars { I64 = -5, F64 = 0.5 };
            byte[] packet;
            string error;
            s.TryWrite(out packet, out error);
            Scalars again = new Scalars();
            ReadAgain(packet, again, 10); // the methods compiled
            long before = GC.GetAllocatedBytesForCurrentThread();
            ReadAgain(packet, again, 1000);
            Console.WriteLine("ReadFrom again allocated " + (GC.GetAllocatedBytesForCurrentThread() - before) + " bytes in 1000 reads");
        }

        static void ReadAgain(byte[] packet, Scalars again, int n)
        {
            for (int i = 0; i < n; i++)
            {
                BitpackReader r = new BitpackReader(packet);
                if (!again.ReadFrom(ref r) || !r.Finish())
                    throw new Exception(r.Error("Scalars"));
            }
        }
    }
}
`

var tsMisuseWant = []string{
	"bitpack: encode gen.Ranges: field Health: value 1.5 is not an integer",
	"bitpack: encode gen.Ranges: field Health: value string is not an integer",
	"bitpack: encode gen.Scalars: field I64: value 5 is not a bigint",
	"bitpack: encode gen.Scalars: field U: value -1 is not a uint64",
	"bitpack: encode gen.Scalars: field I8: value 128 does not fit in 8 bits (range [-128, 127])",
	"bitpack: encode gen.Containers: field Ammo: 7 elements for an array of 8",
	"bitpack: encode gen.Containers: field Anon: null Containers_Anon: only a Go pointer may be absent",
	"bitpack: encode gen.Text: field Name: invalid UTF-8 at offset 1 (a lone surrogate)",
	"bitpack: encode gen.Text: field Key: 3 bytes for an array of 16",
	"bitpack: encode gen.Envelope: field First: type Nope is not a member of gen.Msg",
	"bitpack: encode gen.Envelope: field First: nil gen.Msg: a union field must hold one of its members",
	"bitpack: encode gen.Maps: field Scores: value object is not a Map",
	"bitpack: encode gen.Maps: field Scores[1]: value 1 is not a string",
	"bitpack: encode gen.Maps: field Flags[true]: value 8 does not fit in 3 bits",
	"bitpack: encode gen.Units: field HP: value 40000 is not in [-32768, 32767]",
	"bitpack: encode gen.Units: field Neg: value 10.5 is not an integer",
	"bitpack: encode gen.Units: field Timeout: value 1.5 is not an integer",
	"bitpack: encode gen.Named: field Fine: value 5 is not a bigint",
	"bitpack: encode gen.Rotations: field Arr: 3 elements for an array of 4",
	"bitpack: encode gen.Rotations: field Plain: null QuatXYZW: only a Go pointer may be absent",
	"bitpack: encode gen.Rotations: field GL: value string is not a number",
	"bitpack: encode gen.Numbered: field C: type Nope is not a member of gen.Cmd",
	"delta 25",
	"bitpack: encode gen.Hooked: field At: stamp out of range",
	"F32 0.1 is written as the float32 0.10000000149011612",
}

var tsMisuse = `import * as t from "./table.js";

declare module "./table.js" {
  interface Stamp {
    v: number;
  }
}

t.hooks.Stamp = {
  zero: () => ({ v: 0 }),
  read: (r) => ({ v: r.readBits(12) }),
  write: (w, s) => (s.v > 4095 ? w.refuse("stamp out of range") : w.writeBits(s.v, 12)),
};

function attempt(write: () => Uint8Array): string {
  try {
    write();
    return "ok";
  } catch (e) {
    return e instanceof t.BitpackError ? e.message : "not a BitpackError: " + String(e);
  }
}

const lines: string[] = [];
lines.push(attempt(() => t.writeRanges({ ...t.newRanges(), Health: 1.5 })));
lines.push(attempt(() => t.writeRanges({ ...t.newRanges(), Health: "10" as unknown as number })));
lines.push(attempt(() => t.writeScalars({ ...t.newScalars(), I64: 5 as unknown as bigint })));
lines.push(attempt(() => t.writeScalars({ ...t.newScalars(), U: -1n })));
lines.push(attempt(() => t.writeScalars({ ...t.newScalars(), I8: 128 })));
lines.push(attempt(() => t.writeContainers({ ...t.newContainers(), Ammo: [1, 2, 3, 4, 5, 6, 7] })));
lines.push(attempt(() => t.writeContainers({ ...t.newContainers(), Anon: null as unknown as t.Containers_Anon })));
lines.push(attempt(() => t.writeText({ ...t.newText(), Name: "a\uD800" })));
lines.push(attempt(() => t.writeText({ ...t.newText(), Key: new Uint8Array(3) })));
lines.push(attempt(() => t.writeEnvelope({ ...t.newEnvelope(), First: { type: "Nope", value: {} } as unknown as t.Msg })));
lines.push(attempt(() => t.writeEnvelope({ ...t.newEnvelope(), First: null as unknown as t.Msg })));
lines.push(attempt(() => t.writeMaps({ ...t.newMaps(), Scores: {} as unknown as Map<string, number> })));
lines.push(attempt(() => t.writeMaps({ ...t.newMaps(), Scores: new Map([[1 as unknown as string, 0]]) })));
lines.push(attempt(() => t.writeMaps({ ...t.newMaps(), Flags: new Map([[false, 1], [true, 8]]) })));
lines.push(attempt(() => t.writeUnits({ ...t.newUnits(), HP: 40000 })));
lines.push(attempt(() => t.writeUnits({ ...t.newUnits(), Neg: 10.5 })));
lines.push(attempt(() => t.writeUnits({ ...t.newUnits(), Timeout: 1.5 })));
lines.push(attempt(() => t.writeNamed({ ...t.newNamed(), Fine: 5 as unknown as bigint })));
lines.push(attempt(() => t.writeRotations({ ...t.newRotations(), Arr: [0, 0, 1] })));
lines.push(attempt(() => t.writeRotations({ ...t.newRotations(), Plain: null as unknown as t.QuatXYZW })));
lines.push(attempt(() => t.writeRotations({ ...t.newRotations(), GL: { W: "1" as unknown as number, V: [0, 0, 0] } })));
lines.push(attempt(() => t.writeNumbered({ ...t.newNumbered(), C: { type: "Nope", value: {} } as unknown as t.Cmd })));
// A hook value its write refuses, the base's own object: unchanged, as Go's
// (the same in memory) is; another object, equal, is written and refused.
const refusedStamp = { v: 5000 };
const delta = (base: t.Hooked, value: t.Hooked) => {
  try {
    return "delta " + Array.from(t.writeHookedDelta(base, value), (b) => b.toString(16).padStart(2, "0")).join("");
  } catch (e) {
    return e instanceof t.BitpackError ? e.message : "not a BitpackError: " + String(e);
  }
};
lines.push(delta({ At: refusedStamp, N: 1 }, { At: refusedStamp, N: 2 }));
lines.push(delta({ At: { v: 5000 }, N: 1 }, { At: { v: 5000 }, N: 2 }));
const s = t.readScalars(t.writeScalars({ ...t.newScalars(), F32: 0.1 }));
lines.push("F32 0.1 is written as the float32 " + s.F32);
export const out = lines.join("\n");
`

// TestCSharpMisuse runs csMisuse against the table's C#.
func TestCSharpMisuse(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	mono := requireTool(t, "mono", "C#")
	var cs bytes.Buffer
	var protos []any
	for _, e := range table() {
		protos = append(protos, e.proto)
	}
	if err := CSharp(&cs, Options{Namespace: csNamespace, Enums: tableEnums}, protos...); err != nil {
		t.Fatal(err)
	}
	hooks, err := os.ReadFile(filepath.Join("testdata", "hooks.cs"))
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "misuse.exe")
	csCompile(t, map[string][]byte{"table.cs": cs.Bytes(), "hooks.cs": hooks, "misuse.cs": []byte(csMisuse)}, exe)
	out, err := exec.Command(mono, exe).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	compareLines(t, "C#", string(out), csMisuseWant)
}

// TestTypeScriptMisuse runs tsMisuse against the table's TypeScript.
func TestTypeScriptMisuse(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	tsc := requireTSC(t)
	node := requireTool(t, "node", "TypeScript")
	var ts bytes.Buffer
	var protos []any
	for _, e := range table() {
		protos = append(protos, e.proto)
	}
	if err := TypeScript(&ts, Options{Enums: tableEnums}, protos...); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tsCompile(t, tsc, dir, map[string][]byte{"table.ts": ts.Bytes(), "misuse.ts": []byte(tsMisuse)})
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--input-type=module", "-e", `import { out } from "./out/misuse.js"; console.log(out);`)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	compareLines(t, "TypeScript", string(out), tsMisuseWant)
}

func compareLines(t *testing.T, name, out string, want []string) {
	t.Helper()
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("%s line %d:\n  got:  %s\n  want: %s", name, i+1, g, w)
		}
	}
}

package gen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// The worked examples of docs/wire.md's "Delta against a base" and "Delta
// of a sparse array" (the types of internal/wirecheck under names of
// their own), checked in the generated TypeScript against the bytes
// written there by hand.

type DeltaPing struct {
	Health int32   `bits:"range=0..1000"`
	Alive  bool    //
	Speed  float32 `bits:"float,min=0,max=10,res=0.01"`
}

type DeltaUnit struct {
	HP uint8 `bits:"range=0..100"`
}

type DeltaSquad struct {
	Slots [8]*DeltaUnit `bits:"sparse"`
}

func TestTypeScriptDeltaExamples(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	tsc := requireTSC(t)
	node := requireTool(t, "node", "TypeScript")
	var module bytes.Buffer
	if err := TypeScript(&module, Options{}, DeltaPing{}, DeltaSquad{}, ZeroClocks{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	main := `import * as t from "./net.js";
const hex = (p: Uint8Array) => Array.from(p, (b) => b.toString(16).padStart(2, "0")).join(" ");
const refusal = (f: () => unknown) => {
  try {
    f();
    return "accepted";
  } catch (e) {
    const b = e as t.BitpackError;
    return [b.kind, b.path, b.bit, b.detail].join(" | ");
  }
};
// The receiver holds Speed as it decoded it: 0.11, code 11.
const base = t.readDeltaPing(t.writeDeltaPing({ Health: 731, Alive: true, Speed: 0.11 }));
const value = { Health: 740, Alive: false, Speed: 0.1051 };
const delta = t.writeDeltaPingDelta(base, value);
const got = t.readDeltaPingDelta(delta, base);
const squadBase = t.newDeltaSquad();
squadBase.Slots[1] = { HP: 100 };
squadBase.Slots[2] = { HP: 7 };
squadBase.Slots[7] = { HP: 50 };
const squad = t.newDeltaSquad();
squad.Slots[1] = { HP: 100 };
squad.Slots[3] = { HP: 9 };
squad.Slots[7] = { HP: 49 };
const squadDelta = t.writeDeltaSquadDelta(squadBase, squad);
const squadGot = t.readDeltaSquadDelta(squadDelta, squadBase);
export const lines = [
  hex(delta),
  [got.Health, got.Alive, got.Speed === base.Speed, base.Health, base.Alive].join(" "),
  refusal(() => t.readDeltaPingDelta(new Uint8Array([0xff, 0x16]), base)),
  refusal(() => t.readDeltaPingDelta(new Uint8Array([0x01]), base)),
  refusal(() => t.readDeltaPingDelta(new Uint8Array([0xc3, 0x01, 0x00]), base)),
  hex(t.writeDeltaPingDelta(base, base)),
  hex(squadDelta),
  hex(t.writeDeltaSquad(squadGot)) + " / " + hex(t.writeDeltaSquad(squad)),
  squadBase.Slots.map((s) => (s === null ? "-" : s.HP)).join(" "),
  refusal(() => t.writeDeltaPingDelta(base, { ...value, Health: 1001 })),
  refusal(() => t.writeDeltaPingDelta({ ...base, Health: 2000 }, value)),
  refusal(() => t.writeDeltaPingDelta({ ...base, Health: 2000 }, { ...value, Health: 2000 })),
  // A new ZeroClocks is Go's zero value: its times hold the counts Go
  // writes for year 1, and it writes Go's zero value's bytes.
  "clocks zero " + [...t.newZeroClocks().Grid.flat(), t.newZeroClocks().Near, t.newZeroClocks().Late].join(" "),
  "clocks written " + hex(t.writeZeroClocks(t.newZeroClocks())).split(" ").join(""),
];
`
	tsCompile(t, tsc, dir, map[string][]byte{"net.ts": module.Bytes(), "main.ts": []byte(main)})
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--input-type=module", "-e", `import { lines } from "./out/main.js"; console.log(lines.join("\n"));`)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := []string{
		"c3 01", // wire.md: c3 01
		"740 false true 731 true",
		// Health 735 in the long form (1 1 1, then 735): d = +4 is within h = 16.
		"Range | Health | 1 | code 735 is within 16 of the base's 731: the short form carries it (not canonical)",
		"Range |  | 0 | the delta marks the value changed but it is the base's (not canonical)",
		"Trailing |  | 10 | 1 trailing byte after the value", // the delta ends at bit 10
		"00",
		"8d 09 d5 05", // wire.md: 8d 09 d5 05
		"",            // filled below: the squad read back is the squad
		"- 100 7 - - - - 50",
		"Range | Health | -1 | value 1001 out of range [0, 1000]",
		"Range | Health | -1 | base value: value 2000 out of range [0, 1000]",
		"accepted", // the same in memory as the base's: unchanged, unchecked
		"clocks zero " + zeroClocksCounts,
		"clocks written " + goHex(t, &ZeroClocks{}),
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) == len(want) {
		halves := strings.Split(got[7], " / ")
		if len(halves) == 2 && halves[0] == halves[1] {
			want[7] = got[7]
		}
	}
	// Go refuses the same packets with the same words.
	base, v := DeltaPing{Health: 731, Alive: true, Speed: 0.11}, DeltaPing{}
	for i, p := range [][]byte{{0xff, 0x16}, {0x01}, {0xc3, 0x01, 0x00}} {
		var be *bitpack.Error
		if err := bitpack.UnmarshalDelta(p, &base, &v); !errors.As(err, &be) || fmt.Sprintf("%s | %s | %d | %s", goKind(err), be.Path, be.Bit, be.Detail) != want[2+i] {
			t.Errorf("Go refuses % x with %v, want %q", p, err, want[2+i])
		}
	}
	quantized := DeltaPing{Health: 731, Alive: true, Speed: 0.11}
	for i, pair := range [][2]DeltaPing{
		{quantized, {Health: 1001, Speed: 0.1051}},
		{{Health: 2000, Alive: true, Speed: 0.11}, {Health: 740, Speed: 0.1051}},
	} {
		var be *bitpack.Error
		if _, err := bitpack.AppendDelta(nil, &pair[0], &pair[1]); !errors.As(err, &be) || fmt.Sprintf("%s | %s | %d | %s", goKind(err), be.Path, be.Bit, be.Detail) != want[9+i] {
			t.Errorf("Go's AppendDelta refuses %+v against %+v with %v, want %q", pair[1], pair[0], err, want[9+i])
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("node printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

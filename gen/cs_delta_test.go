package gen

import (
	"bytes"
	"encoding/hex"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// The worked examples of docs/wire.md's "Delta against a base (bit by bit)"
// and "Delta of a sparse array", declared as there.
type (
	WirePing struct {
		Health int32   `bits:"range=0..1000"`
		Alive  bool    //
		Speed  float32 `bits:"float,min=0,max=10,res=0.01"`
	}
	WireUnit struct {
		HP uint8 `bits:"range=0..100"`
	}
	WireSquad struct {
		Slots [8]*WireUnit `bits:"sparse"`
	}
	// WireIDs: bitpack decodes a list element's field inline when the
	// packet holds its widest form, else by its kind; it words a refusal
	// the same either way.
	WireIDs struct {
		IDs []uint32 `bits:"maxlen=4"`
	}
)

// TestCSharpDeltaExamples runs docs/wire.md's delta examples through the
// generated C#: the bytes written there by hand, the values they decode
// to (written back with TryWrite: the full packets of the examples'
// values, which the Go side's examples pin), and the two refused deltas
// with bitpack's words; the refusals of values and bases Go's
// AppendDelta refuses, with its words; and that applying a delta body to a value
// allocates nothing when it adds nothing (TryReadDelta's only allocation
// is then the copy of the base).
func TestCSharpDeltaExamples(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	mono := requireTool(t, "mono", "C#")
	var gen bytes.Buffer
	if err := CSharp(&gen, Options{Namespace: "Examples"}, (*WirePing)(nil), (*WireSquad)(nil), (*WireIDs)(nil), (*ZeroClocks)(nil)); err != nil {
		t.Fatal(err)
	}
	program := `using System;
using Examples;

static class Program
{
    static string Hex(byte[] p) { return p == null ? "null" : BitConverter.ToString(p).Replace("-", "").ToLowerInvariant(); }

    static void Main()
    {
        byte[] packet;
        string error;
        WirePing pingBase = new WirePing { Health = 731, Alive = true, Speed = 0.11f };
        WirePing ping = new WirePing { Health = 740, Alive = false, Speed = 0.1051f };
        ping.TryWriteDelta(pingBase, out packet, out error);
        Console.WriteLine("ping delta " + Hex(packet));
        WirePing got;
        WirePing.TryReadDelta(new byte[] { 0xc3, 0x01 }, pingBase, out got, out error);
        got.TryWrite(out packet, out error);
        Console.WriteLine("ping read " + Hex(packet));
        pingBase.TryWrite(out packet, out error);
        Console.WriteLine("ping base " + Hex(packet));
        Console.WriteLine(WirePing.TryReadDelta(new byte[] { 0xff, 0x16 }, pingBase, out got, out error) + " " + error);
        Console.WriteLine(WirePing.TryReadDelta(new byte[] { 0x01 }, pingBase, out got, out error) + " " + error);
        Console.WriteLine(WirePing.TryReadDelta(new byte[] { 0x00, 0x00 }, pingBase, out got, out error) + " " + error);

        WireSquad squadBase = new WireSquad(), squad = new WireSquad();
        squadBase.Slots[1] = new WireUnit { HP = 100 };
        squadBase.Slots[2] = new WireUnit { HP = 7 };
        squadBase.Slots[7] = new WireUnit { HP = 50 };
        squad.Slots[1] = new WireUnit { HP = 100 };
        squad.Slots[3] = new WireUnit { HP = 9 };
        squad.Slots[7] = new WireUnit { HP = 49 };
        squad.TryWriteDelta(squadBase, out packet, out error);
        Console.WriteLine("squad delta " + Hex(packet));
        WireSquad s;
        WireSquad.TryReadDelta(new byte[] { 0x8d, 0x09, 0xd5, 0x05 }, squadBase, out s, out error);
        s.TryWrite(out packet, out error);
        Console.WriteLine("squad read " + Hex(packet));
        squad.TryWrite(out packet, out error);
        Console.WriteLine("squad value " + Hex(packet));
        squadBase.TryWrite(out packet, out error);
        Console.WriteLine("squad base " + Hex(packet));
        squadBase.TryWriteDelta(squadBase.Clone(), out packet, out error);
        Console.WriteLine("squad unchanged " + Hex(packet));

        WirePing bad = new WirePing { Health = 1001 };
        Console.WriteLine(ping.TryWriteDelta(bad, out packet, out error) + " " + error);
        Console.WriteLine(bad.TryWriteDelta(pingBase, out packet, out error) + " " + error);
        Console.WriteLine(bad.TryWriteDelta(new WirePing { Health = 1001 }, out packet, out error) + " " + Hex(packet));

        WireIDs ids = new WireIDs { IDs = new uint[] { 0, 0 } }, idsGot;
        Console.WriteLine(WireIDs.TryReadDelta(new byte[] { 0x05, 0x00 }, ids, out idsGot, out error) + " " + error);
        Console.WriteLine(WireIDs.TryReadDelta(new byte[] { 0x05, 0x00, 0x00, 0x00, 0x00, 0x00 }, ids, out idsGot, out error) + " " + error);

        // A new ZeroClocks is Go's zero value: its times hold the counts Go
        // writes for year 1, and it writes Go's zero value's bytes.
        ZeroClocks clocks = new ZeroClocks();
        Console.Write("clocks zero");
        for (int i = 0; i < 6; i++)
            Console.Write(" " + clocks.Grid[i / 3][i % 3]);
        Console.WriteLine(" " + clocks.Near + " " + clocks.Late);
        clocks.TryWrite(out packet, out error);
        Console.WriteLine("clocks written " + Hex(packet));

        byte[] delta = { 0xc3, 0x01 };
        WirePing work = pingBase.Clone();
        ApplyAgain(delta, work, 10); // the methods compiled
        long before = GC.GetAllocatedBytesForCurrentThread();
        ApplyAgain(delta, work, 1000);
        Console.WriteLine("ReadDeltaBody allocated " + (GC.GetAllocatedBytesForCurrentThread() - before) + " bytes in 1000 deltas");
    }

    // ApplyAgain applies a ping delta's body n times to work, made the base again each time.
    static void ApplyAgain(byte[] delta, WirePing work, int n)
    {
        for (int i = 0; i < n; i++)
        {
            work.Health = 731;
            work.Alive = true;
            work.Speed = 0.11f;
            BitpackReader r = new BitpackReader(delta);
            bool changed, any;
            if (!r.ReadBool(out changed) || !work.ReadDeltaBody(ref r, out any) || !r.Finish() || work.Health != 740)
                throw new Exception(r.Error("WirePing"));
        }
    }
}
`
	dir := t.TempDir()
	exe := filepath.Join(dir, "examples.exe")
	csCompile(t, map[string][]byte{"examples.cs": gen.Bytes(), "main.cs": []byte(program)}, exe)
	out, err := exec.Command(mono, exe).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Written by hand (and checked against Go's Marshal below): Ping{740,
	// false, 0.11} is 740 = 0010011101, false, code 11 = 1101000000 (wire
	// order): e4 5a 00; the base is wire.md's Ping, db 5e 00. Squad's
	// value: slot 1 (d = 2: 0 1 000), HP 100 0010011, slot 3 (0 1 000), HP 9
	// 1001000, slot 7 (d = 4: 0 1 010), HP 49 1000110, end 1: 82 2c 12 2a 16;
	// the base is wire.md's Squad, 82 fc e0 64 01.
	// IDs [0, 0]: changed 1, resized 0, element 0 (1), then at bit 3 the
	// short form 0, e = 0: d = -128 from code 0, with 13 bits left (fewer
	// than the long form's 33: bitpack's kind decodes it) and with 45.
	const idsRefusal = "bitpack: decode gen.WireIDs: field IDs[0] at bit 3: change -128 from code 0 leaves the range [0, 4294967295]"
	ids := &WireIDs{IDs: []uint32{0, 0}}
	for _, p := range [][]byte{{0x05, 0x00}, {0x05, 0, 0, 0, 0, 0}} {
		if got := goReadError(t, p, ids); got != idsRefusal {
			t.Errorf("Go refuses % x with %s, want %s", p, got, idsRefusal)
		}
	}
	want := strings.Join([]string{
		"ping delta c301",
		"ping read e45a00",
		"ping base db5e00",
		"False bitpack: decode gen.WirePing: field Health at bit 1: code 735 is within 16 of the base's 731: the short form carries it (not canonical)",
		"False bitpack: decode gen.WirePing: at bit 0: the delta marks the value changed but it is the base's (not canonical)",
		"False bitpack: decode gen.WirePing: at bit 1: 1 trailing byte after the value", // where the delta ended
		"squad delta 8d09d505",
		"squad read 822c122a16",
		"squad value 822c122a16",
		"squad base 82fce06401",
		"squad unchanged 00",
		"False " + goDeltaError(t, &WirePing{Health: 1001}, &WirePing{Health: 740, Speed: 0.1051}),
		"False " + goDeltaError(t, &WirePing{Health: 731, Alive: true, Speed: 0.11}, &WirePing{Health: 1001}),
		"True 00", // a field the same as the base's is not checked
		"False " + idsRefusal, "False " + idsRefusal,
		"clocks zero " + zeroClocksCounts,
		"clocks written " + goHex(t, &ZeroClocks{}),
		"ReadDeltaBody allocated 0 bytes in 1000 deltas",
		"",
	}, "\n")
	goPing, _ := bitpack.Marshal(&WirePing{Health: 740, Speed: 0.11})
	goSquad, _ := bitpack.Marshal(&WireSquad{Slots: [8]*WireUnit{1: {HP: 100}, 3: {HP: 9}, 7: {HP: 49}}})
	if hex.EncodeToString(goPing) != "e45a00" || hex.EncodeToString(goSquad) != "822c122a16" {
		t.Fatalf("Go writes %x and %x: the hand-written packets are wrong", goPing, goSquad)
	}
	if string(out) != want {
		t.Errorf("the examples gave\n%s\nwant\n%s", out, want)
	}
}

// goHex is Marshal's packet of v, in hex.
func goHex(t *testing.T, v any) string {
	t.Helper()
	p, err := bitpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(p)
}

// goDeltaError is AppendDelta's refusal of v's delta against base.
func goDeltaError(t *testing.T, base, v any) string {
	t.Helper()
	_, err := bitpack.AppendDelta(nil, base, v)
	if err == nil {
		t.Fatalf("AppendDelta(%+v, %+v) is not refused", base, v)
	}
	return err.Error()
}

// goReadError is UnmarshalDelta's refusal of delta against base.
func goReadError(t *testing.T, delta []byte, base any) string {
	t.Helper()
	var v WireIDs
	err := bitpack.UnmarshalDelta(delta, base, &v)
	if err == nil {
		t.Fatalf("UnmarshalDelta(%x) is not refused", delta)
	}
	return err.Error()
}

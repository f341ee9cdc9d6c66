package gen

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/snapcorpus"
	"github.com/bitpack-go/bitpack/snapshot"
)

// steadyProtocol is the protocol id the steady stream is sealed with.
const steadyProtocol = 0x47414d45

// csSteadyStream is a client's stream of a world whose shape does not
// change (40 units, 5 shots and 10 items, always the same ones) while
// its values do (positions, health, item counts), as a Go Sender with the
// default History (64) sends it to a client that acknowledges every
// packet, each packet sealed: packets, then the payloads, and the full
// encoding of each view.
func csSteadyStream(t *testing.T, n int) (sealed [][]byte, views [][]byte) {
	t.Helper()
	s, err := snapshot.NewSender(snapshot.Options[snapcorpus.World]{Stream: 0x5eed0040, Entities: snapcorpus.Entities})
	if err != nil {
		t.Fatal(err)
	}
	var w snapcorpus.World
	for i := range w.Units {
		w.Units[i] = &snapcorpus.Unit{X: float32(i*4 - 80), Y: float32(80 - i*3), HP: 100, Name: fmt.Sprintf("u%d", i)}
	}
	for i := range 5 {
		w.Shots = append(w.Shots, &snapcorpus.Shot{Dir: uint8(i * 7)})
	}
	w.Items = map[int16]*snapcorpus.Item{}
	for i := range 10 {
		w.Items[int16(i*9-40)] = &snapcorpus.Item{Count: uint16(i)}
	}
	for tick := range n {
		w.Tick++
		for i, u := range w.Units {
			if (i+tick)%3 == 0 {
				u.X = float32(int(u.X*100+float32(tick%7)-3)%9000) / 100
				u.Y = float32(int(u.Y*100+float32(i%5)-2)%9000) / 100
			}
			if (i+tick)%11 == 0 {
				u.HP = uint8((int(u.HP) + 37) % 101)
			}
		}
		w.Shots[tick%5].Dir = uint8((tick * 13) % 64)
		w.Items[int16((tick%10)*9-40)].Count = uint16(tick * 31 % 1000)
		pkt, err := s.Append(nil, &w)
		if err != nil {
			t.Fatal(err)
		}
		s.Ack(uint16(tick))
		view, err := bitpack.Marshal(&w)
		if err != nil {
			t.Fatal(err)
		}
		sealed = append(sealed, bitpack.Seal(nil, steadyProtocol^mustFingerprint(t, &w), pkt))
		views = append(views, view)
	}
	return sealed, views
}

func mustFingerprint(t *testing.T, v any) uint32 {
	t.Helper()
	fp, err := bitpack.Fingerprint(v)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// csAllocProgram reads a sealed steady stream (one packet a line, its
// view's full encoding after it) and measures, with
// GC.GetAllocatedBytesForCurrentThread, the bytes each way of reading and
// writing it allocates over the packets after the first warm ones (the
// receiver's history full, every slot used): the ways this file's API
// offers without allocating (Open over an ArraySegment, WorldReceiver's
// TryRead, TryReadDelta into the caller's value, TryWrite and
// TryWriteDelta into a buffer, Seal in place), and the ways a client had
// before them (Open copying the payload, the header cut off by copying,
// TryReadDelta making a new value), for the record. It checks every view
// read against the Go encoding.
const csAllocProgram = `using System;
using System.Collections.Generic;
using Snap;

static class Program
{
    const uint Protocol = 0x47414d45u ^ World.Fingerprint;
    static List<byte[]> packets = new List<byte[]>();
    static List<string> views = new List<string>();

    static string Hex(byte[] p, int offset, int n) { return BitConverter.ToString(p, offset, n).Replace("-", "").ToLowerInvariant(); }

    static void Check(bool ok, string what, string error)
    {
        if (!ok)
            throw new Exception(what + ": " + error);
    }

    static string Encode(World v)
    {
        byte[] p;
        string error;
        Check(v.TryWrite(out p, out error), "TryWrite", error);
        return Hex(p, 0, p.Length);
    }

    static int HeaderSize(byte[] p, int at) { return (p[at] & 1) != 0 ? 8 : p[at] == 0 ? 11 : 7; }

    static int Main(string[] args)
    {
        int warm = int.Parse(args[0]);
        string line;
        while ((line = Console.ReadLine()) != null)
        {
            string[] f = line.Split(' ');
            byte[] p = new byte[f[0].Length / 2];
            for (int i = 0; i < p.Length; i++)
                p[i] = Convert.ToByte(f[0].Substring(2 * i, 2), 16);
            packets.Add(p);
            views.Add(f[1]);
        }
        int n = packets.Count - warm;

        // The receiver: Open over an ArraySegment, then TryRead.
        WorldReceiver receiver = new WorldReceiver();
        World[] got = new World[packets.Count];
        ushort[] seqs = new ushort[packets.Count];
        bool all = true;
        long before = 0;
        for (int k = 0; k < packets.Count; k++)
        {
            if (k == warm)
                before = GC.GetAllocatedBytesForCurrentThread();
            ArraySegment<byte> payload;
            string error;
            all &= Bitpack.Open(Protocol, new ArraySegment<byte>(packets[k]), out payload);
            all &= receiver.TryRead(payload, out got[k], out seqs[k], out error);
            if (k >= warm)
                got[k] = null; // checked below, against a second receiver
        }
        long receiverBytes = GC.GetAllocatedBytesForCurrentThread() - before;
        Check(all, "receiver", "a packet was refused");
        WorldReceiver again = new WorldReceiver();
        for (int k = 0; k < packets.Count; k++)
        {
            ArraySegment<byte> payload;
            World v;
            ushort seq;
            string error;
            Check(Bitpack.Open(Protocol, new ArraySegment<byte>(packets[k]), out payload), "Open", "");
            Check(again.TryRead(payload, out v, out seq, out error), "TryRead", error);
            Check(seq == k && Encode(v) == views[k], "view " + k, Encode(v));
        }
        Console.WriteLine("receiver: " + receiverBytes + " bytes in " + n + " packets");

        // TryReadDelta into the caller's value: each packet's base is the
        // one before it (the client acknowledged every one).
        World mine = new World();
        byte[] scratch = new byte[4096];
        for (int k = 0; k < packets.Count; k++)
        {
            if (k == warm)
                before = GC.GetAllocatedBytesForCurrentThread();
            int at, count;
            string error;
            Check(Bitpack.Open(Protocol, packets[k], 0, packets[k].Length, out at, out count), "Open", "");
            int h = HeaderSize(packets[k], at + 2);
            Check(World.TryReadDelta(packets[k], at + h, count - h, mine, mine, out error), "TryReadDelta into", error);
            if (k < warm)
                Check(Encode(mine) == views[k], "in place " + k, Encode(mine));
        }
        long intoBytes = GC.GetAllocatedBytesForCurrentThread() - before; // before the line's arguments are allocated
        Console.WriteLine("TryReadDelta into a value: " + intoBytes + " bytes in " + n + " packets");
        Check(Encode(mine) == views[views.Count - 1], "in place, last", Encode(mine));

        // Writes into a buffer, and Seal in place, of the views a receiver
        // read: the last History of them, which it still holds.
        WorldReceiver source = new WorldReceiver();
        World[] read = new World[packets.Count];
        for (int k = 0; k < packets.Count; k++)
        {
            ArraySegment<byte> payload;
            ushort seq;
            string error;
            Check(Bitpack.Open(Protocol, new ArraySegment<byte>(packets[k]), out payload), "Open", "");
            Check(source.TryRead(payload, out read[k], out seq, out error), "TryRead", error);
        }
        int first = packets.Count - source.History + 1; // from the second held: a delta against the one before
        for (int k = first; k < packets.Count; k++)
        {
            if (k == first + 1)
                before = GC.GetAllocatedBytesForCurrentThread();
            int written;
            string error;
            Check(read[k].TryWrite(scratch, 4, scratch.Length - 4, out written, out error), "TryWrite into", error);
            if (k == first)
                Check(Hex(scratch, 4, written) == views[k], "TryWrite into " + k, Hex(scratch, 4, written));
            Bitpack.Seal(Protocol, scratch, 4, written, scratch, 0);
            Check(read[k].TryWriteDelta(read[k - 1], new ArraySegment<byte>(scratch, 8, 1000), out written, out error), "TryWriteDelta into", error);
        }
        long writeBytes = GC.GetAllocatedBytesForCurrentThread() - before;
        Console.WriteLine("TryWrite, Seal and TryWriteDelta into a buffer: " + writeBytes + " bytes in " + (packets.Count - first - 1) + " packets");

        // Before: Open copying, the delta copied out of the packet,
        // TryReadDelta making a new value.
        World[] bases = new World[65536];
        bases[65535] = new World();
        long open = 0, cut = 0, delta = 0;
        for (int k = 0; k < packets.Count; k++)
        {
            long t0 = GC.GetAllocatedBytesForCurrentThread();
            byte[] body;
            Check(Bitpack.Open(Protocol, packets[k], out body), "Open", "");
            long t1 = GC.GetAllocatedBytesForCurrentThread();
            int h = HeaderSize(body, 2);
            int offset = body[2] == 0 ? 0 : (body[2] & 1) != 0 ? (body[2] | body[3] << 8) >> 1 : body[2] >> 1;
            byte[] d = new byte[body.Length - h];
            Buffer.BlockCopy(body, h, d, 0, d.Length);
            long t2 = GC.GetAllocatedBytesForCurrentThread();
            World v;
            string error;
            Check(World.TryReadDelta(d, offset == 0 ? new World() : bases[(ushort)(k - offset)], out v, out error), "TryReadDelta", error);
            long t3 = GC.GetAllocatedBytesForCurrentThread();
            bases[k] = v;
            if (k >= warm)
            {
                open += t1 - t0;
                cut += t2 - t1;
                delta += t3 - t2;
            }
        }
        Console.WriteLine("before: Open " + open / n + ", cutting the header " + cut / n + ", TryReadDelta " + delta / n + " bytes per packet");
        return 0;
    }
}
`

// TestCSharpSteadyStateAllocs: once its history is full, the generated
// C# reads a stream whose world keeps its shape without allocating a byte
// (GC.GetAllocatedBytesForCurrentThread under mono): WorldReceiver.TryRead
// after Open over an ArraySegment, and TryReadDelta into the caller's
// value; TryWrite, TryWriteDelta into a buffer and Seal in place allocate
// nothing either. It logs what the old ways (Open copying, TryReadDelta
// cloning the base) allocate per packet, and checks every view read
// against Go's.
func TestCSharpSteadyStateAllocs(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	if raceEnabled {
		t.Skip("the C# side does not change under Go's race detector; the plain run covers it")
	}
	mono := requireTool(t, "mono", "C#")
	requireTool(t, "mcs", "C#")
	const packets, warm = 300, 100
	sealed, views := csSteadyStream(t, packets)
	var gen bytes.Buffer
	if err := CSharp(&gen, Options{Namespace: "Snap"}, &snapcorpus.World{}); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "alloc.exe")
	csCompile(t, map[string][]byte{"world.cs": gen.Bytes(), "main.cs": []byte(csAllocProgram)}, exe)
	var in strings.Builder
	for i := range sealed {
		fmt.Fprintf(&in, "%x %x\n", sealed[i], views[i])
	}
	cmd := exec.Command(mono, exe, fmt.Sprint(warm))
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, tail(string(out), 4000))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []string{
		fmt.Sprintf("receiver: 0 bytes in %d packets", packets-warm),
		fmt.Sprintf("TryReadDelta into a value: 0 bytes in %d packets", packets-warm),
		"TryWrite, Seal and TryWriteDelta into a buffer: 0 bytes in 62 packets",
	}
	if len(lines) != len(want)+1 {
		t.Fatalf("the program printed\n%s", out)
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("got  %s\nwant %s", lines[i], w)
		}
	}
	t.Log(lines[len(want)])
}

// csCopyByKeyProgram copies two worlds whose items differ in one key
// (-40..41 step 9 against -31..50) into one value, alternately, and
// prints what a copy allocates once warm next to what one new Item does.
const csCopyByKeyProgram = `using System;
using Snap;

static class Program
{
    static World Items(int from)
    {
        World w = new World();
        for (int i = 0; i < 10; i++)
            w.Items[(short)(from + 9 * i)] = new Item { Count = (ushort)i };
        return w;
    }

    static int Main()
    {
        World a = Items(-40), b = Items(-31), mine = new World();
        for (int k = 0; k < 4; k++)
            mine.CopyFrom(k % 2 == 0 ? a : b);
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int k = 0; k < 100; k++)
            mine.CopyFrom(k % 2 == 0 ? a : b);
        long copies = GC.GetAllocatedBytesForCurrentThread() - before;
        before = GC.GetAllocatedBytesForCurrentThread();
        Item one = new Item();
        long item = GC.GetAllocatedBytesForCurrentThread() - before;
        GC.KeepAlive(one);
        byte[] p, q;
        string error;
        if (!mine.TryWrite(out p, out error) || !b.TryWrite(out q, out error) || Convert.ToBase64String(p) != Convert.ToBase64String(q))
            Console.WriteLine("the last copy differs from its source");
        Console.WriteLine("100 copies: " + copies / item + " items and " + copies % item + " bytes");
        return 0;
    }
}
`

// TestCSharpCopyFromReusesByKey: CopyFrom into a dictionary reuses the
// values of the keys both have, so that a world in which one item left
// and another came allocates the newcomer alone, not every item again.
func TestCSharpCopyFromReusesByKey(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	mono := requireTool(t, "mono", "C#")
	requireTool(t, "mcs", "C#")
	var gen bytes.Buffer
	if err := CSharp(&gen, Options{Namespace: "Snap"}, &snapcorpus.World{}); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "copy.exe")
	csCompile(t, map[string][]byte{"world.cs": gen.Bytes(), "main.cs": []byte(csCopyByKeyProgram)}, exe)
	out, err := exec.Command(mono, exe).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, tail(string(out), 4000))
	}
	if got, want := strings.TrimSpace(string(out)), "100 copies: 100 items and 0 bytes"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

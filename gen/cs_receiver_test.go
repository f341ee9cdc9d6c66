package gen

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/snapcorpus"
	"github.com/bitpack-go/bitpack/internal/snapwire"
	"github.com/bitpack-go/bitpack/snapshot"
)

// csReceiverStep is one thing a receiver is given (a packet, a reset, or
// a new receiver of a History) and the line Go's snapshot.Receiver
// answers for it: "OK seq view ack" (view: the full encoding of the view
// read), "ERR seq error ack", "RESET ack", or "NEW ack".
type csReceiverStep struct {
	why     string
	reset   bool
	history int // a new receiver of this History
	packet  []byte
	want    string
}

// receiverSteps are the recorded streams' steps (snapshot/testdata's, at
// History 16, 2 and 256: the channel's, then the packets snapcorpus
// crafts to reach every refusal Go's Receiver words), each stream after a
// new receiver of its History, each step with Go's answer, word for word,
// from a Go Receiver given them all in order (snapshot's
// TestRecordedStream checks that Go's answers are the files').
func receiverSteps(t *testing.T) []csReceiverStep {
	t.Helper()
	var steps []csReceiverStep
	for _, file := range readStreams(t) {
		steps = append(steps, csReceiverStep{why: fmt.Sprintf("a new receiver of History %d", file.History), history: file.History})
		for i, st := range file.Steps {
			why := fmt.Sprintf("History %d, recorded step %d %s", file.History, i, st.Why)
			if st.Reset {
				steps = append(steps, csReceiverStep{why: why, reset: true})
				continue
			}
			p, err := hex.DecodeString(st.Packet)
			if err != nil {
				t.Fatal(err)
			}
			steps = append(steps, csReceiverStep{why: why, packet: p})
		}
	}
	answerReceiverSteps(t, steps)
	return steps
}

// answerReceiverSteps gives steps in order to a Go Receiver (a new one at
// each step with a History), sets each one's want to its answer, and
// fails t where fewer than 3 packets reach the decoder's refusals.
func answerReceiverSteps(t *testing.T, steps []csReceiverStep) {
	t.Helper()
	codec, err := bitpack.NewCodec[snapcorpus.World]()
	if err != nil {
		t.Fatal(err)
	}
	var r *snapshot.Receiver[snapcorpus.World]
	var v snapcorpus.World
	decodeRefusals := 0
	for i := range steps {
		st := &steps[i]
		switch {
		case st.history != 0:
			if r, err = snapshot.NewReceiver(snapshot.Options[snapcorpus.World]{History: st.history}); err != nil {
				t.Fatal(err)
			}
			st.want = fmt.Sprintf("NEW %d", r.Ack())
		case r == nil:
			t.Fatalf("step %d (%s) before a new receiver", i, st.why)
		case st.reset:
			r.Reset()
			st.want = fmt.Sprintf("RESET %d", r.Ack())
		default:
			seq, err := r.Read(st.packet, &v)
			if err != nil {
				st.want = fmt.Sprintf("ERR %d %s %d", seq, err, r.Ack())
				if strings.Contains(err.Error(), "bitpack: decode") {
					decodeRefusals++
				}
				break
			}
			view, err := codec.Marshal(&v)
			if err != nil {
				t.Fatal(err)
			}
			st.want = fmt.Sprintf("OK %d %x %d", seq, view, r.Ack())
		}
	}
	if decodeRefusals < 3 {
		t.Fatalf("only %d packets are refused by the delta's decoder", decodeRefusals)
	}
}

// csReceiverProgram (arguments: History, and the default History Go's
// takes, snapwire's) reads commands from standard input: "P hex how" reads
// a packet through a receiver of History history (how: 0, the whole
// array; 1, offset and count within a larger array of junk; 2, an
// ArraySegment of one) and answers as csReceiverStep.want; "R" resets it;
// "N H" replaces it by a new receiver of History H ("NEW ack"). It
// checks that each view it still holds is the one it handed out for that
// sequence, encoding as it did then ("VIEW CHANGED" otherwise): those of
// the newest 16 sequences after every step, all after every 16th (an
// encoding of each of 256 views after every step would cost seconds).
const csReceiverProgram = `using System;
using System.Collections.Generic;
using Snap;

static class Program
{
    static string Hex(byte[] p, int n) { return BitConverter.ToString(p, 0, n).Replace("-", "").ToLowerInvariant(); }

    static string Encode(World v)
    {
        byte[] p;
        string error;
        if (!v.TryWrite(out p, out error))
            return "UNWRITABLE " + error;
        return Hex(p, p.Length);
    }

    static int Main(string[] args)
    {
        foreach (int bad in new[] { 1, 3, 65536, -2 })
        {
            try
            {
                new WorldReceiver(bad);
                Console.WriteLine("History " + bad + " accepted");
            }
            catch (ArgumentOutOfRangeException e)
            {
                Console.WriteLine(e.Message.Split('\n')[0]);
            }
        }
        WorldReceiver r = new WorldReceiver(int.Parse(args[0]));
        int want = int.Parse(args[1]);
        if (new WorldReceiver().History != want || new WorldReceiver(0).History != want)
            Console.WriteLine("the default History is not " + want);
        Console.WriteLine("ACK " + r.Ack);
        var handed = new Dictionary<ushort, KeyValuePair<World, string>>();
        Random junk = new Random(7);
        int step = 0;
        string line;
        while ((line = Console.ReadLine()) != null)
        {
            string[] f = line.Split(' ');
            if (f[0] == "R")
            {
                r.Reset();
                Console.WriteLine("RESET " + r.Ack);
            }
            else if (f[0] == "N")
            {
                r = new WorldReceiver(int.Parse(f[1]));
                handed.Clear();
                Console.WriteLine("NEW " + r.Ack);
            }
            else
            {
                byte[] p = new byte[f[1].Length / 2];
                for (int i = 0; i < p.Length; i++)
                    p[i] = Convert.ToByte(f[1].Substring(2 * i, 2), 16);
                byte[] big = new byte[p.Length + 19];
                junk.NextBytes(big);
                Buffer.BlockCopy(p, 0, big, 11, p.Length);
                World v;
                ushort seq;
                string error;
                bool ok;
                switch (f[2])
                {
                    case "0": ok = r.TryRead(p, out v, out seq, out error); break;
                    case "1": ok = r.TryRead(big, 11, p.Length, out v, out seq, out error); break;
                    default: ok = r.TryRead(new ArraySegment<byte>(big, 11, p.Length), out v, out seq, out error); break;
                }
                if (ok)
                {
                    string view = Encode(v);
                    handed[seq] = new KeyValuePair<World, string>(v, view);
                    Console.WriteLine("OK " + seq + " " + view + " " + r.Ack);
                }
                else
                    Console.WriteLine("ERR " + seq + " " + error + " " + r.Ack + (v != null ? " VALUE NOT NULL" : ""));
            }
            step++;
            int check = step % 16 == 0 ? r.History : Math.Min(r.History, 16);
            for (int i = 0; i < check; i++)
            {
                World held;
                ushort s = (ushort)(r.Ack - i);
                if (!r.TryGetView(s, out held))
                    continue;
                KeyValuePair<World, string> h;
                if (!handed.TryGetValue(s, out h) || !ReferenceEquals(h.Key, held) || Encode(held) != h.Value)
                    Console.WriteLine("VIEW CHANGED " + s);
            }
        }
        return 0;
    }
}
`

// csReceiverBuild is csReceiverProgram compiled with the World module,
// made once for the tests that run it (TestCSharpReceiver,
// TestReceiversDamaged).
var csReceiverBuild = sharedBuild{name: "receiver-cs"}

// csReceiverExe compiles csReceiverProgram with the generated World
// module, once, and returns the program.
func csReceiverExe(t *testing.T) string {
	t.Helper()
	return csReceiverBuild.get(t, func(dir string) string {
		var gen bytes.Buffer
		if err := CSharp(&gen, Options{Namespace: "Snap"}, &snapcorpus.World{}); err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(dir, "receiver.exe")
		csCompile(t, map[string][]byte{"world.cs": gen.Bytes(), "main.cs": []byte(csReceiverProgram)}, exe)
		return exe
	})
}

// TestCSharpReceiver replays the recorded streams (snapshot/testdata's,
// at History 16, 2 and 256: loss, duplicates, reordering, another
// client's stream, damaged packets, evicted bases, a reconnect and the
// old stream after it, the long form, bases across the wrap, then packets
// made to reach every other refusal), each through a new generated C#
// WorldReceiver of its History,
// under mono and mono -O=-float32, each packet given whole, as a part of a
// larger array and as an ArraySegment: every view, sequence, refusal
// (word for word) and Ack must be Go's Receiver's, and the views the
// receiver holds must stay as it handed them out.
func TestCSharpReceiver(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	if raceEnabled {
		t.Skip("the C# side does not change under Go's race detector; the plain run covers it")
	}
	mono := requireTool(t, "mono", "C#")
	requireTool(t, "mcs", "C#")
	steps := receiverSteps(t)
	exe := csReceiverExe(t)
	var in strings.Builder
	for i, st := range steps {
		switch {
		case st.history != 0:
			fmt.Fprintf(&in, "N %d\n", st.history)
		case st.reset:
			in.WriteString("R\n")
		default:
			fmt.Fprintf(&in, "P %x %d\n", st.packet, i%3)
		}
	}
	for _, args := range [][]string{{exe}, {"-O=-float32", exe}} {
		cmd := exec.Command(mono, append(args, fmt.Sprint(steps[0].history), fmt.Sprint(snapwire.DefaultHistory))...)
		cmd.Stdin = strings.NewReader(in.String())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mono %v: %v\n%s", args, err, tail(string(out), 4000))
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for _, h := range []int{1, 3, 65536, -2} {
			_, err := snapshot.NewReceiver(snapshot.Options[snapcorpus.World]{History: h})
			if !sc.Scan() || err == nil || sc.Text() != err.Error() {
				t.Fatalf("mono %v: History %d: %q, Go refuses it with %v", args, h, sc.Text(), err)
			}
		}
		fresh, err := snapshot.NewReceiver(snapshot.Options[snapcorpus.World]{History: steps[0].history})
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("ACK %d", fresh.Ack()); !sc.Scan() || sc.Text() != want {
			t.Fatalf("mono %v: a new receiver's Ack: %q, Go's %q", args, sc.Text(), want)
		}
		i, bad := 0, 0
		for sc.Scan() {
			line := sc.Text()
			if i >= len(steps) {
				t.Fatalf("mono %v: an answer past the last step: %s", args, line)
			}
			if strings.HasPrefix(line, "VIEW CHANGED") {
				t.Errorf("mono %v: step %d (%s): %s", args, i-1, steps[i-1].why, line)
				continue
			}
			if line != steps[i].want {
				if bad++; bad <= 5 {
					t.Errorf("mono %v: step %d (%s):\n got %s\nwant %s", args, i, steps[i].why, line, steps[i].want)
				}
			}
			i++
		}
		if i != len(steps) {
			t.Fatalf("mono %v: %d answers for %d steps\n%s", args, i, len(steps), tail(string(out), 2000))
		}
	}
}

// Crowd has a field of a type named as Crowd's receiver would be.
type (
	Crowd struct {
		Size  uint8
		Named CrowdReceiver
	}
	CrowdReceiver struct{ On bool }
)

// TestCSharpReceiverName: a root type's receiver takes an underscore when
// a type of the file has its name, and the file compiles.
func TestCSharpReceiverName(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	var cs bytes.Buffer
	if err := CSharp(&cs, Options{}, &Crowd{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"public struct CrowdReceiver : ", "public sealed class CrowdReceiver_\n", "    public CrowdReceiver_(int history = BitpackReceiverState.DefaultHistory)\n"} {
		if !strings.Contains(cs.String(), want) {
			t.Errorf("generated C# lacks %q", want)
		}
	}
	requireTool(t, "mcs", "C#")
	csCompile(t, map[string][]byte{"crowd.cs": cs.Bytes(), "main.cs": []byte("static class P { static void Main() { new CrowdReceiver_(); } }\n")},
		filepath.Join(t.TempDir(), "crowd.exe"))
}

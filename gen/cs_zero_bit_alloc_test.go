package gen

import (
	"bytes"
	"encoding/hex"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/zerobit"
)

// TestCSharpZeroBitElementsAllocation: the most elements of no bits a
// 64-byte packet pays for — 575 BoxedLeaves, each four one-element arrays
// deep, nine objects in C# where Go holds 16 bytes inline — are read by C#
// within Go's allocation allowance for the packet (1 MiB plus 64 bytes
// per bit). Before each such element was charged 64 values, a 33-byte
// packet of 16,384 of them made a C# read allocate 4.7 MB.
func TestCSharpZeroBitElementsAllocation(t *testing.T) {
	mono := requireTool(t, "mono", "C#")
	p := zerobit.LeavesPacket(575, 15, 64)
	var v zerobit.BoxedLeaves
	if err := bitpack.Unmarshal(p, &v); err != nil || len(v.L) != 575 {
		t.Fatalf("Go: %v, %d elements; want 575 accepted", err, len(v.L))
	}
	var file bytes.Buffer
	if err := CSharp(&file, Options{Namespace: "ZeroBit"}, &zerobit.BoxedLeaves{}); err != nil {
		t.Fatal(err)
	}
	const program = `using System;
namespace ZeroBit
{
    static class Program
    {
        static void Main(string[] args)
        {
            string h = args[0];
            byte[] p = new byte[h.Length / 2];
            for (int i = 0; i < p.Length; i++)
                p[i] = Convert.ToByte(h.Substring(2 * i, 2), 16);
            BoxedLeaves v;
            string error;
            BoxedLeaves.TryRead(p, out v, out error); // the first read compiles the code
            long before = GC.GetAllocatedBytesForCurrentThread();
            bool ok = BoxedLeaves.TryRead(p, out v, out error);
            long bytes = GC.GetAllocatedBytesForCurrentThread() - before;
            Console.WriteLine((ok ? v.L.Length.ToString() : error) + " " + bytes);
        }
    }
}
`
	exe := filepath.Join(t.TempDir(), "zerobit.exe")
	csCompile(t, map[string][]byte{"zerobit.cs": file.Bytes(), "program.cs": []byte(program)}, exe)
	out, err := exec.Command(mono, exe, hex.EncodeToString(p)).CombinedOutput()
	if err != nil {
		t.Fatalf("mono: %v\n%s", err, out)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || f[0] != "575" {
		t.Fatalf("C# read: %q; want 575 elements, as Go reads", out)
	}
	allocated, _ := strconv.ParseInt(f[1], 10, 64)
	if allowance := int64(1<<20 + 64*8*len(p)); allocated > allowance {
		t.Errorf("C# TryRead of a %d-byte packet allocated %d bytes, past Go's allowance for it (%d bytes)", len(p), allocated, allowance)
	}
	t.Logf("C# read 575 BoxedLeaves in %d bytes", allocated)
}

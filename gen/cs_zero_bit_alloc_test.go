package gen

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/zerobit"
)

// TestCSharpZeroBitElementsAllocation: the most elements a 64-byte packet
// pays for whose values take no bits but are objects in C# — 143
// BoxedLeaves (four one-element arrays deep: nine objects each, where Go
// holds 16 bytes inline), 33 ZhDeep elements (a bool and sixteen
// levels: 33 objects each) and 8 MapsList ones (a bool and 63 empty
// Dictionaries) — are read by C# within Go's allocation
// allowance for the packet (1 MiB plus 64 bytes per bit), and one more is
// refused by Go. While those structs counted only their fields, a 33-byte
// packet of 16,384 BoxedLeaves made a C# read allocate 4.7 MB, and a
// 64-byte packet of 494 elements of 63 ZhB16s each 32 MB.
func TestCSharpZeroBitElementsAllocation(t *testing.T) {
	mono := requireTool(t, "mono", "C#")
	for _, c := range []struct {
		proto      any
		packet     []byte
		n          int
		oneMore    any
		oneMoreErr string
	}{
		// A Boxed4 is 257 values (1 + 4 × 64 for the structs nested in
		// it): 2 + 143 × 257 = 36753 of 36864; 144 are 37008.
		{zerobit.BoxedLeaves{}, zerobit.LeavesPacket(143, 15, 64), 143,
			&zerobit.BoxedLeaves{L: make([]zerobit.Boxed4, 144), Pad: make([]byte, 61)},
			"bitpack: encode zerobit.BoxedLeaves: field L: 37008 values would take the decode past the 36864" + workWords},
		// A ZhDeepElem is 1090 values: 2 + 33 × 1090 = 35972; 34 are 37060.
		{ZhDeep{}, mustMarshal(zhDeep(33)), 33, zhDeep(34),
			"bitpack: encode gen.ZhDeep: field L: 37060 values would take the decode past the 36864" + workWords},
		// A MapsElem is 1 + 63 × 65 = 4096 values: 2 + 8 × 4096 = 32770;
		// 9 are 36864 more than the root's 2.
		{MapsList{}, mustMarshal(mapsList(8)), 8, mapsList(9),
			"bitpack: encode gen.MapsList: field L: 36864 values would take the decode past the 36864" + workWords},
	} {
		name := reflect.TypeOf(c.proto).Name()
		v := reflect.New(reflect.TypeOf(c.proto))
		if err := bitpack.Unmarshal(c.packet, v.Interface()); err != nil || len(c.packet) != 64 || v.Elem().Field(0).Len() != c.n {
			t.Fatalf("%s: Go: %v, %d bytes, %d elements; want %d in 64 bytes accepted", name, err, len(c.packet), v.Elem().Field(0).Len(), c.n)
		}
		if _, err := bitpack.Marshal(c.oneMore); err == nil || err.Error() != c.oneMoreErr {
			t.Errorf("%s: Marshal of one more element: %v\nwant %s", name, err, c.oneMoreErr)
		}
		var file bytes.Buffer
		if err := CSharp(&file, Options{Namespace: "ZeroBit"}, c.proto); err != nil {
			t.Fatal(err)
		}
		program := fmt.Sprintf(`using System;
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
            %[1]s v;
            string error;
            %[1]s.TryRead(p, out v, out error); // the first read compiles the code
            long before = GC.GetAllocatedBytesForCurrentThread();
            bool ok = %[1]s.TryRead(p, out v, out error);
            long bytes = GC.GetAllocatedBytesForCurrentThread() - before;
            Console.WriteLine((ok ? v.L.Length.ToString() : error) + " " + bytes);
        }
    }
}
`, name)
		exe := filepath.Join(t.TempDir(), "zerobit.exe")
		csCompile(t, map[string][]byte{"zerobit.cs": file.Bytes(), "program.cs": []byte(program)}, exe)
		out, err := exec.Command(mono, exe, hex.EncodeToString(c.packet)).CombinedOutput()
		if err != nil {
			t.Fatalf("mono: %v\n%s", err, out)
		}
		f := strings.Fields(string(out))
		if len(f) != 2 || f[0] != strconv.Itoa(c.n) {
			t.Fatalf("%s: C# read: %q; want %d elements, as Go reads", name, out, c.n)
		}
		allocated, _ := strconv.ParseInt(f[1], 10, 64)
		if allowance := int64(1<<20 + 64*8*len(c.packet)); allocated > allowance {
			t.Errorf("%s: C# TryRead of a %d-byte packet allocated %d bytes, past Go's allowance for it (%d bytes)", name, len(c.packet), allocated, allowance)
		}
		t.Logf("%s: C# read %d elements in %d bytes", name, c.n, allocated)
	}
}

// workWords ends the work allowance's refusal (docs/wire.md).
const workWords = " values it may visit for this input (4096 plus 64 per bit): the packet claims more values than its bits can pay for"

// bench.cs: the C# part of gen's performance report (perf_test.go),
// compiled with the generated perf.cs. It reads and writes the reference
// packet n times each way and prints one row of the report: ns per packet,
// and bytes allocated per packet.

using System;
using System.Diagnostics;

namespace Perf
{
    static class Bench
    {
        static readonly byte[] packet = { /*PACKET*/ };

        static string Cell(Stopwatch clock, long before, long n)
        {
            long bytes = GC.GetAllocatedBytesForCurrentThread() - before;
            return (clock.Elapsed.TotalMilliseconds * 1e6 / n).ToString("F0") + " (" + bytes / n + " B)";
        }

        static int Main(string[] args)
        {
            long n = args.Length > 0 ? long.Parse(args[0]) : 1000000;
            BenchPacket v;
            string error;
            byte[] again;
            if (!BenchPacket.TryRead(packet, out v, out error) || !v.TryWrite(out again, out error) || Convert.ToBase64String(again) != Convert.ToBase64String(packet))
            {
                Console.Error.WriteLine("round trip failed: " + error);
                return 1;
            }
            for (int warm = 0; warm < 2; warm++)
            {
                for (long i = 0; i < n / 10; i++)
                {
                    BenchPacket.TryRead(packet, out v, out error);
                    v.TryWrite(out again, out error);
                }
            }
            long before = GC.GetAllocatedBytesForCurrentThread();
            Stopwatch clock = Stopwatch.StartNew();
            for (long i = 0; i < n; i++)
                BenchPacket.TryRead(packet, out v, out error);
            string read = Cell(clock, before, n);

            before = GC.GetAllocatedBytesForCurrentThread();
            clock = Stopwatch.StartNew();
            for (long i = 0; i < n; i++)
            {
                BitpackReader r = new BitpackReader(packet);
                if (!v.ReadFrom(ref r) || !r.Finish())
                    return 1;
            }
            string readAgain = Cell(clock, before, n);

            before = GC.GetAllocatedBytesForCurrentThread();
            clock = Stopwatch.StartNew();
            for (long i = 0; i < n; i++)
                v.TryWrite(out again, out error);
            string write = Cell(clock, before, n);

            BitpackWriter w = new BitpackWriter(256);
            before = GC.GetAllocatedBytesForCurrentThread();
            clock = Stopwatch.StartNew();
            for (long i = 0; i < n; i++)
            {
                w.Reset();
                if (!v.WriteTo(ref w))
                    return 1;
            }
            string writeAgain = Cell(clock, before, n);
            Console.WriteLine("| C# (mono -O=all, mcs -optimize+; TryRead; ReadFrom; TryWrite; WriteTo) | " + read + " | " + readAgain + " | " + write + " | " + writeAgain + " |");
            return 0;
        }
    }
}

// bench.cs: the C# part of gen's performance report (perf_test.go),
// compiled with the generated perf.cs and hostile.cs. It reads and writes
// the reference packet n times each way and prints one row of the report:
// ns per packet, and bytes allocated per packet. Run as "bench.exe hostile
// rounds", it prints the hostile packets' rows instead
// (perf_hostile_test.go).

using System;
using System.Diagnostics;
using System.Runtime.InteropServices;

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
            if (args.Length > 1 && args[0] == "hostile")
                return Hostile.Run(int.Parse(args[1]));
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

    static partial class Hostile
    {
        struct Timespec
        {
            public long Seconds, Nanoseconds;
        }

        [DllImport("libc", EntryPoint = "clock_gettime")]
        static extern int ClockGetTime(int clock, out Timespec ts);

        // ThreadMilliseconds is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID):
        // the machine is shared, and wall time counts the other work.
        static double ThreadMilliseconds()
        {
            Timespec ts;
            ClockGetTime(3, out ts);
            return ts.Seconds * 1e3 + ts.Nanoseconds * 1e-6;
        }

        // Run prints a row for each hostile case: its cost as a multiple of
        // a decode of the snapshot, the median of rounds alternating k of
        // each, timed in this thread's CPU time.
        public static int Run(int rounds)
        {
            const int k = 16;
            double snap = 0;
            for (int c = 0; c < Cases.Length; c++)
            {
                bool accepted = Cases[c]();
                double[] ratios = new double[rounds];
                for (int r = 0; r < rounds; r++)
                {
                    double start = ThreadMilliseconds();
                    for (int i = 0; i < k; i++)
                    {
                        if (!ReadSnapshot())
                            return 1;
                    }
                    double mid = ThreadMilliseconds();
                    for (int i = 0; i < k; i++)
                        Cases[c]();
                    double end = ThreadMilliseconds();
                    ratios[r] = (end - mid) / (mid - start);
                    snap += (mid - start) / k;
                }
                Array.Sort(ratios);
                Console.WriteLine("| C# | " + Names[c] + " | " + Sizes[c] + " | " + (accepted ? "accepted" : "refused") + " | " +
                    ratios[rounds / 2].ToString("F2") + " (" + ratios[0].ToString("F2") + "-" + ratios[rounds - 1].ToString("F2") + ") |");
            }
            Console.WriteLine("| C# | the snapshot | " + snapshot.Length + " | " + (snap * 1e6 / (rounds * Cases.Length)).ToString("F0") + " ns a decode | 1 |");
            return 0;
        }
    }
}

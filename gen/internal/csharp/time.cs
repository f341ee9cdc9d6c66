
/// <summary>
/// time.Time fields, held as their Unix time counted in units: refused
/// outside their range in the words of Go's refusals, which print the time.
/// </summary>
public partial struct BitpackWriter
{
    /// <summary>A time.Time held as its count of units (see CodeTime); the offset from min in n bits, XOR flip.</summary>
    public bool WriteTime(long units, long min, long max, int n, ulong flip, long unit, bool clamp, string unitText)
    {
        ulong code;
        return CodeTime(units, min, max, unit, clamp, unitText, out code) && WriteBits64(code ^ flip, n);
    }

    /// <summary>
    /// The offset code of a time.Time held as its count of units since the
    /// Unix epoch: as CodeCounted's, refused outside [min, max] unless clamp,
    /// worded as Go words the time it stands for (count × unit nanoseconds).
    /// </summary>
    public bool CodeTime(long units, long min, long max, long unit, bool clamp, string unitText, out ulong code)
    {
        if ((units < min || units > max) && !clamp)
        {
            code = 0;
            return Fail(BitpackErrorKind.Range, "value " + Bitpack.TimeText(units, unit, unitText) + " is " + units + " units of " + unitText + ", out of range [" + min + ", " + max + "]");
        }
        return CodeCounted(units, min, max, unit, clamp, unitText, out code);
    }
}

public static partial class Bitpack
{
    // Go's Time.String counts its calendar in unsigned seconds from March 1
    // of year {{TIME_CALENDAR_YEAR}}, Unix second {{TIME_CALENDAR_ORIGIN}}: an earlier time wraps
    // around 2^64 seconds. The latest Unix second of a time.Time is {{TIME_LATEST_UNIX}}.
    private const long CalendarYear = {{TIME_CALENDAR_YEAR}};
    private const long CalendarOrigin = {{TIME_CALENDAR_ORIGIN}};
    private const long LatestUnix = {{TIME_LATEST_UNIX}};

    /// <summary>
    /// The time units × unit nanoseconds after the Unix epoch as Go prints it
    /// in UTC (Time.String: 2024-01-02 03:04:05.6 +0000 UTC), or "units × unit"
    /// when it is no time.Time's.
    /// </summary>
    internal static string TimeText(long units, long unit, string unitText)
    {
        // units × unit = 1e9 (units × us + uq × un) + ur × un, where unit =
        // us·1e9 + un and units = uq·1e9 + ur (0 <= ur < 1e9): the seconds,
        // floored, are the first two products (both of the sign of units)
        // and ur × un's seconds, each in range or the sum beyond int64.
        string beyond = units.ToString(Invariant) + " × " + unitText;
        long us = unit / 1000000000L, un = unit % 1000000000L;
        long uq = units / 1000000000L, ur = units % 1000000000L;
        if (ur < 0)
        {
            ur += 1000000000L;
            uq--;
        }
        long rest = ur * un; // below 1e18
        long b = uq * un + rest / 1000000000L, nsec = rest % 1000000000L;
        if (us != 0 && (units > long.MaxValue / us || units < long.MinValue / us))
            return beyond;
        long a = units * us;
        if (a > 0 && b > long.MaxValue - a || a < 0 && b < long.MinValue - a)
            return beyond;
        long sec = a + b;
        if (sec > LatestUnix)
            return beyond;
        // The civil date of the days since the calendar's March 1, in eras
        // of 400 years (146097 days) from a year that is one's first.
        ulong abs = unchecked((ulong)sec - (ulong)CalendarOrigin);
        ulong days = abs / 86400, clock = abs % 86400;
        ulong era = days / 146097, doe = days % 146097;
        ulong yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        ulong doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        ulong mp = (5 * doy + 2) / 153;
        ulong day = doy - (153 * mp + 2) / 5 + 1;
        ulong month = mp < 10 ? mp + 3 : mp - 9;
        long year = (long)(era * 400 + yoe) + CalendarYear + (month <= 2 ? 1 : 0);
        var t = new global::System.Text.StringBuilder();
        if (year < 0)
            t.Append('-');
        t.Append((year < 0 ? -year : year).ToString("D4", Invariant));
        t.Append('-').Append(month.ToString("D2", Invariant)).Append('-').Append(day.ToString("D2", Invariant));
        t.Append(' ').Append((clock / 3600).ToString("D2", Invariant)).Append(':').Append((clock / 60 % 60).ToString("D2", Invariant));
        t.Append(':').Append((clock % 60).ToString("D2", Invariant));
        if (nsec != 0)
            t.Append('.').Append(nsec.ToString("D9", Invariant).TrimEnd('0'));
        return t.Append(" +0000 UTC").ToString();
    }
}


/// <summary>String map keys in error paths, quoted as Go's strconv.Quote quotes them.</summary>
public static partial class Bitpack
{
    // The characters Go's strconv.IsPrint accepts, as ranges: hex numbers,
    // each range's distance from the end of the one before, then its length
    // minus one (generated from the Go that generated this file).
    private const string PrintableRanges = "{{PRINTABLE}}";
    private static int[] printable;

    private static bool IsPrint(int r)
    {
        int[] t = printable;
        if (t == null)
        {
            string[] parts = PrintableRanges.Split(',');
            t = new int[parts.Length];
            for (int i = 0, at = 0; i < parts.Length; i++)
            {
                at += global::System.Convert.ToInt32(parts[i], 16);
                t[i] = at;
            }
            printable = t;
        }
        int lo = 0, hi = t.Length / 2; // ranges [t[2k], t[2k+1]], ascending
        while (lo < hi)
        {
            int mid = (lo + hi) / 2;
            if (t[2 * mid + 1] < r)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < t.Length / 2 && t[2 * lo] <= r;
    }

    internal static string KeyText(string key)
    {
        global::System.Text.StringBuilder b = new global::System.Text.StringBuilder("\"");
        for (int i = 0; i < key.Length; i++)
        {
            int r = key[i];
            if (char.IsHighSurrogate(key[i]) && i + 1 < key.Length && char.IsLowSurrogate(key[i + 1]))
                r = char.ConvertToUtf32(key[i], key[++i]);
            else if (char.IsSurrogate(key[i]))
                r = 0xFFFD; // no UTF-8 form (refused when written)
            if (r == '"' || r == '\\')
                b.Append('\\').Append((char)r);
            else if (IsPrint(r))
                b.Append(char.ConvertFromUtf32(r));
            else if (r == 7)
                b.Append("\\a");
            else if (r == 8)
                b.Append("\\b");
            else if (r == 12)
                b.Append("\\f");
            else if (r == 10)
                b.Append("\\n");
            else if (r == 13)
                b.Append("\\r");
            else if (r == 9)
                b.Append("\\t");
            else if (r == 11)
                b.Append("\\v");
            else if (r < 0x20 || r == 0x7F)
                b.Append("\\x").Append(r.ToString("x2", Invariant));
            else if (r < 0x10000)
                b.Append("\\u").Append(r.ToString("x4", Invariant));
            else
                b.Append("\\U").Append(r.ToString("x8", Invariant));
        }
        return b.Append('"').ToString();
    }
}


/// <summary>Helpers the generated code shares, and Seal/Open framing.</summary>
public static partial class Bitpack
{
    internal static readonly byte[] NoBytes = new byte[0];

    // serialize's int_relative tiers beyond a difference of 1.
    internal static readonly int[] TierLow = { 2, 7, 24, 281, 4378 };
    internal static readonly int[] TierHigh = { 6, 23, 280, 4377, 69914 };
    internal static readonly int[] TierBits = { 3, 5, 9, 13, 17 }; // bits_required(low, high)

    [global::System.Runtime.InteropServices.StructLayout(global::System.Runtime.InteropServices.LayoutKind.Explicit)]
    private struct FloatBits
    {
        [global::System.Runtime.InteropServices.FieldOffset(0)] public uint Bits;
        [global::System.Runtime.InteropServices.FieldOffset(0)] public float Value;
    }

    /// <summary>The float with these IEEE-754 bits (some runtimes quiet a signalling NaN).</summary>
    public static float Float32FromBits(uint bits)
    {
        FloatBits f = new FloatBits();
        f.Bits = bits;
        return f.Value;
    }

    public static uint Float32Bits(float value)
    {
        FloatBits f = new FloatBits();
        f.Value = value;
        return f.Bits;
    }

    public static double Float64FromBits(ulong bits) { return global::System.BitConverter.Int64BitsToDouble((long)bits); }

    internal static string JoinPath(string segment, string path)
    {
        if (string.IsNullOrEmpty(path))
            return segment;
        if (path[0] == '[' || path[0] == '(')
            return segment + path;
        return segment + "." + path;
    }

    internal static string Message(string op, string type, string path, int bit, string detail)
    {
        string where = "";
        if (path != "")
            where = "field " + path + (bit >= 0 ? " at bit " + bit : "") + ": ";
        else if (bit >= 0)
            where = "at bit " + bit + ": ";
        return "bitpack: " + op + " " + type + ": " + where + detail;
    }

    internal static string Binary(uint bits)
    {
        return "0b" + global::System.Convert.ToString((long)bits, 2);
    }

    // Map keys: numbers and bools print as Go prints them in an error's path
    // (Scores[7], Flags[true]); strings are quoted (KeyText(string), in the
    // part of the runtime files with string keys carry).
    internal static string KeyText(long key) { return key.ToString(Invariant); }
    internal static string KeyText(ulong key) { return key.ToString(Invariant); }
    internal static string KeyText(bool key) { return key ? "true" : "false"; }

    /// <summary>Orders strings by their UTF-8 bytes (code points), as bitpack orders string keys; C#'s ordinal order puts U+E000-U+FFFF after the supplementary planes.</summary>
    internal static int CompareKeys(string a, string b)
    {
        int n = a.Length < b.Length ? a.Length : b.Length;
        for (int i = 0; i < n; i++)
        {
            int x = a[i], y = b[i];
            if (x == y)
                continue;
            if (x >= 0xD800 && y >= 0xD800) // surrogates (code points past U+FFFF) go above U+E000-U+FFFF
            {
                x = x >= 0xE000 ? x - 0x800 : x + 0x2000;
                y = y >= 0xE000 ? y - 0x800 : y + 0x2000;
            }
            return x < y ? -1 : 1;
        }
        return a.Length.CompareTo(b.Length);
    }

    private sealed class KeyComparer : global::System.Collections.Generic.IComparer<string>
    {
        public int Compare(string a, string b) { return CompareKeys(a, b); }
    }

    internal static readonly global::System.Collections.Generic.IComparer<string> KeyOrder = new KeyComparer();

    /// <summary>Why bytes p[at..at+n) are no string bitpack accepts (Go's UTF-8 rules, no NUL), or null.</summary>
    internal static string TextProblem(byte[] p, int at, int n)
    {
        for (int i = 0; i < n; i++)
        {
            if (p[at + i] == 0)
                return "NUL byte at offset " + i;
        }
        int k = 0;
        while (k < n)
        {
            int c = p[at + k];
            if (c < 0x80)
            {
                k++;
                continue;
            }
            int length = 0, low = 0x80, high = 0xBF; // the second byte's range
            if (c >= 0xC2 && c <= 0xDF)
                length = 2;
            else if (c == 0xE0)
            {
                length = 3;
                low = 0xA0;
            }
            else if (c == 0xED)
            {
                length = 3;
                high = 0x9F;
            }
            else if (c >= 0xE1 && c <= 0xEF)
                length = 3;
            else if (c == 0xF0)
            {
                length = 4;
                low = 0x90;
            }
            else if (c == 0xF4)
            {
                length = 4;
                high = 0x8F;
            }
            else if (c >= 0xF1 && c <= 0xF3)
                length = 4;
            bool ok = length > 0 && n - k >= length && p[at + k + 1] >= low && p[at + k + 1] <= high;
            for (int j = 2; ok && j < length; j++)
                ok = p[at + k + j] >= 0x80 && p[at + k + j] <= 0xBF;
            if (!ok)
                return "invalid UTF-8 at offset " + k;
            k += length;
        }
        return null;
    }

    /// <summary>Why a string cannot travel (a NUL, a lone surrogate), or null. Offsets count UTF-8 bytes.</summary>
    internal static string StringProblem(string s)
    {
        int offset = 0;
        for (int i = 0; i < s.Length; i++)
        {
            char c = s[i];
            if (c == 0)
                return "NUL byte at offset " + offset;
            if (char.IsHighSurrogate(c) && i + 1 < s.Length && char.IsLowSurrogate(s[i + 1]))
            {
                i++;
                offset += 4;
                continue;
            }
            if (char.IsSurrogate(c))
                return "invalid UTF-8 at offset " + offset + " (a lone surrogate)";
            offset += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
        return null;
    }

    private static uint[] crcTable;

    private static uint[] CrcTable()
    {
        uint[] table = crcTable;
        if (table != null)
            return table;
        table = new uint[256];
        for (uint i = 0; i < 256; i++)
        {
            uint c = i;
            for (int k = 0; k < 8; k++)
                c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
            table[i] = c;
        }
        crcTable = table;
        return table;
    }

    /// <summary>CRC32 (IEEE) continued from crc over p[offset..offset+count).</summary>
    public static uint Crc32(uint crc, byte[] p, int offset, int count)
    {
        uint[] table = CrcTable();
        crc = ~crc;
        for (int i = offset; i < offset + count; i++)
            crc = table[(byte)crc ^ p[i]] ^ crc >> 8;
        return ~crc;
    }

    private static uint FrameCrc(uint protocolId, byte[] payload, int offset, int count)
    {
        byte[] header = { (byte)protocolId, (byte)(protocolId >> 8), (byte)(protocolId >> 16), (byte)(protocolId >> 24), 0, 0, 0, 0 };
        return Crc32(Crc32(0, header, 0, 8), payload, offset, count);
    }

    /// <summary>
    /// bitpack.Seal: the CRC32 of the protocol id's 4 little-endian bytes,
    /// four zero bytes and the payload, little-endian, then the payload. Mix
    /// a type's Fingerprint into the id as the Go side does. A CRC catches
    /// accidents and foreign traffic, not attackers.
    /// </summary>
    public static byte[] Seal(uint protocolId, byte[] payload)
    {
        if (payload == null)
            payload = NoBytes;
        uint crc = FrameCrc(protocolId, payload, 0, payload.Length);
        byte[] packet = new byte[4 + payload.Length];
        for (int i = 0; i < 4; i++)
            packet[i] = (byte)(crc >> (8 * i));
        global::System.Buffer.BlockCopy(payload, 0, packet, 4, payload.Length);
        return packet;
    }

    /// <summary>bitpack.Open: the payload of a sealed packet, or false when it is shorter than 4 bytes or its CRC does not match.</summary>
    public static bool Open(uint protocolId, byte[] packet, out byte[] payload)
    {
        payload = null;
        if (packet == null || packet.Length < 4)
            return false;
        uint stored = (uint)packet[0] | (uint)packet[1] << 8 | (uint)packet[2] << 16 | (uint)packet[3] << 24;
        if (stored != FrameCrc(protocolId, packet, 4, packet.Length - 4))
            return false;
        payload = new byte[packet.Length - 4];
        global::System.Buffer.BlockCopy(packet, 4, payload, 0, payload.Length);
        return true;
    }

    /// <summary>Fails a write of a fixed-size array that is null or of another length.</summary>
    internal static bool FixedLength(ref BitpackWriter w, global::System.Array a, int length)
    {
        if (a != null && a.Length == length)
            return true;
        return w.Fail(BitpackErrorKind.Range, (a == null ? "null" : a.Length + " elements") + " for an array of " + length);
    }

    internal static bool Absent(ref BitpackWriter w, string what)
    {
        return w.Fail(BitpackErrorKind.Range, "null " + what + ": only a Go pointer may be absent");
    }
}


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

    /// <summary>The CRC32 (IEEE) of value's 4 little-endian bytes.</summary>
    public static uint Crc32Word(uint value)
    {
        uint[] table = CrcTable();
        uint crc = 0xFFFFFFFFu;
        for (int i = 0; i < 4; i++, value >>= 8)
            crc = table[(byte)crc ^ (byte)value] ^ crc >> 8;
        return ~crc;
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

    // FrameCrc is the CRC32 of the protocol id's 4 little-endian bytes, four
    // zero bytes and the payload.
    private static uint FrameCrc(uint protocolId, byte[] payload, int offset, int count)
    {
        uint[] table = CrcTable();
        uint crc = 0xFFFFFFFFu;
        for (int i = 0; i < 8; i++)
            crc = table[(byte)crc ^ (i < 4 ? (byte)(protocolId >> (8 * i)) : 0)] ^ crc >> 8;
        return Crc32(~crc, payload, offset, count);
    }

    /// <summary>Refuses bytes offset to offset+count that are not bytes of a (name: the parameter's).</summary>
    internal static void CheckSegment(byte[] a, int offset, int count, string name)
    {
        if (a == null)
            throw new global::System.ArgumentNullException(name);
        if (offset < 0 || count < 0 || offset > a.Length - count)
            throw new global::System.ArgumentOutOfRangeException(name, "bytes " + offset + " to " + ((long)offset + count) + " of an array of " + a.Length);
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
        byte[] packet = new byte[4 + payload.Length];
        Seal(protocolId, payload, 0, payload.Length, packet, 0);
        return packet;
    }

    /// <summary>
    /// Seal without allocating: writes the sealed packet of the count bytes
    /// of payload from offset on into destination from destinationOffset on
    /// and returns its length, count + 4. The two may be one array: a
    /// payload written 4 bytes into a buffer is sealed in place by
    /// Seal(id, buffer, 4, n, buffer, 0).
    /// </summary>
    /// <exception cref="global::System.ArgumentException">destination has fewer than count + 4 bytes from destinationOffset on.</exception>
    public static int Seal(uint protocolId, byte[] payload, int offset, int count, byte[] destination, int destinationOffset)
    {
        CheckSegment(payload, offset, count, "payload");
        if (destination == null)
            throw new global::System.ArgumentNullException("destination");
        if (destinationOffset < 0 || destinationOffset > destination.Length || destination.Length - destinationOffset < 4L + count)
            throw new global::System.ArgumentException("the sealed packet needs " + (4L + count) + " bytes from offset " + destinationOffset + " of an array of " + destination.Length, "destination");
        uint crc = FrameCrc(protocolId, payload, offset, count);
        global::System.Buffer.BlockCopy(payload, offset, destination, destinationOffset + 4, count); // as memmove: the two may overlap
        for (int i = 0; i < 4; i++)
            destination[destinationOffset + i] = (byte)(crc >> (8 * i));
        return count + 4;
    }

    /// <summary>Seal(protocolId, payload's array, offset, count, destination's array, offset), refusing a packet longer than destination: returns the packet's length.</summary>
    /// <exception cref="global::System.ArgumentException">destination spans fewer than payload.Count + 4 bytes.</exception>
    public static int Seal(uint protocolId, global::System.ArraySegment<byte> payload, global::System.ArraySegment<byte> destination)
    {
        if (destination.Count < 4L + payload.Count)
            throw new global::System.ArgumentException("the sealed packet needs " + (4L + payload.Count) + " bytes, destination spans " + destination.Count, "destination");
        return Seal(protocolId, payload.Array, payload.Offset, payload.Count, destination.Array, destination.Offset);
    }

    /// <summary>bitpack.Open: the payload of a sealed packet, or false when it is shorter than 4 bytes or its CRC does not match.</summary>
    public static bool Open(uint protocolId, byte[] packet, out byte[] payload)
    {
        payload = null;
        int at, n;
        if (packet == null || !Open(protocolId, packet, 0, packet.Length, out at, out n))
            return false;
        payload = new byte[n];
        global::System.Buffer.BlockCopy(packet, at, payload, 0, n);
        return true;
    }

    /// <summary>
    /// Open without copying: checks the sealed packet in the count bytes of
    /// packet from offset on and gives where its payload is in packet
    /// (payloadOffset = offset + 4, payloadCount = count - 4); false, with
    /// both 0, when it is shorter than 4 bytes or its CRC does not match.
    /// </summary>
    /// <exception cref="global::System.ArgumentOutOfRangeException">offset and count do not name bytes of packet.</exception>
    public static bool Open(uint protocolId, byte[] packet, int offset, int count, out int payloadOffset, out int payloadCount)
    {
        CheckSegment(packet, offset, count, "packet");
        payloadOffset = payloadCount = 0;
        if (count < 4)
            return false;
        uint stored = (uint)packet[offset] | (uint)packet[offset + 1] << 8 | (uint)packet[offset + 2] << 16 | (uint)packet[offset + 3] << 24;
        if (stored != FrameCrc(protocolId, packet, offset + 4, count - 4))
            return false;
        payloadOffset = offset + 4;
        payloadCount = count - 4;
        return true;
    }

    /// <summary>Open over the bytes packet spans: payload is the part of them that is the payload (default when it returns false).</summary>
    public static bool Open(uint protocolId, global::System.ArraySegment<byte> packet, out global::System.ArraySegment<byte> payload)
    {
        int at, n;
        payload = default(global::System.ArraySegment<byte>);
        if (!Open(protocolId, packet.Array, packet.Offset, packet.Count, out at, out n))
            return false;
        payload = new global::System.ArraySegment<byte>(packet.Array, at, n);
        return true;
    }

    // The arrays writers sort maps' keys in, kept for the next write: a
    // stack per key type and thread (a map inside a map's value takes the
    // next array), each Take paired with a Release in a finally.
    private static class KeyStack<K>
    {
        [global::System.ThreadStatic] internal static K[][] Arrays;
        [global::System.ThreadStatic] internal static int Top;
    }

    /// <summary>An array of at least n keys to sort a map's in, the writer's until ReleaseKeys.</summary>
    internal static K[] TakeKeys<K>(int n)
    {
        K[][] arrays = KeyStack<K>.Arrays;
        int top = KeyStack<K>.Top;
        if (arrays == null || top == arrays.Length)
        {
            global::System.Array.Resize(ref arrays, top < 4 ? 4 : 2 * top);
            KeyStack<K>.Arrays = arrays;
        }
        K[] keys = arrays[top];
        if (keys == null || keys.Length < n)
            arrays[top] = keys = new K[n < 16 ? 16 : n];
        KeyStack<K>.Top = top + 1;
        return keys;
    }

    /// <summary>Copies m's keys into keys from 0 on (Keys.CopyTo allocates under mono).</summary>
    internal static void CopyKeys<K, V>(global::System.Collections.Generic.Dictionary<K, V> m, K[] keys)
    {
        int i = 0;
        foreach (global::System.Collections.Generic.KeyValuePair<K, V> kv in m)
            keys[i++] = kv.Key;
    }

    /// <summary>Sorts the first n keys in their natural order (numbers by value, false before true), allocating nothing (Array.Sort allocates under mono).</summary>
    internal static void SortKeys<K>(K[] keys, int n) where K : global::System.IComparable<K>
    {
        Sort(keys, n, new NaturalOrder<K>());
    }

    /// <summary>Sorts the first n keys in order's order, allocating nothing (an enum's keys: order is its Order_ comparer).</summary>
    internal static void SortKeys<K, O>(K[] keys, int n, O order) where O : struct, global::System.Collections.Generic.IComparer<K>
    {
        Sort(keys, n, order);
    }

    /// <summary>Sorts the first n string keys by their UTF-8 bytes (CompareKeys), allocating nothing.</summary>
    internal static void SortStringKeys(string[] keys, int n)
    {
        Sort(keys, n, new StringKeyOrder());
    }

    private struct NaturalOrder<K> : global::System.Collections.Generic.IComparer<K> where K : global::System.IComparable<K>
    {
        public int Compare(K a, K b) { return a.CompareTo(b); }
    }

    private struct StringKeyOrder : global::System.Collections.Generic.IComparer<string>
    {
        public int Compare(string a, string b) { return CompareKeys(a, b); }
    }

    // Sort is a heapsort of keys[0..n) (distinct keys: a map's), by
    // insertion below 16 keys.
    private static void Sort<K, O>(K[] keys, int n, O order) where O : struct, global::System.Collections.Generic.IComparer<K>
    {
        if (n <= 16)
        {
            for (int i = 1; i < n; i++)
            {
                K key = keys[i];
                int j = i - 1;
                for (; j >= 0 && order.Compare(keys[j], key) > 0; j--)
                    keys[j + 1] = keys[j];
                keys[j + 1] = key;
            }
            return;
        }
        for (int i = n / 2 - 1; i >= 0; i--)
            SiftDown(keys, i, n, order);
        for (int end = n - 1; end > 0; end--)
        {
            K top = keys[0];
            keys[0] = keys[end];
            keys[end] = top;
            SiftDown(keys, 0, end, order);
        }
    }

    private static void SiftDown<K, O>(K[] keys, int i, int n, O order) where O : struct, global::System.Collections.Generic.IComparer<K>
    {
        K key = keys[i];
        for (int child = 2 * i + 1; child < n; child = 2 * i + 1)
        {
            if (child + 1 < n && order.Compare(keys[child + 1], keys[child]) > 0)
                child++;
            if (order.Compare(keys[child], key) <= 0)
                break;
            keys[i] = keys[child];
            i = child;
        }
        keys[i] = key;
    }

    /// <summary>Gives back the array TakeKeys gave last.</summary>
    internal static void ReleaseKeys<K>() { KeyStack<K>.Top--; }

    /// <summary>The result of a write into a caller's buffer: its length, or the error (the value's, or that the buffer is too small).</summary>
    internal static bool Written(ref BitpackWriter w, bool ok, int count, string type, out int bytesWritten, out string error)
    {
        bytesWritten = 0;
        if (!ok)
        {
            error = w.Error(type);
            return false;
        }
        if (!w.InGivenBuffer())
        {
            error = Message("encode", type, "", -1, "the packet needs " + w.BytesWritten + " bytes, the buffer has " + count);
            return false;
        }
        bytesWritten = w.BytesWritten;
        error = null;
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

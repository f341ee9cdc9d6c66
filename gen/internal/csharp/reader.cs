// ---------------------------------------------------------------------------
// bitpack's wire, in C#: every file bitpack generates carries these classes
// (keep one namespace per generated file). Bits are packed least significant
// first, as serialize packs them; nothing here allocates on the read path
// but the values it returns.

/// <summary>What kind of refusal a reader or writer recorded, as the Go side's sentinel errors.</summary>
public enum BitpackErrorKind
{
    None,
    Overflow,      // the packet ends before the value does (bitpack.ErrOverflow)
    Range,         // a value outside what its tag allows (bitpack.ErrRange)
    Padding,       // non-zero alignment padding (bitpack.ErrPadding)
    InvalidString, // not UTF-8, or a NUL (bitpack.ErrInvalidString)
    Check,         // a check hash that does not match (bitpack.ErrCheck)
    Trailing,      // whole bytes after the value (bitpack.ErrTrailing)
}

/// <summary>Holds a pointer's pointee where the pointee can itself be null (a Go **T).</summary>
public sealed class BitpackBox<T>
{
    public T Value;

    public BitpackBox() { }
    public BitpackBox(T value) { Value = value; }
}

/// <summary>
/// Reads bitpack's bits from a packet. A failed read records the first
/// error (its kind, bit, path and what is wrong) and returns false; the
/// generated code then returns false too, naming its field on the way out.
/// </summary>
public partial struct BitpackReader
{
    private readonly byte[] data;
    private int pos;
    private readonly int end;
    private BitpackErrorKind kind;
    private int errorBit;
    private string errorPath, errorDetail;
    private long workLimit, workSpent, bytesLimit, bytesSpent; // the allowances (see Charge), and what the read has spent

    public BitpackReader(byte[] packet)
    {
        data = packet ?? Bitpack.NoBytes;
        pos = 0;
        end = data.Length <= int.MaxValue / 8 ? 8 * data.Length : 0;
        kind = BitpackErrorKind.None;
        errorBit = 0;
        errorPath = errorDetail = null;
        workSpent = 0;
        bytesSpent = {{ALLOW_OVERHEAD}};
        workLimit = {{ALLOW_WORK_BASE}} + {{ALLOW_WORK_PER_BIT}}L * end;
        bytesLimit = {{ALLOW_BYTES_BASE}} + {{ALLOW_BYTES_PER_BIT}}L * end;
        if (data.Length > int.MaxValue / 8)
            Fail(BitpackErrorKind.Range, 0, "packet of " + data.Length + " bytes is too large to address in bits");
    }

    public int BitsRead { get { return pos; } }
    public int BitsRemaining { get { return end - pos; } }
    public bool Failed { get { return kind != BitpackErrorKind.None; } }
    public BitpackErrorKind ErrorKind { get { return kind; } }
    public int ErrorBit { get { return errorBit; } }
    public string ErrorPath { get { return errorPath ?? ""; } }
    public string ErrorDetail { get { return errorDetail ?? ""; } }

    /// <summary>Records a refusal at bit (the first one wins) and returns false.</summary>
    public bool Fail(BitpackErrorKind why, int bit, string detail)
    {
        if (kind == BitpackErrorKind.None)
        {
            kind = why;
            errorBit = bit;
            errorPath = "";
            errorDetail = detail;
        }
        return false;
    }

    /// <summary>Refuses the value being read, at the current bit: for hand-written Read methods.</summary>
    public bool Fail(string detail) { return Fail(BitpackErrorKind.Range, pos, detail); }

    /// <summary>Prefixes the error's field path with segment ("Players[3]", "Pos") and returns false.</summary>
    public bool At(string segment)
    {
        errorPath = Bitpack.JoinPath(segment, errorPath);
        return false;
    }

    /// <summary>The error as bitpack words it: "bitpack: decode T: field P at bit N: what".</summary>
    public string Error(string type)
    {
        return Bitpack.Message("decode", type, ErrorPath, errorBit, ErrorDetail);
    }

    /// <summary>Refuses whole bytes left after the value, as bitpack.Unmarshal does.</summary>
    public bool Finish()
    {
        if (end - pos >= 8)
        {
            int n = (end - pos) / 8;
            return Fail(BitpackErrorKind.Trailing, pos, n == 1 ? "1 trailing byte after the value" : n + " trailing bytes after the value");
        }
        return true;
    }

    private bool Overflow(int n)
    {
        return Fail(BitpackErrorKind.Overflow, pos, "needs " + n + " bits, " + (end - pos) + " remain");
    }

    /// <summary>Reads n bits, 0 &lt;= n &lt;= 32.</summary>
    public bool ReadBits(int n, out uint value)
    {
        value = 0;
        if (n > end - pos)
            return Overflow(n);
        if (n <= 0)
            return true;
        int first = pos >> 3, last = (pos + n - 1) >> 3;
        ulong word = 0;
        for (int i = last; i >= first; i--)
            word = (word << 8) | data[i];
        value = (uint)(word >> (pos & 7)) & (0xFFFFFFFFu >> (32 - n));
        pos += n;
        return true;
    }

    /// <summary>Reads n bits, 0 &lt;= n &lt;= 64: the low 32 first, as the stream holds them.</summary>
    public bool ReadBits64(int n, out ulong value)
    {
        uint low, high = 0;
        value = 0;
        if (n > end - pos)
            return Overflow(n);
        if (!ReadBits(n < 32 ? n : 32, out low) || (n > 32 && !ReadBits(n - 32, out high)))
            return false;
        value = (ulong)high << 32 | low;
        return true;
    }

    public bool ReadBool(out bool value)
    {
        uint bit;
        bool ok = ReadBits(1, out bit);
        value = bit != 0;
        return ok;
    }

    /// <summary>Reads an n-bit two's complement integer, sign-extended.</summary>
    public bool ReadSigned(int n, out long value)
    {
        ulong bits;
        value = 0;
        if (!ReadBits64(n, out bits))
            return false;
        if (n < 64 && (bits >> (n - 1) & 1) != 0)
            bits |= ulong.MaxValue << n;
        value = (long)bits;
        return true;
    }

    /// <summary>Reads range=min..min+span: the offset from min in n bits.</summary>
    public bool ReadUintRange(int n, ulong min, ulong span, out ulong value)
    {
        if (n == 0)
        {
            // A range of one value takes no bits: the allowances let a
            // packet claim tens of thousands of them, so no calls for each.
            value = min;
            return true;
        }
        int start = pos;
        ulong offset;
        value = 0;
        if (!ReadBits64(n, out offset))
            return false;
        if (offset > span)
            return Fail(BitpackErrorKind.Range, start, "value " + (min + offset) + " out of range [" + min + ", " + (min + span) + "]");
        value = min + offset;
        return true;
    }

    public bool ReadIntRange(int n, long min, ulong span, out long value)
    {
        if (n == 0)
        {
            value = min; // see ReadUintRange
            return true;
        }
        int start = pos;
        ulong offset;
        value = 0;
        if (!ReadBits64(n, out offset))
            return false;
        if (offset > span)
            return Fail(BitpackErrorKind.Range, start, "value " + (long)((ulong)min + offset) + " out of range [" + min + ", " + (long)((ulong)min + span) + "]");
        value = (long)((ulong)min + offset);
        return true;
    }

    public bool ReadFloat32(out float value)
    {
        uint bits;
        bool ok = ReadBits(32, out bits);
        value = Bitpack.Float32FromBits(bits);
        return ok;
    }

    public bool ReadFloat64(out double value)
    {
        ulong bits;
        bool ok = ReadBits64(64, out bits);
        value = global::System.BitConverter.Int64BitsToDouble((long)bits);
        return ok;
    }

    /// <summary>A compressed float32: a code in [0, steps] in n bits, decoded with every step rounded to float.</summary>
    public bool ReadCompressed32(int n, uint steps, float delta, float min, out float value)
    {
        int start = pos;
        uint code;
        value = 0;
        if (!ReadBits(n, out code))
            return false;
        if (code > steps)
            return Fail(BitpackErrorKind.Range, start, "compressed float code " + code + " out of range [0, " + steps + "]");
        float normalized = (float)((float)code / (float)steps);
        value = (float)((float)(normalized * delta) + min);
        return true;
    }

    public bool ReadCompressed64(int n, uint steps, double delta, double min, out double value)
    {
        int start = pos;
        uint code;
        value = 0;
        if (!ReadBits(n, out code))
            return false;
        if (code > steps)
            return Fail(BitpackErrorKind.Range, start, "compressed float code " + code + " out of range [0, " + steps + "]");
        double normalized = (double)((double)code / (double)steps);
        value = (double)((double)(normalized * delta) + min);
        return true;
    }

    /// <summary>
    /// Reads a slice's length (n bits, at most maxlen), checks it against the
    /// bits left at each bits an element (see CheckCount) and charges its
    /// elements of work values and size bytes (times: 2 for elements with
    /// fields off the wire), all before anything is allocated.
    /// </summary>
    public bool ReadLength(int n, int maxlen, long each, long work, long size, int times, out int length)
    {
        int start = pos;
        uint v;
        length = 0;
        if (!ReadBits(n, out v))
            return false;
        if (v > (uint)maxlen)
            return Fail(BitpackErrorKind.Range, start, "length " + v + " exceeds maxlen " + maxlen);
        if (!CheckCount(v, each, "element", "elements") || !ChargeValues(v, work, size, times, start))
            return false;
        length = (int)v;
        return true;
    }

    /// <summary>A sparse slice's length (n bits, at most maxlen), its slots charged.</summary>
    public bool ReadSlots(int n, int maxlen, out int length)
    {
        int start = pos;
        uint v;
        length = 0;
        if (!ReadBits(n, out v))
            return false;
        if (v > (uint)maxlen)
            return Fail(BitpackErrorKind.Range, start, "length " + v + " exceeds maxlen " + maxlen);
        if (!ChargeSlots(v, start))
            return false;
        length = (int)v;
        return true;
    }

    /// <summary>A pointer's presence bit; a pointee of work values and size bytes is charged at it.</summary>
    public bool ReadPresence(long work, long size, out bool present)
    {
        int start = pos;
        return ReadBool(out present) && (!present || ChargeValue(work, size, start));
    }

    /// <summary>Skips to the next byte boundary; the padding bits must be zero.</summary>
    public bool Align()
    {
        int start = pos;
        int pad = -pos & 7;
        uint bits;
        if (!ReadBits(pad, out bits))
            return false;
        if (bits != 0)
            return Fail(BitpackErrorKind.Padding, start, "padding bits " + Bitpack.Binary(bits) + " are not zero");
        return true;
    }

    /// <summary>Aligns, then fills dst from the packet.</summary>
    public bool ReadByteArray(byte[] dst)
    {
        if (!Align())
            return false;
        if (dst.Length > (end - pos) / 8)
            return Fail(BitpackErrorKind.Overflow, pos, "needs " + 8L * dst.Length + " bits, " + (end - pos) + " remain");
        global::System.Buffer.BlockCopy(data, pos >> 3, dst, 0, dst.Length);
        pos += 8 * dst.Length;
        return true;
    }

    /// <summary>A []byte: its length (n bits, at most maxlen), align, the bytes, into value when it has that length.</summary>
    public bool ReadByteSlice(int n, int maxlen, ref byte[] value)
    {
        int start = pos;
        uint length;
        if (!ReadBits(n, out length))
            return false;
        if (length > (uint)maxlen)
            return Fail(BitpackErrorKind.Range, start, "length " + length + " exceeds maxlen " + maxlen);
        if (!Align())
            return false;
        if (length > (uint)((end - pos) / 8))
            return Fail(BitpackErrorKind.Overflow, start, "needs " + length + " bytes, " + (end - pos) / 8 + " remain");
        if (!ChargeValue(0, length, start))
            return false;
        if (value == null || value.Length != length)
            value = length == 0 ? Bitpack.NoBytes : new byte[length];
        global::System.Buffer.BlockCopy(data, pos >> 3, value, 0, (int)length);
        pos += 8 * (int)length;
        return true;
    }

    /// <summary>A string: its length in bytes (n bits, at most maxlen), align, UTF-8 with no NUL; its bytes charged.</summary>
    public bool ReadString(int n, int maxlen, out string value)
    {
        int start = pos;
        int length;
        return ReadText(n, maxlen, out value, out length) && ChargeValue(0, length, start);
    }

    // ReadText is ReadString without the charge, and the string's length
    // in bytes.
    private bool ReadText(int n, int maxlen, out string value, out int byteLength)
    {
        int start = pos;
        uint length;
        value = "";
        byteLength = 0;
        if (!ReadBits(n, out length))
            return false;
        if (length > (uint)maxlen)
            return Fail(BitpackErrorKind.Range, start, "length " + length + " exceeds maxlen " + maxlen);
        if (!Align())
            return false;
        if (length > (uint)((end - pos) / 8))
            return Fail(BitpackErrorKind.Overflow, pos, "needs " + length + " bytes, " + (end - pos) / 8 + " remain");
        int at = pos >> 3;
        string problem = Bitpack.TextProblem(data, at, (int)length);
        if (problem != null)
            return Fail(BitpackErrorKind.InvalidString, start, problem);
        if (length > 0)
            value = global::System.Text.Encoding.UTF8.GetString(data, at, (int)length);
        pos += 8 * (int)length;
        byteLength = (int)length;
        return true;
    }

    /// <summary>
    /// An index written as serialize's int_relative from previous, with
    /// bitpack's rules: it must increase, fit int32, and be sent in the
    /// smallest tier that holds the difference.
    /// </summary>
    public bool ReadIntRelative(int previous, out int current)
    {
        int start = pos;
        bool flag;
        current = 0;
        if (!ReadBool(out flag))
            return false;
        long difference = 1;
        if (!flag)
        {
            difference = 0;
            for (int tier = 0; tier < 5 && difference == 0; tier++)
            {
                if (!ReadBool(out flag))
                    return false;
                if (!flag)
                    continue;
                uint offset;
                if (!ReadBits(Bitpack.TierBits[tier], out offset))
                    return false;
                difference = Bitpack.TierLow[tier] + offset;
                if (difference > Bitpack.TierHigh[tier])
                    return Fail(BitpackErrorKind.Range, start, "difference " + difference + " out of tier range [" + Bitpack.TierLow[tier] + ", " + Bitpack.TierHigh[tier] + "]");
            }
            if (difference == 0)
            {
                uint bits;
                if (!ReadBits(32, out bits))
                    return false;
                int absolute = (int)bits;
                if (absolute <= previous)
                    return Fail(BitpackErrorKind.Range, start, "current " + absolute + " is not greater than previous " + previous);
                if ((long)absolute - previous <= Bitpack.TierHigh[4])
                    return Fail(BitpackErrorKind.Range, start, "difference " + ((long)absolute - previous) + " sent in the absolute tier (non-canonical)");
                current = absolute;
                return true;
            }
        }
        if (previous + difference > int.MaxValue)
            return Fail(BitpackErrorKind.Range, start, "previous " + previous + " + difference " + difference + " overflows int32");
        current = (int)(previous + difference);
        return true;
    }

    /// <summary>A map's count (n bits, at most maxlen), checked against the bits left at each bits an entry and its entries of work values and a slot of slot bytes charged, before anything is allocated.</summary>
    public bool ReadCount(int n, int maxlen, long each, long work, long slot, out int count)
    {
        int start = pos;
        uint v;
        count = 0;
        if (!ReadBits(n, out v))
            return false;
        if (v > (uint)maxlen)
            return Fail(BitpackErrorKind.Range, start, v + " entries exceed maxlen " + maxlen);
        if (!CheckCount(v, each, "entry", "entries") || !ChargeEntries(v, work, slot, start))
            return false;
        count = (int)v;
        return true;
    }

    /// <summary>
    /// A smallest-three quaternion of bits per component: refuses codes above
    /// M = 2^bits - 2 and codes that are not canonical, as bitpack does.
    /// </summary>
    public bool ReadQuat(int bits, out float x, out float y, out float z, out float w)
    {
        uint largest, c0, c1, c2;
        return ReadQuatCodes(bits, out largest, out c0, out c1, out c2, out x, out y, out z, out w);
    }

    /// <summary>ReadQuat, giving the code read too (the index of the largest component, the other three's codes).</summary>
    public bool ReadQuatCodes(int bits, out uint largest, out uint c0, out uint c1, out uint c2, out float x, out float y, out float z, out float w)
    {
        int start = pos;
        x = y = z = w = 0;
        c0 = c1 = c2 = 0;
        if (!ReadBits(2, out largest) || !ReadBits(bits, out c0) || !ReadBits(bits, out c1) || !ReadBits(bits, out c2))
            return false;
        uint steps = (1u << bits) - 2;
        if (c0 > steps || c1 > steps || c2 > steps)
            return Fail(BitpackErrorKind.Range, start, "quaternion component code " + (c0 > steps ? c0 : c1 > steps ? c1 : c2) + " out of range [0, " + steps + "]");
        if (Bitpack.QuatDecode(largest, c0, c1, c2, steps, out x, out y, out z, out w))
            return true;
        uint back = 0; // the index the decoded quaternion encodes with: the largest, the last on a tie
        float best = global::System.Math.Abs(x);
        if (global::System.Math.Abs(y) >= best)
        {
            back = 1;
            best = global::System.Math.Abs(y);
        }
        if (global::System.Math.Abs(z) >= best)
        {
            back = 2;
            best = global::System.Math.Abs(z);
        }
        if (global::System.Math.Abs(w) >= best)
            back = 3;
        return Fail(BitpackErrorKind.Range, start, "quaternion code (index " + largest + ", codes " + c0 + " " + c1 + " " + c2 +
            ") is not canonical: it decodes to " + Bitpack.QuatText(x, y, z, w) + ", which encodes with index " + back);
    }

    /// <summary>A union's type index in n bits, below count.</summary>
    public bool ReadIndex(int n, int count, out int index)
    {
        int start = pos;
        uint v;
        index = 0;
        if (!ReadBits(n, out v))
            return false;
        if (v >= (uint)count)
            return Fail(BitpackErrorKind.Range, start, "union index " + v + " out of range [0, " + (count - 1) + "]");
        index = (int)v;
        return true;
    }

    /// <summary>A check: align, then the 32-bit hash of its name.</summary>
    public bool ReadCheck(uint hash, string name)
    {
        int start = pos;
        uint v;
        if (!Align() || !ReadBits(32, out v))
            return false;
        if (v != hash)
            return Fail(BitpackErrorKind.Check, start, "check \"" + name + "\" read 0x" + v.ToString("x8") + ", want 0x" + hash.ToString("x8") + ": reader and writer disagree before this point");
        return true;
    }
}

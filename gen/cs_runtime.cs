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
public struct BitpackReader
{
    private readonly byte[] data;
    private int pos;
    private readonly int end;
    private BitpackErrorKind kind;
    private int errorBit;
    private string errorPath, errorDetail;

    public BitpackReader(byte[] packet)
    {
        data = packet ?? Bitpack.NoBytes;
        pos = 0;
        end = data.Length <= int.MaxValue / 8 ? 8 * data.Length : 0;
        kind = BitpackErrorKind.None;
        errorBit = 0;
        errorPath = errorDetail = null;
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
    /// Reads a slice's length (n bits, at most maxlen) and refuses, before
    /// anything is allocated, a length whose elements of at least elemBits
    /// each cannot fit in what is left of the packet.
    /// </summary>
    public bool ReadLength(int n, int maxlen, int elemBits, out int length)
    {
        int start = pos;
        uint v;
        length = 0;
        if (!ReadBits(n, out v))
            return false;
        if (v > (uint)maxlen)
            return Fail(BitpackErrorKind.Range, start, "length " + v + " exceeds maxlen " + maxlen);
        if (elemBits > 0 && (long)v * elemBits > end - pos)
            return Fail(BitpackErrorKind.Overflow, pos, v + " elements need at least " + (long)v * elemBits + " bits, " + (end - pos) + " remain");
        length = (int)v;
        return true;
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
        if (value == null || value.Length != length)
            value = length == 0 ? Bitpack.NoBytes : new byte[length];
        global::System.Buffer.BlockCopy(data, pos >> 3, value, 0, (int)length);
        pos += 8 * (int)length;
        return true;
    }

    /// <summary>A string: its length in bytes (n bits, at most maxlen), align, UTF-8 with no NUL.</summary>
    public bool ReadString(int n, int maxlen, out string value)
    {
        int start = pos;
        uint length;
        value = "";
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

/// <summary>
/// Writes bitpack's bits into a buffer of its own, which grows as needed;
/// Reset starts again and keeps the buffer. A refused value records the
/// first error and returns false.
/// </summary>
public struct BitpackWriter
{
    private byte[] buffer;
    private int pos;
    private BitpackErrorKind kind;
    private string errorPath, errorDetail;

    public BitpackWriter(int capacity)
    {
        buffer = new byte[capacity > 8 ? capacity : 8];
        pos = 0;
        kind = BitpackErrorKind.None;
        errorPath = errorDetail = null;
    }

    public int BitsWritten { get { return pos; } }
    public int BytesWritten { get { return (pos + 7) >> 3; } }
    public bool Failed { get { return kind != BitpackErrorKind.None; } }
    public BitpackErrorKind ErrorKind { get { return kind; } }
    public string ErrorPath { get { return errorPath ?? ""; } }
    public string ErrorDetail { get { return errorDetail ?? ""; } }

    /// <summary>Empties the writer (and forgets its error), keeping its buffer.</summary>
    public void Reset()
    {
        if (buffer == null)
            buffer = new byte[64];
        global::System.Array.Clear(buffer, 0, BytesWritten < buffer.Length ? BytesWritten : buffer.Length);
        pos = 0;
        kind = BitpackErrorKind.None;
        errorPath = errorDetail = null;
    }

    /// <summary>The bytes written, in a new array of exactly their size.</summary>
    public byte[] ToArray()
    {
        byte[] packet = new byte[BytesWritten];
        if (packet.Length > 0)
            global::System.Buffer.BlockCopy(buffer, 0, packet, 0, packet.Length);
        return packet;
    }

    /// <summary>The buffer the bytes are written into: its first BytesWritten bytes are the packet.</summary>
    public byte[] Buffer { get { return buffer; } }

    public bool Fail(BitpackErrorKind why, string detail)
    {
        if (kind == BitpackErrorKind.None)
        {
            kind = why;
            errorPath = "";
            errorDetail = detail;
        }
        return false;
    }

    /// <summary>Refuses the value being written: for hand-written Write methods.</summary>
    public bool Fail(string detail) { return Fail(BitpackErrorKind.Range, detail); }

    public bool At(string segment)
    {
        errorPath = Bitpack.JoinPath(segment, errorPath);
        return false;
    }

    /// <summary>The error as bitpack words it: "bitpack: encode T: field P: what".</summary>
    public string Error(string type)
    {
        return Bitpack.Message("encode", type, ErrorPath, -1, ErrorDetail);
    }

    private void Reserve(int bits)
    {
        if (buffer == null)
            buffer = new byte[64];
        long need = ((long)pos + bits + 7) >> 3;
        if (need <= buffer.Length)
            return;
        long size = buffer.Length * 2L;
        if (size < need)
            size = need;
        if (size > int.MaxValue)
            throw new global::System.OutOfMemoryException("bitpack: packet of more than 2 GiB");
        byte[] grown = new byte[size];
        global::System.Buffer.BlockCopy(buffer, 0, grown, 0, (pos + 7) >> 3);
        buffer = grown;
    }

    /// <summary>Writes the low n bits of value, 0 &lt;= n &lt;= 32.</summary>
    public bool WriteBits(uint value, int n)
    {
        if (n <= 0)
            return true;
        Reserve(n);
        ulong word = (ulong)(value & (0xFFFFFFFFu >> (32 - n))) << (pos & 7);
        for (int i = pos >> 3; word != 0; i++, word >>= 8)
            buffer[i] |= (byte)word;
        pos += n;
        return true;
    }

    public bool WriteBits64(ulong value, int n)
    {
        if (n <= 32)
            return WriteBits((uint)value, n);
        WriteBits((uint)value, 32);
        return WriteBits((uint)(value >> 32), n - 32);
    }

    public bool WriteBool(bool value) { return WriteBits(value ? 1u : 0u, 1); }

    /// <summary>An unsigned integer in n bits; refuses one that does not fit.</summary>
    public bool WriteUnsigned(ulong value, int n)
    {
        if (n < 64 && value >> n != 0)
            return Fail(BitpackErrorKind.Range, "value " + value + " does not fit in " + n + " bits");
        return WriteBits64(value, n);
    }

    /// <summary>A signed integer in n-bit two's complement; refuses one that does not fit.</summary>
    public bool WriteSigned(long value, int n)
    {
        if (n < 64)
        {
            long limit = 1L << (n - 1);
            if (value < -limit || value >= limit)
                return Fail(BitpackErrorKind.Range, "value " + value + " does not fit in " + n + " bits (range [" + -limit + ", " + (limit - 1) + "])");
        }
        return WriteBits64((ulong)value, n);
    }

    public bool WriteUintRange(ulong value, ulong min, ulong span, int n)
    {
        ulong offset = value - min; // below min wraps past span
        if (offset > span)
            return Fail(BitpackErrorKind.Range, "value " + value + " out of range [" + min + ", " + (min + span) + "]");
        return WriteBits64(offset, n);
    }

    public bool WriteIntRange(long value, long min, ulong span, int n)
    {
        ulong offset = (ulong)value - (ulong)min;
        if (offset > span)
            return Fail(BitpackErrorKind.Range, "value " + value + " out of range [" + min + ", " + (long)((ulong)min + span) + "]");
        return WriteBits64(offset, n);
    }

    public bool WriteFloat32(float value) { return WriteBits(Bitpack.Float32Bits(value), 32); }

    public bool WriteFloat64(double value) { return WriteBits64((ulong)global::System.BitConverter.DoubleToInt64Bits(value), 64); }

    /// <summary>
    /// A compressed float32 as bitpack computes it (quant.Float), every step
    /// rounded to float: refuses NaN and infinities, and values outside
    /// [lo, hi] unless clamp is set.
    /// </summary>
    public bool WriteCompressed32(float value, float min, float delta, uint steps, int n, double lo, double hi, bool clamp, string bounds)
    {
        double wide = value;
        if (!(wide >= lo && wide <= hi) && (!clamp || float.IsNaN(value) || float.IsInfinity(value)))
            return FloatRefusal(wide, bounds);
        float normalized = (float)((float)(value - min) / delta);
        if (!(normalized > 0f))
            normalized = 0f;
        else if (normalized > 1f)
            normalized = 1f;
        float scaled = (float)((float)(normalized * (float)steps) + 0.5f);
        ulong code = (ulong)scaled; // floor: scaled >= 0.5
        return WriteBits(code < steps ? (uint)code : steps, n);
    }

    public bool WriteCompressed64(double value, double min, double delta, uint steps, int n, double lo, double hi, bool clamp, string bounds)
    {
        if (!(value >= lo && value <= hi) && (!clamp || double.IsNaN(value) || double.IsInfinity(value)))
            return FloatRefusal(value, bounds);
        double normalized = (double)((double)(value - min) / delta);
        if (!(normalized > 0.0))
            normalized = 0.0;
        else if (normalized > 1.0)
            normalized = 1.0;
        double scaled = (double)((double)(normalized * (double)steps) + 0.5);
        ulong code = (ulong)scaled;
        return WriteBits(code < steps ? (uint)code : steps, n);
    }

    private bool FloatRefusal(double value, string bounds)
    {
        if (double.IsNaN(value) || double.IsInfinity(value))
            return Fail(BitpackErrorKind.Range, "value " + Bitpack.Number(value) + " cannot be quantized (NaN and ±Inf are never encoded)");
        return Fail(BitpackErrorKind.Range, "value " + Bitpack.Number(value) + " out of range " + bounds + " (add clamp to the tag to clamp instead)");
    }

    /// <summary>A slice's length in n bits; refuses more than maxlen.</summary>
    public bool WriteLength(int length, int maxlen, int n)
    {
        if (length > maxlen)
            return Fail(BitpackErrorKind.Range, "slice of " + length + " elements exceeds maxlen " + maxlen);
        return WriteBits((uint)length, n);
    }

    /// <summary>Writes zero bits up to the next byte boundary.</summary>
    public bool Align() { return WriteBits(0, -pos & 7); }

    private void PutBytes(byte[] src, int count)
    {
        Align();
        Reserve(8 * count);
        global::System.Buffer.BlockCopy(src, 0, buffer, pos >> 3, count);
        pos += 8 * count;
    }

    /// <summary>A [N]byte: align, then exactly length bytes (null or another length is refused).</summary>
    public bool WriteByteArray(byte[] value, int length)
    {
        if (value == null || value.Length != length)
            return Fail(BitpackErrorKind.Range, (value == null ? "null" : value.Length + " bytes") + " for an array of " + length);
        PutBytes(value, length);
        return true;
    }

    /// <summary>A []byte (null is empty): its length in n bits, align, the bytes.</summary>
    public bool WriteByteSlice(byte[] value, int maxlen, int n)
    {
        int length = value == null ? 0 : value.Length;
        if (length > maxlen)
            return Fail(BitpackErrorKind.Range, length + " bytes exceed maxlen " + maxlen);
        WriteBits((uint)length, n);
        if (length == 0)
            return Align();
        PutBytes(value, length);
        return true;
    }

    /// <summary>
    /// A string (null is empty) as UTF-8: its length in bytes in n bits,
    /// align, the bytes. Refuses more than maxlen bytes, a NUL and a lone
    /// surrogate (which has no UTF-8 form).
    /// </summary>
    public bool WriteString(string value, int maxlen, int n)
    {
        if (value == null)
            value = "";
        int length = 0;
        for (int i = 0; i < value.Length; i++)
        {
            char c = value[i];
            if (c < 0x80)
                length++;
            else if (c < 0x800)
                length += 2;
            else if (char.IsSurrogate(c))
            {
                length += 4;
                i++; // a pair; a lone one is refused below
            }
            else
                length += 3;
        }
        if (length > maxlen)
            return Fail(BitpackErrorKind.Range, "string of " + length + " bytes exceeds maxlen " + maxlen);
        string problem = Bitpack.StringProblem(value);
        if (problem != null)
            return Fail(BitpackErrorKind.InvalidString, problem);
        WriteBits((uint)length, n);
        Align();
        Reserve(8 * length);
        int at = pos >> 3;
        for (int i = 0; i < value.Length; i++)
        {
            int c = value[i];
            if (c < 0x80)
            {
                buffer[at++] = (byte)c;
            }
            else if (c < 0x800)
            {
                buffer[at++] = (byte)(0xC0 | c >> 6);
                buffer[at++] = (byte)(0x80 | c & 0x3F);
            }
            else if (char.IsHighSurrogate((char)c))
            {
                c = char.ConvertToUtf32((char)c, value[++i]);
                buffer[at++] = (byte)(0xF0 | c >> 18);
                buffer[at++] = (byte)(0x80 | c >> 12 & 0x3F);
                buffer[at++] = (byte)(0x80 | c >> 6 & 0x3F);
                buffer[at++] = (byte)(0x80 | c & 0x3F);
            }
            else
            {
                buffer[at++] = (byte)(0xE0 | c >> 12);
                buffer[at++] = (byte)(0x80 | c >> 6 & 0x3F);
                buffer[at++] = (byte)(0x80 | c & 0x3F);
            }
        }
        pos += 8 * length;
        return true;
    }

    /// <summary>current, greater than previous, as serialize's int_relative.</summary>
    public bool WriteIntRelative(int previous, int current)
    {
        if (current <= previous)
            return Fail(BitpackErrorKind.Range, "index " + current + " does not follow " + previous);
        long difference = (long)current - previous;
        WriteBool(difference == 1);
        if (difference == 1)
            return true;
        for (int tier = 0; tier < 5; tier++)
        {
            bool here = difference <= Bitpack.TierHigh[tier];
            WriteBool(here);
            if (here)
                return WriteBits((uint)(difference - Bitpack.TierLow[tier]), Bitpack.TierBits[tier]);
        }
        return WriteBits((uint)current, 32);
    }

    public bool WriteCheck(uint hash)
    {
        Align();
        return WriteBits(hash, 32);
    }
}

/// <summary>Helpers the generated code shares, and Seal/Open framing.</summary>
public static class Bitpack
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

    /// <summary>value as Go's %v prints a float64: the shortest digits that read back as it.</summary>
    internal static string Number(double value)
    {
        if (double.IsNaN(value))
            return "NaN";
        if (double.IsInfinity(value))
            return value > 0 ? "+Inf" : "-Inf";
        if (value == 0)
            return 1 / value < 0 ? "-0" : "0";
        global::System.Globalization.CultureInfo inv = global::System.Globalization.CultureInfo.InvariantCulture;
        string e = null;
        for (int p = 1; p <= 17; p++)
        {
            e = value.ToString("E" + (p - 1), inv);
            if (double.Parse(e, inv) == value)
                break;
        }
        int mark = e.IndexOf('E');
        int exp = int.Parse(e.Substring(mark + 1), inv);
        string sign = e[0] == '-' ? "-" : "";
        string digits = e.Substring(sign.Length, mark - sign.Length).Replace(".", "").TrimEnd('0');
        if (digits == "")
            digits = "0";
        if (exp < -4 || exp >= 21)
        {
            string m = digits.Length > 1 ? digits[0] + "." + digits.Substring(1) : digits;
            string x = global::System.Math.Abs(exp).ToString(inv);
            return sign + m + "e" + (exp < 0 ? "-" : "+") + (x.Length < 2 ? "0" + x : x);
        }
        if (exp < 0)
            return sign + "0." + new string('0', -exp - 1) + digits;
        if (digits.Length <= exp + 1)
            return sign + digits + new string('0', exp + 1 - digits.Length);
        return sign + digits.Substring(0, exp + 1) + "." + digits.Substring(exp + 1);
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
// ---------------------------------------------------------------------------

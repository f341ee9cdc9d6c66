
/// <summary>
/// Writes bitpack's bits into a buffer: its own, which grows as needed, or
/// a caller's (bytes offset to offset+count of an array), which it never
/// writes past: a packet that outgrows it goes on in a buffer of the
/// writer's own (OutgrewBuffer). Reset starts again and keeps the buffer.
/// A refused value records the first error and returns false.
/// </summary>
public partial struct BitpackWriter
{
    private byte[] buffer;
    private int origin;   // the packet's first byte in buffer
    private int capacity; // bytes from origin the writer may use
    private int zeroed;   // bytes from origin known to be zero (a caller's buffer is cleared as it is used)
    private byte[] given;    // the caller's buffer the writer was made with (null: none), at givenOffset, givenCount bytes
    private int givenOffset, givenCount;
    private int pos;
    private BitpackErrorKind kind;
    private string errorPath, errorDetail;

    public BitpackWriter(int capacity)
    {
        buffer = new byte[capacity > 8 ? capacity : 8];
        origin = 0;
        this.capacity = zeroed = buffer.Length;
        given = null;
        givenOffset = givenCount = 0;
        pos = 0;
        kind = BitpackErrorKind.None;
        errorPath = errorDetail = null;
    }

    /// <summary>
    /// A writer into the count bytes of destination from offset on (what
    /// they held is overwritten as the packet grows; nothing outside them is
    /// touched). A packet longer than count bytes goes on in a buffer of the
    /// writer's own: OutgrewBuffer is then true.
    /// </summary>
    /// <exception cref="global::System.ArgumentNullException">destination is null.</exception>
    /// <exception cref="global::System.ArgumentOutOfRangeException">offset and count do not name bytes of destination.</exception>
    public BitpackWriter(byte[] destination, int offset, int count)
    {
        Bitpack.CheckSegment(destination, offset, count, "destination");
        buffer = destination;
        origin = offset;
        capacity = count;
        zeroed = 0;
        given = destination;
        givenOffset = offset;
        givenCount = count;
        pos = 0;
        kind = BitpackErrorKind.None;
        errorPath = errorDetail = null;
    }

    /// <summary>A writer into the bytes destination spans (see BitpackWriter(byte[], int, int)).</summary>
    public BitpackWriter(global::System.ArraySegment<byte> destination) : this(destination.Array, destination.Offset, destination.Count)
    {
    }

    public int BitsWritten { get { return pos; } }
    public int BytesWritten { get { return (pos + 7) >> 3; } }
    public bool Failed { get { return kind != BitpackErrorKind.None; } }
    public BitpackErrorKind ErrorKind { get { return kind; } }
    public string ErrorPath { get { return errorPath ?? ""; } }
    public string ErrorDetail { get { return errorDetail ?? ""; } }

    /// <summary>Whether the packet is longer than the caller's buffer the writer was made with (it is then in a buffer of the writer's own).</summary>
    public bool OutgrewBuffer { get { return given != null && BytesWritten > givenCount; } }

    /// <summary>
    /// Puts the packet in the caller's buffer the writer was made with, where
    /// it may not be after growing past it and being taken back (Rewind):
    /// false when it is longer (OutgrewBuffer).
    /// </summary>
    public bool InGivenBuffer()
    {
        if (OutgrewBuffer)
            return false;
        if (given != null && buffer != given)
            global::System.Buffer.BlockCopy(buffer, origin, given, givenOffset, BytesWritten);
        return true;
    }

    /// <summary>Empties the writer (and forgets its error), keeping its buffer.</summary>
    public void Reset()
    {
        if (buffer == null)
        {
            buffer = new byte[64];
            capacity = zeroed = buffer.Length;
        }
        int n = BytesWritten < capacity ? BytesWritten : capacity;
        global::System.Array.Clear(buffer, origin, n);
        pos = 0;
        kind = BitpackErrorKind.None;
        errorPath = errorDetail = null;
    }

    /// <summary>The bytes written, in a new array of exactly their size.</summary>
    public byte[] ToArray()
    {
        byte[] packet = new byte[BytesWritten];
        if (packet.Length > 0)
            global::System.Buffer.BlockCopy(buffer, origin, packet, 0, packet.Length);
        return packet;
    }

    /// <summary>The buffer the bytes are written into: its BytesWritten bytes from Offset on are the packet.</summary>
    public byte[] Buffer { get { return buffer; } }

    /// <summary>Where the packet starts in Buffer: the offset of the caller's buffer the writer was made with, else 0.</summary>
    public int Offset { get { return origin; } }

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
        long need = ((long)pos + bits + 7) >> 3;
        if (need <= capacity)
        {
            if (need > zeroed)
            {
                global::System.Array.Clear(buffer, origin + zeroed, (int)need - zeroed);
                zeroed = (int)need;
            }
            return;
        }
        long size = capacity * 2L;
        if (size < need)
            size = need;
        if (size < 64)
            size = 64;
        if (size > int.MaxValue)
            throw new global::System.OutOfMemoryException("bitpack: packet of more than 2 GiB");
        byte[] grown = new byte[size];
        if (buffer != null)
            global::System.Buffer.BlockCopy(buffer, origin, grown, 0, (pos + 7) >> 3);
        buffer = grown;
        origin = 0;
        capacity = zeroed = grown.Length;
    }

    /// <summary>Writes the low n bits of value, 0 &lt;= n &lt;= 32.</summary>
    public bool WriteBits(uint value, int n)
    {
        if (n <= 0)
            return true;
        Reserve(n);
        ulong word = (ulong)(value & (0xFFFFFFFFu >> (32 - n))) << (pos & 7);
        for (int i = origin + (pos >> 3); word != 0; i++, word >>= 8)
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
        ulong code;
        return CodeUnsigned(value, n, out code) && WriteBits64(code, n);
    }

    /// <summary>A signed integer in n-bit two's complement; refuses one that does not fit.</summary>
    public bool WriteSigned(long value, int n)
    {
        ulong code;
        return CodeSigned(value, n, out code) && WriteBits64((ulong)value, n);
    }

    public bool WriteUintRange(ulong value, ulong min, ulong span, int n)
    {
        ulong code;
        return CodeUintRange(value, min, span, out code) && WriteBits64(code, n);
    }

    public bool WriteIntRange(long value, long min, ulong span, int n)
    {
        ulong code;
        return CodeIntRange(value, min, span, out code) && WriteBits64(code, n);
    }

    /// <summary>
    /// A signed integer with unit= or clamp: value in units (rounded to the
    /// nearest, half away from zero), refused outside [min, max] unless
    /// clamp moves it to the nearer bound; the offset from min in n bits,
    /// XOR flip (2^(n-1) for a raw field, which makes it two's complement).
    /// </summary>
    public bool WriteUnits(long value, long min, long max, int n, ulong flip, long unit, bool clamp, string unitText, bool duration)
    {
        ulong code;
        return CodeUnits(value, min, max, unit, clamp, unitText, duration, out code) && WriteBits64(code ^ flip, n);
    }

    /// <summary>
    /// A time.Duration with unit=, held as its count of units (see
    /// CodeCounted); the offset from min in n bits, XOR flip.
    /// </summary>
    public bool WriteCounted(long units, long min, long max, int n, ulong flip, long unit, bool clamp, string unitText)
    {
        ulong code;
        return CodeCounted(units, min, max, unit, clamp, unitText, out code) && WriteBits64(code ^ flip, n);
    }

    /// <summary>An unsigned integer with unit= or clamp (see WriteUnits).</summary>
    public bool WriteUnitsU(ulong value, ulong min, ulong max, int n, ulong unit, bool clamp, string unitText)
    {
        ulong code;
        return CodeUnitsU(value, min, max, unit, clamp, unitText, out code) && WriteBits64(code, n);
    }

    /// <summary>
    /// A smallest-three quaternion of bits per component, canonical as
    /// bitpack writes it; refuses a component that is not finite and a
    /// quaternion not of unit length (all four 0 is the identity).
    /// </summary>
    public bool WriteQuat(float x, float y, float z, float w, int bits)
    {
        string problem = Bitpack.QuatProblem(x, y, z, w);
        if (problem != null)
            return Fail(BitpackErrorKind.Range, problem);
        uint largest, c0, c1, c2;
        Bitpack.QuatEncode(x, y, z, w, (1u << bits) - 2, out largest, out c0, out c1, out c2);
        WriteBits(largest, 2);
        WriteBits(c0, bits);
        WriteBits(c1, bits);
        return WriteBits(c2, bits);
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
        ulong code;
        return CodeCompressed32(value, min, delta, steps, lo, hi, clamp, bounds, out code) && WriteBits((uint)code, n);
    }

    public bool WriteCompressed64(double value, double min, double delta, uint steps, int n, double lo, double hi, bool clamp, string bounds)
    {
        ulong code;
        return CodeCompressed64(value, min, delta, steps, lo, hi, clamp, bounds, out code) && WriteBits((uint)code, n);
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

    /// <summary>A map's count in n bits; refuses more than maxlen.</summary>
    public bool WriteCount(int count, int maxlen, int n)
    {
        if (count > maxlen)
            return Fail(BitpackErrorKind.Range, count + " entries exceed maxlen " + maxlen);
        return WriteBits((uint)count, n);
    }

    /// <summary>Writes zero bits up to the next byte boundary.</summary>
    public bool Align() { return WriteBits(0, -pos & 7); }

    private void PutBytes(byte[] src, int count)
    {
        Align();
        Reserve(8 * count);
        global::System.Buffer.BlockCopy(src, 0, buffer, origin + (pos >> 3), count);
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
        int at = origin + (pos >> 3);
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

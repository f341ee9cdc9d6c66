
// Deltas (docs/wire.md, "Delta encoding"): a value's fields coded against a
// base, each fixed-width field by its offset code (the code before a raw
// signed field's sign flip), the rest by their kinds.

public partial struct BitpackReader
{
    /// <summary>
    /// Reads the change of a fixed-width field of bits wire bits, whose
    /// base's offset code is old, codes 0..limit, flip the XOR from offset
    /// code to wire: the new offset code. It refuses the base's own code, a
    /// long form the short form reaches, and a change that leaves the codes,
    /// in bitpack's words (one wording, whichever of its decoders runs the
    /// field): a short form by the change and the code it starts from, a
    /// long form as the field's kind refuses a code past limit (kind 1, an
    /// unsigned integer from min; 2, a signed one; 3, a compressed float).
    /// </summary>
    public bool ReadScalarDelta(int start, int bits, ulong old, ulong limit, ulong flip, int kind, ulong min, out ulong code)
    {
        code = old;
        if (bits == 1)
        {
            code = old ^ 1;
            return true;
        }
        int s = Bitpack.ShortBits(bits);
        uint form = 1;
        if (s > 0 && !ReadBits(1, out form))
            return false;
        ulong c;
        if (form == 1)
        {
            ulong v;
            if (!ReadBits64(bits, out v))
                return false;
            c = v ^ flip;
            ulong e;
            if (s > 0 && c != old && c <= limit && Bitpack.ShortDelta(c, old, s, out e))
                return Fail(BitpackErrorKind.Range, start, "code " + c + " is within " + (1 << (s - 1)) + " of the base's " + old + ": the short form carries it (not canonical)");
        }
        else
        {
            uint v;
            if (!ReadBits(s, out v))
                return false;
            ulong h = 1UL << (s - 1);
            if (v < h)
            {
                ulong d = h - v;
                if (old < d)
                    return Fail(BitpackErrorKind.Range, start, "change -" + d + " from code " + old + " leaves the range [0, " + limit + "]");
                c = old - d;
            }
            else
            {
                ulong d = v - h + 1;
                if (old > limit - d)
                    return Fail(BitpackErrorKind.Range, start, "change +" + d + " from code " + old + " leaves the range [0, " + limit + "]");
                c = old + d;
            }
        }
        if (c == old)
            return Fail(BitpackErrorKind.Range, start, Bitpack.Unchanged);
        if (c > limit)
        {
            switch (kind)
            {
                case 1: return Fail(BitpackErrorKind.Range, start, "value " + (min + c) + " out of range [" + min + ", " + (min + limit) + "]");
                case 2: return Fail(BitpackErrorKind.Range, start, "value " + (long)(min + c) + " out of range [" + (long)min + ", " + (long)(min + limit) + "]");
                default: return Fail(BitpackErrorKind.Range, start, "compressed float code " + c + " out of range [0, " + limit + "]");
            }
        }
        code = c;
        return true;
    }

    /// <summary>Refuses a delta part that changes nothing: a value has one delta against a base, and that is not it.</summary>
    public bool Unchanged(int start) { return Fail(BitpackErrorKind.Range, start, Bitpack.Unchanged); }

    /// <summary>A changed quaternion: its code, refused as ReadQuat refuses it (at start, where its part begins) or when it is the base's.</summary>
    public bool ReadQuatDelta(int start, int bits, uint l0, uint b0, uint b1, uint b2, out float x, out float y, out float z, out float w)
    {
        uint largest, c0, c1, c2;
        if (!ReadQuatCodes(bits, out largest, out c0, out c1, out c2, out x, out y, out z, out w))
        {
            if (kind != BitpackErrorKind.Overflow)
                errorBit = start;
            return false;
        }
        if (largest == l0 && c0 == b0 && c1 == b1 && c2 == b2)
            return Unchanged(start);
        return true;
    }

    /// <summary>A changed []byte: its length, align, the bytes, refused when they are the base's (old), charged at start; value is a new array.</summary>
    public bool ReadByteSliceDelta(int start, int n, int maxlen, byte[] old, out byte[] value)
    {
        uint length;
        value = old;
        if (!ReadBits(n, out length))
            return false;
        if (length > (uint)maxlen)
            return Fail(BitpackErrorKind.Range, start, "length " + length + " exceeds maxlen " + maxlen);
        if (!Align())
            return false;
        if (length > (uint)((end - pos) / 8))
            return Fail(BitpackErrorKind.Overflow, start, "needs " + length + " bytes, " + (end - pos) / 8 + " remain");
        if (SameBytes(old, (int)length))
            return Unchanged(start);
        if (!ChargeValue(0, length, start))
            return false;
        value = length == 0 ? Bitpack.NoBytes : new byte[length];
        global::System.Buffer.BlockCopy(data, origin + (pos >> 3), value, 0, (int)length);
        pos += 8 * (int)length;
        return true;
    }

    /// <summary>A changed string (see ReadString), refused when it is the base's (old), its bytes charged at start, where its part begins.</summary>
    public bool ReadStringDelta(int start, int n, int maxlen, string old, out string value)
    {
        int length;
        if (!ReadText(n, maxlen, out value, out length))
            return false;
        if (value == (old ?? ""))
            return Unchanged(start);
        return ChargeValue(0, length, start);
    }

    /// <summary>A changed [N]byte: align, then the bytes into value (the base's, of length N), refused (at start, where its part begins) past the packet or when they are the same.</summary>
    public bool ReadByteArrayDelta(int start, byte[] value)
    {
        if (!Align())
            return false;
        if (value.Length > (end - pos) / 8)
            return Fail(BitpackErrorKind.Overflow, start, "needs " + value.Length + " bytes, " + (end - pos) / 8 + " remain");
        if (SameBytes(value, value.Length))
            return Unchanged(start);
        global::System.Buffer.BlockCopy(data, origin + (pos >> 3), value, 0, value.Length);
        pos += 8 * value.Length;
        return true;
    }

    // SameBytes reports whether the n whole bytes at pos (aligned, there)
    // are b's.
    private bool SameBytes(byte[] b, int n)
    {
        int have = b == null ? 0 : b.Length;
        if (have != n)
            return false;
        for (int i = 0; i < n; i++)
        {
            if (data[origin + (pos >> 3) + i] != b[i])
                return false;
        }
        return true;
    }

    /// <summary>Whether the n bits read from bit from on are the first n bits of b (a writer's buffer).</summary>
    public bool SameBits(int from, byte[] b, int n)
    {
        for (int i = 0; i < n; i++)
        {
            int a = from + i;
            if ((data[origin + (a >> 3)] >> (a & 7) & 1) != (b[i >> 3] >> (i & 7) & 1))
                return false;
        }
        return true;
    }
}

public partial struct BitpackWriter
{
    /// <summary>Moves the writer back to bit: what was written after it is taken back.</summary>
    public void Rewind(int bit)
    {
        if (bit >= pos)
            return;
        int first = bit >> 3;
        buffer[origin + first] &= (byte)((1 << (bit & 7)) - 1);
        global::System.Array.Clear(buffer, origin + first + 1, ((pos + 7) >> 3) - first - 1);
        pos = bit;
    }

    /// <summary>Whether the n bits written from bit from on are the first n bits of b.</summary>
    public bool SameBits(int from, byte[] b, int n)
    {
        return Bitpack.SameBits(buffer, 8 * origin + from, b, n);
    }

    /// <summary>Words the error just recorded as the refusal of the base's value, as bitpack does, and returns false.</summary>
    public bool BaseValue()
    {
        errorDetail = "base value: " + errorDetail;
        return false;
    }

    /// <summary>
    /// Writes the change of a fixed-width field from offset code old to code
    /// (after its changed bit when bit is set: 0 and nothing more when they
    /// are the same), and reports whether it changed.
    /// </summary>
    public bool WriteScalarDelta(bool bit, ulong code, ulong old, int bits, ulong flip)
    {
        if (code == old)
        {
            if (bit)
                WriteBits(0, 1);
            return false;
        }
        if (bit)
            WriteBits(1, 1);
        if (bits == 1)
            return true;
        int s = Bitpack.ShortBits(bits);
        ulong e;
        if (s > 0 && Bitpack.ShortDelta(code, old, s, out e))
        {
            WriteBits(0, 1);
            WriteBits((uint)e, s);
            return true;
        }
        if (s > 0)
            WriteBits(1, 1);
        WriteBits64(code ^ flip, bits);
        return true;
    }

    /// <summary>The offset code of an unsigned integer in n bits; refuses one that does not fit.</summary>
    public bool CodeUnsigned(ulong value, int n, out ulong code)
    {
        code = value;
        if (n < 64 && value >> n != 0)
            return Fail(BitpackErrorKind.Range, "value " + value + " does not fit in " + n + " bits");
        return true;
    }

    /// <summary>The offset code of a signed integer in n bits, value + 2^(n-1); refuses one that does not fit.</summary>
    public bool CodeSigned(long value, int n, out ulong code)
    {
        code = (ulong)value + (1UL << (n - 1));
        if (n < 64)
        {
            long limit = 1L << (n - 1);
            if (value < -limit || value >= limit)
                return Fail(BitpackErrorKind.Range, "value " + value + " does not fit in " + n + " bits (range [" + -limit + ", " + (limit - 1) + "])");
        }
        return true;
    }

    public bool CodeUintRange(ulong value, ulong min, ulong span, out ulong code)
    {
        code = value - min; // below min wraps past span
        if (code > span)
            return Fail(BitpackErrorKind.Range, "value " + value + " out of range [" + min + ", " + (min + span) + "]");
        return true;
    }

    public bool CodeIntRange(long value, long min, ulong span, out ulong code)
    {
        code = (ulong)value - (ulong)min;
        if (code > span)
            return Fail(BitpackErrorKind.Range, "value " + value + " out of range [" + min + ", " + (long)((ulong)min + span) + "]");
        return true;
    }

    /// <summary>The offset code of a signed integer with unit= or clamp (see WriteUnits): its units less min.</summary>
    public bool CodeUnits(long value, long min, long max, long unit, bool clamp, string unitText, bool duration, out ulong code)
    {
        long units = Bitpack.Units(value, unit);
        code = 0;
        if (units < min || units > max)
        {
            if (!clamp)
                return Fail(BitpackErrorKind.Range, "value " + (duration ? Bitpack.DurationText(value) : value.ToString()) + " is " + units + " units of " + unitText + ", out of range [" + min + ", " + max + "]");
            units = units < min ? min : max;
        }
        code = (ulong)units - (ulong)min;
        return true;
    }

    /// <summary>
    /// The offset code of a time.Duration with unit=, held as its count of
    /// units: refused outside [min, max] unless clamp moves it to the nearer
    /// bound, worded as Go words the duration it stands for (count × unit
    /// nanoseconds).
    /// </summary>
    public bool CodeCounted(long units, long min, long max, long unit, bool clamp, string unitText, out ulong code)
    {
        code = 0;
        if (units < min || units > max)
        {
            if (!clamp)
            {
                string value = units >= long.MinValue / unit && units <= long.MaxValue / unit ? Bitpack.DurationText(units * unit) : units + " × " + unitText;
                return Fail(BitpackErrorKind.Range, "value " + value + " is " + units + " units of " + unitText + ", out of range [" + min + ", " + max + "]");
            }
            units = units < min ? min : max;
        }
        code = (ulong)units - (ulong)min;
        return true;
    }

    /// <summary>CodeUnits for an unsigned integer.</summary>
    public bool CodeUnitsU(ulong value, ulong min, ulong max, ulong unit, bool clamp, string unitText, out ulong code)
    {
        ulong units = Bitpack.UnitsU(value, unit);
        code = 0;
        if (units < min || units > max)
        {
            if (!clamp)
                return Fail(BitpackErrorKind.Range, "value " + value + " is " + units + " units of " + unitText + ", out of range [" + min + ", " + max + "]");
            units = units < min ? min : max;
        }
        code = units - min;
        return true;
    }

    /// <summary>
    /// The code of a compressed float32 as bitpack computes it (quant.Float),
    /// every step rounded to float: refuses NaN and infinities, and values
    /// outside [lo, hi] unless clamp is set.
    /// </summary>
    public bool CodeCompressed32(float value, float min, float delta, uint steps, double lo, double hi, bool clamp, string bounds, out ulong code)
    {
        double wide = value;
        code = 0;
        if (!(wide >= lo && wide <= hi) && (!clamp || float.IsNaN(value) || float.IsInfinity(value)))
            return FloatRefusal(wide, bounds);
        code = Bitpack.Quantize32(value, min, delta, steps);
        return true;
    }

    public bool CodeCompressed64(double value, double min, double delta, uint steps, double lo, double hi, bool clamp, string bounds, out ulong code)
    {
        code = 0;
        if (!(value >= lo && value <= hi) && (!clamp || double.IsNaN(value) || double.IsInfinity(value)))
            return FloatRefusal(value, bounds);
        code = Bitpack.Quantize64(value, min, delta, steps);
        return true;
    }

    /// <summary>The code of a quaternion (see WriteQuat), refused as WriteQuat refuses it.</summary>
    public bool CodeQuat(float x, float y, float z, float w, uint steps, out uint largest, out uint c0, out uint c1, out uint c2)
    {
        largest = c0 = c1 = c2 = 0;
        string problem = Bitpack.QuatProblem(x, y, z, w);
        if (problem != null)
            return Fail(BitpackErrorKind.Range, problem);
        Bitpack.QuatEncode(x, y, z, w, steps, out largest, out c0, out c1, out c2);
        return true;
    }
}

public static partial class Bitpack
{
    internal const string Unchanged = "the delta marks the value changed but it is the base's (not canonical)";

    /// <summary>The width of a b-bit field's short form: none under 4 bits, else half of b rounded up, at most 8.</summary>
    internal static int ShortBits(int b) { return b < 4 ? 0 : (b + 1) / 2 < 8 ? (b + 1) / 2 : 8; }

    /// <summary>The short form, in s bits, of the change from offset code old to next, when |next - old| is at most 2^(s-1).</summary>
    internal static bool ShortDelta(ulong next, ulong old, int s, out ulong e)
    {
        ulong h = 1UL << (s - 1);
        if (next > old)
        {
            e = h - 1 + (next - old);
            return next - old <= h;
        }
        e = h - (old - next);
        return old - next <= h;
    }

    /// <summary>value in units of unit, rounded to the nearest, half away from zero.</summary>
    internal static long Units(long value, long unit)
    {
        if (unit <= 1)
            return value;
        long q = value / unit, r = value % unit;
        if (r < 0)
            r = -r;
        if (r >= unit - r) // 2r >= unit, without overflow
            q += value < 0 ? -1 : 1;
        return q;
    }

    internal static ulong UnitsU(ulong value, ulong unit)
    {
        if (unit <= 1)
            return value;
        return value / unit + (value % unit >= unit - value % unit ? 1UL : 0UL);
    }

    /// <summary>The code of a compressed float32 (clamped to [0, steps]), every step rounded to float.</summary>
    internal static ulong Quantize32(float value, float min, float delta, uint steps)
    {
        float normalized = (float)((float)(value - min) / delta);
        if (!(normalized > 0f))
            normalized = 0f;
        else if (normalized > 1f)
            normalized = 1f;
        float scaled = (float)((float)(normalized * (float)steps) + 0.5f);
        ulong code = (ulong)scaled; // floor: scaled >= 0.5
        return code < steps ? code : steps;
    }

    internal static ulong Quantize64(double value, double min, double delta, uint steps)
    {
        double normalized = (double)((double)(value - min) / delta);
        if (!(normalized > 0.0))
            normalized = 0.0;
        else if (normalized > 1.0)
            normalized = 1.0;
        double scaled = (double)((double)(normalized * (double)steps) + 0.5);
        ulong code = (ulong)scaled;
        return code < steps ? code : steps;
    }

    /// <summary>The value of a compressed float32's code, every step rounded to float.</summary>
    internal static float Dequantize32(ulong code, uint steps, float delta, float min)
    {
        float normalized = (float)((float)(uint)code / (float)steps);
        return (float)((float)(normalized * delta) + min);
    }

    internal static double Dequantize64(ulong code, uint steps, double delta, double min)
    {
        double normalized = (double)((double)(uint)code / (double)steps);
        return (double)((double)(normalized * delta) + min);
    }

    /// <summary>Whether two byte arrays hold the same bytes (null is empty).</summary>
    internal static bool SameBytes(byte[] a, byte[] b)
    {
        int n = a == null ? 0 : a.Length;
        if (n != (b == null ? 0 : b.Length))
            return false;
        for (int i = 0; i < n; i++)
        {
            if (a[i] != b[i])
                return false;
        }
        return true;
    }
}

public static partial class Bitpack
{
    /// <summary>Whether the n bits of a from bit from on are the first n bits of b.</summary>
    internal static bool SameBits(byte[] a, int from, byte[] b, int n)
    {
        for (int i = 0; i < n; i++)
        {
            int k = from + i;
            if ((a[k >> 3] >> (k & 7) & 1) != (b[i >> 3] >> (i & 7) & 1))
                return false;
        }
        return true;
    }
}

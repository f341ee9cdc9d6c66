
/// <summary>bitpack's canonical smallest-three quaternions (docs/wire.md, "Quaternions"), every float step cast to float.</summary>
public static partial class Bitpack
{
    private static readonly float QuatM = Float32FromBits(0x3f3504f3u);     // float32(1/sqrt(2))
    private static readonly float QuatDelta = Float32FromBits(0x3fb504f3u); // 2m, exact

    private static uint QuatQuantize(float f, uint steps)
    {
        float n = (float)((float)(f + QuatM) / QuatDelta);
        if (!(n > 0f))
            n = 0f;
        else if (n > 1f)
            n = 1f;
        uint code = (uint)(float)((float)(n * (float)steps) + 0.5f); // floor: at least 0.5
        return code < steps ? code : steps;
    }

    private static float QuatDequantize(uint code, uint steps)
    {
        float n = (float)((float)code / (float)steps);
        return (float)((float)(n * QuatDelta) - QuatM);
    }

    // Outranks reports whether the rebuilt component big outranks small
    // component s at index i as the encoder ranks them (larger, or equal
    // at a higher index).
    private static bool Outranks(float big, float s, uint i, uint largest)
    {
        float a = global::System.Math.Abs(s);
        return a < big || a == big && i < largest;
    }

    /// <summary>
    /// Rebuilds (x, y, z, w) from the index of the largest component and the
    /// other three codes (each at most steps), and reports whether the code
    /// is canonical: whether the rebuilt component outranks the others.
    /// </summary>
    internal static bool QuatDecode(uint largest, uint c0, uint c1, uint c2, uint steps, out float x, out float y, out float z, out float w)
    {
        float s0 = QuatDequantize(c0, steps), s1 = QuatDequantize(c1, steps), s2 = QuatDequantize(c2, steps);
        float rest = (float)((float)((float)(1f - (float)(s0 * s0)) - (float)(s1 * s1)) - (float)(s2 * s2));
        if (!(rest > 0f))
            rest = 0f;
        float big = (float)global::System.Math.Sqrt(rest); // a double sqrt rounded once: a float sqrt
        x = largest == 0 ? big : s0;
        y = largest == 0 ? s0 : largest == 1 ? big : s1;
        z = largest <= 1 ? s1 : largest == 2 ? big : s2;
        w = largest == 3 ? big : s2;
        return Outranks(big, s0, largest == 0 ? 1u : 0u, largest) && Outranks(big, s1, largest <= 1 ? 2u : 1u, largest) &&
            Outranks(big, s2, largest <= 2 ? 3u : 2u, largest);
    }

    // QuatNatural is the plain smallest-three code: the largest magnitude
    // (the highest index on a tie) dropped, all four negated first when its
    // sign bit is set, the other three quantized in order.
    private static void QuatNatural(float x, float y, float z, float w, uint steps, out uint largest, out uint c0, out uint c1, out uint c2)
    {
        largest = 0;
        float best = global::System.Math.Abs(x);
        if (global::System.Math.Abs(y) >= best)
        {
            largest = 1;
            best = global::System.Math.Abs(y);
        }
        if (global::System.Math.Abs(z) >= best)
        {
            largest = 2;
            best = global::System.Math.Abs(z);
        }
        if (global::System.Math.Abs(w) >= best)
            largest = 3;
        float top = largest == 0 ? x : largest == 1 ? y : largest == 2 ? z : w;
        float a = largest == 0 ? y : x, b = largest <= 1 ? z : y, c = largest <= 2 ? w : z;
        if ((Float32Bits(top) >> 31) != 0)
        {
            a = -a;
            b = -b;
            c = -c;
        }
        c0 = QuatQuantize(a, steps);
        c1 = QuatQuantize(b, steps);
        c2 = QuatQuantize(c, steps);
    }

    /// <summary>
    /// bitpack's canonical code of a finite quaternion: the natural code when
    /// it decodes canonically; else the natural code of the normalised
    /// quaternion, its codes moved one step at a time toward the middle
    /// (the farthest first) until it does.
    /// </summary>
    internal static void QuatEncode(float x, float y, float z, float w, uint steps, out uint largest, out uint c0, out uint c1, out uint c2)
    {
        float dx, dy, dz, dw;
        QuatNatural(x, y, z, w, steps, out largest, out c0, out c1, out c2);
        if (QuatDecode(largest, c0, c1, c2, steps, out dx, out dy, out dz, out dw))
            return;
        float n2 = (float)((float)((float)((float)(x * x) + (float)(y * y)) + (float)(z * z)) + (float)(w * w));
        float r = (float)global::System.Math.Sqrt(n2);
        QuatNatural((float)(x / r), (float)(y / r), (float)(z / r), (float)(w / r), steps, out largest, out c0, out c1, out c2);
        uint mid = steps / 2;
        while (!QuatDecode(largest, c0, c1, c2, steps, out dx, out dy, out dz, out dw))
        {
            uint d0 = Distance(c0, mid), d1 = Distance(c1, mid), d2 = Distance(c2, mid);
            if (d0 >= d1 && d0 >= d2)
                c0 = c0 > mid ? c0 - 1 : c0 + 1;
            else if (d1 >= d2)
                c1 = c1 > mid ? c1 - 1 : c1 + 1;
            else
                c2 = c2 > mid ? c2 - 1 : c2 + 1;
        }
    }

    private static uint Distance(uint c, uint mid) { return c > mid ? c - mid : mid - c; }

    // QuatNorm2 is the squared norm, summed in double in order, each square
    // rounded before it is added.
    private static double QuatNorm2(float x, float y, float z, float w)
    {
        double xx = (double)((double)x * x), yy = (double)((double)y * y), zz = (double)((double)z * z), ww = (double)((double)w * w);
        return (double)((double)((double)(xx + yy) + zz) + ww);
    }

    /// <summary>
    /// Why bitpack refuses to write (x, y, z, w), or null: a component not
    /// finite, or a squared norm more than {{QUAT_NORM_TOLERANCE}} from 1 (all four +-0 is Go's
    /// zero value, written as the identity).
    /// </summary>
    internal static string QuatProblem(float x, float y, float z, float w)
    {
        if (((Float32Bits(x) | Float32Bits(y) | Float32Bits(z) | Float32Bits(w)) << 1) == 0)
            return null;
        double n2 = QuatNorm2(x, y, z, w);
        if (global::System.Math.Abs(n2 - 1) <= {{QUAT_NORM_TOLERANCE}})
            return null;
        if (float.IsNaN(x) || float.IsNaN(y) || float.IsNaN(z) || float.IsNaN(w) ||
            float.IsInfinity(x) || float.IsInfinity(y) || float.IsInfinity(z) || float.IsInfinity(w))
            return "quaternion " + QuatText(x, y, z, w) + " has a component that is not finite";
        return "quaternion " + QuatText(x, y, z, w) + " is not unit length (norm " + Number4(global::System.Math.Sqrt(n2)) + "): normalise it";
    }
}


/// <summary>Go's words for numbers in bitpack's messages, so that errors read exactly as the Go side's.</summary>
public static partial class Bitpack
{
    private static readonly global::System.Globalization.CultureInfo Invariant = global::System.Globalization.CultureInfo.InvariantCulture;

    /// <summary>value as Go's %v prints a float64: the shortest digits that read back as it.</summary>
    internal static string Number(double value) { return Shortest(value, false); }

    /// <summary>value as Go's %v prints a float32.</summary>
    internal static string Number32(float value) { return Shortest(value, true); }

    /// <summary>value as Go's %.4g prints it (4 significant digits, rounded half to even).</summary>
    internal static string Number4(double value)
    {
        if (double.IsNaN(value) || double.IsInfinity(value) || value == 0)
            return Special(value);
        int dp;
        string digits = ExactDigits(value, out dp);
        digits = RoundDigits(digits, ref dp, 4);
        return Layout(value < 0, digits, dp, 4, false);
    }

    private static string Special(double value)
    {
        if (double.IsNaN(value))
            return "NaN";
        if (double.IsInfinity(value))
            return value > 0 ? "+Inf" : "-Inf";
        return 1 / value < 0 ? "-0" : "0";
    }

    // Shortest is Go's shortest form: the fewest digits that read back as
    // value (in float precision when single); of two such, the nearer, a
    // tie going to the even digit, or up where the gap below is half the
    // gap above (a power of two), as Go's Dragonbox does.
    private static string Shortest(double value, bool single)
    {
        if (double.IsNaN(value) || double.IsInfinity(value) || value == 0)
            return Special(value);
        double v = global::System.Math.Abs(value);
        long raw = global::System.BitConverter.DoubleToInt64Bits(v);
        bool powerOfTwo = single ? (Float32Bits((float)v) & 0x7FFFFF) == 0 : (raw & 0xFFFFFFFFFFFFFL) == 0;
        int dp;
        string d = ExactDigits(v, out dp);
        for (int p = 1; p <= (single ? 9 : 17); p++)
        {
            if (d.Length <= p)
                return Layout(value < 0, d, dp, d.Length, true);
            string down = d.Substring(0, p).TrimEnd('0');
            int upDp = dp;
            string up = RoundDigits(d.Substring(0, p) + "9", ref upDp, p);
            bool downOk = ReadsBack(down, dp, v, single), upOk = ReadsBack(up, upDp, v, single);
            if (downOk && upOk)
            {
                string rest = d.Substring(p);
                bool useUp = rest[0] > '5' || rest[0] == '5' && rest.Length > 1;
                if (rest == "5") // a tie: Go rounds it to even, or up below a power of two (but 2^-25's, as Dragonbox does)
                    useUp = powerOfTwo && (single || v != 2.98023223876953125e-08) ? true : (d[p - 1] - '0') % 2 == 1;
                downOk = !useUp;
            }
            if (downOk)
                return Layout(value < 0, down, dp, down.Length, true);
            if (upOk)
                return Layout(value < 0, up, upDp, up.Length, true);
        }
        return Layout(value < 0, d, dp, d.Length, true);
    }

    private static bool ReadsBack(string digits, int dp, double v, bool single)
    {
        string text = digits.Substring(0, 1) + "." + digits.Substring(1) + "E" + (dp - 1).ToString(Invariant);
        double back = double.Parse(text, global::System.Globalization.NumberStyles.Float, Invariant);
        return single ? (float)back == (float)v : back == v;
    }

    // ExactDigits returns the exact decimal digits of |value| (finite, not
    // zero), trailing zeros trimmed: |value| = 0.digits × 10^dp. A double is
    // m × 2^e; the digits come from m × 2^e, or m × 5^-e for e < 0, in base
    // 10^9 limbs.
    internal static string ExactDigits(double value, out int dp)
    {
        long raw = global::System.BitConverter.DoubleToInt64Bits(value) & long.MaxValue;
        int e = (int)(raw >> 52);
        ulong m = (ulong)raw & 0xFFFFFFFFFFFFFUL;
        if (e == 0)
            e = 1;
        else
            m |= 1UL << 52;
        e -= 1075;
        uint[] limbs = new uint[4 + (e > 0 ? e / 29 : -e / 12)];
        int n = 0;
        for (; m != 0; m /= 1000000000)
            limbs[n++] = (uint)(m % 1000000000);
        for (int k = e; k > 0; k -= 29)
            n = MultiplyLimbs(limbs, n, 1u << (k < 29 ? k : 29));
        for (int k = -e; k > 0; k -= 12)
            n = MultiplyLimbs(limbs, n, k >= 12 ? 244140625u : Pow5(k));
        global::System.Text.StringBuilder b = new global::System.Text.StringBuilder(9 * n);
        b.Append(limbs[n - 1].ToString(Invariant));
        for (int i = n - 2; i >= 0; i--)
            b.Append(limbs[i].ToString("D9", Invariant));
        string digits = b.ToString();
        dp = digits.Length - (e < 0 ? -e : 0);
        return digits.TrimEnd('0');
    }

    private static uint Pow5(int k)
    {
        uint p = 1;
        while (k-- > 0)
            p *= 5;
        return p;
    }

    private static int MultiplyLimbs(uint[] limbs, int n, uint factor)
    {
        ulong carry = 0;
        for (int i = 0; i < n; i++)
        {
            ulong p = (ulong)limbs[i] * factor + carry;
            limbs[i] = (uint)(p % 1000000000);
            carry = p / 1000000000;
        }
        for (; carry != 0; carry /= 1000000000)
            limbs[n++] = (uint)(carry % 1000000000);
        return n;
    }

    // RoundDigits rounds exact digits to p significant digits, half to even
    // (as Go rounds a decimal), trimming trailing zeros.
    internal static string RoundDigits(string digits, ref int dp, int p)
    {
        if (digits.Length <= p)
            return digits;
        bool up = digits[p] > '5' || digits[p] == '5' && (digits.Length > p + 1 || (digits[p - 1] - '0') % 2 == 1);
        char[] d = digits.Substring(0, p).ToCharArray();
        if (up)
        {
            int i = p - 1;
            for (; i >= 0 && d[i] == '9'; i--)
                d[i] = '0';
            if (i < 0)
            {
                dp++;
                return "1";
            }
            d[i]++;
        }
        return new string(d).TrimEnd('0');
    }

    // Layout is Go's %g of the digits (strconv's formatDigits): %e when the
    // exponent is below -4 or at least the precision (6 in shortest form),
    // else %f, with prec significant digits at most.
    private static string Layout(bool negative, string digits, int dp, int prec, bool shortest)
    {
        int nd = digits.Length;
        int eprec = prec;
        if (eprec > nd && nd >= dp)
            eprec = nd;
        if (shortest)
            eprec = 6;
        int exp = dp - 1;
        global::System.Text.StringBuilder b = new global::System.Text.StringBuilder();
        if (negative)
            b.Append('-');
        if (exp < -4 || exp >= eprec)
        {
            if (prec > nd)
                prec = nd;
            b.Append(digits[0]);
            if (prec > 1)
            {
                b.Append('.');
                for (int i = 1; i < prec; i++)
                    b.Append(i < nd ? digits[i] : '0');
            }
            b.Append(exp < 0 ? "e-" : "e+");
            int x = exp < 0 ? -exp : exp;
            if (x < 10)
                b.Append('0');
            b.Append(x.ToString(Invariant));
            return b.ToString();
        }
        if (prec > dp)
            prec = nd;
        if (dp > 0)
        {
            for (int i = 0; i < dp; i++)
                b.Append(i < nd ? digits[i] : '0');
        }
        else
        {
            b.Append('0');
        }
        if (prec - dp > 0)
        {
            b.Append('.');
            for (int i = 0; i < prec - dp; i++)
                b.Append(dp + i >= 0 && dp + i < nd ? digits[dp + i] : '0');
        }
        return b.ToString();
    }

    /// <summary>(x, y, z, w) as Go's %v prints a [4]float32.</summary>
    internal static string QuatText(float x, float y, float z, float w)
    {
        return "[" + Number32(x) + " " + Number32(y) + " " + Number32(z) + " " + Number32(w) + "]";
    }

    /// <summary>A time.Duration as Go prints it (Duration.String): 1.5s, 1m0.25s, 2h0m0s, 750µs, 0s.</summary>
    internal static string DurationText(long d)
    {
        ulong u = d < 0 ? (ulong)(-(d + 1)) + 1 : (ulong)d;
        string text;
        if (u < 1000000000UL)
        {
            if (u == 0)
                return "0s";
            int prec = 6;
            string unit = "ms";
            if (u < 1000UL)
            {
                prec = 0;
                unit = "ns";
            }
            else if (u < 1000000UL)
            {
                prec = 3;
                unit = "\u00b5s";
            }
            string frac = Fraction(ref u, prec);
            text = u.ToString(Invariant) + frac + unit;
        }
        else
        {
            string frac = Fraction(ref u, 9);
            text = (u % 60).ToString(Invariant) + frac + "s";
            u /= 60;
            if (u > 0)
            {
                text = (u % 60).ToString(Invariant) + "m" + text;
                u /= 60;
                if (u > 0)
                    text = u.ToString(Invariant) + "h" + text;
            }
        }
        return d < 0 ? "-" + text : text;
    }

    // Fraction takes prec decimal digits off v: ".5" for 5 tenths, trailing
    // zeros (and the point, for none) left out.
    private static string Fraction(ref ulong v, int prec)
    {
        string digits = "";
        bool print = false;
        for (int i = 0; i < prec; i++)
        {
            ulong digit = v % 10;
            print = print || digit != 0;
            if (print)
                digits = (char)('0' + (int)digit) + digits;
            v /= 10;
        }
        return print ? "." + digits : "";
    }
}


// The allowances (docs/wire.md, "Limits of the Go decoder"): what one packet
// may make a read visit and allocate, counted as bitpack's Go decoder counts
// it and with its numbers, so that this reader refuses exactly the packets Go
// refuses. A read of b bits may visit {{ALLOW_WORK_BASE}} + {{ALLOW_WORK_PER_BIT}}b values and allocate
// {{ALLOW_BYTES_BASE}} + {{ALLOW_BYTES_PER_BIT}}b bytes, and starts having spent {{ALLOW_OVERHEAD}} bytes. The generated code
// charges when the packet says what follows (a count, a presence bit, an
// index), before anything is allocated or looped over, with the figures of
// the Go type (bitpack's Field.Charge): a charge is refused (Range) when its
// values exceed what is left of the first allowance, else when its bytes
// exceed what is left of the second. Figures saturate at MaxFigure (2^53 - 1):
// past every allowance, so no verdict changes, and the largest Go names.

public partial struct BitpackReader
{
    private const long MaxFigure = {{MAX_FIGURE}};

    /// <summary>
    /// Charges work values and bytes bytes at bit, or refuses them as Go does
    /// (n values of size bytes each, in the refusal's words) and returns false.
    /// </summary>
    public bool Charge(long work, long bytes, long n, long size, int bit)
    {
        if (work > workLimit - workSpent)
            return Fail(BitpackErrorKind.Range, bit, global::System.Math.Min(work, MaxFigure) + " values would take the decode past the " + workLimit +
                " values it may visit for this input ({{ALLOW_WORK_WORDS}}): the packet claims more values than its bits can pay for");
        if (bytes > bytesLimit - bytesSpent)
            return Fail(BitpackErrorKind.Range, bit, (n == 1 ? "a value of " + size + " bytes" : n + " values of " + size + " bytes") +
                " would take the decode past the " + bytesLimit + " bytes it may allocate for this input ({{ALLOW_BYTES_WORDS}})");
        workSpent += work;
        bytesSpent += bytes;
        return true;
    }

    /// <summary>The root of a read: the values of the value it reads into (which it does not allocate), where it starts.</summary>
    public bool ChargeRoot(long work) { return Charge(work, 0, 1, 0, pos); }

    /// <summary>One value the packet brings (a pointee, a union member, a sparse element; a string's or byte slice's bytes: work 0, size their count).</summary>
    public bool ChargeValue(long work, long size, int bit) { return Charge(work, RoundAlloc(size), 1, size, bit); }

    /// <summary>A slice's n elements; times is 2 for elements with fields off the wire.</summary>
    public bool ChargeValues(long n, long work, long size, int times, int bit)
    {
        return Charge(Mul(n, work), Mul(RoundAlloc(Mul(n, size)), times), n, size, bit);
    }

    /// <summary>A sparse slice's n slots.</summary>
    public bool ChargeSlots(long n, int bit)
    {
        return Charge((n + {{ALLOW_SLOTS_PER_VALUE}} - 1) / {{ALLOW_SLOTS_PER_VALUE}}, RoundAlloc(Mul(n, {{ALLOW_SLOT_BYTES}})), n, {{ALLOW_SLOT_BYTES}}, bit);
    }

    /// <summary>A map's n entries of work values and a slot of slot bytes each: its table, twice.</summary>
    public bool ChargeEntries(long n, long work, long slot, int bit)
    {
        if (n == 0)
            return true;
        return Charge(Mul(n, work), Mul(RoundAlloc({{ALLOW_MAP_HEADER}} + Mul(n, {{ALLOW_MAP_SLOT_FACTOR}} * slot)), 2), n, slot, bit);
    }

    /// <summary>One entry a delta adds to a map: its share of the table, twice, unrounded.</summary>
    public bool ChargeEntry(long work, long slot, int bit) { return Charge(work, 2 * {{ALLOW_MAP_SLOT_FACTOR}} * slot, 1, slot, bit); }

    /// <summary>A hook's call: its value of size bytes and the call's own.</summary>
    public bool ChargeHook(long work, long size, int bit)
    {
        return Charge(work, RoundAlloc(size) + {{ALLOW_HOOK_CALL}}, 1, size + {{ALLOW_HOOK_CALL}}, bit);
    }

    /// <summary>
    /// The count check (docs/wire.md, "Truncated packets"): n values of at
    /// least each bits (one, many: "element", "elements") must fit in what is
    /// left, or the count is refused at the current bit.
    /// </summary>
    public bool CheckCount(long n, long each, string one, string many)
    {
        long need = Mul(n, each);
        if (need <= end - pos)
            return true;
        if (n == 1)
            return Fail(BitpackErrorKind.Overflow, pos, "1 " + one + " needs at least " + need + " bits, " + (end - pos) + " remain");
        return Fail(BitpackErrorKind.Overflow, pos, n + " " + many + " need at least " + need + " bits, " + (end - pos) + " remain");
    }

    // Mul multiplies non-negative figures, saturating at MaxFigure.
    private static long Mul(long a, long b)
    {
        if (a == 0 || b <= MaxFigure / a)
            return global::System.Math.Min(a * b, MaxFigure);
        return MaxFigure;
    }

    /// <summary>
    /// At least what Go's allocator takes for n bytes, as the allowances count
    /// it: 0 for n &lt;= 0, 16 up to 16, whole 8 KiB pages above 32 KiB, else n
    /// rounded up to a multiple of half its leading power of two.
    /// </summary>
    public static long RoundAlloc(long n)
    {
        if (n <= 0)
            return 0;
        if (n <= {{ALLOC_SMALL}})
            return {{ALLOC_SMALL}};
        if (n > {{ALLOC_CLASS_LIMIT}})
            return global::System.Math.Min(n + {{ALLOC_PAGE}} - 1, MaxFigure) & ~({{ALLOC_PAGE}}L - 1);
        long step = 1;
        while (step <= n)
            step <<= 1;
        step >>= 2; // half n's leading power of two
        return (n + step - 1) & ~(step - 1);
    }
}


// Snapshot streams (docs/wire.md, "Snapshot streams"): the header of Go's
// snapshot.Sender packets and what a Receiver keeps besides its views, the
// same for every type; each root type's TReceiver holds one.

/// <summary>A snapshot packet's header, as BitpackReceiverState.Check read it.</summary>
public struct BitpackSnapshotHeader
{
    /// <summary>The packet's sequence.</summary>
    public ushort Seq;
    /// <summary>How many packets back its base is; 0: the zero base.</summary>
    public ushort Offset;
    /// <summary>The base's id.</summary>
    public uint Check;
    /// <summary>The stream the packet is of (the base's).</summary>
    public uint Stream;
    /// <summary>The header's size in bytes: the delta follows.</summary>
    public int Size;
    /// <summary>The history slot holding the base, or -1 for the zero base.</summary>
    public int BaseSlot;
    internal bool starts, takes;
}

/// <summary>
/// The bookkeeping of a snapshot Receiver, as Go's snapshot.Receiver does
/// it: for each of History slots the sequence, id and stream of the view it
/// holds, the newest sequence read and its stream, and the last 4 streams
/// left. Check refuses a packet as Go does before its delta is decoded;
/// Accept records one whose delta decoded. Not safe for concurrent use.
/// </summary>
public sealed class BitpackReceiverState
{
    /// <summary>The History a receiver keeps unless told otherwise (Go's default).</summary>
    public const int DefaultHistory = 64;

    private const int LeftStreams = 4, MaxHistory = 32768, ShortHeader = 7, LongHeader = 8, ZeroHeader = 11, MaxShort = 127;

    private readonly int history;
    private readonly ushort[] seqs;
    private readonly uint[] ids, streams;
    private readonly bool[] full;
    private ushort newest;
    private uint stream;
    private bool read;
    private bool on; // a packet was read since creation: stream is the current stream, which Reset keeps
    private readonly uint[] left = new uint[LeftStreams];
    private int nleft;

    /// <summary>The state of a receiver keeping history views: 0 for the default (64), else a power of two from 2 to 32768, the Sender's.</summary>
    /// <exception cref="global::System.ArgumentOutOfRangeException">history is none of those.</exception>
    public BitpackReceiverState(int history)
    {
        if (history == 0)
            history = DefaultHistory;
        else if (history < 2 || history > MaxHistory || (history & (history - 1)) != 0)
            throw new global::System.ArgumentOutOfRangeException("history", "snapshot: History " + history + ": want 0 (the default, " + DefaultHistory +
                ") or a power of two from 2 to " + MaxHistory + " (sequences wrap at 65536, which History must divide)");
        this.history = history;
        seqs = new ushort[history];
        ids = new uint[history];
        streams = new uint[history];
        full = new bool[history];
    }

    /// <summary>How many views the receiver keeps.</summary>
    public int History { get { return history; } }

    /// <summary>The sequence to acknowledge: the newest read, or 0xFFFF before the first.</summary>
    public ushort Ack { get { return read ? newest : (ushort)0xFFFF; } }

    /// <summary>Whether the view of sequence seq is one the receiver holds: read, and among the last History sequences up to the newest.</summary>
    public bool Holds(ushort seq)
    {
        int s = seq & (history - 1);
        return read && full[s] && seqs[s] == seq && (ushort)(newest - seq) < history;
    }

    /// <summary>
    /// Reads the header of the count bytes of packet from offset on and
    /// checks everything Go's Receiver checks before the delta (the steps
    /// of docs/wire.md in order): false, with Go's error, for a packet it
    /// refuses. Changes nothing.
    /// </summary>
    public bool Check(byte[] packet, int offset, int count, out BitpackSnapshotHeader h, out string error)
    {
        Bitpack.CheckSegment(packet, offset, count, "packet");
        h = default(BitpackSnapshotHeader);
        h.BaseSlot = -1;
        if (count < ShortHeader + 1)
            return Refuse(out error, "a packet of " + count + " bytes: the smallest is " + (ShortHeader + 1) + " (a " + ShortHeader + "-byte header and a delta)", Bitpack.OverflowText);
        ushort seq = (ushort)(packet[offset] | packet[offset + 1] << 8);
        int n = ShortHeader;
        ushort off;
        if ((packet[offset + 2] & 1) == 0)
        {
            off = (ushort)(packet[offset + 2] >> 1);
            if (off == 0)
                n = ZeroHeader;
        }
        else
        {
            n = LongHeader;
            off = (ushort)((packet[offset + 2] | packet[offset + 3] << 8) >> 1);
        }
        if (count < n + 1)
            return Refuse(out error, "packet " + seq + ": a " + n + "-byte header and a delta in " + count + " bytes", Bitpack.OverflowText);
        if (n == LongHeader && off <= MaxShort)
            return Refuse(out error, "packet " + seq + ": base offset " + off + " in the long form (the short form carries 0 to " + MaxShort + ")", Bitpack.RangeText);
        if (off >= history)
            return Refuse(out error, "packet " + seq + ": base offset " + off + " out of range [0, " + (history - 1) + "] (History " + history + ")", Bitpack.RangeText);
        h.Seq = seq;
        h.Offset = off;
        h.Size = n;
        h.Check = Word(packet, offset + (n == LongHeader ? 4 : 3));
        if (off == 0)
        {
            h.Stream = Word(packet, offset + 7);
            uint z = ZeroId(h.Stream);
            if (h.Check != z)
                return Refuse(out error, "packet " + seq + ": the zero base of stream " + Hex(h.Stream) + " has id " + Hex(z) + ", not " + Hex(h.Check), NoBaseText);
        }
        else
        {
            ushort b = (ushort)(seq - off);
            int s = b & (history - 1);
            if (!Holds(b))
                return Refuse(out error, "packet " + seq + ": its base " + b + " (offset " + off + ") is not held", NoBaseText);
            if (ids[s] != h.Check)
                return Refuse(out error, "packet " + seq + ": the view held as " + b + " is not its base (check " + Hex(h.Check) + ", held " + Hex(ids[s]) + ")", NoBaseText);
            h.BaseSlot = s;
            h.Stream = streams[s];
        }
        if (HasLeft(h.Stream))
            return Refuse(out error, "packet " + seq + ": of stream " + Hex(h.Stream) + ", which this receiver left", NoBaseText);
        h.starts = off == 0 && (!read || h.Stream != stream);
        h.takes = h.starts || h.Stream == stream && Newer(seq, newest);
        if (!h.takes && (ushort)(newest - seq) >= history)
            return Refuse(out error, "packet " + seq + ": older than the " + history + " sequences kept up to " + newest, Bitpack.RangeText);
        error = null;
        return true;
    }

    /// <summary>
    /// Records a packet Check passed and whose delta decoded, id being the
    /// CRC-32 of the whole packet: its view is in slot h.Seq mod History;
    /// it becomes the newest when it takes that place.
    /// </summary>
    public void Accept(ref BitpackSnapshotHeader h, uint id)
    {
        int s = h.Seq & (history - 1);
        seqs[s] = h.Seq;
        ids[s] = id;
        streams[s] = h.Stream;
        full[s] = true;
        if (h.starts && on && h.Stream != stream && !HasLeft(stream))
            left[nleft++ % LeftStreams] = stream;
        if (h.takes)
        {
            newest = h.Seq;
            stream = h.Stream;
            read = on = true;
        }
    }

    /// <summary>Forgets every view, as after a reconnect; the streams left stay left, and the one it was on is left when a packet starts another (Go's Reset).</summary>
    public void Reset()
    {
        read = false;
        global::System.Array.Clear(full, 0, full.Length);
    }

    /// <summary>The error wrapping ErrNoBase's text, Go's snapshot.ErrNoBase.</summary>
    internal const string NoBaseText = "snapshot: the packet's base is not a view this receiver holds";

    private static bool Refuse(out string error, string what, string sentinel)
    {
        error = "snapshot: " + what + ": " + sentinel;
        return false;
    }

    private static uint Word(byte[] p, int at)
    {
        return (uint)p[at] | (uint)p[at + 1] << 8 | (uint)p[at + 2] << 16 | (uint)p[at + 3] << 24;
    }

    private static string Hex(uint v) { return "0x" + v.ToString("x8"); }

    /// <summary>The id of the zero base of a stream: the CRC-32 of its value's 4 little-endian bytes.</summary>
    public static uint ZeroId(uint stream)
    {
        return Bitpack.Crc32Word(stream);
    }

    private bool HasLeft(uint s)
    {
        for (int i = 0; i < nleft && i < LeftStreams; i++)
        {
            if (left[i] == s)
                return true;
        }
        return false;
    }

    /// <summary>Whether sequence a is newer than b (serialize's sequence_greater_than).</summary>
    public static bool Newer(ushort a, ushort b)
    {
        return a > b && a - b <= 32768 || a < b && b - a > 32768;
    }
}

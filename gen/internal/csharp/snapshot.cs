
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
/// holds, the newest sequence read and its stream, and the last {{SNAP_LEFT_STREAMS}} streams
/// left. Check refuses a packet as Go does before its delta is decoded;
/// Accept records one whose delta decoded. Not safe for concurrent use.
/// </summary>
public sealed class BitpackReceiverState
{
    /// <summary>The History a receiver keeps unless told otherwise (Go's default).</summary>
    public const int DefaultHistory = {{SNAP_DEFAULT_HISTORY}};

    private const int LeftStreams = {{SNAP_LEFT_STREAMS}}, MinHistory = {{SNAP_MIN_HISTORY}}, MaxHistory = {{SNAP_MAX_HISTORY}}, MinPacket = {{SNAP_MIN_PACKET}};
    private const int ShortHeader = {{SNAP_SHORT_HEADER}}, LongHeader = {{SNAP_LONG_HEADER}}, ZeroHeader = {{SNAP_ZERO_HEADER}}, MaxShort = {{SNAP_MAX_SHORT}};
    private const ushort NoAck = {{SNAP_NO_ACK}};

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

    /// <summary>The state of a receiver keeping history views: 0 for the default ({{SNAP_DEFAULT_HISTORY}}), else a power of two from {{SNAP_MIN_HISTORY}} to {{SNAP_MAX_HISTORY}}, the Sender's.</summary>
    /// <exception cref="global::System.ArgumentOutOfRangeException">history is none of those.</exception>
    public BitpackReceiverState(int history)
    {
        if (history == 0)
            history = DefaultHistory;
        else if (history < MinHistory || history > MaxHistory || (history & (history - 1)) != 0)
            throw new global::System.ArgumentOutOfRangeException("history", Format(Words.History, history, DefaultHistory, MinHistory, MaxHistory));
        this.history = history;
        seqs = new ushort[history];
        ids = new uint[history];
        streams = new uint[history];
        full = new bool[history];
    }

    /// <summary>How many views the receiver keeps.</summary>
    public int History { get { return history; } }

    /// <summary>The sequence to acknowledge: the newest read, or {{SNAP_NO_ACK}} before the first.</summary>
    public ushort Ack { get { return read ? newest : NoAck; } }

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
        if (count < MinPacket)
            return Refuse(out error, Format(Words.TooShort, count, MinPacket, ShortHeader), Words.Overflow);
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
            return Refuse(out error, Format(Words.NoDelta, seq, n, count), Words.Overflow);
        if (n == LongHeader && off <= MaxShort)
            return Refuse(out error, Format(Words.LongForm, seq, off, MaxShort), Words.Range);
        if (off >= history)
            return Refuse(out error, Format(Words.OffsetRange, seq, off, history - 1, history), Words.Range);
        h.Seq = seq;
        h.Offset = off;
        h.Size = n;
        h.Check = Word(packet, offset + (n == LongHeader ? 4 : 3));
        if (off == 0)
        {
            h.Stream = Word(packet, offset + 7);
            uint z = ZeroId(h.Stream);
            if (h.Check != z)
                return Refuse(out error, Format(Words.ZeroBase, seq, h.Stream, z, h.Check), Words.NoBase);
        }
        else
        {
            ushort b = (ushort)(seq - off);
            int s = b & (history - 1);
            if (!Holds(b))
                return Refuse(out error, Format(Words.NotHeld, seq, b, off), Words.NoBase);
            if (ids[s] != h.Check)
                return Refuse(out error, Format(Words.NotBase, seq, b, h.Check, ids[s]), Words.NoBase);
            h.BaseSlot = s;
            h.Stream = streams[s];
        }
        if (HasLeft(h.Stream))
            return Refuse(out error, Format(Words.LeftStream, seq, h.Stream), Words.NoBase);
        h.starts = off == 0 && (!read || h.Stream != stream);
        h.takes = h.starts || h.Stream == stream && Newer(seq, newest);
        if (!h.takes && (ushort)(newest - seq) >= history)
            return Refuse(out error, Format(Words.TooOld, seq, history, newest), Words.Range);
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

    /// <summary>
    /// Go's snapshot words (internal/snapwire): fmt formats whose verbs
    /// are %d and %#08x only, and the texts of the sentinels they wrap.
    /// </summary>
    internal static class Words
    {
{{SNAPSHOT_WORDS}}
    }

    /// <summary>The refusal of a packet whose delta refused, error being the delta's: Go's wrapping of it.</summary>
    internal static string DeltaRefusal(ushort seq, string error)
    {
        return Format(Words.Delta, seq) + ": " + error;
    }

    private static bool Refuse(out string error, string what, string sentinel)
    {
        error = what + ": " + sentinel;
        return false;
    }

    /// <summary>format rendered as Go's fmt renders it: each %d the next of a, b, c, d in decimal, each %#08x as 0x and 8 hex digits of its low 32 bits.</summary>
    private static string Format(string format, long a, long b = 0, long c = 0, long d = 0)
    {
        global::System.Text.StringBuilder s = new global::System.Text.StringBuilder(format.Length + 32);
        int k = 0;
        for (int i = 0; i < format.Length; i++)
        {
            if (format[i] != '%')
            {
                s.Append(format[i]);
                continue;
            }
            long v = k == 0 ? a : k == 1 ? b : k == 2 ? c : d;
            k++;
            if (string.CompareOrdinal(format, i, "%#08x", 0, 5) == 0)
            {
                s.Append("0x").Append(((uint)v).ToString("x8", global::System.Globalization.CultureInfo.InvariantCulture));
                i += 4;
            }
            else
            {
                s.Append(v.ToString(global::System.Globalization.CultureInfo.InvariantCulture)); // %d
                i++;
            }
        }
        return s.ToString();
    }

    private static uint Word(byte[] p, int at)
    {
        return (uint)p[at] | (uint)p[at + 1] << 8 | (uint)p[at + 2] << 16 | (uint)p[at + 3] << 24;
    }

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
        return a > b && a - b <= {{SNAP_SEQ_HALF}} || a < b && b - a > {{SNAP_SEQ_HALF}};
    }
}

package csharp

import (
	"bytes"
	"fmt"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/internal/snapwire"
)

// The methods that work in memory the caller owns (a value read into, a
// buffer written into, a part of an array), and each root type's
// TReceiver, the client's end of a Go snapshot stream.

// ownedMethods renders a class's methods over the caller's memory: reads
// and writes over part of an array, then delta reads into a value the
// caller owns, after the per-thread scratch value those decode into.
func (e *Emitter) ownedMethods(t *model.Type) string {
	name, goName := e.typeNames[t], code.Quote(t.Go.String())
	return fmt.Sprintf(`
    [global::System.ThreadStatic] private static %[1]s scratch; // TryReadDelta's, into a value: the delta is applied here first
`, name) + ownedBufferMethods(name, goName) + ownedDeltaReads(name, goName)
}

// ownedBufferMethods renders TryRead, TryWrite and TryWriteDelta over
// part of an array or an ArraySegment, for class name (goName: its Go
// type, as errors name it).
func ownedBufferMethods(name, goName string) string {
	return fmt.Sprintf(`
    /// <summary>
    /// TryRead over the count bytes of packet from offset on (nothing
    /// outside them is read): a new value, or false with bitpack's error.
    /// </summary>
    public static bool TryRead(byte[] packet, int offset, int count, out %[1]s value, out string error)
    {
        BitpackReader r = new BitpackReader(packet, offset, count);
        %[1]s v;
        if (!Read(ref r, out v) || !r.Finish())
        {
            value = null;
            error = r.Error(%[2]s);
            return false;
        }
        value = v;
        error = null;
        return true;
    }

    /// <summary>TryRead over the bytes packet spans.</summary>
    public static bool TryRead(global::System.ArraySegment<byte> packet, out %[1]s value, out string error)
    {
        return TryRead(packet.Array, packet.Offset, packet.Count, out value, out error);
    }

    /// <summary>
    /// Writes the packet bitpack.Marshal writes into the count bytes of
    /// destination from offset on, allocating nothing: bytesWritten is its
    /// length. False, with bitpack's error, for a value it refuses, and for a
    /// packet longer than count bytes (the error says how long); then
    /// bytesWritten is 0 and the bytes of destination are unspecified.
    /// </summary>
    public bool TryWrite(byte[] destination, int offset, int count, out int bytesWritten, out string error)
    {
        BitpackWriter w = new BitpackWriter(destination, offset, count);
        bool ok = WriteTo(ref w);
        return Bitpack.Written(ref w, ok, count, %[2]s, out bytesWritten, out error);
    }

    /// <summary>TryWrite into the bytes destination spans.</summary>
    public bool TryWrite(global::System.ArraySegment<byte> destination, out int bytesWritten, out string error)
    {
        return TryWrite(destination.Array, destination.Offset, destination.Count, out bytesWritten, out error);
    }

    /// <summary>
    /// Writes this value's delta against baseValue, the bytes
    /// bitpack.AppendDelta writes, into the count bytes of destination from
    /// offset on, allocating nothing (as TryWrite into a buffer).
    /// </summary>
    public bool TryWriteDelta(%[1]s baseValue, byte[] destination, int offset, int count, out int bytesWritten, out string error)
    {
        BitpackWriter w = new BitpackWriter(destination, offset, count);
        bool ok = WriteDelta(ref w, baseValue);
        return Bitpack.Written(ref w, ok, count, %[2]s, out bytesWritten, out error);
    }

    /// <summary>TryWriteDelta into the bytes destination spans.</summary>
    public bool TryWriteDelta(%[1]s baseValue, global::System.ArraySegment<byte> destination, out int bytesWritten, out string error)
    {
        return TryWriteDelta(baseValue, destination.Array, destination.Offset, destination.Count, out bytesWritten, out error);
    }
`, name, goName)
}

// ownedDeltaReads renders TryReadDelta, atomic, into a value the caller
// owns, and ReadDelta, the stream-level read it is built on.
func ownedDeltaReads(name, goName string) string {
	return fmt.Sprintf(`
    /// <summary>
    /// Applies a delta (bitpack.AppendDelta's bytes, the count bytes of
    /// packet from offset on) to baseValue as bitpack.UnmarshalDelta does,
    /// into value, a value the caller owns (it may be baseValue itself):
    /// its objects, arrays and dictionaries are reused where they have the
    /// result's shape, so that a delta between values of a stable shape
    /// allocates nothing but the strings it changes. Atomic: a refused delta
    /// (false, with bitpack's error) changes neither value nor baseValue;
    /// an accepted one never changes baseValue unless it is value. value
    /// shares nothing with baseValue but strings and hook objects.
    /// </summary>
    public static bool TryReadDelta(byte[] packet, int offset, int count, %[1]s baseValue, %[1]s value, out string error)
    {
        if (value == null)
            throw new global::System.ArgumentNullException("value");
        BitpackReader r = new BitpackReader(packet, offset, count);
        %[1]s s = scratch ?? new %[1]s();
        scratch = null; // a hook reading this type again gets its own
        bool ok = ReadDelta(ref r, baseValue, s) && r.Finish();
        if (ok)
            value.CopyFrom(s);
        scratch = s;
        error = ok ? null : r.Error(%[2]s);
        return ok;
    }

    /// <summary>TryReadDelta into value over the bytes packet spans.</summary>
    public static bool TryReadDelta(global::System.ArraySegment<byte> packet, %[1]s baseValue, %[1]s value, out string error)
    {
        return TryReadDelta(packet.Array, packet.Offset, packet.Count, baseValue, value, out error);
    }

    /// <summary>
    /// Reads one delta from r (its changed bit, then its body) and applies it
    /// to baseValue into value, which becomes a copy of baseValue (CopyFrom)
    /// first unless it is baseValue: not atomic (a refusal leaves value part
    /// way), no check for what follows. TryReadDelta is the atomic one.
    /// </summary>
    public static bool ReadDelta(ref BitpackReader r, %[1]s baseValue, %[1]s value)
    {
        if (baseValue == null)
            throw new global::System.ArgumentNullException("baseValue");
        if (value == null)
            throw new global::System.ArgumentNullException("value");
        int start = r.BitsRead;
        bool changed;
        if (!r.ReadBool(out changed))
            return false;
        value.CopyFrom(baseValue);
        if (changed)
        {
            bool any;
            if (!value.ReadDeltaBody(ref r, out any))
                return false;
            if (!any)
                return r.Unchanged(start);
        }
        return true;
    }
`, name, goName)
}

// receiverName is the name of root type t's receiver class: TReceiver,
// with underscores while another type has the name.
func (e *Emitter) receiverName(t *model.Type) string {
	n := e.typeNames[t] + "Receiver"
	for taken := true; taken; {
		taken = false
		for _, other := range e.typeNames {
			if other == n {
				n += "_"
				taken = true
				break
			}
		}
	}
	return n
}

// receiverType renders root type t's receiver.
func (e *Emitter) receiverType(b *bytes.Buffer, t *model.Type) {
	name := e.typeNames[t]
	fmt.Fprintf(b, code.Rules(`/// <summary>
/// The client's end of a Go snapshot.Sender[%[3]s]'s stream (docs/wire.md,
/// "Snapshot streams"): it reads each packet exactly as Go's
/// snapshot.Receiver does — the same views, the same refusals, in its
/// words, the same Ack — keeping the views of the last History sequences
/// up to the newest as the bases later packets name. Not safe for
/// concurrent use.
///
/// Memory: the receiver owns History + 1 values (a view per slot of its
/// history, and one to decode into) and reuses them: once its history is
/// full, a packet whose view has the shape of the one it replaces (the
/// same entities present, the same lengths and map keys) is read without
/// allocating, but for the strings it changes.
/// </summary>
public sealed class %[1]s
{
    private readonly BitpackReceiverState state;
    private readonly %[2]s[] views;      // by sequence modulo History
    private readonly %[2]s zero = new %[2]s(); // the zero base, never written
    private %[2]s next = new %[2]s();          // the packet being read is decoded here, then swapped into its slot

    /// <summary>A receiver keeping history views: 0 for the default ({{SNAP_DEFAULT_HISTORY}}), else a power of two from {{SNAP_MIN_HISTORY}} to {{SNAP_MAX_HISTORY}}, the Sender's History.</summary>
    /// <exception cref="global::System.ArgumentOutOfRangeException">history is none of those.</exception>
    public %[1]s(int history = BitpackReceiverState.DefaultHistory)
    {
        state = new BitpackReceiverState(history);
        views = new %[2]s[state.History];
    }

    /// <summary>How many views the receiver keeps.</summary>
    public int History { get { return state.History; } }

    /// <summary>The sequence to acknowledge to the Sender: the newest read, or {{SNAP_NO_ACK}} before the first (Go's Receiver.Ack).</summary>
    public ushort Ack { get { return state.Ack; } }

    /// <summary>
    /// Reads one packet, the count bytes of packet from offset on (nothing
    /// outside them is read). True: value is the packet's view and seq its
    /// sequence. False: error is Go's Receiver's, word for word (a packet
    /// whose base the receiver does not hold says so: "... base ...: %[5]s"),
    /// value is
    /// null, seq is the packet's sequence once its header could be read
    /// (else 0, as Go's), and nothing changed: the history, Ack, and every
    /// value handed out before are as they were.
    ///
    /// value is the receiver's view, not a copy: do not change it. It stays
    /// as read until the receiver reads another packet of the same slot
    /// (sequence modulo History: History sequences later, or this packet
    /// again) and then one more packet: hold it no longer, or copy it
    /// (Clone, or CopyFrom into a value of your own).
    /// </summary>
    /// <exception cref="global::System.ArgumentNullException">packet is null.</exception>
    /// <exception cref="global::System.ArgumentOutOfRangeException">offset and count do not name bytes of packet.</exception>
    public bool TryRead(byte[] packet, int offset, int count, out %[2]s value, out ushort seq, out string error)
    {
        BitpackSnapshotHeader h;
        value = null;
        if (!state.Check(packet, offset, count, out h, out error))
        {
            seq = h.Seq;
            return false;
        }
        seq = h.Seq;
        BitpackReader r = new BitpackReader(packet, offset + h.Size, count - h.Size);
        if (!%[2]s.ReadDelta(ref r, h.BaseSlot < 0 ? zero : views[h.BaseSlot], next) || !r.Finish())
        {
            error = BitpackReceiverState.DeltaRefusal(h.Seq, r.Error(%[4]s));
            return false;
        }
        int slot = h.Seq & (views.Length - 1);
        value = next;
        next = views[slot] ?? new %[2]s();
        views[slot] = value;
        state.Accept(ref h, Bitpack.Crc32(0, packet, offset, count));
        return true;
    }

    /// <summary>TryRead over a whole array.</summary>
    public bool TryRead(byte[] packet, out %[2]s value, out ushort seq, out string error)
    {
        if (packet == null)
            throw new global::System.ArgumentNullException("packet");
        return TryRead(packet, 0, packet.Length, out value, out seq, out error);
    }

    /// <summary>TryRead over the bytes packet spans.</summary>
    public bool TryRead(global::System.ArraySegment<byte> packet, out %[2]s value, out ushort seq, out string error)
    {
        return TryRead(packet.Array, packet.Offset, packet.Count, out value, out seq, out error);
    }

    /// <summary>
    /// Forgets every view, as a new receiver would, after a reconnect (Go's
    /// Receiver.Reset): no packet builds on what it held. It still refuses
    /// the streams it left.
    /// </summary>
    public void Reset()
    {
        state.Reset();
    }

    /// <summary>The view the receiver holds under seq (its own, as TryRead hands it out), or false.</summary>
    public bool TryGetView(ushort seq, out %[2]s value)
    {
        value = state.Holds(seq) ? views[seq & (views.Length - 1)] : null;
        return value != null;
    }
}

`), e.receiverName(t), name, t.Go, code.Quote(t.Go.String()), snapwire.NoBase)
}

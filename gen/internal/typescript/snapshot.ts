
// Snapshot streams (docs/wire.md, "Snapshot streams"): the packets of a Go
// snapshot.Sender, each a header naming its base view and a delta from
// it, read exactly as snapshot.Receiver reads them. Each root type T gets
// a TReceiver, a BitpackReceiver<T>.

// The header's sizes and limits, and the words of snapshot's refusals,
// each a Go format of %d and %#08x verbs (internal/snapwire), and of the
// sentinels they wrap.
{{SNAPSHOT_CONSTANTS}}
const snapshotWords = {{SNAPSHOT_WORDS}};

/** format (a Go format of %d and %#08x verbs) with args, as Go's fmt prints them. */
function goFormat(format: string, args: readonly number[]): string {
  let i = 0;
  return format.replace(/%#08x|%d/g, (verb) => {
    const a = args[i++] ?? 0;
    return verb === "%d" ? String(a) : "0x" + (a >>> 0).toString(16).padStart(8, "0");
  });
}

/** A refusal of a packet's header in snapshot's words: the format, then the sentinel's text. */
function snapshotRefusal(type: string, kind: "Overflow" | "Range" | "NoBase", format: string, args: readonly number[]): BitpackError {
  const text = goFormat(format, args) + ": " + snapshotWords[kind];
  const e = new BitpackError("decode", type, kind, "", -1, text);
  e.message = text;
  return e;
}

/** The CRC-32 (IEEE) of the 4 little-endian bytes of v: the id of the zero base of stream v. */
function crc32Word(v: number): number {
  let crc = ~0;
  for (let i = 0; i < 4; i++) {
    crc = crcTable[(crc ^ (v >>> (8 * i))) & 0xff]! ^ (crc >>> 8);
  }
  return ~crc >>> 0;
}

/** serialize's sequence_greater_than: whether 16-bit sequence a is newer than b. */
function seqNewer(a: number, b: number): boolean {
  return (a > b && a - b <= snapshotSeqHalf) || (a < b && b - a > snapshotSeqHalf);
}

/** What a receiver needs of its type: the generated functions of T. */
export interface BitpackSnapshotType<T> {
  readonly name: string; // the Go type, as errors name it
  zero(): T; // newT
  readDelta(r: BitReader, base: T, into: T): boolean; // readTDeltaFrom
}

/** One view a receiver holds. */
class BitpackView<T> {
  value: T;
  seq = 0;
  id = 0; // the CRC-32 of the packet that produced it
  stream = 0; // the value its ids chain from
  full = false;

  constructor(value: T) {
    this.value = value;
  }
}

/**
 * Reads the packets of a Go snapshot.Sender[T] exactly as
 * snapshot.Receiver[T] does (docs/wire.md, "Snapshot streams"): it keeps
 * the views of the last history sequences up to the newest it read,
 * decodes each packet's delta against the view its header names, and
 * tells the client what to acknowledge. Each root type T of the module has
 * its own, TReceiver.
 *
 * read(packet) returns the packet's sequence and view, or throws a
 * BitpackError, and a refused packet changes nothing. Its kind is
 * "NoBase" when the packet's base is not a view the receiver holds (Go's
 * snapshot.ErrNoBase; the message says "base"), else bitpack's kind
 * (Overflow, Range, ...), and its message is the Go Receiver's error,
 * word for word. packet may be any view of bytes (a subarray of a larger
 * buffer); the receiver keeps no reference to it.
 *
 * The view read returns is the receiver's, not a copy: it is the base
 * later packets are decoded against, so it must not be changed, and it
 * stays as it is until the receiver accepts another packet whose sequence
 * is the same modulo history (history packets later in a stream in order;
 * a duplicate of the same packet at once), after which the receiver
 * reuses its objects. To keep a view longer, or to change it, copy it
 * (copyT into a value of your own, cloneT for a new one). Reusing the
 * objects of the views it evicts is what makes read allocate almost
 * nothing once its history is full: a new object only for what the
 * world gained (an entity that appears, a longer list), a changed string
 * or byte array, or a union that changes member.
 *
 * ack is what to send back for the Go Sender's Ack: the newest sequence
 * read, or {{SNAP_NO_ACK}} before the first. reset() forgets every view after a
 * reconnect, as Receiver.Reset.
 */
export class BitpackReceiver<T> {
  private readonly type: BitpackSnapshotType<T>;
  private readonly history: number;
  private readonly views: (BitpackView<T> | null)[]; // by sequence modulo history; made when first written
  private readonly zeroBase: T; // the zero base, never written
  private spare: BitpackView<T> | null = null; // what the next packet is decoded into
  private newest = 0; // the newest sequence read (when hasRead)
  private stream = 0; // the stream of the newest view
  private hasRead = false; // a packet was read since creation or reset
  private on = false; // a packet was read since creation: stream is the current stream, which reset keeps
  private readonly left: number[] = []; // the streams left (the last few)
  private leftCount = 0;

  /** A receiver of T's stream; history must be the Sender's (0 or undefined: Go's default). */
  constructor(type: BitpackSnapshotType<T>, history?: number) {
    const h = history === undefined || history === 0 ? snapshotDefaultHistory : history;
    if (!Number.isInteger(h) || h < snapshotMinHistory || h > snapshotMaxHistory || (h & (h - 1)) !== 0) {
      throw new RangeError(goFormat(snapshotWords.History, [Number(history), snapshotDefaultHistory, snapshotMinHistory, snapshotMaxHistory]));
    }
    this.type = type;
    this.history = h;
    this.views = new Array<BitpackView<T> | null>(h).fill(null);
    this.zeroBase = type.zero();
  }

  /** The sequence to acknowledge: the newest read, or {{SNAP_NO_ACK}} before the first. */
  get ack(): number {
    return this.hasRead ? this.newest : snapshotNoAck;
  }

  /** Reads one packet: its sequence and view (the receiver's: see the class). Throws BitpackError for a packet it refuses. */
  read(packet: Uint8Array): { seq: number; value: T } {
    const type = this.type.name;
    const length = packet.length;
    if (length < snapshotMinPacket) {
      throw snapshotRefusal(type, "Overflow", snapshotWords.TooShort, [length, snapshotMinPacket, snapshotShortHeader]);
    }
    const seq = packet[0]! | (packet[1]! << 8);
    const form = packet[2]!;
    let offset = form >>> 1;
    let n = snapshotShortHeader;
    if ((form & 1) === 1) {
      n = snapshotLongHeader;
      offset = (form | (packet[3]! << 8)) >>> 1;
    } else if (offset === 0) {
      n = snapshotZeroHeader;
    }
    if (length < n + 1) {
      throw snapshotRefusal(type, "Overflow", snapshotWords.NoDelta, [seq, n, length]);
    }
    if (n === snapshotLongHeader && offset <= snapshotMaxShort) {
      throw snapshotRefusal(type, "Range", snapshotWords.LongForm, [seq, offset, snapshotMaxShort]);
    }
    if (offset >= this.history) {
      throw snapshotRefusal(type, "Range", snapshotWords.OffsetRange, [seq, offset, this.history - 1, this.history]);
    }
    const at = n === snapshotLongHeader ? 4 : 3;
    const check = (packet[at]! | (packet[at + 1]! << 8) | (packet[at + 2]! << 16) | (packet[at + 3]! << 24)) >>> 0;
    let base = this.zeroBase;
    let stream = 0;
    if (offset === 0) {
      stream = (packet[7]! | (packet[8]! << 8) | (packet[9]! << 16) | (packet[10]! << 24)) >>> 0;
      const zero = crc32Word(stream);
      if (check !== zero) {
        throw snapshotRefusal(type, "NoBase", snapshotWords.ZeroBase, [seq, stream, zero, check]);
      }
    } else {
      const b = (seq - offset) & 0xffff;
      const held = this.views[b % this.history] ?? null;
      if (held === null || !this.holds(held, b)) {
        throw snapshotRefusal(type, "NoBase", snapshotWords.NotHeld, [seq, b, offset]);
      }
      if (held.id !== check) {
        throw snapshotRefusal(type, "NoBase", snapshotWords.NotBase, [seq, b, check, held.id]);
      }
      base = held.value;
      stream = held.stream;
    }
    if (this.hasLeft(stream)) {
      throw snapshotRefusal(type, "NoBase", snapshotWords.LeftStream, [seq, stream]);
    }
    const starts = offset === 0 && (!this.hasRead || stream !== this.stream);
    const takes = starts || (stream === this.stream && seqNewer(seq, this.newest));
    if (!takes && ((this.newest - seq) & 0xffff) >= this.history) {
      throw snapshotRefusal(type, "Range", snapshotWords.TooOld, [seq, this.history, this.newest]);
    }
    // The delta goes into the spare view (the one the last accepted packet
    // evicted): a refused delta leaves it half written, and it is no view.
    const dst = this.spare ?? new BitpackView<T>(this.type.zero());
    this.spare = dst;
    const r = new BitReader(packet.subarray(n));
    if (!this.type.readDelta(r, base, dst.value) || !r.finish()) {
      const e = r.error(type);
      e.message = goFormat(snapshotWords.Delta, [seq]) + ": " + e.message;
      throw e;
    }
    dst.seq = seq;
    dst.id = crc32(0, packet);
    dst.stream = stream;
    dst.full = true;
    const i = seq % this.history;
    this.spare = this.views[i] ?? null;
    this.views[i] = dst;
    if (starts && this.on && stream !== this.stream) {
      this.leave();
    }
    if (takes) {
      this.newest = seq;
      this.stream = stream;
      this.hasRead = true;
      this.on = true;
    }
    return { seq, value: dst.value };
  }

  /** Forgets every view, as a new receiver would, after a reconnect; the streams it left stay left, and the one it was on is left when a packet starts another. */
  reset(): void {
    this.hasRead = false;
    for (const v of this.views) {
      if (v !== null) {
        v.full = false;
      }
    }
  }

  /** Whether v holds the view of sequence seq: read, and within the last history sequences up to the newest. */
  private holds(v: BitpackView<T>, seq: number): boolean {
    return this.hasRead && v.full && v.seq === seq && ((this.newest - seq) & 0xffff) < this.history;
  }

  private hasLeft(stream: number): boolean {
    for (let i = 0; i < Math.min(this.leftCount, snapshotLeftStreams); i++) {
      if (this.left[i] === stream) {
        return true;
      }
    }
    return false;
  }

  /** Adds the current stream to the streams left. */
  private leave(): void {
    if (!this.hasLeft(this.stream)) {
      this.left[this.leftCount % snapshotLeftStreams] = this.stream;
      this.leftCount++;
    }
  }
}


/**
 * Reads bitpack's bits from a packet. A failed read records the first
 * error (its kind, bit, path and what is wrong), sets failed and returns a
 * zero value; the generated code then returns false, naming its field on
 * the way out, and the top-level read throws it as a BitpackError.
 */
export class BitReader {
  private readonly data: Uint8Array;
  private pos = 0;
  private readonly end: number;
  failed = false;
  kind: BitpackErrorKind = "Range";
  errorBit = 0;
  errorPath = "";
  errorDetail = "";
  // The allowances (see charge), and what the read has spent.
  private readonly workLimit: number;
  private readonly bytesLimit: number;
  private workSpent = 0;
  private bytesSpent = {{ALLOW_OVERHEAD}};

  constructor(packet: Uint8Array) {
    this.data = packet;
    this.end = 8 * packet.length;
    this.workLimit = {{ALLOW_WORK_BASE}} + {{ALLOW_WORK_PER_BIT}} * this.end;
    this.bytesLimit = {{ALLOW_BYTES_BASE}} + {{ALLOW_BYTES_PER_BIT}} * this.end;
  }

  get bitsRead(): number {
    return this.pos;
  }

  get bitsRemaining(): number {
    return this.end - this.pos;
  }

  /** Goes back to bit pos (at most bitsRead) to read again: for deltas. */
  rewind(pos: number): void {
    this.pos = pos;
  }

  /** Records a refusal at bit (the first one wins) and returns false. */
  fail(kind: BitpackErrorKind, bit: number, detail: string): false {
    if (!this.failed) {
      this.failed = true;
      this.kind = kind;
      this.errorBit = bit;
      this.errorPath = "";
      this.errorDetail = detail;
    }
    return false;
  }

  /** Refuses the value being read, at the current bit: for hooks. */
  refuse(detail: string): false {
    return this.fail("Range", this.pos, detail);
  }

  /** Prefixes the error's field path with segment and returns false. */
  at(segment: string): false {
    this.errorPath = joinPath(segment, this.errorPath);
    return false;
  }

  error(type: string): BitpackError {
    return new BitpackError("decode", type, this.kind, this.errorPath, this.errorBit, this.errorDetail);
  }

  /** Refuses whole bytes left after the value, as bitpack.Unmarshal does. */
  finish(): boolean {
    if (this.end - this.pos >= 8) {
      const n = (this.end - this.pos) >> 3;
      return this.fail("Trailing", this.pos, n === 1 ? "1 trailing byte after the value" : n + " trailing bytes after the value");
    }
    return true;
  }

  private overflow(n: number): false {
    return this.fail("Overflow", this.pos, "needs " + n + " bits, " + (this.end - this.pos) + " remain");
  }

  /** Reads n bits, 0 <= n <= 32, as an unsigned number. */
  readBits(n: number): number {
    const pos = this.pos;
    if (n > this.end - pos) {
      this.overflow(n);
      return 0;
    }
    if (n <= 0) {
      return 0;
    }
    const d = this.data;
    let i = pos >>> 3;
    let value = d[i]! >>> (pos & 7);
    for (let got = 8 - (pos & 7); got < n; got += 8) {
      value |= d[++i]! << got; // got < 32
    }
    this.pos = pos + n;
    return n < 32 ? value & ((1 << n) - 1) : value >>> 0;
  }

  readBool(): boolean {
    return this.readBits(1) !== 0;
  }

  /** Reads n bits, 0 <= n <= 64, as an unsigned bigint: the low 32 first. */
  readBig(n: number): bigint {
    if (n > this.end - this.pos) {
      this.overflow(n);
      return 0n;
    }
    const low = this.readBits(Math.min(n, 32));
    const high = n > 32 ? this.readBits(n - 32) : 0;
    return (BigInt(high) << 32n) | BigInt(low);
  }

  /** An n-bit two's complement integer (n <= 32), sign-extended. */
  readSigned(n: number): number {
    const bits = this.readBits(n);
    return n < 32 ? (bits << (32 - n)) >> (32 - n) : bits | 0;
  }

  readSignedBig(n: number): bigint {
    return BigInt.asIntN(n, this.readBig(n));
  }

  /** range=min..min+span of an integer of at most 32 bits: the offset from min in n bits. */
  readRange(n: number, min: number, span: number): number {
    const start = this.pos;
    const offset = this.readBits(n);
    if (offset > span) {
      this.fail("Range", start, "value " + (min + offset) + " out of range [" + min + ", " + (min + span) + "]");
      return 0;
    }
    return min + offset;
  }

  /** range=min..min+span of a 64-bit integer; signed says how a value wraps. */
  readRangeBig(n: number, min: bigint, span: bigint, signed: boolean): bigint {
    const start = this.pos;
    const offset = this.readBig(n);
    if (this.failed) {
      return 0n;
    }
    const wrap = (x: bigint) => (signed ? BigInt.asIntN(64, x) : BigInt.asUintN(64, x));
    if (offset > span) {
      this.fail("Range", start, "value " + wrap(min + offset) + " out of range [" + min + ", " + wrap(min + span) + "]");
      return 0n;
    }
    return min + offset;
  }

  readFloat32(): number {
    return float32FromBits(this.readBits(32));
  }

  readFloat64(): number {
    return float64FromBits(this.readBig(64));
  }

  /** A compressed float32: a code in [0, steps], decoded with every step rounded to float32. */
  readCompressed32(n: number, steps: number, delta: number, min: number): number {
    const start = this.pos;
    const code = this.readBits(n);
    if (code > steps) {
      this.fail("Range", start, "compressed float code " + code + " out of range [0, " + steps + "]");
      return 0;
    }
    const normalized = f32(f32(code) / f32(steps));
    return f32(f32(normalized * delta) + min);
  }

  readCompressed64(n: number, steps: number, delta: number, min: number): number {
    const start = this.pos;
    const code = this.readBits(n);
    if (code > steps) {
      this.fail("Range", start, "compressed float code " + code + " out of range [0, " + steps + "]");
      return 0;
    }
    return (code / steps) * delta + min;
  }

  /**
   * A slice's length (n bits, at most maxlen), checked against the bits
   * left at each bits an element (see checkCount) and its elements of work
   * values and size bytes charged (times: 2 for elements with fields off
   * the wire), all before anything is allocated.
   */
  readLength(n: number, maxlen: number, each: number, work: number, size: number, times: number): number {
    const start = this.pos;
    const v = this.readBits(n);
    if (this.failed) {
      return 0;
    }
    if (v > maxlen) {
      this.fail("Range", start, "length " + v + " exceeds maxlen " + maxlen);
      return 0;
    }
    return this.checkCount(v, each, "element", "elements") && this.chargeValues(v, work, size, times, start) ? v : 0;
  }

  /** A sparse slice's length (n bits, at most maxlen), its slots charged. */
  readSlots(n: number, maxlen: number): number {
    const start = this.pos;
    const v = this.readBits(n);
    if (this.failed) {
      return 0;
    }
    if (v > maxlen) {
      this.fail("Range", start, "length " + v + " exceeds maxlen " + maxlen);
      return 0;
    }
    return this.chargeSlots(v, start) ? v : 0;
  }

  /** A pointer's presence bit; a pointee of work values and size bytes is charged at it. */
  readPresence(work: number, size: number): boolean {
    const start = this.pos;
    return this.readBits(1) === 1 && this.chargeValue(work, size, start);
  }

  /** Skips to the next byte boundary; the padding bits must be zero. */
  align(): boolean {
    const start = this.pos;
    const bits = this.readBits(-this.pos & 7);
    if (bits !== 0) {
      return this.fail("Padding", start, "padding bits 0b" + bits.toString(2) + " are not zero");
    }
    return !this.failed;
  }

  /** Aligns, then reads length bytes (a [N]byte). */
  readByteArray(length: number): Uint8Array {
    if (!this.align()) {
      return new Uint8Array(length);
    }
    if (length > (this.end - this.pos) >> 3) {
      this.fail("Overflow", this.pos, "needs " + 8 * length + " bits, " + (this.end - this.pos) + " remain");
      return new Uint8Array(length);
    }
    const at = this.pos >>> 3;
    this.pos += 8 * length;
    return length === 0 ? noBytes : this.data.slice(at, at + length);
  }

  /** A []byte: its length (n bits, at most maxlen), align, the bytes. */
  readByteSlice(n: number, maxlen: number): Uint8Array {
    const start = this.pos;
    const length = this.readBits(n);
    if (length > maxlen) {
      this.fail("Range", start, "length " + length + " exceeds maxlen " + maxlen);
      return noBytes;
    }
    if (!this.align()) {
      return noBytes;
    }
    if (length > (this.end - this.pos) >> 3) {
      this.fail("Overflow", start, "needs " + length + " bytes, " + ((this.end - this.pos) >> 3) + " remain");
      return noBytes;
    }
    if (!this.chargeValue(0, length, start)) {
      return noBytes;
    }
    const at = this.pos >>> 3;
    this.pos += 8 * length;
    return length === 0 ? noBytes : this.data.slice(at, at + length);
  }

  /** A string: its length in bytes (n bits, at most maxlen), align, UTF-8 with no NUL; its bytes charged. */
  readString(n: number, maxlen: number): string {
    const start = this.pos;
    const s = this.readText(n, maxlen);
    return !this.failed && this.chargeValue(0, this.textBytes, start) ? s : "";
  }

  /** The bytes of the last string readText read. */
  textBytes = 0;

  /** readString without the charge (a delta charges after comparing with the base). */
  readText(n: number, maxlen: number): string {
    const start = this.pos;
    const length = this.readBits(n);
    if (length > maxlen) {
      this.fail("Range", start, "length " + length + " exceeds maxlen " + maxlen);
      return "";
    }
    if (!this.align()) {
      return "";
    }
    if (length > (this.end - this.pos) >> 3) {
      this.fail("Overflow", this.pos, "needs " + length + " bytes, " + ((this.end - this.pos) >> 3) + " remain");
      return "";
    }
    const at = this.pos >>> 3;
    const problem = textProblem(this.data, at, length);
    if (problem !== "") {
      this.fail("InvalidString", start, problem);
      return "";
    }
    this.pos += 8 * length;
    this.textBytes = length;
    return decodeText(this.data, at, length);
  }

  /**
   * An index written as serialize's int_relative from previous, with
   * bitpack's rules: it must increase, fit int32, and be sent in the
   * smallest tier that holds the difference. -1 when refused.
   */
  readIntRelative(previous: number): number {
    const start = this.pos;
    let difference = 1;
    if (!this.readBool()) {
      difference = 0;
      for (let tier = 0; tier < 5 && difference === 0 && !this.failed; tier++) {
        if (!this.readBool()) {
          continue;
        }
        difference = tierLow[tier]! + this.readBits(tierBits[tier]!);
        if (!this.failed && difference > tierHigh[tier]!) {
          this.fail("Range", start, "difference " + difference + " out of tier range [" + tierLow[tier]! + ", " + tierHigh[tier]! + "]");
        }
      }
      if (!this.failed && difference === 0) {
        const absolute = this.readBits(32) | 0;
        if (this.failed) {
          return -1;
        }
        if (absolute <= previous) {
          this.fail("Range", start, "current " + absolute + " is not greater than previous " + previous);
          return -1;
        }
        if (absolute - previous <= tierHigh[4]!) {
          this.fail("Range", start, "difference " + (absolute - previous) + " sent in the absolute tier (non-canonical)");
          return -1;
        }
        return absolute;
      }
    }
    if (this.failed) {
      return -1;
    }
    if (previous + difference > 0x7fffffff) {
      this.fail("Range", start, "previous " + previous + " + difference " + difference + " overflows int32");
      return -1;
    }
    return previous + difference;
  }

  /** A map's count (n bits, at most maxlen), checked against the bits left at each bits an entry and its entries of work values and a slot of slot bytes charged, before anything is allocated. */
  readCount(n: number, maxlen: number, each: number, work: number, slot: number): number {
    const start = this.pos;
    const v = this.readBits(n);
    if (this.failed) {
      return 0;
    }
    if (v > maxlen) {
      this.fail("Range", start, v + " entries exceed maxlen " + maxlen);
      return 0;
    }
    return this.checkCount(v, each, "entry", "entries") && this.chargeEntries(v, work, slot, start) ? v : 0;
  }

  /**
   * A smallest-three quaternion of bits per component, decoded into the
   * module's quatOut: refuses codes above M = 2^bits - 2 and codes that are
   * not canonical, as bitpack does.
   */
  readQuat(bits: number): boolean {
    const start = this.pos;
    const largest = this.readBits(2);
    const c0 = this.readBits(bits);
    const c1 = this.readBits(bits);
    const c2 = this.readBits(bits);
    if (this.failed) {
      return false;
    }
    const steps = 2 ** bits - 2;
    if (c0 > steps || c1 > steps || c2 > steps) {
      return this.fail("Range", start, "quaternion component code " + (c0 > steps ? c0 : c1 > steps ? c1 : c2) + " out of range [0, " + steps + "]");
    }
    if (quatDecode(largest, c0, c1, c2, steps)) {
      return true;
    }
    let back = 0; // the index the decoded quaternion encodes with: the largest, the last on a tie
    for (let i = 1; i < 4; i++) {
      if (Math.abs(quatOut[i]!) >= Math.abs(quatOut[back]!)) {
        back = i;
      }
    }
    const [x, y, z, w] = quatOut;
    return this.fail("Range", start, "quaternion code (index " + largest + ", codes " + c0 + " " + c1 + " " + c2 + ") is not canonical: it decodes to " + quatText(x, y, z, w) + ", which encodes with index " + back);
  }

  /** A union's type index in n bits, below count; -1 when refused. */
  readIndex(n: number, count: number): number {
    const start = this.pos;
    const v = this.readBits(n);
    if (this.failed) {
      return -1;
    }
    if (v >= count) {
      this.fail("Range", start, "union index " + v + " out of range [0, " + (count - 1) + "]");
      return -1;
    }
    return v;
  }

  /** A check: align, then the 32-bit hash of its name. */
  readCheck(hash: number, name: string): boolean {
    const start = this.pos;
    if (!this.align()) {
      return false;
    }
    const v = this.readBits(32);
    if (this.failed) {
      return false;
    }
    if (v !== hash) {
      const hex = (x: number) => "0x" + x.toString(16).padStart(8, "0");
      return this.fail("Check", start, "check " + JSON.stringify(name) + " read " + hex(v) + ", want " + hex(hash) + ": reader and writer disagree before this point");
    }
    return true;
  }

  /** A delta's changed string (see readString), refused when it is the base's (old), its bytes charged at start, where its part begins. */
  readStringDelta(start: number, n: number, maxlen: number, old: string): string {
    const s = this.readText(n, maxlen);
    if (this.failed) {
      return "";
    }
    if (s === old) {
      this.fail("Range", start, deltaUnchangedText);
      return "";
    }
    return this.chargeValue(0, this.textBytes, start) ? s : "";
  }

  /** A delta's changed []byte: its length, align, the bytes, refused (at start, where its part begins) past maxlen, past the packet, or when they are the base's (old); then charged. */
  readByteSliceDelta(start: number, n: number, maxlen: number, old: Uint8Array): Uint8Array {
    const length = this.readBits(n);
    if (this.failed) {
      return noBytes;
    }
    if (length > maxlen) {
      this.fail("Range", start, "length " + length + " exceeds maxlen " + maxlen);
      return noBytes;
    }
    if (!this.align()) {
      return noBytes;
    }
    if (length > (this.end - this.pos) >> 3) {
      this.fail("Overflow", start, "needs " + length + " bytes, " + ((this.end - this.pos) >> 3) + " remain");
      return noBytes;
    }
    const at = this.pos >>> 3;
    let same = length === old.length;
    for (let i = 0; same && i < length; i++) {
      same = this.data[at + i] === old[i];
    }
    if (same) {
      this.fail("Range", start, deltaUnchangedText);
      return noBytes;
    }
    if (!this.chargeValue(0, length, start)) {
      return noBytes;
    }
    this.pos += 8 * length;
    return length === 0 ? noBytes : this.data.slice(at, at + length);
  }

  /** A delta's changed [N]byte: align, the bytes, refused (at start, where its part begins) past the packet or when they are the base's (old). */
  readByteArrayDelta(start: number, old: Uint8Array): Uint8Array {
    if (!this.align()) {
      return old;
    }
    const length = old.length;
    if (length > (this.end - this.pos) >> 3) {
      this.fail("Overflow", start, "needs " + length + " bytes, " + ((this.end - this.pos) >> 3) + " remain");
      return old;
    }
    const at = this.pos >>> 3;
    let same = true;
    for (let i = 0; same && i < length; i++) {
      same = this.data[at + i] === old[i];
    }
    if (same) {
      this.fail("Range", start, deltaUnchangedText);
      return old;
    }
    this.pos += 8 * length;
    return length === 0 ? noBytes : this.data.slice(at, at + length);
  }

  // The allowances (docs/wire.md, "Limits of the Go decoder"): what one
  // packet may make a read visit and allocate, counted as bitpack's Go
  // decoder counts it and with its numbers, so that this reader refuses
  // exactly the packets Go refuses. A read of b bits may visit {{ALLOW_WORK_BASE}} + {{ALLOW_WORK_PER_BIT}}b
  // values and allocate {{ALLOW_BYTES_BASE}} + {{ALLOW_BYTES_PER_BIT}}b bytes, and starts having spent {{ALLOW_OVERHEAD}}
  // bytes. The generated code charges when the packet says what follows
  // (a count, a presence bit, an index), before anything is allocated or
  // looped over, with the figures of the Go type (bitpack's Field.Charge):
  // a charge is refused (Range) when its values exceed what is left of the
  // first allowance, else when its bytes exceed what is left of the
  // second. Figures are doubles: exact below 2^53, and any above is past
  // every allowance, so no verdict changes; the values a refusal names are
  // capped at 2^53 - 1, as Go caps them.

  /** Charges work values and bytes bytes at bit, or refuses them as Go does (n values of size bytes each, in the refusal's words). */
  charge(work: number, bytes: number, n: number, size: number, bit: number): boolean {
    if (work > this.workLimit - this.workSpent) {
      return this.fail("Range", bit, Math.min(work, maxFigure) + " values would take the decode past the " + this.workLimit + " values it may visit for this input ({{ALLOW_WORK_WORDS}}): the packet claims more values than its bits can pay for");
    }
    if (bytes > this.bytesLimit - this.bytesSpent) {
      return this.fail("Range", bit, (n === 1 ? "a value of " + size + " bytes" : n + " values of " + size + " bytes") + " would take the decode past the " + this.bytesLimit + " bytes it may allocate for this input ({{ALLOW_BYTES_WORDS}})");
    }
    this.workSpent += work;
    this.bytesSpent += bytes;
    return true;
  }

  /** The root of a read: the values of the value it reads into, where it starts. */
  chargeRoot(work: number): boolean {
    return this.charge(work, 0, 1, 0, this.pos);
  }

  /** One value the packet brings (a pointee, a union member, a sparse element; a string's or byte slice's bytes: work 0, size their count). */
  chargeValue(work: number, size: number, bit: number): boolean {
    return this.charge(work, roundAlloc(size), 1, size, bit);
  }

  /** A slice's n elements; times is 2 for elements with fields off the wire. */
  chargeValues(n: number, work: number, size: number, times: number, bit: number): boolean {
    return this.charge(n * work, roundAlloc(n * size) * times, n, size, bit);
  }

  /** A sparse slice's n slots. */
  chargeSlots(n: number, bit: number): boolean {
    return this.charge(Math.ceil(n / {{ALLOW_SLOTS_PER_VALUE}}), roundAlloc(n * {{ALLOW_SLOT_BYTES}}), n, {{ALLOW_SLOT_BYTES}}, bit);
  }

  /** A map's n entries of work values and a slot of slot bytes each: its table, twice. */
  chargeEntries(n: number, work: number, slot: number, bit: number): boolean {
    return n === 0 || this.charge(n * work, 2 * roundAlloc({{ALLOW_MAP_HEADER}} + n * {{ALLOW_MAP_SLOT_FACTOR}} * slot), n, slot, bit);
  }

  /** One entry a delta adds to a map: its share of the table, twice, unrounded. */
  chargeEntry(work: number, slot: number, bit: number): boolean {
    return this.charge(work, 2 * {{ALLOW_MAP_SLOT_FACTOR}} * slot, 1, slot, bit);
  }

  /** A hook's call: its value of size bytes and the call's own. */
  chargeHook(work: number, size: number, bit: number): boolean {
    return this.charge(work, roundAlloc(size) + {{ALLOW_HOOK_CALL}}, 1, size + {{ALLOW_HOOK_CALL}}, bit);
  }

  /**
   * The count check (docs/wire.md, "Truncated packets"): n values of at
   * least each bits (one, many: "element", "elements") must fit in what is
   * left, or the count is refused at the current bit.
   */
  checkCount(n: number, each: number, one: string, many: string): boolean {
    const need = Math.min(n * each, maxFigure);
    const rest = this.end - this.pos;
    if (need <= rest) {
      return true;
    }
    return this.fail("Overflow", this.pos, (n === 1 ? "1 " + one + " needs" : n + " " + many + " need") + " at least " + need + " bits, " + rest + " remain");
  }
}

const maxFigure = {{MAX_FIGURE}};

/**
 * At least what Go's allocator takes for n bytes, as the allowances count
 * it: 0 for n <= 0, 16 up to 16, whole 8 KiB pages above 32 KiB, else n
 * rounded up to a multiple of half its leading power of two.
 */
export function roundAlloc(n: number): number {
  if (n <= 0) {
    return 0;
  }
  if (n <= {{ALLOC_SMALL}}) {
    return {{ALLOC_SMALL}};
  }
  if (n > {{ALLOC_CLASS_LIMIT}}) {
    return Math.ceil(n / {{ALLOC_PAGE}}) * {{ALLOC_PAGE}};
  }
  const step = 2 ** (30 - Math.clz32(n)); // half n's leading power of two
  return Math.ceil(n / step) * step;
}

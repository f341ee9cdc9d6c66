
// Deltas (bitpack's AppendDelta and UnmarshalDelta, docs/wire.md "Delta
// encoding"). A fixed-width field changes by its offset code: the code its
// full encoding carries, before a raw signed field's sign flip. Codes are
// found by writing the value with the full writer into a scratch writer,
// so a delta codes, rounds, clamps and refuses exactly as a full write
// does; a new code becomes a value by the full reader reading it back.

const deltaScratch = new BitWriter(16);

/** The scratch writer a field's code is written into, empty. */
function deltaCodes(): BitWriter {
  deltaScratch.reset();
  return deltaScratch;
}

const deltaCodeBytes = new Uint8Array(8);

// The readers of 1 to 8 bytes of deltaCodeBytes, made once: a delta reads
// each changed field's code through one, and makes no object for it.
const deltaCodeReaders: BitReader[] = [];

/** A reader of code (n bits), for the full reader to make a value of: used at once, reused by the next. */
function deltaCodeReader(code: number | bigint, n: number): BitReader {
  let low = 0;
  let high = 0;
  if (typeof code === "bigint") {
    low = Number(code & 0xffffffffn);
    high = Number(code >> 32n);
  } else {
    low = code;
  }
  for (let i = 0; i < 4; i++) {
    deltaCodeBytes[i] = low >>> (8 * i);
    deltaCodeBytes[i + 4] = high >>> (8 * i);
  }
  const k = (n + 7) >>> 3;
  let r = deltaCodeReaders[k];
  if (r === undefined) {
    r = new BitReader(deltaCodeBytes.subarray(0, k));
    deltaCodeReaders[k] = r;
  }
  r.rewind(0);
  r.failed = false;
  return r;
}

const deltaUnchangedText = "the delta marks the value changed but it is the base's (not canonical)";

/** Refuses a part that marks its value changed and changes nothing. */
function deltaUnchanged(r: BitReader, bit: number): false {
  return r.fail("Range", bit, deltaUnchangedText);
}

/** Refuses a delta whose base value (s refused to code it) has no code to start from. */
function deltaBaseRefusal(r: BitReader, s: BitWriter, bit: number): false {
  return r.fail(s.kind, bit, "base value: " + s.errorDetail);
}

/** Takes on the refusal of a value written into the scratch writer s. */
function deltaAdopt(w: BitWriter, s: BitWriter, prefix: string): false {
  return w.fail(s.kind, prefix + s.errorDetail);
}

// readDeltaCode reads the change of a fixed-width field of n bits (<= 32)
// from offset code old: n = 1, the other code; no short form (s = 0), the
// new code whole; else a 0 bit and the difference in s bits, or a 1 bit
// and the new code whole. It returns the new offset code, or -1 when
// refused: a short form out of the codes' range in bitpack's words (the
// change and the code it starts from, whichever of its decoders runs the
// field). A long form's code past limit is returned: the full reader
// refuses it as bitpack's kind does.
function readDeltaCode(r: BitReader, old: number, n: number, s: number, limit: number, flip: number, start: number): number {
  let c = 0;
  if (n === 1) {
    c = old ^ 1;
  } else if (s === 0 || r.readBits(1) === 1) {
    c = (r.readBits(n) ^ flip) >>> 0;
    if (r.failed) {
      return -1;
    }
    const h = 2 ** (s - 1);
    if (s > 0 && c !== old && c <= limit && Math.abs(c - old) <= h) {
      r.fail("Range", start, "code " + c + " is within " + h + " of the base's " + old + ": the short form carries it (not canonical)");
      return -1;
    }
  } else {
    const h = 2 ** (s - 1);
    const e = r.readBits(s);
    if (r.failed) {
      return -1;
    }
    const d = e < h ? e - h : e - h + 1;
    c = old + d;
    if (c < 0 || c > limit) {
      r.fail("Range", start, (d < 0 ? "change -" + -d : "change +" + d) + " from code " + old + " leaves the range [0, " + limit + "]");
      return -1;
    }
  }
  if (c === old) {
    deltaUnchanged(r, start);
    return -1;
  }
  return c; // above limit, the full reader refuses it as bitpack's kind does
}

/** readDeltaCode for fields of more than 32 bits: -1n when refused. */
function readDeltaCodeBig(r: BitReader, old: bigint, n: number, s: number, limit: bigint, flip: bigint, start: number): bigint {
  let c = 0n;
  if (s === 0 || r.readBits(1) === 1) {
    c = r.readBig(n) ^ flip;
    if (r.failed) {
      return -1n;
    }
    const h = 1n << BigInt(s - 1);
    const d = c > old ? c - old : old - c;
    if (s > 0 && c !== old && c <= limit && d <= h) {
      r.fail("Range", start, "code " + c + " is within " + h + " of the base's " + old + ": the short form carries it (not canonical)");
      return -1n;
    }
  } else {
    const h = BigInt(2 ** (s - 1));
    const e = BigInt(r.readBits(s));
    if (r.failed) {
      return -1n;
    }
    const d = e < h ? e - h : e - h + 1n;
    c = old + d;
    if (c < 0n || c > limit) {
      r.fail("Range", start, (d < 0n ? "change -" + -d : "change +" + d) + " from code " + old + " leaves the range [0, " + limit + "]");
      return -1n;
    }
  }
  if (c === old) {
    deltaUnchanged(r, start);
    return -1n;
  }
  return c; // as readDeltaCode's
}

/** Writes a fixed-width field's change from wire code cb to cv (cv !== cb), after its changed bit when bit. */
function writeDeltaCode(w: BitWriter, cv: number, cb: number, n: number, s: number, flip: number, bit: boolean): void {
  if (bit) {
    w.writeBits(1, 1);
  }
  if (n === 1) {
    return;
  }
  if (s === 0) {
    w.writeBits(cv, n);
    return;
  }
  const d = ((cv ^ flip) >>> 0) - ((cb ^ flip) >>> 0);
  const h = 2 ** (s - 1);
  if (d >= -h && d <= h) {
    w.writeBits(0, 1);
    w.writeBits(d < 0 ? d + h : d + h - 1, s);
    return;
  }
  w.writeBits(1, 1);
  w.writeBits(cv, n);
}

function writeDeltaCodeBig(w: BitWriter, cv: bigint, cb: bigint, n: number, s: number, flip: bigint, bit: boolean): void {
  if (bit) {
    w.writeBits(1, 1);
  }
  if (s > 0) {
    const d = (cv ^ flip) - (cb ^ flip);
    const h = 1n << BigInt(s - 1);
    if (d >= -h && d <= h) {
      w.writeBits(0, 1);
      w.writeBits(Number(d < 0n ? d + h : d + h - 1n), s);
      return;
    }
    w.writeBits(1, 1);
  }
  w.writeBig(cv, n);
}

/** Whether the bits r read from bit from on are exactly the bits s holds. */
function deltaSameBits(r: BitReader, from: number, s: BitWriter): boolean {
  const end = r.bitsRead;
  if (end - from !== s.bitsWritten) {
    return false;
  }
  r.rewind(from);
  let same = true;
  for (let at = 0; at < s.bitsWritten; at += 32) {
    const k = Math.min(32, s.bitsWritten - at);
    same = r.readBits(k) === s.peek(at, k) && same;
  }
  return same;
}

/** Whether the bits w wrote from bit from on are exactly the bits s holds. */
function deltaSameWritten(w: BitWriter, from: number, s: BitWriter): boolean {
  if (w.bitsWritten - from !== s.bitsWritten) {
    return false;
  }
  for (let at = 0; at < s.bitsWritten; at += 32) {
    const k = Math.min(32, s.bitsWritten - at);
    if (w.peek(from + at, k) !== s.peek(at, k)) {
      return false;
    }
  }
  return true;
}

/** Whether a and b hold the same bytes (a may be anything a caller passed). */
function deltaSameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (!(a instanceof Uint8Array) || a.length !== b.length) {
    return false;
  }
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) {
      return false;
    }
  }
  return true;
}

/** dst (a new array when it is null or undefined) made a copy of src, whose values are copied by assignment. */
function flatCopy<E>(src: readonly E[], dst: E[] | null | undefined): E[] {
  const d = dst ?? [];
  if (d.length > src.length) {
    d.length = src.length;
  }
  for (let i = 0; i < src.length; i++) {
    d[i] = src[i]!;
  }
  return d;
}

/** Map.forEach's function copying an entry into this, the map copied into. */
function mapSetEntry(this: Map<unknown, unknown>, value: unknown, key: unknown): void {
  this.set(key, value);
}

/** Map.forEach's function deleting from m an entry this, the map copied, lacks. */
function mapDropMissing(this: ReadonlyMap<unknown, unknown>, _value: unknown, key: unknown, m: Map<unknown, unknown>): void {
  if (!this.has(key)) {
    m.delete(key);
  }
}

/** A slice's length, or -1 when it is refused (not an array, or longer than maxlen). */
function deltaLength(w: BitWriter, value: readonly unknown[], maxlen: number): number {
  if (!Array.isArray(value)) {
    return w.fail("Range", "value " + show(value) + " is not an array") ? 0 : -1;
  }
  if (value.length > maxlen) {
    return w.fail("Range", "slice of " + value.length + " elements exceeds maxlen " + maxlen) ? 0 : -1;
  }
  return value.length;
}

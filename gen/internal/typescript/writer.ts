
/**
 * Writes bitpack's bits into a buffer of its own, which grows as needed;
 * reset starts again and keeps the buffer. A refused value records the
 * first error and returns false.
 */
export class BitWriter {
  private buffer: Uint8Array;
  private pos = 0;
  failed = false;
  kind: BitpackErrorKind = "Range";
  errorPath = "";
  errorDetail = "";

  constructor(capacity = 64) {
    this.buffer = new Uint8Array(Math.max(capacity, 8));
  }

  get bitsWritten(): number {
    return this.pos;
  }

  /** The bytes written, in a new array of exactly their size. */
  bytes(): BitpackBytes {
    return this.buffer.slice(0, (this.pos + 7) >>> 3);
  }

  /** Takes back the bits written from bit pos on: for deltas. */
  rewind(pos: number): void {
    const end = (this.pos + 7) >>> 3;
    const i = pos >>> 3;
    if (i < end) {
      this.buffer[i] = this.buffer[i]! & ((1 << (pos & 7)) - 1);
      this.buffer.fill(0, i + 1, end);
    }
    this.pos = pos;
  }

  /** The n bits (n <= 32) written at bit at, as an unsigned number. */
  peek(at: number, n: number): number {
    if (n <= 0) {
      return 0;
    }
    const b = this.buffer;
    let i = at >>> 3;
    let value = b[i]! >>> (at & 7);
    for (let got = 8 - (at & 7); got < n; got += 8) {
      value |= (b[++i] ?? 0) << got; // got < 32
    }
    return n < 32 ? value & ((1 << n) - 1) : value >>> 0;
  }

  /** Everything written (at most 32 bits) as a number: a field's code. */
  codeWord(): number {
    return this.peek(0, this.pos);
  }

  /** Everything written (at most 64 bits) as a bigint. */
  codeBig(): bigint {
    return BigInt(this.peek(0, Math.min(this.pos, 32))) | (BigInt(this.peek(32, Math.max(this.pos - 32, 0))) << 32n);
  }

  /** Empties the writer (and forgets its error), keeping its buffer. */
  reset(): void {
    this.buffer.fill(0, 0, Math.min((this.pos + 7) >>> 3, this.buffer.length));
    this.pos = 0;
    this.failed = false;
    this.errorPath = "";
    this.errorDetail = "";
  }

  fail(kind: BitpackErrorKind, detail: string): false {
    if (!this.failed) {
      this.failed = true;
      this.kind = kind;
      this.errorPath = "";
      this.errorDetail = detail;
    }
    return false;
  }

  /** Refuses the value being written: for hooks. */
  refuse(detail: string): false {
    return this.fail("Range", detail);
  }

  at(segment: string): false {
    this.errorPath = joinPath(segment, this.errorPath);
    return false;
  }

  error(type: string): BitpackError {
    return new BitpackError("encode", type, this.kind, this.errorPath, -1, this.errorDetail);
  }

  private reserve(bits: number): void {
    const need = (this.pos + bits + 7) >>> 3;
    if (need <= this.buffer.length) {
      return;
    }
    const grown = new Uint8Array(Math.max(2 * this.buffer.length, need));
    grown.set(this.buffer.subarray(0, (this.pos + 7) >>> 3));
    this.buffer = grown;
  }

  /** Writes the low n bits of value (an unsigned number), 0 <= n <= 32. */
  writeBits(value: number, n: number): true {
    if (n <= 0) {
      return true;
    }
    this.reserve(n);
    const v = n < 32 ? value & ((1 << n) - 1) : value;
    const pos = this.pos;
    const shift = pos & 7;
    const b = this.buffer;
    let i = pos >>> 3;
    b[i] = b[i]! | (v << shift); // a byte keeps the low 8 bits
    let rest = v >>> (8 - shift);
    for (let left = n + shift - 8; left > 0; left -= 8) {
      b[++i] = rest; // past the first byte, the buffer is still zero
      rest >>>= 8;
    }
    this.pos = pos + n;
    return true;
  }

  writeBig(value: bigint, n: number): true {
    this.writeBits(Number(value & 0xffffffffn), Math.min(n, 32));
    return this.writeBits(Number((value >> 32n) & 0xffffffffn), n - 32);
  }

  writeBool(value: boolean): boolean {
    if (typeof value !== "boolean") {
      return this.fail("Range", "value " + show(value) + " is not a boolean");
    }
    return this.writeBits(value ? 1 : 0, 1);
  }

  // notInteger refuses a value that is not an integer number (JavaScript
  // callers can pass anything).
  private notInteger(value: number): boolean {
    if (typeof value === "number" && Number.isInteger(value)) {
      return false;
    }
    this.fail("Range", "value " + show(value) + " is not an integer");
    return true;
  }

  /** An unsigned integer in n <= 32 bits; refuses one that does not fit. */
  writeUnsigned(value: number, n: number): boolean {
    if (this.notInteger(value)) {
      return false;
    }
    if (value < 0 || value > 2 ** n - 1) {
      return this.fail("Range", "value " + value + " does not fit in " + n + " bits");
    }
    return this.writeBits(value, n);
  }

  /** A signed integer in n-bit two's complement, n <= 32. */
  writeSigned(value: number, n: number): boolean {
    if (this.notInteger(value)) {
      return false;
    }
    const limit = 2 ** (n - 1);
    if (value < -limit || value >= limit) {
      return this.fail("Range", "value " + value + " does not fit in " + n + " bits (range [" + -limit + ", " + (limit - 1) + "])");
    }
    return this.writeBits(value >>> 0, n);
  }

  /** range=min..min+span of an integer of at most 32 bits. */
  writeRange(value: number, min: number, span: number, n: number): boolean {
    if (this.notInteger(value)) {
      return false;
    }
    if (value < min || value > min + span) {
      return this.fail("Range", "value " + value + " out of range [" + min + ", " + (min + span) + "]");
    }
    return this.writeBits(value - min, n);
  }

  // notInt64 refuses a value that is not a bigint within a 64-bit
  // integer's range, signed or not.
  private notInt64(value: bigint, signed: boolean): boolean {
    if (typeof value !== "bigint") {
      this.fail("Range", "value " + show(value) + " is not a bigint");
      return true;
    }
    if (signed ? value < -(1n << 63n) || value >= 1n << 63n : value < 0n || value >= 1n << 64n) {
      this.fail("Range", "value " + value + " is not " + (signed ? "an int64" : "a uint64"));
      return true;
    }
    return false;
  }

  /** A uint64 (or uint) in n bits; refuses one that does not fit. */
  writeUnsignedBig(value: bigint, n: number): boolean {
    if (this.notInt64(value, false)) {
      return false;
    }
    if (n < 64 && value >> BigInt(n) !== 0n) {
      return this.fail("Range", "value " + value + " does not fit in " + n + " bits");
    }
    return this.writeBig(value, n);
  }

  /** An int64 (or int) in n-bit two's complement. */
  writeSignedBig(value: bigint, n: number): boolean {
    if (this.notInt64(value, true)) {
      return false;
    }
    const limit = 1n << BigInt(n - 1);
    if (n < 64 && (value < -limit || value >= limit)) {
      return this.fail("Range", "value " + value + " does not fit in " + n + " bits (range [" + -limit + ", " + (limit - 1n) + "])");
    }
    return this.writeBig(BigInt.asUintN(64, value), n);
  }

  /** range=min..min+span of a 64-bit integer. */
  writeRangeBig(value: bigint, min: bigint, span: bigint, n: number, signed: boolean): boolean {
    if (this.notInt64(value, signed)) {
      return false;
    }
    if (value < min || value > min + span) {
      return this.fail("Range", "value " + value + " out of range [" + min + ", " + (min + span) + "]");
    }
    return this.writeBig(value - min, n);
  }

  /**
   * An integer of at most 32 bits with unit= or clamp: value (within
   * [typeMin, typeMax], its Go type's range) in units, rounded to the
   * nearest, half away from zero; refused outside [min, max] unless clamp
   * moves it to the nearer bound; the offset from min in n bits, XOR flip
   * (2^(n-1) for a raw signed field, which makes it two's complement).
   */
  writeUnits(value: number, typeMin: number, typeMax: number, min: number, max: number, n: number, flip: number, unit: number, clamp: boolean, unitText: string): boolean {
    if (this.notInteger(value)) {
      return false;
    }
    if (value < typeMin || value > typeMax) {
      return this.fail("Range", "value " + value + " is not in [" + typeMin + ", " + typeMax + "]");
    }
    let units = value;
    if (unit > 1) {
      units = Math.trunc(value / unit); // exact: both below 2^32
      const r = Math.abs(value - units * unit);
      if (r >= unit - r) {
        units += value < 0 ? -1 : 1;
      }
    }
    if (units < min || units > max) {
      if (!clamp) {
        return this.fail("Range", "value " + value + " is " + units + " units of " + unitText + ", out of range [" + min + ", " + max + "]");
      }
      units = units < min ? min : max;
    }
    return this.writeBits(((units - min) ^ flip) >>> 0, n);
  }

  /** A 64-bit integer with unit= or clamp (see writeUnits); duration: a time.Duration, worded as Go words one. */
  writeUnitsBig(value: bigint, signed: boolean, min: bigint, max: bigint, n: number, flip: bigint, unit: bigint, clamp: boolean, unitText: string, duration: boolean): boolean {
    if (this.notInt64(value, signed)) {
      return false;
    }
    let units = value;
    if (unit > 1n) {
      units = value / unit; // truncated, as Go divides
      const r = value % unit < 0n ? -(value % unit) : value % unit;
      if (r >= unit - r) {
        units += value < 0n ? -1n : 1n;
      }
    }
    if (units < min || units > max) {
      if (!clamp) {
        return this.fail("Range", "value " + (duration ? durationText(value) : String(value)) + " is " + units + " units of " + unitText + ", out of range [" + min + ", " + max + "]");
      }
      units = units < min ? min : max;
    }
    return this.writeBig(BigInt.asUintN(64, units - min) ^ flip, n);
  }

  /**
   * A time.Duration with unit=, held as its count of units (an integer
   * number, or a bigint when big): refused outside [min, max] unless clamp
   * moves it to the nearer bound, worded as Go words the duration it
   * stands for (count × unit nanoseconds); the offset from min in n bits,
   * XOR flip.
   */
  writeCounted(value: number | bigint, big: boolean, min: bigint, max: bigint, n: number, flip: bigint, unit: bigint, clamp: boolean, unitText: string): boolean {
    if (big ? this.notInt64(value as bigint, true) : this.notInteger(value as number)) {
      return false;
    }
    let units = BigInt(value);
    if (units < min || units > max) {
      if (!clamp) {
        return this.fail("Range", "value " + durationText(units * unit) + " is " + units + " units of " + unitText + ", out of range [" + min + ", " + max + "]");
      }
      units = units < min ? min : max;
    }
    return this.writeBig(BigInt.asUintN(64, units - min) ^ flip, n);
  }

  /**
   * A smallest-three quaternion of bits per component, canonical as bitpack
   * writes it; each component rounded to float32 first (as Go's float32(x)).
   * Refuses a component that is not finite and a quaternion not of unit
   * length (all four 0 is the identity).
   */
  writeQuat(x: number, y: number, z: number, w: number, bits: number): boolean {
    for (const c of [x, y, z, w]) {
      if (typeof c !== "number") {
        return this.fail("Range", "value " + show(c) + " is not a number");
      }
    }
    [x, y, z, w] = [f32(x), f32(y), f32(z), f32(w)];
    const problem = quatProblem(x, y, z, w);
    if (problem !== "") {
      return this.fail("Range", problem);
    }
    quatEncode(x, y, z, w, 2 ** bits - 2);
    this.writeBits(quatCode[0], 2);
    this.writeBits(quatCode[1], bits);
    this.writeBits(quatCode[2], bits);
    return this.writeBits(quatCode[3], bits);
  }

  /** A map's count in n bits; refuses a value that is not a Map and more than maxlen entries. */
  writeCount(value: ReadonlyMap<unknown, unknown>, maxlen: number, n: number): boolean {
    if (!(value instanceof Map)) {
      return this.fail("Range", "value " + show(value) + " is not a Map");
    }
    if (value.size > maxlen) {
      return this.fail("Range", value.size + " entries exceed maxlen " + maxlen);
    }
    return this.writeBits(value.size, n);
  }

  writeFloat32(value: number): boolean {
    if (typeof value !== "number") {
      return this.fail("Range", "value " + show(value) + " is not a number");
    }
    return this.writeBits(float32Bits(value), 32);
  }

  writeFloat64(value: number): boolean {
    if (typeof value !== "number") {
      return this.fail("Range", "value " + show(value) + " is not a number");
    }
    return this.writeBig(float64Bits(value), 64);
  }

  /**
   * A compressed float32 as bitpack computes it (quant.Float), every step
   * through Math.fround; value is rounded to float32 first, as storing it in
   * a Go float32 would. Refuses NaN and infinities, and values outside
   * [lo, hi] unless clamp is set.
   */
  writeCompressed32(value: number, min: number, delta: number, steps: number, n: number, lo: number, hi: number, clamp: boolean, bounds: string): boolean {
    if (typeof value !== "number") {
      return this.fail("Range", "value " + show(value) + " is not a number");
    }
    const v = f32(value);
    if (!(v >= lo && v <= hi) && (!clamp || !Number.isFinite(v))) {
      return this.floatRefusal(v, bounds);
    }
    let normalized = f32(f32(v - min) / delta);
    if (!(normalized > 0)) {
      normalized = 0;
    } else if (normalized > 1) {
      normalized = 1;
    }
    const code = Math.floor(f32(f32(normalized * f32(steps)) + 0.5));
    return this.writeBits(code < steps ? code : steps, n);
  }

  writeCompressed64(value: number, min: number, delta: number, steps: number, n: number, lo: number, hi: number, clamp: boolean, bounds: string): boolean {
    if (typeof value !== "number") {
      return this.fail("Range", "value " + show(value) + " is not a number");
    }
    if (!(value >= lo && value <= hi) && (!clamp || !Number.isFinite(value))) {
      return this.floatRefusal(value, bounds);
    }
    let normalized = (value - min) / delta;
    if (!(normalized > 0)) {
      normalized = 0;
    } else if (normalized > 1) {
      normalized = 1;
    }
    const code = Math.floor(normalized * steps + 0.5);
    return this.writeBits(code < steps ? code : steps, n);
  }

  private floatRefusal(value: number, bounds: string): false {
    if (!Number.isFinite(value)) {
      return this.fail("Range", "value " + goFloat(value) + " cannot be quantized (NaN and ±Inf are never encoded)");
    }
    return this.fail("Range", "value " + goFloat(value) + " out of range " + bounds + " (add clamp to the tag to clamp instead)");
  }

  /** A slice's length in n bits; refuses more than maxlen. */
  writeLength(value: readonly unknown[], maxlen: number, n: number): boolean {
    if (!Array.isArray(value)) {
      return this.fail("Range", "value " + show(value) + " is not an array");
    }
    if (value.length > maxlen) {
      return this.fail("Range", "slice of " + value.length + " elements exceeds maxlen " + maxlen);
    }
    return this.writeBits(value.length, n);
  }

  /** Refuses a fixed-size array of another length. */
  fixedLength(value: readonly unknown[], length: number): boolean {
    if (!Array.isArray(value) || value.length !== length) {
      return this.fail("Range", (Array.isArray(value) ? value.length + " elements" : show(value)) + " for an array of " + length);
    }
    return true;
  }

  /** Writes zero bits up to the next byte boundary. */
  align(): true {
    return this.writeBits(0, -this.pos & 7);
  }

  private putBytes(value: Uint8Array): void {
    this.align();
    this.reserve(8 * value.length);
    this.buffer.set(value, this.pos >>> 3);
    this.pos += 8 * value.length;
  }

  /** A [N]byte: align, then exactly length bytes. */
  writeByteArray(value: Uint8Array, length: number): boolean {
    if (!(value instanceof Uint8Array) || value.length !== length) {
      return this.fail("Range", (value instanceof Uint8Array ? value.length + " bytes" : show(value)) + " for an array of " + length);
    }
    this.putBytes(value);
    return true;
  }

  /** A []byte: its length in n bits, align, the bytes. */
  writeByteSlice(value: Uint8Array, maxlen: number, n: number): boolean {
    if (!(value instanceof Uint8Array)) {
      return this.fail("Range", "value " + show(value) + " is not a Uint8Array");
    }
    if (value.length > maxlen) {
      return this.fail("Range", value.length + " bytes exceed maxlen " + maxlen);
    }
    this.writeBits(value.length, n);
    this.putBytes(value);
    return true;
  }

  /**
   * A string as UTF-8: its length in bytes in n bits, align, the bytes.
   * Refuses more than maxlen bytes, a NUL and a lone surrogate (which has
   * no UTF-8 form).
   */
  writeString(value: string, maxlen: number, n: number): boolean {
    if (typeof value !== "string") {
      return this.fail("Range", "value " + show(value) + " is not a string");
    }
    let length = 0;
    let problem = "";
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if (c === 0 && problem === "") {
        problem = "NUL byte at offset " + length;
      }
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        length += 4;
        i++;
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff && problem === "") {
        problem = "invalid UTF-8 at offset " + length + " (a lone surrogate)";
      }
      length += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    }
    if (length > maxlen) {
      return this.fail("Range", "string of " + length + " bytes exceeds maxlen " + maxlen);
    }
    if (problem !== "") {
      return this.fail("InvalidString", problem);
    }
    this.writeBits(length, n);
    this.align();
    this.reserve(8 * length);
    let at = this.pos >>> 3;
    const b = this.buffer;
    for (let i = 0; i < value.length; i++) {
      let c = value.charCodeAt(i);
      if (c < 0x80) {
        b[at++] = c;
      } else if (c < 0x800) {
        b[at++] = 0xc0 | (c >> 6);
        b[at++] = 0x80 | (c & 0x3f);
      } else if (c >= 0xd800 && c <= 0xdbff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (value.charCodeAt(++i) - 0xdc00);
        b[at++] = 0xf0 | (c >> 18);
        b[at++] = 0x80 | ((c >> 12) & 0x3f);
        b[at++] = 0x80 | ((c >> 6) & 0x3f);
        b[at++] = 0x80 | (c & 0x3f);
      } else {
        b[at++] = 0xe0 | (c >> 12);
        b[at++] = 0x80 | ((c >> 6) & 0x3f);
        b[at++] = 0x80 | (c & 0x3f);
      }
    }
    this.pos += 8 * length;
    return true;
  }

  /** current, greater than previous, as serialize's int_relative. */
  writeIntRelative(previous: number, current: number): true {
    const difference = current - previous;
    this.writeBits(difference === 1 ? 1 : 0, 1);
    if (difference === 1) {
      return true;
    }
    for (let tier = 0; tier < 5; tier++) {
      const here = difference <= tierHigh[tier]!;
      this.writeBits(here ? 1 : 0, 1);
      if (here) {
        return this.writeBits(difference - tierLow[tier]!, tierBits[tier]!);
      }
    }
    return this.writeBits(current >>> 0, 32);
  }

  writeCheck(hash: number): true {
    this.align();
    return this.writeBits(hash, 32);
  }
}

// The writer writeT functions share: allocating one per packet costs more
// than the rest of a write. A write that writes another packet inside it
// (a hook's) takes a new one.
let spareWriter: BitWriter | null = null;

function takeWriter(): BitWriter {
  const w = spareWriter ?? new BitWriter(256);
  spareWriter = null;
  w.reset();
  return w;
}

function giveWriter(w: BitWriter): void {
  spareWriter = w;
}

/** Refuses a value that is not an object: a struct is never absent (only a Go pointer may be). */
function absent(w: BitWriter, value: unknown, type: string): boolean {
  if (typeof value === "object" && value !== null) {
    return false;
  }
  w.fail("Range", (value === null ? "null " : show(value) + " for ") + type + ": only a Go pointer may be absent");
  return true;
}

/** Returns the hook for a type that encodes itself, or throws: it must be set before use. */
function hook<T>(h: Hook<T> | null, name: string): Hook<T> {
  if (h === null) {
    throw new Error("bitpack: hooks." + name + " is not set: " + name + " encodes itself in Go, so its TypeScript is yours to write");
  }
  return h;
}

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) {
      c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
    }
    table[i] = c >>> 0;
  }
  return table;
})();

/** CRC32 (IEEE) continued from crc over p. */
export function crc32(crc: number, p: Uint8Array): number {
  crc = ~crc;
  for (let i = 0; i < p.length; i++) {
    crc = crcTable[(crc ^ p[i]!) & 0xff]! ^ (crc >>> 8);
  }
  return ~crc >>> 0;
}

function frameCrc(protocolId: number, payload: Uint8Array): number {
  const header = new Uint8Array([protocolId & 0xff, (protocolId >>> 8) & 0xff, (protocolId >>> 16) & 0xff, protocolId >>> 24, 0, 0, 0, 0]);
  return crc32(crc32(0, header), payload);
}

/**
 * bitpack.Seal: the CRC32 of the protocol id's 4 little-endian bytes, four
 * zero bytes and the payload, little-endian, then the payload. Mix a type's
 * fingerprint into the id as the Go side does. A CRC catches accidents and
 * foreign traffic, not attackers.
 */
export function seal(protocolId: number, payload: Uint8Array): BitpackBytes {
  const crc = frameCrc(protocolId >>> 0, payload);
  const packet = new Uint8Array(4 + payload.length);
  new DataView(packet.buffer).setUint32(0, crc, true);
  packet.set(payload, 4);
  return packet;
}

/** bitpack.Open: the payload of a sealed packet, or null when it is shorter than 4 bytes or its CRC does not match. */
export function open(protocolId: number, packet: Uint8Array): Uint8Array | null {
  if (packet.length < 4) {
    return null;
  }
  const stored = new DataView(packet.buffer, packet.byteOffset, 4).getUint32(0, true);
  const payload = packet.subarray(4);
  return stored === frameCrc(protocolId >>> 0, payload) ? payload : null;
}

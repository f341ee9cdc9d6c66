// ---------------------------------------------------------------------------
// bitpack's wire, in TypeScript (ES2020, no dependency): every module bitpack
// generates carries this part. Bits are packed least significant first, as
// serialize packs them. 64-bit integers are bigint; float32 arithmetic goes
// through Math.fround at every step, as bitpack pins it.

/** What kind of refusal an error is, as the Go side's sentinel errors. */
export type BitpackErrorKind = "Overflow" | "Range" | "Padding" | "InvalidString" | "Check" | "Trailing";

/** A refused packet or value: the field path and bit are bitpack's. */
export class BitpackError extends Error {
  constructor(
    readonly op: "decode" | "encode",
    readonly type: string,
    readonly kind: BitpackErrorKind,
    readonly path: string,
    readonly bit: number, // -1 for encode errors
    readonly detail: string,
  ) {
    super(errorMessage(op, type, path, bit, detail));
    this.name = "BitpackError";
  }
}

function errorMessage(op: string, type: string, path: string, bit: number, detail: string): string {
  let where = "";
  if (path !== "") {
    where = "field " + path + (bit >= 0 ? " at bit " + bit : "") + ": ";
  } else if (bit >= 0) {
    where = "at bit " + bit + ": ";
  }
  return "bitpack: " + op + " " + type + ": " + where + detail;
}

function joinPath(segment: string, path: string): string {
  if (path === "") {
    return segment;
  }
  if (path[0] === "[" || path[0] === "(") {
    return segment + path;
  }
  return segment + "." + path;
}

/** A Go **T's pointee, where the pointee can itself be null. */
export interface BitpackBox<T> {
  value: T;
}

/** The Go code of a type that encodes itself (MarshalBits/UnmarshalBits), written again in TypeScript. */
export interface Hook<T> {
  zero(): T;
  read(r: BitReader): T; // r.fail(...) to refuse
  write(w: BitWriter, value: T): boolean; // return w.fail(...) to refuse
}

const f32 = Math.fround;
const scratch = new DataView(new ArrayBuffer(8));
const noBytes = new Uint8Array(0);

// serialize's int_relative tiers beyond a difference of 1.
const tierLow = [2, 7, 24, 281, 4378];
const tierHigh = [6, 23, 280, 4377, 69914];
const tierBits = [3, 5, 9, 13, 17]; // bits_required(low, high)

/** The float32 with these IEEE-754 bits, as a number (a signalling NaN may come back quiet). */
export function float32FromBits(bits: number): number {
  scratch.setUint32(0, bits, true);
  return scratch.getFloat32(0, true);
}

export function float32Bits(value: number): number {
  scratch.setFloat32(0, value, true);
  return scratch.getUint32(0, true);
}

export function float64FromBits(bits: bigint): number {
  scratch.setBigUint64(0, BigInt.asUintN(64, bits), true);
  return scratch.getFloat64(0, true);
}

export function float64Bits(value: number): bigint {
  scratch.setFloat64(0, value, true);
  return scratch.getBigUint64(0, true);
}

/** value as Go's %v prints a float64. */
function goFloat(value: number): string {
  if (Number.isNaN(value)) {
    return "NaN";
  }
  if (!Number.isFinite(value)) {
    return value > 0 ? "+Inf" : "-Inf";
  }
  if (value === 0) {
    return Object.is(value, -0) ? "-0" : "0";
  }
  const e = value.toExponential(); // the shortest digits that read back as value
  const mark = e.indexOf("e");
  const exp = Number(e.slice(mark + 1));
  const sign = value < 0 ? "-" : "";
  const digits = e.slice(sign.length, mark).replace(".", "");
  if (exp < -4 || exp >= 21) {
    const m = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    const x = String(Math.abs(exp));
    return sign + m + "e" + (exp < 0 ? "-" : "+") + (x.length < 2 ? "0" + x : x);
  }
  if (exp < 0) {
    return sign + "0." + "0".repeat(-exp - 1) + digits;
  }
  if (digits.length <= exp + 1) {
    return sign + digits + "0".repeat(exp + 1 - digits.length);
  }
  return sign + digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
}

function show(value: unknown): string {
  return typeof value === "number" || typeof value === "bigint" ? String(value) : typeof value;
}

/** Why bytes p[at..at+n) are no string bitpack accepts (Go's UTF-8 rules, no NUL), or "". */
function textProblem(p: Uint8Array, at: number, n: number): string {
  for (let i = 0; i < n; i++) {
    if (p[at + i] === 0) {
      return "NUL byte at offset " + i;
    }
  }
  for (let k = 0; k < n; ) {
    const c = p[at + k];
    if (c < 0x80) {
      k++;
      continue;
    }
    let length = 0;
    let low = 0x80;
    let high = 0xbf; // the second byte's range
    if (c >= 0xc2 && c <= 0xdf) {
      length = 2;
    } else if (c === 0xe0) {
      length = 3;
      low = 0xa0;
    } else if (c === 0xed) {
      length = 3;
      high = 0x9f;
    } else if (c >= 0xe1 && c <= 0xef) {
      length = 3;
    } else if (c === 0xf0) {
      length = 4;
      low = 0x90;
    } else if (c === 0xf4) {
      length = 4;
      high = 0x8f;
    } else if (c >= 0xf1 && c <= 0xf3) {
      length = 4;
    }
    let ok = length > 0 && n - k >= length && p[at + k + 1] >= low && p[at + k + 1] <= high;
    for (let j = 2; ok && j < length; j++) {
      ok = p[at + k + j] >= 0x80 && p[at + k + j] <= 0xbf;
    }
    if (!ok) {
      return "invalid UTF-8 at offset " + k;
    }
    k += length;
  }
  return "";
}

/** Decodes valid UTF-8 (textProblem found nothing), a leading U+FEFF included. */
function decodeText(p: Uint8Array, at: number, n: number): string {
  const units: number[] = [];
  let out = "";
  for (let k = at; k < at + n; ) {
    const c = p[k];
    let cp: number;
    if (c < 0x80) {
      cp = c;
      k++;
    } else if (c < 0xe0) {
      cp = ((c & 0x1f) << 6) | (p[k + 1] & 0x3f);
      k += 2;
    } else if (c < 0xf0) {
      cp = ((c & 0x0f) << 12) | ((p[k + 1] & 0x3f) << 6) | (p[k + 2] & 0x3f);
      k += 3;
    } else {
      cp = ((c & 0x07) << 18) | ((p[k + 1] & 0x3f) << 12) | ((p[k + 2] & 0x3f) << 6) | (p[k + 3] & 0x3f);
      k += 4;
    }
    if (cp > 0xffff) {
      cp -= 0x10000;
      units.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
    } else {
      units.push(cp);
    }
    if (units.length >= 4096) {
      out += String.fromCharCode(...units);
      units.length = 0;
    }
  }
  return out + String.fromCharCode(...units);
}

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

  constructor(packet: Uint8Array) {
    this.data = packet;
    this.end = 8 * packet.length;
  }

  get bitsRead(): number {
    return this.pos;
  }

  get bitsRemaining(): number {
    return this.end - this.pos;
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
    let value = d[i] >>> (pos & 7);
    for (let got = 8 - (pos & 7); got < n; got += 8) {
      value |= d[++i] << got; // got < 32
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
   * A slice's length (n bits, at most maxlen), refused before anything is
   * allocated when its elements of at least elemBits each cannot fit.
   */
  readLength(n: number, maxlen: number, elemBits: number): number {
    const start = this.pos;
    const v = this.readBits(n);
    if (v > maxlen) {
      this.fail("Range", start, "length " + v + " exceeds maxlen " + maxlen);
      return 0;
    }
    if (elemBits > 0 && v * elemBits > this.end - this.pos) {
      this.fail("Overflow", this.pos, v + " elements need at least " + v * elemBits + " bits, " + (this.end - this.pos) + " remain");
      return 0;
    }
    return v;
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
    return this.data.slice(at, at + length);
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
    const at = this.pos >>> 3;
    this.pos += 8 * length;
    return this.data.slice(at, at + length);
  }

  /** A string: its length in bytes (n bits, at most maxlen), align, UTF-8 with no NUL. */
  readString(n: number, maxlen: number): string {
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
        difference = tierLow[tier] + this.readBits(tierBits[tier]);
        if (!this.failed && difference > tierHigh[tier]) {
          this.fail("Range", start, "difference " + difference + " out of tier range [" + tierLow[tier] + ", " + tierHigh[tier] + "]");
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
        if (absolute - previous <= tierHigh[4]) {
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
}

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
  bytes(): Uint8Array {
    return this.buffer.slice(0, (this.pos + 7) >>> 3);
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
    b[i] |= v << shift; // a byte keeps the low 8 bits
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
      const here = difference <= tierHigh[tier];
      this.writeBits(here ? 1 : 0, 1);
      if (here) {
        return this.writeBits(difference - tierLow[tier], tierBits[tier]);
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
    crc = crcTable[(crc ^ p[i]) & 0xff] ^ (crc >>> 8);
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
export function seal(protocolId: number, payload: Uint8Array): Uint8Array {
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
// ---------------------------------------------------------------------------

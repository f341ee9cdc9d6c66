// ---------------------------------------------------------------------------
// bitpack's wire, in TypeScript (ES2020, no dependency): every module bitpack
// generates carries this part. Bits are packed least significant first, as
// serialize packs them. 64-bit integers are bigint; float32 arithmetic goes
// through Math.fround at every step, as bitpack pins it.

/** What kind of refusal an error is, as the Go side's sentinel errors. */
export type BitpackErrorKind = "Overflow" | "Range" | "Padding" | "InvalidString" | "Check" | "Trailing" | "NoBase";

/** A refused packet or value: the field path and bit are bitpack's. */
export class BitpackError extends Error {
  readonly op: "decode" | "encode";
  readonly type: string;
  readonly kind: BitpackErrorKind;
  readonly path: string;
  readonly bit: number; // -1 for encode errors
  readonly detail: string;

  constructor(op: "decode" | "encode", type: string, kind: BitpackErrorKind, path: string, bit: number, detail: string) {
    super(errorMessage(op, type, path, bit, detail));
    this.name = "BitpackError";
    this.op = op;
    this.type = type;
    this.kind = kind;
    this.path = path;
    this.bit = bit;
    this.detail = detail;
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

/**
 * The bytes writeT, writeTDelta and seal return: a Uint8Array over an
 * ArrayBuffer of its own, which WebSocket.send, a fetch body and a Blob
 * take. Written as what Uint8Array's slice returns, it is
 * Uint8Array<ArrayBuffer> to TypeScript 5.7 and later (whose DOM library
 * refuses a plain Uint8Array, which may view a SharedArrayBuffer) and
 * Uint8Array to earlier versions, which have no generic Uint8Array.
 */
export type BitpackBytes = ReturnType<Uint8Array["slice"]>;

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
// Every empty byte slice a reader returns or a zero value holds, frozen (a
// Uint8Array of none has no element to change): a packet of elements
// holding empty byte slices then costs no allocation for them.
const noBytes = Object.freeze(new Uint8Array(0)) as Uint8Array;

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

function show(value: unknown): string {
  return typeof value === "number" || typeof value === "bigint" ? String(value) : typeof value;
}

/** Why bytes p[at..at+n) are no string bitpack accepts (Go's UTF-8 rules, no NUL), or "". */
function textProblem(p: Uint8Array, at: number, n: number): string {
  for (let i = 0; i < n; i++) {
    if (p[at + i]! === 0) {
      return "NUL byte at offset " + i;
    }
  }
  for (let k = 0; k < n; ) {
    const c = p[at + k]!;
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
    let ok = length > 0 && n - k >= length && p[at + k + 1]! >= low && p[at + k + 1]! <= high;
    for (let j = 2; ok && j < length; j++) {
      ok = p[at + k + j]! >= 0x80 && p[at + k + j]! <= 0xbf;
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
    const c = p[k]!;
    let cp: number;
    if (c < 0x80) {
      cp = c;
      k++;
    } else if (c < 0xe0) {
      cp = ((c & 0x1f) << 6) | (p[k + 1]! & 0x3f);
      k += 2;
    } else if (c < 0xf0) {
      cp = ((c & 0x0f) << 12) | ((p[k + 1]! & 0x3f) << 6) | (p[k + 2]! & 0x3f);
      k += 3;
    } else {
      cp = ((c & 0x07) << 18) | ((p[k + 1]! & 0x3f) << 12) | ((p[k + 2]! & 0x3f) << 6) | (p[k + 3]! & 0x3f);
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

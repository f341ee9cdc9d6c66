// driver_cases.ts: the TypeScript side of package gen's cross-language
// tests, type-checked with the module gen.TypeScript generated for the test
// table (table.ts). The Go test appends the generated part (the per-type
// reads and the write cases) to this file as cases.ts; driver.mjs feeds it
// the commands. The answers are driver.cpp's, except that a refusal is
// REFUSED<tab>kind<tab>path<tab>bit<tab>message.

import * as t from "./table.js";

// Stamp is gen.Stamp: the high 4 of its 12 bits, an align, the low 8;
// values above 4095 are refused, as its Go MarshalBits refuses them. Its
// fields are declared as the generated module asks, by augmenting its
// interface.
declare module "./table.js" {
  interface Stamp {
    v: number;
  }
  interface Nib {
    v: number;
  }
}

// Its values are frozen: a delta's result shares them with its base (they
// are replaced whole, never changed), and shared() skips what is frozen.
t.hooks.Stamp = {
  zero: () => Object.freeze({ v: 0 }),
  read: (r) => {
    const high = r.readBits(4);
    r.align();
    return Object.freeze({ v: (high << 8) | r.readBits(8) });
  },
  write: (w, s) => (s.v > 4095 ? w.refuse("hook refused the value: stamp out of range") : w.writeBits(s.v >> 8, 4) && w.align() && w.writeBits(s.v & 255, 8)),
};

// Nib is gen.Nib: 4 bits, of which 15 is reserved (read, but refused on
// write, as its Go MarshalBits refuses it).
t.hooks.Nib = {
  zero: () => Object.freeze({ v: 0 }),
  read: (r) => Object.freeze({ v: r.readBits(4) }),
  write: (w, n) => (n.v > 14 ? w.refuse("hook refused the value: nib out of range") : w.writeBits(n.v, 4)),
};

function hex(p: Uint8Array): string {
  let s = "";
  for (let i = 0; i < p.length; i++) {
    s += p[i].toString(16).padStart(2, "0");
  }
  return s;
}

function bytes(s: string): Uint8Array {
  if (s === "-") {
    return new Uint8Array(0);
  }
  const p = new Uint8Array(s.length / 2);
  for (let i = 0; i < p.length; i++) {
    p[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  }
  return p;
}

function refused(e: unknown): string {
  if (!(e instanceof t.BitpackError)) {
    throw e;
  }
  if (e.kind === "Trailing") {
    return "TRAILING";
  }
  return "REFUSED\t" + e.kind + "\t" + e.path + "\t" + e.bit + "\t" + e.message;
}

// readCase reads a packet with readT and with the stream-level readTFrom
// and finish, which must agree, and writes the value back.
function readCase<T>(p: Uint8Array, read: (p: Uint8Array) => T, make: () => T, from: (r: t.BitReader, v: T) => boolean, type: string, write: (v: T) => string): string {
  let v: T | null = null;
  let thrown: unknown = null;
  try {
    v = read(p);
  } catch (e) {
    thrown = e;
  }
  const r = new t.BitReader(p);
  const ok = from(r, make()) && r.finish();
  if (ok !== (v !== null) || (!ok && (!(thrown instanceof t.BitpackError) || thrown.message !== r.error(type).message))) {
    return "INCONSISTENT " + String(thrown);
  }
  return v === null ? refused(thrown) : write(v);
}

// writeCase writes a value with writeT and with the stream-level writeTTo,
// which must agree.
function writeCase<T>(v: T, write: (v: T) => Uint8Array, to: (w: t.BitWriter, v: T) => boolean, type: string): string {
  let packet: Uint8Array | null = null;
  let thrown: unknown = null;
  try {
    packet = write(v);
  } catch (e) {
    thrown = e;
  }
  const w = new t.BitWriter(1);
  const ok = to(w, v);
  if (ok !== (packet !== null) || (ok && hex(w.bytes()) !== hex(packet!)) || (!ok && (!(thrown instanceof t.BitpackError) || thrown.message !== w.error(type).message))) {
    return "INCONSISTENT " + String(thrown);
  }
  return packet === null ? refused(thrown) : "OK " + hex(packet);
}

// written is v's packet, or why there is none (a value a delta read or
// write spoiled may not be writable).
function written<T>(write: (v: T) => Uint8Array, v: T): string {
  try {
    return hex(write(v));
  } catch (e) {
    return "UNWRITABLE " + String(e);
  }
}

// objects collects the objects v holds (itself included), but frozen ones
// (and byte arrays, unless bytes).
function objects(v: unknown, into: Set<object>, bytes = true): void {
  if (typeof v !== "object" || v === null || Object.isFrozen(v) || into.has(v) || (!bytes && v instanceof Uint8Array)) {
    return;
  }
  into.add(v);
  if (v instanceof Map) {
    v.forEach((e) => objects(e, into, bytes));
  } else if (!(v instanceof Uint8Array)) {
    for (const k of Object.keys(v)) {
      objects((v as Record<string, unknown>)[k], into, bytes);
    }
  }
}

// shared reports whether a and b hold one object (not frozen; no byte
// array, unless bytes) between them.
function shared(a: unknown, b: unknown, bytes = true): boolean {
  const seen = new Set<object>();
  objects(a, seen, bytes);
  const other = new Set<object>();
  objects(b, other, bytes);
  for (const o of other) {
    if (seen.has(o)) {
      return true;
    }
  }
  return false;
}

// The value of each table type the last delta read into: the next one of
// the type reads into it again, a value of other shapes (other lengths,
// keys, members, pointers set and not).
const stale = new Map<number, unknown>();

// The functions of a type a delta read takes.
interface DeltaReader<T> {
  read: (p: Uint8Array) => T;
  apply: (p: Uint8Array, base: T) => T;
  from: (r: t.BitReader, base: T, into: T) => boolean;
  copy: (src: T, dst: T | null | undefined) => T;
  write: (v: T) => Uint8Array;
  type: string;
}

// deltaReadCase applies a delta to the base read from its packet and
// answers as read does, with the result written whole; the base must come
// out of it unchanged, whatever the answer, and the result must share no
// object with it. The stream-level readTDeltaFrom into the last value the
// type read into (reusing its objects) must agree, word for word when it
// refuses, and share nothing with the base but byte arrays; so must copyT
// of the base into that value.
function deltaReadCase<T>(k: number, base: Uint8Array, d: Uint8Array, f: DeltaReader<T>): string {
  const b = f.read(base);
  const before = written(f.write, b);
  let answer: string;
  try {
    const v = f.apply(d, b);
    answer = (shared(b, v) ? "SHARED " : "") + "OK " + hex(f.write(v));
  } catch (e) {
    answer = refused(e);
  }
  const into = (stale.get(k) as T | undefined) ?? f.read(base);
  const r = new t.BitReader(d);
  let again: string;
  if (f.from(r, b, into) && r.finish()) {
    try {
      again = (shared(b, into, false) ? "SHARED " : "") + "OK " + hex(f.write(into));
    } catch (e) {
      again = refused(e); // a result holding a value its hook cannot write, refused as answer's
    }
  } else {
    again = refused(r.error(f.type));
  }
  stale.set(k, into);
  if (again !== answer) {
    return "STREAM " + again + " / " + answer;
  }
  const copy = f.copy(b, into);
  if (written(f.write, copy) !== before || shared(b, copy, false)) {
    return "COPY " + written(f.write, copy) + " / " + before;
  }
  stale.set(k, copy);
  return written(f.write, b) === before ? answer : "BASE CHANGED " + answer;
}

// deltaWriteCase writes the delta of the value read from its packet
// against the base read from its own.
function deltaWriteCase<T>(base: Uint8Array, value: Uint8Array, read: (p: Uint8Array) => T, delta: (base: T, value: T) => Uint8Array, write: (v: T) => Uint8Array): string {
  const b = read(base);
  const v = read(value);
  const before = written(write, b) + written(write, v);
  let answer: string;
  try {
    answer = "OK " + hex(delta(b, v));
  } catch (e) {
    answer = refused(e);
  }
  return written(write, b) + written(write, v) === before ? answer : "VALUES CHANGED " + answer;
}

function probe(p: Uint8Array): string {
  let v: t.Pinned;
  try {
    v = t.readPinned(p);
  } catch (e) {
    return "REFUSED";
  }
  const h32 = (x: number) => t.float32Bits(x).toString(16).padStart(8, "0");
  return h32(v.V) + " " + h32(v.A) + " " + t.float64Bits(v.W).toString(16).padStart(16, "0");
}

function encode(f: string[]): string {
  const v: t.Pinned = { V: t.float32FromBits(parseInt(f[1], 16)), A: t.float32FromBits(parseInt(f[2], 16)), W: t.float64FromBits(BigInt("0x" + f[3])) };
  try {
    return "OK " + hex(t.writePinned(v));
  } catch (e) {
    return "REFUSED";
  }
}

function probeQuat(p: Uint8Array): string {
  const r = new t.BitReader(p);
  const ok = t.readQuatProbeFrom(r, t.newQuatProbe()) && r.finish();
  let v: t.QuatProbe;
  try {
    v = t.readQuatProbe(p);
  } catch (e) {
    return ok ? "INCONSISTENT" : refused(e);
  }
  const h32 = (x: number) => t.float32Bits(x).toString(16).padStart(8, "0");
  const h64 = (x: number) => t.float64Bits(x).toString(16).padStart(16, "0");
  return [...v.A.map(h32), ...v.B.map(h32), ...v.C.map(h64)].join(" ");
}

function encodeQuat(f: string[]): string {
  const v: t.QuatProbe = {
    A: f.slice(1, 5).map((h) => t.float32FromBits(parseInt(h, 16))),
    B: f.slice(5, 9).map((h) => t.float32FromBits(parseInt(h, 16))),
    C: f.slice(9, 13).map((h) => t.float64FromBits(BigInt("0x" + h))),
  };
  return writeCase(v, t.writeQuatProbe, t.writeQuatProbeTo, "gen.QuatProbe");
}

function frame(f: string[]): string {
  const id = parseInt(f[1], 16);
  const p = bytes(f[2]);
  if (f[0] === "S") {
    return "OK " + hex(t.seal(id, p));
  }
  const payload = t.open(id, p);
  return payload === null ? "REFUSED" : "OK " + hex(payload);
}

export function answer(line: string): string {
  const f = line.split(" ");
  switch (f[0]) {
    case "R":
      return read(Number(f[1]), bytes(f[2]));
    case "W":
      return writeValue(Number(f[1]));
    case "D": // a delta's D k base delta has four fields, a float probe's two
      return f.length === 4 ? deltaRead(Number(f[1]), bytes(f[2]), bytes(f[3])) : probe(bytes(f[1]));
    case "P":
      return encode(f);
    case "Q":
      return probeQuat(bytes(f[1]));
    case "E": // a delta's E k base value has four fields, a quaternion's thirteen
      return f.length === 4 ? deltaWrite(Number(f[1]), bytes(f[2]), bytes(f[3])) : encodeQuat(f);
    case "S":
    case "O":
      return frame(f);
  }
  return "BADLINE";
}

// The generated part follows.

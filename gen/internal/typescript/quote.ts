
// String map keys: ordered by their UTF-8 bytes, and quoted in error paths
// as Go's strconv.Quote quotes them.

/** Orders strings by their UTF-8 bytes (code points), as bitpack orders string keys; JavaScript's < puts U+E000-U+FFFF after the supplementary planes. */
function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) {
      continue;
    }
    if (x >= 0xd800 && y >= 0xd800) {
      // surrogates (code points past U+FFFF) go above U+E000-U+FFFF
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

// The characters Go's strconv.IsPrint accepts, as ranges: hex numbers, each
// range's distance from the end of the one before, then its length minus
// one (generated from the Go that generated this file).
const printableRanges = "{{PRINTABLE}}";
let printable: number[] | null = null;

function isPrint(r: number): boolean {
  if (printable === null) {
    let at = 0;
    printable = printableRanges.split(",").map((h) => (at += parseInt(h, 16)));
  }
  const t = printable;
  let lo = 0;
  let hi = t.length / 2; // ranges [t[2k], t[2k+1]], ascending
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (t[2 * mid + 1]! < r) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < t.length / 2 && t[2 * lo]! <= r;
}

const quoteEscapes: { [r: number]: string } = { 7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v" };

/** A string key as Go's strconv.Quote writes it, for an error's path. */
function keyText(key: string): string {
  if (typeof key !== "string") {
    return String(key); // refused when written: a string key of another type
  }
  let out = '"';
  for (const ch of key) {
    let r = ch.codePointAt(0) as number;
    if (r >= 0xd800 && r <= 0xdfff) {
      r = 0xfffd; // a lone surrogate: no UTF-8 form (refused when written)
    }
    const hex = (n: number) => r.toString(16).padStart(n, "0");
    if (r === 0x22 || r === 0x5c) {
      out += "\\" + String.fromCodePoint(r);
    } else if (isPrint(r)) {
      out += String.fromCodePoint(r);
    } else if (quoteEscapes[r] !== undefined) {
      out += quoteEscapes[r];
    } else if (r < 0x20 || r === 0x7f) {
      out += "\\x" + hex(2);
    } else {
      out += r < 0x10000 ? "\\u" + hex(4) : "\\U" + hex(8);
    }
  }
  return out + '"';
}

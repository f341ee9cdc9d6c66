
// Go's words for numbers in bitpack's messages (fmt's %v and %.4g, and
// time.Duration's String), so that errors read exactly as the Go side's.

/** value as Go's %v prints a float64. */
function goFloat(value: number): string {
  return shortest(value, false);
}

/** value (a float32) as Go's %v prints a float32. */
function goFloat32(value: number): string {
  return shortest(value, true);
}

/** value as Go's %.4g prints it: 4 significant digits, rounded half to even. */
function goFloat4(value: number): string {
  if (!Number.isFinite(value) || value === 0) {
    return special(value);
  }
  const [digits, dp] = exactDigits(value);
  const [d, p] = roundDigits(digits, dp, 4);
  return layout(value < 0, d, p, 4, false);
}

function special(value: number): string {
  if (Number.isNaN(value)) {
    return "NaN";
  }
  if (!Number.isFinite(value)) {
    return value > 0 ? "+Inf" : "-Inf";
  }
  return Object.is(value, -0) ? "-0" : "0";
}

// shortest is Go's shortest form: the fewest digits that read back as
// value (as a float32 when single); of two such, the nearer, a tie going
// to the even digit, or up where the gap below is half the gap above (a
// power of two), as Go's Dragonbox does.
function shortest(value: number, single: boolean): string {
  if (!Number.isFinite(value) || value === 0) {
    return special(value);
  }
  const v = Math.abs(value);
  const powerOfTwo = single ? (float32Bits(v) & 0x7fffff) === 0 : (float64Bits(v) & 0xfffffffffffffn) === 0n;
  const [d, dp] = exactDigits(v);
  for (let p = 1; p <= (single ? 9 : 17) && p < d.length; p++) {
    const down = d.slice(0, p).replace(/0+$/, "");
    const [up, upDp] = roundDigits(d.slice(0, p) + "9", dp, p);
    let downOk = readsBack(down, dp, v, single);
    const upOk = readsBack(up, upDp, v, single);
    if (downOk && upOk) {
      const rest = d.slice(p);
      let useUp = rest.charAt(0) > "5" || (rest.charAt(0) === "5" && rest.length > 1);
      if (rest === "5") {
        // a tie: Go rounds it to even, or up below a power of two (but 2^-25's, as Dragonbox does)
        useUp = powerOfTwo && (single || v !== 2.98023223876953125e-8) ? true : (d.charCodeAt(p - 1) - 48) % 2 === 1;
      }
      downOk = !useUp;
    }
    if (downOk) {
      return layout(value < 0, down, dp, down.length, true);
    }
    if (upOk) {
      return layout(value < 0, up, upDp, up.length, true);
    }
  }
  return layout(value < 0, d, dp, d.length, true);
}

function readsBack(digits: string, dp: number, v: number, single: boolean): boolean {
  const back = Number(digits[0] + "." + digits.slice(1) + "e" + (dp - 1));
  return single ? f32(back) === f32(v) : back === v;
}

// exactDigits returns the exact decimal digits of |value| (finite, not
// zero), trailing zeros trimmed, and dp: |value| = 0.digits × 10^dp. A
// double is m × 2^e; the digits are those of m × 2^e, or m × 5^-e for e < 0.
function exactDigits(value: number): [string, number] {
  const bits = float64Bits(Math.abs(value));
  let e = Number(bits >> 52n);
  let m = bits & 0xfffffffffffffn;
  if (e === 0) {
    e = 1;
  } else {
    m |= 1n << 52n;
  }
  e -= 1075;
  const s = e >= 0 ? (m << BigInt(e)).toString() : (m * 5n ** BigInt(-e)).toString();
  return [s.replace(/0+$/, ""), e >= 0 ? s.length : s.length + e];
}

// roundDigits rounds exact digits to p significant digits, half to even (as
// Go rounds a decimal), trimming trailing zeros.
function roundDigits(digits: string, dp: number, p: number): [string, number] {
  if (digits.length <= p) {
    return [digits, dp];
  }
  const next = digits.charAt(p);
  const up = next > "5" || (next === "5" && (digits.length > p + 1 || (digits.charCodeAt(p - 1) - 48) % 2 === 1));
  const d = Array.from(digits.slice(0, p));
  if (up) {
    let i = p - 1;
    for (; i >= 0 && d[i] === "9"; i--) {
      d[i] = "0";
    }
    if (i < 0) {
      return ["1", dp + 1];
    }
    d[i] = String.fromCharCode(d[i]!.charCodeAt(0) + 1);
  }
  return [d.join("").replace(/0+$/, ""), dp];
}

// layout is Go's %g of the digits (strconv's formatDigits): %e when the
// exponent is below -4 or at least the precision (6 in shortest form), else
// %f, with prec significant digits at most.
function layout(negative: boolean, digits: string, dp: number, prec: number, short: boolean): string {
  const nd = digits.length;
  let eprec = prec;
  if (eprec > nd && nd >= dp) {
    eprec = nd;
  }
  if (short) {
    eprec = 6;
  }
  const exp = dp - 1;
  let out = negative ? "-" : "";
  if (exp < -4 || exp >= eprec) {
    prec = Math.min(prec, nd);
    out += digits[0];
    if (prec > 1) {
      out += "." + digits.slice(1, prec).padEnd(prec - 1, "0");
    }
    const x = Math.abs(exp);
    return out + (exp < 0 ? "e-" : "e+") + (x < 10 ? "0" : "") + x;
  }
  if (prec > dp) {
    prec = nd;
  }
  out += dp > 0 ? digits.slice(0, dp).padEnd(dp, "0") : "0";
  if (prec - dp > 0) {
    out += ".";
    for (let i = 0; i < prec - dp; i++) {
      out += dp + i >= 0 && dp + i < nd ? digits[dp + i] : "0";
    }
  }
  return out;
}

/** (x, y, z, w) as Go's %v prints a [4]float32. */
function quatText(x: number, y: number, z: number, w: number): string {
  return "[" + goFloat32(x) + " " + goFloat32(y) + " " + goFloat32(z) + " " + goFloat32(w) + "]";
}

/** A time.Duration (nanoseconds) as Go prints it: 1.5s, 1m0.25s, 2h0m0s, 750µs, 0s. */
function durationText(d: bigint): string {
  let u = d < 0n ? -d : d;
  // fraction takes prec decimal digits off u: ".5" for 5 tenths, trailing
  // zeros (and the point, for none) left out.
  const fraction = (prec: number): string => {
    let digits = "";
    let print = false;
    for (let i = 0; i < prec; i++) {
      const digit = u % 10n;
      print = print || digit !== 0n;
      if (print) {
        digits = String(digit) + digits;
      }
      u /= 10n;
    }
    return print ? "." + digits : "";
  };
  let text: string;
  if (u < 1000000000n) {
    if (u === 0n) {
      return "0s";
    }
    const [prec, unit] = u < 1000n ? [0, "ns"] : u < 1000000n ? [3, "\u00b5s"] : [6, "ms"];
    const frac = fraction(prec);
    text = String(u) + frac + unit;
  } else {
    const frac = fraction(9);
    text = String(u % 60n) + frac + "s";
    u /= 60n;
    if (u > 0n) {
      text = String(u % 60n) + "m" + text;
      u /= 60n;
      if (u > 0n) {
        text = String(u) + "h" + text;
      }
    }
  }
  return d < 0n ? "-" + text : text;
}

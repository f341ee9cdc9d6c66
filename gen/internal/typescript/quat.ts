
// bitpack's canonical smallest-three quaternions (docs/wire.md,
// "Quaternions"), every float32 step through Math.fround.

const quatM = float32FromBits(0x3f3504f3); // float32(1/sqrt(2))
const quatDelta = float32FromBits(0x3fb504f3); // 2m, exact

// The components a decode gives and the code an encode gives, reused:
// readers copy them out at once.
const quatOut: [number, number, number, number] = [0, 0, 0, 0];
const quatCode: [number, number, number, number] = [0, 0, 0, 0];
const quatIn: [number, number, number, number] = [0, 0, 0, 0];

function quatQuantize(f: number, steps: number): number {
  let n = f32(f32(f + quatM) / quatDelta);
  if (!(n > 0)) {
    n = 0;
  } else if (n > 1) {
    n = 1;
  }
  const code = Math.floor(f32(f32(n * steps) + 0.5));
  return code < steps ? code : steps;
}

function quatDequantize(code: number, steps: number): number {
  return f32(f32(f32(code / steps) * quatDelta) - quatM);
}

// outranks reports whether the rebuilt component big outranks small
// component s at index i as the encoder ranks them (larger, or equal at a
// higher index).
function outranks(big: number, s: number, i: number, largest: number): boolean {
  const a = Math.abs(s);
  return a < big || (a === big && i < largest);
}

// quatDecode rebuilds (x, y, z, w) into quatOut from the index of the
// largest component and the other three codes (each at most steps), and
// reports whether the code is canonical: whether the rebuilt component
// outranks the others.
function quatDecode(largest: number, c0: number, c1: number, c2: number, steps: number): boolean {
  const s0 = quatDequantize(c0, steps);
  const s1 = quatDequantize(c1, steps);
  const s2 = quatDequantize(c2, steps);
  let rest = f32(f32(f32(1 - f32(s0 * s0)) - f32(s1 * s1)) - f32(s2 * s2));
  if (!(rest > 0)) {
    rest = 0;
  }
  const big = f32(Math.sqrt(rest)); // a double sqrt rounded once: a float32 sqrt
  quatOut[0] = largest === 0 ? big : s0;
  quatOut[1] = largest === 0 ? s0 : largest === 1 ? big : s1;
  quatOut[2] = largest <= 1 ? s1 : largest === 2 ? big : s2;
  quatOut[3] = largest === 3 ? big : s2;
  return outranks(big, s0, largest === 0 ? 1 : 0, largest) && outranks(big, s1, largest <= 1 ? 2 : 1, largest) && outranks(big, s2, largest <= 2 ? 3 : 2, largest);
}

// quatNatural is the plain smallest-three code, into quatCode: the largest
// magnitude (the highest index on a tie) dropped, all four negated first
// when its sign bit is set, the other three quantized in order.
function quatNatural(x: number, y: number, z: number, w: number, steps: number): void {
  const v = quatIn; // no array per call: a delta codes every changed quaternion
  v[0] = x;
  v[1] = y;
  v[2] = z;
  v[3] = w;
  let largest = 0;
  for (let i = 1; i < 4; i++) {
    if (Math.abs(v[i]!) >= Math.abs(v[largest]!)) {
      largest = i;
    }
  }
  const top = v[largest]!;
  const sign = top < 0 || Object.is(top, -0) ? -1 : 1;
  quatCode[0] = largest;
  for (let i = 0, k = 1; i < 4; i++) {
    if (i !== largest) {
      quatCode[k++] = quatQuantize(sign < 0 ? -v[i]! : v[i]!, steps);
    }
  }
}

// quatEncode is bitpack's canonical code of a finite quaternion, into
// quatCode: the natural code when it decodes canonically; else the natural
// code of the normalised quaternion, its codes moved one step at a time
// toward the middle (the farthest first) until it does.
function quatEncode(x: number, y: number, z: number, w: number, steps: number): void {
  quatNatural(x, y, z, w, steps);
  if (quatDecode(quatCode[0], quatCode[1], quatCode[2], quatCode[3], steps)) {
    return;
  }
  const n2 = f32(f32(f32(f32(x * x) + f32(y * y)) + f32(z * z)) + f32(w * w));
  const r = f32(Math.sqrt(n2));
  quatNatural(f32(x / r), f32(y / r), f32(z / r), f32(w / r), steps);
  const mid = steps / 2;
  while (!quatDecode(quatCode[0], quatCode[1], quatCode[2], quatCode[3], steps)) {
    let far = 1;
    for (let k = 2; k < 4; k++) {
      if (Math.abs(quatCode[k]! - mid) > Math.abs(quatCode[far]! - mid)) {
        far = k;
      }
    }
    const c = quatCode[far]!;
    quatCode[far] = c > mid ? c - 1 : c + 1;
  }
}

// quatProblem says why bitpack refuses to write (x, y, z, w) (float32
// values), or "": a component not finite, or a squared norm (summed in
// double, in order) more than {{QUAT_NORM_TOLERANCE}} from 1; all four +-0 is Go's zero
// value, written as the identity.
function quatProblem(x: number, y: number, z: number, w: number): string {
  if (x === 0 && y === 0 && z === 0 && w === 0) {
    return "";
  }
  const n2 = x * x + y * y + z * z + w * w;
  if (Math.abs(n2 - 1) <= {{QUAT_NORM_TOLERANCE}}) {
    return "";
  }
  if (![x, y, z, w].every(Number.isFinite)) {
    return "quaternion " + quatText(x, y, z, w) + " has a component that is not finite";
  }
  return "quaternion " + quatText(x, y, z, w) + " is not unit length (norm " + goFloat4(Math.sqrt(n2)) + "): normalise it";
}

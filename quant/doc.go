// Package quant turns floats into small integers and back, with the
// arithmetic pinned so that every implementation produces the same bytes.
// It is pure: no I/O, no allocation, no global state. Package bitio writes
// the codes; package bitpack builds the parameters once per struct field.
//
// # Compressed floats
//
// A compressed float maps a value in [min, max] to an integer code in
// [0, M] at resolution res:
//
//	delta  = max - min
//	M      = ceil(clamp(delta/res, 1, 4294967040))   bits = bit length of M
//	encode: n = clamp((v - min)/delta, 0, 1)          NaN -> 0
//	        code = min(floor(n*M + 0.5), M)
//	decode: v = (code/M)*delta + min
//
// NewFloat validates the parameters (finite bounds, min < max, res > 0,
// delta finite) and precomputes delta, M and the bit count, so Quantize and
// Dequantize do no more than the formula.
//
// # The float32 rule
//
// Every step is float32 arithmetic rounded to float32, written with an
// explicit float32(...) around each product and sum. The Go spec lets the
// compiler fuse x*y + z into one fused multiply-add (it does on arm64, ppc64
// and s390x) unless a conversion rounds the product first; a fused or a
// float64 evaluation changes the codes. Over [0, 10] at res 0.01 the pinned
// arithmetic gives 0.005→1, 0.025→3, 0.105→11, 9.995→1000, where float64
// gives 0, 2, 10, 999. The tests pin these values and the golden vectors of
// the reference C++ implementation.
//
// The clamp of the code to M is bitpack's own rule: once M reaches 2^23
// the float32 sum can round past M, which a reader would refuse, so the
// code is clamped. The reference C++ writer does not clamp, so bitpack
// refuses the tags where it would write past M (see package bitpack's
// referenceOverflows); for every tag it accepts both write the same codes.
//
// # Canonical declarations
//
// A declaration is canonical when every code decodes to a float that
// encodes back to the same code, so a decoder that accepts a packet always
// re-encodes it to the same bytes. Float.CheckCanonical verifies it
// exhaustively; it fails once float32 cannot hold the resolution at the
// range's magnitude (always past about 2^22 steps, and sooner far from
// zero: [1000, 1001] at res 1e-5 already fails). bitpack refuses such tags.
//
// Float64 uses the same formula in float64, with the same clamp of M (codes
// stay within 32 bits). The serialize family has no such primitive, so
// these bytes interoperate with bitpack only. Its canonical check is a
// rounding-error proof, with a brute-force fallback for small M.
//
// # Quaternions
//
// Quat is bitpack's own smallest-three encoding of a unit quaternion
// (x, y, z, w), with b bits per component (2 <= b <= 22): 2 + 3b bits. It
// is not part of the serialize format, and it is canonical: the decoder
// accepts exactly the codes the encoder writes, and decoding then encoding
// gives back the same code. Every step below is float32 arithmetic, each
// operation rounded to float32, with no fused multiply-add; sqrt and
// division are IEEE (correctly rounded).
//
// Constants:
//
//	m     = float32(1/√2) = 0.70710677   (bits 0x3f3504f3)
//	delta = m - (-m) = 1.4142135         (bits 0x3fb504f3, exact)
//	M     = 2^b - 2                      (steps; float32(M) is exact)
//
// A component code c is in [0, M]. Code M/2 is exactly 0, so the identity
// (0, 0, 0, 1) round-trips exactly at every b; code 2^b - 1 is never
// valid. Component arithmetic is the compressed float's over [-m, +m]
// with M steps:
//
//	quantize(f):   n = (f - (-m)) / delta           two roundings: f + m, then / delta
//	               n = 0 if n is not > 0 (NaN too); n = 1 if n > 1
//	               c = min(floor((n*M) + 0.5), M)   two roundings: n*M, then + 0.5
//	dequantize(c): s = ((c / M) * delta) + (-m)     three roundings
//
// The wire holds, least significant bit first as every field: the index L
// of the largest component (2 bits), then the codes c0, c1, c2 (b bits
// each) of the other three components in increasing index order.
//
// Decode(L, c0, c1, c2):
//
//  1. Refuse any code above M.
//  2. s_k = dequantize(c_k) for k = 0, 1, 2.
//  3. rest = ((1 - s0*s0) - s1*s1) - s2*s2, each product and difference
//     rounded; rest = 0 if it is not > 0; big = sqrt(rest). The
//     quaternion has big at index L and s0, s1, s2 at the other indices
//     in order.
//  4. Accept only if big outranks each s_k: |s_k| < big, or |s_k| = big
//     and s_k's index is below L. Otherwise the code is not canonical
//     (encoding the decoded quaternion would pick another index) and is
//     refused.
//
// Rule 4 is the whole canonical check: for b <= 22 every component code
// dequantizes to a float that quantizes back to the same code (verified
// exhaustively by TestQuatComponentsCanonical; at 23 bits neighbouring
// codes collide in float32), so the decoded quaternion re-encodes to the
// same code exactly when its index comes back. An accepted quaternion has
// big >= |s_k| for all k, so s0² + s1² + s2² <= 3/4, rest >= 1/4 and it is
// unit length up to float32 rounding; it is not normalised.
//
// Encode(x, y, z, w):
//
//  1. Refuse a NaN or infinite component.
//  2. The natural code of v: L is the index of the largest |v_i|, the
//     highest index on a tie (so the all-zero quaternion, where all four
//     tie, has L = 3 and codes M/2: the identity). If v_L's sign bit is set
//     (negative, or -0), negate all four (q and -q are the same rotation).
//     c0, c1, c2 quantize the other three in increasing index order.
//  3. If the natural code passes rule 4 of Decode, it is the code.
//  4. Otherwise normalise: n2 = ((x*x + y*y) + z*z) + w*w, each product
//     and sum rounded; r = sqrt(n2); u = (x/r, y/r, z/r, w/r), each a
//     float32 division. (Rule 4 fails only if some |s_k| >= 1/2, so that
//     component of v exceeds m/2 in magnitude and n2 > 1/8. If n2
//     overflows to +Inf, u is all zeros and codes as the identity.)
//     The natural code of u is the first candidate.
//  5. While the candidate fails rule 4: among c0, c1, c2, take the code
//     farthest from M/2 (by |c - M/2|; the first of them on a tie) and move
//     it one step toward M/2. L does not change. The loop ends: each step
//     brings a code closer to M/2, and three codes at M/2 decode to a unit
//     component at L, which passes at any L.
//
// For a unit quaternion the loop in step 5 runs at most three times in
// every measurement (random rotations, every permutation and sign of the
// ties ±1/2, ±1/√2, ±1/√3, ±1 and of 45° rotations, and their
// neighbourhoods, at every b; TestQuatEncodeMatchesReference). Moving a
// code toward the middle lowers that component and raises the rebuilt
// one, which restores the order; trying the other index of a tie instead
// almost never helps, and moving one code once is not always enough (the
// ±1/2 fours need two or three moves at some widths).
//
// Worst-case angular error (the angle between the input rotation and the
// decoded one): each small component is off by at most e = m/M (half a
// step); the worst case is all four components at ±1/2, where the rebuilt
// one absorbs 3e, for an angle of 4·√3·e radians (a small-angle estimate,
// which holds from 4 bits per component up). Step 5's moves happen only
// near ties, where the moved component's error and the rebuilt
// component's partly cancel; no search has found an error above the bound:
//
//	bits/component  wire bits  M      largest found  bound 4·√3·m/M
//	 9              29         510    0.546°         0.5504°
//	10              32         1022   0.272°         0.2747°
//	12              38         4094   0.0680°        0.0686°
//
// "Largest found" is the maximum over random rotations and climbs (random
// steps of a few quanta, kept when the error grows) from 3,000 starts near
// the ties; TestQuatAngularError repeats a shorter search and holds it to
// the bound. At 2 and 3 bits the steps are so coarse that the error can
// pass 45°.
//
// # Speed
//
// NewFloat moves the division, clamp, ceil and bit count out of the per-value
// path. Decoding still divides code/M in float32; VerifyReciprocal checks,
// for every code of a declaration (up to 2^24 codes), whether multiplying by
// a float64 reciprocal rounds to the same float32, and if so Dequantize uses
// the multiply. The bytes and the decoded bits are the same either way.
package quant

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
// The clamp of the code to M is the serialize 1.1 ruling: once M reaches
// 2^23 the float32 sum can round past M, which a reader would refuse.
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
// Quat is the smallest-three encoding of a unit quaternion: 2 bits for the
// index of the largest-magnitude component (the lowest index on a tie),
// negating all four first if that component is negative (q and -q are the
// same rotation), then the other three in order, each b bits (2 <= b <= 32).
// Each is coded exactly like a compressed float over [-m, +m] with
// m = float32(1/√2) = 0.70710677, except that M = 2^b - 1. Decode rebuilds
// the largest as sqrt(max(0, ((1 - a²) - b²) - c²)) in float32 and does not
// normalise. With parameters from NewQuat, Decode never produces NaN or a
// component outside [-1, 1], from any input bits; Encode refuses NaN and
// infinite components.
//
// Worst-case angular error (the angle between the input rotation and the
// decoded one): each small component is off by at most e = m/(2^b - 1);
// the worst case is all four components at ±1/2, where the rebuilt one
// absorbs 3e, for an angle of 4·√3·e radians.
//
//	bits/component  wire bits  measured worst  analytic bound
//	 9              29         0.53°           0.549°
//	10              32         0.26°           0.274°
//	12              38         0.067°          0.0685°
//
// "Measured" is the maximum over 400,000 random and near-worst-case unit
// quaternions (TestQuatAngularError, fixed seed); a local search climbs to
// within 2% of the bound. The bound is a small-angle estimate: it holds from
// 4 bits per component up (bitpack's minimum for quat tags). At 2 and 3 bits
// the steps are so coarse that the three decoded components of a unit
// quaternion can have squares summing past 1, so decoded values are not
// unit quaternions at all.
//
// # Speed
//
// NewFloat moves the division, clamp, ceil and bit count out of the per-value
// path. Decoding still divides code/M in float32; VerifyReciprocal checks,
// for every code of a declaration (up to 2^24 codes), whether multiplying by
// a float64 reciprocal rounds to the same float32, and if so Dequantize uses
// the multiply. The bytes and the decoded bits are the same either way.
package quant

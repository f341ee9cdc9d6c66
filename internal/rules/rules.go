// Package rules is the one home of the wire rules that bitpack's
// generated code repeats in its own words: the encoder and decoder use
// these definitions, package gen emits them into every runtime it writes
// (the Go helpers are this source itself; the C++, C# and TypeScript
// runtimes take the constants), and Version, a hash of the rules'
// definitions, versions generated Go code (see bitpack's Layout.Hash).
//
// Change a rule here, and TestVersion says the new Version to write.
package rules

// QuatNormTolerance bounds |‖q‖² − 1| for encodable quaternions: loose
// enough for float32 drift over many multiplications, tight enough to
// catch unnormalised ones.
const QuatNormTolerance = 0.01

// ShortBits is the width of a b-bit field's short form in a delta: none
// under 4 bits, else half of b rounded up, at most 8. (For the example
// world's positions, 18 bits at 1 cm, a change of up to 1.28 m costs 9
// bits instead of 19; docs/performance.md has the measurements.)
func ShortBits(b int) int {
	if b < 4 {
		return 0
	}
	return min((b+1)/2, 8)
}

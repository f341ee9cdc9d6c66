package rules

import _ "embed"

// unit= rounding: a Go value in units of u, rounded to the nearest, half
// away from zero (a quantization, like a compressed float's). gen.Go
// writes these functions into the files it generates, word for word (as
// bitpackUnitsSigned and bitpackUnitsUnsigned).

// UnitsSigned is v in units of u, rounded to the nearest, half
// away from zero.
func UnitsSigned(v, u int64) uint64 {
	q, r := v/u, v%u
	if r < 0 {
		r = -r
	}
	if r >= u-r {
		if v < 0 {
			q--
		} else {
			q++
		}
	}
	return uint64(q)
}

// UnitsUnsigned is v in units of u, rounded to the nearest, half
// up.
func UnitsUnsigned(v, u uint64) uint64 {
	q, r := v/u, v%u
	if r >= u-r {
		q++
	}
	return q
}

// UnitsSource is this file, from which gen.Go takes the functions above.
//
//go:embed units.go
var UnitsSource string

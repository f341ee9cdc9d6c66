package rules

import (
	_ "embed"
	"math"
	"math/bits"
	"time"
)

// time.Time's wire (docs/wire.md, "time.Time"): its Unix time in units of
// a Go duration, rounded to the nearest, half away from zero, as unit=
// rounds; decoded in UTC, without monotonic reading. The arithmetic is
// exact over every time.Time: no conversion through float64, nor through
// int64 nanoseconds, which end in 2262. gen.Go writes these functions
// into the files it generates, word for word (as bitpackUnixUnits and
// bitpackTimeOfUnits).

// UnixUnits is t's Unix time in units of u nanoseconds, rounded to the
// nearest, half away from zero, exactly: 128-bit arithmetic on t's Unix
// seconds and nanoseconds. ok is false when the result is beyond int64,
// neg then telling which way.
func UnixUnits(t time.Time, u int64) (units int64, neg, ok bool) {
	sec, nsec := t.Unix(), uint64(t.Nanosecond())
	latest := math.MaxInt64 + time.Time{}.Unix() // the latest Unix second of a time.Time: Unix wraps past it
	if sec > latest {
		return 0, true, false // Unix wrapped: t is before Unix second math.MinInt64
	}
	// |sec × 1e9 + nsec| in hi:lo.
	neg = sec < 0
	var hi, lo, c uint64
	if neg {
		hi, lo = bits.Mul64(-uint64(sec), uint64(time.Second))
		lo, c = bits.Sub64(lo, nsec, 0)
		hi -= c // |sec| × 1e9 > nsec: no borrow out of hi
	} else {
		hi, lo = bits.Mul64(uint64(sec), uint64(time.Second))
		lo, c = bits.Add64(lo, nsec, 0)
		hi += c
	}
	if hi >= uint64(u) {
		return 0, neg, false // the quotient takes more than 64 bits
	}
	q, r := bits.Div64(hi, lo, uint64(u))
	if q > 1<<63 {
		return 0, neg, false
	}
	if r >= uint64(u)-r { // 2r >= u, without overflow: away from zero
		q++
	}
	switch {
	case neg && q <= 1<<63:
		return int64(-q), true, true
	case !neg && q <= math.MaxInt64:
		return int64(q), false, true
	}
	return 0, neg, false
}

// TimeOfUnits is the UTC time units units of u nanoseconds after the Unix
// epoch. Its Unix seconds must be a time.Time's (bitpack refuses a tag
// whose range reaches others when it compiles).
func TimeOfUnits(units, u int64) time.Time {
	mag := uint64(units)
	if units < 0 {
		mag = -mag
	}
	hi, lo := bits.Mul64(mag, uint64(u))
	q, r := bits.Div64(hi%uint64(time.Second), lo, uint64(time.Second)) // hi/1e9 is 0: the seconds fit 64 bits
	sec, nsec := int64(q), int64(r)
	if units < 0 {
		sec = -sec // -2^63 stays itself: the right value
		if nsec > 0 {
			sec, nsec = sec-1, int64(time.Second)-nsec
		}
	}
	return time.Unix(sec, nsec).UTC()
}

// TimeSource is this file, from which gen.Go takes the functions above.
//
//go:embed time.go
var TimeSource string

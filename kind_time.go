package bitpack

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"time"

	"github.com/bitpack-go/bitpack/internal/rules"
)

// time.Time: its Unix time in units of unit= (a Go duration), an integer
// of range= or bits= over those units (signed: before 1970 is negative),
// rounded to the nearest unit, half away from zero, as unit= rounds a
// time.Duration's. Its wire is a signed integer's; decoding gives the UTC
// time.Time that many units after the Unix epoch, with no monotonic
// reading. The zero time.Time is a time like any other: January 1 of year
// 1, UTC, 62135596800 seconds before the epoch, which a field's range
// holds or not (encoding refuses or clamps it then, like any time). The
// arithmetic is exact over every time.Time: no conversion through
// float64, nor through int64 nanoseconds, which end in 2262: package
// rules' UnixUnits and TimeOfUnits, which generated Go code repeats.
//
// A time is not a fixed-width kind: its Go value (wall clock, monotonic
// reading, location) is not its code, so the programs leave it to encodeOp
// and decodeOp, commit copies it as a time.Time, and its delta is a
// fixed-width field's, by its code (encodeScalarDelta, decodeScalarDelta),
// through fieldCode and storeScalar.

var (
	timeType = reflect.TypeFor[time.Time]()
	timeKind = kindFuncs{name: "time", describe: describeTime, schema: schemaTime, maxBits: fixedBits, minBits: fixedBits}

	// unixToInternal is how many seconds year 1 is before 1970: time.Unix
	// adds it to its seconds, and Time.Unix subtracts it, so Unix seconds
	// past math.MaxInt64 - unixToInternal are no time.Time's.
	unixToInternal = -time.Time{}.Unix()
)

// appendTime compiles a time.Time: unit= and range= or bits= (over those
// units) are required.
func (c *compiler) appendTime(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	if !f.inherited && !only(o, func(r *tagOptions) {
		r.rangeSet, r.rangeLo, r.rangeHi, r.bitsSet, r.bits, r.clamp, r.unit = false, "", "", false, 0, false, ""
	}) {
		return nil, f.notApplicable(o, t)
	}
	if o.unit == "" {
		return nil, f.tagged(o, "time.Time travels as its Unix time in units of unit= (a Go duration), bounded by range= or bits= in those units: e.g. bits:\"unit=1ms,range=0..4102444800000\" (1970 to 2100 in milliseconds)")
	}
	u, err := parseUnit(o.unit, durationType)
	if err != nil {
		return nil, f.tagged(o, "%v", err)
	}
	if f.use != nil {
		f.use.ints = true
	}
	base.kind, base.typ, base.size, base.access, base.unit, base.clamp = KindTime, t, t.Size(), accSlow, u, o.clamp
	node := &Field{Type: t, Kind: KindTime, Unit: u, Clamp: o.clamp}
	if err := intBounds(&base, node, o, f, t, true, 64); err != nil {
		return nil, err
	}
	if err := timeFits(&base); err != nil {
		return nil, f.tagged(o, "%v", err)
	}
	node.Bits = base.bits
	*ops = append(*ops, base)
	return node, nil
}

// timeFits checks that every value the field o can carry is a time.Time:
// its Unix seconds, floor(units × unit / 1s), from math.MinInt64 to
// math.MaxInt64 - unixToInternal (time.Unix's, and Time.Unix's without
// wrapping). Decoding relies on it.
func timeFits(o *op) error {
	lo, hi := int64(o.min), int64(o.min+o.limit)
	secs := func(units int64) *big.Int {
		ns := new(big.Int).Mul(big.NewInt(units), big.NewInt(o.unit))
		return ns.Div(ns, big.NewInt(int64(time.Second))) // Euclidean: the floor for a positive divisor
	}
	if secs(lo).Cmp(big.NewInt(math.MinInt64)) < 0 || secs(hi).Cmp(big.NewInt(math.MaxInt64-unixToInternal)) > 0 {
		return fmt.Errorf("values [%d, %d] in units of %s are not all time.Time's: Unix seconds must be within [%d, %d]",
			lo, hi, unitText(o.unit, durationType), int64(math.MinInt64), math.MaxInt64-unixToInternal)
	}
	return nil
}

// timeFieldCode codes the time field o at at, or clamps it, or words its
// refusal.
func timeFieldCode(o *op, at pointer) (uint64, *fieldError) {
	t := *at.time()
	units, neg, ok := rules.UnixUnits(t, o.unit)
	if ok {
		if code, in := intCode(uint64(units), o.min, o.limit, o.flip); in {
			return code, nil
		}
		neg = units < int64(o.min)
	}
	if o.clamp { // to the nearer bound
		if neg {
			return o.flip, nil // code 0
		}
		return o.limit ^ o.flip, nil
	}
	lo, hi, unit := int64(o.min), int64(o.min+o.limit), unitText(o.unit, durationType)
	if !ok {
		return 0, newFieldError(o.path, -1, ErrRange, "value %s is beyond ±2^63 units of %s, out of range [%d, %d]", t.UTC(), unit, lo, hi)
	}
	return 0, newFieldError(o.path, -1, ErrRange, "value %s is %d units of %s, out of range [%d, %d]", t.UTC(), units, unit, lo, hi)
}

// storeTime checks the code c read at bit for the time field o and stores
// its time at at.
func storeTime(o *op, c uint64, at pointer, bit int) *fieldError {
	if c > o.limit {
		return newFieldError(o.path, bit, ErrRange, "value %d out of range [%d, %d]", int64(o.min+c), int64(o.min), int64(o.min+o.limit))
	}
	*at.time() = rules.TimeOfUnits(int64(c^o.flip+o.min), o.unit)
	return nil
}

func decodeTime(d *decoder, o *op, at pointer, start, _ int) *fieldError {
	c := d.r.ReadBits(o.bits)
	if d.r.Err() != nil {
		return nil // decodeOp words it
	}
	return storeTime(o, c, at, start)
}

// commitTime copies a time: a time.Time holds a pointer (its location).
func commitTime(_ *op, d, s pointer) { *d.time() = *s.time() }

// Layout.

func describeTime(f *Field) string {
	s := fmt.Sprintf("Unix time, int %d bits (two's complement)", f.Bits)
	if f.Ranged {
		s = fmt.Sprintf("Unix time, int [%d, %d]", f.IntMin, f.IntMax)
	}
	s += " × " + unitText(f.Unit, durationType)
	if f.Clamp {
		s += " clamp"
	}
	return s
}

// schemaTime writes t, then the integer's production with its unit (in
// nanoseconds).
func schemaTime(s *schemaWriter, f *Field) {
	s.write("t")
	switch {
	case f.Ranged:
		s.write("r" + strconv.FormatInt(f.IntMin, 10) + ".." + strconv.FormatInt(f.IntMax, 10))
	default:
		s.write("i" + strconv.Itoa(f.Bits))
	}
	s.write("*" + strconv.FormatInt(f.Unit, 10))
}

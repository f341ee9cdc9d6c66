package gen

import (
	"math"
	"math/rand"
	"reflect"
	"time"

	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/internal/rules"
	"github.com/leanovate/gopter"
)

// The table's time.Time values (Stamps): how they are drawn, and what a
// client, which holds a time as its count of units, holds for one.

// stampsGen draws valid Stamps: each time within its field's range (the
// clamped Near anywhere, now and then), in UTC, in another zone or with a
// monotonic reading, none of which travels; with offsets, up to half a
// unit off a whole number of units (which rounds back), else at whole
// units, where every client's count stands for the very time Go holds
// (as the cross-language corpus needs, to compare refusals word for
// word).
func stampsGen(offsets bool) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		r := p.Rng
		in := func(lo, hi int64, unit time.Duration) time.Time {
			if offsets {
				return timeIn(r, lo, hi, unit)
			}
			return wholeTimeIn(r, lo, hi, unit)
		}
		v := Stamps{
			At:   in(0, 4102444800000, time.Millisecond),
			Born: in(-62135596800, 4102444800, time.Second),
			Deep: in(-9007199254740993, 4102444800, time.Second),
			Tick: in(-128, 127, time.Hour),
			Fine: in(math.MinInt64, math.MaxInt64, time.Nanosecond),
			Near: in(-1000, 1000, 1500*time.Millisecond),
			Pair: [2]time.Time{in(-1<<39, 1<<39-1, time.Microsecond), in(-1<<39, 1<<39-1, time.Microsecond)},
		}
		if r.Intn(4) == 0 { // Near is clamped: any time (the zero time.Time, 2^40 units, -5000 units)
			v.Near = in([]int64{-41423731200, 1 << 40, -5000}[r.Intn(3)], 0, 1500*time.Millisecond)
		}
		for n := r.Intn(5) - 1; n > 0; n-- {
			v.Log = append(v.Log, in(0, 4102444800, time.Second))
		}
		if r.Intn(2) == 0 {
			t := in(-5000, 5000, time.Millisecond)
			v.Opt = &t
		}
		return gopter.NewGenResult(v, gopter.NoShrinker)
	}
}

// epochsGen draws valid Epochs as stampsGen draws Stamps: each time
// within its field's range; the clamped ones (Ns, Big, High) now and then
// anywhere a time.Time is (the zero time.Time, the latest Unix second,
// 1970), or a unit past their ends.
func epochsGen(offsets bool) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		r := p.Rng
		in := func(lo, hi int64, unit time.Duration) time.Time {
			if offsets {
				return timeIn(r, lo, hi, unit)
			}
			return wholeTimeIn(r, lo, hi, unit)
		}
		latest := math.MaxInt64 + time.Time{}.Unix()
		v := Epochs{
			Edge: in(math.MinInt64, latest, time.Second),
			Ns:   in(math.MinInt64, math.MaxInt64, time.Nanosecond),
			Big:  in(-4, 3, math.MaxInt64),
			One:  in(5, 5, time.Hour),
			Low:  in(math.MinInt64, -9223372036854775000, time.Millisecond),
			High: in(9223372036854775000, math.MaxInt64, time.Microsecond),
			Odd:  in(-3074457345618258602, 3074457345618258602, 3),
			Slow: in(-9223372027631403780, 9223371965495807042, time.Second+1),
			Safe: in(-1<<53, 1<<53, time.Millisecond),
		}
		// The clamped fields anywhere: year 1, 1970, the latest time.Time,
		// a unit past each end (where there is one).
		far := func(t time.Time, unit time.Duration, past ...int64) time.Time {
			switch k := r.Intn(8); {
			case k == 0:
				return time.Time{}
			case k == 1:
				return time.Unix(0, 0)
			case k == 2:
				return time.Unix(latest, 0)
			case k-3 < len(past):
				return in(past[k-3], past[k-3], unit)
			}
			return t
		}
		v.Ns = far(v.Ns, time.Nanosecond)
		v.Big = far(v.Big, math.MaxInt64, -5, 4)
		v.High = far(v.High, time.Microsecond, 9223372036854774999)
		return gopter.NewGenResult(v, gopter.NoShrinker)
	}
}

// timeBoxesGen draws valid TimeBoxes: whole units, each container of
// every length it takes (ByKey's times now and then past its clamped
// range).
func timeBoxesGen() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		r := p.Rng
		v := TimeBoxes{Emb: TimeEmbed{Time: wholeTimeIn(r, 0, 100, time.Second), N: int8(r.Uint32())}}
		if r.Intn(3) > 0 {
			t := wholeTimeIn(r, 0, 1000, time.Millisecond)
			pt := &t
			v.PP = &pt
			if r.Intn(3) == 0 {
				v.PP = new(*time.Time)
			}
		}
		for n := r.Intn(3); n > 0; n-- {
			var row []time.Time
			for k := r.Intn(3); k > 0; k-- {
				row = append(row, wholeTimeIn(r, -5, 5, time.Second))
			}
			v.Rows = append(v.Rows, row)
		}
		if n := r.Intn(4); n > 0 || r.Intn(2) == 0 {
			v.ByKey = map[uint8]time.Time{}
			for ; n > 0; n-- {
				v.ByKey[uint8(r.Intn(8))] = wholeTimeIn(r, -3, 13, time.Second)
			}
		}
		for n := r.Intn(5); n > 0; n-- {
			var t *time.Time
			if r.Intn(2) == 0 {
				x := wholeTimeIn(r, 0, 10, time.Second)
				t = &x
			}
			v.Slots = append(v.Slots, t)
		}
		if n := r.Intn(3); n > 0 {
			v.Hours = map[int8][]time.Time{}
			for ; n > 0; n-- {
				var ts []time.Time
				for k := r.Intn(3); k > 0; k-- {
					ts = append(ts, wholeTimeIn(r, -8, 7, time.Hour))
				}
				v.Hours[int8(r.Intn(5)-2)] = ts
			}
		}
		return gopter.NewGenResult(v, gopter.NoShrinker)
	}
}

// wholeTimeIn is timeIn at a whole number of units.
func wholeTimeIn(r *rand.Rand, lo, hi int64, unit time.Duration) time.Time {
	t := timeIn(r, lo, hi, unit)
	units, _, _ := rules.UnixUnits(t, int64(unit))
	return rules.TimeOfUnits(units, int64(unit)).In(t.Location())
}

// timeIn draws a time of lo to hi units of unit since 1970 (either bound
// or 0 often, lo alone when hi is below it), up to half a unit off a
// whole one (less than half: Go rounds it back to the whole one).
func timeIn(r *rand.Rand, lo, hi int64, unit time.Duration) time.Time {
	hi = max(hi, lo)
	k := int64(r.Uint64()) // the whole of int64
	if span := uint64(hi - lo); span != math.MaxUint64 {
		k = lo + int64(r.Uint64()%(span+1))
	}
	switch r.Intn(8) {
	case 0:
		k = lo
	case 1:
		k = hi
	case 2:
		k = min(max(0, lo), hi)
	}
	t := rules.TimeOfUnits(k, int64(unit))
	if half := (int64(unit) - 1) / 2; half > 0 && r.Intn(2) == 0 {
		// Not past the earliest or latest time.Time, whose units Go cannot count.
		if off := t.Add(time.Duration(r.Int63n(2*half+1) - half)); sameUnits(off, k, unit) {
			t = off
		}
	}
	switch r.Intn(4) {
	case 0:
		t = t.In(time.FixedZone("IST", 5*3600+1800))
	case 1: // a monotonic reading, where the time is near enough to now
		now := time.Now()
		if m := now.Add(t.Sub(now)); m.Equal(t) {
			t = m
		}
	}
	return t
}

// timeCount is the count of units a client holds for time rv of v: its
// Unix time in units, rounded as Go rounds it (saturated beyond int64,
// where no client has the time).
func timeCount(v *model.Value, rv reflect.Value) int64 {
	units, neg, ok := rules.UnixUnits(rv.Interface().(time.Time), v.Unit)
	switch {
	case ok:
		return units
	case neg:
		return math.MinInt64
	}
	return math.MaxInt64
}

// wholeUnits reports whether time rv of v is a whole number of its units
// since 1970, so that a client's count stands for the very time Go
// holds, and one every client holds (countHeld).
func wholeUnits(v *model.Value, rv reflect.Value) bool {
	t := rv.Interface().(time.Time)
	units, _, ok := rules.UnixUnits(t, v.Unit)
	return ok && rules.TimeOfUnits(units, v.Unit).Equal(t) && countHeld(v, units)
}

// countHeld reports whether every client holds units as a count of v:
// a JavaScript number holds it exactly where the field is a number (a
// range within ±2^53 units: TypeScript's rule).
func countHeld(v *model.Value, units int64) bool {
	lo, hi, _ := model.IntBounds(v)
	number := lo >= -(1<<53) && hi <= 1<<53
	return !number || units >= -(1<<53) && units <= 1<<53
}

// sameUnits reports whether Go counts t as k units of unit.
func sameUnits(t time.Time, k int64, unit time.Duration) bool {
	units, _, ok := rules.UnixUnits(t, int64(unit))
	return ok && units == k
}

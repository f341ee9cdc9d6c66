package rules

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"
)

// bigUnits is UnixUnits' answer by math/big: (sec×1e9 + nsec) / u rounded
// to the nearest, half away from zero, and whether it fits int64.
func bigUnits(sec int64, nsec int32, u int64) (int64, bool) {
	ns := new(big.Int).Mul(big.NewInt(sec), big.NewInt(1e9))
	ns.Add(ns, big.NewInt(int64(nsec)))
	neg := ns.Sign() < 0
	ns.Abs(ns)
	q, r := new(big.Int).QuoRem(ns, big.NewInt(u), new(big.Int))
	if r.Mul(r, big.NewInt(2)).Cmp(big.NewInt(u)) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q.Int64(), q.IsInt64()
}

// TestUnixUnits holds UnixUnits and TimeOfUnits to math/big over the whole
// span of time.Time (Unix seconds from math.MinInt64 to the largest a
// time.Time has), at the edges of int64 units, and for units from 1ns to
// the largest duration.
func TestUnixUnits(t *testing.T) {
	units := []int64{1, 3, 7, 1000, int64(time.Millisecond), 999_999_999, int64(time.Second), 1_000_000_001, int64(time.Hour), 1 << 40, math.MaxInt64}
	unixToInternal := -time.Time{}.Unix() // year 1 is that many seconds before 1970
	top := math.MaxInt64 - unixToInternal
	secs := []int64{0, -1, 1, math.MinInt64, math.MinInt64 + 1, top, top - 1, -unixToInternal, 1 << 33, -(1 << 33), math.MaxInt64 / 1_000_000_000, math.MinInt64 / 1_000_000_000, math.MinInt64/1_000_000_000 - 1}
	r := rand.New(rand.NewPCG(1, 31))
	for range 2000 {
		secs = append(secs, int64(r.Uint64()), r.Int64N(1<<34)-1<<33)
	}
	nsecs := []int32{0, 1, 499_999_999, 500_000_000, 500_000_001, 999_999_999}
	checked := 0
	for _, sec := range secs {
		if sec > top {
			sec = top
		}
		for _, ns := range append(nsecs, int32(r.IntN(1e9))) {
			tm := time.Unix(sec, int64(ns))
			if tm.Unix() != sec {
				t.Fatalf("time.Unix(%d, %d).Unix() = %d", sec, ns, tm.Unix())
			}
			for _, u := range units {
				want, fits := bigUnits(sec, ns, u)
				got, neg, ok := UnixUnits(tm.In(time.FixedZone("z", 3600)), u)
				if ok != fits || ok && got != want || !ok && neg != (sec < 0) {
					t.Fatalf("UnixUnits(%d s %d ns, %d) = %d, %v, %v; want %d, %v", sec, ns, u, got, neg, ok, want, fits)
				}
				if !ok {
					continue
				}
				checked++
				// Back: the time of those units, if its seconds are a
				// time.Time's (what bitpack's timeFits makes sure of for a field).
				back := new(big.Int).Mul(big.NewInt(got), big.NewInt(u))
				bs, bn := new(big.Int).DivMod(back, big.NewInt(1e9), new(big.Int))
				if !bs.IsInt64() || bs.Int64() > top {
					continue
				}
				if tb := TimeOfUnits(got, u); tb != time.Unix(bs.Int64(), bn.Int64()).UTC() {
					t.Fatalf("TimeOfUnits(%d, %d) = %v; want %v", got, u, tb, time.Unix(bs.Int64(), bn.Int64()).UTC())
				}
			}
		}
	}
	// 3 × (2^64 - 1) + 2 ns: a quotient of 2^64 - 1 in units of 3 ns that
	// rounds up past 64 bits.
	if got, neg, ok := UnixUnits(time.Unix(55340232221, 128654847), 3); ok || neg {
		t.Fatalf("a quotient rounding past 64 bits: %d, %v, %v", got, neg, ok)
	}
	if checked < 100000 {
		t.Fatalf("only %d cases in int64", checked)
	}
	// Times before Unix second math.MinInt64, whose Unix wraps (Add
	// saturates at the earliest time.Time): beyond int64 of any unit.
	early := time.Unix(math.MinInt64, 0)
	for range 40 {
		early = early.Add(math.MinInt64)
	}
	if early.Unix() <= top {
		t.Fatalf("%v: Unix %d does not wrap", early, early.Unix())
	}
	for _, u := range units {
		if _, neg, ok := UnixUnits(early, u); ok || !neg {
			t.Fatalf("a time before Unix second math.MinInt64, unit %d: ok %v, neg %v", u, ok, neg)
		}
	}
}

package bitpack

import (
	"math"
	"math/bits"

	"github.com/bitpack-go/bitpack/internal/rules"
)

// Sizes: the fewest and most bits a value can take — for the decoder's
// checks before it allocates (plan.minBits) and for Describe — with each
// kind's own rule (the kinds table's minBits and maxBits), and the one set
// of saturating helpers every size, count and allowance charge uses.

// saturated caps sizes, counts and charges: far above anything real (a
// quarter of int64's range), so that a sum of a few never overflows.
const saturated = rules.Saturated

// satAdd and satMul are + and × on non-negative sizes, saturating.
func satAdd(a, b int64) int64 { return min(a+b, saturated) } // a, b <= saturated: no overflow

func satMul(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > saturated {
		return saturated
	}
	return int64(lo)
}

// unbounded is what a size at or beyond saturated, or beyond what an int
// holds on this platform, becomes in an int: no finite bound (MinBits),
// reported as -1 (MaxBits).
const unbounded = math.MaxInt / 4

func sizeInt(v int64) int {
	if v >= unbounded {
		return unbounded
	}
	return int(v)
}

// relativeBits is the size of int_relative for a difference d >= 1.
func relativeBits(d int) int64 {
	switch {
	case d == 1:
		return 1
	case d <= 6:
		return 2 + 3
	case d <= 23:
		return 3 + 5
	case d <= 280:
		return 4 + 9
	case d <= 4377:
		return 5 + 13
	case d <= 69914:
		return 6 + 17
	}
	return 6 + 32
}

// fixedBits is the size of a fixed-width field: its Bits.
func fixedBits(f *Field, _ func(*Field) int64) int64 { return int64(f.Bits) }

// maxOf returns the most bits f takes, memoised in max. A node that
// reaches a node still on the stack is on a cycle (that node reaches it
// back), and a cycle repeats without bound: its maximum is saturated, so
// the memoised value is final even when computed mid-cycle.
func maxOf(f *Field, onStack map[*Field]bool, max map[*Field]int64) int64 {
	if v, ok := max[f]; ok {
		return v
	}
	if onStack[f] {
		return saturated
	}
	onStack[f] = true
	defer delete(onStack, f)
	v := kinds[f.Kind].maxBits(f, func(c *Field) int64 { return maxOf(c, onStack, max) })
	max[f] = v
	return v
}

// minsOf returns the fewest bits each node reachable from root takes.
// Unlike the maximum, a minimum can be finite across a cycle (a union
// member that contains the union: the smallest value picks the cheapest
// member), and a value computed mid-cycle would be a guess, so the minima
// are the fixpoint of the kinds' minBits over the whole graph, approached
// from above: every node starts at saturated and only ever decreases.
// Pointers and slices take their smallest form, nil and empty, so only
// arrays, structs and unions look inside. A union whose members are not
// attached (a plan's own tree: see layoutOf) counts its index only.
func minsOf(root *Field) map[*Field]int64 {
	var nodes []*Field
	est := map[*Field]int64{}
	var collect func(f *Field)
	collect = func(f *Field) {
		if _, seen := est[f]; f == nil || seen {
			return
		}
		est[f] = saturated
		collect(f.Elem)
		collect(f.Key)
		for _, c := range f.Fields {
			collect(c)
		}
		for _, m := range f.Members {
			collect(m)
		}
		nodes = append(nodes, f) // children first: one round settles a tree
	}
	collect(root)
	get := func(f *Field) int64 { return est[f] }
	for range len(nodes) + 1 {
		changed := false
		for _, f := range nodes {
			if v := kinds[f.Kind].minBits(f, get); v < est[f] {
				est[f], changed = v, true
			}
		}
		if !changed {
			break
		}
	}
	return est
}

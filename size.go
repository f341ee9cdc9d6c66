package bitpack

import (
	"math"
)

// Sizes: the fewest and most bits a value can take, for the decoder's
// checks before it allocates and for Describe.

// minBits is the fewest bits a value of p can take: fixed-width fields,
// length prefixes, presence bits, byte blocks (alignment counts as 0).
// Decoding checks it before allocating elements, so a length prefix cannot
// make it allocate more than the rest of the packet could hold.
//
// The sums saturate at maxMinBits, so that huge arrays cannot overflow an
// int (on 32-bit platforms a [1<<29]byte already takes 2^32 bits).
func minBits(p *plan) int {
	n := 0
	add := func(bits int) { n = min(n+bits, maxMinBits) } // both <= maxMinBits: no overflow
	for i := range p.ops {
		o := &p.ops[i]
		switch o.kind {
		case KindByteArray:
			add(mulMinBits(o.n, 8))
		case KindArray:
			add(mulMinBits(o.n, o.elem.minBits)) // finished first (see finish)
		case KindSparse:
			add(o.bits + 1) // length prefix (slices), end marker
		case KindCustom:
		default: // scalars; length prefixes; presence bits; quats; checks; union indices
			add(o.bits)
		}
	}
	return n
}

// maxMinBits caps minBits: more than any packet can hold.
const maxMinBits = math.MaxInt / 4

func mulMinBits(n, bits int) int {
	if bits != 0 && n > maxMinBits/bits {
		return maxMinBits
	}
	return n * bits
}

// unbounded caps size arithmetic: anything larger counts as unbounded
// (and the sums below cannot overflow int, even on 32-bit platforms).
const unbounded = math.MaxInt / 4

// computeCost fills MaxBits of f and everything below it. A node that
// reaches a node still on the stack is on a cycle (that node reaches it
// back), and a cycle repeats without bound: its maximum is -1, so the
// memoised value is final even when computed mid-cycle.
func computeCost(f *Field, onStack map[*Field]bool) (max int) {
	if f.costed {
		return f.MaxBits
	}
	if onStack[f] {
		return -1
	}
	onStack[f] = true
	defer delete(onStack, f)
	max = kinds[f.Kind].maxBits(f, func(c *Field) int { return computeCost(c, onStack) })
	f.MaxBits, f.costed = max, true
	return max
}

// computeMins fills MinBits of f and everything below it. Unlike the
// maximum, a minimum can be finite across a cycle (a union member that
// contains the union: the smallest value picks the cheapest member), and a
// value computed mid-cycle would be a guess, so the minima are the
// fixpoint of minBitsOf over the whole graph, approached from above: every
// node starts at unbounded and only ever decreases.
func computeMins(root *Field) {
	var nodes []*Field
	seen := map[*Field]bool{}
	var collect func(f *Field)
	collect = func(f *Field) {
		if f == nil || f.minDone || seen[f] {
			return
		}
		seen[f] = true
		collect(f.Elem)
		for _, c := range f.Fields {
			collect(c)
		}
		for _, m := range f.Members {
			collect(m)
		}
		nodes = append(nodes, f) // children first: one round settles a tree
	}
	collect(root)
	est := make(map[*Field]int, len(nodes))
	for _, f := range nodes {
		est[f] = unbounded
	}
	get := func(f *Field) int {
		if f.minDone {
			return f.MinBits
		}
		return est[f]
	}
	for range len(nodes) + 1 {
		changed := false
		for _, f := range nodes {
			if v := minBitsOf(f, get); v < est[f] {
				est[f], changed = v, true
			}
		}
		if !changed {
			break
		}
	}
	for _, f := range nodes {
		f.MinBits, f.minDone = est[f], true
	}
}

// minBitsOf is the fewest bits f takes given its children's minima
// (unbounded: no finite value). Pointers and slices take their smallest
// form, nil and empty, so only arrays, structs and unions look inside.
func minBitsOf(f *Field, get func(*Field) int) int { return kinds[f.Kind].minBits(f, get) }

// satAdd and satMul are + and × on minima, saturating at unbounded.
func satAdd(a, b int) int { return min(a+b, unbounded) } // a, b <= unbounded: no overflow

func satMul(n, b int) int {
	if n == 0 || b == 0 {
		return 0
	}
	if n > unbounded/b {
		return unbounded
	}
	return n * b
}

// relativeBits is the size of int_relative for a difference d >= 1.
func relativeBits(d int) int {
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

func addBits(a, b int) int {
	if a < 0 || b < 0 || a+b > unbounded {
		return -1
	}
	return a + b
}

func mulBits(n, b int) int {
	if b < 0 {
		if n == 0 {
			return 0
		}
		return -1
	}
	if b != 0 && n > unbounded/b {
		return -1
	}
	return n * b
}

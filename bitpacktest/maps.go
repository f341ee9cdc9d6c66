package bitpacktest

import (
	"cmp"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/bitpack-go/bitpack"
)

// Maps: generation and shrinking. A map's keys are distinct by
// construction, so both draw or shrink keys only onto keys the map does
// not hold.

// fillMap stores a generated map into dst: a count drawn as a slice's
// length, capped by how many distinct keys the key node has (a bool has
// two), then that many distinct keys drawn from the key node, each with a
// generated value. nil and empty both mean "no entries".
func (st *genState) fillMap(n *node, dst reflect.Value) {
	limit := st.cfg.maxElems
	if n.cyclic || n.elem.rank < 0 { // rank < 0: no value has a finite value
		if st.depth >= st.cfg.depth || n.elem.rank < 0 {
			dst.Set(reflect.Zero(n.typ))
			return
		}
		limit = max(1, limit>>(2*st.depth))
	}
	k := min(st.length(n.f.MaxLen, limit), max(st.budget, 0), keySpace(n.key))
	if k == 0 && st.rng.Intn(2) == 0 {
		dst.Set(reflect.Zero(n.typ))
		return
	}
	keys := st.distinctKeys(n.key, k)
	st.budget -= len(keys)
	m := reflect.MakeMapWithSize(n.typ, len(keys))
	st.enter(n)
	for _, key := range keys {
		v := reflect.New(n.elem.typ).Elem()
		st.fill(n.elem, v)
		m.SetMapIndex(key, v)
	}
	st.leave(n)
	dst.Set(m)
}

// keySpace returns how many distinct keys key node n can take in
// generated maps, at most math.MaxInt: the size of its key domain.
func keySpace(n *node) int {
	lo, hi := keyDomain(n)
	if hi-lo >= math.MaxInt {
		return math.MaxInt
	}
	return int(hi-lo) + 1
}

// keyDomain returns the keys distinctKeys may walk through, as a range of
// indices for keyAt: every value of an integer or bool key; for a string
// key "", the 127 one-byte strings and, if its maxlen allows, the 127²
// two-byte ones (ASCII without NUL). Longer strings come from draws only:
// a map has fewer entries than that (the budget of elements caps it).
func keyDomain(n *node) (lo, hi uint64) {
	switch n.kind {
	case bitpack.KindBool:
		return 0, 1
	case bitpack.KindString:
		switch n.f.MaxLen {
		case 0:
			return 0, 0
		case 1:
			return 0, 127
		}
		return 0, 127 + 127*127
	}
	return n.lo, n.hi
}

// keyAt stores the key at index x of n's key domain into v.
func keyAt(n *node, x uint64, v reflect.Value) {
	switch n.kind {
	case bitpack.KindBool:
		v.SetBool(x == 1)
	case bitpack.KindString:
		switch {
		case x == 0:
			v.SetString("")
		case x <= 127:
			v.SetString(string(rune(x)))
		default:
			x -= 128
			v.SetString(string([]byte{byte(1 + x/127), byte(1 + x%127)}))
		}
	case bitpack.KindInt:
		v.SetInt(unord(x))
	default:
		v.SetUint(x)
	}
}

// distinctKeys draws k distinct keys of key node n (k <= keySpace(n)),
// in draw order. Keys come from fill, so they have its edges and variety;
// when draws keep repeating (a small range nearly full), the rest are
// found by walking n's key domain from a random point.
func (st *genState) distinctKeys(n *node, k int) []reflect.Value {
	keys := make([]reflect.Value, 0, k)
	seen := make(map[any]bool, k)
	add := func(v reflect.Value) {
		if !seen[v.Interface()] {
			seen[v.Interface()] = true
			keys = append(keys, v)
		}
	}
	for try := 0; len(keys) < k && try < 4*k+16; try++ {
		v := reflect.New(n.typ).Elem()
		st.fill(n, v)
		add(v)
	}
	// At most len(seen) steps of the walk land on a key already taken.
	lo, hi := keyDomain(n)
	x := st.ordered(lo, hi, lo)
	for len(keys) < k {
		v := reflect.New(n.typ).Elem()
		keyAt(n, x, v)
		add(v)
		if x == hi {
			x = lo
		} else {
			x++
		}
	}
	return keys
}

// mapShrinks: empty (nil), the first and second halves of the entries in
// key order, each entry removed, then each entry (in key order) with its
// key shrunk, and with its value shrunk. A shrunk key the map already
// holds is skipped, so keys stay distinct and no entry is lost to a
// collision.
func mapShrinks(n *node, v reflect.Value) stream {
	k := v.Len()
	if k == 0 {
		if v.IsNil() {
			return none
		}
		return list(reflect.Zero(n.typ)) // empty: nil is the same on the wire, and simpler
	}
	keys := sortedKeys(v)
	// without copies v, leaving out the entries at the key positions skip
	// reports.
	without := func(skip func(i int) bool) reflect.Value {
		c := reflect.MakeMapWithSize(n.typ, k)
		for i, key := range keys {
			if !skip(i) {
				c.SetMapIndex(key, v.MapIndex(key))
			}
		}
		return c
	}
	keep := func(int) bool { return false }
	return concat(
		func() stream {
			if k == 1 {
				return list(reflect.Zero(n.typ))
			}
			return list(reflect.Zero(n.typ),
				without(func(i int) bool { return i >= k/2 }),
				without(func(i int) bool { return i < k/2 }))
		},
		func() stream {
			if k <= 2 {
				return none // the halves were these
			}
			return each(k, func(j int) stream { return list(without(func(i int) bool { return i == j })) })
		},
		func() stream {
			return each(2*k, func(j int) stream {
				key := keys[j/2]
				if j%2 == 1 {
					return mapped(shrinks(n.elem, v.MapIndex(key)), func(e reflect.Value) reflect.Value {
						c := without(keep)
						c.SetMapIndex(key, e)
						return c
					})
				}
				s := shrinks(n.key, key)
				return func() (reflect.Value, bool) {
					for {
						nk, ok := s()
						if !ok {
							return none()
						}
						if v.MapIndex(nk).IsValid() {
							continue // taken
						}
						c := without(func(i int) bool { return i == j/2 })
						c.SetMapIndex(nk, v.MapIndex(key))
						return c, true
					}
				}
			})
		})
}

// sortedKeys returns the keys of map v (integers, strings or bools) in
// the order they travel: ascending, false before true.
func sortedKeys(v reflect.Value) []reflect.Value {
	keys := v.MapKeys()
	slices.SortFunc(keys, compareKeys)
	return keys
}

// compareKeys orders two map keys of one integer, string or bool type.
func compareKeys(a, b reflect.Value) int {
	switch a.Kind() {
	case reflect.String:
		return strings.Compare(a.String(), b.String())
	case reflect.Bool:
		x, y := a.Bool(), b.Bool()
		if x == y {
			return 0
		} else if x {
			return 1
		}
		return -1
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	}
	return cmp.Compare(a.Uint(), b.Uint())
}

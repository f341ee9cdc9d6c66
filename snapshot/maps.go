package snapshot

import (
	"cmp"
	"reflect"
	"slices"
	"unsafe"
)

// Map sets go through reflect (their key and value types are known only at
// run time): each packet, the base's and the world's entries are copied
// into scratch slices (no allocation once they have grown), and when the
// packet changes the map, the target's map is a scratch map refilled from
// them. This costs about a map operation per entry per packet; sparse
// arrays cost a pointer comparison per slot.

// mapState is a map set's scratch space and its entities' state indices.
type mapState struct {
	index map[int64]int32 // key → entState index
	keyOf []int64         // entState index → key
	used  []bool          // entState index → in use
	seen  []uint32        // entState index → the last packet that saw its key
	spare []int32         // unused entState indices
	gen   uint32

	iter         *reflect.MapIter
	key          reflect.Value // addressable scratch key
	bkeys, bvals reflect.Value // the base's entries (slices, len = cap)
	wkeys, wvals reflect.Value // the world's
	bn, wn       int           // entries in them
	bidx         map[int64]int32
	bgone        []bool // base entry j removed
	changed      bool   // the packet changes the map
	tmap         reflect.Value
	base         reflect.Value // the base's map
}

func newMapState(set *entitySet) *mapState {
	t := set.typ
	return &mapState{
		index: map[int64]int32{},
		iter:  new(reflect.MapIter),
		key:   reflect.New(t.Key()).Elem(),
		bkeys: reflect.MakeSlice(reflect.SliceOf(t.Key()), 0, 0),
		bvals: reflect.MakeSlice(reflect.SliceOf(t.Elem()), 0, 0),
		wkeys: reflect.MakeSlice(reflect.SliceOf(t.Key()), 0, 0),
		wvals: reflect.MakeSlice(reflect.SliceOf(t.Elem()), 0, 0),
		bidx:  map[int64]int32{},
	}
}

// keyInt is an integer key as an Entity's Key.
func keyInt(k reflect.Value) int64 {
	if k.CanInt() {
		return k.Int()
	}
	return int64(k.Uint())
}

// gather copies m's entries into keys and vals, growing them, and returns
// how many there are.
func (ms *mapState) gather(m reflect.Value, keys, vals *reflect.Value) int {
	n := 0
	ms.iter.Reset(m)
	for ms.iter.Next() {
		if n == keys.Len() {
			c := max(8, 2*n)
			nk, nv := reflect.MakeSlice(keys.Type(), c, c), reflect.MakeSlice(vals.Type(), c, c)
			reflect.Copy(nk, *keys)
			reflect.Copy(nv, *vals)
			*keys, *vals = nk, nv
		}
		keys.Index(n).SetIterKey(ms.iter)
		vals.Index(n).SetIterValue(ms.iter)
		n++
	}
	ms.iter.Reset(reflect.Value{})
	return n
}

// stateOf returns key's entState index, making one for a new key.
func (s *Sender[T]) stateOf(st *setState, key int64) int32 {
	ms := st.m
	if i, ok := ms.index[key]; ok {
		return i
	}
	var i int32
	if n := len(ms.spare); n > 0 {
		i, ms.spare = ms.spare[n-1], ms.spare[:n-1]
	} else {
		i = int32(len(ms.keyOf))
		ms.keyOf, ms.used, ms.seen = append(ms.keyOf, 0), append(ms.used, false), append(ms.seen, 0)
		st.ents = append(st.ents, entState{})
	}
	ms.index[key] = i
	ms.keyOf[i], ms.used[i], st.ents[i] = key, true, entState{idle: true}
	return i
}

// scanMap scans a map set.
func (s *Sender[T]) scanMap(k int, world, base *T) int {
	set, st := s.sets[k], &s.states[k]
	ms := st.m
	ms.gen++
	ms.base = set.mapOf(ptr(base))
	ms.bn = ms.gather(ms.base, &ms.bkeys, &ms.bvals)
	ms.wn = ms.gather(set.mapOf(ptr(world)), &ms.wkeys, &ms.wvals)
	clear(ms.bidx)
	if cap(ms.bgone) < ms.bn {
		ms.bgone = make([]bool, ms.bn, 2*ms.bn)
	}
	ms.bgone = ms.bgone[:ms.bn]
	for j := range ms.bn {
		ms.bidx[keyInt(ms.bkeys.Index(j))] = int32(j)
		ms.bgone[j] = true // until the world holds it
	}
	rel := s.opts.Relevant
	removed := 0
	first := len(s.cands)
	for j := range ms.wn {
		key := keyInt(ms.wkeys.Index(j))
		i := s.stateOf(st, key)
		ms.seen[i] = ms.gen
		e := &st.ents[i]
		bj, inBase := ms.bidx[key]
		w := ms.wvals.Index(j)
		if set.ptrs && w.IsNil() || rel != nil && !rel(world, Entity{Field: set.path, Key: key}) {
			e.still()
			continue // removed, if the base holds it (bgone stays true)
		}
		if inBase {
			ms.bgone[bj] = false
			b := ms.bvals.Index(int(bj))
			if !set.ptrs || !b.IsNil() {
				if set.cmp != nil && set.cmp.equal(valuePtr(set, w), valuePtr(set, b)) {
					e.still()
					continue
				}
			}
		}
		s.cands = append(s.cands, cand{set: int32(k), state: i, slot: int32(j), enter: !inBase, key: key})
	}
	// In key order, not the map's: what the Sender does must not depend
	// on the order a map hands out its entries (the sums of expected bits
	// are rounded in the order they are added).
	slices.SortFunc(s.cands[first:], func(a, b cand) int { return cmp.Compare(a.key, b.key) })
	for j := range ms.bn {
		if ms.bgone[j] {
			removed++
		}
	}
	ms.changed = removed > 0
	// Keys neither the world nor the base holds any more give their state
	// back.
	for i, used := range ms.used {
		if used && ms.seen[i] != ms.gen {
			if _, inBase := ms.bidx[ms.keyOf[i]]; !inBase {
				delete(ms.index, ms.keyOf[i])
				ms.used[i] = false
				ms.spare = append(ms.spare, int32(i))
			}
		}
	}
	s.setMap(set, ms.base)
	return removed
}

// valuePtr returns the address of the entity a map value holds: the
// pointee of a pointer, else the value itself (an element of a scratch
// slice, so addressable).
func valuePtr(set *entitySet, v reflect.Value) unsafe.Pointer {
	if set.ptrs {
		return v.UnsafePointer()
	}
	return v.Addr().UnsafePointer()
}

// setMap makes m the target's map of set.
func (s *Sender[T]) setMap(set *entitySet, m reflect.Value) {
	set.mapOf(ptr(&s.target)).Set(m)
}

// buildMaps makes the target's map of every map set the packet changes:
// the base's entries but those removed, with the chosen world entries.
func (s *Sender[T]) buildMaps() {
	for k, set := range s.sets {
		if set.kind != setMap {
			continue
		}
		ms := s.states[k].m
		changed := ms.changed
		for i := range s.cands {
			if c := &s.cands[i]; c.chosen && int(c.set) == k {
				changed = true
				break
			}
		}
		if !changed {
			s.setMap(set, ms.base)
			continue
		}
		if !ms.tmap.IsValid() {
			ms.tmap = reflect.MakeMapWithSize(set.typ, ms.bn)
		}
		ms.tmap.Clear()
		for j := range ms.bn {
			if !ms.bgone[j] {
				ms.tmap.SetMapIndex(ms.bkeys.Index(j), ms.bvals.Index(j))
			}
		}
		for i := range s.cands {
			if c := &s.cands[i]; c.chosen && int(c.set) == k {
				ms.tmap.SetMapIndex(ms.wkeys.Index(int(c.slot)), ms.wvals.Index(int(c.slot)))
			}
		}
		s.setMap(set, ms.tmap)
	}
}

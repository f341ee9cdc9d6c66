package snapshot

import (
	"unsafe"
)

// A packet's target view is built shallow, in s.target: the world's
// non-entity fields (a struct copy: the delta encoder only reads them),
// and for each entity set the base's entities — the same pointers, which
// the delta encoder passes over with one comparison — except that
// entities gone from the world or from relevance are removed, and the
// entities chosen for the packet point at the world's. The client's view
// is the decoded packet, so what the target points at is quantized on
// the way; the Sender decodes the same packet when the client acknowledges
// it (Ack), and so holds exactly the client's view.

// setState is what a Sender keeps per entity set: each entity's priority
// accumulator and memo, and the scratch space of its target.
type setState struct {
	set  *entitySet
	ents []entState // by slot (arrays, slices) or by state index (maps)

	// The memo (memo sets only): for each entity, the raw value the
	// Sender last saw acknowledged and the value it decoded to. A world
	// entity whose raw value is the memo's, over a base holding the
	// memo's decoded value, has not changed for the client: this is how
	// an unquantized world's still entities are told from moving ones
	// without quantizing them.
	memoRaw, memoQ []byte
	// raw: a memo pair differed (the world is not quantized). Until one
	// does, a packet records the raw value of one entity only, to find
	// out: over a quantized world the memo decides nothing (a raw value
	// is its decoded value, and the first comparison finds it).
	raw     bool
	sampled uint64 // the packet that recorded this set's sample

	tslots []unsafe.Pointer // slices: the target's slice

	m *mapState // maps
}

// entState is one entity's state.
type entState struct {
	acc   float64 // accumulated priority while it waits
	since uint16  // the last packet after which the client's value was current: it carried it, or the entity had not changed
	idle  bool    // it was no candidate in the last packet (since is then that packet's predecessor, when it next changes)
	memo  bool    // memoRaw and memoQ hold a pair
}

// still marks an entity that waits for nothing (written only when that
// is news: most entities are still packet after packet).
func (e *entState) still() {
	if !e.idle || e.acc != 0 {
		e.acc, e.idle = 0, true
	}
}

func (st *setState) init(set *entitySet) {
	st.set = set
	if set.kind == setMap {
		st.m = newMapState(set)
	} else if set.kind == setArray {
		st.grow(set.n)
	}
}

// grow makes room for n entities.
func (st *setState) grow(n int) {
	if n <= len(st.ents) {
		return
	}
	n = max(n, 2*len(st.ents))
	for range n - len(st.ents) {
		st.ents = append(st.ents, entState{idle: true})
	}
	if st.set.memo {
		size := int(st.set.size)
		st.memoRaw = append(st.memoRaw, make([]byte, n*size-len(st.memoRaw))...)
		st.memoQ = append(st.memoQ, make([]byte, n*size-len(st.memoQ))...)
	}
}

// memoAt returns the address of entity i's memo in b.
func (st *setState) memoAt(b []byte, i int) unsafe.Pointer {
	return unsafe.Pointer(&b[i*int(st.set.size)])
}

func (st *setState) reset() {
	for i := range st.ents {
		st.ents[i] = entState{idle: true, memo: st.ents[i].memo}
	}
}

// cand is an entity that differs from the base (and is relevant): it goes
// in this packet or waits.
type cand struct {
	set    int32
	state  int32 // its entState
	slot   int32 // arrays and slices: its slot; maps: its world value's index
	enter  bool  // absent from the base: it travels whole
	chosen bool
	acc    float64 // its accumulated priority, this packet's included
	est    float64 // the bits it is expected to take (budget.go)
	key    int64
}

// scan fills s.target for every entity set and lists the candidates in
// s.cands; it returns the number of entities removed.
func (s *Sender[T]) scan(world, base *T) int {
	s.target = *world
	s.cands = s.cands[:0]
	removed := 0
	for k, set := range s.sets {
		if set.kind == setMap {
			removed += s.scanMap(k, world, base)
		} else {
			removed += s.scanSlots(k, world, base)
		}
	}
	return removed
}

// scanSlots scans a sparse array or slice set.
func (s *Sender[T]) scanSlots(k int, world, base *T) int {
	set, st := s.sets[k], &s.states[k]
	ws, bs := set.slots(ptr(world)), set.slots(ptr(base))
	var ts []unsafe.Pointer
	removed := 0
	if set.kind == setArray {
		ts = set.slots(ptr(&s.target))
		copy(ts, bs)
	} else {
		n := len(ws)
		if cap(st.tslots) < n {
			st.tslots = make([]unsafe.Pointer, n, max(n, 2*cap(st.tslots)))
		}
		ts = st.tslots[:n]
		clear(ts[copy(ts, bs):])
		set.setSlots(ptr(&s.target), ts)
		for _, b := range bs[min(n, len(bs)):] {
			if b != nil {
				removed++ // the slice shrank past it
			}
		}
		st.grow(n)
	}
	rel := s.opts.Relevant
	for i, w := range ws {
		var b unsafe.Pointer
		if i < len(bs) {
			b = bs[i]
		}
		e := &st.ents[i]
		if w == nil || rel != nil && !rel(world, Entity{Field: set.path, Key: int64(i)}) {
			if b != nil {
				ts[i] = nil
				removed++
			}
			e.still()
			continue
		}
		if b != nil && (b == w || set.cmp != nil && set.cmp.equal(w, b) ||
			e.memo && set.cmp.equal(w, st.memoAt(st.memoRaw, i)) && set.cmp.equal(b, st.memoAt(st.memoQ, i))) {
			e.still()
			continue
		}
		s.cands = append(s.cands, cand{set: int32(k), state: int32(i), slot: int32(i), enter: b == nil, key: int64(i)})
	}
	return removed
}

// choose puts candidate c in the packet, or takes it out.
func (s *Sender[T]) choose(c *cand, world *T, in bool) {
	c.chosen = in
	set := s.sets[c.set]
	if set.kind == setMap {
		return // the map is built when the packet is encoded (buildMaps)
	}
	ts := set.slots(ptr(&s.target))
	if in {
		ts[c.slot] = set.slots(ptr(world))[c.slot]
	} else if c.enter {
		ts[c.slot] = nil
	} else {
		ts[c.slot] = s.baseSlot(set, c.slot)
	}
}

// baseSlot returns slot i of the current base's set.
func (s *Sender[T]) baseSlot(set *entitySet, i int32) unsafe.Pointer {
	if s.base == nil {
		return nil
	}
	return set.slots(ptr(&s.base.v))[i]
}

// remember records, for a packet just built, the raw values of the memo
// entities it carried.
func (s *Sender[T]) remember(r *record[T], world *T) {
	r.sent, r.raw = r.sent[:0], r.raw[:0]
	for i := range s.cands {
		c := &s.cands[i]
		set, st := s.sets[c.set], &s.states[c.set]
		if !c.chosen || !set.memo {
			continue
		}
		if !st.raw {
			if st.sampled == s.stats.Packets+1 {
				continue
			}
			st.sampled = s.stats.Packets + 1
		}
		p := set.slots(ptr(world))[c.slot]
		r.sent = append(r.sent, sentEntity{set: c.set, state: c.state, slot: c.slot, raw: int32(len(r.raw))})
		r.raw = append(r.raw, unsafe.Slice((*byte)(p), set.size)...)
	}
}

// learn updates the memos of the entities packet r carried, now that v,
// its view, is decoded.
func (s *Sender[T]) learn(r *record[T], v *view[T]) {
	for _, x := range r.sent {
		set, st := s.sets[x.set], &s.states[x.set]
		q := set.slots(ptr(&v.v))
		if int(x.slot) >= len(q) || q[x.slot] == nil || int(x.state) >= len(st.ents) {
			continue
		}
		size := int(set.size)
		copy(st.memoRaw[int(x.state)*size:], r.raw[x.raw:int(x.raw)+size])
		copy(st.memoQ[int(x.state)*size:], unsafe.Slice((*byte)(q[x.slot]), size))
		st.ents[x.state].memo = true
		if !st.raw && !set.cmp.equal(st.memoAt(st.memoRaw, int(x.state)), st.memoAt(st.memoQ, int(x.state))) {
			st.raw = true
		}
	}
}

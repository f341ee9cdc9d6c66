package bitpack

import (
	"hash/maphash"
	"math/bits"
	"reflect"
	"strconv"
)

// Maps in deltas: how a map's changes are written, read and applied, and
// how the scratch value copies a base's map (kind_map.go holds the rest
// of the kind).
//
// A map that changed sends its changed entries in ascending key
// order, each after a 1 bit: its key, then, for a key the base holds, a
// bit — 0, the entry is removed; 1, its value's body follows (see
// deltaEncoder.body) — and for a key it does not, the value whole (an
// added entry). A 0 bit ends the list, which is never empty. Keys must
// ascend, and the map that results may not hold more than maxlen entries.

func encodeMapDelta(e *deltaEncoder, o *op, at, bt pointer, depth int, bit bool) (bool, *fieldError) {
	mv, mb := at.value(o.typ).Elem(), bt.value(o.typ).Elem()
	if n := mv.Len(); n > o.n {
		return false, newFieldError(o.path, -1, ErrRange, "%d entries exceed maxlen %d", n, o.n)
	}
	if mv.Len() == 0 && mb.Len() == 0 || mv.UnsafePointer() == mb.UnsafePointer() {
		return e.same(bit)
	}
	mx := o.mapx
	d := depth + o.level
	if d+max(mx.key.levels, o.elem.levels) > MaxDepth {
		return false, newFieldError(o.path, -1, ErrDepth, "more than %d nested levels (a cycle?)", MaxDepth)
	}
	vw, bw := mx.work(o), mx.work(o)
	defer mx.done(vw)
	defer mx.done(bw)
	mx.gather(o, mv, vw)
	mx.gather(o, mb, bw)
	w := e.w
	start := e.begin(bit)
	changed := false
	for i, j := 0, 0; i < len(vw.order) || j < len(bw.order); {
		c := -1 // the next key is v's only (-1), base's only (1), or both's (0)
		switch {
		case i == len(vw.order):
			c = 1
		case j < len(bw.order):
			c = mx.compare(vw.keys.Index(vw.order[i]), bw.keys.Index(bw.order[j]))
		}
		pos := w.BitsWritten()
		w.WriteBits(1, 1)
		var err *fieldError
		var key reflect.Value
		var kp pointer
		switch {
		case c < 0: // added
			var vp pointer
			kp, vp = vw.entry(vw.order[i])
			key = vw.keys.Index(vw.order[i])
			if err = encodeValue(w, mx.key, kp, d); err == nil {
				e.charge(mapEntryCharge(o))
				e.full(o.elem, vp, d)
				err = encodeValue(w, o.elem, vp, d)
			}
			i++
		case c > 0: // removed
			kp, _ = bw.entry(bw.order[j])
			key = bw.keys.Index(bw.order[j])
			err = encodeValue(w, mx.key, kp, d)
			w.WriteBits(0, 1)
			j++
		default: // in both: its value's body, if it changed
			var vp, bp pointer
			kp, vp = vw.entry(vw.order[i])
			_, bp = bw.entry(bw.order[j])
			key = vw.keys.Index(vw.order[i])
			var ch bool
			if err = encodeValue(w, mx.key, kp, d); err == nil {
				w.WriteBits(1, 1)
				ch, err = e.sub(o.elem, 0, vp, bp, d)
			}
			i, j = i+1, j+1
			if err == nil && !ch {
				w.Rewind(pos)
				continue
			}
		}
		if err != nil {
			return false, err.withPrefix(o.path + "[" + keyText(key) + "]")
		}
		e.full(mx.key, kp, d) // every key sent is decoded
		changed = true
	}
	if !changed {
		return e.unchanged(start, bit)
	}
	w.WriteBits(0, 1)
	return true, nil
}

// mapEntryCharge is the cost of one entry a delta adds to a map: its key
// and value visited, and its share of the map's memory, as mapCharge
// counts it (twice: the scratch value's map and the caller's).
func mapEntryCharge(o *op) (work, bytes int64) {
	mx := o.mapx
	return satAdd(mx.key.work, o.elem.work), satMul(2, mapSlotFactor*mx.slot)
}

// decodeMapDelta applies a map's changed entries to the scratch value's
// map (a copy of the base's: see cloneMap), or, decoded into the base
// itself, to its map once the delta is accepted (see delta_inplace.go).
// The entries it names are found in the map's entries gathered in key
// order (see mapWork.index), which allocates nothing.
func decodeMapDelta(d *decoder, o *op, at pointer, start, depth int, bit bool) (bool, *fieldError) {
	r := d.r
	if !d.changedBit(bit) || r.Err() != nil {
		return false, nil
	}
	mx := o.mapx
	dd := depth + o.level
	if dd+max(mx.key.levels, o.elem.levels) > MaxDepth {
		return false, newFieldError(o.path, start, ErrDepth, "more than %d nested levels", MaxDepth)
	}
	if d.undo == nil {
		d.scratch.materialize(o, at, depth) // the scratch value's own copy, to change
	}
	m := at.value(o.typ).Elem()
	buf := mx.work(o)
	defer mx.done(buf)
	count := m.Len()
	buf.index(o, m, d.mayGather(count))
	for k := 0; ; k++ {
		pos := r.BitsRead()
		if r.ReadBits(1) == 0 {
			if err := r.Err(); err != nil {
				return false, fromBitio(o.path, pos, err)
			}
			if k == 0 {
				return false, unchangedError(o.path, start)
			}
			if count > o.n {
				return false, newFieldError(o.path, pos, ErrRange, "the delta leaves %d entries, more than maxlen %d", count, o.n)
			}
			if d.undo != nil && d.entry > 0 && count == 0 {
				d.later(laterStep{kind: laterMapNil, o: o, dst: at}) // in a map's entry, a new value
			}
			return true, nil
		}
		buf.key.SetZero()
		if err := d.plan(mx.key, buf.kp, dd); err != nil {
			return false, err.withPrefix(o.path + "[key " + strconv.Itoa(k) + "]")
		}
		if k > 0 && mx.compare(buf.prev, buf.key) >= 0 {
			return false, newFieldError(o.path, pos, ErrRange, "key %s does not follow key %s: a map's changed entries travel in ascending key order, each once", keyText(buf.key), keyText(buf.prev))
		}
		added, err := d.mapEntryDelta(o, at, m, buf, pos, dd)
		if err != nil {
			return false, err.withPrefix(o.path + "[" + keyText(buf.key) + "]")
		}
		count += added
		buf.prev.Set(buf.key)
	}
}

// mapEntryDelta applies the change of the entry whose key buf holds to m,
// the map at at, and returns what it adds to the map's count (1, -1, 0).
// In place, the change is made once the delta is accepted, from values of
// the undo log's own.
func (d *decoder) mapEntryDelta(o *op, at pointer, m reflect.Value, buf *mapWork, pos, dd int) (int, *fieldError) {
	r := d.r
	cur, held := buf.find(m)
	if !held { // added: the value whole
		work, bytes := mapEntryCharge(o)
		if err := d.charge(work, bytes, 1, uintptr(o.mapx.slot), pos); err != nil {
			return 0, err
		}
		val := buf.vp
		if d.undo != nil {
			val = d.undo.temp(o.elem, 1)
		}
		val.value(o.elem.typ).Elem().SetZero() // nothing of an earlier value is reused
		if err := d.plan(o.elem, val, dd); err != nil {
			return 0, err
		}
		settle(o.elem, val) // its pointees may be spares (see below)
		d.grow(1, uintptr(o.mapx.slot))
		d.setEntry(o, at, m, buf, val)
		return 1, nil
	}
	if r.ReadBits(1) == 0 {
		if err := r.Err(); err != nil {
			return 0, fromBitio("", pos, err)
		}
		if d.undo != nil {
			d.later(laterStep{kind: laterMapDelete, o: o, dst: at, key: d.undo.copyOf(o.mapx.key, buf.kp)})
		} else {
			m.SetMapIndex(buf.key, reflect.Value{}) // removed
		}
		return -1, nil
	}
	if d.undo != nil {
		// The entry's value changes in a copy (reflect cannot change it in
		// the map), a new value: what the delta empties in it is nil.
		cur = d.undo.copyOf(o.elem, cur)
		d.entry++
		err := d.deltaSub(o.elem, 0, cur, dd, "", -1)
		d.entry--
		if err != nil {
			return 0, err
		}
		d.setEntry(o, at, m, buf, cur)
		return 0, nil
	}
	// cur is the scratch value's own copy (see cloneMap), out of the map.
	if err := d.deltaSub(o.elem, 0, cur, dd, "", -1); err != nil {
		return 0, err
	}
	// An entry is a new value in the caller's map (commitMap copies or
	// hands it over, settling nothing), so it must be what a packet's
	// entry is, every empty slice and map in it nil (see settle) — not
	// what the delta emptied in the base's copy, nor what a spare
	// pointee held. cloneMap settles the entries the delta leaves alone.
	settle(o.elem, cur)
	d.setEntry(o, at, m, buf, cur)
	return 0, nil
}

// setEntry gives the map m at at the value at val for the key buf holds:
// now in the scratch value, once the delta is accepted in place.
func (d *decoder) setEntry(o *op, at pointer, m reflect.Value, buf *mapWork, val pointer) {
	if d.undo != nil {
		d.later(laterStep{kind: laterMapSet, o: o, dst: at, key: d.undo.copyOf(o.mapx.key, buf.kp), src: val})
		return
	}
	if m.IsNil() {
		m.Set(reflect.MakeMap(o.typ))
	}
	m.SetMapIndex(buf.key, val.value(o.typ.Elem()).Elem())
}

// cloneEntry copies the map entry's value in buf.from into buf.val,
// leaving no map in the base (see cloneIn): an entry's fields have no
// address of their own.
func cloneEntry(o *op, buf *mapWork, sc *scratch, depth int) *cloneError {
	if sc != nil && sc.cloning == cloneIn {
		sc.cloning = 0
		defer func() { sc.cloning = cloneIn }()
	}
	return clone(o.elem, buf.vp, buf.fp, sc, depth)
}

// cloneMap makes the map at d hold copies of the entries of the one at s,
// values of their own (see clone).
func cloneMap(o *op, d, s pointer, sc *scratch, depth int) *cloneError {
	mx := o.mapx
	dd := depth + o.level
	if sc != nil && o.elem.pointerFree {
		switch sc.cloning {
		case cloneIn: // left in the base until the delta changes it (see cloneIn)
			if s.value(o.typ).Elem().Len() > 0 && dd+max(mx.key.levels, o.elem.levels) > MaxDepth {
				return depthRefusal().in(o.path)
			}
			if sc.lazyMaps == nil {
				sc.lazyMaps = map[pointer]pointer{}
			}
			sc.lazyMaps[d] = s
			return nil
		case cloneOut:
			if base, ok := sc.lazyMaps[s]; ok {
				s = base
			}
		}
	}
	dm, sm := d.value(o.typ).Elem(), s.value(o.typ).Elem()
	if sm.Len() == 0 {
		if !dm.IsNil() {
			dm.Clear()
		}
		return nil
	}
	if dd+max(mx.key.levels, o.elem.levels) > MaxDepth {
		return depthRefusal().in(o.path)
	}
	if dm.IsNil() {
		dm.Set(reflect.MakeMapWithSize(o.typ, sm.Len()))
	} else {
		dm.Clear()
	}
	buf := mx.work(o)
	defer mx.done(buf)
	var it reflect.MapIter
	it.Reset(sm)
	for it.Next() {
		buf.key.SetIterKey(&it)
		if o.elem.pointerFree {
			buf.val.SetIterValue(&it)
		} else {
			buf.from.SetIterValue(&it)
			buf.val.SetZero() // a value of the entry's own
			if err := cloneEntry(o, buf, sc, dd); err != nil {
				return err.in(o.path + "[" + keyText(buf.key) + "]")
			}
			settle(o.elem, buf.vp) // its pointees may be spares: see mapEntryDelta
		}
		dm.SetMapIndex(buf.key, buf.val)
	}
	return nil
}

// keyRank is a gathered entry's key, as a number (integers and bools) or
// a string, and the entry's position.
type keyRank struct {
	u   uint64
	s   string
	pos int
}

// rank returns key's keyRank (of position pos).
func (mx *mapInfo) rank(key reflect.Value, pos int) keyRank {
	switch mx.kind {
	case reflect.String:
		return keyRank{s: key.String(), pos: pos}
	case reflect.Bool:
		return keyRank{u: uint64(boolRank(key.Bool())), pos: pos}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return keyRank{u: uint64(key.Int()), pos: pos}
	}
	return keyRank{u: key.Uint(), pos: pos}
}

// hash returns the slot of r in a table of 1<<bits slots.
func (r *keyRank) hash(bits int) int {
	u := r.u
	if r.s != "" {
		u = maphash.String(keySeed, r.s)
	}
	return int(u * 0x9e3779b97f4a7c15 >> (64 - bits)) // Fibonacci hashing: the high bits of the product
}

var keySeed = maphash.MakeSeed()

// index readies w to find a delta's entries in map m (see find): when
// gather, by copying its entries out into a hash table of their keys
// (reflect's lookup allocates a copy of each entry it finds), else by
// lookups.
func (w *mapWork) index(o *op, m reflect.Value, gather bool) {
	if !gather || m.Len() == 0 {
		return
	}
	mx := o.mapx
	mx.copyOut(o, m, w)
	bits := bitsFor(2 * len(w.order))
	if cap(w.table) < 1<<bits {
		w.table = make([]int32, 1<<bits)
	}
	w.table = w.table[:1<<bits]
	clear(w.table)
	for _, i := range w.order {
		w.ranks = append(w.ranks, mx.rank(w.keys.Index(i), i))
		r := &w.ranks[len(w.ranks)-1]
		h := r.hash(bits)
		for w.table[h] != 0 {
			h = (h + 1) & (len(w.table) - 1)
		}
		w.table[h] = int32(len(w.ranks)) // the rank's index + 1: 0 is empty
	}
	w.mx, w.indexed = mx, true
}

// bitsFor is the fewest bits whose power of two is at least n (and 3).
func bitsFor(n int) int { return max(3, bits.Len(uint(n-1))) }

// find returns the address of the value of the entry of m whose key w
// holds — a copy, in w — and whether m holds one.
func (w *mapWork) find(m reflect.Value) (pointer, bool) {
	if !w.indexed {
		if m.IsNil() {
			return pointer{}, false
		}
		v := m.MapIndex(w.key) // a copy
		if !v.IsValid() {
			return pointer{}, false
		}
		w.from.Set(v)
		return w.fp, true
	}
	k := w.mx.rank(w.key, 0)
	mask := len(w.table) - 1
	for h := k.hash(bits.Len(uint(mask))); w.table[h] != 0; h = (h + 1) & mask {
		if r := &w.ranks[w.table[h]-1]; r.u == k.u && r.s == k.s {
			return pointerOf(w.vals.Index(r.pos).Addr()), true
		}
	}
	return pointer{}, false
}

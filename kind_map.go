package bitpack

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bitpack-go/bitpack/bitio"
)

// Maps: a count, as a slice's length (up to maxlen), then the entries in
// ascending key order, each key then its value. One order makes the
// encoding canonical: a decoder refuses a key that is not above the one
// before it (a duplicate or an unsorted key), so every map has exactly one
// encoding. Keys are integers, strings or bools, with the key. options;
// values take the elem. options and the unprefixed ones, as slice elements
// do.
//
// Maps go through reflect: they are rarely in a game's hot packets, and
// Go gives no other way in. Encoding gathers the entries into buffers kept
// between calls (mapWork) and sorts their positions, so it allocates
// nothing once warm; decoding fills the scratch value's map, which commit
// hands over (or copies into the caller's map, cleared first).

var mapKind = kindFuncs{name: "map",
	describe: func(f *Field) string { return fmt.Sprintf("map maxlen %d, ascending keys", f.MaxLen) },
	schema: func(s *schemaWriter, f *Field) {
		s.write("M[<=" + strconv.Itoa(f.MaxLen) + "]")
		s.walk(f.Key)
		s.walk(f.Elem)
	},
	maxBits: func(f *Field, max func(*Field) int64) int64 {
		if f.MaxLen == 0 {
			return int64(f.Bits)
		}
		return satAdd(int64(f.Bits), satMul(int64(f.MaxLen), satAdd(max(f.Key), max(f.Elem))))
	},
	minBits: fixedBits} // an empty one: its count

// mapInfo is what a map op needs beyond a slice's: the keys' plan, how to
// order keys, and buffers reused between calls.
type mapInfo struct {
	key   *plan
	kind  reflect.Kind // the keys' kind: how to order them
	slot  int64        // bytes one entry takes in a Go map: key, value (their Charge.Bytes) and a control byte
	works sync.Pool    // *mapWork
}

// mapWork holds a map op's buffers for one call: addressable key and
// value temporaries (decoding), the gathered entries and their order
// (encoding and its allowance check).
type mapWork struct {
	key, prev, val reflect.Value // decoding: the entry being read, and the key before it
	kp, vp         pointer
	from           reflect.Value // cloning: the entry being copied
	fp             pointer
	keys, vals     reflect.Value // encoding: the entries, gathered into the first len(order) of these []K, []V
	order          []int         // encoding: entry positions in ascending key order
	// Decoding a delta: the map's entries gathered (keys, vals), their
	// keys, a hash table of them, and whether the map was gathered (see
	// index).
	ranks   []keyRank
	table   []int32
	indexed bool
	mx      *mapInfo
}

func (c *compiler) appendMap(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	if f.inherited || !o.maxlenSet {
		return nil, f.missingMaxlen(o, t, "16")
	}
	kt := t.Key()
	switch kt.Kind() {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		return nil, f.structural(o, "%s has keys of type %s: map keys must be integers, strings or bools", t, kt)
	}
	if ok, err := hasHooks(kt, f); err != nil {
		return nil, err
	} else if ok {
		return nil, f.structural(o, "%s has keys of type %s, which encodes itself (MarshalBits): map keys must travel in their own order, so they take no hooks", t, kt)
	}
	keyOpts, err := parseTag(o.key)
	if err != nil {
		return nil, f.tagged(o, "key.: %v", err)
	}
	if keyOpts.clamp || keyOpts.unit != "" {
		return nil, f.tagged(o, "key.clamp and key.unit would let two different keys travel as one; map keys take range=, bits= and maxlen=")
	}
	keyOpts.text = o.text
	elemOpts, err := f.elemOptions(o, t, false)
	if err != nil {
		return nil, err
	}
	if slot := int64(kt.Size()) + int64(t.Elem().Size()) + 1; uint64(o.maxlen) > uint64(maxSliceBytes)/uint64(slot) {
		return nil, f.tagged(o, "maxlen=%d of %s (%d bytes an entry) exceeds the %d bytes one decoded map may take", o.maxlen, t, slot, uint64(maxSliceBytes))
	}
	kf := f.element(t, "[key]")
	kf.key = true
	key, err := c.planFor(kt, keyOpts, kf)
	if err != nil {
		return nil, err
	}
	elem, err := c.planFor(t.Elem(), elemOpts, f.element(t, "[]"))
	if err != nil {
		return nil, err
	}
	base.kind, base.n, base.bits, base.elem, base.typ = KindMap, o.maxlen, bitio.BitsRequired(0, uint64(o.maxlen)), elem, t
	base.mapx = &mapInfo{key: key, kind: kt.Kind(), slot: key.bytes + elem.bytes + 1}
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindMap, MaxLen: o.maxlen, Bits: base.bits, Key: key.root, Elem: elem.root}, nil
}

// work returns buffers for one call on map op o.
func (mx *mapInfo) work(o *op) *mapWork {
	if w, ok := mx.works.Get().(*mapWork); ok {
		return w
	}
	kp, vp, fp := reflect.New(o.typ.Key()), reflect.New(o.typ.Elem()), reflect.New(o.typ.Elem())
	return &mapWork{key: kp.Elem(), prev: reflect.New(o.typ.Key()).Elem(), val: vp.Elem(), kp: pointerOf(kp), vp: pointerOf(vp),
		from: fp.Elem(), fp: pointerOf(fp)}
}

// done gives the buffers back, holding nothing of the caller's.
func (mx *mapInfo) done(w *mapWork) {
	w.key.SetZero()
	w.prev.SetZero()
	w.val.SetZero()
	w.from.SetZero()
	for _, i := range w.order { // the gathered copies: nothing of the caller's stays
		w.keys.Index(i).SetZero()
		w.vals.Index(i).SetZero()
	}
	w.order = w.order[:0]
	clear(w.ranks)
	w.ranks, w.indexed = w.ranks[:0], false
	mx.works.Put(w)
}

// compare orders two keys of the map's key kind.
func (mx *mapInfo) compare(a, b reflect.Value) int {
	switch mx.kind {
	case reflect.String:
		return strings.Compare(a.String(), b.String())
	case reflect.Bool:
		return cmp.Compare(boolRank(a.Bool()), boolRank(b.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	}
	return cmp.Compare(a.Uint(), b.Uint())
}

// boolRank orders false before true.
func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// keyText words a key for an error's path: Inventory[7], Scores["ann"].
func keyText(k reflect.Value) string {
	switch k.Kind() {
	case reflect.String:
		return strconv.Quote(k.String())
	case reflect.Bool:
		return strconv.FormatBool(k.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10)
	}
	return strconv.FormatUint(k.Uint(), 10)
}

// gather copies the entries of map m into w's buffers and orders them by
// key (w.order), the order they travel in.
func (mx *mapInfo) gather(o *op, m reflect.Value, w *mapWork) {
	mx.copyOut(o, m, w)
	slices.SortFunc(w.order, func(a, b int) int { return mx.compare(w.keys.Index(a), w.keys.Index(b)) })
}

// copyOut copies the entries of map m into w's buffers, in the map's
// order (w.order: 0, 1, ...).
func (mx *mapInfo) copyOut(o *op, m reflect.Value, w *mapWork) {
	n := m.Len()
	if !w.keys.IsValid() || w.keys.Len() < n {
		// (Re-slicing a reflect.Value allocates; these keep their length.)
		w.keys = reflect.MakeSlice(reflect.SliceOf(o.typ.Key()), n, n)
		w.vals = reflect.MakeSlice(reflect.SliceOf(o.typ.Elem()), n, n)
	}
	w.order = w.order[:0]
	var it reflect.MapIter // on the stack: MapRange would allocate it
	it.Reset(m)
	for i := 0; it.Next(); i++ {
		w.keys.Index(i).SetIterKey(&it)
		w.vals.Index(i).SetIterValue(&it)
		w.order = append(w.order, i)
	}
}

// entry returns the addresses of gathered entry i's key and value.
func (w *mapWork) entry(i int) (key, val pointer) {
	return pointerOf(w.keys.Index(i).Addr()), pointerOf(w.vals.Index(i).Addr())
}

func encodeMap(w *bitio.Writer, o *op, at pointer, depth int) *fieldError {
	m := at.value(o.typ).Elem()
	n := m.Len()
	if n > o.n {
		return newFieldError(o.path, -1, ErrRange, "%d entries exceed maxlen %d", n, o.n)
	}
	w.WriteBits(uint64(n), o.bits)
	if n == 0 {
		return nil
	}
	mx := o.mapx
	d := depth + o.level
	if d+max(mx.key.levels, o.elem.levels) > MaxDepth {
		return newFieldError(o.path, -1, ErrDepth, "more than %d nested levels (a cycle?)", MaxDepth)
	}
	buf := mx.work(o)
	defer mx.done(buf)
	mx.gather(o, m, buf)
	for _, i := range buf.order {
		kp, vp := buf.entry(i)
		if err := encodeValue(w, mx.key, kp, d); err != nil {
			return err.withPrefix(o.path + "[" + keyText(buf.keys.Index(i)) + "]")
		}
		if err := encodeValue(w, o.elem, vp, d); err != nil {
			return err.withPrefix(o.path + "[" + keyText(buf.keys.Index(i)) + "]")
		}
	}
	return nil
}

// decodeMap reads a map field: its count, then the entries, each key above
// the one before. It fills the scratch value's map (made once, cleared
// after), which commit hands over.
func decodeMap(d *decoder, o *op, at pointer, start, depth int) *fieldError {
	// An entry is decoded into a buffer and copied into the map: its
	// strings are made as they are read, not held back (see setString).
	d.inMap++
	err := decodeEntries(d, o, at, start, depth)
	d.inMap--
	return err
}

// decodeEntries is decodeMap's work.
func decodeEntries(d *decoder, o *op, at pointer, start, depth int) *fieldError {
	r := d.r
	if d.scratch != nil {
		d.scratch.decodedMap(at)
	}
	count := r.ReadBits(o.bits)
	if r.Err() != nil {
		return nil
	}
	if count > uint64(o.n) {
		return newFieldError(o.path, start, ErrRange, "%d entries exceed maxlen %d", count, o.n)
	}
	n, mx := int(count), o.mapx
	if each, rest := min(mx.key.minBits+o.elem.minBits, maxFigure), r.BitsRemaining(); !fitsIn(n, each, rest) {
		return countRefusal(o.path, r.BitsRead(), n, each, rest, "entry", "entries")
	}
	work, bytes := mapCharge(o, n, d.fresh)
	if err := d.charge(work, bytes, n, uintptr(mx.slot), start); err != nil {
		return err.withPrefix(o.path)
	}
	m := at.value(o.typ).Elem()
	if n == 0 {
		// nil, whatever the scratch value's map held: commit may hand
		// this value over (a pointee), and a count of 0 decodes as nil.
		m.SetZero()
		return nil
	}
	dd := depth + o.level
	if dd+max(mx.key.levels, o.elem.levels) > MaxDepth {
		return newFieldError(o.path, r.BitsRead(), ErrDepth, "more than %d nested levels", MaxDepth)
	}
	if m.IsNil() || int64(n)*mx.slot > mapReuseBytes {
		// A new map, counted towards the scratch value's release (see
		// decodeScratch). Only small maps are reused: a map keeps the
		// capacity of the most entries it held, uncounted.
		m.Set(reflect.MakeMapWithSize(o.typ, n))
		d.grow(n, uintptr(mx.slot))
	} else {
		m.Clear()
	}
	buf := mx.work(o)
	defer mx.done(buf)
	for k := 0; k < n; k++ {
		bit := r.BitsRead()
		buf.key.SetZero()
		if err := d.plan(mx.key, buf.kp, dd); err != nil {
			return err.withPrefix(o.path + "[key " + strconv.Itoa(k) + "]")
		}
		if k > 0 && mx.compare(buf.prev, buf.key) >= 0 {
			return newFieldError(o.path, bit, ErrRange, "key %s does not follow key %s: map keys travel in ascending order, each once", keyText(buf.key), keyText(buf.prev))
		}
		buf.val.SetZero() // nothing of one entry's value is reused for the next
		if err := d.plan(o.elem, buf.vp, dd); err != nil {
			return err.withPrefix(o.path + "[" + keyText(buf.key) + "]")
		}
		m.SetMapIndex(buf.key, buf.val)
		buf.prev.Set(buf.key)
	}
	return nil
}

// commitMap commits a map field: the scratch value's map is handed over
// when the caller's is nil, else copied into the caller's, cleared first
// (its capacity reused), and the scratch value's cleared so the two share
// nothing.
func commitMap(o *op, d, s pointer) {
	dm, sm := d.value(o.typ).Elem(), s.value(o.typ).Elem()
	switch {
	case sm.IsNil() || sm.Len() == 0:
		if !dm.IsNil() {
			dm.Clear()
		}
	case dm.IsNil():
		dm.Set(sm)
		sm.SetZero()
	default:
		dm.Clear()
		mx := o.mapx
		buf := mx.work(o)
		var it reflect.MapIter
		it.Reset(sm)
		for it.Next() {
			buf.key.SetIterKey(&it)
			buf.val.SetIterValue(&it)
			dm.SetMapIndex(buf.key, buf.val)
		}
		mx.done(buf)
		if int64(sm.Len())*mx.slot > mapReuseBytes {
			sm.SetZero() // too big to keep (see decodeMap)
		} else {
			sm.Clear()
		}
	}
}

// mapReuseBytes is the largest map (entries × slot bytes) the scratch
// value keeps for the next decode.
const mapReuseBytes = 4 << 10

// releaseMap lets the scratch value's map go (see release).
func releaseMap(o *op, at pointer) { at.value(o.typ).Elem().SetZero() }

// mapCharge is the cost of a map of n entries of op o: each entry's key
// and value visited, and the map's memory — Go's tables take up to about
// 4.3 times an entry's slot at their least full, measured, plus a header
// — twice unless fresh: the scratch value's map and the caller's, into
// which commit copies.
func mapCharge(o *op, n int, fresh bool) (work, bytes int64) {
	if n == 0 {
		return 0, 0
	}
	mx := o.mapx
	bytes = roundAlloc(satAdd(mapHeaderBytes, satMul(int64(n), mapSlotFactor*mx.slot)))
	if !fresh {
		bytes = satMul(bytes, 2)
	}
	return satMul(int64(n), satAdd(mx.key.work, o.elem.work)), bytes
}

// checkMap charges what decoding map op o at at charges, entry by entry in
// wire order (see allowanceCheck).
func (c *allowanceCheck) mapEntries(o *op, at pointer, depth int) *fieldError {
	m := at.value(o.typ).Elem()
	n := m.Len()
	work, bytes := mapCharge(o, n, c.fresh)
	if err := c.budget.charge(work, bytes, n, uintptr(o.mapx.slot), -1); err != nil || n == 0 {
		return err
	}
	mx := o.mapx
	buf := mx.work(o)
	defer mx.done(buf)
	mx.gather(o, m, buf)
	for _, i := range buf.order {
		kp, vp := buf.entry(i)
		err := c.value(mx.key, kp, depth+1)
		if err == nil {
			err = c.value(o.elem, vp, depth+1)
		}
		if err != nil {
			return err.withPrefix("[" + keyText(buf.keys.Index(i)) + "]")
		}
	}
	return nil
}

package bitpack

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// Delta snapshots: a value encoded against a base value the receiver
// already holds, so that only what differs on the wire travels (the
// format is docs/wire.md's "Delta encoding"). This file holds the API,
// the delta items a plan is walked by, and the driver of a delta into
// another value than its base (through the scratch value: see
// delta_clone.go); delta_inplace.go drives one into its base itself;
// delta_encode.go and delta_decode.go walk the items. Each kind's delta
// encode, decode and clone functions live in its kind_*.go file,
// dispatched by one-line switch cases as everywhere else (but for arrays'
// and slices' clones, in delta_clone.go: kind_seq.go is at the file length
// limit).

// AppendDelta appends to dst the encoding of *v relative to *base: what a
// receiver that holds base, as it decoded it, needs to rebuild v with
// UnmarshalDelta. Fields compare by their wire codes, so a float that
// moved less than its quantum is unchanged, and whether base was itself
// quantized (see Quantize) makes no difference. A v equal to base on the
// wire is the 1-byte packet 00.
//
// It checks what it sends as Append does: every field of v that differs
// from base's in memory (and base's field, which must be encodable too);
// a field the same in memory as base's is sent as unchanged unchecked. As
// Append does, it refuses a delta its decoder would refuse for claiming
// more than its bits pay for. On error it returns dst unchanged. It
// allocates nothing when dst has the capacity, but for union members held
// by value and hooks.
//
// Quantize your base. A delta checks what it changes, never the rest of
// the base (that would cost a whole encode of it per delta): a field the
// base holds outside its tags (a value past its range, a string past its
// maxlen, NaN in a compressed float, an unregistered union member) that v
// leaves alone travels as unchanged, and UnmarshalDelta passes it on,
// while a delta that changes it is refused on both sides. A base a decode
// made is always within its tags; one a program builds or edits should go
// through Quantize, which refuses one that is not (an encode and a
// decode, once per base), and makes it what the receiver holds.
func (c *Codec[T]) AppendDelta(dst []byte, base, v *T) ([]byte, error) {
	if err := c.check(v); err != nil {
		return dst, err
	}
	if err := c.check(base); err != nil {
		return dst, err
	}
	return appendDelta(dst, c.plan, c.typ, pointerTo(base), pointerTo(v))
}

// UnmarshalDelta decodes data, a delta AppendDelta encoded against *base,
// into *v: v becomes base with the delta's changes. v may be base itself.
// It is a decoder of hostile bytes with every guarantee Unmarshal has
// (see the package doc): on any error *v is untouched, base itself
// included; an accepted delta re-encodes to the same bytes against the
// same base; trailing bytes are refused; the allowances apply to what the
// delta adds (copying base is not charged). v keeps its fields that are
// not on the wire, as with Unmarshal, and what it leaves in v follows
// Unmarshal's rules. base must not share memory with v unless it is v.
//
// Into base itself, it costs what the delta changes, whatever else base
// holds: the changes are made in place and put back if the delta is
// refused. Into another value, base is copied into it (which a base that
// nests past MaxDepth, a cycle say, stops with ErrDepth, as Marshal does),
// for less than Unmarshal of base's encoding costs (half, when base holds
// maps; a fifth without, in docs/performance.md's measures); into a value
// that held an earlier snapshot of the same shape (a view a stream
// recycles), it allocates nothing. docs/wire.md ("Limits of the Go
// decoder") says what each costs.
func (c *Codec[T]) UnmarshalDelta(data []byte, base, v *T) error {
	if err := c.check(v); err != nil {
		return err
	}
	if err := c.check(base); err != nil {
		return err
	}
	return unmarshalDelta(data, c.plan, c.typ, pointerTo(base), pointerTo(v))
}

// Quantize makes *v exactly what Unmarshal(Marshal(v)) gives when
// decoded into v: every compressed float at its quantum, quaternions at
// their code's value, unit= integers rounded, clamped fields clamped.
// A server that keeps the snapshots it sent quantized holds exactly what
// its clients hold. On error (a value Marshal refuses) *v is untouched.
func (c *Codec[T]) Quantize(v *T) error {
	if err := c.check(v); err != nil {
		return err
	}
	return quantize(c.plan, c.typ, pointerTo(v))
}

// AppendDelta is Codec.AppendDelta for any type: base and v are pointers
// to values of one type (or such values).
func AppendDelta(dst []byte, base, v any) ([]byte, error) {
	p, t, pb, pv, err := deltaArgs(base, v, "AppendDelta", false)
	if err != nil {
		return dst, err
	}
	return appendDelta(dst, p, t, pb, pv)
}

// UnmarshalDelta is Codec.UnmarshalDelta for any type: v is a non-nil
// pointer, base a pointer to a value of the same type (or such a value).
func UnmarshalDelta(data []byte, base, v any) error {
	p, t, pb, pv, err := deltaArgs(base, v, "UnmarshalDelta", true)
	if err != nil {
		return err
	}
	return unmarshalDelta(data, p, t, pb, pv)
}

// Quantize is Codec.Quantize for any type: v is a non-nil pointer.
func Quantize(v any) error {
	if p, base, ok := planOfPointer(v); ok {
		return quantize(p, p.typ, base)
	}
	t, base, err := targetOf(v, "Quantize")
	if err != nil {
		return err
	}
	p, err := planOf(t)
	if err != nil {
		return err
	}
	return quantize(p, t, base)
}

// deltaArgs finds the plan and the addresses of base and v, which must be
// of one type; target: v must be a pointer (it is decoded into).
func deltaArgs(base, v any, fn string, target bool) (*plan, reflect.Type, pointer, pointer, error) {
	if p, pv, ok := planOfPointer(v); ok {
		if q, pb, ok := planOfPointer(base); ok && q == p {
			return p, p.typ, pb, pv, nil
		}
	}
	var tv reflect.Type
	var pv pointer
	var err error
	if target {
		tv, pv, err = targetOf(v, fn)
	} else {
		tv, pv, err = valueOf(v, fn)
	}
	if err != nil {
		return nil, nil, pointer{}, pointer{}, err
	}
	tb, pb, err := valueOf(base, fn)
	if err != nil {
		return nil, nil, pointer{}, pointer{}, err
	}
	if tb != tv {
		return nil, nil, pointer{}, pointer{}, fmt.Errorf("bitpack: %s of a %s against a base of type %s", fn, tv, tb)
	}
	p, err := planOf(tv)
	if err != nil {
		return nil, nil, pointer{}, pointer{}, err
	}
	return p, tv, pb, pv, nil
}

func appendDelta(dst []byte, p *plan, t reflect.Type, base, v pointer) ([]byte, error) {
	var w bitio.Writer
	w.Reset(dst)
	e := deltaEncoder{w: &w}
	e.check.budget = budget{workLimit: saturated, bytesLimit: saturated}
	ferr := e.root(p, v, base)
	if ferr == nil {
		ferr = e.allowance()
	}
	if ferr != nil {
		return dst, publicError("encode", t, ferr)
	}
	return w.Bytes(), nil
}

func unmarshalDelta(data []byte, p *plan, t reflect.Type, base, v pointer) error {
	var r bitio.Reader
	r.Reset(data)
	unchanged := r.ReadBits(1) == 0
	if err := r.Err(); err != nil {
		return publicError("decode", t, fromBitio("", 0, err))
	}
	if unchanged && r.BitsRemaining() >= 8 {
		return trailingError(t, &r)
	}
	switch {
	case unchanged && v == base:
		return nil
	case v == base:
		return unmarshalDeltaInPlace(&r, p, t, v)
	case unchanged && p.shallow:
		clone(p, v, base, nil, 0) // v becomes a copy of base, which cannot fail
		return nil
	}
	if !unchanged {
		r.Rewind(0) // the allowances are for the whole packet
	}
	s := p.getScratch()
	tmp := s.base
	d := decoder{r: &r, scratch: s}
	d.enter(nil)
	var ferr *fieldError
	s.cloning = cloneIn
	cerr := clone(p, tmp, base, s, 0)
	s.cloning = 0
	if cerr != nil {
		ferr = cerr.fieldError()
	} else if !unchanged {
		ferr = d.deltaRoot(p, tmp)
	}
	var err error
	switch {
	case ferr != nil:
		err = publicError("decode", t, ferr)
	case r.BitsRemaining() >= 8:
		err = trailingError(t, &r)
	case len(s.lazyMaps) == 0:
		commit(p, v, tmp)
	default:
		// Copied out as clone copies, maps left in the base from there
		// (see cloneOut). It cannot fail: what the base holds passed the
		// same depth checks copied in, and what the delta added passed the
		// decoder's, which are the same.
		s.cloning = cloneOut
		clone(p, v, tmp, s, 0)
		s.cloning = 0
	}
	clear(s.lazyMaps)
	if s.grown += d.grown; s.grown > scratchKeepLimit {
		release(p, tmp)
		s.dropSpares()
		s.grown = 0
	}
	p.putScratch(s)
	return err
}

// quantize makes the value at base what decoding its encoding gives: an
// encode into a pooled buffer, then a decode into the value itself.
func quantize(p *plan, t reflect.Type, base pointer) error {
	bp := scratchBuffers.Get().(*[]byte)
	buf, err := appendPlan((*bp)[:0], p, t, base)
	if err == nil {
		err = unmarshalPlan(buf, p, t, base)
		putScratchBuffer(bp, buf)
	} else {
		scratchBuffers.Put(bp)
	}
	return err
}

// ---------------------------------------------------------------------------
// Delta items.

// ditem is one item of a value's delta: a field that is not a struct
// (structs are flattened into their fields, recursively), in wire order,
// that can hold more than one value. An array is one item whether the
// compiler unrolled it into its parent's ops or loops over a sub-plan, so
// the delta format does not depend on the unrolling.
type ditem struct {
	op    int       // a field: its op; an unrolled array: its first op (from the first op of the list's value)
	n     int       // an unrolled array: its length; 0 for a field that is one op
	m     int       // an unrolled array: the ops of one element
	elems [][]ditem // an unrolled array: each element's items, ops from the element's first
	path  string    // an unrolled array: its path (its ops have their own)
}

// deltaItems builds p's delta items from its layout tree. Arrays' element
// plans have theirs already (finish runs on them first).
func deltaItems(p *plan) ([]ditem, error) {
	items, next, err := itemsOf(p, p.root, 0, 0, "")
	if err == nil && next != len(p.ops) {
		err = fmt.Errorf("bitpack: internal error: %s: the delta items cover %d of %d ops", p.typ, next, len(p.ops))
	}
	return items, err
}

// itemsOf returns the items of the value f describes, whose first op is
// ops[at]; op indices count from origin. It returns the op after the
// value's.
func itemsOf(p *plan, f *Field, at, origin int, path string) ([]ditem, int, error) {
	if f.Kind == KindStruct {
		var items []ditem
		for _, c := range f.Fields {
			its, next, err := itemsOf(p, c, at, origin, joinPath(path, c.Name))
			if err != nil {
				return nil, 0, err
			}
			items, at = append(items, its...), next
		}
		return items, at, nil
	}
	if f.Unrolled() {
		// Unrolled into f.Len copies of the element's ops.
		m := opsOf(f.Elem)
		if f.Len == 0 || m == 0 {
			return nil, at, nil
		}
		// Each element's items of its own, so that an array unrolled inside
		// one is named by its whole path (X[1].A, not A).
		elems := make([][]ditem, f.Len)
		for k := range elems {
			elem, _, err := itemsOf(p, f.Elem, at+k*m, at+k*m, elemPath(path, k))
			if err != nil || len(elem) == 0 {
				return nil, at + f.Len*m, err
			}
			elems[k] = elem
		}
		return []ditem{{op: at - origin, n: f.Len, m: m, elems: elems, path: path}}, at + f.Len*m, nil
	}
	if at >= len(p.ops) {
		return nil, 0, fmt.Errorf("bitpack: internal error: %s: the delta items run past its %d ops", p.typ, len(p.ops))
	}
	o := &p.ops[at]
	switch {
	case f.Kind == KindArray && (o.kind != KindArray || o.n != f.Len):
		return nil, 0, fmt.Errorf("bitpack: internal error: %s: %s is not the array op the layout says", p.typ, o.path)
	case !f.DeltaItem():
		return nil, at + 1, nil // it holds one value only
	}
	return []ditem{{op: at - origin}}, at + 1, nil
}

// dstep is one step of a plan's delta program, which runs the plan's
// delta items (p.delta) the way encode and decode programs run its ops: a
// fixed-width field is coded inline from everything it needs, copied here
// (see deltaEncoder.steps and decoder.deltaSteps); any other item
// (dsItem) goes to its kind.
type dstep struct {
	offset           offset
	min, limit, flip uint64      // the field's code (see intCode)
	q                quant.Float // accQ32: the quantizer
	lo, hi           float32     // accQ32: the values coded without clamp (see float32Code)
	op               int32       // the op (errors, and the kinds' own paths)
	item             int32       // dsItem: the item
	kind             uint8       // the field's access (accU8 ... accQ32), or dsItem
	size             uint8       // the field's Go size
	bits             uint8       // its wire bits
	short            uint8       // deltaShortBits(bits)
	quick            bool        // decoding stores the value inline (else storeScalar)
	// accQ32: codes per unit of value, M/(max−min), and how far apart in
	// codes two values must be for farApart (0: never).
	scale, far float64
	// The field's bits in a delta of its value (see emit, formColumn):
	// its changed bit, 1 in hn bits (none when it is its value's only
	// item); the long form, pre then the code (masked by cmask: none for
	// 1-bit fields) shifted by ls, lw bits in all; the short form's sw
	// bits. wide: the long form takes more than a word (listFlat leaves
	// it to steps).
	pre, cmask     uint64
	hn, ls, lw, sw uint8
	wide           bool
}

// dsItem marks a delta step that is not a fixed-width field run inline.
const dsItem = 0xff

// deltaSteps builds p's delta program from its items, and says whether
// it is flat: fixed-width fields only, at most 63 (see listFlat).
func deltaSteps(p *plan) ([]dstep, bool) {
	steps := make([]dstep, 0, len(p.delta))
	for i, it := range p.delta {
		st := dstep{kind: dsItem, item: int32(i), op: int32(it.op)}
		if o := &p.ops[it.op]; it.n == 0 && kinds[o.kind].fixed && o.access <= accQ32 && o.unit <= 1 {
			st.kind, st.offset, st.size, st.bits, st.short = o.access, o.offset, uint8(o.size), uint8(o.bits), uint8(deltaShortBits(o.bits))
			st.min, st.limit, st.flip, st.quick = o.min, o.limit, o.flip, !o.fit
			if o.access == accQ32 {
				st.q, st.lo, st.hi = o.qp.q32, o.qp.lo32, o.qp.hi32
				if m := st.q.MaxCode(); m <= farCodes {
					st.scale = float64(m) / (float64(st.q.Max()) - float64(st.q.Min()))
					st.far = float64(uint64(1)<<st.short>>1) + farMargin
				}
			}
		}
		steps = append(steps, st)
	}
	hn := uint8(0)
	if len(steps) > 1 {
		hn = 1
	}
	for i := range steps {
		steps[i].forms(hn)
	}
	flat := len(steps) > 0 && len(steps) < 64
	for i := range steps {
		flat = flat && steps[i].kind != dsItem
	}
	return steps, flat
}

// forms sets st's form fields (see dstep) for a changed bit of hn bits.
func (st *dstep) forms(hn uint8) {
	st.hn, st.pre, st.cmask, st.ls = hn, uint64(hn), ^uint64(0), hn
	if st.short > 0 {
		st.pre |= 1 << hn // the form bit: long
		st.ls++
		st.sw = hn + 1 + st.short
	}
	if st.bits == 1 {
		st.cmask = 0 // a changed bool's bit says it all
	}
	st.lw = st.ls + st.bits
	if st.bits == 1 {
		st.lw = hn
	}
	st.wide = int(st.ls)+int(st.bits) > 64
}

// farApart reports whether values a and b of the compressed float32 st
// (b inside the field's bounds) are so far apart that their codes differ
// by more than the short form reaches: then b's code, a division, need not
// be computed. The pinned arithmetic codes x within a code of
// (x−min)·M/(max−min) when M <= farCodes (a few float32 roundings, each
// at most 2^-24 relative, on codes below 2^20, and the rounding to the
// nearest code), and a decoded value lies within a fifth of a code of its
// own, so farMargin codes beyond the reach leave room for all of it.
func (st *dstep) farApart(a, b float32) bool {
	return st.far > 0 && b >= st.lo && b <= st.hi && math.Abs(float64(a)-float64(b))*st.scale > st.far
}

const (
	farCodes  = 1 << 20
	farMargin = 4
)

// code returns the wire code of the field st codes whose Go value has the
// bits raw (loaded by its size), or false when its kind must decide
// (clamped or refused: see fieldCode).
func (st *dstep) code(raw uint64) (uint64, bool) {
	var v uint64
	switch st.kind {
	case accQ32:
		c, ok := float32InRange(&st.q, st.lo, st.hi, math.Float32frombits(uint32(raw)))
		return uint64(c), ok
	case accI8:
		v = uint64(int64(int8(raw)))
	case accI16:
		v = uint64(int64(int16(raw)))
	case accI32:
		v = uint64(int64(int32(raw)))
	default:
		v = raw
	}
	return intCode(v, st.min, st.limit, st.flip)
}

// opsOf is the number of ops the compiler makes for a value f describes
// (see appendArray: arrays of up to unrollLimit ops are unrolled).
func opsOf(f *Field) int {
	if f == nil {
		return 0
	}
	switch f.Kind {
	case KindStruct:
		n := 0
		for _, c := range f.Fields {
			n += opsOf(c)
		}
		return n
	case KindArray:
		if n := f.Len * opsOf(f.Elem); n <= unrollLimit {
			return n
		}
	}
	return 1
}

// ---------------------------------------------------------------------------
// Errors.

// errUnchanged is the detail of a delta that marks something changed and
// changes nothing: a value has one delta, and that is not it.
const errUnchanged = "the delta marks the value changed but it is the base's (not canonical)"

// unchangedError refuses a delta part that changes nothing.
func unchangedError(path string, bit int) *fieldError {
	return newFieldError(path, bit, ErrRange, errUnchanged)
}

// baseError words the refusal of a base value a delta needs the code of.
func baseError(err *fieldError) *fieldError {
	err.detail = "base value: " + err.detail
	return err
}

// elemPath is the path of element k of the container at path.
func elemPath(path string, k int) string { return path + "[" + strconv.Itoa(k) + "]" }

// deltaIndexLimit is the most elements a delta names by index:
// int_relative's int32.
const deltaIndexLimit = 1<<31 - 2

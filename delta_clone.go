package bitpack

import "strings"

// Cloning a base: a delta decoded into another value than its base copies
// the base into the scratch value, applies the delta there, and copies the
// result out into the caller's value (see unmarshalDelta); the unchanged
// delta 00 copies the base straight into the caller's value when nothing
// can stop the copy halfway (plan.shallow). Copies refuse a base that
// nests past MaxDepth, as Marshal does.

// clone makes the value at dst a copy of the one at src on the wire:
// what commit would make it were src a decoded value, except that src
// keeps everything it holds. Fields not on the wire keep dst's. Pointees
// dst lets go of go to s's spares (but the caller's: see cloneOut), and
// new ones come from there first (s nil: no spares). s.cloning says which
// way a delta's copy goes (see cloneIn). depth is the value's, counted as
// the encoder counts it:
// a value nesting past MaxDepth (a cycle?) is refused as Marshal refuses
// it, leaving dst partly copied.
func clone(p *plan, dst, src pointer, s *scratch, depth int) *cloneError {
	if commitCopies(p, dst, src) {
		return nil
	}
	for _, i := range p.others {
		o := &p.ops[i]
		d, sv := dst.field(o.offset), src.field(o.offset)
		var err *cloneError
		switch o.kind {
		case KindString:
			commitString(o, d, sv) // strings are immutable: shared
		case KindBytes:
			cloneBytes(o, d, sv)
		case KindArray:
			err = cloneArray(o, d, sv, s, depth)
		case KindSlice:
			err = cloneSlice(o, d, sv, s, depth)
		case KindPointer:
			err = clonePointer(o, d, sv, s, depth)
		case KindSparse:
			err = cloneSparse(o, d, sv, s, depth)
		case KindUnion:
			err = cloneUnion(o, d, sv, s, depth)
		case KindCustom:
			cloneHook(o, d, sv)
		case KindMap:
			err = cloneMap(o, d, sv, s, depth)
		case KindTime:
			commitTime(o, d, sv)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// A delta decoded into another value than its base copies the base into
// the scratch value (cloneIn), applies the delta there, and, accepted,
// commits the scratch value into the caller's, as Unmarshal does. But
// copied in, a map of pointer-free values is left in the base until the
// delta changes it (lazyMaps, materialize); when one was, the scratch
// value is copied out (cloneOut) — as commit would hand it over, but
// leaving it whole — and such maps from the base, so that they are copied
// once, not twice. (Maps are copied entry by entry, by reflect: the
// costliest part of copying a base that holds them.) Copied out, the
// caller's pointees never become spares (the caller may hold them), and
// spares it takes are settled, as commit settles what it hands over.
const (
	cloneIn = 1 + iota
	cloneOut
)

// materialize copies into the scratch value's map at at the base's map
// that clone left there (see lazyMaps), before the delta changes it. The
// map's depth was checked copied in. depth is the plan's holding it.
func (s *scratch) materialize(o *op, at pointer, depth int) {
	if src, ok := s.lazyMaps[at]; ok {
		delete(s.lazyMaps, at)
		cloneMap(o, at, src, s, depth)
	}
}

// decodedMap forgets the base's map clone left at the scratch value's
// field at, which a delta is decoding a map into whole (into a spare
// pointee that held it, say).
func (s *scratch) decodedMap(at pointer) {
	if len(s.lazyMaps) > 0 {
		delete(s.lazyMaps, at)
	}
}

// materializeIn materializes the maps the value of p at at holds in
// itself (not through pointers), which move with it: before the scratch
// value's slice of such values moves to a new array.
func (s *scratch) materializeIn(p *plan, at pointer, depth int) {
	for i := range p.ops {
		switch o := &p.ops[i]; o.kind {
		case KindMap:
			s.materialize(o, at.field(o.offset), depth)
		case KindArray:
			for k := 0; k < o.n && o.elem.inlineMaps; k++ {
				s.materializeIn(o.elem, at.field(o.offset).index(k, o.stride), depth+o.level)
			}
		}
	}
}

// inlineMaps reports whether a value of p can hold a map in itself (not
// through pointers): see materializeIn. Arrays' element plans are
// finished first.
func inlineMaps(p *plan) bool {
	for i := range p.ops {
		if o := &p.ops[i]; o.kind == KindMap || o.kind == KindArray && o.elem.inlineMaps {
			return true
		}
	}
	return false
}

// cloneSub clones a value of p held by a field at struct level level of a
// plan at depth, refusing nesting past MaxDepth as encodeSub does.
func cloneSub(p *plan, level int, dst, src pointer, s *scratch, depth int) *cloneError {
	d := depth + level
	if d+p.levels > MaxDepth {
		return depthRefusal()
	}
	return clone(p, dst, src, s, d)
}

// cloneError is a clone's refusal of a value that nests past MaxDepth on
// its way up: the segments of its path, the innermost first, joined once
// at the top (see fieldError) — prefixing a path at each of 64 levels
// would copy it 64 times, which on a large heap costs the collector's
// work many snapshot decodes.
type cloneError struct{ segs []string }

// depthRefusal starts a cloneError, with room for a segment per level.
func depthRefusal() *cloneError { return &cloneError{segs: make([]string, 0, MaxDepth+1)} }

// in adds the segment of the value the refusal happened in.
func (e *cloneError) in(seg string) *cloneError {
	e.segs = append(e.segs, seg)
	return e
}

// fieldError is the refusal with its path, in the encoder's words, as a
// base value's.
func (e *cloneError) fieldError() *fieldError {
	var b strings.Builder
	n := 0
	for _, seg := range e.segs {
		n += len(seg) + 1
	}
	b.Grow(n)
	for i := len(e.segs) - 1; i >= 0; i-- {
		switch seg := e.segs[i]; {
		case seg == "":
		case b.Len() > 0 && seg[0] != '[' && seg[0] != '(':
			b.WriteByte('.')
			fallthrough
		default:
			b.WriteString(seg)
		}
	}
	return baseError(newFieldError(b.String(), -1, ErrDepth, "more than %d nested levels (a cycle?)", MaxDepth))
}

// deepest returns the most levels a value of p can span, its pointees,
// elements and map values included: more than MaxDepth when nothing bounds
// it (a recursive type; a union, whose members compile later). A plan
// that spans at most MaxDepth (plan.shallow) is cloned without a check
// that can fail.
func deepest(p *plan, seen map[*plan]int) int {
	if d, ok := seen[p]; ok {
		return d
	}
	seen[p] = MaxDepth + 1 // reached again before it is done: a cycle
	d := p.levels
	for i := range p.ops {
		switch o := &p.ops[i]; o.kind {
		case KindArray, KindSlice, KindPointer, KindSparse, KindMap:
			d = max(d, o.level+deepest(o.elem, seen))
			if o.kind == KindMap {
				d = max(d, o.level+deepest(o.mapx.key, seen))
			}
		case KindUnion:
			d = MaxDepth + 1
		}
	}
	d = min(d, MaxDepth+1)
	seen[p] = d
	return d
}

// Spares: pointees the scratch value let go of while a base was cloned
// into it or a delta removed them, kept for the next pointee of their
// plan, so that a steady stream of deltas allocates nothing even when
// pointers appear and vanish.

// takeSpare returns a spare pointee of plan p, or false.
func (s *scratch) takeSpare(p *plan) (pointer, bool) {
	if s == nil {
		return pointer{}, false
	}
	list := s.spares[p]
	if len(list) == 0 {
		return pointer{}, false
	}
	e := list[len(list)-1]
	s.spares[p] = list[:len(list)-1]
	return e, true
}

// putSpare keeps e, a pointee of plan p the scratch value no longer
// holds.
func (s *scratch) putSpare(p *plan, e pointer) {
	if s == nil || e.isNil() {
		return
	}
	if s.spares == nil {
		s.spares = map[*plan][]pointer{}
	}
	s.spares[p] = append(s.spares[p], e)
}

// dropSpares lets go of every spare (see scratchKeepLimit).
func (s *scratch) dropSpares() { s.spares = nil }

// newPointee stores a pointee of plan p in the pointer at at: a spare of
// s's when there is one (its fields are whatever they were), else a new
// zero value. It reports whether it allocated.
func newPointee(s *scratch, p *plan, at pointer) (pointer, bool) {
	if e, ok := s.takeSpare(p); ok {
		at.setElem(e)
		return e, false
	}
	return at.setNew(p), true
}

// cloneArray and cloneSlice copy the elements of an array or slice into
// dst's own (see clone).
func cloneArray(o *op, d, s pointer, sc *scratch, depth int) *cloneError {
	return cloneElems(o, d, s, o.n, sc, depth)
}

func cloneSlice(o *op, d, s pointer, sc *scratch, depth int) *cloneError {
	n := s.sliceLen()
	if n <= d.sliceCap() {
		d.setSliceLenWithin(n) // setSliceLen's common case, without the call
	} else {
		d.setSliceLen(o.typ, n)
	}
	if n == 0 {
		return nil
	}
	if o.elem.dense && depth+o.level+o.elem.levels <= MaxDepth { // cloneElems' common case, without the call
		d.sliceElem(0, 0).copyFrom(s.sliceElem(0, 0), uintptr(n)*o.stride)
		return nil
	}
	return cloneElems(o, d.sliceElem(0, 0), s.sliceElem(0, 0), n, sc, depth)
}

// cloneElems copies n elements of o from src into dst's, refusing them
// past MaxDepth as encodeElemsFrom does.
func cloneElems(o *op, dst, src pointer, n int, sc *scratch, depth int) *cloneError {
	d := depth + o.level
	switch {
	case n == 0:
		return nil
	case d+o.elem.levels > MaxDepth:
		return depthRefusal().in(elemPath(o.path, 0))
	case o.elem.dense:
		dst.copyFrom(src, uintptr(n)*o.stride)
		return nil
	}
	for k := 0; k < n; k++ {
		if err := clone(o.elem, dst.index(k, o.stride), src.index(k, o.stride), sc, d); err != nil {
			return err.in(elemPath(o.path, k))
		}
	}
	return nil
}

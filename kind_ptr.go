package bitpack

import (
	"reflect"

	"github.com/bitpack-go/bitpack/bitio"
)

// Pointers: a presence bit, then the pointee. Options on a pointer apply
// to what it points to. The encoder's programs write the presence bit
// with the fixed-width fields around it (accPtr) and then the pointee.

var pointerKind = kindFuncs{name: "pointer",
	describe: func(*Field) string { return "optional (presence bit)" },
	schema: func(s *schemaWriter, f *Field) {
		s.write("*")
		s.walk(f.Elem)
	},
	maxBits: func(f *Field, max func(*Field) int64) int64 { return satAdd(1, max(f.Elem)) },
	minBits: func(*Field, func(*Field) int64) int64 { return 1 }} // nil

func (c *compiler) appendPointer(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	eo, err := f.elemOptions(o, t, true)
	if err != nil {
		return nil, err
	}
	elem, err := c.planFor(t.Elem(), eo, f.element(t, ""))
	if err != nil {
		return nil, err
	}
	base.kind, base.bits, base.elem, base.typ = KindPointer, 1, elem, t.Elem()
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindPointer, Elem: elem.root}, nil
}

// encodePointer writes a pointer field: its presence bit, then the
// pointee. (The programs gather presence bits into their groups and call
// encodePointee; this is the field on its own.)
func encodePointer(w *bitio.Writer, o *op, at pointer, depth int) *fieldError {
	e := at.elem()
	w.WriteBool(!e.isNil())
	return encodePointee(w, o, e, depth)
}

// encodePointee writes e, the pointee of pointer field o, unless it is nil
// (its presence bit is written already).
func encodePointee(w *bitio.Writer, o *op, e pointer, depth int) *fieldError {
	if e.isNil() {
		return nil
	}
	d := depth + o.level
	if d+o.elem.levels > MaxDepth {
		return newFieldError(o.path, -1, ErrDepth, "more than %d nested levels (a cycle?)", MaxDepth)
	}
	if err := encodeValue(w, o.elem, e, d); err != nil {
		return err.withPrefix(o.path)
	}
	return nil
}

// decodePointer reads a pointer field: its presence bit, then the pointee.
func decodePointer(d *decoder, o *op, at pointer, start, depth int) *fieldError {
	r := d.r
	if r.ReadBits(1) == 0 || r.Err() != nil {
		if r.Err() == nil {
			at.setNil()
		}
		return nil
	}
	return decodePointee(d, o, at, start, depth)
}

// decodePointee reads the pointee of the pointer field o at at, whose
// presence bit said it is there: into the pointee the field has, or a new
// one (a spare one in a delta's scratch value). It is charged first, and
// not checked against the bits left: one pointee does not multiply, and
// the read that runs out names its field (docs/wire.md, "Truncated
// packets").
func decodePointee(d *decoder, o *op, at pointer, start, depth int) *fieldError {
	work, bytes := pointeeCharge(o)
	if err := d.charge(work, bytes, 1, uintptr(o.elem.bytes), start); err != nil {
		return err.withPrefix(o.path)
	}
	elem := at.elem()
	if elem.isNil() {
		var fresh bool
		if elem, fresh = newPointee(d.scratch, o.elem, at); fresh {
			d.grow(1, o.typ.Size())
		}
	}
	if err := d.sub(o.elem, o.level, elem, depth); err != nil {
		return err.withPrefix(o.path)
	}
	return nil
}

func commitPointer(o *op, d, s pointer) { commitPointee(o.elem, d, s) }

// commitPointee commits a pointer to a value of plan p: into the pointee d
// has, or by handing over the one s has, settled (the caller had none).
func commitPointee(p *plan, d, s pointer) {
	se := s.elem()
	switch de := d.elem(); {
	case se.isNil():
		d.setNil()
	case de.isNil():
		settle(p, se)
		d.setElem(se)
		s.setNil()
	case p.dense: // commit's first case, without the call
		de.copyFrom(se, p.size)
	default:
		commit(p, de, se)
	}
}

// Deltas. A pointer that was nil in the base and is not sends its pointee
// whole; one that was not nil sends a bit: 0, it is nil now; 1, the
// pointee's body follows (see deltaEncoder.body).

func encodePointerDelta(e *deltaEncoder, o *op, at, bt pointer, depth int, bit bool) (bool, *fieldError) {
	pv, pb := at.elem(), bt.elem()
	if pv == pb {
		return e.same(bit)
	}
	w := e.w
	switch {
	case pb.isNil(): // appears
		if bit {
			w.WriteBits(1, 1)
		}
		e.charge(pointeeCharge(o))
		e.full(o.elem, pv, depth+1)
		return true, encodePointee(w, o, pv, depth)
	case pv.isNil(): // vanishes
		if bit {
			w.WriteBits(1, 1)
		}
		w.WriteBits(0, 1)
		return true, nil
	}
	start := e.begin(bit)
	w.WriteBits(1, 1)
	changed, err := e.sub(o.elem, o.level, pv, pb, depth)
	if err != nil {
		return false, err.withPrefix(o.path)
	}
	if !changed {
		return e.unchanged(start, bit)
	}
	return true, nil
}

func decodePointerDelta(d *decoder, o *op, at pointer, start, depth int, bit bool) (bool, *fieldError) {
	r := d.r
	if !d.changedBit(bit) {
		return false, nil
	}
	e := at.elem()
	switch {
	case r.Err() != nil:
		return false, nil
	case e.isNil():
		d.saveWord(at)
		return true, decodePointee(d, o, at, start, depth)
	case r.ReadBits(1) == 0:
		if r.Err() == nil {
			if d.undo != nil {
				d.saveWord(at)
			} else {
				d.scratch.putSpare(o.elem, e)
			}
			at.setNil()
		}
		return true, nil
	}
	return true, d.deltaSub(o.elem, o.level, e, depth, o.path, -1)
}

// clonePointer copies a pointee into dst's own (see clone).
func clonePointer(o *op, d, s pointer, sc *scratch, depth int) *cloneError {
	if err := clonePointee(o, d, s, sc, depth); err != nil {
		return err.in(o.path)
	}
	return nil
}

// clonePointee makes the pointer at d, held by o (a pointer or a sparse
// field), point to a copy of what the one at s points to, in the pointee
// d has, a spare or a new one; or nil.
func clonePointee(o *op, d, s pointer, sc *scratch, depth int) *cloneError {
	se, de := s.elem(), d.elem()
	spare := false
	switch {
	case se.isNil():
		if sc == nil || sc.cloning != cloneOut { // the caller's pointees never become spares
			sc.putSpare(o.elem, de)
		}
		d.setNil()
		return nil
	case de.isNil():
		var fresh bool
		de, fresh = newPointee(sc, o.elem, d)
		spare = !fresh && sc.cloning == cloneOut
	}
	err := cloneSub(o.elem, o.level, de, se, sc, depth)
	if spare && err == nil {
		settle(o.elem, de) // the caller held none: a new value (see settle)
	}
	return err
}

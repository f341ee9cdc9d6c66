package bitpack

import (
	"reflect"

	"github.com/bitpack-go/bitpack/bitio"
)

// Custom hooks: calling MarshalBits and UnmarshalBits on fields whose type
// implements them, and carrying the nesting depth through them.

// marshalHook calls a field's MarshalBits. The hook gets its own Writer
// (a copy of the stream's state, carrying the hook's frame as its
// Context), so the stream's Writer never escapes to the heap through the
// interface call; only types with hooks pay for that. depth is that of the
// plan holding the field.
func marshalHook(w *bitio.Writer, o *op, at pointer, depth int) *fieldError {
	m := at.value(o.typ).Interface().(Marshaler)
	hw := new(bitio.Writer)
	*hw = *w
	hw.SetContext(&hookFrame{depth: depth + o.level + 1})
	err := m.MarshalBits(hw)
	if err == nil {
		err = hw.Err()
	}
	if err != nil {
		return fromBitio(o.path, -1, err)
	}
	ctx := w.Context()
	*w = *hw
	w.SetContext(ctx)
	return nil
}

// hook runs a hook field: UnmarshalBits on a new zero value, through a
// copy of the Reader (as marshalHook does) that carries the decode's frame;
// the value goes into the field (of the scratch value: commit hands it
// over once the packet is accepted). Running on a new value each time, a
// hook cannot see, or keep, what the field held.
func (d *decoder) hook(o *op, at pointer, depth int) *fieldError {
	r := d.r
	start := r.BitsRead()
	// The new value and the call's bookkeeping count against the
	// allowances (a hook may read nothing at all), before either is made.
	work, bytes := hookCharge(o)
	if ferr := d.charge(work, bytes, valuesOf(1, o.typ.Size()+hookCallBytes), start); ferr != nil {
		return ferr.withPrefix(o.path)
	}
	target := reflect.New(o.typ)
	u := target.Interface().(Unmarshaler)
	hr := new(bitio.Reader) // not kept in d: that would make the decoder's Reader escape
	*hr = *r
	frame := &hookFrame{depth: depth + o.level + 1, budget: d.budget}
	hr.SetContext(frame)
	err := u.UnmarshalBits(hr)
	d.budget = frame.budget // what bitpack decodes inside the hook spent
	if err == nil {
		err = hr.Err()
	}
	if err != nil {
		r.Fail(err)
		return fromBitio(o.path, start, err)
	}
	ctx := r.Context()
	*r = *hr
	r.SetContext(ctx)
	at.value(o.typ).Elem().Set(target.Elem())
	return nil
}

// hookFrame is what a bitpack call made by a hook on the Reader or Writer
// it was handed continues from: the depth of the hook's value and
// (decoding) the decode's allowances and what they have spent (see
// allowance.go), which nested decodes add to and the hook's decoder takes
// back. It travels as the Reader's or Writer's Context, so Decode, Encode
// and a Union's or Codec's Decode and Encode called by the hook start at
// that depth instead of 0 — MaxDepth bounds recursion that passes through
// hooks, as it bounds any other — with no registry shared between
// goroutines.
type hookFrame struct {
	depth  int
	budget budget
}

// hookDepth returns the depth a bitpack call on w starts at: the hook
// value's, when w is one a hook was handed, else 0.
func hookDepth(w *bitio.Writer) int {
	if f, ok := w.Context().(*hookFrame); ok {
		return f.depth
	}
	return 0
}

// readerFrame returns the frame of the hook r was handed to, or nil.
func readerFrame(r *bitio.Reader) *hookFrame {
	f, _ := r.Context().(*hookFrame)
	return f
}

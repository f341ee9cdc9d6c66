package bitpack

import (
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/bitpack-go/bitpack/bitio"
)

// Custom hooks: calling MarshalBits and UnmarshalBits on fields whose type
// implements them, and carrying the nesting depth through them.

// marshalHook calls a field's MarshalBits. The hook gets its own Writer
// (a copy of the stream's state), so the stream's Writer never escapes to
// the heap through the interface call; only types with hooks pay for that.
// depth is that of the plan holding the field.
func marshalHook(w *bitio.Writer, o *op, at pointer, depth int) *fieldError {
	m := at.value(o.typ).Interface().(Marshaler)
	hw := new(bitio.Writer)
	*hw = *w
	err := runMarshalHook(m, hw, &hookFrame{depth: depth + o.level + 1})
	if err == nil {
		err = hw.Err()
	}
	if err != nil {
		return fromBitio(o.path, -1, err)
	}
	*w = *hw
	return nil
}

// hookValues holds what the validation pass's hooks decoded, in order, for
// the store pass to copy into the target: each hook runs once per decode,
// on a new zero value. (Running it again in the store pass would double
// the work at every level of hooks that decode hooked types themselves,
// and would let a hook that looks at its receiver decide differently the
// second time, after validation.)
type hookValues struct {
	vals []hookValue
	next int // the store pass's position in vals
}

type hookValue struct {
	v    reflect.Value // a *T
	bits int           // what the hook read
}

func (h *hookValues) reset() {
	clear(h.vals) // drop references to the last decode's values
	h.vals, h.next = h.vals[:0], 0
}

// hook runs a hook field. In the validation pass (and in a single pass,
// which hooks never reach: see isFlat) it calls UnmarshalBits on a new
// value through its own copy of the Reader, as marshalHook does, and keeps
// the value; in the store pass it sets the field to the kept value and
// moves past the bits the hook read.
func (d *decoder) hook(o *op, at pointer, store bool, depth int) *fieldError {
	r := d.r
	if d.hooks == nil {
		d.hooks = new(hookValues)
	}
	hs := d.hooks // (never stored back: that would make the decoder's Reader escape)
	if store && !d.single {
		if hs.next >= len(hs.vals) { // unreachable: both passes walk the same ops over the same bits
			return newFieldError(o.path, r.BitsRead(), ErrRange, "internal error: no validated value for this hook")
		}
		kept := hs.vals[hs.next]
		hs.next++
		at.value(o.typ).Elem().Set(kept.v.Elem())
		r.Skip(kept.bits)
		return nil
	}
	start := r.BitsRead()
	// The new value and the call's bookkeeping count against the
	// allowance (a hook may read nothing at all), before either is made.
	work, bytes := hookCharge(o)
	if ferr := d.charge(work, bytes, valuesOf(1, o.typ.Size()+hookCallBytes), start); ferr != nil {
		return ferr.withPrefix(o.path)
	}
	target := reflect.New(o.typ)
	u := target.Interface().(Unmarshaler)
	hr := new(bitio.Reader) // not in hookValues: handing that to the hook would make the decoder escape
	*hr = *r
	frame := &hookFrame{depth: depth + o.level + 1, budget: d.budget}
	err := runUnmarshalHook(u, hr, frame)
	d.budget = frame.budget // what bitpack decodes inside the hook spent
	if err == nil {
		err = hr.Err()
	}
	if err != nil {
		r.Fail(err)
		return fromBitio(o.path, start, err)
	}
	*r = *hr
	if store { // a single pass: store now
		at.value(o.typ).Elem().Set(target.Elem())
	} else {
		hs.vals = append(hs.vals, hookValue{target, r.BitsRead() - start})
	}
	return nil
}

// hookDepths maps the Reader or Writer handed to a running hook to the
// hook's frame: the nesting depth of the hook's value and, for a Reader,
// the decode's allocation allowance. Decode, Encode and a Union's Decode
// and Encode called with it by the hook start at that depth instead of 0,
// so MaxDepth bounds recursion that passes through hooks, as it bounds any
// other. Outside hooks the maps are empty and the check is one atomic load.
var hookDepths struct {
	active  atomic.Int32 // hooks running, in all goroutines
	readers hookDepthMap[bitio.Reader]
	writers hookDepthMap[bitio.Writer]
}

type hookDepthMap[T any] struct {
	mu sync.RWMutex
	m  map[*T]*hookFrame
}

// runMarshalHook and runUnmarshalHook call a hook with its Writer or
// Reader registered at depth: the levels above the hook's value plus the
// value itself, so a hook type that encodes or decodes its own type goes
// one level deeper each time. The entry is removed even if the hook
// panics (a server that recovers must not keep it, nor the packet it
// points into).
func runMarshalHook(m Marshaler, w *bitio.Writer, f *hookFrame) error {
	enterHook(&hookDepths.writers, w, f)
	defer leaveHook(&hookDepths.writers, w)
	return m.MarshalBits(w)
}

func runUnmarshalHook(u Unmarshaler, r *bitio.Reader, f *hookFrame) error {
	enterHook(&hookDepths.readers, r, f)
	defer leaveHook(&hookDepths.readers, r)
	return u.UnmarshalBits(r)
}

// hookFrame is what a bitpack call made by a hook on the hook's Reader or
// Writer continues from: the depth of the hook's value, and (decoding) the
// decode's allocation allowance and what it has spent (see
// allocBaseBytes), which nested decodes add to and the hook's decoder takes
// back.
type hookFrame struct {
	depth  int
	budget budget
}

func enterHook[T any](h *hookDepthMap[T], key *T, f *hookFrame) {
	hookDepths.active.Add(1)
	h.mu.Lock()
	if h.m == nil {
		h.m = map[*T]*hookFrame{}
	}
	h.m[key] = f
	h.mu.Unlock()
}

func leaveHook[T any](h *hookDepthMap[T], key *T) {
	h.mu.Lock()
	delete(h.m, key)
	h.mu.Unlock()
	hookDepths.active.Add(-1)
}

// hookDepth returns the depth a bitpack call on w starts at: the hook
// value's, when w is one a hook was handed, else 0.
func hookDepth(w *bitio.Writer) int {
	if f := hookDepths.writers.lookup(w); f != nil {
		return f.depth
	}
	return 0
}

// readerFrame returns the frame of the hook r was handed to, or nil.
func readerFrame(r *bitio.Reader) *hookFrame {
	return hookDepths.readers.lookup(r)
}

func (h *hookDepthMap[T]) lookup(key *T) *hookFrame {
	if hookDepths.active.Load() == 0 {
		return nil
	}
	h.mu.RLock()
	f := h.m[key]
	h.mu.RUnlock()
	return f
}

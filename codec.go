package bitpack

import (
	"errors"
	"reflect"

	"github.com/bitpack-go/bitpack/bitio"
)

// Codec is a typed handle on the compiled plan of T: no interface boxing,
// no cache lookup, and tag errors surface once, from NewCodec. A Codec is
// safe for concurrent use.
type Codec[T any] struct {
	plan *plan
	typ  reflect.Type
	gen  *generatedSlot[T] // functions generated Go code registered for T (generated.go)
}

// NewCodec compiles (or fetches the cached) plan for T.
func NewCodec[T any]() (*Codec[T], error) {
	t := reflect.TypeFor[T]()
	p, err := planOf(t)
	if err != nil {
		return nil, err
	}
	slot := slotOf[T]()
	if stale := slot.stale.Load(); stale != nil {
		return nil, *stale
	}
	return &Codec[T]{plan: p, typ: t, gen: slot}, nil
}

var (
	errNilCodec  = errors.New("bitpack: method called on a nil *Codec (use NewCodec)")
	errZeroCodec = errors.New("bitpack: method called on a zero Codec (use NewCodec)")
)

// check refuses a nil Codec or value. Small enough to inline: the error
// for a nil value is built elsewhere.
func (c *Codec[T]) check(v *T) error {
	if c == nil {
		return errNilCodec
	}
	if c.plan == nil || v == nil {
		return codecError(c.plan)
	}
	return nil
}

// codecError is the error for a zero Codec (p nil), or else for a nil
// value of p's type. Out of line and not generic: either would make check
// too big to inline (a generic call costs more than a plain one).
//
//go:noinline
func codecError(p *plan) error {
	if p == nil {
		return errZeroCodec
	}
	return errors.New("bitpack: nil *" + p.typ.String() + " passed to Codec")
}

// Append appends the encoding of *v to dst. It allocates nothing when dst
// has the capacity; on error it returns dst unchanged.
func (c *Codec[T]) Append(dst []byte, v *T) ([]byte, error) {
	if err := c.check(v); err != nil {
		return dst, err
	}
	if g := c.gen.fns.Load(); g != nil {
		if out, ok := g.Append(dst, v); ok {
			return out, nil
		}
	}
	if p := c.plan; p.levels <= MaxDepth {
		// appendPlan's work, one call shorter: the hottest path there is.
		var w bitio.Writer
		w.Reset(dst)
		if p.counted {
			beginEncode(&w, 8*len(dst))
		}
		ferr := encodeValue(&w, p, pointerTo(v), 0)
		if ferr == nil && p.counted {
			ferr = endEncode(&w, p, pointerTo(v), 8*len(dst), true, false)
		}
		if ferr != nil {
			return dst, publicError("encode", c.typ, ferr)
		}
		return w.Bytes(), nil
	}
	return appendPlan(dst, c.plan, c.typ, pointerTo(v))
}

// Marshal returns the encoding of *v in a new slice of exactly its size.
func (c *Codec[T]) Marshal(v *T) ([]byte, error) {
	if err := c.check(v); err != nil {
		return nil, err
	}
	if g := c.gen.fns.Load(); g != nil {
		bp := scratchBuffers.Get().(*[]byte)
		if buf, ok := g.Append((*bp)[:0], v); ok {
			out := make([]byte, len(buf))
			copy(out, buf)
			putScratchBuffer(bp, buf)
			return out, nil
		}
		scratchBuffers.Put(bp)
	}
	return marshalPlan(c.plan, c.typ, pointerTo(v))
}

// Unmarshal decodes data into *v, consuming the whole packet; on error *v
// is untouched.
func (c *Codec[T]) Unmarshal(data []byte, v *T) error {
	if err := c.check(v); err != nil {
		return err
	}
	if g := c.gen.fns.Load(); g != nil && g.Unmarshal(data, v) {
		return nil
	}
	return unmarshalPlan(data, c.plan, c.typ, pointerTo(v))
}

// Encode writes *v to w; on error nothing of it stays in w and w is failed.
func (c *Codec[T]) Encode(w *bitio.Writer, v *T) error {
	if err := c.check(v); err != nil {
		return err
	}
	if w == nil {
		return errors.New("bitpack: Codec.Encode with a nil *bitio.Writer")
	}
	return encodeTo(w, c.plan, c.typ, pointerTo(v))
}

// Decode reads one *v from r; on error *v is untouched and r is failed.
func (c *Codec[T]) Decode(r *bitio.Reader, v *T) error {
	if err := c.check(v); err != nil {
		return err
	}
	if r == nil {
		return errors.New("bitpack: Codec.Decode with a nil *bitio.Reader")
	}
	return decodeFrom(r, c.plan, c.typ, pointerTo(v))
}

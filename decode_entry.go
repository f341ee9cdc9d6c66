package bitpack

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/frame"
)

// Unmarshal decodes data into the value v points to. The whole packet must
// be consumed: after the value only the padding bits of the last byte may
// remain. On any error *v is left exactly as it was.
//
// Decoding into a value that holds data reuses what it holds, and what it
// leaves there depends only on the packet and on that value, never on
// earlier decodes (Decode, Codec.Unmarshal, UnmarshalDelta and the code
// gen.Go generates decode alike):
//
//   - Fields not on the wire (bits:"-", unexported) keep their values.
//   - A slice keeps its backing array when its capacity holds the
//     packet's length, and otherwise gets a new one (of a capacity left
//     unspecified) holding its old elements, to its old capacity, first.
//     Either way its elements up to its capacity are decoded into in
//     place, like the value itself; the elements past them start from the
//     zero value.
//   - A non-nil pointer's pointee is decoded into in place; a nil pointer
//     gets a new pointee. The same holds for a sparse field's slots.
//   - An interface field that holds a member of the packet's type,
//     registered as a pointer, has that member decoded into in place;
//     otherwise it gets a new member.
//   - A map is cleared and refilled (a nil one is made when the packet has
//     entries); its entries' values are new.
//   - A type with UnmarshalBits gets a new value (see Unmarshaler).
//   - An empty slice, []byte or map (the wire does not tell nil from empty)
//     is the value's own, cut to length 0 or cleared, where the value held
//     a non-nil one, and nil where it held nil or nothing (an element past
//     the old capacity, a new pointee or member, a map's entry). A zero
//     value therefore decodes every empty one as nil.
//
// Decoding into the previous packet's value therefore allocates only for
// slices that grow, pointees and members that are new, maps, and strings
// that changed (see the package doc's Allocations).
func Unmarshal(data []byte, v any) error {
	if p, base, ok := planOfPointer(v); ok {
		return unmarshalPlan(data, p, p.typ, base)
	}
	t, base, err := targetOf(v, "Unmarshal")
	if err != nil {
		return err
	}
	p, err := planOf(t)
	if err != nil {
		return err
	}
	return unmarshalPlan(data, p, t, base)
}

// UnmarshalWithin decodes buf into the value v points to, as Unmarshal
// does, for an UnmarshalBits hook that holds a buffer of its own (a blob
// it read from the packet, say): r is the Reader the hook was handed, and
// the decode counts as part of the one that called the hook, within its
// MaxDepth and its allowances. Plain Unmarshal inside a hook starts a new
// decode instead, at depth 0 with allowances of its own for buf: a packet
// made of many small blobs could then make one decode allocate a MiB per
// blob. Outside a hook (r was not handed to one), it is Unmarshal. Bit
// offsets in its errors count from the start of buf.
func UnmarshalWithin(r *bitio.Reader, buf []byte, v any) error {
	if r == nil {
		return errors.New("bitpack: UnmarshalWithin with a nil *bitio.Reader")
	}
	t, base, err := targetOf(v, "UnmarshalWithin")
	if err != nil {
		return err
	}
	p, err := planOf(t)
	if err != nil {
		return err
	}
	var f *frame.Frame
	if rf := frameOfReader(r); rf.Active && rf.Depth > 0 { // a hook's Reader
		f = rf
	}
	return unmarshalIn(buf, p, t, base, f)
}

// Decode reads one value from r into the value v points to, leaving r after
// it, so several values can share one packet. Trailing data is not checked.
// On error *v is untouched and r is left failed.
func Decode(r *bitio.Reader, v any) error {
	if r == nil {
		return errors.New("bitpack: Decode with a nil *bitio.Reader")
	}
	if p, base, ok := planOfPointer(v); ok {
		return decodeFrom(r, p, p.typ, base)
	}
	t, base, err := targetOf(v, "Decode")
	if err != nil {
		return err
	}
	p, err := planOf(t)
	if err != nil {
		return err
	}
	return decodeFrom(r, p, t, base)
}

func targetOf(v any, fn string) (reflect.Type, pointer, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer {
		return nil, pointer{}, fmt.Errorf("bitpack: %s needs a non-nil pointer, got %T", fn, v)
	}
	if rv.IsNil() {
		return nil, pointer{}, fmt.Errorf("bitpack: %s into a nil %s", fn, rv.Type())
	}
	if p, err := planOf(rv.Type().Elem()); err == nil {
		rememberPointerType(v, p)
	}
	return rv.Type().Elem(), pointerOf(rv), nil
}

func unmarshalPlan(data []byte, p *plan, t reflect.Type, base pointer) error {
	return unmarshalIn(data, p, t, base, nil)
}

// unmarshalIn decodes a whole packet as part of the decode frame stands
// for (UnmarshalWithin), or as a decode of its own (frame nil).
func unmarshalIn(data []byte, p *plan, t reflect.Type, base pointer, f *frame.Frame) error {
	var r bitio.Reader
	r.Reset(data)
	return decodeScratch(&r, p, t, base, true, f)
}

func trailingError(t reflect.Type, r *bitio.Reader) error {
	return &Error{Op: "decode", Type: t, Bit: r.BitsRead(), Err: ErrTrailing, Detail: trailingDetail(r.BitsRemaining() / 8)}
}

func decodeFrom(r *bitio.Reader, p *plan, t reflect.Type, base pointer) error {
	if err := r.Err(); err != nil {
		return err
	}
	f := frameOfReader(r)
	inHook := f.Active && f.Depth > 0
	err := decodeScratch(r, p, t, base, false, f)
	if err != nil {
		if inHook {
			inStream(err) // a hook passing it on reports the bit as it is
		}
		r.Fail(err)
	}
	return err
}

// decodeScratch decodes a value of p from r in a single checked pass into
// a scratch value, and only once the whole value (and, when whole, the
// whole packet) has been accepted commits it into the target at base (see
// decode_loop.go).
func decodeScratch(r *bitio.Reader, p *plan, t reflect.Type, base pointer, whole bool, f *frame.Frame) error {
	if p.fixedOnly {
		switch {
		case p.size <= 8*8:
			return decodeFlat[[8]uint64](r, p, t, base, whole, f)
		case p.size <= 8*32:
			return decodeFlat[[32]uint64](r, p, t, base, whole, f)
		}
	}
	if p.onStack {
		return decodeStack(r, p, t, base, whole, f)
	}
	s := p.getScratch()
	tmp := s.base
	d := decoder{r: r, strs: s.strs}
	d.enter(f)
	ferr := d.root(p, tmp)
	d.leave(f)
	var err error
	switch {
	case ferr != nil:
		err = publicError("decode", t, ferr)
	case whole && r.BitsRemaining() >= 8:
		err = trailingError(t, r)
	default:
		if s.strs != nil && len(*s.strs) > 0 {
			d.makeStrings()
		}
		commit(p, base, tmp)
	}
	if s.strs != nil && len(*s.strs) > 0 { // refused
		dropStrings(s.strs)
	}
	// A scratch value lives as long as its type is in use, and holds what
	// decodes allocated into it (slice backing arrays, pointees, strings).
	// Once that adds up past scratchKeepLimit over its life it lets go of
	// them (the value itself stays: making it again could cost a client's
	// every other packet a value of the type, uncounted), so neither one
	// big or hostile packet nor a series of them can pin more than that
	// for good; the common case (small packets, reused buffers) allocates
	// nothing and keeps its buffers forever.
	if s.grown += d.grown; s.grown > scratchKeepLimit {
		release(p, tmp)
		s.grown = 0
	}
	p.putScratch(s)
	return err
}

// decodeFlat is decodeScratch for a value of a flat plan (fixed-width
// fields only: nothing to allocate, nothing but bytes to commit) that fits
// in a B: its scratch value is a B on the stack, which needs no handing
// between goroutines — the atomic swaps of getScratch and putScratch cost
// a small packet's decode a third of its time.
func decodeFlat[B [8]uint64 | [32]uint64](r *bitio.Reader, p *plan, t reflect.Type, base pointer, whole bool, f *frame.Frame) error {
	var buf B
	tmp := pointerTo(&buf)
	d := decoder{r: r}
	d.enter(f)
	ferr := d.start(p)
	if ferr == nil {
		ferr = d.runs(p, tmp)
	}
	d.leave(f)
	switch {
	case ferr != nil:
		return publicError("decode", t, ferr)
	case whole && r.BitsRemaining() >= 8:
		return trailingError(t, r)
	}
	if p.dense {
		// memmove, not commitCopies' inline moves: measured 4% faster on
		// Shapes/small's read, perhaps because the moves' 16-byte loads
		// come right after the decoder's narrow stores into buf.
		base.copyFrom(tmp, p.size)
		return nil
	}
	commitCopies(p, base, tmp) // all there is: a flat plan's ops are fixed-width
	return nil
}

// scratchKeepLimit is the most a scratch value may have had allocated into
// it by decodes and still be kept for the next one.
const scratchKeepLimit = 64 << 10

func trailingDetail(n int) string {
	if n == 1 {
		return "1 trailing byte after the value"
	}
	return fmt.Sprintf("%d trailing bytes after the value", n)
}

package bitpack

import (
	"reflect"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/frame"
)

// Decoding on the stack: a value made of fixed-width runs, byte arrays and
// a few raw slices (full-width unsigned elements: nothing to check, see
// op.rawElems) of short maxlen decodes into a buffer on the stack, its
// slices' elements after the value, and commit copies them into the
// caller's value. As decodeFlat, it needs no shared scratch value and so
// no atomic handoff. The reference packet is such a value.

const (
	stackSlicesMax = 4      // raw slices of a value decoded on the stack
	stackBytes     = 32 * 8 // the buffer: the value, then its slices' elements at maxlen
)

// stackSlice is a raw slice a decode on the stack read: its op, its
// length, and where its elements are in the buffer.
type stackSlice struct {
	op, n, at int
}

// stackPlan reports whether a value of p decodes on the stack (see above):
// p is not flat (decodeFlat takes those), and its value and its raw
// slices' elements at maxlen fit the buffer.
func stackPlan(p *plan) bool {
	if p.fixedOnly {
		return false
	}
	used, slices := stackElems(p), 0
	for i := range p.ops {
		o := &p.ops[i]
		switch {
		case kinds[o.kind].fixed, o.kind == KindByteArray:
		case o.kind == KindSlice && o.rawElems() != nil && o.n <= stackBytes:
			slices++
			used += o.n * int(o.stride)
		default:
			return false
		}
	}
	return slices <= stackSlicesMax && used <= stackBytes
}

// stackElems is where a decode on the stack puts the first slice's
// elements: after the value, 8-byte aligned.
func stackElems(p *plan) int { return (int(p.size) + 7) &^ 7 }

// decodeStack is decodeScratch for a value of a stack plan (see above).
func decodeStack(r *bitio.Reader, p *plan, t reflect.Type, base pointer, whole bool, f *frame.Frame) error {
	var buf [stackBytes / 8]uint64
	var slices [stackSlicesMax]stackSlice
	tmp := pointerTo(&buf)
	d := decoder{r: r}
	d.enter(f)
	ferr := d.start(p)
	k := 0
	if ferr == nil {
		k, ferr = d.stackRuns(p, tmp, &slices)
	}
	d.leave(f)
	switch {
	case ferr != nil:
		return publicError("decode", t, ferr)
	case whole && r.BitsRemaining() >= 8:
		return trailingError(t, r)
	}
	commitCopies(p, base, tmp)
	for _, s := range slices[:k] {
		o := &p.ops[s.op]
		at := base.field(o.offset)
		at.setSliceLen(o.typ, s.n) // grows it when short: the decode charged for that
		if s.n > 0 {
			at.sliceElem(0, 0).copyFrom(tmp.index(s.at, 1), uintptr(s.n)*o.stride)
		}
	}
	return nil
}

// stackRuns decodes a value of a stack plan into the buffer at base: its
// read program's runs and byte arrays as decoder.plan's loop runs them
// (a window load of the packet, the Reader's position set after: no call
// but storeFields), raw slices' elements after the value, listed in
// slices. It returns how many slices it listed.
func (d *decoder) stackRuns(p *plan, base pointer, slices *[stackSlicesMax]stackSlice) (int, *fieldError) {
	r, steps := d.r, p.read
	k, used := 0, stackElems(p)
	for i := range steps {
		s := &steps[i]
		if w, pos := readerWindow(r); pos>>3 <= w.last {
			acc := w.word(pos) & s.mask
			switch s.kind {
			case stepRun:
				setReaderPos(r, pos+int(s.bits))
				if n := storeFields(s.scs, base, acc); n < len(s.scs) {
					if err := storeSlow(p, s.scs[n:], base, acc, pos); err != nil {
						return k, err
					}
				}
				continue
			case stepBytes:
				// After padding bits of 0, the bytes as they are: one copy.
				// (decoder.plan's stepBytes case, written out again: as a
				// function it does not inline, and its call costs each
				// loop its reloads: +77 instructions a gameplay decode.)
				if pad := -pos & 7; acc&(1<<pad-1) == 0 {
					if b := (pos + pad) >> 3; b+s.n <= w.last+8 {
						w.copyTo(base.field(s.off), b, s.n)
						setReaderPos(r, 8*(b+s.n))
						continue
					}
				}
			}
		}
		// Through the Reader: the packet's last 8 bytes, a raw or 64-bit
		// run, padding bits set, a raw slice.
		o := &p.ops[s.op]
		start := r.BitsRead()
		switch s.kind {
		case stepRun, stepWide, stepRaw:
			if err := d.runSlow(p, s, base); err != nil {
				return k, err
			}
			continue
		case stepBytes:
			r.ReadBytes(base.field(o.offset).byteArray(o.n))
		default: // a raw slice: a stack plan has no other op (see stackPlan)
			n, err := d.readLength(o, start)
			if err != nil {
				return k, err
			}
			if r.Err() == nil { // readLength made sure the elements are there
				readRaw(r, base.index(used, 1), n, o.stride)
				slices[k] = stackSlice{op: int(s.op), n: n, at: used}
				k++
				used += o.n * int(o.stride)
			}
		}
		if err := r.Err(); err != nil {
			return k, fromBitio(o.path, start, err)
		}
	}
	return k, nil
}

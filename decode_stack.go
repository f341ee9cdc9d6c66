package bitpack

import (
	"reflect"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/frame"
)

// Decoding on the stack: a value made of fixed-width runs, byte arrays, a
// few raw slices (full-width unsigned elements: nothing to check, see
// op.rawElems) of short maxlen and strings decodes into a buffer on the
// stack, its slices' elements after the value, its strings left in the
// packet, and commit copies them into the caller's value, the strings
// that changed made in one allocation. As decodeFlat, it needs no shared
// scratch value and so no atomic handoff. The reference packet and the
// string record (record_test.go) are such values.

const (
	stackItemsMax = 4      // raw slices and strings of a value decoded on the stack
	stackBytes    = 32 * 8 // the buffer: the value, then its slices' elements at maxlen
)

// stackItem is a raw slice or a string a decode on the stack read: its
// op, its length, and where its elements are in the buffer (a slice's) or
// its bytes in the packet (a string's, a byte offset).
type stackItem struct {
	op, n, at int
}

// stackPlan reports whether a value of p decodes on the stack (see above):
// p is not flat (decodeFlat takes those), its value and its raw slices'
// elements at maxlen fit the buffer, and its strings are read program
// steps of their own (stepString).
func stackPlan(p *plan) bool {
	if p.fixedOnly {
		return false
	}
	used, items := stackElems(p), 0
	for i := range p.ops {
		o := &p.ops[i]
		switch {
		case kinds[o.kind].fixed, o.kind == KindByteArray:
		case o.kind == KindSlice && o.rawElems() != nil && o.n <= stackBytes:
			items++
			used += o.n * int(o.stride)
		case o.kind == KindString && stringStep(o):
			items++
		default:
			return false
		}
	}
	return items <= stackItemsMax && used <= stackBytes
}

// stackElems is where a decode on the stack puts the first slice's
// elements: after the value, 8-byte aligned.
func stackElems(p *plan) int { return (int(p.size) + 7) &^ 7 }

// decodeStack is decodeScratch for a value of a stack plan (see above).
func decodeStack(r *bitio.Reader, p *plan, t reflect.Type, base pointer, whole bool, f *frame.Frame) error {
	var buf [stackBytes / 8]uint64
	var items [stackItemsMax]stackItem
	tmp := pointerTo(&buf)
	d := decoder{r: r}
	d.enter(f)
	ferr := d.start(p)
	k := 0
	if ferr == nil {
		k, ferr = d.stackRuns(p, tmp, &items)
	}
	d.leave(f)
	switch {
	case ferr != nil:
		return publicError("decode", t, ferr)
	case whole && r.BitsRemaining() >= 8:
		return trailingError(t, r)
	}
	commitCopies(p, base, tmp)
	strs := 0
	for _, s := range items[:k] {
		o := &p.ops[s.op]
		if o.kind == KindString {
			strs++
			continue
		}
		at := base.field(o.offset)
		at.setSliceLen(o.typ, s.n) // grows it when short: the decode charged for that
		if s.n > 0 {
			at.sliceElem(0, 0).copyFrom(tmp.index(s.at, 1), uintptr(s.n)*o.stride)
		}
	}
	if strs > 0 {
		w, _ := readerWindow(r)
		commitStackStrings(p, base, items[:k], w)
	}
	return nil
}

// commitStackStrings commits the strings among the items a decode on the
// stack read, whose bytes are in the packet w: each string of the value
// at base that differs from its packet's bytes becomes a copy of them, all
// of them in one allocation.
func commitStackStrings(p *plan, base pointer, items []stackItem, w packetWindow) {
	n := 0
	for i := range items {
		s := &items[i]
		if o := &p.ops[s.op]; o.kind != KindString || *base.field(o.offset).string() == string(w.bytes(s.at, s.n)) {
			s.n = -1 // a slice, or a string unchanged: no allocation
		} else {
			n += s.n
		}
	}
	buf := make([]byte, n)
	for _, s := range items {
		if s.n >= 0 {
			k := copy(buf, w.bytes(s.at, s.n))
			base.field(p.ops[s.op].offset).setString(buf[:k]) // buf is not written again
			buf = buf[k:]
		}
	}
}

// stackRuns decodes a value of a stack plan into the buffer at base: its
// read program's runs, byte arrays and strings as decoder.plan's loop runs
// them (a window load of the packet, the Reader's position set after: no
// call but storeFields and a string's check), raw slices' elements after
// the value, listed in items with the strings. It returns how many items
// it listed.
func (d *decoder) stackRuns(p *plan, base pointer, items *[stackItemsMax]stackItem) (int, *fieldError) {
	r, steps := d.r, p.read
	k, used := 0, stackElems(p)
	for i := range steps {
		s := &steps[i]
		if w, pos := readerWindow(r); pos>>3 <= w.last {
			acc := w.word(pos) & s.mask
			switch s.kind {
			case stepRun, stepWide:
				if s.kind == stepWide {
					if acc = wideWord(w, pos, s); pos+int(s.bits) > 8*(w.last+8) {
						break // the packet ends inside it
					}
				}
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
			case stepString:
				if b, end := d.windowString(w, pos, s); end >= 0 {
					items[k] = stackItem{op: int(s.op), n: len(b), at: end>>3 - len(b)}
					k++
					setReaderPos(r, end)
					continue
				}
			}
		}
		// Through the Reader: the packet's last 8 bytes, a raw run, padding
		// bits set, a string readString must word the refusal of, a raw
		// slice.
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
		case stepString:
			b, err := d.readString(o, start)
			if err != nil {
				return k, err
			}
			items[k] = stackItem{op: int(s.op), n: len(b), at: r.BitsRead()>>3 - len(b)}
			k++
		default: // a raw slice: a stack plan has no other op (see stackPlan)
			n, err := d.readLength(o, start)
			if err != nil {
				return k, err
			}
			if r.Err() == nil { // readLength made sure the elements are there
				readRaw(r, base.index(used, 1), n, o.stride)
				items[k] = stackItem{op: int(s.op), n: n, at: used}
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

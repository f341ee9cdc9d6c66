package bitpack

import (
	"slices"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/frame"
)

// The decoder: one checked pass over the packet into a scratch value,
// following a plan's read program (below): fused runs are stored by it
// and by decode_store.go, every other op by its kind.

// A failed decode must leave the caller's value exactly as it was, even
// though decoding reuses the value's slices and pointers. So every decode
// runs one checked pass into a scratch value of the type, kept between
// calls so its buffers are reused, and only when the whole value (and for
// Unmarshal the whole packet) has been accepted is it committed into the
// caller's value (commit.go): copied into that value's own slices and
// pointers where they have room, or handed over (the scratch value lets go
// of them) where they do not. Nothing of the caller's value is written
// before, and the two never share memory after; nor does what the scratch
// value kept from earlier packets show in the result (see settle).
//
// A length prefix is checked against maxlen, and against the bits left in
// the packet (at the elements' minimum size) before anything is allocated
// for it; every allocation and every value visited is charged against the
// decode's allowances first (allowance.go).

// decoder runs plans over a Reader, storing into a scratch value.
type decoder struct {
	r      *bitio.Reader
	grown  int64  // bytes this decode allocated into the scratch value (see decodeScratch)
	depth0 int    // the depth the root plan runs at: 0, or a hook's
	budget budget // the allowances (see allowance.go)
	fresh  bool   // decoding into a new value (Union.Unmarshal and Union.Decode): no scratch, no commit
	// scratch: a delta's scratch value, whose spare pointees new ones come
	// from (see takeSpare); nil otherwise.
	scratch *scratch
	// undo: a delta decoded into its base itself changes it in place,
	// saving what it changes here (see delta_inplace.go); nil otherwise.
	// entry counts the map entries the decode is inside (new values).
	undo  *undoLog
	entry int
	// The flat pointee decoder.plan's last gate opened, and its pointer:
	// where the pointee's run steps, which follow the gate, store. (Kept
	// here, not in plan's registers; no other plan runs in between.)
	pointee pointer
	gate    *op
	// strs: the strings read and held back, to be made once the decode is
	// accepted (see setString); nil: strings are made as they are read,
	// as they are inside a map's entries (inMap > 0).
	strs  *[]pendingString
	inMap int
}

// enter starts a decode. With f, the frame of the Reader it reads (see
// internal/frame), it continues the decode the Reader is part of — a
// hook's (its depth, its allowances and what they have spent), or earlier
// Decodes on the same Reader — or, the first time, starts one with
// allowances for the bits the Reader holds. Without, it is a decode of its
// own, with allowances for the bits the Reader holds.
func (d *decoder) enter(f *frame.Frame) {
	if f == nil {
		d.budget = budgetFor(d.r.BitsRemaining())
		d.budget.bytes = decodeOverheadBytes
		return
	}
	if !f.Active {
		*f = frame.Frame{Active: true}
		b := budgetFor(d.r.BitsRemaining())
		b.bytes = decodeOverheadBytes // the decoder's own bookkeeping, once
		b.store(f)
	}
	d.depth0 = f.Depth
	d.budget.load(f)
}

// leave hands what the decode spent back to f, the frame it entered. (The
// decoder does not keep f: a pointer into the Reader, it would make the
// caller's Reader escape to the heap.)
func (d *decoder) leave(f *frame.Frame) {
	if f != nil {
		d.budget.store(f)
	}
}

// charge charges the allowances (see allowance.go) for what the packet
// is about to make the decode visit and allocate.
func (d *decoder) charge(work, bytes int64, n int, size uintptr, bit int) *fieldError {
	return d.budget.charge(work, bytes, n, size, bit)
}

// grow records n new values of size bytes allocated into the value being
// decoded.
func (d *decoder) grow(n int, size uintptr) {
	d.grown += int64(n) * int64(size)
}

// root decodes a whole value of p at base.
func (d *decoder) root(p *plan, base pointer) *fieldError {
	if err := d.start(p); err != nil {
		return err
	}
	return d.plan(p, base, d.depth0)
}

// start refuses types that nest past MaxDepth, and charges the root's
// cost, before anything is read or allocated for a value of p.
func (d *decoder) start(p *plan) *fieldError {
	if d.depth0+p.levels > MaxDepth {
		if d.depth0 > 0 {
			return newFieldError("", d.r.BitsRead(), ErrDepth, "more than %d nested levels", MaxDepth)
		}
		return newFieldError("", d.r.BitsRead(), ErrDepth, "type nests %d levels, more than %d", p.levels, MaxDepth)
	}
	work, bytes := rootCharge(p, d.fresh)
	return d.charge(work, bytes, 1, uintptr(p.bytes), d.r.BitsRead())
}

// sub runs plan p for a value held by a field at struct level level of a
// plan running at depth, refusing nesting past MaxDepth before it reads
// anything.
func (d *decoder) sub(p *plan, level int, at pointer, depth int) *fieldError {
	dd := depth + level
	if dd+p.levels > MaxDepth {
		return newFieldError("", d.r.BitsRead(), ErrDepth, "more than %d nested levels", MaxDepth)
	}
	return d.plan(p, at, dd)
}

// The read program: a plan's ops as decoder.plan runs them. Fused runs,
// byte arrays, raw runs and pointers to flat pointees (a presence bit,
// then fixed-width fields only) are steps the decoder runs with the read
// position in a local, loading each run's word straight from the packet
// and copying bytes straight from it; every other op is a step its kind
// decodes, through the Reader, as is any step in the packet's last 8
// bytes or one that needs more than the loop does (an allocation, a
// refusal to word).

// How a step is run.
const (
	stepRun    uint8 = iota // a fused run of at most 56 bits: one window load, its fields stored from the word
	stepWide                // a fused run of more bits (one field of up to 64): two window loads
	stepRaw                 // a raw run (see fuse): its bytes copied when at a byte boundary, else readRaw
	stepBytes               // a [N]byte: its padding bits, then its bytes copied
	stepQuat                // a quaternion of at most 56 bits: one window load (see storeQuatWord)
	stepGate                // a pointer to a flat pointee: its presence bit, with the pointee's first run when it fits
	stepString              // a string whose length and padding one window holds (see windowString)
	stepOp                  // any other op: its kind decodes it (decodeOp)
)

// rstep is one step of a read program.
type rstep struct {
	scs  []scalar // stepRun, stepWide, stepGate: the run's fields (a gate's shifted past the presence bit)
	mask uint64   // stepRun, stepWide, stepGate, stepString: 1<<bits - 1; stepBytes: a byte's (its padding is in the window's first)
	kind uint8
	bits uint8 // stepRun, stepGate: the bits one window holds for the step; stepWide: the run's; stepString: its length's
	// stepRaw, stepBytes: where the bytes go, and how many; stepString:
	// where the string goes, and its maxlen.
	off offset
	n   int
	// sub: the step is one of the pointee's the last gate opened; it
	// stores into that pointee, and op is in the pointee's plan.
	sub bool
	op  int32 // the op the step stands for: a run's head, the pointer, the op
	// stepGate: the steps after it that are the pointee's, the levels the
	// pointee adds (the pointer's level and the pointee's own), the
	// pointee's bits and its charge (see pointeeCharge).
	skip        int32
	need        int
	minBits     int64
	work, bytes int64
}

// buildRead builds p.read, once every plan of the type is compiled (a
// gate reads the pointee's runs and levels).
func (p *plan) buildRead() {
	p.read = nil
	for i := 0; i < len(p.ops); {
		o := &p.ops[i]
		switch {
		case o.group > 0:
			p.read = append(p.read, runStepOf(p, i, false))
			i += int(o.group)
		case o.kind == KindQuat && o.bits <= fuseBits:
			p.read = append(p.read, rstep{kind: stepQuat, op: int32(i), bits: uint8(o.bits), mask: 1<<o.bits - 1})
			i++
		case o.kind == KindByteArray:
			p.read = append(p.read, rstep{kind: stepBytes, op: int32(i), off: o.offset, n: o.n, mask: 0xff})
			i++
		case o.kind == KindString && stringStep(o):
			p.read = append(p.read, rstep{kind: stepString, op: int32(i), off: o.offset, n: o.n, bits: uint8(o.bits), mask: 1<<o.bits - 1})
			i++
		case o.kind == KindPointer && o.elem.fixedOnly:
			p.read = append(p.read, gateSteps(o, i)...)
			i++
		default:
			p.read = append(p.read, rstep{kind: stepOp, op: int32(i)})
			i++
		}
	}
}

// wideWord is the word of the wide run step s at bit pos, pos>>3 at most
// w.last: a field of 57 to 64 bits read with two window loads of 32 (the
// second may be in the packet's last 8 bytes). It is the field only when
// the packet holds it, pos+s.bits at most 8*(w.last+8); else it is
// garbage, read from the packet all the same.
func wideWord(w packetWindow, pos int, s *rstep) uint64 {
	return (w.word(pos)&(1<<32-1) | w.wordAt(pos+32)<<32) & s.mask
}

// stringStep reports whether the string op o is a step of its own
// (stepString): its length and padding fit one window.
func stringStep(o *op) bool { return o.bits+7 <= fuseBits }

// runStepOf is the step of the run whose head is p.ops[i].
func runStepOf(p *plan, i int, sub bool) rstep {
	o := &p.ops[i]
	s := rstep{kind: stepRun, sub: sub, op: int32(i), scs: o.scs}
	switch {
	case o.rawRun:
		s.kind, s.off, s.n = stepRaw, o.offset, int(o.group)*int(o.size)
	case o.groupBits > fuseBits:
		s.kind = stepWide
		fallthrough
	default:
		s.bits, s.mask = uint8(o.groupBits), 1<<o.groupBits-1
	}
	return s
}

// gateSteps are the steps of the pointer field o, p.ops[i], to a flat
// pointee: the gate, then the pointee's runs. The gate reads the presence
// bit and the pointee's first run in one word, when they fit one and the
// run is not raw: its fields' shifts count the presence bit.
func gateSteps(o *op, i int) []rstep {
	e := o.elem
	g := rstep{kind: stepGate, bits: 1, mask: 1, op: int32(i), need: o.level + e.levels, minBits: e.minBits}
	g.work, g.bytes = pointeeCharge(o)
	j := 0
	if head := &e.ops[0]; !head.rawRun && 1+head.groupBits <= fuseBits {
		g.bits = uint8(1 + head.groupBits)
		g.mask = 1<<g.bits - 1
		g.scs = slices.Clone(head.scs)
		for k := range g.scs {
			g.scs[k].shift++
		}
		j = int(head.group)
	}
	steps := []rstep{g}
	for j < len(e.ops) {
		steps = append(steps, runStepOf(e, j, true))
		j += int(e.ops[j].group)
	}
	steps[0].skip = int32(len(steps) - 1)
	return steps
}

// plan reads a value following p, checks it and stores it at base. depth
// is the number of struct levels above the plan's root. It runs p's read
// program (see rstep): the inner loop runs the steps it can with the
// Reader's position in a local (runs and bytes in the packet's window,
// gates of pointees that are there and need no allocation); a step it
// cannot run, or a field storeFields does not store, ends it, and the
// step's own code (after through) or storeRest takes that over, through
// the Reader. (Against the loop over ops it replaced, which called
// ReadBits and a store function for each run: 6321 -> 5355 instructions
// per decode of the gameplay message; each call makes the compiler
// reload the loop's state from the stack.) Raw runs and byte arrays at a
// byte boundary, or after padding bits of 0, are their bytes as they are
// in memory: one copy (raw runs as readRaw copies them; stackRuns has this
// case too).
func (d *decoder) plan(p *plan, base pointer, depth int) *fieldError {
	r, steps := d.r, p.read
	for i := 0; ; {
		w, pos := readerWindow(r)
		var (
			s     *rstep
			at    pointer
			acc   uint64
			start int
			k     int
		)
		for ; i < len(steps); i++ {
			s = &steps[i]
			if pos>>3 > w.last {
				goto through // the packet's last 8 bytes, or past its end
			}
			// ReadBits' fast path: 8 bytes left hold 57 bits from any position.
			start, at, acc = pos, base, w.word(pos)&s.mask
			if s.sub {
				at = d.pointee
			}
			switch s.kind {
			case stepRun:
			case stepWide:
				if acc = wideWord(w, pos, s); pos+int(s.bits) > 8*(w.last+8) {
					goto through // the packet ends inside it
				}
			case stepRaw, stepBytes:
				pad := -pos & 7
				if s.kind == stepRaw && (pad != 0 || !nativeLittleEndian) || acc&(1<<pad-1) != 0 {
					goto through
				}
				if b := (pos + pad) >> 3; b+s.n <= w.last+8 {
					w.copyTo(at.field(s.off), b, s.n)
					pos = 8 * (b + s.n)
					continue
				}
				goto through
			case stepString: // (base, not at: d.pointee must not flow into setString, which would move the Reader to the heap)
				if b, end := d.windowString(w, pos, s); end >= 0 {
					d.setString(base.field(s.off), b)
					pos = end
					continue
				}
				goto through // readString words the refusal
			case stepQuat:
				if o := &p.ops[s.op]; storeQuatWord(o, at.field(o.offset), acc) {
					pos += int(s.bits)
					continue
				}
				goto through // a code no encoder writes: decodeQuat words the refusal
			case stepGate:
				o := &p.ops[s.op]
				if s.minBits >= int64(r.BitsRead()+r.BitsRemaining()-pos) || depth+s.need > MaxDepth {
					goto through // decodePointer decides
				}
				at = base.field(o.offset)
				if acc&1 == 0 {
					pos++ // the presence bit only
					at.setNil()
					i += int(s.skip)
					continue
				}
				if at.elem().isNil() || !d.budget.take(s.work, s.bytes) {
					goto through // to allocate, or refused
				}
				at, d.pointee, d.gate = at.elem(), at.elem(), o
			case stepOp:
				setReaderPos(r, pos)
				if err := decodeOp(d, &p.ops[s.op], base, depth); err != nil {
					return err
				}
				w, pos = readerWindow(r)
				continue
			default:
				goto through
			}
			pos += int(s.bits)
			if k = storeFields(s.scs, at, acc); k < len(s.scs) {
				goto store
			}
		}
		setReaderPos(r, pos)
		return nil
	store:
		setReaderPos(r, pos)
		if err := storeRest(p, s, d.gate, s.scs[k:], at, acc, start); err != nil {
			return err
		}
		i++
		continue
	through:
		setReaderPos(r, pos)
		var err *fieldError
		switch n := 1; {
		case s.kind == stepOp, s.kind == stepBytes, s.kind == stepQuat, s.kind == stepString:
			err = decodeOp(d, &p.ops[s.op], base, depth)
		case s.kind == stepGate:
			n, err = d.gateStep(p, s, base, depth)
			i += n - 1
		default:
			err = d.runStep(p, s, base)
		}
		if err != nil {
			return err
		}
		i++
	}
}

// storeRest is storeSlow for the fields scs of step s of p's program,
// its errors' paths completed with the pointer's when s is a pointee's.
func storeRest(p *plan, s *rstep, gate *op, scs []scalar, at pointer, acc uint64, start int) *fieldError {
	if s.kind != stepGate && !s.sub {
		return storeSlow(p, scs, at, acc, start)
	}
	if err := storeSlow(gate.elem, scs, at, acc, start); err != nil {
		return err.withPrefix(gate.path)
	}
	return nil
}

// runStep runs the run step s of p's program through the Reader.
func (d *decoder) runStep(p *plan, s *rstep, base pointer) *fieldError {
	if !s.sub {
		return d.runSlow(p, s, base)
	}
	if err := d.runSlow(d.gate.elem, s, d.pointee); err != nil {
		return err.withPrefix(d.gate.path)
	}
	return nil
}

// gateStep runs the gate s through the Reader: what decodePointer and the
// pointee's plan do, for a pointee of fixed size the packet holds whole,
// within MaxDepth (else decodePointer does it, and the pointee's steps are
// skipped). The presence bit is read with the pointee's first run, and
// given back when it is 0; the pointee is charged and allocated as
// decodePointee does — the same errors, paths and bits.
func (d *decoder) gateStep(p *plan, s *rstep, base pointer, depth int) (int, *fieldError) {
	r, o := d.r, &p.ops[s.op]
	e, skip := o.elem, 1+int(s.skip)
	if s.minBits >= int64(r.BitsRemaining()) || depth+s.need > MaxDepth {
		return skip, decodeOp(d, o, base, depth)
	}
	start, at := r.BitsRead(), base.field(o.offset)
	word := r.ReadBits(int(s.bits)) // in the packet: see minBits
	if word&1 == 0 {
		r.Rewind(start + 1)
		at.setNil()
		return skip, nil
	}
	if err := d.charge(s.work, s.bytes, 1, uintptr(e.bytes), start); err != nil {
		return 1, err.withPrefix(o.path)
	}
	elem := at.elem()
	if elem.isNil() {
		elem = at.setNew(e)
		d.grow(1, o.typ.Size())
	}
	d.pointee, d.gate = elem, o
	if err := storeWord(e, s.scs, elem, word, start); err != nil {
		return 1, err.withPrefix(o.path)
	}
	return 1, nil
}

// runSlow reads the run step s of plan p through the Reader.
func (d *decoder) runSlow(p *plan, s *rstep, base pointer) *fieldError {
	r, o := d.r, &p.ops[s.op]
	switch {
	case o.groupBits > r.BitsRemaining():
		return d.shortRun(p, int(s.op), base)
	case o.rawRun:
		readRaw(r, base.field(o.offset), int(o.group), o.size)
		return nil
	}
	start := r.BitsRead()
	return storeWord(p, s.scs, base, r.ReadBits(o.groupBits), start)
}

// decodeOp decodes the op o of a value at base, not a fixed-width field:
// its kind decides. The Reader's errors are worded here.
func decodeOp(d *decoder, o *op, base pointer, depth int) *fieldError {
	r := d.r
	start, at := r.BitsRead(), base.field(o.offset)
	var err *fieldError
	switch o.kind {
	case KindString:
		err = decodeString(d, o, at, start, depth)
	case KindBytes:
		err = decodeBytes(d, o, at, start, depth)
	case KindByteArray:
		err = decodeByteArray(d, o, at, start, depth)
	case KindArray:
		err = decodeArray(d, o, at, start, depth)
	case KindSlice:
		err = decodeSlice(d, o, at, start, depth)
	case KindPointer:
		err = decodePointer(d, o, at, start, depth)
	case KindQuat:
		err = decodeQuat(d, o, at, start, depth)
	case KindCustom:
		err = decodeHook(d, o, at, start, depth)
	case KindSparse:
		err = decodeSparse(d, o, at, start, depth)
	case KindUnion:
		err = decodeUnion(d, o, at, start, depth)
	case KindCheck:
		err = decodeCheck(d, o, at, start, depth)
	case KindMap:
		err = decodeMap(d, o, at, start, depth)
	case KindTime:
		err = decodeTime(d, o, at, start, depth)
	}
	if err != nil {
		return err
	}
	if err := r.Err(); err != nil {
		return fromBitio(o.path, start, err)
	}
	return nil
}

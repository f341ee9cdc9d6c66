package bitpack

import "slices"

// The read program: a plan's ops as decoder.plan runs them. Fused runs and
// pointers to flat pointees (a presence bit, then fixed-width fields only)
// are steps the decoder runs with the read position in a local, loading
// each run's word straight from the packet; every other op is a step its
// kind decodes, through the Reader. Between such calls nothing touches
// the Reader, so the loop keeps its state in registers.

// How a step is run.
const (
	stepRun  uint8 = iota // a fused run of at most 56 bits: one window load, its fields stored from the word
	stepWide              // a fused run of more bits (a 64-bit field): read through the Reader
	stepRaw               // a raw run (see fuse): readRaw
	stepGate              // a pointer to a flat pointee: its presence bit, with the pointee's first run when it fits
	stepOp                // any other op: its kind decodes it (decodeOp)
)

// rstep is one step of a read program.
type rstep struct {
	scs  []scalar // stepRun, stepWide, stepGate: the run's fields (a gate's shifted past the presence bit)
	kind uint8
	bits uint8 // stepRun, stepGate: the bits one window holds for the step
	// sub: the step is one of the pointee's the last gate opened; it
	// stores into that pointee, and op is in the pointee's plan.
	sub bool
	op  int32 // the op the step stands for: a run's head, the pointer, the op
	// stepGate: the steps after it that are the pointee's, the levels the
	// pointee adds (the pointer's level and the pointee's own), the
	// pointee's bits and its charge (see pointeeCharge).
	skip          int32
	need, minBits int
	work, bytes   int64
}

// buildRead builds p.read, once every plan of the type is compiled (a
// gate reads the pointee's runs and levels).
func (p *plan) buildRead() {
	p.read = nil
	for i := 0; i < len(p.ops); {
		o := &p.ops[i]
		switch {
		case o.group > 0:
			p.read = append(p.read, runStep(p, i, false))
			i += int(o.group)
		case o.kind == KindPointer && o.elem.fixedOnly:
			p.read = append(p.read, gateSteps(o, i)...)
			i++
		default:
			p.read = append(p.read, rstep{kind: stepOp, op: int32(i)})
			i++
		}
	}
}

// runStep is the step of the run whose head is p.ops[i].
func runStep(p *plan, i int, sub bool) rstep {
	o := &p.ops[i]
	s := rstep{kind: stepRun, sub: sub, op: int32(i), scs: o.scs}
	switch {
	case o.rawRun:
		s.kind = stepRaw
	case o.groupBits > fuseBits:
		s.kind = stepWide
	default:
		s.bits = uint8(o.groupBits)
	}
	return s
}

// gateSteps are the steps of the pointer field o, p.ops[i], to a flat
// pointee: the gate, then the pointee's runs. The gate reads the presence
// bit and the pointee's first run in one word, when they fit one and the
// run is not raw: its fields' shifts count the presence bit.
func gateSteps(o *op, i int) []rstep {
	e := o.elem
	g := rstep{kind: stepGate, bits: 1, op: int32(i), need: o.level + e.levels, minBits: e.minBits}
	g.work, g.bytes = pointeeCharge(o)
	j := 0
	if head := &e.ops[0]; !head.rawRun && 1+head.groupBits <= fuseBits {
		g.bits = uint8(1 + head.groupBits)
		g.scs = slices.Clone(head.scs)
		for k := range g.scs {
			g.scs[k].shift++
		}
		j = int(head.group)
	}
	steps := []rstep{g}
	for j < len(e.ops) {
		steps = append(steps, runStep(e, j, true))
		j += int(e.ops[j].group)
	}
	steps[0].skip = int32(len(steps) - 1)
	return steps
}

// plan reads a value following p, checks it and stores it at base. depth
// is the number of struct levels above the plan's root. It runs p's read
// program (see rstep): an inner loop that makes no call runs the steps it
// can with the Reader's position in a local (runs in the packet's window,
// gates of pointees that are there and need no allocation), storing the
// fields itself; a step it cannot run, or a field it does not store, ends
// it, and step or storeRest takes that over, through the Reader. A call
// in the inner loop, even on a path not taken, would make the compiler
// keep its state on the stack and reload it after every step.
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
			// ReadBits' fast path: 8 bytes left hold 57 bits from any
			// position.
			start, at, acc = pos, base, w.word(pos)&(1<<s.bits-1)
			switch s.kind {
			case stepRun:
				if s.sub {
					at = d.pointee
				}
			case stepGate:
				o := &p.ops[s.op]
				if s.minBits >= r.BitsRead()+r.BitsRemaining()-pos || depth+s.need > MaxDepth {
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
			default:
				goto through
			}
			pos += int(s.bits)
			for k = 0; k < len(s.scs); k++ {
				sc := &s.scs[k]
				f := at.field(sc.offset)
				c := acc >> (sc.shift & 63) & sc.mask
				if c > sc.limit {
					goto store
				}
				switch sc.dec {
				case decU8:
					*f.u8() = uint8(c ^ sc.flip + sc.min)
				case decU16:
					*f.u16() = uint16(c ^ sc.flip + sc.min)
				case decU32:
					*f.u32() = uint32(c ^ sc.flip + sc.min)
				case decU64:
					*f.u64() = c ^ sc.flip + sc.min
				case decU8z:
					*f.u8() = uint8(c)
				case decU16z:
					*f.u16() = uint16(c)
				case decU32z:
					*f.u32() = uint32(c)
				case decQ32:
					*f.float32() = sc.q32.Dequantize(uint32(c))
				case decRunQ32:
					q, shift := &sc.q32, sc.shift
					for j := range int(sc.count) {
						if j > 0 {
							if c = acc >> (shift & 63) & sc.mask; c > sc.limit {
								goto store
							}
						}
						*f.index(j, 4).float32() = q.Dequantize(uint32(c))
						shift += sc.width
					}
				case decRunU8:
					if !storeInts[uint8](sc, f, acc) {
						goto store
					}
				case decRunU16:
					if !storeInts[uint16](sc, f, acc) {
						goto store
					}
				case decRunU32:
					if !storeInts[uint32](sc, f, acc) {
						goto store
					}
				case decRunU64:
					if !storeInts[uint64](sc, f, acc) {
						goto store
					}
				default:
					goto store
				}
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
		case s.kind == stepOp:
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
	if s.minBits >= r.BitsRemaining() || depth+s.need > MaxDepth {
		return skip, decodeOp(d, o, base, depth)
	}
	start, at := r.BitsRead(), base.field(o.offset)
	word := r.ReadBits(int(s.bits)) // in the packet: see minBits
	if word&1 == 0 {
		r.Rewind(start + 1)
		at.setNil()
		return skip, nil
	}
	if err := d.charge(s.work, s.bytes, 1, e.size, start); err != nil {
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
	}
	if err != nil {
		return err
	}
	if err := r.Err(); err != nil {
		return fromBitio(o.path, start, err)
	}
	return nil
}

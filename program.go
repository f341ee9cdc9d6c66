package bitpack

import (
	"math"
	"slices"

	"github.com/bitpack-go/bitpack/quant"
)

// Programs: the fixed-width fields of a plan, gathered for both
// executors — fused runs of up to 56 bits the decoder reads with one load
// (scalars), and groups of up to 64 bits the encoder writes with one store
// (encStep).

// Access: how a fixed-width field's Go value is loaded and stored. Every
// such field but a compressed float is an integer of its Go size (see
// kind_int.go's intCode), so encoding is load, subtract, compare, xor, and
// decoding xor, add, store — the same few instructions for every kind,
// selected by access.
const (
	accU8 uint8 = iota // 1-byte unsigned integer or bool
	accU16
	accU32 // also float32 bits
	accU64 // also float64 bits
	accI8  // signed integers: loads sign-extend
	accI16
	accI32
	accI64
	accQ32  // compressed float32
	accQ64  // compressed float64
	accSlow // an integer with unit=: its kind codes and stores it (fieldCode, decodeScalar)
)

// fuseBits is the widest fused group: bitio reads up to 56 bits with one
// window load.
const fuseBits = 56

// fuse marks runs of consecutive fixed-width ops as groups of at most
// fuseBits bits (a single op may be wider: a 64-bit field is a group of
// its own) and builds the plan's compact scalar array. Consecutive raw
// full-width unsigned integers side by side in memory (an unrolled
// [N]uint32) are a raw run instead, of any width: one bitio.ReadUints
// straight into the value (see rawRunAt).
func (p *plan) fuse() {
	ops := p.ops
	type span struct{ head, lo, hi int }
	var spans []span // each run's entries in p.scalars, given to it once p.scalars is whole
	defer func() {
		for _, sp := range spans {
			ops[sp.head].scs = p.scalars[sp.lo:sp.hi:sp.hi]
		}
	}()
	for i := 0; i < len(ops); {
		if !kinds[ops[i].kind].fixed {
			i++
			continue
		}
		if n := rawRunAt(ops, i); n > 0 {
			head := &ops[i]
			head.group, head.groupBits, head.rawRun = uint16(n), n*head.bits, true
			for k := i + 1; k < i+n; k++ {
				ops[k].group = 0
			}
			i += n
			continue
		}
		j, total := i, 0
		for j < len(ops) && kinds[ops[j].kind].fixed && (j == i || total+ops[j].bits <= fuseBits) && (j == i || rawRunAt(ops, j) == 0) {
			total += ops[j].bits
			j++
		}
		head := &ops[i]
		head.group, head.groupBits = uint16(j-i), total
		lo := len(p.scalars)
		shift := 0
		for k := i; k < j; k++ {
			o := &ops[k]
			if k > i {
				o.group = 0
			}
			sc := scalarOf(o, k)
			sc.shift, sc.width, sc.count = uint8(shift), uint8(o.bits), 1
			// A field next to the previous one, of its kind and decoded
			// alike, joins its entry: one dispatch stores a whole vector
			// or array of counters.
			if last := len(p.scalars) - 1; k > i && p.scalars[last].joins(&sc, o.size) {
				p.scalars[last].count++
				p.scalars[last].dec = runDec(sc.access)
			} else {
				p.scalars = append(p.scalars, sc)
			}
			shift += o.bits
		}
		spans = append(spans, span{i, lo, len(p.scalars)})
		i = j
	}
}

// rawRunAt returns the length of the raw run starting at ops[i], or 0:
// at least rawRunMin raw full-width unsigned integers of 2, 4 or 8 bytes
// (any bits valid, nothing to check), consecutive in memory. A fused run
// holds at most three 16-bit ones, one 32-bit one and no 64-bit one
// besides the first, so from four 16-bit and two wider ones up a raw run
// reads them with fewer calls.
func rawRunAt(ops []op, i int) int {
	raw := func(o *op) bool {
		return o.kind == KindUint && !o.ranged && !o.fit && !o.clamp && o.unit <= 1 && uintptr(o.bits) == 8*o.size && o.size >= 2
	}
	if !raw(&ops[i]) {
		return 0
	}
	n := 1
	for j := i + 1; j < len(ops) && raw(&ops[j]) && ops[j].size == ops[i].size && ops[j].offset == ops[j-1].offset.skip(ops[i].size) && n < math.MaxUint16; j++ {
		n++
	}
	if min := 2 + 2*btoi(ops[i].size == 2); n < min {
		return 0
	}
	return n
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// encodeGroupBits is the widest group of fixed-width fields the encoder
// gathers into one WriteBits: a whole word. (The decoder's groups stop at
// fuseBits, what its window reads at once.)
const encodeGroupBits = 64

// Encode step kinds beyond the scalar accesses.
const (
	accQuat       = accSlow + 1 + iota // a float32 smallest-three quaternion of at most 64 bits: its code is the packed wire word
	accPtr                             // a pointer: its presence bit ends a group, the pointee follows
	accRun                             // count integer fields alike, side by side (an array of counters): elem says how to load them
	accOp                              // any other op: encodeOp runs it
	accBytes                           // a byte array: limit bytes, aligned (what encodeOp does, without its dispatch)
	accRaw                             // a slice of raw full-width unsigned integers of size bytes: its length in width bits (up to limit), then the elements
	accEndPointee                      // the end of a spliced pointee's steps (see buildRun): back to the value holding it
	accRawRun                          // a raw run (see fuse) of limit unsigned integers of size bytes, full width
	accString                          // a string of up to limit bytes: its length in width bits, then its bytes, aligned
)

// encStep is one step of a plan's encode program, which encodeValues runs:
// a fixed-width field whose code joins the current group (written with one
// WriteBits at the group's last step), or an op run on its own. A step
// holds everything encoding the field reads, the quantizer included (a
// copy, not a pointer to chase for every value).
type encStep struct {
	offset    offset
	min       uint64      // see the access constants: code = (value - min) ^ flip, valid up to limit
	limit     uint64      //
	flip      uint64      //
	lo, hi    float32     // accQ32: the values encode accepts without clamp (see float32Code)
	q         quant.Float // accQ32
	qq        *quant.Quat // accQuat
	op        int32       // index in plan.ops: errors, and what accOp runs
	kind      uint8       // an access constant, or accQuat, accPtr, accRun, accOp, accBytes, accRaw, ...
	shift     uint8       // the code's bit offset within its group
	groupBits uint8       // last: the group's width
	group     uint16      // index of the step's group among the program's groups
	count     uint8       // fixed-width fields: how many like fields, size bytes apart, the step codes (a Vec3, an array of counters)
	width     uint8       // the bits of each
	size      uint8       // the Go size of each
	elem      uint8       // accRun: the access constant of each
	last      bool        // the group ends here: write it
	clamp     bool        // accQ32: clamp finite values outside the bounds
	spliced   uint16      // accPtr in plan.run: the steps of the pointee that follow it, accEndPointee included (0: a plan of its own)
	levels    uint16      // accPtr with spliced steps: the pointer op's level plus the pointee's levels (the MaxDepth test encodePointee makes)
}

// buildEncode builds p.enc from p.ops (see program).
func (p *plan) buildEncode() {
	p.enc, p.encOut, p.groups = p.program(false)
}

// program builds an encode program from p.ops: consecutive fixed-width
// fields (and quaternions that fit a word) are packed greedily into groups
// of at most encodeGroupBits; every other op is a step of its own. With
// rawRuns, the raw runs fuse would make (an unrolled [N]uint32) are steps
// of their own too, one bitio.WriteUints each (accRawRun). It also returns
// what the program writes, in order, and its number of groups (which
// columns need, for programs without raw runs).
func (p *plan) program(rawRuns bool) (steps []encStep, out []encOut, groups int) {
	steps = make([]encStep, 0, len(p.ops))
	open, bits := false, 0
	end := func() {
		if open {
			st := &steps[len(steps)-1]
			st.last, st.groupBits = true, uint8(bits)
			out = append(out, encOut{op: -1, bits: uint8(bits)})
			groups++
			open = false
		}
	}
	for k := 0; k < len(p.ops); k++ {
		o := &p.ops[k]
		if n := rawRunAt(p.ops, k); rawRuns && n > 0 {
			end()
			steps = append(steps, encStep{kind: accRawRun, op: int32(k), offset: o.offset, limit: uint64(n), size: uint8(o.size)})
			k += n - 1
			continue
		}
		st, ok := encodeStepOf(o, k)
		if !ok {
			end()
			st := encStep{kind: accOp, op: int32(k), offset: o.offset}
			switch {
			case o.kind == KindByteArray:
				st.kind, st.limit = accBytes, uint64(o.n)
			case o.kind == KindSlice && o.rawElems() != nil:
				st.kind, st.limit, st.width, st.size = accRaw, uint64(o.n), uint8(o.bits), uint8(o.stride)
			case o.kind == KindString:
				st.kind, st.limit, st.width = accString, uint64(o.n), uint8(o.bits)
			}
			steps = append(steps, st)
			out = append(out, encOut{op: int32(k)})
			continue
		}
		if open && bits+o.bits > encodeGroupBits {
			end()
		}
		if !open {
			open, bits = true, 0
		}
		st.shift, st.group = uint8(bits), uint16(groups)
		bits += o.bits
		if st.kind == accPtr {
			steps = append(steps, st)
			end()
			out = append(out, encOut{op: int32(k), pointee: true})
			continue
		}
		// A field next to the previous one, of its kind and checked alike,
		// joins its step: one dispatch codes a whole vector or array.
		if last := len(steps) - 1; last >= 0 && steps[last].joins(&st) {
			steps[last].count++
			continue
		}
		steps = append(steps, st)
	}
	end()
	for i := range steps {
		if st := &steps[i]; st.kind <= accI64 && st.count > 1 {
			st.kind, st.elem = accRun, st.kind
		}
	}
	return steps, out, groups
}

// buildRun builds the program encodeValues runs, p.run: p.enc with its
// raw runs written by bitio.WriteUints (see program), and with the steps
// of pointees that are only group steps (spliceable) spliced in after
// their pointer's step, so that a present pointee costs no call and no
// loop of its own, and ended by an accEndPointee step. Their steps refer
// to copies of the pointee's ops with the pointer's path in front,
// appended to p.ops in p.runOps: a refusal names the field as
// encodePointee's would. (Columns run p.enc: a column of pointees is not
// one value's, and raw runs would need outputs of their own.)
func (p *plan) buildRun() {
	run, _, _ := p.program(true)
	p.run, p.runOps = run, p.ops
	splice := func(st *encStep) bool { return st.kind == accPtr && spliceable(p.ops[st.op].elem) }
	if !slices.ContainsFunc(run, func(st encStep) bool { return splice(&st) }) {
		return
	}
	p.run, p.runOps = nil, slices.Clip(p.ops)
	for _, st := range run {
		if !splice(&st) {
			p.run = append(p.run, st)
			continue
		}
		o := &p.ops[st.op]
		e, first := o.elem, int32(len(p.runOps))
		for _, eo := range e.ops {
			eo.path = prefixPath(o.path, eo.path)
			p.runOps = append(p.runOps, eo)
		}
		st.spliced, st.levels = uint16(len(e.enc)+1), uint16(o.level+e.levels)
		p.run = append(p.run, st)
		for _, es := range e.enc {
			es.op += first
			p.run = append(p.run, es)
		}
		p.run = append(p.run, encStep{kind: accEndPointee})
	}
}

// spliceable reports whether the steps of pointee plan e can run inside
// its parent's program: group steps only (nothing that takes the depth, no
// pointer of its own, so never a plan that leads back to itself), and not
// too many of them.
func spliceable(e *plan) bool {
	if len(e.enc) == 0 || len(e.enc) >= math.MaxUint16 || e.levels >= math.MaxUint16/2 {
		return false
	}
	for i := range e.enc {
		if k := e.enc[i].kind; k >= accOp || k == accPtr {
			return false
		}
	}
	return true
}

// encOut is one item of what a value's encoding writes, in order: a group
// (op < 0) of bits bits, ops[op], or the pointee of ops[op] (whose
// presence bit ended the group before).
type encOut struct {
	op      int32
	bits    uint8
	pointee bool
}

// joins reports whether next is the field right after the ones st codes,
// in the same group, of the same kind, and coded and checked alike.
func (st *encStep) joins(next *encStep) bool {
	if st.last || st.kind != next.kind || st.kind > accQ32 || st.width != next.width || st.size != next.size || st.count == math.MaxUint8 ||
		next.offset != st.offset.plus(elemOffset(int(st.count), uintptr(st.size))) || next.op != st.op+int32(st.count) {
		return false
	}
	if st.kind == accQ32 {
		return st.q == next.q && st.lo == next.lo && st.hi == next.hi && st.clamp == next.clamp
	}
	return st.min == next.min && st.limit == next.limit && st.flip == next.flip && st.clamp == next.clamp
}

// encodeStepOf returns the grouped step for ops[k], o, or false when o is
// neither a fixed-width field of at most 64 bits nor a pointer (whose
// presence bit is one).
func encodeStepOf(o *op, k int) (encStep, bool) {
	switch {
	case kinds[o.kind].fixed:
		st := encStep{offset: o.offset, min: o.min, limit: o.limit, flip: o.flip, op: int32(k), kind: o.access, clamp: o.clamp,
			count: 1, width: uint8(o.bits), size: uint8(o.size)}
		if o.unit > 1 { // its kind gives the wire bits as they are
			st.kind, st.min, st.limit, st.flip = accSlow, 0, 1<<o.bits-1, 0
		}
		if o.access == accQ32 {
			st.q, st.lo, st.hi = o.qp.q32, o.qp.lo32, o.qp.hi32
		}
		return st, true
	case o.kind == KindQuat && !o.f64 && o.bits <= encodeGroupBits:
		return encStep{offset: o.offset, limit: math.MaxUint64, op: int32(k), kind: accQuat, qq: o.qq}, true
	case o.kind == KindPointer:
		return encStep{offset: o.offset, limit: 1, op: int32(k), kind: accPtr}, true
	}
	return encStep{}, false
}

// scalarOf returns the compact form of the fixed-width op o, ops[k], at
// shift 0.
func scalarOf(o *op, k int) scalar {
	sc := scalar{offset: o.offset, min: o.min, limit: o.limit, flip: o.flip, mask: 1<<o.bits - 1, q: o.qp, op: int32(k), access: o.access, slow: o.fit || o.unit > 1}
	switch {
	case sc.slow || o.access == accQ64 || o.access == accSlow:
		sc.dec = decSlow
	case o.access == accQ32:
		sc.dec, sc.q32 = decQ32, o.qp.q32
	default:
		sc.dec = [...]uint8{accU8: decU8, accU16: decU16, accU32: decU32, accU64: decU64, accI8: decU8, accI16: decU16, accI32: decU32, accI64: decU64}[o.access]
		if sc.min == 0 && sc.flip == 0 && sc.dec < decU64 {
			sc.dec += decU8z - decU8
		}
	}
	return sc
}

// How storeWord stores a scalar entry: the store of its Go size (signed
// integers are stored as their low bytes), a compressed float32, a run of
// like fields (count > 1: one loop), or decodeScalar, its kind's own
// (integers with unit=, a 32-bit platform's int and uint, compressed
// float64).
const (
	decU8 uint8 = iota
	decU16
	decU32
	decU64
	decU8z // decU8 ... decU32 with min and flip 0: the code is the value
	decU16z
	decU32z
	decQ32
	decRunU8 // a run of like integer fields of 1 ... 8 bytes
	decRunU16
	decRunU32
	decRunU64
	decRunQ32 // a run of like compressed float32 fields
	decSlow
)

// runDec is how storeWord stores a run of like fields of access acc.
func runDec(acc uint8) uint8 {
	switch acc {
	case accQ32:
		return decRunQ32
	case accU8, accI8:
		return decRunU8
	case accU16, accI16:
		return decRunU16
	case accU32, accI32:
		return decRunU32
	}
	return decRunU64
}

// scalar is the compact form of a fixed-width field in a decoder's fused
// run: what the store pass touches, the quantizer included (a copy: no
// pointer to chase), instead of an op's several cache lines. See the access
// constants for min, limit and flip.
type scalar struct {
	offset offset
	min    uint64
	limit  uint64      // the largest valid offset code: span, M, or mask when any bits are valid
	flip   uint64      // wire bits = offset code ^ flip (the sign bit of raw signed fields)
	mask   uint64      // 1<<bits - 1 (all ones for 64)
	q32    quant.Float // decQ32 (and runs of them): the quantizer
	q      *prepared   // compressed floats: the quantizer
	op     int32       // index in plan.ops, for errors
	shift  uint8       // bit offset of the field within its run
	dec    uint8       // how storeWord stores it (decU8 ... decSlow)
	access uint8       // how to load and store the Go value (accU8 ... accQ64)
	slow   bool        // decoding needs more than the limit test (a 32-bit platform's int or uint, unit=)
	width  uint8       // the field's wire bits
	count  uint8       // like fields side by side (a Vec3, an array of counters) the entry stands for, width bits apart on the wire
}

// joins reports whether next is the field right after the ones sc stands
// for, of the same access and decoded and checked alike, so that sc can
// take it as one more element (each size bytes in Go). Compressed float64
// fields never join (rare in a game's packets; storeWord has no loop for
// them).
func (sc *scalar) joins(next *scalar, size uintptr) bool {
	return sc.access == next.access && sc.access != accQ64 && sc.q == next.q && sc.min == next.min && sc.limit == next.limit &&
		sc.flip == next.flip && sc.width == next.width && !sc.slow && !next.slow && sc.count < math.MaxUint8 &&
		next.offset == sc.offset.plus(elemOffset(int(sc.count), size)) && next.op == sc.op+int32(sc.count)
}

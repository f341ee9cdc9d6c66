package bitpack

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// A plan is a type compiled once: a flat list of ops, each with everything
// precomputed (field offset, bit count, range offset and span, quantization
// parameters, field path). Nested structs and small arrays are flattened
// into their parent's list; pointers, slices and large arrays run a
// sub-plan for their element. marshal.go and unmarshal.go execute plans;
// the compiler also records the layout tree that Describe reports.

type opKind uint8

const (
	opBool      opKind = iota
	opUint             // raw unsigned: the low `bits` bits (v < 2^bits)
	opInt              // raw signed: `bits`-bit two's complement
	opRangeUint        // unsigned in [min, min+span]: v-min in `bits` bits
	opRangeInt         // signed in [min, min+span]
	opFloat32          // raw IEEE-754
	opFloat64          //
	opQFloat32         // compressed float (quant.Float)
	opQFloat64         // compressed float64 (quant.Float64)
	opString           // string with maxlen n
	opBytes            // []byte with maxlen n: length, align, raw bytes
	opByteArray        // [n]byte: align, n raw bytes
	opArray            // n elements of elem, stride bytes apart
	opSlice            // length in [0, n], then that many elements of elem
	opPointer          // presence bit, then elem
	opQuat             // smallest-three quaternion; components at offs
	opHook             // MarshalBits / UnmarshalBits of typ
	opSparse           // []*T or [n]*T: int_relative indices of the non-nil elements, then an end marker
	opUnion            // interface field: type index, then the member
	opCheck            // serialize check: align, 32-bit hash
)

type op struct {
	// Hot: what every execution reads. Scalars are executed in fused groups:
	// the first op of a run of consecutive fixed-width fields holds the
	// run's length and total width, so the run costs one WriteBits/ReadBits.
	kind      opKind
	fit       bool    // int/uint on a 32-bit platform: a decoded value must fit 32 bits
	clamp     bool    // compressed floats: clamp instead of refusing out-of-range values
	group     uint16  // scalars: ops in the fused run that starts here (0 inside a run)
	checked   bool    // scalars: the run holds a field whose decoded bits need a check
	bits      int     // wire bits of a scalar or of a length prefix
	groupBits int     // scalars: total wire bits of the run that starts here
	sLo, sHi  int32   // scalars: the run's fields in plan.scalars
	cLo, cHi  int32   // scalars: the run's checks in plan.checks
	offset    uintptr // from the start of the plan's value
	size      uintptr // Go size of the field (scalars are stored in size bytes)
	min       uint64  // opRange*: lower bound (int64 bits for signed)
	span      uint64  // opRange*: max - min
	lo, hi    float64 // compressed floats: the values encode accepts without clamp
	qf        *quant.Float
	qf64      *quant.Float64
	qp        *prepared // compressed floats: the shared quantizer qf or qf64 points into
	n         int       // opString/opBytes/opSlice/opSparse: maxlen; opByteArray/opArray: length
	stride    uintptr   // opArray/opSlice/opSparse: element size
	elem      *plan     // opArray, opSlice, opPointer: the element's plan; opSparse: the pointee's plan
	level     int       // nesting level of the field within the plan: its struct level (0: not in a struct), +1 in a recursive non-struct plan (see finish)

	// Cold: rarer kinds, and what errors and layouts need.
	qq    *quant.Quat
	f64   bool         // opQuat: float64 components
	union *Union       // opUnion
	hash  uint32       // opCheck
	slice bool         // opSparse: a slice (with a length prefix) rather than an array
	offs  [4]uintptr   // opQuat: component offsets from offset
	typ   reflect.Type // opSlice, opSparse: the slice type; opPointer: the element type; opHook, opUnion: the type
	name  string       // opCheck: the check's name
	// opSlice, opSparse: the TagError for the field's own tag, for checks
	// made once the whole type is compiled (see checkFreeSlices).
	refuse func(format string, args ...any) error
	path   string // field path within the plan, e.g. "Pos.X" or "Ammo[3]"
}

// rawElems returns the element op of an array or slice whose elements are
// raw full-width unsigned integers packed back to back (an element struct
// with other fields in memory has a larger stride): they are read and
// written as one run with bitio.ReadUints/WriteUints. Any bits are valid.
func (o *op) rawElems() *op {
	so := o.elem.scalar
	if so == nil || so.kind != opUint || uintptr(so.bits) != 8*so.size || so.fit || o.stride != so.size {
		return nil
	}
	return so
}

// isFlat reports whether a plan's value can be decoded into a scratch value
// and copied out field by field (commit): plain data, strings, slices,
// pointers and arrays of such, recursively. Hooks, unions and sparse arrays
// — values that cannot be copied field by field — are decoded in two passes
// instead. A plan reached again while it is being examined (a recursive
// type) counts as flat: its other ops decide.
func isFlat(p *plan, visiting map[*plan]bool) bool {
	if visiting[p] {
		return true
	}
	visiting[p] = true
	defer delete(visiting, p)
	for i := range p.ops {
		o := &p.ops[i]
		switch o.kind {
		case opHook, opUnion, opSparse:
			return false
		case opArray, opSlice, opPointer:
			if !isFlat(o.elem, visiting) {
				return false
			}
		}
	}
	return true
}

// scratch is a value of a flat plan's type that decodes land in before
// being copied out (see decodeFlat).
type scratch struct {
	v     any     // the *T, keeping it alive
	base  pointer // its address
	grown int64   // bytes decodes have allocated into it (see decodeFlat)
}

// getScratch returns a scratch value for p, reusing a put-back one.
func (p *plan) getScratch() *scratch {
	if s := p.spare.Swap(nil); s != nil {
		return s
	}
	if s, ok := p.pool.Get().(*scratch); ok {
		return s
	}
	v := reflect.New(p.typ)
	return &scratch{v: v.Interface(), base: pointerOf(v)}
}

// putScratch gives a scratch value back for the next decode.
func (p *plan) putScratch(s *scratch) {
	if !p.spare.CompareAndSwap(nil, s) {
		p.pool.Put(s)
	}
}

// minBits is the fewest bits a value of p can take: fixed-width fields,
// length prefixes, presence bits, byte blocks (alignment counts as 0).
// Decoding checks it before allocating elements, so a length prefix cannot
// make it allocate more than the rest of the packet could hold.
//
// The sums saturate at maxMinBits, so that huge arrays cannot overflow an
// int (on 32-bit platforms a [1<<29]byte already takes 2^32 bits).
func minBits(p *plan) int {
	n := 0
	add := func(bits int) { n = min(n+bits, maxMinBits) } // both <= maxMinBits: no overflow
	for i := range p.ops {
		o := &p.ops[i]
		switch o.kind {
		case opByteArray:
			add(mulMinBits(o.n, 8))
		case opArray:
			add(mulMinBits(o.n, o.elem.minBits)) // finished first (see finish)
		case opSparse:
			add(o.bits + 1) // length prefix (slices), end marker
		case opHook:
		default: // scalars; length prefixes; presence bits; quats; checks; union indices
			add(o.bits)
		}
	}
	return n
}

// maxMinBits caps minBits: more than any packet can hold.
const maxMinBits = math.MaxInt / 4

func mulMinBits(n, bits int) int {
	if bits != 0 && n > maxMinBits/bits {
		return maxMinBits
	}
	return n * bits
}

// isDense reports whether commit may copy p's value as one block: its copy
// ranges are all there is (no strings, slices or pointers to follow), and
// the fields its ops write add up to every byte of every field of the type
// (padding left out on both sides), so that nothing outside them but
// padding exists — no field kept off the wire, bits:"-" or unexported,
// whose value a whole copy would overwrite. Ops never overlap, so the sum
// can only match when every field is written.
func isDense(p *plan) bool {
	if len(p.others) > 0 || hasPointers(p.typ) {
		return false
	}
	var written uintptr
	for i := range p.ops {
		o := &p.ops[i]
		switch {
		case isScalar(o.kind), o.kind == opQuat:
			written += o.size // a quaternion's four floats of one kind: no padding
		case o.kind == opByteArray:
			written += uintptr(o.n)
		case o.kind == opArray: // dense, or it would be in others
			written += uintptr(o.n) * fieldBytes(o.elem.typ)
		}
	}
	return written == fieldBytes(p.typ)
}

// fieldBytes is the size of t without padding: the sum of its fields'.
func fieldBytes(t reflect.Type) uintptr {
	switch t.Kind() {
	case reflect.Struct:
		var n uintptr
		for i := 0; i < t.NumField(); i++ {
			n += fieldBytes(t.Field(i).Type)
		}
		return n
	case reflect.Array:
		return uintptr(t.Len()) * fieldBytes(t.Elem())
	}
	return t.Size()
}

// hasPointers reports whether a value of t holds any pointer.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// byteRange is a span of a value's bytes.
type byteRange struct{ off, n uintptr }

// commitRanges lists what commit copies for a flat plan: the byte spans of
// scalars, byte arrays, quaternions and arrays of dense elements
// (pointer-free, so copied raw — a dense array with its padding — and
// merged when adjacent), and the ops that need more than a byte copy.
func commitRanges(p *plan) (copies []byteRange, others []int) {
	add := func(off, n uintptr) {
		if k := len(copies) - 1; k >= 0 && copies[k].off+copies[k].n == off {
			copies[k].n += n
			return
		}
		copies = append(copies, byteRange{off, n})
	}
	for i := range p.ops {
		o := &p.ops[i]
		switch {
		case isScalar(o.kind), o.kind == opQuat:
			add(o.offset, o.size)
		case o.kind == opByteArray:
			add(o.offset, uintptr(o.n))
		case o.kind == opArray && o.elem.dense: // finished first (see finish)
			add(o.offset, uintptr(o.n)*o.stride)
		case o.kind == opCheck:
		default:
			others = append(others, i)
		}
	}
	return copies, others
}

// isScalar reports the fixed-width kinds that fuse into groups.
func isScalar(k opKind) bool {
	switch k {
	case opBool, opUint, opInt, opRangeUint, opRangeInt, opFloat32, opFloat64, opQFloat32, opQFloat64:
		return true
	}
	return false
}

// Every fixed-width field but a compressed float is, in a fused run, an
// integer v of its Go size (bools are 0 or 1, raw floats their bit pattern,
// signed integers sign-extended), and its wire bits are the offset code
// v - min, checked against limit, XOR flip. For a raw N-bit signed field
// min = -2^(N-1) and flip = 2^(N-1), which turns the offset back into two's
// complement; for every other kind flip is 0. So encoding is load, subtract,
// compare, xor; decoding is xor, add, store — the same few instructions for
// every kind, selected by access.
const (
	accU8 uint8 = iota // 1-byte unsigned integer or bool
	accU16
	accU32 // also float32 bits
	accU64 // also float64 bits
	accI8  // signed integers: loads sign-extend
	accI16
	accI32
	accI64
	accQ32 // compressed float32
	accQ64 // compressed float64
)

// needsCheck reports whether a scalar's decoded bits can be invalid: a
// range offset or a quantization code above its maximum, or a 64-bit wire
// value for a 32-bit platform int. Any bit pattern of the other kinds is a
// valid value, so the validation pass skips runs made only of them.
func needsCheck(o *op) bool {
	switch o.kind {
	case opRangeUint, opRangeInt, opQFloat32, opQFloat64:
		return true
	}
	return o.fit
}

// fuseBits is the widest fused group: bitio reads up to 56 bits with one
// window load.
const fuseBits = 56

// fuse marks runs of consecutive scalar ops as groups of at most fuseBits
// bits (a single op may be wider: a 64-bit field is a group of its own) and
// builds the plan's compact scalar and check arrays.
func (p *plan) fuse() {
	ops := p.ops
	for i := 0; i < len(ops); {
		if !isScalar(ops[i].kind) {
			i++
			continue
		}
		j, total := i, 0
		for j < len(ops) && isScalar(ops[j].kind) && (j == i || total+ops[j].bits <= fuseBits) {
			total += ops[j].bits
			j++
		}
		head := &ops[i]
		head.group, head.groupBits, head.checked = uint16(j-i), total, false
		head.sLo, head.cLo = int32(len(p.scalars)), int32(len(p.checks))
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
			} else {
				p.scalars = append(p.scalars, sc)
			}
			if needsCheck(o) {
				head.checked = true
				p.checks = append(p.checks, check{mask: sc.mask, limit: sc.limit, op: int32(k), shift: sc.shift, slow: o.fit})
			}
			shift += o.bits
		}
		head.sHi, head.cHi = int32(len(p.scalars)), int32(len(p.checks))
		i = j
	}
}

// encodeGroupBits is the widest group of fixed-width fields the encoder
// gathers into one WriteBits: a whole word. (The decoder's groups stop at
// fuseBits, what its window reads at once.)
const encodeGroupBits = 64

// Encode step kinds beyond the scalar accesses.
const (
	accQuat  = accQ64 + 1 + iota // a float32 smallest-three quaternion of at most 64 bits: its code is the packed wire word
	accPtr                       // a pointer: its presence bit ends a group, the pointee follows
	accRun                       // count integer fields alike, side by side (an array of counters): elem says how to load them
	accOp                        // any other op: encodeOp runs it
	accBytes                     // a byte array: limit bytes, aligned (what encodeOp does, without its dispatch)
	accRaw                       // a slice of raw full-width unsigned integers of size bytes: its length in width bits (up to limit), then the elements
)

// encStep is one step of a plan's encode program, which encodeValues runs:
// a fixed-width field whose code joins the current group (written with one
// WriteBits at the group's last step), or an op run on its own. A step
// holds everything encoding the field reads, the quantizer included (a
// copy, not a pointer to chase for every value).
type encStep struct {
	offset    uintptr
	min       uint64      // see the access constants: code = (value - min) ^ flip, valid up to limit
	limit     uint64      //
	flip      uint64      //
	lo, hi    float32     // accQ32: the values encode accepts without clamp (prepared's bounds, rounded inwards: the same verdict for every float32)
	q         quant.Float // accQ32
	qq        *quant.Quat // accQuat
	op        int32       // index in plan.ops: errors, and what accOp runs
	kind      uint8       // an access constant, or accQuat, accPtr, accRun, accOp, accBytes, accRaw
	shift     uint8       // the code's bit offset within its group
	groupBits uint8       // last: the group's width
	group     uint16      // index of the step's group among the program's groups
	count     uint8       // fixed-width fields: how many like fields, size bytes apart, the step codes (a Vec3, an array of counters)
	width     uint8       // the bits of each
	size      uint8       // the Go size of each
	elem      uint8       // accRun: the access constant of each
	last      bool        // the group ends here: write it
	clamp     bool        // accQ32: clamp finite values outside the bounds
}

// buildEncode builds p.enc from p.ops: consecutive fixed-width fields (and
// quaternions that fit a word) are packed greedily into groups of at most
// encodeGroupBits; every other op is a step of its own.
func (p *plan) buildEncode() {
	p.enc = make([]encStep, 0, len(p.ops))
	open, bits := false, 0
	end := func() {
		if open {
			st := &p.enc[len(p.enc)-1]
			st.last, st.groupBits = true, uint8(bits)
			p.encOut = append(p.encOut, encOut{op: -1, bits: uint8(bits)})
			p.groups++
			open = false
		}
	}
	for k := range p.ops {
		o := &p.ops[k]
		st, ok := encodeStepOf(o, k)
		if !ok {
			end()
			st := encStep{kind: accOp, op: int32(k), offset: o.offset}
			switch {
			case o.kind == opByteArray:
				st.kind, st.limit = accBytes, uint64(o.n)
			case o.kind == opSlice && o.rawElems() != nil:
				st.kind, st.limit, st.width, st.size = accRaw, uint64(o.n), uint8(o.bits), uint8(o.stride)
			}
			p.enc = append(p.enc, st)
			p.encOut = append(p.encOut, encOut{op: int32(k)})
			continue
		}
		if open && bits+o.bits > encodeGroupBits {
			end()
		}
		if !open {
			open, bits = true, 0
		}
		st.shift, st.group = uint8(bits), uint16(p.groups)
		bits += o.bits
		if st.kind == accPtr {
			p.enc = append(p.enc, st)
			end()
			p.encOut = append(p.encOut, encOut{op: int32(k), pointee: true})
			continue
		}
		// A field next to the previous one, of its kind and checked alike,
		// joins its step: one dispatch codes a whole vector or array.
		if last := len(p.enc) - 1; last >= 0 && p.enc[last].joins(&st) {
			p.enc[last].count++
			continue
		}
		p.enc = append(p.enc, st)
	}
	end()
	for i := range p.enc {
		if st := &p.enc[i]; st.kind <= accI64 && st.count > 1 {
			st.kind, st.elem = accRun, st.kind
		}
	}
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
		next.offset != st.offset+uintptr(st.size)*uintptr(st.count) || next.op != st.op+int32(st.count) {
		return false
	}
	if st.kind == accQ32 {
		return st.q == next.q && st.lo == next.lo && st.hi == next.hi && st.clamp == next.clamp
	}
	return st.min == next.min && st.limit == next.limit && st.flip == next.flip
}

// encodeStepOf returns the grouped step for ops[k], o, or false when o is
// neither a fixed-width field of at most 64 bits nor a pointer (whose
// presence bit is one).
func encodeStepOf(o *op, k int) (encStep, bool) {
	switch {
	case isScalar(o.kind):
		sc := scalarOf(o, k)
		st := encStep{offset: sc.offset, min: sc.min, limit: sc.limit, flip: sc.flip, op: int32(k), kind: sc.access, clamp: o.clamp,
			count: 1, width: uint8(o.bits), size: uint8(o.size)}
		if sc.access == accQ32 {
			st.q, st.lo, st.hi = o.qp.q32, ceil32(o.qp.lo), floor32(o.qp.hi)
		}
		return st, true
	case o.kind == opQuat && !o.f64 && o.bits <= encodeGroupBits:
		return encStep{offset: o.offset, limit: math.MaxUint64, op: int32(k), kind: accQuat, qq: o.qq}, true
	case o.kind == opPointer:
		return encStep{offset: o.offset, limit: 1, op: int32(k), kind: accPtr}, true
	}
	return encStep{}, false
}

// ceil32 returns the smallest float32 at or above x, and floor32 the
// largest at or below it (x within the float32 range): for a float32 f,
// f >= x exactly when f >= ceil32(x), and f <= x when f <= floor32(x).
func ceil32(x float64) float32 {
	c := float32(x)
	if float64(c) < x {
		c = math.Nextafter32(c, float32(math.Inf(1)))
	}
	return c
}

func floor32(x float64) float32 {
	c := float32(x)
	if float64(c) > x {
		c = math.Nextafter32(c, float32(math.Inf(-1)))
	}
	return c
}

// scalarOf returns the compact form of the scalar op o, ops[k], at shift 0.
func scalarOf(o *op, k int) scalar {
	sc := scalar{offset: o.offset, min: o.min, mask: 1<<o.bits - 1, q: o.qp, op: int32(k), slow: o.fit}
	sc.limit = sc.mask
	sc.access = [9]uint8{1: accU8, 2: accU16, 4: accU32, 8: accU64}[o.size]
	switch o.kind {
	case opRangeUint:
		sc.limit = o.span
	case opRangeInt:
		sc.limit = o.span
		sc.access += accI8
	case opUint:
		sc.min = 0
	case opInt:
		sc.min, sc.flip = uint64(int64(-1)<<(o.bits-1)), 1<<(o.bits-1)
		sc.access += accI8
	case opFloat32, opFloat64, opBool:
		sc.min = 0
	case opQFloat32:
		sc.min, sc.limit, sc.access = 0, uint64(o.qf.MaxCode()), accQ32
	case opQFloat64:
		sc.min, sc.limit, sc.access = 0, uint64(o.qf64.MaxCode()), accQ64
	}
	return sc
}

// scalar is the compact form of a fixed-width field in a decoder's fused
// run: what the store pass touches, in one cache line instead of an op's
// several (encoding builds its encStep from it). See the access constants
// for min, limit and flip.
type scalar struct {
	offset uintptr
	min    uint64
	limit  uint64    // the largest valid offset code: span, M, or mask when any bits are valid
	flip   uint64    // wire bits = offset code ^ flip (the sign bit of raw signed fields)
	mask   uint64    // 1<<bits - 1 (all ones for 64)
	q      *prepared // compressed floats: the quantizer
	op     int32     // index in plan.ops, for errors
	shift  uint8     // bit offset of the field within its run
	access uint8     // how to load and store the Go value (accU8 ... accQ64)
	slow   bool      // decoding needs more than the limit test (a 32-bit platform's int or uint)
	width  uint8     // the field's wire bits
	count  uint8     // like fields side by side (a Vec3, an array of counters) the entry stands for, width bits apart on the wire
}

// joins reports whether next is the field right after the ones sc stands
// for, of the same access and decoded and checked alike, so that sc can
// take it as one more element (each size bytes in Go). Compressed float64
// fields never join (rare in a game's packets; storeRun has no loop for
// them).
func (sc *scalar) joins(next *scalar, size uintptr) bool {
	return sc.access == next.access && sc.access != accQ64 && sc.q == next.q && sc.min == next.min && sc.limit == next.limit &&
		sc.flip == next.flip && sc.width == next.width && !sc.slow && !next.slow && sc.count < math.MaxUint8 &&
		next.offset == sc.offset+size*uintptr(sc.count) && next.op == sc.op+int32(sc.count)
}

// check is what the validation pass needs of a field whose bits can be
// invalid: its code must be at most limit.
type check struct {
	mask, limit uint64
	op          int32 // index in plan.ops
	shift       uint8
	slow        bool // the test is more than a limit (a 32-bit platform's signed int): decodeScalar decides
}

type plan struct {
	typ reflect.Type
	ops []op
	// flat plans (no hooks, unions or sparse arrays anywhere: values commit
	// can copy field by field) decode in one pass into a scratch value,
	// then copy into the target.
	flat    bool
	dense   bool                    // all but padding is pointer-free wire data: commit copies the value whole
	minBits int                     // the fewest bits a value takes (0 when it has no fixed part)
	spare   atomic.Pointer[scratch] // the last scratch value put back: no pool round trip when uncontended
	pool    sync.Pool               // more scratch values, when goroutines decode the type at once
	copies  []byteRange             // flat plans: the pointer-free bytes a decode writes, coalesced
	others  []int                   // flat plans: the ops commit handles one by one (strings, slices, loops)
	scalars []scalar                // fused runs' fields, in order
	enc     []encStep               // the encode program: every op, fixed-width fields gathered into groups of up to 64 bits
	encOut  []encOut                // the encode program's output order: its groups and its other ops (see encodeColumns)
	groups  int                     // the encode program's groups
	checks  []check                 // fused runs' fields that need a check, in order
	scalar  *op                     // the only op, when the plan is one scalar at offset 0 (tight element loops)
	root    *Field                  // layout
	levels  int                     // struct levels the inline part spans: 0 for non-structs, 1 for a flat struct (and see finish)
	use     usage                   // option kinds that reached a leaf inside (see usage)

	compiling bool // planFor has not returned yet
	reentered bool // reached again while compiling: on a cycle of plans
}

// usage records which kinds of inherited option reached a leaf, so that a
// struct-level tag that applies to nothing is reported.
type usage struct{ ints, floats, quats bool }

func (u *usage) merge(o usage) {
	u.ints = u.ints || o.ints
	u.floats = u.floats || o.floats
	u.quats = u.quats || o.quats
}

// ---------------------------------------------------------------------------
// The cache: one entry per top-level type, compiled exactly once even when
// many goroutines ask for it at the same time (a sync.Once per entry; the
// entry itself is published with LoadOrStore).

type cacheEntry struct {
	once sync.Once
	plan *plan
	err  error
	gen  uint64 // registryGen when compiled
}

var planCache sync.Map // reflect.Type -> *cacheEntry

// compiles counts compilations per type, so tests can check "exactly once".
var compiles sync.Map // reflect.Type -> *int64 (guarded by the entry's Once)

// planOf returns the cached plan for t, compiling it on first use. A
// compile error is cached too, until a union is registered: the error may
// have been an interface field waiting for its union.
func planOf(t reflect.Type) (*plan, error) {
	for {
		e, ok := planCache.Load(t)
		if !ok {
			e, _ = planCache.LoadOrStore(t, new(cacheEntry))
		}
		entry := e.(*cacheEntry)
		entry.once.Do(func() {
			n, _ := compiles.LoadOrStore(t, new(int64))
			*n.(*int64)++
			entry.gen = registryGen.Load()
			entry.plan, entry.err = compile(t)
		})
		if entry.err != nil && entry.gen != registryGen.Load() {
			planCache.CompareAndDelete(t, entry)
			continue
		}
		return entry.plan, entry.err
	}
}

// byPointerType is the hot-path cache of Marshal, Append and Unmarshal: the
// plan of T keyed by the type word of *T, the argument they are given. It
// is a copy-on-write map behind an atomic pointer: reads take no lock and
// hash a pointer, and it only grows when a type is first used.
var byPointerType atomic.Pointer[map[typeID]*plan]

// planOfPointer returns the plan for a non-nil *T argument and the address
// it holds, or ok == false when v is anything else (or not cached yet).
func planOfPointer(v any) (p *plan, base pointer, ok bool) {
	id, base := ifaceOf(v)
	if m := byPointerType.Load(); m != nil && !base.isNil() {
		if p, ok = (*m)[id]; ok {
			return p, base, true
		}
	}
	return nil, pointer{}, false
}

// rememberPointerType caches p for the *T argument v.
func rememberPointerType(v any, p *plan) {
	id, _ := ifaceOf(v)
	for {
		old := byPointerType.Load()
		next := map[typeID]*plan{id: p}
		if old != nil {
			if _, ok := (*old)[id]; ok {
				return
			}
			for k, x := range *old {
				next[k] = x
			}
		}
		if byPointerType.CompareAndSwap(old, &next) {
			return
		}
	}
}

// compile builds the plan for a top-level type.
func compile(t reflect.Type) (*plan, error) {
	c := &compiler{memo: map[memoKey]*plan{}}
	p, err := c.planFor(t, &tagOptions{}, fieldCtx{owner: t})
	if err != nil {
		return nil, err
	}
	// What depends on other plans is decided once the whole type graph is
	// compiled (a plan reached again while it was being compiled is
	// complete only then), for every plan of it.
	finished := map[*plan]bool{}
	for _, q := range c.memo {
		q.flat = isFlat(q, map[*plan]bool{})
		finish(q, finished)
	}
	for _, q := range c.memo {
		if err := checkFreeSlices(q); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// checkFreeSlices refuses tags that would let a few bytes of packet
// allocate more than allocBaseBytes (see there) through one slice: sparse
// slices (an absent element is free) and slices of elements with nothing
// variable to send (range=5..5, only skipped fields, empty structs, each
// counted as at least one byte). It runs once the whole type is compiled,
// when the elements' minimum sizes are known. (Decoding bounds what
// several such slices in one packet add up to.)
func checkFreeSlices(p *plan) error {
	for i := range p.ops {
		o := &p.ops[i]
		free := o.kind == opSlice && o.elem.minBits == 0 || o.kind == opSparse && o.slice
		if size := uint64(max(o.stride, 1)); free && uint64(o.n) > allocBaseBytes/size {
			why := "its elements can take no bits on the wire"
			if o.kind == opSparse {
				why = "absent elements take no bits on the wire"
			}
			return o.refuse("maxlen=%d: %s, so a packet of a few bytes could make the decoder allocate %d×%d bytes; at most %d bytes (maxlen %d) is allowed", o.n, why, o.n, size, allocBaseBytes, allocBaseBytes/size)
		}
	}
	return nil
}

// finish computes what a plan takes from its array elements' plans: the
// copy ranges and density commit uses, and the fewest bits a value takes.
// Array elements are finished first; arrays cannot contain themselves, so
// the recursion ends.
//
// It also makes a recursive plan that is not a struct (type P *P, type
// A [1]*A) count as one level: every cycle of plans passes through a plan
// that was reached again while being compiled, so counting those bounds
// the recursion by MaxDepth even when no struct is on the cycle.
func finish(p *plan, finished map[*plan]bool) {
	if finished[p] {
		return
	}
	finished[p] = true
	for i := range p.ops {
		if o := &p.ops[i]; o.kind == opArray {
			finish(o.elem, finished)
		}
	}
	if p.reentered && p.typ.Kind() != reflect.Struct {
		// Its fields sit one level deeper than they would: each pass
		// through it is a nesting level, as each pass through a struct is.
		for i := range p.ops {
			p.ops[i].level++
			p.levels = max(p.levels, p.ops[i].level)
		}
	}
	p.copies, p.others = commitRanges(p)
	p.dense = isDense(p)
	p.minBits = minBits(p)
}

// ---------------------------------------------------------------------------
// The compiler.

type compiler struct {
	memo map[memoKey]*plan
}

type memoKey struct {
	t         reflect.Type
	opts      tagOptions
	inherited bool
}

// fieldCtx says where a value being compiled sits and where its options
// came from.
type fieldCtx struct {
	offset    uintptr      // of the value within the plan's root
	path      string       // of the value within the plan's root (runtime error paths)
	where     string       // of the value within the top-level type (TagError messages)
	level     int          // struct level of the value's container (0 at a plan root)
	owner     reflect.Type // the struct that declares the field
	field     string       // the field's name within owner
	promoted  *promotion   // inside an embedded struct: which of the fields promoted from it are sent
	vpath     string       // inside an embedded struct: its index path from promoted.into
	inherited bool         // options came down from a struct-level tag...
	tagOwner  reflect.Type // ...written on this struct's field
	tagField  string
	use       *usage // where inherited options record that they reached a leaf
}

// structural reports a problem with the field itself (its type, a missing
// maxlen).
func (f fieldCtx) structural(o *tagOptions, format string, args ...any) error {
	text := ""
	if !f.inherited && o != nil {
		text = o.text
	}
	return &TagError{Type: f.owner, Field: f.field, Tag: text, Problem: fmt.Sprintf(format, args...)}
}

// tagged reports a problem with the options the field was given, naming
// the field where they were written.
func (f fieldCtx) tagged(o *tagOptions, format string, args ...any) error {
	owner, field := f.owner, f.field
	problem := fmt.Sprintf(format, args...)
	if f.inherited {
		owner, field = f.tagOwner, f.tagField
		problem = fmt.Sprintf("at %s: %s", f.where, problem)
	}
	return &TagError{Type: owner, Field: field, Tag: o.text, Problem: problem}
}

// descend returns the context of a part of the current value: seg is its
// path segment and off its offset.
func (f fieldCtx) descend(seg string, off uintptr) fieldCtx {
	g := f
	g.offset = f.offset + off
	g.path = joinPath(f.path, seg)
	g.where = joinPath(f.where, seg)
	return g
}

// joinPath joins a path and a segment: "Pos"+"X" = "Pos.X", "Ammo"+"[3]" = "Ammo[3]".
func joinPath(prefix, seg string) string {
	switch {
	case seg == "":
		return prefix
	case prefix == "":
		return seg
	case seg[0] == '[':
		return prefix + seg
	}
	return prefix + "." + seg
}

// planFor compiles t with options o into a standalone plan (offsets from the
// start of a t value), reusing a memoized plan for the same (type, options):
// that is what lets recursive types compile.
func (c *compiler) planFor(t reflect.Type, o *tagOptions, f fieldCtx) (*plan, error) {
	key := memoKey{t: t, opts: *o, inherited: f.inherited}
	key.opts.text = "" // the text only words error messages; equal options share a plan
	if p, ok := c.memo[key]; ok {
		if f.use != nil {
			f.use.merge(p.use)
		}
		if p.compiling {
			p.reentered = true
		}
		return p, nil
	}
	p := &plan{typ: t, root: &Field{Type: t}, compiling: true}
	c.memo[key] = p
	// Offsets and paths inside a sub-plan are relative to its element; an
	// error's path is completed while the error travels up.
	inner := f
	inner.offset, inner.level, inner.path = 0, 0, ""
	inner.use = &p.use
	root, err := c.appendValue(&p.ops, t, o, inner)
	if err != nil {
		delete(c.memo, key)
		return nil, err
	}
	*p.root = *root // keep the node pointer that recursive references already hold
	p.compiling = false
	p.fuse()
	p.buildEncode()
	if len(p.ops) == 1 && isScalar(p.ops[0].kind) && p.ops[0].offset == 0 {
		p.scalar = &p.ops[0]
	}
	for i := range p.ops {
		p.levels = max(p.levels, p.ops[i].level)
	}
	if t.Kind() == reflect.Struct {
		p.levels = max(p.levels, 1) // a struct whose fields are all skipped still counts
	}

	if f.use != nil {
		f.use.merge(p.use)
	}
	return p, nil
}

var (
	marshalerType   = reflect.TypeFor[Marshaler]()
	unmarshalerType = reflect.TypeFor[Unmarshaler]()
)

// hasHooks reports whether *t implements the custom hooks, and refuses a
// type that implements only one of the two.
func hasHooks(t reflect.Type, f fieldCtx) (bool, error) {
	pt := reflect.PointerTo(t)
	m, u := pt.Implements(marshalerType), pt.Implements(unmarshalerType)
	switch {
	case m && u:
		return true, nil
	case m:
		return false, f.structural(nil, "%s implements MarshalBits but not UnmarshalBits; implement both", t)
	case u:
		return false, f.structural(nil, "%s implements UnmarshalBits but not MarshalBits; implement both", t)
	}
	return false, nil
}

// only reports whether o holds no options besides those keep accepts.
func only(o *tagOptions, keep func(*tagOptions)) bool {
	rest := *o
	keep(&rest)
	rest.text = ""
	return rest == tagOptions{}
}

// notApplicable is the error for direct options a type cannot take.
func (f fieldCtx) notApplicable(o *tagOptions, t reflect.Type) error {
	return f.tagged(o, "%s does not apply to %s", o.names(), t)
}

// appendValue compiles a value of type t at f.offset: it appends the ops
// and returns the layout node.
func (c *compiler) appendValue(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx) (*Field, error) {
	base := op{offset: f.offset, path: f.path, level: f.level, size: t.Size()}
	if t == checkType {
		return c.appendCheck(ops, o, f, base)
	}
	if o.checkSet && !f.inherited {
		return nil, f.tagged(o, "check applies to fields of type bitpack.Check, not %s", t)
	}
	if ok, err := hasHooks(t, f); err != nil {
		return nil, err
	} else if ok {
		if !f.inherited && !o.isZero() {
			return nil, f.tagged(o, "options do not apply to %s, which encodes itself with MarshalBits", t)
		}
		base.kind, base.typ = opHook, t
		*ops = append(*ops, base)
		return &Field{Type: t, Kind: KindCustom}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		if !f.inherited && !o.isZero() {
			return nil, f.notApplicable(o, t)
		}
		base.kind, base.bits = opBool, 1
		*ops = append(*ops, base)
		return &Field{Type: t, Kind: KindBool, Bits: 1}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return c.appendInt(ops, t, o, f, base)
	case reflect.Float32, reflect.Float64:
		return c.appendFloat(ops, t, o, f, base)
	case reflect.String:
		if !f.inherited && !only(o, func(r *tagOptions) { r.maxlenSet, r.maxlen = false, 0 }) {
			return nil, f.notApplicable(o, t)
		}
		if f.inherited || !o.maxlenSet {
			return nil, f.structural(o, "string needs a maxlen tag of its own, e.g. bits:\"maxlen=32\"")
		}
		base.kind, base.n, base.bits = opString, o.maxlen, bitio.BitsRequired(0, uint64(o.maxlen))
		*ops = append(*ops, base)
		return &Field{Type: t, Kind: KindString, MaxLen: o.maxlen, Bits: base.bits}, nil
	case reflect.Slice:
		return c.appendSlice(ops, t, o, f, base)
	case reflect.Array:
		return c.appendArray(ops, t, o, f, base)
	case reflect.Pointer:
		// Options on a pointer apply to what it points to.
		elem, err := c.planFor(t.Elem(), o, f.descend("", 0))
		if err != nil {
			return nil, err
		}
		base.kind, base.bits, base.elem, base.typ = opPointer, 1, elem, t.Elem()
		*ops = append(*ops, base)
		return &Field{Type: t, Kind: KindPointer, Elem: elem.root}, nil
	case reflect.Struct:
		return c.appendStruct(ops, t, o, f)
	case reflect.Interface:
		if u := unionFor(t); u != nil {
			if !f.inherited && !o.isZero() {
				return nil, f.notApplicable(o, t)
			}
			base.kind, base.union, base.typ, base.bits = opUnion, u, t, u.bits
			*ops = append(*ops, base)
			return &Field{Type: t, Kind: KindUnion, Bits: u.bits, union: u}, nil
		}
	}
	return nil, f.structural(o, "%s is not supported (%s have no wire form)", t, kindName(t.Kind()))
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Map:
		return "maps"
	case reflect.Interface:
		return "interfaces not registered with RegisterUnion"
	case reflect.Chan:
		return "channels"
	case reflect.Func:
		return "functions"
	case reflect.Complex64, reflect.Complex128:
		return "complex numbers"
	case reflect.UnsafePointer:
		return "unsafe pointers"
	case reflect.Uintptr:
		return "uintptrs"
	}
	return k.String() + "s"
}

func (c *compiler) appendInt(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	k := t.Kind()
	signed := k >= reflect.Int && k <= reflect.Int64
	width := t.Bits()
	if k == reflect.Int || k == reflect.Uint {
		width = 64 // int and uint are 64 bits on the wire on every platform
		base.fit = t.Bits() < 64
	}
	base.size = t.Size()
	if !f.inherited && !only(o, func(r *tagOptions) {
		r.rangeSet, r.rangeLo, r.rangeHi, r.bitsSet, r.bits = false, "", "", false, 0
	}) {
		return nil, f.notApplicable(o, t)
	}
	if o.hasInt() && f.use != nil {
		f.use.ints = true
	}
	node := &Field{Type: t, Kind: KindUint}
	if signed {
		node.Kind = KindInt
	}
	switch {
	case o.rangeSet:
		node.Ranged = true
		if signed {
			lo, hi, ok := o.signedRange(width)
			if !ok {
				return nil, f.tagged(o, "range %s..%s does not fit %s", o.rangeLo, o.rangeHi, t)
			}
			base.kind, base.min, base.span = opRangeInt, uint64(lo), uint64(hi)-uint64(lo)
			node.IntMin, node.IntMax = lo, hi
		} else {
			lo, hi, ok := o.unsignedRange(width)
			if !ok {
				return nil, f.tagged(o, "range %s..%s does not fit %s", o.rangeLo, o.rangeHi, t)
			}
			base.kind, base.min, base.span = opRangeUint, lo, hi-lo
			node.UintMin, node.UintMax = lo, hi
		}
		base.bits = bitio.BitsRequired(0, base.span)
	case o.hasInt(): // bits=N
		if o.bits < 1 || o.bits > width {
			return nil, f.tagged(o, "bits=%d does not fit %s (1..%d)", o.bits, t, width)
		}
		base.bits = o.bits
		fallthrough
	default:
		if base.bits == 0 {
			base.bits = width
		}
		base.kind = opUint
		node.UintMax = math.MaxUint64 >> (64 - base.bits)
		if signed {
			base.kind = opInt
			node.IntMin, node.IntMax = -1<<(base.bits-1), 1<<(base.bits-1)-1
			node.UintMax = 0
		}
	}
	if base.fit { // the Go type is narrower than the wire on this platform
		if signed {
			node.IntMin, node.IntMax = max(node.IntMin, math.MinInt32), min(node.IntMax, math.MaxInt32)
		} else {
			node.UintMax = min(node.UintMax, math.MaxUint32)
		}
	}
	node.Bits = base.bits
	*ops = append(*ops, base)
	return node, nil
}

// Quantizers are prepared once per declaration (width, min, max, res) and
// shared: preparing one checks every code for canonicity and, for float32,
// whether decoding may multiply by 1/M instead of dividing — exhaustive
// checks that may take tens of milliseconds for large step counts.
var quantizers sync.Map // [4]float64 -> *prepared

type prepared struct {
	q32    quant.Float
	q64    quant.Float64
	lo, hi float64 // what encode accepts without clamp: the bounds, widened to the decoded extremes
	err    error   // from NewFloat/NewFloat64 or the canonical check
}

func prepareQuantizer(width int, min, max, res float64) *prepared {
	key := [4]float64{float64(width), min, max, res}
	if v, ok := quantizers.Load(key); ok {
		return v.(*prepared)
	}
	p := new(prepared)
	// Decoded extremes may land a rounding outside the tag's bounds; encode
	// accepts them so every decoded value re-encodes.
	if width == 32 {
		if p.q32, p.err = quant.NewFloat(float32(min), float32(max), float32(res)); p.err == nil {
			if p.err = p.q32.CheckCanonical(); p.err == nil {
				p.q32.VerifyReciprocal()
			}
			p.lo = math.Min(min, float64(p.q32.Dequantize(0)))
			p.hi = math.Max(max, float64(p.q32.Dequantize(p.q32.MaxCode())))
		}
	} else if p.q64, p.err = quant.NewFloat64(min, max, res); p.err == nil {
		p.err = p.q64.CheckCanonical()
		p.lo = math.Min(min, p.q64.Dequantize(0))
		p.hi = math.Max(max, p.q64.Dequantize(p.q64.MaxCode()))
	}
	v, _ := quantizers.LoadOrStore(key, p)
	return v.(*prepared)
}

func (c *compiler) appendFloat(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	width := t.Bits()
	if !f.inherited && !only(o, func(r *tagOptions) {
		r.float, r.minSet, r.maxSet, r.resSet, r.min, r.max, r.res, r.clamp = false, false, false, false, "", "", "", false
	}) {
		return nil, f.notApplicable(o, t)
	}
	if !o.float {
		base.kind, base.bits = opFloat32, 32
		if width == 64 {
			base.kind, base.bits = opFloat64, 64
		}
		*ops = append(*ops, base)
		return &Field{Type: t, Kind: KindFloat, Bits: base.bits}, nil
	}
	if f.use != nil {
		f.use.floats = true
	}
	min, max, res, err := o.floatParams(width)
	if err != nil {
		return nil, f.tagged(o, "%v", err)
	}
	base.clamp = o.clamp
	pq := prepareQuantizer(width, min, max, res)
	var ce *quant.CanonicalError
	switch {
	case errors.As(pq.err, &ce) && width == 32:
		return nil, f.tagged(o, "float32 cannot hold res=%s canonically over [%s, %s] (%v); use a coarser res or a float64 field", o.res, o.min, o.max, pq.err)
	case errors.As(pq.err, &ce):
		return nil, f.tagged(o, "float64 cannot hold res=%s canonically over [%s, %s] (%v); use a coarser res", o.res, o.min, o.max, pq.err)
	case pq.err != nil:
		return nil, f.tagged(o, "%v", pq.err)
	case width == 32:
		base.kind, base.bits, base.qf, base.qp = opQFloat32, pq.q32.Bits(), &pq.q32, pq
		base.lo, base.hi = pq.lo, pq.hi
	default:
		base.kind, base.bits, base.qf64, base.qp = opQFloat64, pq.q64.Bits(), &pq.q64, pq
		base.lo, base.hi = pq.lo, pq.hi
	}
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindCompressedFloat, Bits: base.bits, FloatMin: min, FloatMax: max, Res: res, Clamp: o.clamp}, nil
}

func (c *compiler) appendSlice(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	if f.inherited || !o.maxlenSet {
		// maxlen is never inherited, and a slice without one cannot be sized.
		return nil, f.structural(o, "%s needs a maxlen tag of its own, e.g. bits:\"maxlen=16\"", t)
	}
	if o.sparse {
		return c.appendSparse(ops, t, o, f, base)
	}
	if err := checkSliceBytes(t, o, f); err != nil {
		return nil, err
	}
	elemOpts := *o
	elemOpts.maxlenSet, elemOpts.maxlen = false, 0
	base.n, base.bits = o.maxlen, bitio.BitsRequired(0, uint64(o.maxlen))
	et := t.Elem()
	if et.Kind() == reflect.Uint8 && elemOpts.isZero() {
		if ok, _ := hasHooks(et, f); !ok {
			base.kind = opBytes
			*ops = append(*ops, base)
			return &Field{Type: t, Kind: KindBytes, MaxLen: o.maxlen, Bits: base.bits}, nil
		}
	}
	// Other options apply to the elements (SPEC §6).
	elem, err := c.planFor(et, &elemOpts, f.descend("[]", 0))
	if err != nil {
		return nil, err
	}
	base.kind, base.elem, base.typ, base.stride = opSlice, elem, t, et.Size()
	base.refuse = func(format string, args ...any) error { return f.tagged(o, format, args...) }
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindSlice, MaxLen: o.maxlen, Bits: base.bits, Elem: elem.root}, nil
}

// maxSliceBytes bounds maxlen × element size. Decoding may allocate that
// much for one slice (the elements' wire bits are checked against the
// packet first, but elements that take few bits can stand for many bytes,
// and a sparse slice's absent elements take none), so a tag must not allow
// more than the platform can allocate: beyond it Go's allocator panics or
// the process runs out of memory on one packet.
const maxSliceBytes = min(math.MaxInt/2, 1<<40)

func checkSliceBytes(t reflect.Type, o *tagOptions, f fieldCtx) error {
	if size := t.Elem().Size(); size > 0 && uint64(o.maxlen) > uint64(maxSliceBytes)/uint64(size) {
		return f.tagged(o, "maxlen=%d of %s (%d bytes each) exceeds the %d bytes one decoded slice may take", o.maxlen, t.Elem(), size, uint64(maxSliceBytes))
	}
	return nil
}

// unrollLimit is the largest number of ops an array is flattened into;
// longer arrays loop over a sub-plan.
const unrollLimit = 32

func (c *compiler) appendArray(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	n := t.Len()
	et := t.Elem()
	if o.sparse && !f.inherited {
		return c.appendSparse(ops, t, o, f, base)
	}
	if o.quat && (isQuatShaped(t) || !f.inherited && (et.Kind() == reflect.Float32 || et.Kind() == reflect.Float64)) {
		return c.appendQuat(ops, t, o, f, base) // or explains why an array of floats is not a quaternion
	}
	if et.Kind() == reflect.Uint8 && !o.hasInt() {
		if ok, _ := hasHooks(et, f); !ok {
			if !f.inherited && !o.isZero() {
				return nil, f.notApplicable(o, t)
			}
			base.kind, base.n = opByteArray, n
			*ops = append(*ops, base)
			return &Field{Type: t, Kind: KindByteArray, Len: n}, nil
		}
	}
	// Every other option applies to each element (SPEC §6). Compile one
	// element, then copy its ops n times (small arrays) or loop over it.
	var one []op
	ef := f.descend("[]", 0)
	ef.offset, ef.path = 0, ""
	elemNode, err := c.appendValue(&one, et, o, ef)
	if err != nil {
		return nil, err
	}
	node := &Field{Type: t, Kind: KindArray, Len: n, Elem: elemNode}
	if n*len(one) <= unrollLimit {
		for i := 0; i < n; i++ {
			idx := "[" + strconv.Itoa(i) + "]"
			for _, e := range one {
				e.offset += f.offset + uintptr(i)*et.Size()
				e.path = joinPath(joinPath(f.path, idx), e.path)
				*ops = append(*ops, e)
			}
		}
		return node, nil
	}
	elem, err := c.planFor(et, o, f.descend("[]", 0))
	if err != nil {
		return nil, err
	}
	base.kind, base.n, base.elem, base.stride = opArray, n, elem, et.Size()
	*ops = append(*ops, base)
	node.Elem = elem.root
	return node, nil
}

// appendSparse compiles a sparse []*T (with maxlen) or [n]*T: only the
// non-nil elements travel, each preceded by its index as int_relative from
// the previous one (starting at -1), then int_relative(prev, length) ends
// the list. Other options apply to T.
func (c *compiler) appendSparse(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	et := t.Elem()
	if et.Kind() != reflect.Pointer {
		return nil, f.tagged(o, "sparse applies to []*T or [N]*T, not %s", t)
	}
	if t.Kind() == reflect.Array && o.maxlenSet {
		return nil, f.tagged(o, "maxlen does not apply to %s (arrays have a fixed length)", t)
	}
	node := &Field{Type: t, Kind: KindSparse}
	if t.Kind() == reflect.Slice {
		if err := checkSliceBytes(t, o, f); err != nil {
			return nil, err
		}
		base.slice, base.n, base.bits = true, o.maxlen, bitio.BitsRequired(0, uint64(o.maxlen))
		node.MaxLen, node.Bits = o.maxlen, base.bits
	} else {
		base.n = t.Len()
		node.Len = t.Len()
	}
	if base.n > math.MaxInt32-1 {
		return nil, f.tagged(o, "sparse length %d exceeds the int_relative index range", base.n)
	}
	elemOpts := *o
	elemOpts.sparse, elemOpts.maxlenSet, elemOpts.maxlen = false, false, 0
	elem, err := c.planFor(et.Elem(), &elemOpts, f.descend("[]", 0))
	if err != nil {
		return nil, err
	}
	base.kind, base.elem, base.typ, base.stride = opSparse, elem, t, et.Size()
	base.refuse = func(format string, args ...any) error { return f.tagged(o, format, args...) }
	*ops = append(*ops, base)
	node.Elem = elem.root
	return node, nil
}

var checkType = reflect.TypeFor[Check]()

func (c *compiler) appendCheck(ops *[]op, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	if f.inherited || !o.checkSet {
		return nil, f.structural(nil, "a bitpack.Check field needs a tag naming the check, e.g. bits:\"check=end of packet\"")
	}
	if !only(o, func(r *tagOptions) { r.checkSet, r.check = false, "" }) {
		return nil, f.tagged(o, "check does not combine with other options")
	}
	base.kind, base.hash, base.bits, base.name = opCheck, checkHash(o.check), 32, o.check
	*ops = append(*ops, base)
	return &Field{Type: checkType, Kind: KindCheck, Bits: 32, CheckName: o.check, CheckHash: base.hash}, nil
}

// isQuatShaped reports whether t is [4]float32/64 or a struct of exactly
// four exported float fields of one kind.
func isQuatShaped(t reflect.Type) bool {
	_, ok := quatOffsets(t)
	return ok
}

// hasFourFloats reports whether struct t has exactly four fields, all
// floats of one kind: meant to be a quaternion, whether or not it can be.
func hasFourFloats(t reflect.Type) bool {
	if t.NumField() != 4 {
		return false
	}
	k := t.Field(0).Type.Kind()
	for i := range 4 {
		if t.Field(i).Type.Kind() != k || (k != reflect.Float32 && k != reflect.Float64) {
			return false
		}
	}
	return true
}

func quatOffsets(t reflect.Type) (offs [4]uintptr, ok bool) {
	switch t.Kind() {
	case reflect.Array:
		k := t.Elem().Kind()
		if t.Len() != 4 || (k != reflect.Float32 && k != reflect.Float64) {
			return offs, false
		}
		for i := range offs {
			offs[i] = uintptr(i) * t.Elem().Size()
		}
		return offs, true
	case reflect.Struct:
		if t.NumField() != 4 {
			return offs, false
		}
		k0 := t.Field(0).Type.Kind()
		for i := range offs {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Type.Kind() != k0 || (k0 != reflect.Float32 && k0 != reflect.Float64) {
				return offs, false
			}
			if _, tagged := sf.Tag.Lookup("bits"); tagged {
				// Its own tags would say how to send the component; a
				// quaternion sends all four its own way. Not quat-shaped.
				return offs, false
			}
			offs[i] = sf.Offset
		}
		return offs, true
	}
	return offs, false
}

func (c *compiler) appendQuat(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	offs, ok := quatOffsets(t)
	if !ok {
		return nil, f.tagged(o, "quat applies to [4]float32, [4]float64 or a struct of four untagged exported float fields of one type, not %s", t)
	}
	if !f.inherited && !only(o, func(r *tagOptions) { r.quat, r.bitsSet, r.bits = false, false, 0 }) {
		return nil, f.tagged(o, "quat does not combine with other options")
	}
	if o.bits < minQuatBits || o.bits > maxQuatBits {
		return nil, f.tagged(o, "quat bits=%d: each component needs %d..%d bits (fewer allow errors past 45°; with more, float32 cannot hold every code's own value, so decoded quaternions would not re-encode to the same bytes)", o.bits, minQuatBits, maxQuatBits)
	}
	q, err := quant.NewQuat(o.bits)
	if err != nil {
		return nil, f.tagged(o, "%v", err)
	}
	if f.use != nil {
		f.use.quats = true
	}
	comp := t.Elem
	if t.Kind() == reflect.Struct {
		comp = func() reflect.Type { return t.Field(0).Type }
	}
	base.kind, base.qq, base.offs, base.f64, base.bits = opQuat, &q, offs, comp().Kind() == reflect.Float64, q.Bits()
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindQuat, Bits: o.bits}, nil
}

func (c *compiler) appendStruct(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx) (*Field, error) {
	if o.quat && (isQuatShaped(t) || !f.inherited && hasFourFloats(t)) {
		// A struct of four floats tagged quat that is not quat-shaped
		// (a field unexported or tagged) gets appendQuat's explanation
		// rather than "quat reaches no field".
		return c.appendQuat(ops, t, o, f, op{offset: f.offset, path: f.path, level: f.level, size: t.Size()})
	}
	if bad := (tagOptions{maxlenSet: o.maxlenSet, sparse: o.sparse, checkSet: o.checkSet}); !f.inherited && bad != (tagOptions{}) {
		return nil, f.tagged(o, "%s does not apply to struct %s", bad.names(), t)
	}
	// Options written on this field are inherited by the leaves inside that
	// have no tag of their own; each kind of option must reach one leaf.
	inherit := leafOptions(o)
	var own usage
	if !f.inherited && !o.isZero() {
		f.inherited, f.tagOwner, f.tagField, f.use = true, f.owner, f.field, &own
	}
	// Which fields of embedded structs are promoted is decided once, from
	// the struct the embedding starts at.
	promoted, vpath := f.promoted, f.vpath
	if promoted == nil {
		promoted, vpath = promotedFields(t), ""
	}
	node := &Field{Type: t, Kind: KindStruct}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		text, hasTag := sf.Tag.Lookup("bits")
		key := vpath + "." + strconv.Itoa(i)
		embeddedStruct := sf.Anonymous && sf.Type.Kind() == reflect.Struct
		if !sf.IsExported() && !sf.Anonymous {
			if hasTag {
				return nil, &TagError{Type: t, Field: sf.Name, Tag: text, Problem: "unexported fields are never encoded; remove the tag or export the field"}
			}
			continue
		}
		if !embeddedStruct && sf.IsExported() && text != "-" && !promoted.sent[key] {
			if hasTag {
				return nil, &TagError{Type: t, Field: sf.Name, Tag: text, Problem: fmt.Sprintf("embedded in %s, the field is hidden by another field named %s (Go's and encoding/json's promotion rules), so it is never encoded; remove the tag or rename one of them", promoted.into, sf.Name)}
			}
			continue
		}
		fo, err := parseTag(text)
		if err != nil {
			return nil, &TagError{Type: t, Field: sf.Name, Tag: text, Problem: err.Error()}
		}
		if fo.skip {
			continue
		}
		if embeddedStruct && !sf.IsExported() && !fo.isZero() {
			return nil, &TagError{Type: t, Field: sf.Name, Tag: text, Problem: `an unexported embedded struct takes no options (its exported fields are inlined; bits:"-" skips them all)`}
		}
		if sf.Anonymous && !sf.IsExported() && sf.Type.Kind() != reflect.Struct {
			// An unexported embedded non-struct is invisible outside its
			// package; unexported embedded structs are inlined below like
			// any struct field: all their exported fields are sent.
			if sf.Type.Kind() == reflect.Pointer && sf.Type.Elem().Kind() == reflect.Struct {
				return nil, &TagError{Type: t, Field: sf.Name, Tag: text, Problem: "an embedded pointer to the unexported struct type " + sf.Type.Elem().String() + " cannot be allocated on decode; embed the struct itself or name the field"}
			}
			if hasTag {
				return nil, &TagError{Type: t, Field: sf.Name, Tag: text, Problem: "unexported embedded fields are never encoded; remove the tag"}
			}
			continue
		}
		ff := fieldCtx{
			offset: f.offset + sf.Offset, path: joinPath(f.path, sf.Name), where: joinPath(f.where, sf.Name),
			level: f.level + 1, owner: t, field: sf.Name,
		}
		if embeddedStruct {
			ff.promoted, ff.vpath = promoted, key
		}
		opts := fo
		if fo.isZero() && f.inherited && !inherit.isZero() {
			ff.inherited, ff.tagOwner, ff.tagField, ff.use = true, f.tagOwner, f.tagField, f.use
			opts = inherit
		}
		child, err := c.appendValue(ops, sf.Type, opts, ff)
		if err != nil {
			return nil, err
		}
		child.Name, child.Index = sf.Name, []int{i}
		node.Fields = append(node.Fields, child)
	}
	if !hasExportedField(t) {
		return nil, f.structural(o, "%s has no exported fields and no MarshalBits/UnmarshalBits methods, so nothing of it can be encoded", t)
	}
	if f.use == &own {
		var missing []string
		if inherit.hasInt() && !own.ints {
			missing = append(missing, "range/bits reach no integer field")
		}
		if inherit.float && !own.floats {
			missing = append(missing, "float reaches no float field")
		}
		if inherit.quat && !own.quats {
			missing = append(missing, "quat reaches no quaternion-shaped field")
		}
		if len(missing) > 0 {
			return nil, &TagError{Type: f.owner, Field: f.field, Tag: o.text, Problem: fmt.Sprintf("applies to no field of %s: %s", t, strings.Join(missing, "; "))}
		}
	}
	return node, nil
}

// leafOptions keeps the options a struct hands down to its leaves: range
// and bits for integers, the compressed-float options for floats, quat (with
// its bits) for quaternion-shaped fields.
func leafOptions(o *tagOptions) *tagOptions {
	l := &tagOptions{text: o.text,
		rangeSet: o.rangeSet, rangeLo: o.rangeLo, rangeHi: o.rangeHi,
		bitsSet: o.bitsSet, bits: o.bits,
		float: o.float, minSet: o.minSet, maxSet: o.maxSet, resSet: o.resSet,
		min: o.min, max: o.max, res: o.res, clamp: o.clamp,
		quat: o.quat,
	}
	return l
}

// promotedFields returns the index paths (".i.j") of the fields of struct
// t, and of the structs embedded in it, that are sent: encoding/json's
// rule for promoted fields. An embedded struct (not a pointer to one:
// that is a field of its own, with a presence bit) is inlined, and its
// fields compete by name with the fields around it: of the exported fields
// named N, the one at the shallowest embedding depth is sent, and if two
// or more share that depth none is. Fields tagged bits:"-" and unexported
// fields take no part.
func promotedFields(t reflect.Type) *promotion {
	type candidate struct {
		key   string
		depth int
	}
	byName := map[string][]candidate{}
	var walk func(t reflect.Type, prefix string, depth int)
	walk = func(t reflect.Type, prefix string, depth int) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			key := prefix + "." + strconv.Itoa(i)
			switch {
			case sf.Tag.Get("bits") == "-":
			case sf.Anonymous && sf.Type.Kind() == reflect.Struct:
				walk(sf.Type, key, depth+1)
			case sf.IsExported():
				byName[sf.Name] = append(byName[sf.Name], candidate{key, depth})
			}
		}
	}
	walk(t, "", 0)
	p := &promotion{into: t, sent: map[string]bool{}}
	for _, cs := range byName {
		best, count := cs[0], 0
		for _, c := range cs {
			switch {
			case c.depth < best.depth:
				best, count = c, 1
			case c.depth == best.depth:
				count++
			}
		}
		if count == 1 {
			p.sent[best.key] = true
		}
	}
	return p
}

// promotion says which fields of a struct and the structs embedded in it
// are sent, by index path from the struct.
type promotion struct {
	into reflect.Type
	sent map[string]bool
}

// hasExportedField reports whether t (or a struct embedded in it) has an
// exported field.
func hasExportedField(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.IsExported() {
			return true
		}
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && hasExportedField(sf.Type) {
			return true
		}
	}
	return false
}

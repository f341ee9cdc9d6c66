package bitpack

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"strconv"
	"time"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/rules"
)

// Integers and bools: raw, ranged (range=A..B) and bits=N; raw floats
// travel the same way, as their bit patterns (kind_float.go).
//
// Every such field is, in Go, an integer v of its size (a bool 0 or 1, a
// float its bit pattern, a signed integer sign-extended to 64 bits), and
// on the wire the offset code v - min, at most limit, XOR flip. For a raw
// N-bit signed field min = -2^(N-1) and flip = 2^(N-1), which turns the
// offset back into two's complement; for every other kind flip is 0. So
// encoding is load, subtract, compare, xor, and decoding xor, add, store:
// intCode is the one decision, and op.min, op.limit and op.flip, set here
// when the field compiles, are what every executor applies it with.

var (
	boolKind = kindFuncs{name: "bool", fixed: true,
		describe: func(*Field) string { return "bool" },
		schema:   func(s *schemaWriter, _ *Field) { s.write("b") },
		maxBits:  fixedBits, minBits: fixedBits}
	intKind = kindFuncs{name: "int", fixed: true,
		describe: describeInt, schema: schemaInt, maxBits: fixedBits, minBits: fixedBits}
	uintKind = kindFuncs{name: "uint", fixed: true,
		describe: describeInt, schema: schemaInt, maxBits: fixedBits, minBits: fixedBits}
)

// intCode is the accept/refuse decision of every field intKind and its
// relatives run: the wire bits of v, and whether v is in range.
func intCode(v, min, limit, flip uint64) (uint64, bool) {
	code := v - min // below min, it wraps past any limit
	return code ^ flip, code <= limit
}

// accessOf is how a field of Go size size is loaded and stored (see the
// access constants in program.go): signed integers sign-extend.
func accessOf(size uintptr, signed bool) uint8 {
	a := [9]uint8{1: accU8, 2: accU16, 4: accU32, 8: accU64}[size]
	if signed {
		a += accI8 - accU8
	}
	return a
}

// appendBool compiles a bool: 1 bit.
func (c *compiler) appendBool(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	if !f.inherited && !o.isZero() {
		return nil, f.notApplicable(o, t)
	}
	base.kind, base.bits, base.limit, base.access = KindBool, 1, 1, accU8
	*ops = append(*ops, base)
	return &Field{Type: t, Kind: KindBool, Bits: 1}, nil
}

// appendInt compiles an integer: raw (its width, or bits=N) or ranged.
func (c *compiler) appendInt(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	k := t.Kind()
	signed := k >= reflect.Int && k <= reflect.Int64
	width := t.Bits()
	if k == reflect.Int || k == reflect.Uint {
		// int and uint are 64 bits on the wire on every platform, and the
		// layout (ranges, widths, Hash) says so on every platform: the wire
		// of a type must not depend on the host. On a 32-bit one, base.fit
		// makes decoding refuse a value the Go type cannot hold (storeInt);
		// encoding cannot meet one.
		width = 64
		base.fit = t.Bits() < 64
	}
	base.size = t.Size()
	if !f.inherited && !only(o, func(r *tagOptions) {
		r.rangeSet, r.rangeLo, r.rangeHi, r.bitsSet, r.bits, r.clamp, r.unit = false, "", "", false, 0, false, ""
	}) {
		return nil, f.notApplicable(o, t)
	}
	base.clamp = o.clamp
	if o.unit != "" {
		u, err := parseUnit(o.unit, t)
		if err != nil {
			return nil, f.tagged(o, "%v", err)
		}
		if u > 1 {
			base.unit, base.typ = u, t
		}
	}
	if o.hasInt() && f.use != nil {
		f.use.ints = true
	}
	base.kind = KindUint
	if signed {
		base.kind = KindInt
	}
	node := &Field{Type: t, Kind: base.kind}
	base.access = accessOf(base.size, signed)
	if err := intBounds(&base, node, o, f, t, signed, width); err != nil {
		return nil, err
	}
	node.Clamp = o.clamp
	if base.unit > 1 {
		if err := unitFits(&base, t); err != nil {
			return nil, f.tagged(o, "%v", err)
		}
		node.Unit = base.unit
	}
	node.Bits = base.bits
	*ops = append(*ops, base)
	return node, nil
}

// intBounds sets the code bounds of base (min, limit, flip, bits, ranged)
// and the range of its layout node from range= or bits=, else the raw
// width, for an integer of Go type t and width bits on the wire.
func intBounds(base *op, node *Field, o *tagOptions, f fieldCtx, t reflect.Type, signed bool, width int) error {
	switch {
	case o.rangeSet:
		node.Ranged, base.ranged = true, true
		if signed {
			lo, hi, ok := o.signedRange(width)
			if !ok {
				return f.tagged(o, "range %s..%s does not fit %s", o.rangeLo, o.rangeHi, t)
			}
			base.min, base.limit = uint64(lo), uint64(hi)-uint64(lo)
			node.IntMin, node.IntMax = lo, hi
		} else {
			lo, hi, ok := o.unsignedRange(width)
			if !ok {
				return f.tagged(o, "range %s..%s does not fit %s", o.rangeLo, o.rangeHi, t)
			}
			base.min, base.limit = lo, hi-lo
			node.UintMin, node.UintMax = lo, hi
		}
		base.bits = bitio.BitsRequired(0, base.limit)
	case o.hasInt(): // bits=N
		if o.bits < 1 || o.bits > width {
			return f.tagged(o, "bits=%d does not fit %s (1..%d)", o.bits, t, width)
		}
		base.bits = o.bits
		fallthrough
	default:
		if base.bits == 0 {
			base.bits = width
		}
		base.limit = math.MaxUint64 >> (64 - base.bits)
		node.UintMax = base.limit
		if signed {
			base.min, base.flip = uint64(int64(-1)<<(base.bits-1)), 1<<(base.bits-1)
			node.IntMin, node.IntMax = -1<<(base.bits-1), 1<<(base.bits-1)-1
			node.UintMax = 0
		}
	}
	return nil
}

var durationType = reflect.TypeFor[time.Duration]()

// parseUnit parses unit=: a Go duration (1ms) on a time.Duration, a
// positive count on any other integer.
func parseUnit(text string, t reflect.Type) (int64, error) {
	if t == durationType {
		d, err := time.ParseDuration(text)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("unit=%s is not a positive Go duration (e.g. unit=1ms)", text)
		}
		return int64(d), nil
	}
	u, err := strconv.ParseInt(text, 0, 64)
	if err != nil || u <= 0 {
		return 0, fmt.Errorf("unit=%s is not a positive count (a Go duration such as 1ms is for time.Duration fields)", text)
	}
	return u, nil
}

// unitFits checks that every wire value of o, times its unit, fits the Go
// type t: decoding multiplies.
func unitFits(o *op, t reflect.Type) error {
	lo, hi := o.min, o.min+o.limit // the wire range, signed or not (wrapping arithmetic)
	if o.kind == KindInt {
		l, h := int64(lo), int64(hi)
		wl, okl := mulInt64(l, o.unit)
		wh, okh := mulInt64(h, o.unit)
		bits := t.Bits()
		if o.fit {
			bits = 64
		}
		if !okl || !okh || bits < 64 && (wl < -1<<(bits-1) || wh > 1<<(bits-1)-1) {
			return fmt.Errorf("values [%d, %d] in units of %s do not fit %s", l, h, unitText(o.unit, t), t)
		}
		return nil
	}
	bits := t.Bits()
	if o.fit {
		bits = 64
	}
	if h, ok := mulUint64(hi, uint64(o.unit)); !ok || bits < 64 && h > 1<<bits-1 {
		return fmt.Errorf("values [%d, %d] in units of %s do not fit %s", lo, hi, unitText(o.unit, t), t)
	}
	return nil
}

func mulInt64(a, b int64) (int64, bool) {
	p := a * b
	return p, a == 0 || p/a == b && !(a == -1 && b == math.MinInt64)
}

func mulUint64(a, b uint64) (uint64, bool) {
	hi, lo := bits.Mul64(a, b)
	return lo, hi == 0
}

// unitText words a unit: as a duration on a time.Duration.
func unitText(u int64, t reflect.Type) string {
	if t == durationType {
		return time.Duration(u).String()
	}
	return strconv.FormatInt(u, 10)
}

// toUnits is v, a Go value of o, in o's units: rounded to the nearest,
// half away from zero (a quantization, like a compressed float's). The
// rule's home is package rules, whose functions generated Go code carries
// word for word.
func toUnits(o *op, v uint64) uint64 {
	if o.kind == KindInt {
		return rules.UnitsSigned(int64(v), o.unit)
	}
	return rules.UnitsUnsigned(v, uint64(o.unit))
}

// loadInt loads the field at at as access says (see accessOf).
func loadInt(at pointer, access uint8) uint64 {
	switch access {
	case accU8:
		return uint64(*at.u8())
	case accU16:
		return uint64(*at.u16())
	case accU32:
		return uint64(*at.u32())
	case accI8:
		return uint64(int64(int8(*at.u8())))
	case accI16:
		return uint64(int64(int16(*at.u16())))
	case accI32:
		return uint64(int64(int32(*at.u32())))
	}
	return *at.u64()
}

// intFieldCode codes the field o at at, or words its refusal.
func intFieldCode(o *op, at pointer) (uint64, *fieldError) {
	v := loadInt(at, o.access)
	if o.unit > 1 {
		v = toUnits(o, v)
	}
	code, ok := intCode(v, o.min, o.limit, o.flip)
	if ok {
		return code, nil
	}
	if o.clamp { // to the nearer bound
		below := v < o.min
		if o.kind == KindInt {
			below = int64(v) < int64(o.min)
		}
		if below {
			return o.flip, nil // code 0
		}
		return o.limit ^ o.flip, nil
	}
	switch {
	case o.unit > 1:
		lo, hi := strconv.FormatUint(o.min, 10), strconv.FormatUint(o.min+o.limit, 10)
		units := strconv.FormatUint(v, 10)
		if o.kind == KindInt {
			lo, hi, units = strconv.FormatInt(int64(o.min), 10), strconv.FormatInt(int64(o.min+o.limit), 10), strconv.FormatInt(int64(v), 10)
		}
		return 0, newFieldError(o.path, -1, ErrRange, "value %v is %s units of %s, out of range [%s, %s]", at.value(o.typ).Elem(), units, unitText(o.unit, o.typ), lo, hi)
	case o.ranged && o.kind == KindInt:
		return 0, newFieldError(o.path, -1, ErrRange, "value %d out of range [%d, %d]", int64(v), int64(o.min), int64(o.min+o.limit))
	case o.ranged:
		return 0, newFieldError(o.path, -1, ErrRange, "value %d out of range [%d, %d]", v, o.min, o.min+o.limit)
	case o.kind == KindInt:
		lim := int64(1) << (o.bits - 1)
		return 0, newFieldError(o.path, -1, ErrRange, "value %d does not fit in %d bits (range [%d, %d])", int64(v), o.bits, -lim, lim-1)
	}
	return 0, newFieldError(o.path, -1, ErrRange, "value %d does not fit in %d bits", v, o.bits)
}

// storeInt checks the code c read at bit for the field o and stores it at
// at (o's own address, not its plan's base).
func storeInt(o *op, c uint64, at pointer, bit int) *fieldError {
	if c > o.limit {
		if o.kind == KindInt {
			return newFieldError(o.path, bit, ErrRange, "value %d out of range [%d, %d]", int64(o.min+c), int64(o.min), int64(o.min+o.limit))
		}
		return newFieldError(o.path, bit, ErrRange, "value %d out of range [%d, %d]", o.min+c, o.min, o.min+o.limit)
	}
	v := c ^ o.flip + o.min
	if o.unit > 1 {
		v *= uint64(o.unit) // fits the Go type: see unitFits
	}
	if o.fit { // a 32-bit platform's int or uint: the wire holds 64 bits
		if s := int64(v); o.kind == KindInt && (s < math.MinInt32 || s > math.MaxInt32) {
			return newFieldError(o.path, bit, ErrRange, "value %d does not fit a 32-bit int (range [%d, %d])", s, math.MinInt32, math.MaxInt32)
		}
		if o.kind == KindUint && v > math.MaxUint32 {
			return newFieldError(o.path, bit, ErrRange, "value %d does not fit a 32-bit uint (range [0, %d])", v, uint32(math.MaxUint32))
		}
	}
	at.storeUint(o.size, v)
	return nil
}

// intRun ORs into acc the codes of the run of integers that step st (an
// accRun) codes at at, and reports false if one is out of its range.
func intRun(acc uint64, at pointer, st *encStep) (uint64, bool) {
	switch st.elem {
	case accU8:
		return intRunOf[uint8](acc, at, st)
	case accU16:
		return intRunOf[uint16](acc, at, st)
	case accU32:
		return intRunOf[uint32](acc, at, st)
	case accI8:
		return intRunOf[int8](acc, at, st)
	case accI16:
		return intRunOf[int16](acc, at, st)
	case accI32:
		return intRunOf[int32](acc, at, st)
	}
	return intRunOf[uint64](acc, at, st) // accU64, accI64
}

// intRunOf is intRun for fields of Go type T. Its test is intCode's,
// written out (as in encodeValue): with the call, the loop would not fit
// the inliner's budget and intRun would call it.
func intRunOf[T uint8 | uint16 | uint32 | uint64 | int8 | int16 | int32](acc uint64, at pointer, st *encStep) (uint64, bool) {
	shift := st.shift
	for j := range int(st.count) {
		code := uint64(loadAs[T](at.index(j, uintptr(st.size)))) - st.min
		if code > st.limit {
			return acc, false // acc holds the codes before j: intRunSlow ORs the same ones again
		}
		acc |= (code ^ st.flip) << (shift & 63)
		shift += st.width
	}
	return acc, true
}

// intColumns codes an integer field (loaded as access says) in m values,
// at shift in the group word.
func intColumns(access uint8, col []uint64, g int, at pointer, stride uintptr, m int, st *encStep, shift uint8) bool {
	switch access {
	case accU8:
		return intColumn[uint8](col, g, at, stride, m, st, shift)
	case accU16:
		return intColumn[uint16](col, g, at, stride, m, st, shift)
	case accU32:
		return intColumn[uint32](col, g, at, stride, m, st, shift)
	case accI8:
		return intColumn[int8](col, g, at, stride, m, st, shift)
	case accI16:
		return intColumn[int16](col, g, at, stride, m, st, shift)
	case accI32:
		return intColumn[int32](col, g, at, stride, m, st, shift)
	}
	return intColumn[uint64](col, g, at, stride, m, st, shift) // accU64, accI64
}

// intColumn codes the integer field of step st in m values (a T each).
// Converting a signed T to uint64 sign-extends it, as accessOf wants. Its
// test is intCode's written out, as in intRunOf.
func intColumn[T uint8 | uint16 | uint32 | uint64 | int8 | int16 | int32](col []uint64, g int, at pointer, stride uintptr, m int, st *encStep, shift uint8) bool {
	min, limit, flip := st.min, st.limit, st.flip
	shift &= 63
	for k := range m {
		code := uint64(loadAs[T](at.index(k, stride))) - min
		if code > limit {
			return false
		}
		col[k*g] |= (code ^ flip) << shift
	}
	return true
}

// Layout.

func describeInt(f *Field) string {
	s := describeIntRange(f)
	if f.Unit > 1 {
		s += " × " + unitText(f.Unit, f.Type)
	}
	if f.Clamp {
		s += " clamp"
	}
	return s
}

func describeIntRange(f *Field) string {
	switch {
	case f.Ranged && f.Kind == KindInt:
		return fmt.Sprintf("int [%d, %d]", f.IntMin, f.IntMax)
	case f.Ranged:
		return fmt.Sprintf("int [%d, %d]", f.UintMin, f.UintMax)
	case f.Kind == KindInt:
		return fmt.Sprintf("int %d bits (two's complement)", f.Bits)
	}
	return fmt.Sprintf("uint %d bits", f.Bits)
}

func schemaInt(s *schemaWriter, f *Field) {
	defer func() {
		if f.Unit > 1 { // the same bits, another value: a wire change
			s.write("*" + strconv.FormatInt(f.Unit, 10))
		}
	}()
	switch {
	case f.Ranged && f.Kind == KindInt:
		s.write("r" + strconv.FormatInt(f.IntMin, 10) + ".." + strconv.FormatInt(f.IntMax, 10))
	case f.Ranged:
		s.write("r" + strconv.FormatUint(f.UintMin, 10) + ".." + strconv.FormatUint(f.UintMax, 10))
	case f.Kind == KindInt:
		s.write("i" + strconv.Itoa(f.Bits))
	default:
		s.write("u" + strconv.Itoa(f.Bits))
	}
}

// intRunSlow codes the run step st (an accRun) that intRun refused, field
// by field through intFieldCode, which clamps or words the refusal of the
// first one out of range.
func intRunSlow(ops []op, acc uint64, at pointer, st *encStep) (uint64, *fieldError) {
	shift := st.shift
	for j := range int(st.count) {
		code, err := intFieldCode(&ops[st.op+int32(j)], at.index(j, uintptr(st.size)))
		if err != nil {
			return acc, err
		}
		acc |= code << (shift & 63)
		shift += st.width
	}
	return acc, nil
}

// Deltas. Every fixed-width field — bools, integers, raw and compressed
// floats — changes the same way, by its offset code (the code before the
// xor with flip: v - min, or the quantizer's code), so that nearby values
// are nearby on the wire. A changed field of b bits sends nothing more
// when b is 1 (it has one other value); with a short form
// (deltaShortBits: s > 0), a 0 bit and the difference in s bits when it
// is within ±2^(s-1), else a 1 bit and the new code in b bits; without
// one, the new code in b bits. The new code must differ from the base's,
// and the long form may not carry a difference the short form can.

// deltaShortBits is the width of a b-bit field's short form (package
// rules: none under 4 bits, else half of b rounded up, at most 8).
func deltaShortBits(b int) int { return rules.ShortBits(b) }

// shortDelta returns the short form, in s bits, of the change from offset
// code old to next: d = next - old in [-h, h] without 0, h = 2^(s-1),
// sent as d + h when d < 0 and d + h - 1 when d > 0; false when d is
// outside.
func shortDelta(next, old uint64, s int) (uint64, bool) {
	h := uint64(1) << (s - 1)
	if next > old {
		d := next - old
		return h - 1 + d, d <= h
	}
	d := old - next
	return h - d, d <= h
}

// isShort reports whether the change from old to next fits the short
// form of s bits.
func isShort(next, old uint64, s int) bool {
	_, ok := shortDelta(next, old, s)
	return ok
}

// encodeScalarDelta writes the delta of the fixed-width field o (see
// above). Fields the same in memory are unchanged without a look at
// their codes.
func encodeScalarDelta(e *deltaEncoder, o *op, at, bt pointer, bit bool) (bool, *fieldError) {
	if o.kind != KindTime && at.raw(o.size) == bt.raw(o.size) { // (a time is not its memory)
		return e.same(bit)
	}
	cv, ok := quickCode(o, at)
	if !ok {
		var err *fieldError
		if cv, err = fieldCode(o, at); err != nil {
			return false, err
		}
	}
	cb, ok := quickCode(o, bt)
	if !ok {
		var err *fieldError
		if cb, err = fieldCode(o, bt); err != nil {
			return false, baseError(err)
		}
	}
	if cv == cb {
		return e.same(bit)
	}
	w := e.w
	if bit {
		w.WriteBits(1, 1)
	}
	switch s := deltaShortBits(o.bits); {
	case o.bits == 1:
	case s == 0:
		w.WriteBits(cv, o.bits)
	default:
		if c, ok := shortDelta(cv^o.flip, cb^o.flip, s); ok {
			w.WriteBits(c<<1, s+1)
		} else {
			w.WriteBits(1, 1)
			w.WriteBits(cv, o.bits)
		}
	}
	return true, nil
}

// quickCode is fieldCode's answer for the common fields, inline: the code
// of a float32 compressed float inside its bounds, or of an integer in
// its range (no unit=); false sends the caller to fieldCode, which clamps
// or words the refusal.
func quickCode(o *op, at pointer) (uint64, bool) {
	if o.access == accQ32 {
		c, ok := float32InRange(&o.qp.q32, o.qp.lo32, o.qp.hi32, *at.float32())
		return uint64(c), ok
	}
	if o.access > accI64 || o.unit > 1 { // unit=: fieldCode turns the value into units
		return 0, false
	}
	return intCode(loadInt(at, o.access), o.min, o.limit, o.flip)
}

// shortFormOutside refuses the short form (s bits, read as e) of the
// fixed-width field o's delta that moves its offset code old out of
// [0, o.limit], at bit start. Both of the delta decoder's paths word it
// here, decodeScalarDelta and the inline one (dstep.apply, flatElem):
// one refusal has one wording, with the change and the code it starts
// from, whichever path decodes the field (they once said only "the change
// leaves the range of codes"). A long form past o.limit is storeScalar's
// refusal on both (see dstep.codeOutside). Out of line: it is the error
// path of the inline decoder's loop.
//
//go:noinline
func shortFormOutside(o *op, old, e uint64, s, start int) *fieldError {
	h := uint64(1) << (s - 1)
	if e < h {
		return newFieldError(o.path, start, ErrRange, "change -%d from code %d leaves the range [0, %d]", h-e, old, o.limit)
	}
	return newFieldError(o.path, start, ErrRange, "change +%d from code %d leaves the range [0, %d]", e-h+1, old, o.limit)
}

// decodeScalarDelta reads the delta of the fixed-width field o and
// stores the new value at at, which holds the base's.
func decodeScalarDelta(d *decoder, o *op, at pointer, start int, bit bool) (bool, *fieldError) {
	r := d.r
	if !d.changedBit(bit) {
		return false, nil
	}
	wire, ok := quickCode(o, at)
	if !ok {
		var err *fieldError
		if wire, err = fieldCode(o, at); err != nil {
			err.bit = start
			return false, baseError(err)
		}
	}
	old := wire ^ o.flip
	var c uint64 // the new offset code
	switch s := deltaShortBits(o.bits); {
	case o.bits == 1:
		c = old ^ 1
	case s == 0:
		c = r.ReadBits(o.bits) ^ o.flip
	case r.ReadBits(1) == 0:
		h, v := uint64(1)<<(s-1), r.ReadBits(s)
		switch {
		case r.Err() != nil: // the packet ends inside the short form: the Reader words it
			return false, nil
		case v < h && old >= h-v:
			c = old - (h - v)
		case v >= h && old <= o.limit-(v-h+1):
			c = old + (v - h + 1)
		default:
			return false, shortFormOutside(o, old, v, s, start)
		}
	default:
		c = r.ReadBits(o.bits) ^ o.flip
		if c != old && c <= o.limit && r.Err() == nil && isShort(c, old, s) {
			return false, newFieldError(o.path, start, ErrRange, "code %d is within %d of the base's %d: the short form carries it (not canonical)", c, 1<<(s-1), old)
		}
	}
	if r.Err() != nil {
		return false, nil
	}
	if c == old {
		return false, unchangedError(o.path, start)
	}
	if o.kind == KindTime {
		d.saveTime(at)
	} else {
		d.saveBits(at, o.size)
	}
	return true, storeScalar(o, c^o.flip, at, start)
}

package cpp

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bitpack-go/bitpack/gen/internal/code"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// cppBody collects the statements of a function body.
type cppBody struct {
	b      strings.Builder
	indent int // in units of four spaces
	loops  int // loop variables in use: i0, i1, ...
	locals int // other locals declared (see local)
}

func (c *cppBody) line(format string, args ...any) {
	c.b.WriteString(strings.Repeat("    ", c.indent))
	fmt.Fprintf(&c.b, format, args...)
	c.b.WriteByte('\n')
}

func (c *cppBody) open()  { c.line("{"); c.indent++ }
func (c *cppBody) close() { c.indent--; c.line("}") }

// refuse writes "if ( cond ) return false;".
func (c *cppBody) refuse(format string, args ...any) {
	c.line("if ( "+format+" )", args...)
	c.line("    return false;")
}

// place is where a value lives in a struct: prefix.name followed by the
// indices of the loops around it, and the companions of the member that
// the value and its elements still have to use, outermost first. A
// companion's indices are those of the loops outside it.
type place struct {
	prefix string
	name   string
	comps  []string
	idx    string
}

func (p place) expr() string { return p.prefix + p.name + p.idx }

// take returns the expression of the next companion and the place without it.
func (p place) take() (string, place) {
	c := p.prefix + p.comps[0] + p.idx
	p.comps = p.comps[1:]
	return c, p
}

func (p place) index(i string) place {
	p.idx += "[" + i + "]"
	return p
}

// declare renders the C++ fields that store member m: its companions and
// its value, with one array dimension per container around them.
func (e *Emitter) declare(m *model.Member, names map[string]bool) {
	cm := e.members[m]
	comps := cm.comps
	take := func() string {
		c := comps[0]
		comps = comps[1:]
		return c
	}
	var words []string
	for v := m.Value; v != nil; v = v.Elem {
		switch {
		case !v.Op.IsStruct():
			words = append(words, model.CountedWords(v))
		case v.Fields != nil:
			words = append(words, "sent with this field's options (see Serialize)")
		}
	}
	comment := ""
	if len(words) > 0 {
		comment = " // " + strings.Join(words, "; ")
	}
	field := func(ctype, name, dims, comment string) {
		e.printf("    %s %s%s;%s\n", ctype, name, dims, comment)
	}
	dim := func(n int) string { return "[" + strconv.Itoa(max(n, 1)) + "]" }
	dims := ""
	for v := m.Value; ; v = v.Elem {
		switch v.Op {
		case model.OpArray:
			dims += dim(v.Len)
			continue
		case model.OpSlice:
			field("int", take(), dims, "")
			dims += dim(v.MaxLen)
			continue
		case model.OpPointer:
			field("bool", take(), dims, "")
			continue
		case model.OpSparse:
			if v.Prefix != nil {
				field("int", take(), dims, "")
			}
			dims += dim(v.Slots)
			field("bool", take(), dims, "")
			continue
		case model.OpMap:
			field("int", take(), dims, "")
			dims += dim(v.MaxLen)
			ktype, kdims := e.scalarType(v.Key, names)
			field(ktype, take(), dims+kdims, " // keys: "+model.CountedWords(v.Key)+", ascending")
			continue
		case model.OpBytes:
			field("int", take(), dims, "")
			field("uint8_t", cm.name, dims+dim(v.MaxLen), comment)
		case model.OpByteArray:
			field("uint8_t", cm.name, dims+dim(v.Len), comment)
		case model.OpString:
			field("char", cm.name, dims+"["+strconv.Itoa(v.MaxLen+1)+"]", comment)
		case model.OpCheck:
			e.printf("    // %s: no storage;%s\n", cm.name, strings.TrimPrefix(comment, " //"))
		case model.OpQuat:
			if v.Type == nil {
				field(floatType(v.FloatBits), cm.name, dims+"[4]", comment)
			} else {
				field(e.typeRef(v.Type, names), cm.name, dims, comment)
			}
		case model.OpStruct, model.OpFields, model.OpUnion, model.OpHook:
			field(e.typeRef(v.Type, names), cm.name, dims, comment)
		case model.OpBool, model.OpInt, model.OpFloat, model.OpCompressed:
			ctype, _ := e.scalarType(v, names)
			dims += timeZeroInit(m.Value)
			field(ctype, cm.name, dims, comment)
		}
		return
	}
}

// timeZeroInit is the default member initializer of member value v
// when it is a time.Time (or arrays of them) whose tag encodes Go's zero
// time (year 1) as a count other than 0 (model.ZeroTime): " = count", or
// a brace list of it per element, so that T() and T{} are Go's zero
// value (a snapshot stream's zero base). "" for every other value: their
// zero is 0, and a struct without initializers stays trivial.
func timeZeroInit(v *model.Value) string {
	zero, lens, ok := model.ZeroTime(v)
	if !ok {
		return ""
	}
	var list func(lens []int) string
	list = func(lens []int) string {
		if len(lens) == 0 {
			return cppInt(zero)
		}
		elems := make([]string, lens[0])
		for i := range elems {
			elems[i] = list(lens[1:])
		}
		return "{ " + strings.Join(elems, ", ") + " }"
	}
	return " = " + list(lens)
}

// scalarType is the C++ type of a scalar value (or a map key), and the
// array dimension a string adds: an enum's named as typeRef names it
// among members (nil: from the global namespace, as a function body
// names it).
func (e *Emitter) scalarType(v *model.Value, members map[string]bool) (string, string) {
	switch v.Op {
	case model.OpBool:
		return "bool", ""
	case model.OpInt:
		if v.Enum != nil && members == nil {
			return e.qualified(v.Enum), ""
		}
		if v.Enum != nil {
			return e.typeRef(v.Enum, members), ""
		}
		return intType(v.Signed, v.GoBits), ""
	case model.OpFloat, model.OpCompressed:
		return floatType(v.FloatBits), ""
	case model.OpString:
		return "char", "[" + strconv.Itoa(v.MaxLen+1) + "]"
	}
	panic("gen: no C++ scalar type for " + v.Op.String())
}

func intType(signed bool, bits int) string {
	if signed {
		return fmt.Sprintf("int%d_t", bits)
	}
	return fmt.Sprintf("uint%d_t", bits)
}

func floatType(bits int) string {
	if bits == 32 {
		return "float"
	}
	return "double"
}

// step renders the statements that read or write value v at p.
func (e *Emitter) step(c *cppBody, v *model.Value, p place) {
	x := p.expr()
	switch v.Op {
	case model.OpBool:
		c.line("serialize_bool( stream, %s );", x)
	case model.OpInt:
		if v.Enum == nil {
			e.integer(c, v, x)
			return
		}
		n := c.local("n")
		c.open()
		c.line("%s %s = static_cast<%s>( %s );", intType(v.Signed, v.GoBits), n, intType(v.Signed, v.GoBits), x)
		e.integer(c, v, n)
		c.line("%s = static_cast< %s >( %s );", x, e.qualified(v.Enum), n)
		c.close()
	case model.OpFloat:
		if v.FloatBits == 32 {
			c.line("serialize_float( stream, %s );", x)
		} else {
			c.line("serialize_double( stream, %s );", x)
		}
	case model.OpCompressed:
		macro, lit := "bitpack_compressed_float", cppFloat32
		if v.FloatBits == 64 {
			macro, lit = "bitpack_compressed_double", cppFloat64
		}
		if v.Clamp {
			macro += "_clamp"
		}
		c.line("%s( stream, %s, %s, %s, %s );", macro, x, lit(v.Min), lit(v.Max), lit(v.Res))
	case model.OpString:
		c.line("bitpack_string( stream, %s, %d );", x, v.MaxLen)
	case model.OpBytes:
		n, p := p.take()
		e.count(c, n, v.MaxLen)
		c.line("bitpack_charge( bitpack::charge_value( 0, %s ) );", n)
		c.line("serialize_bytes( stream, %s, %s );", p.expr(), n)
	case model.OpByteArray:
		c.line("serialize_bytes( stream, %s, %d );", x, v.Len)
	case model.OpArray:
		e.loop(c, strconv.Itoa(v.Len), func(i string) { e.step(c, v.Elem, p.index(i)) })
	case model.OpSlice:
		n, p := p.take()
		e.count(c, n, v.MaxLen)
		e.chargeElems(c, v, n)
		e.loop(c, n, func(i string) { e.step(c, v.Elem, p.index(i)) })
	case model.OpPointer:
		present, p := p.take()
		c.line("serialize_bool( stream, %s );", present)
		c.line("if ( %s )", present)
		c.open()
		chargeValue(c, v.Charge)
		e.step(c, v.Elem, p)
		c.close()
	case model.OpStruct, model.OpFields:
		if v.Fields == nil {
			c.line("serialize_object( stream, %s );", x)
			return
		}
		for _, u := range v.Fields {
			cm := e.members[u.Member]
			e.step(c, u.Value, place{prefix: x + ".", name: cm.name, comps: cm.comps})
		}
	case model.OpHook:
		e.hook(c, v, x)
	case model.OpUnion:
		c.line("serialize_object( stream, %s );", x)
	case model.OpSparse:
		e.sparse(c, v, p)
	case model.OpMap:
		e.mapSteps(c, v, p)
	case model.OpQuat:
		var comps [4]string
		for k, steps := range v.Comps {
			comps[k] = x + e.quatComp(steps)
		}
		c.line("bitpack_quat( stream, %s, %s, %s, %s, %d );", comps[0], comps[1], comps[2], comps[3], v.Bits)
	case model.OpCheck:
		c.line("bitpack_check( stream, %#08xu ); // check %q", v.CheckHash, v.CheckName)
	}
}

// quatComp is the C++ expression of a quaternion component's place
// within the value: .X, .V.Y, [3].
func (e *Emitter) quatComp(steps []model.QuatStep) string {
	var b strings.Builder
	for _, s := range steps {
		if s.Member != nil {
			b.WriteString("." + e.members[s.Member].name)
		} else {
			fmt.Fprintf(&b, "[%d]", s.Index)
		}
	}
	return b.String()
}

// mapSteps renders a map: the count, then each entry, key then value, in
// ascending key order. Reading refuses a key not above the one before.
// Writing takes the arrays' order when it is ascending, and otherwise
// finds each next key by a scan (refusing two equal keys, which no Go map
// holds): the caller may fill a map in any order, and Serialize changes
// nothing in it.
func (e *Emitter) mapSteps(c *cppBody, v *model.Value, p place) {
	count, p := p.take()
	keys, p := p.take()
	e.count(c, count, v.MaxLen)
	c.line("bitpack_charge( bitpack::charge_entries( %s, %d, %d ) );", count, v.Charge.Work, v.Charge.Bytes)
	k := strconv.Itoa(c.loops)
	i, prev, entry, sorted := "i"+k, "p"+k, "e"+k, "bp_sorted"+k
	c.loops++
	c.open()
	c.line("const bool %s = !Stream::IsWriting || bitpack::keys_ascending( %s, %s );", sorted, keys, count)
	c.line("int %s = -1;", prev)
	c.line("for ( int %s = 0; %s < %s; %s++ )", i, i, count, i)
	c.open()
	c.line("int %s = %s;", entry, i)
	c.line("if ( !%s )", sorted)
	c.open()
	c.line("%s = bitpack::next_key( %s, %s, %s );", entry, keys, count, prev)
	c.refuse("%s < 0", entry)
	c.close()
	kp := place{name: keys} // keys is the whole expression, indices included
	e.step(c, v.Key, kp.index(entry))
	c.refuse("Stream::IsReading && %s > 0 && !bitpack::key_less( %s, %s )", i, kp.index(i+" - 1").expr(), kp.index(i).expr())
	e.step(c, v.Elem, p.index(entry))
	c.line("%s = %s;", prev, entry)
	c.close()
	c.close()
	c.loops--
}

// chargeElems renders the charge of n elements of slice v, as they are
// read (see runtime_allowance.h).
func (e *Emitter) chargeElems(c *cppBody, v *model.Value, n string) {
	times := 1
	if v.Charge.Twice {
		times = 2
	}
	c.line("bitpack_charge( bitpack::charge_values( %s, %s, %s, %d ) );", n, cppInt(v.Charge.Work), cppInt(v.Charge.Bytes), times)
}

// chargeValue renders the charge of one value (a pointee, a sparse
// element, a union member) as it is read.
func chargeValue(c *cppBody, ch model.Charge) {
	c.line("bitpack_charge( bitpack::charge_value( %s, %s ) );", cppInt(ch.Work), cppInt(ch.Bytes))
}

// hook renders a hook's call, charged as it is read. Any value the
// hook's Serialize accepts is accepted, as Go accepts any MarshalBits
// writes: a delta compares hook values in buffers sized by measuring them
// (bitpack::hook_differs), so no value's size can overrun one.
func (e *Emitter) hook(c *cppBody, v *model.Value, x string) {
	c.line("bitpack_charge( bitpack::charge_hook( %s, %s ) );", cppInt(v.Charge.Work), cppInt(v.Charge.Bytes))
	c.line("serialize_object( stream, %s );", x)
}

// loop renders a for loop over [0, n) with a fresh index variable.
func (e *Emitter) loop(c *cppBody, n string, body func(i string)) {
	i := "i" + strconv.Itoa(c.loops)
	c.loops++
	c.line("for ( int %s = 0; %s < %s; %s++ )", i, i, n, i)
	c.open()
	body(i)
	c.close()
	c.loops--
}

// count renders the length of a slice or byte slice: refused on write
// outside [0, maxlen] (serialize_int only asserts), then serialize_int.
// maxlen 0 takes no bits (and serialize_int would assert).
func (e *Emitter) count(c *cppBody, n string, maxlen int) {
	if maxlen == 0 {
		c.refuse("Stream::IsWriting && %s != 0", n)
		c.line("if ( Stream::IsReading )")
		c.line("    %s = 0;", n)
		return
	}
	c.refuse("Stream::IsWriting && ( %s < 0 || %s > %d )", n, n, maxlen)
	c.line("serialize_int( stream, %s, 0, %d );", n, maxlen)
}

// integer renders an integer field. Full-width unsigned integers and
// unsigned bits=N up to 32 are serialize_bits (serialize_uint64 for 64),
// with a check before a narrower write; ranges that serialize_int can
// carry (bounds and span within int32_t) are serialize_int, with the
// range checked on write; everything else is one of bitpack's helpers.
func (e *Emitter) integer(c *cppBody, v *model.Value, x string) {
	if v.Unit > 1 || v.Clamp {
		e.units(c, v, x)
		return
	}
	if !v.Ranged {
		switch {
		case v.Signed:
			c.line("bitpack_signed_bits( stream, %s, %d );", x, v.Bits)
		case v.Bits == 64:
			c.line("serialize_uint64( stream, %s );", x)
		case v.Bits > 32:
			c.line("bitpack_unsigned_bits( stream, %s, %d );", x, v.Bits)
		default:
			if v.Bits < v.GoBits {
				c.refuse("Stream::IsWriting && %s > %s", x, cppUint(1<<v.Bits-1))
			}
			c.line("serialize_bits( stream, %s, %d );", x, v.Bits)
		}
		return
	}
	if v.Signed {
		lo, hi := v.IntMin, v.IntMax
		typeMin := int64(-1) << (v.GoBits - 1)
		typeMax := int64(uint64(1)<<(v.GoBits-1) - 1)
		if lo < hi && lo >= math.MinInt32 && hi <= math.MaxInt32 && hi-lo <= math.MaxInt32 {
			e.rangeCheck(c, x, lo > typeMin, cppInt(lo), hi < typeMax, cppInt(hi))
			c.line("serialize_int( stream, %s, %s, %s );", x, cppInt(lo), cppInt(hi))
			return
		}
		c.line("bitpack_signed_range( stream, %s, %s, %s );", x, cppInt(lo), cppInt(hi))
		return
	}
	lo, hi := v.UintMin, v.UintMax
	typeMax := uint64(math.MaxUint64) >> (64 - v.GoBits)
	if lo < hi && hi <= math.MaxInt32 {
		e.rangeCheck(c, x, lo > 0, cppUint(lo), hi < typeMax, cppUint(hi))
		c.line("serialize_int( stream, %s, %s, %s );", x, cppUint(lo), cppUint(hi))
		return
	}
	c.line("bitpack_unsigned_range( stream, %s, %s, %s );", x, cppUint(lo), cppUint(hi))
}

// units renders an integer with unit= or clamp through bitpack's helper:
// its range (the tag's, or a raw field's) in units, and the unit (1 for
// clamp alone, and for a duration, which the field holds counted in its
// units).
func (e *Emitter) units(c *cppBody, v *model.Value, x string) {
	unit := countUnit(v)
	if v.Signed {
		lo, hi, flip := model.IntBounds(v)
		c.line("bitpack_signed_units( stream, %s, %s, %s, %d, %s, %s, %t );", x, cppInt(lo), cppInt(hi), model.UnitBits(v), cppUint(flip), cppInt(unit), v.Clamp)
		return
	}
	lo, hi := model.UintBounds(v)
	c.line("bitpack_unsigned_units( stream, %s, %s, %s, %d, %s, %t );", x, cppUint(lo), cppUint(hi), model.UnitBits(v), cppUint(uint64(unit)), v.Clamp)
}

// countUnit is what the header multiplies integer v's units by to get
// the field's value: its unit (1 without one), and 1 for a duration,
// which the field holds counted in its units (Counted) as the wire
// carries it.
func countUnit(v *model.Value) int64 {
	if v.Counted {
		return 1
	}
	return max(v.Unit, 1)
}

// rangeCheck refuses, on write, a value below lo or above hi; a side the
// C++ type cannot pass is left out (the compiler warns about comparisons
// that are always true).
func (e *Emitter) rangeCheck(c *cppBody, x string, checkLo bool, lo string, checkHi bool, hi string) {
	switch {
	case checkLo && checkHi:
		c.refuse("Stream::IsWriting && ( %s < %s || %s > %s )", x, lo, x, hi)
	case checkLo:
		c.refuse("Stream::IsWriting && %s < %s", x, lo)
	case checkHi:
		c.refuse("Stream::IsWriting && %s > %s", x, hi)
	}
}

// sparse renders a sparse array or slice: the index of each present
// element as int_relative from the previous one (from -1), the element,
// and the length as the end marker. The loop is shared by both
// directions: writing finds the next present slot; reading refuses an
// index past the length (int_relative already refuses one that does not
// increase, so the loop ends) and marks the slot present.
func (e *Emitter) sparse(c *cppBody, v *model.Value, p place) {
	n := strconv.Itoa(v.Len)
	if v.Prefix != nil {
		var count string
		count, p = p.take()
		e.count(c, count, v.MaxLen)
		c.line("bitpack_charge( bitpack::charge_slots( %s ) );", count)
		n = count
	}
	present, p := p.take()
	k := strconv.Itoa(c.loops)
	i, prev := "i"+k, "p"+k
	c.loops++
	c.open()
	c.line("int32_t %s = -1, %s = 0;", prev, i)
	c.line("if ( Stream::IsReading )")
	c.open()
	c.line("for ( int k = 0; k < %d; k++ )", max(v.Slots, 1))
	c.line("    %s[k] = false;", present)
	c.close()
	c.line("for ( ;; )")
	c.open()
	c.line("if ( Stream::IsWriting )")
	c.open()
	c.line("for ( %s = %s + 1; %s < %s && !%s[%s]; %s++ )", i, prev, i, n, present, i, i)
	c.line("    ;")
	c.close()
	c.line("bitpack_int_relative( stream, %s, %s );", prev, i)
	c.refuse("%s > %s", i, n)
	c.line("if ( %s == %s )", i, n)
	c.line("    break;")
	c.line("if ( Stream::IsReading )")
	c.line("    %s[%s] = true;", present, i)
	chargeValue(c, v.Charge)
	e.step(c, v.Elem, p.index(i))
	c.line("%s = %s;", prev, i)
	c.close()
	c.close()
	c.loops--
}

// cppInt is a signed literal that keeps its value in any integer context.
func cppInt(v int64) string {
	switch {
	case v == math.MinInt64:
		return "( INT64_C( -9223372036854775807 ) - 1 )"
	case v < math.MinInt32 || v > math.MaxInt32:
		return fmt.Sprintf("INT64_C( %d )", v)
	case v == math.MinInt32:
		return "( -2147483647 - 1 )"
	}
	return strconv.FormatInt(v, 10)
}

// cppUint is an unsigned literal.
func cppUint(v uint64) string {
	switch {
	case v <= math.MaxInt32:
		return strconv.FormatUint(v, 10)
	case v <= math.MaxUint32:
		return strconv.FormatUint(v, 10) + "u"
	}
	return fmt.Sprintf("UINT64_C( %d )", v)
}

// cppFloat32 and cppFloat64 write the shortest literal that reads back as
// the same float (the value the tag was parsed to).
func cppFloat32(v float64) string { return floatLiteral(strconv.FormatFloat(v, 'g', -1, 32)) + "f" }
func cppFloat64(v float64) string { return floatLiteral(strconv.FormatFloat(v, 'g', -1, 64)) }

func floatLiteral(s string) string {
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// cppReserved holds the C++ keywords, and names the generated code uses
// itself: a Go name among them gets an underscore appended.
var cppReserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`alignas alignof and and_eq asm auto bitand bitor bool break case catch
		char char16_t char32_t class compl const constexpr const_cast continue decltype default delete do
		double dynamic_cast else enum explicit export extern false float for friend goto if inline int long
		mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
		reinterpret_cast return short signed sizeof static static_assert static_cast struct switch template
		this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
		wchar_t while xor xor_eq char8_t concept consteval constinit co_await co_return co_yield requires
		final override import module
		bitpack serialize stream Stream Serialize SerializeDelta SerializeDeltaBody SerializeDeltaPart DeltaChanged CopyFrom base source type std k
		NULL EOF assert errno INT8_MIN INT8_MAX INT16_MIN INT16_MAX INT32_MIN INT32_MAX INT64_MIN INT64_MAX
		UINT8_MAX UINT16_MAX UINT32_MAX UINT64_MAX INT64_C UINT64_C FLT_MAX DBL_MAX SIZE_MAX`) {
		cppReserved[w] = true
	}
}

// cppIdent adapts an identifier from the model to C++: reserved names and
// names like the generated loop variables (i0, p1, e2) get an underscore.
func cppIdent(n string) string {
	if cppReserved[n] || code.IsLoopName(n) || strings.HasPrefix(n, "bp_") {
		return n + "_"
	}
	return n
}

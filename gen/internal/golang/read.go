package golang

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// Reading is atomic, as the plan's decode is: the packet is read into a
// shadow of the value in local variables, and only once all of it, to the
// trailing-bytes check, has been accepted is the shadow committed into
// the caller's value, filling what it holds in place as the plan's commit
// does (commit.go): a slice with the capacity, a pointer that is not nil.
// A value of fixed-width fields only is its own shadow; a string is the
// packet's bytes until commit; a slice, []byte or pointer is its elements
// in an array of maxlen, or its pointee, with its length or presence; a
// byte array at a fixed place is where it starts in the packet. At a
// fixed place (reached from the root through struct fields and pointers,
// not inside a loop) each part is a variable of its own, which costs no
// zeroing and no copy through memory the compiler cannot see through.

const goReject = "return false"

// goFlat reports whether v is stored as itself in its shadow and
// committed by one assignment: fixed-width values, and arrays and structs
// of them whose every Go field is on the wire.
func goFlat(v *model.Value) bool {
	switch v.Op {
	case model.OpBool, model.OpInt, model.OpFloat, model.OpCompressed, model.OpByteArray:
		return true
	case model.OpArray:
		return goFlat(v.Elem)
	case model.OpStruct, model.OpFields:
		uses := model.FieldUses(v)
		if v.Fields != nil || len(uses) != v.Go.NumField() {
			return false
		}
		for _, u := range uses {
			if !goFlat(u.Value) {
				return false
			}
		}
		return true
	}
	return false
}

// goDeferred reports whether v, at a fixed place in the packet (fixed:
// reached from the root through struct fields only), is read straight
// into the caller's value at commit instead of into the shadow: raw bytes
// and raw runs of integers, which no value check can refuse, so only the
// bits they take are skipped on the first pass (an overflow fails the
// Reader) and the shadow keeps where they start.
func goDeferred(v *model.Value, fixed bool) bool {
	switch v.Op {
	case model.OpByteArray:
		return fixed
	}
	return false
}

// shadowType is the Go type that holds v between read and commit inside
// a loop (a slice's or an array's element), where a value's shadow is
// one Go value.
func (e *goEmitter) shadowType(v *model.Value) string {
	if goFlat(v) {
		return e.typeExpr(v.Go)
	}
	switch v.Op {
	case model.OpQuat:
		return "[4]float32"
	case model.OpString:
		return "[]byte"
	case model.OpBytes:
		return fmt.Sprintf("struct {\nn int\nb [%d]byte\n}", v.MaxLen)
	case model.OpArray:
		return fmt.Sprintf("[%d]%s", v.Len, e.shadowType(v.Elem))
	case model.OpSlice:
		return fmt.Sprintf("struct {\nn int\ne [%d]%s\n}", v.MaxLen, e.shadowType(v.Elem))
	case model.OpPointer:
		return fmt.Sprintf("struct {\nset bool\nv %s\n}", e.shadowType(v.Elem))
	case model.OpStruct, model.OpFields:
		s := "struct {\n"
		for _, u := range model.FieldUses(v) {
			s += u.Member.Name + " " + e.shadowType(u.Value) + "\n"
		}
		return s + "}"
	}
	e.unsupported(v)
	return "struct{}"
}

// goContainer reports whether v's shadow has parts: a struct that is not
// flat, a pointer, a slice, a []byte. At a fixed place each part is a
// variable of its own (see sub); every other value's shadow is one.
func goContainer(v *model.Value) bool {
	switch v.Op {
	case model.OpPointer, model.OpSlice, model.OpBytes:
		return true
	case model.OpStruct, model.OpFields:
		return !goFlat(v)
	}
	return false
}

// sub names part f of the shadow s: at a fixed place a variable of its own
// (s_f), which the compiler keeps in a register or a stack slot it need
// not zero; inside a loop a field of s's struct (s.f).
func sub(s, f string, fixed bool) string {
	if fixed {
		return s + "_" + f
	}
	return s + "." + f
}

// declare adds a shadow variable to the function being rendered.
func (e *goEmitter) declare(v *model.Value, name, typ string) {
	if e.declared[name] {
		e.fail(v, "two fields make the same name %s in the generated code: rename one", name)
	}
	e.declared[name] = true
	e.decls = append(e.decls, name+" "+typ)
}

// The decoder reads the packet itself, not through a bitio.Reader: pos is
// the bit position, end the packet's bits, and fields are read in groups
// of up to 57 bits with one length check and one 64-bit load each (see
// field and flush). A group ends where control flow does (a presence bit,
// a length) or where it would pass 57 bits.

// goMaxGroup is the most bits one load yields: a 64-bit load from the
// byte holding pos, shifted down by up to 7.
const goMaxGroup = 57

// goField is a pending field: its width, and what stores its code c.
type goField struct {
	bits  int
	store func(c string)
}

// field queues a field of bits bits (at most 64); store renders what is
// done with its code, a uint64 expression, once its group is read.
func (e *goEmitter) field(bits int, store func(c string)) {
	if bits == 0 { // a variable: a constant code would make the value a constant, which may overflow its conversion
		c := e.local("c")
		e.printf("var %s uint64", c)
		store(c)
		return
	}
	if bits > goMaxGroup { // a wide raw number: its low and high halves
		lo := e.local("lo")
		e.field(32, func(c string) { e.printf("%s := %s", lo, c) })
		e.field(bits-32, func(c string) { store(fmt.Sprintf("(%s | %s<<32)", lo, c)) })
		return
	}
	if e.pendingBits+bits > goMaxGroup {
		e.flush()
	}
	e.pending = append(e.pending, goField{bits, store})
	e.pendingBits += bits
}

// flush reads the pending group: its length check, one load, then each
// field's code masked out of the word and stored.
func (e *goEmitter) flush() {
	if len(e.pending) == 0 {
		return
	}
	fields, total := e.pending, e.pendingBits
	e.pending, e.pendingBits = nil, 0
	e.helpers["word"] = true
	e.imports["encoding/binary"] = "binary"
	w := e.local("w")
	e.printf("if end-pos < %d {\n%s\n}", total, goReject)
	e.printf("%s := bitpackWord(data, pos)", w)
	shift := 0
	for _, f := range fields {
		c := e.local("c")
		e.printf("%s := %s>>%d&%#x", c, w, shift, uint64(1)<<f.bits-1)
		f.store(c)
		shift += f.bits
	}
	e.printf("pos += %d", total)
}

// align skips to the next byte boundary, refusing padding that is not
// zero.
func (e *goEmitter) align() {
	e.flush()
	e.helpers["word"] = true
	e.imports["encoding/binary"] = "binary"
	e.printf("if pad := -pos & 7; pad != 0 {")
	e.printf("if end-pos < pad || bitpackWord(data, pos)&(1<<pad-1) != 0 {\n%s\n}", goReject)
	e.printf("pos += pad")
	e.printf("}")
}

// bytesAt renders the checks that n bytes (an int expression) follow the
// aligned pos, and returns the expression of the byte offset they start
// at.
func (e *goEmitter) bytesAt(n string) string {
	e.align()
	e.printf("if (end-pos)/8 < %s {\n%s\n}", n, goReject)
	return "pos>>3"
}

// read renders the statements that read v into its shadow s (a variable
// name or prefix at a fixed place, else an addressable expression).
func (e *goEmitter) read(v *model.Value, s string, depth int, fixed bool) {
	if goDeferred(v, fixed) {
		e.declare(v, s, "int")
		e.printf("%s = %s", s, e.bytesAt(strconv.Itoa(v.Len)))
		e.printf("pos += %d", 8*v.Len)
		return
	}
	if fixed && !goContainer(v) {
		e.declare(v, s, e.shadowType(v))
	}
	switch v.Op {
	case model.OpBool:
		t := e.typeExpr(v.Go)
		e.field(1, func(c string) { e.printf("%s = %s(%s != 0)", s, t, c) })
	case model.OpInt:
		e.readInt(v, s)
	case model.OpFloat:
		e.imports["math"] = "math"
		t := e.typeExpr(v.Go)
		e.field(v.FloatBits, func(c string) {
			e.printf("%s = %s(math.Float%dfrombits(uint%d(%s)))", s, t, v.FloatBits, v.FloatBits, c)
		})
	case model.OpCompressed:
		e.readCompressed(v, s)
	case model.OpQuat:
		e.readQuat(v, s)
	case model.OpString:
		n := e.readLength(v)
		at := e.bytesAt(n)
		e.helpers["text"] = true
		e.imports["bytes"], e.imports["unicode/utf8"] = "bytes", "utf8"
		e.printf("%s = data[%s : %s+%s : %s+%s]", s, at, at, n, at, n)
		e.printf("if !bitpackText(%s) {\n%s\n}", s, goReject)
		e.printf("pos += 8 * %s", n)
	case model.OpBytes:
		if fixed {
			e.declare(v, sub(s, "n", true), "int")
			e.declare(v, sub(s, "b", true), fmt.Sprintf("[%d]byte", v.MaxLen))
		}
		n := e.readLength(v)
		at := e.bytesAt(n)
		e.printf("%s = copy(%s[:%s], data[%s:])", sub(s, "n", fixed), sub(s, "b", fixed), n, at)
		e.printf("pos += 8 * %s", n)
	case model.OpByteArray:
		at := e.bytesAt(strconv.Itoa(v.Len))
		e.printf("copy(%s[:], data[%s:])", s, at)
		e.printf("pos += %d", 8*v.Len)
	case model.OpArray:
		e.readElems(v, s, strconv.Itoa(v.Len), depth)
	case model.OpSlice:
		if fixed {
			e.declare(v, sub(s, "n", true), "int")
			e.declare(v, sub(s, "e", true), fmt.Sprintf("[%d]%s", v.MaxLen, e.shadowType(v.Elem)))
		}
		n := e.readLength(v)
		e.printf("%s = %s", sub(s, "n", fixed), n)
		e.readElems(v, sub(s, "e", fixed), n, depth)
	case model.OpPointer:
		if fixed {
			e.declare(v, sub(s, "set", true), "bool")
		}
		set := sub(s, "set", fixed)
		e.field(1, func(c string) { e.printf("%s = %s != 0", set, c) })
		e.flush()
		e.printf("if %s {", set)
		e.read(v.Elem, sub(s, "v", fixed), depth+goLevel(v.Elem), fixed)
		e.flush()
		e.printf("}")
	case model.OpStruct, model.OpFields:
		if depth > bitpack.MaxDepth {
			e.fail(v, "nested deeper than bitpack.MaxDepth")
			return
		}
		if goFlat(v) {
			for _, u := range model.FieldUses(v) {
				e.read(u.Value, s+"."+u.Member.Name, depth+goLevel(u.Value), false)
			}
			return
		}
		for _, u := range model.FieldUses(v) {
			e.read(u.Value, sub(s, u.Member.Name, fixed), depth+goLevel(u.Value), fixed)
		}
	default:
		e.unsupported(v)
	}
}

// readLength reads the length of a string, []byte or slice, refusing one
// above maxlen, into a new int local it returns.
func (e *goEmitter) readLength(v *model.Value) string {
	n := e.local("n")
	e.printf("var %s int", n)
	e.field(v.Prefix.Bits, func(c string) {
		e.printf("if %s > %d {\n%s\n}", c, v.MaxLen, goReject)
		e.printf("%s = int(%s)", n, c)
	})
	e.flush()
	return n
}

// readQuat reads a quaternion's index and three codes and decodes them as
// package quant does, refusing codes that are not canonical.
func (e *goEmitter) readQuat(v *model.Value, s string) {
	q := e.quatQuantizer(v.Bits)
	l, c := e.local("l"), [3]string{e.local("q"), e.local("q"), e.local("q")}
	e.printf("var %s, %s, %s, %s uint32", l, c[0], c[1], c[2])
	e.field(2, func(x string) { e.printf("%s = uint32(%s)", l, x) })
	for k := range c {
		e.field(v.Bits, func(x string) { e.printf("%s = uint32(%s)", c[k], x) })
	}
	e.flush()
	err := e.local("err")
	e.printf("var %s error", err)
	e.printf("if %s, %s = %s.Decode(%s, [3]uint32{%s, %s, %s}); %s != nil {\n%s\n}", s, err, q, l, c[0], c[1], c[2], err, goReject)
}

// readCompressed reads a compressed float: its code, refused above M,
// dequantized as quant.Float.Dequantize does, with immediates.
func (e *goEmitter) readCompressed(v *model.Value, s string) {
	t := e.typeExpr(v.Go)
	if v.FloatBits == 64 {
		q := e.quantizer(v)
		e.field(v.Bits, func(c string) {
			e.printf("if %s > %d {\n%s\n}", c, v.Steps, goReject)
			e.printf("%s = %s(%s.Dequantize(uint32(%s)))", s, t, q, c)
		})
		return
	}
	k := float32Params(v)
	e.field(v.Bits, func(c string) {
		e.printf("if %s > %d {\n%s\n}", c, v.Steps, goReject)
		ratio := fmt.Sprintf("float32(float32(%s) / %s)", c, goFloat32(k.steps))
		if k.fastInv {
			ratio = fmt.Sprintf("float32(float64(%s) * %s)", c, strconv.FormatFloat(k.inv, 'g', -1, 64))
		}
		e.printf("%s = %s(float32(float32(%s*%s) + %s))", s, t, ratio, goFloat32(k.delta), goFloat32(k.min))
	})
}

// readElems reads the first n elements of the array s (n a Go
// expression) as v's elements.
func (e *goEmitter) readElems(v *model.Value, s, n string, depth int) {
	count, _ := strconv.Atoi(n)
	constant := n == strconv.Itoa(count)
	switch {
	case rawUints(v.Elem): // one length check for the run
		e.flush()
		e.helpers["word"] = true
		e.imports["encoding/binary"] = "binary"
		e.printf("if (end-pos)/%d < %s {\n%s\n}", v.Elem.Bits, n, goReject)
		i := e.local("i")
		t := e.typeExpr(v.Elem.Go)
		e.printf("for %s := range %s[:%s] {", i, s, n)
		if v.Elem.Bits <= goMaxGroup {
			e.printf("%s[%s] = %s(bitpackWord(data, pos) & %#x)", s, i, t, uint64(1)<<v.Elem.Bits-1)
		} else {
			e.printf("%s[%s] = %s(bitpackWord(data, pos)&0xffffffff | bitpackWord(data, pos+32)&%#x<<32)", s, i, t, uint64(1)<<(v.Elem.Bits-32)-1)
		}
		e.printf("pos += %d", v.Elem.Bits)
		e.printf("}")
	case constant && count <= 8 && !v.Elem.Op.IsStruct():
		for i := 0; i < count; i++ {
			e.read(v.Elem, s+"["+strconv.Itoa(i)+"]", depth, false)
		}
	default:
		e.flush()
		i := e.local("i")
		e.printf("for %s := range %s[:%s] {", i, s, n)
		e.read(v.Elem, s+"["+i+"]", depth+goLevel(v.Elem), false)
		e.flush()
		e.printf("}")
	}
}

func (e *goEmitter) readInt(v *model.Value, s string) {
	min, limit, flip, bits := v.Code.Lo, v.Code.Limit, v.Code.Flip, v.Code.Bits
	t := e.typeExpr(v.Go)
	e.field(bits, func(c string) {
		if bits > 0 && limit != math.MaxUint64>>(64-bits) {
			e.printf("if %s > %s {\n%s\n}", c, goUint(limit), goReject)
		}
		expr := c
		if flip != 0 {
			expr = fmt.Sprintf("(%s ^ %s)", expr, goUint(flip))
		}
		if min != 0 {
			expr = fmt.Sprintf("(%s + %s)", expr, goUint(min))
		}
		if v.Time {
			e.helpers["TimeOfUnits"] = true
			e.printf("%s = bitpackTimeOfUnits(int64(%s), %d)", s, expr, v.Unit)
			return
		}
		if v.Unit > 1 {
			expr = fmt.Sprintf("(%s * %d)", expr, v.Unit)
		}
		switch v.Go.Kind() {
		case reflect.Int: // 64 bits on the wire, 32 in Go on 32-bit platforms
			u := e.local("u")
			e.printf("%s := int64(%s)", u, expr)
			e.printf("if int64(int(%s)) != %s {\n%s\n}", u, u, goReject)
			e.printf("%s = %s(%s)", s, t, u)
			return
		case reflect.Uint:
			u := e.local("u")
			e.printf("%s := uint64(%s)", u, expr)
			e.printf("if uint64(uint(%s)) != %s {\n%s\n}", u, u, goReject)
			e.printf("%s = %s(%s)", s, t, u)
			return
		}
		if v.Signed {
			expr = "int64(" + expr + ")"
		}
		e.printf("%s = %s(%s)", s, t, expr)
	})
}

// commit renders the statements that store the shadow s of v into the
// addressable d. Deferred values are copied now, from the accepted packet.
func (e *goEmitter) commit(v *model.Value, d, s string, fixed bool) {
	if goDeferred(v, fixed) {
		e.printf("copy(%s[:], data[%s:])", d, s)
		return
	}
	if goFlat(v) {
		e.printf("%s = %s", d, s)
		return
	}
	switch v.Op {
	case model.OpQuat:
		for k, steps := range v.Comps {
			t := quatCompType(v.Go, steps)
			e.printf("%s%s = %s(%s[%d])", d, quatComp(steps), e.typeExpr(t), s, k)
		}
	case model.OpString:
		e.printf("if string(%s) != string(%s) {\n%s = %s(%s)\n}", d, s, d, e.typeExpr(v.Go), s)
	case model.OpBytes:
		e.printf("%s = append(%s[:0], %s[:%s]...)", d, d, sub(s, "b", fixed), sub(s, "n", fixed))
	case model.OpArray:
		i := e.local("i")
		e.printf("for %s := range %s {", i, d)
		e.commit(v.Elem, d+"["+i+"]", s+"["+i+"]", false)
		e.printf("}")
	case model.OpSlice:
		old := e.resize(v, d, sub(s, "n", fixed))
		if goFlat(v.Elem) {
			e.printf("copy(%s, %s[:])", d, sub(s, "e", fixed))
		} else {
			i := e.local("i")
			e.printf("for %s := range %s {", i, d)
			e.commit(v.Elem, d+"["+i+"]", sub(s, "e", fixed)+"["+i+"]", false)
			e.printf("}")
		}
		if old != "" {
			e.printf("copy(%s, %s)", old, d)
		}
	case model.OpPointer:
		p := e.local("p")
		e.printf("if %s {", sub(s, "set", fixed))
		e.printf("%s := %s", p, d)
		e.printf("if %s == nil {\n%s = new(%s)\n%s = %s\n}", p, p, e.typeExpr(v.Elem.Go), d, p)
		e.commit(v.Elem, "(*"+p+")", sub(s, "v", fixed), fixed)
		e.printf("} else {\n%s = nil\n}", d)
	case model.OpStruct, model.OpFields:
		for pass := passCopies; pass < passCount; pass++ {
			e.commitFields(v, d, s, fixed, pass)
		}
	}
}

// The passes of a struct's commit, in the plan's order (commit.go): it
// copies the fixed-width fields first, then commits the strings, the
// pointers' pointees, the slices, and last the other kinds (times, byte
// slices, arrays it does not copy) in field order. Its parts are the
// struct's fields, those of the structs in it and the elements of the
// arrays it unrolls (model.Value.Unrolled), each in its pass. In a target
// whose pointer points into the target itself, the part committed last
// wins, so it must here too.
const (
	passCopies   = iota // goCopied
	passStrings         // model.OpString
	passPointers        // model.OpPointer
	passSlices          // model.OpSlice
	passRest            // the others: times, []byte, arrays looped over
	passCount
)

// commitPass is the pass that commits v, a part of its struct.
func commitPass(v *model.Value) int {
	switch {
	case goCopied(v):
		return passCopies
	case v.Op == model.OpString:
		return passStrings
	case v.Op == model.OpPointer:
		return passPointers
	case v.Op == model.OpSlice:
		return passSlices
	}
	return passRest
}

// passesOf is the set of passes (bit k for pass k) that commit a part of
// v: a struct's fields', an unrolled array's elements', else v's own.
func passesOf(v *model.Value) uint {
	switch {
	case goCopied(v):
	case v.Op.IsStruct():
		var m uint
		for _, u := range model.FieldUses(v) {
			m |= passesOf(u.Value)
		}
		return m
	case v.Op == model.OpArray && v.Unrolled:
		return passesOf(v.Elem)
	}
	return 1 << commitPass(v)
}

// commitFields commits the parts of struct v that pass commits.
func (e *goEmitter) commitFields(v *model.Value, d, s string, fixed bool, pass int) {
	for _, u := range model.FieldUses(v) {
		e.commitPart(u.Value, d+"."+u.Member.Name, sub(s, u.Member.Name, fixed), fixed, pass)
	}
}

// commitPart commits the parts of v, a field or an unrolled array's
// element, that pass commits: a struct field by field (a flat one, whose
// shadow is one Go value, unless it is copied whole), an array whose
// elements have parts in several passes element by element, anything
// else whole.
func (e *goEmitter) commitPart(v *model.Value, d, s string, fixed bool, pass int) {
	m := passesOf(v)
	switch {
	case m&(1<<pass) == 0:
	case v.Op.IsStruct() && !goFlat(v):
		e.commitFields(v, d, s, fixed, pass)
	case v.Op.IsStruct() && !goCopied(v):
		for _, u := range model.FieldUses(v) {
			e.commitPart(u.Value, d+"."+u.Member.Name, s+"."+u.Member.Name, false, pass)
		}
	case v.Op == model.OpArray && m != 1<<pass:
		i := e.local("i")
		e.printf("for %s := range %s {", i, d)
		e.commitPart(v.Elem, d+"["+i+"]", s+"["+i+"]", false, pass)
		e.printf("}")
	default:
		e.commit(v, d, s, fixed)
	}
}

// holdsTime reports whether v is a time.Time, or an array or struct
// holding one in place, which the plan does not copy as bytes.
func holdsTime(v *model.Value) bool {
	switch v.Op {
	case model.OpArray:
		return holdsTime(v.Elem)
	case model.OpStruct, model.OpFields:
		for _, u := range model.FieldUses(v) {
			if holdsTime(u.Value) {
				return true
			}
		}
	}
	return v.Time
}

// goCopied reports whether the plan's commit copies v's bytes (a field
// of its copies, commitRanges): a fixed-width value (not a time.Time,
// whose Go value is not its code), a quaternion, a byte array, or an
// array whose elements hold no pointer and nothing off the wire.
func goCopied(v *model.Value) bool {
	switch v.Op {
	case model.OpInt:
		return !v.Time
	case model.OpBool, model.OpFloat, model.OpCompressed,
		model.OpQuat, model.OpByteArray:
		return true
	case model.OpArray:
		return !model.HasPointers(v.Elem.Go) && model.Complete(v.Elem)
	case model.OpStruct, model.OpFields: // goFlat: every field on the wire and copied
		return goFlat(v) && !holdsTime(v)
	}
	return false
}

// resize sets the slice d to length n (a Go expression) as the plan's
// commit does (commitSlice, commitGrown): within its capacity in place;
// else grown into a new array that keeps its elements to its capacity,
// which commit then fills in place (their pointees and slices reused,
// fields off the wire kept) — but for elements with no pointer that a
// decode writes whole (model.Complete), a new array of zero elements: there
// is nothing of theirs to keep. It returns, for elements with pointers
// that a decode writes whole, the variable that holds the old array when
// d grew (else nil), which the commit's end copies the new array's first
// elements back into: the plan fills the old array's elements in place
// and then moves them to the new one, so a pointer of the target into the
// old array sees them committed.
func (e *goEmitter) resize(v *model.Value, d, n string) (old string) {
	m := e.local("n")
	complete := model.Complete(v.Elem)
	if complete && model.HasPointers(v.Elem.Go) {
		old = e.local("g")
		e.printf("var %s %s", old, e.typeExpr(v.Go))
	}
	e.printf("if %s := %s; %s <= cap(%s) {", m, n, m, d)
	e.printf("%s = %s[:%s]", d, d, m)
	e.printf("} else {")
	if complete && !model.HasPointers(v.Elem.Go) {
		e.printf("%s = make(%s, %s)", d, e.typeExpr(v.Go), m)
		e.printf("}")
		return ""
	}
	g := e.local("g")
	from := d + "[:cap(" + d + ")]"
	if old != "" {
		e.printf("%s = %s", old, from)
		from = old
	}
	e.printf("%s := make(%s, %s)", g, e.typeExpr(v.Go), m)
	e.printf("copy(%s, %s)", g, from)
	e.printf("%s = %s", d, g)
	e.printf("}")
	return old
}

package golang

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/quant"
)

// Writing: each value is checked as the plan checks it and packed with
// its neighbours into words written with WriteBitsUnchecked (see put); anything the plan would refuse returns false, and
// the Codec asks the plan, which words the refusal. Strings and byte
// slices are written by bitio, whose own refusals fail the Writer: the
// function's last check.

const goRefuse = "return dst, false"

// write renders the statements that write v, held by the addressable Go
// expression x; depth is v's struct nesting (bitpack's MaxDepth bounds it).
func (e *goEmitter) write(v *model.Value, x string, depth int) {
	switch v.Op {
	case model.OpBool:
		e.helpers["bit"] = true
		if v.Go.Kind() == reflect.Bool && v.Go.Name() != "bool" {
			x = "bool(" + x + ")"
		}
		e.put("bitpackBit("+x+")", 1)
	case model.OpInt:
		if v.Time {
			e.writeTime(v, x)
			return
		}
		e.writeInt(v, x)
	case model.OpFloat:
		e.imports["math"] = "math"
		e.put(fmt.Sprintf("uint64(math.Float%dbits(float%d(%s)))", v.FloatBits, v.FloatBits, x), v.FloatBits)
	case model.OpCompressed:
		e.writeCompressed(v, x)
	case model.OpQuat:
		e.writeQuat(v, x)
	case model.OpString:
		e.printf("if len(%s) > %d {\n%s\n}", x, v.MaxLen, goRefuse)
		e.wflush()
		e.printf("w.WriteString(string(%s), %d)", x, v.MaxLen)
	case model.OpBytes:
		e.plainBytes(v)
		e.printf("if len(%s) > %d {\n%s\n}", x, v.MaxLen, goRefuse)
		e.put("uint64(len("+x+"))", v.Prefix.Bits)
		e.wflush()
		e.printf("w.WriteBytes(%s)", x)
	case model.OpByteArray:
		e.plainBytes(v)
		e.wflush()
		e.printf("w.WriteBytes(%s[:])", x)
	case model.OpArray:
		e.writeElems(v, x, v.Len, depth)
	case model.OpSlice:
		e.printf("if len(%s) > %d {\n%s\n}", x, v.MaxLen, goRefuse)
		e.put("uint64(len("+x+"))", v.Prefix.Bits)
		e.writeElems(v, x, -1, depth)
	case model.OpPointer:
		p := e.local("p")
		e.put("bitpackBit("+x+" != nil)", 1)
		e.helpers["bit"] = true
		e.wflush()
		e.printf("if %s := %s; %s != nil {", p, x, p)
		e.write(v.Elem, "(*"+p+")", depth+goLevel(v.Elem))
		e.wflush()
		e.printf("}")
	case model.OpStruct, model.OpFields:
		if depth > bitpack.MaxDepth {
			e.fail(v, "nested deeper than bitpack.MaxDepth")
			return
		}
		for _, u := range model.FieldUses(v) {
			if f := v.Go.Field(u.Member.Index); f.PkgPath != "" && f.PkgPath != e.pkgPath {
				e.fail(u.Value, "%v's field %s is unexported in package %s: code in package %s cannot reach it (leave %v to the plan)", v.Go, f.Name, f.PkgPath, e.pkgPath, e.rootType)
			}
			e.write(u.Value, x+"."+u.Member.Name, depth+goLevel(u.Value))
		}
	default:
		e.unsupported(v)
	}
}

// put queues the code c (an expression below 2^bits) for the word being
// written: fields are packed at constant shifts into words of up to 64
// bits, each written with one WriteBitsUnchecked (see wflush).
func (e *goEmitter) put(c string, bits int) {
	if bits == 0 {
		return
	}
	if e.wBits+bits > 64 {
		e.wflush()
	}
	if e.wBits == 0 {
		e.wExpr = c
	} else {
		e.wExpr += fmt.Sprintf(" | %s<<%d", c, e.wBits)
	}
	e.wBits += bits
}

// putCode queues the code in the local c (at most the limit by now) for
// the wire, through flip, the XOR that turns a raw signed integer's
// offset into two's complement. A 0-bit code writes nothing, but c is
// still used: Go refuses a local declared and not used.
func (e *goEmitter) putCode(c string, bits int, flip uint64) {
	if bits == 0 {
		e.printf("_ = %s", c)
		return
	}
	if flip != 0 {
		c = "(" + c + "^" + goUint(flip) + ")"
	}
	e.put(c, bits)
}

// wflush writes the queued word: before anything written otherwise, and
// before a block ends (the codes are its locals).
func (e *goEmitter) wflush() {
	if e.wBits > 0 {
		e.printf("w.WriteBitsUnchecked(%s, %d)", e.wExpr, e.wBits)
		e.wExpr, e.wBits = "", 0
	}
}

// plainBytes refuses a byte slice or array whose elements are of a named
// type (type B uint8; []B): the generated code passes it as []byte and
// copies into it from the packet, which Go allows for byte only.
func (e *goEmitter) plainBytes(v *model.Value) {
	if t := v.Go.Elem(); t != reflect.TypeFor[byte]() {
		e.fail(v, "%v holds %v, not byte: the generated code could not copy the packet's bytes into it (leave %v to the plan)", v.Go, t, e.rootType)
	}
}

// goLevel is what a value adds to the struct nesting: one for a struct.
func goLevel(v *model.Value) int {
	if v.Op.IsStruct() {
		return 1
	}
	return 0
}

// rawUints reports whether v's elements are full-width unsigned integers
// of their wire width, which bitio reads and writes a run of at a time.
func rawUints(elem *model.Value) bool {
	return elem.Op == model.OpInt && !elem.Signed && !elem.Ranged && elem.Unit <= 1 && !elem.Clamp &&
		elem.Bits == elem.Go.Bits() && elem.Go.Kind() != reflect.Uint && elem.Go.Kind() != reflect.Uintptr
}

// writeElems writes the elements of array or slice v (n of them, -1 for
// a slice's length): a raw run in one call, a few scalars unrolled, else a
// loop.
func (e *goEmitter) writeElems(v *model.Value, x string, n, depth int) {
	switch {
	case rawUints(v.Elem) && n != 0:
		if n > 0 {
			x += "[:]"
		}
		e.wflush()
		e.printf("bitio.WriteUints(&w, %s, %d)", x, v.Elem.Bits)
	case n >= 0 && n <= 8 && !v.Elem.Op.IsStruct():
		for i := 0; i < n; i++ {
			e.write(v.Elem, x+"["+strconv.Itoa(i)+"]", depth)
		}
	default:
		i := e.local("i")
		e.wflush()
		e.printf("for %s := range %s {", i, x)
		e.write(v.Elem, x+"["+i+"]", depth+goLevel(v.Elem))
		e.wflush()
		e.printf("}")
	}
}

// goUint is a uint64 constant as Go source.
func goUint(u uint64) string {
	if u < 1<<16 {
		return strconv.FormatUint(u, 10)
	}
	return fmt.Sprintf("%#x", u)
}

func (e *goEmitter) writeInt(v *model.Value, x string) {
	min, limit, flip, bits := v.Code.Lo, v.Code.Limit, v.Code.Flip, v.Code.Bits
	c := e.local("c")
	load := "uint64(" + x + ")"
	if v.Signed {
		load = "uint64(int64(" + x + "))"
	}
	switch {
	case v.Unit > 1 && v.Signed:
		e.helpers["unitsSigned"] = true
		load = fmt.Sprintf("bitpackUnitsSigned(int64(%s), %d)", x, v.Unit)
	case v.Unit > 1:
		e.helpers["unitsUnsigned"] = true
		load = fmt.Sprintf("bitpackUnitsUnsigned(uint64(%s), %d)", x, v.Unit)
	}
	if v.Clamp {
		u := e.local("u")
		e.printf("%s := %s", u, load)
		e.printf("%s := %s - %s", c, u, goUint(min))
		below := fmt.Sprintf("%s < %s", u, goUint(min))
		if v.Signed {
			below = fmt.Sprintf("int64(%s) < %d", u, int64(min))
		}
		e.printf("if %s > %s {\nif %s {\n%s = 0\n} else {\n%s = %s\n}\n}", c, goUint(limit), below, c, c, goUint(limit))
	} else {
		if min == 0 {
			e.printf("%s := %s", c, load)
		} else {
			e.printf("%s := %s - %s", c, load, goUint(min))
		}
		if limit != math.MaxUint64 {
			e.printf("if %s > %s {\n%s\n}", c, goUint(limit), goRefuse)
		}
	}
	e.putCode(c, bits, flip)
}

// writeTime writes a time.Time as the plan's timeFieldCode codes it: its
// Unix time in units (package rules' UnixUnits), refused (or clamped to
// the nearer bound) beyond int64 or outside the range.
func (e *goEmitter) writeTime(v *model.Value, x string) {
	min, limit, flip, bits := v.Code.Lo, v.Code.Limit, v.Code.Flip, v.Code.Bits
	e.helpers["UnixUnits"] = true
	u, neg, ok, c := e.local("u"), e.local("neg"), e.local("ok"), e.local("c")
	out := "!" + ok
	if limit != math.MaxUint64 {
		out += fmt.Sprintf(" || %s > %s", c, goUint(limit))
	}
	offset := fmt.Sprintf("%s := uint64(%s) - %s", c, u, goUint(min))
	if min == 0 {
		offset = fmt.Sprintf("%s := uint64(%s)", c, u)
	}
	if v.Clamp {
		e.printf("%s, %s, %s := bitpackUnixUnits(%s, %d)", u, neg, ok, x, v.Unit)
		e.printf("%s", offset)
		// Below the range: beyond int64 before 1970, or fewer units than min.
		e.printf("if %s {\nif !%s && %s || %s && %s < %d {\n%s = 0\n} else {\n%s = %s\n}\n}", out, ok, neg, ok, u, int64(min), c, c, goUint(limit))
	} else {
		e.printf("%s, _, %s := bitpackUnixUnits(%s, %d)", u, ok, x, v.Unit)
		e.printf("%s", offset)
		e.printf("if %s {\n%s\n}", out, goRefuse)
	}
	e.putCode(c, bits, flip)
}

// goFloat32 is a float32 constant as Go source: the shortest decimal that
// converts back to exactly f.
func goFloat32(f float32) string {
	return "float32(" + strconv.FormatFloat(float64(f), 'g', -1, 32) + ")"
}

func goFloat64(f float64) string { return "float64(" + strconv.FormatFloat(f, 'g', -1, 64) + ")" }

// quantizer returns the package-level quantizer of compressed float v,
// declaring it on first use, built as prepareQuantizer builds bitpack's.
func (e *goEmitter) quantizer(v *model.Value) string {
	key := fmt.Sprint(v.FloatBits, v.Min, v.Max, v.Res)
	if n, ok := e.quantByKey[key]; ok {
		return n
	}
	e.imports["github.com/bitpack-go/bitpack/quant"] = "quant"
	e.helpers["must"] = true
	n := "bitpackQ" + strconv.Itoa(len(e.quantByKey))
	e.quantByKey[key] = n
	if v.FloatBits == 32 {
		e.quantizers = append(e.quantizers, fmt.Sprintf("%s = bitpackMust(quant.NewFloat(%s, %s, %s))", n,
			goFloat32(float32(v.Min)), goFloat32(float32(v.Max)), goFloat32(float32(v.Res))))
		e.quantizers = append(e.quantizers, fmt.Sprintf("_ = %s.VerifyReciprocal()", n))
	} else {
		e.quantizers = append(e.quantizers, fmt.Sprintf("%s = bitpackMust(quant.NewFloat64(%s, %s, %s))", n,
			goFloat64(v.Min), goFloat64(v.Max), goFloat64(v.Res)))
	}
	return n
}

// ceil32 and floor32 are the float32 bounds of what the plan accepts
// without clamp (kind_float.go): for a float32 f, f >= x exactly when
// f >= ceil32(x).
func ceil32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

func floor32(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

// float32Consts are a compressed float32's quantizer numbers as package
// quant holds them, for the generated code's immediates: min, delta =
// max - min, M as a float32 and as a code, 1/M, whether the reciprocal
// dequantizes every code exactly (VerifyReciprocal), and 1/delta when
// delta is a power of two (dividing by it is then multiplying by that,
// exactly: both round the same real number once).
type float32Consts struct {
	min, delta, steps float32
	maxCode           uint32
	inv               float64
	fastInv           bool
	invDelta          float32
}

func float32Params(v *model.Value) float32Consts {
	q, err := quant.NewFloat(float32(v.Min), float32(v.Max), float32(v.Res))
	if err != nil {
		panic("gen: a compressed float the plan compiled: " + err.Error())
	}
	k := float32Consts{min: q.Min(), delta: float32(q.Max() - q.Min()), maxCode: q.MaxCode(), inv: 1 / float64(q.MaxCode())}
	k.steps = float32(k.maxCode)
	k.fastInv = q.VerifyReciprocal()
	if frac, _ := math.Frexp(float64(k.delta)); frac == 0.5 {
		k.invDelta = 1 / k.delta
	}
	return k
}

func (e *goEmitter) writeCompressed(v *model.Value, x string) {
	f, c := e.local("f"), e.local("c")
	if v.FloatBits == 32 {
		// quant.Float.QuantizeInRange and Quantize, with immediates.
		k := float32Params(v)
		ratio := fmt.Sprintf("float32(float32(%s-%s) / %s)", f, goFloat32(k.min), goFloat32(k.delta))
		if k.invDelta != 0 {
			ratio = fmt.Sprintf("float32(float32(%s-%s) * %s)", f, goFloat32(k.min), goFloat32(k.invDelta))
		}
		e.helpers["trunc"] = true
		e.printf("%s := float32(%s)", f, x)
		e.printf("var %s uint32", c)
		e.printf("if %s >= %s && %s <= %s {", f, goFloat32(ceil32(v.Lo)), f, goFloat32(floor32(v.Hi)))
		e.printf("%s = bitpackTrunc(float32(float32(%s*%s)+0.5), %d)", c, ratio, goFloat32(k.steps), k.maxCode)
		if v.Clamp {
			e.printf("} else if %s-%s == 0 {", f, f) // finite
			e.printf("%s = %s.Quantize(%s)", c, e.quantizer(v), f)
		}
		e.printf("} else {\n%s\n}", goRefuse)
	} else {
		q := e.quantizer(v)
		e.printf("%s := float64(%s)", f, x)
		cond := fmt.Sprintf("!(%s >= %s && %s <= %s)", f, goFloat64(v.Lo), f, goFloat64(v.Hi))
		if v.Clamp {
			cond += fmt.Sprintf(" && %s-%s != 0", f, f)
		}
		e.printf("if %s {\n%s\n}", cond, goRefuse)
		e.printf("%s := %s.Quantize(%s)", c, q, f)
	}
	e.put("uint64("+c+")", v.Bits)
}

// quatQuantizer returns the package-level quaternion parameters for b
// bits per component.
func (e *goEmitter) quatQuantizer(b int) string {
	key := "quat" + strconv.Itoa(b)
	if n, ok := e.quantByKey[key]; ok {
		return n
	}
	e.imports["github.com/bitpack-go/bitpack/quant"] = "quant"
	e.helpers["must"] = true
	n := "bitpackQ" + strconv.Itoa(len(e.quantByKey))
	e.quantByKey[key] = n
	e.quantizers = append(e.quantizers, fmt.Sprintf("%s = bitpackMust(quant.NewQuat(%d))", n, b))
	return n
}

// quatComp is the Go selector of a quaternion component from its holder.
func quatComp(steps []model.QuatStep) string {
	s := ""
	for _, st := range steps {
		if st.Member != nil {
			s += "." + st.Member.Name
		} else {
			s += "[" + strconv.Itoa(st.Index) + "]"
		}
	}
	return s
}

// quatCompType is the Go type of a quaternion component.
func quatCompType(t reflect.Type, steps []model.QuatStep) reflect.Type {
	for _, st := range steps {
		if st.Member != nil {
			t = t.Field(st.Member.Index).Type
		} else {
			t = t.Elem()
		}
	}
	return t
}

func (e *goEmitter) writeQuat(v *model.Value, x string) {
	e.helpers["quat"] = true
	e.imports["math"] = "math"
	q := e.quatQuantizer(v.Bits)
	var c [4]string
	for k, steps := range v.Comps {
		c[k] = e.local("q")
		e.printf("%s := float32(%s%s)", c[k], x, quatComp(steps))
	}
	e.printf("if !bitpackQuatOK(%s, %s, %s, %s) {\n%s\n}", c[0], c[1], c[2], c[3], goRefuse)
	if 2+3*v.Bits <= 64 {
		word := e.local("word")
		e.printf("%s, _ := %s.EncodeWord(%s, %s, %s, %s)", word, q, c[0], c[1], c[2], c[3])
		e.put(word, 2+3*v.Bits)
		return
	}
	e.wflush()
	e.printf("w.WriteQuat(&%s, [4]float32{%s, %s, %s, %s})", q, c[0], c[1], c[2], c[3])
}

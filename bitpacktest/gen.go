package bitpacktest

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/rules"
	"github.com/leanovate/gopter"
)

// Gen returns a generator of values of T that satisfy T's tags: every
// value it makes (and every value its shrinker proposes) marshals. It
// panics with the reason if T has no valid layout or has a custom-hook
// type with no generator registered through Custom.
//
// Values are drawn from T's compiled layout (bitpack.Describe), field by
// field: integers anywhere in their range with the edges (min, max, min+1,
// max−1 and 0) chosen often (and, with clamp, sometimes outside the range);
// strings of valid UTF-8 without NUL, multi-byte runes included, up to
// maxlen bytes; byte slices and arrays of arbitrary bytes; slices up to
// maxlen elements (capped by MaxElems); maps up to maxlen entries (capped
// likewise, and by how many distinct keys there are: a map[bool]V has at
// most 2), with distinct keys drawn as the key's own tags allow and values
// as the value's; nil and empty slices and maps both; pointers nil or not;
// raw floats as arbitrary bit patterns (NaN payloads, −0, denormals,
// infinities); compressed floats anywhere in [min, max], on and between
// quanta (and, with clamp, sometimes outside); quaternions as random unit
// rotations. Named types keep their names.
//
// The shrinker moves toward the smallest value that still fails: integers
// and floats toward the in-range value closest to zero, strings and slices
// shorter with their elements shrunk, maps with fewer entries and their
// keys and values shrunk (a key never onto another the map holds),
// pointers to nil, struct fields one at a time. Shrunk values satisfy the
// tags too.
func Gen[T any](opts ...Option) gopter.Gen {
	t := reflect.TypeFor[T]()
	cfg := newConfig(t, opts)
	m, err := compileModel(t, cfg)
	if err != nil {
		panic(err.Error())
	}
	return m.gen(cfg)
}

// gen is Gen for a compiled model.
//
// The tags bound every field, but not what a whole value costs the
// decoder: Marshal refuses a value whose packet claims more values or
// bytes than its bits pay for (bitpack's allowances; for example a sparse
// array of 70000 slots with few elements present). Such values are drawn
// again, a few times; a type whose values mostly cost that much gets its
// draws discarded (gopter reports how many), never a value Marshal
// refuses.
func (m *model) gen(cfg *config) gopter.Gen {
	shrinker := m.shrinker()
	// The sieve also keeps shrinking to values Marshal accepts.
	sieve := func(v any) bool {
		_, err := bitpack.Marshal(v)
		return !isAllowanceRefusal(err)
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		var v reflect.Value
		for range allowanceDraws {
			if v = m.generate(p, cfg); sieve(v.Interface()) {
				break
			}
		}
		return &gopter.GenResult{Result: v.Interface(), ResultType: m.typ, Shrinker: shrinker, Sieve: sieve}
	}
}

// allowanceDraws is how many values gen draws before it gives one up.
const allowanceDraws = 8

// isAllowanceRefusal reports whether err is Marshal refusing a value for
// what its packet would cost the decoder (see the package doc of bitpack,
// Guarantees).
func isAllowanceRefusal(err error) bool {
	var be *bitpack.Error
	return errors.As(err, &be) && errors.Is(err, bitpack.ErrRange) && strings.Contains(be.Detail, "would take the decode past")
}

// elemBudget bounds the container elements and pointer targets of one
// value, so nested slices with large maxlens stay cheap to generate.
const elemBudget = 1 << 12

type genState struct {
	rng    *rand.Rand
	params *gopter.GenParameters
	cfg    *config
	depth  int // cyclic containers entered
	budget int
}

// generate makes one value of m's type from p's random source.
func (m *model) generate(p *gopter.GenParameters, cfg *config) reflect.Value {
	budget := elemBudget
	if cfg.budget > 0 {
		budget = cfg.budget
	}
	st := &genState{rng: p.Rng, params: p, cfg: cfg, budget: budget}
	v := reflect.New(m.typ).Elem()
	st.fill(m.root, v)
	return v
}

// fill stores a generated value of n into dst. dst is settable, or is a
// struct (possibly an unexported embedded one) whose wire fields are.
func (st *genState) fill(n *node, dst reflect.Value) {
	r := st.rng
	switch n.kind {
	case bitpack.KindBool:
		dst.SetBool(r.Intn(2) == 1)
	case bitpack.KindInt:
		dst.SetInt(unord(st.integer(n)) * n.unit)
	case bitpack.KindUint:
		dst.SetUint(st.integer(n) * uint64(n.unit))
	case bitpack.KindTime:
		// Times in range only: clamp's side (times past a bound) would
		// reach past what time.Time holds for the widest tags.
		setTime(n, dst, st.ordered(n.lo, n.hi, n.zero))
	case bitpack.KindFloat:
		if n.isFloat32() {
			setFloat32(dst, math.Float32frombits(uint32(st.floatBits(32))))
		} else {
			dst.SetFloat(math.Float64frombits(st.floatBits(64)))
		}
	case bitpack.KindCompressedFloat:
		dst.SetFloat(st.compressed(n))
	case bitpack.KindQuat:
		setQuat(dst, n.f.QuatPaths, st.quat())
	case bitpack.KindString:
		dst.SetString(st.text(st.length(n.f.MaxLen, 4*st.cfg.maxElems)))
	case bitpack.KindBytes:
		st.fillBytes(n, dst)
	case bitpack.KindByteArray:
		st.bytes(dst)
	case bitpack.KindArray:
		for i := 0; i < dst.Len(); i++ {
			st.fill(n.elem, dst.Index(i))
		}
	case bitpack.KindSlice:
		st.fillSlice(n, dst)
	case bitpack.KindMap:
		st.fillMap(n, dst)
	case bitpack.KindPointer:
		if !n.neverNil && (n.elem.rank < 0 || (n.cyclic && st.depth >= st.cfg.depth) || st.budget <= 0 || r.Intn(4) == 0) {
			dst.Set(reflect.Zero(n.typ))
			return
		}
		st.present(n, dst)
	case bitpack.KindSparse:
		st.fillSparse(n, dst)
	case bitpack.KindUnion:
		st.fillUnion(n, dst)
	case bitpack.KindCheck:
		// A zero-size marker: nothing to generate.
	case bitpack.KindStruct:
		for _, c := range n.fields {
			st.fill(c, dst.Field(c.index))
		}
	case bitpack.KindCustom:
		st.fillCustom(n, dst)
	default:
		panic(fmt.Sprintf("bitpacktest: %s: kind %v cannot be generated", n.path, n.kind))
	}
}

// fillBytes stores a []byte of an allowed length, nil or empty when 0.
func (st *genState) fillBytes(n *node, dst reflect.Value) {
	r := st.rng
	k := st.length(n.f.MaxLen, 4*st.cfg.maxElems)
	if k == 0 && r.Intn(2) == 0 {
		dst.Set(reflect.Zero(n.typ)) // nil and empty both mean "no bytes"
		return
	}
	s := reflect.MakeSlice(n.typ, k, k)
	st.bytes(s)
	dst.Set(s)
}

// fillSlice stores a slice of an allowed length within the budget; a
// recursive type gets less room at each level, nothing past the depth limit.
func (st *genState) fillSlice(n *node, dst reflect.Value) {
	r := st.rng
	limit := st.cfg.maxElems
	if n.cyclic || n.elem.rank < 0 { // rank < 0: no element has a finite value
		if st.depth >= st.cfg.depth || n.elem.rank < 0 {
			dst.Set(reflect.Zero(n.typ))
			return
		}
		// Each level of a recursive type gets a quarter of the room.
		limit = max(1, limit>>(2*st.depth))
	}
	k := min(st.length(n.f.MaxLen, limit), max(st.budget, 0)) // present() may take the budget below 0
	st.budget -= k
	if k == 0 && r.Intn(2) == 0 {
		dst.Set(reflect.Zero(n.typ))
		return
	}
	s := reflect.MakeSlice(n.typ, k, k)
	st.enter(n)
	for i := 0; i < k; i++ {
		st.fill(n.elem, s.Index(i))
	}
	st.leave(n)
	dst.Set(s)
}

// fillSparse stores a sparse array or slice, each element present or nil.
func (st *genState) fillSparse(n *node, dst reflect.Value) {
	r := st.rng
	// Each element is nil with a probability drawn per field, from
	// all present to all absent.
	absent := [...]float64{0, 0.25, 0.5, 0.75, 1}[r.Intn(5)]
	if n.cyclic && st.depth >= st.cfg.depth || n.elem.elem.rank < 0 { // elem is the *T over T
		absent = 1
	}
	elems, isSlice := dst, n.typ.Kind() == reflect.Slice
	if isSlice {
		limit := st.cfg.maxElems
		if n.cyclic {
			limit = max(1, limit>>(2*st.depth))
		}
		k := st.length(n.f.MaxLen, limit)
		if absent == 1 || (k == 0 && r.Intn(2) == 0) {
			dst.Set(reflect.Zero(n.typ))
			return
		}
		elems = reflect.MakeSlice(n.typ, k, k)
	}
	st.enter(n)
	for i := 0; i < elems.Len(); i++ {
		if r.Float64() >= absent && st.budget > 0 {
			st.present(n.elem, elems.Index(i))
		} else {
			elems.Index(i).Set(reflect.Zero(n.elem.typ))
		}
	}
	st.leave(n)
	if isSlice {
		dst.Set(elems)
	}
}

// fillUnion stores a value of one of the union's members.
func (st *genState) fillUnion(n *node, dst reflect.Value) {
	r := st.rng
	// Any member; past the depth limit only members that lead to a
	// finite value sooner than the union itself (see computeRanks).
	var choices []*node
	for _, c := range n.members {
		if c.rank >= 0 && (!n.cyclic || st.depth < st.cfg.depth || c.rank < n.rank) {
			choices = append(choices, c)
		}
	}
	c := choices[r.Intn(len(choices))]
	v := reflect.New(c.typ).Elem()
	st.enter(n)
	st.fill(c, v)
	st.leave(n)
	dst.Set(v)
}

// fillCustom stores a value from the generator registered for n's type.
func (st *genState) fillCustom(n *node, dst reflect.Value) {
	if n.custom == nil { // FuzzWith without a registered generator
		dst.Set(reflect.Zero(n.typ))
		return
	}
	for try := 0; try < 100; try++ {
		if v, ok := n.custom(st.params).Retrieve(); ok {
			setCustom(n, dst, v)
			return
		}
	}
	panic(fmt.Sprintf("bitpacktest: %s: the generator registered for %s produced no value in 100 tries (its sieve refuses them)", n.path, n.typ))
}

// setTime stores into dst the time of time node n whose code (its Unix
// time in n's units) is c, in ordered form: UTC, as bitpack decodes it.
func setTime(n *node, dst reflect.Value, c uint64) {
	dst.Set(reflect.ValueOf(rules.TimeOfUnits(unord(c), n.unit)))
}

// timeCode is time v's code in time node n's units (ordered form), rounded
// as bitpack's encoder rounds it, and whether it has one (within int64;
// neg then says which side it is past).
func timeCode(n *node, v reflect.Value) (c uint64, neg, ok bool) {
	u, neg, ok := rules.UnixUnits(v.Interface().(time.Time), n.unit)
	return ord(u), neg, ok
}

// present stores a non-nil pointer to a generated element into dst.
func (st *genState) present(n *node, dst reflect.Value) {
	st.budget--
	p := reflect.New(n.typ.Elem())
	st.enter(n)
	st.fill(n.elem, p.Elem())
	st.leave(n)
	dst.Set(p)
}

func (st *genState) enter(n *node) {
	if n.cyclic {
		st.depth++
	}
}

func (st *genState) leave(n *node) {
	if n.cyclic {
		st.depth--
	}
}

// setCustom stores a custom generator's value, converting it to the field's
// (possibly named) type.
func setCustom(n *node, dst reflect.Value, v any) {
	rv := reflect.ValueOf(v)
	switch {
	case !rv.IsValid():
		rv = reflect.Zero(n.typ)
	case rv.Type() == n.typ:
	case rv.Type().ConvertibleTo(n.typ):
		rv = rv.Convert(n.typ)
	default:
		panic(fmt.Sprintf("bitpacktest: %s: the generator registered for %s produced a %s", n.path, n.typ, rv.Type()))
	}
	dst.Set(rv)
}

// integer returns a value for integer node n, in units and in ordered
// form: within its range, or rarely, when it clamps, outside it (as far as
// the Go type holds, in whole units).
func (st *genState) integer(n *node) uint64 {
	if n.f.Clamp && st.rng.Intn(16) == 0 {
		tmin, tmax := typeExtent(n)
		var sides []func() uint64
		if tmin < n.lo {
			sides = append(sides, func() uint64 { return st.ordered(tmin, n.lo-1, n.lo-1) })
		}
		if n.hi < tmax {
			sides = append(sides, func() uint64 { return st.ordered(n.hi+1, tmax, n.hi+1) })
		}
		if len(sides) > 0 {
			return sides[st.rng.Intn(len(sides))]()
		}
	}
	return st.ordered(n.lo, n.hi, n.zero)
}

// typeExtent returns the smallest and largest values of integer node n's
// Go type, in whole units and ordered form.
func typeExtent(n *node) (lo, hi uint64) {
	bits := n.typ.Bits()
	if n.kind == bitpack.KindInt {
		return ord((-1 << (bits - 1)) / n.unit), ord((1<<(bits-1) - 1) / n.unit)
	}
	return 0, (math.MaxUint64 >> (64 - bits)) / uint64(n.unit)
}

// ordered returns an integer in [lo, hi] (order-preserving unsigned form):
// an edge, a value near zero of random magnitude, or a uniform one.
func (st *genState) ordered(lo, hi, zero uint64) uint64 {
	r := st.rng
	switch k := r.Intn(16); {
	case k < 5:
		edges := [...]uint64{lo, hi, lo + 1, hi - 1, zero}
		if e := edges[r.Intn(len(edges))]; e >= lo && e <= hi {
			return e
		}
		return zero
	case k < 9:
		d := r.Uint64() >> r.Intn(65) // a random magnitude (>> 64 is 0)
		if r.Intn(2) == 0 && zero-lo >= d {
			return zero - d
		}
		if hi-zero >= d {
			return zero + d
		}
		if zero-lo >= d {
			return zero - d
		}
	}
	if span := hi - lo; span != math.MaxUint64 {
		return lo + r.Uint64()%(span+1)
	}
	return r.Uint64()
}

// length picks a length in [0, min(maxLen, limit)], favouring 0 and the
// top (which is maxLen itself whenever maxLen fits under the limit).
func (st *genState) length(maxLen, limit int) int {
	top := min(maxLen, limit)
	switch st.rng.Intn(8) {
	case 0:
		return 0
	case 1:
		return top
	}
	return st.rng.Intn(top + 1)
}

// text returns a string of exactly n bytes of valid UTF-8 without NUL:
// mostly printable ASCII, with control characters and 2-, 3- and 4-byte
// runes mixed in. A rune never straddles the limit; ASCII fills the end.
func (st *genState) text(n int) string {
	r := st.rng
	var b strings.Builder
	b.Grow(n)
	for b.Len() < n {
		var c rune
		switch k := r.Intn(20); {
		case k < 10:
			c = rune(' ' + r.Intn(95))
		case k < 11:
			c = rune(1 + r.Intn(31)) // control characters, never NUL
		case k < 15:
			c = rune(0x80 + r.Intn(0x800-0x80))
		case k < 18:
			c = rune(0x800 + r.Intn(0x10000-0x800-0x800)) // skip the surrogates
			if c >= 0xD800 {
				c += 0x800
			}
		default:
			c = rune(0x10000 + r.Intn(0x110000-0x10000))
		}
		if utf8.RuneLen(c) > n-b.Len() {
			c = rune('a' + r.Intn(26))
		}
		b.WriteRune(c)
	}
	return b.String()
}

// bytes fills a byte slice or array: random bytes, or runs of 0x00/0xff.
func (st *genState) bytes(v reflect.Value) {
	r := st.rng
	mode := r.Intn(4)
	for i := 0; i < v.Len(); i++ {
		var b uint64
		switch mode {
		case 0:
			b = 0
		case 1:
			b = 0xff
		default:
			b = uint64(r.Intn(256))
		}
		v.Index(i).SetUint(b)
	}
}

// minimal returns the simplest valid value of n: the shrink target of
// every field (integers and floats at the in-range value closest to zero,
// the identity quaternion, empty strings and slices, nil pointers, each
// union at its member that reaches a finite value soonest).
func minimal(n *node) reflect.Value {
	v := reflect.New(n.typ).Elem()
	setMinimal(n, v)
	return v
}

func setMinimal(n *node, dst reflect.Value) {
	switch n.kind {
	case bitpack.KindInt:
		dst.SetInt(unord(n.zero) * n.unit)
	case bitpack.KindUint:
		dst.SetUint(n.zero * uint64(n.unit))
	case bitpack.KindTime:
		setTime(n, dst, n.zero)
	case bitpack.KindCompressedFloat:
		dst.SetFloat(min(n.fmax, max(n.fmin, 0)))
	case bitpack.KindQuat:
		setQuat(dst, n.f.QuatPaths, [4]float64{0, 0, 0, 1})
	case bitpack.KindArray:
		for i := 0; i < dst.Len(); i++ {
			setMinimal(n.elem, dst.Index(i))
		}
	case bitpack.KindStruct:
		for _, c := range n.fields {
			setMinimal(c, dst.Field(c.index))
		}
	case bitpack.KindPointer:
		if n.neverNil {
			p := reflect.New(n.typ.Elem())
			setMinimal(n.elem, p.Elem())
			dst.Set(p)
		}
	case bitpack.KindUnion:
		var best *node
		for _, c := range n.members {
			if c.rank >= 0 && (best == nil || c.rank < best.rank) {
				best = c
			}
		}
		dst.Set(minimal(best))
	case bitpack.KindCustom:
		if n.custom != nil { // a fixed value the generator accepts
			p := &gopter.GenParameters{MaxSize: 100, Rng: rand.New(rand.NewSource(0))}
			for try := 0; try < 100; try++ {
				if v, ok := n.custom(p).Retrieve(); ok {
					setCustom(n, dst, v)
					return
				}
			}
		}
	}
	// Everything else is simplest at its zero value.
}

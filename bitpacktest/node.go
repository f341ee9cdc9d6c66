package bitpacktest

import (
	"fmt"
	"math"
	"reflect"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/quant"
	"github.com/leanovate/gopter"
)

// A node is one layout field (bitpack.Field) prepared for generating,
// shrinking and comparing values. Nodes mirror the layout graph, cycles
// included (a recursive type's pointer, slice, sparse field or union leads
// back to an ancestor node), plus synthetic *T nodes where the layout has
// no node for a pointer (sparse elements, pointer-form union members).
//
// Supporting a new layout kind takes a case in compile (its parameters),
// fill (gen.go), shrinks (shrink.go), equal and quantize/resolve (if it
// holds other nodes), computeRanks and the cyclic check (if it can be
// empty or lead back to itself) and allocBound.
type node struct {
	unit    int64 // integers: the Go value of one unit on the wire (ranges are in units)
	f       *bitpack.Field
	typ     reflect.Type
	kind    bitpack.Kind
	path    string // the first path that reached the node, for messages
	index   int    // the field's index in its parent struct; -1 elsewhere
	elem    *node  // arrays, slices, pointers, maps (their values); sparse: a *T node over the pointee
	key     *node  // maps: their keys (an integer, string or bool node)
	fields  []*node
	byIdx   map[int]*node // struct fields by Go field index
	members []*node       // unions: one per member, in index order (a *T node for pointer members)

	// cyclic marks a pointer, slice, sparse field or union whose contents
	// lead back to it: generation counts how deep it is inside those.
	cyclic bool
	// rank is the round of a fixpoint in which the node was shown to have
	// a finite value (see computeRanks); -1 if it has none.
	rank int
	// synthetic marks the *T nodes this package adds (sparse elements,
	// pointer-form union members); neverNil those that may not be nil.
	synthetic, neverNil bool

	// Integers, in order-preserving unsigned form (see ord): the range and
	// the in-range value closest to zero, which shrinking heads for.
	lo, hi, zero uint64
	signed       bool

	// Compressed floats: the declared bounds and the quantizer.
	fmin, fmax float64
	q32        *quant.Float
	q64        *quant.Float64

	quatTol float64 // quaternions: the largest angle (radians) a round trip may turn

	custom   gopter.Gen      // custom hooks: the registered generator
	shrinker gopter.Shrinker // and its shrinker
	sieve    func(any) bool
}

// isFloat32 reports whether a float node (raw, compressed, quaternion
// component) is stored as a float32.
func (n *node) isFloat32() bool {
	switch n.typ.Kind() {
	case reflect.Float32:
		return true
	case reflect.Array:
		return n.typ.Elem().Kind() == reflect.Float32
	case reflect.Struct:
		return n.typ.Field(0).Type.Kind() == reflect.Float32
	}
	return false
}

// ord maps an integer to an unsigned number with the same order: signed
// values have their sign bit flipped. Generation and shrinking work in
// this space, so one implementation covers int8 through uint64.
func ord(v int64) uint64   { return uint64(v) ^ 1<<63 }
func unord(u uint64) int64 { return int64(u ^ 1<<63) }

// model is a type's compiled layout: the root node and what the checks need.
type model struct {
	typ    reflect.Type
	layout bitpack.Layout
	root   *node
	nodes  []*node // every node, once
}

// compileModel describes t with bitpack and prepares its nodes. Custom
// types need a generator from cfg, unless cfg.zeroCustom.
func compileModel(t reflect.Type, cfg *config) (*model, error) {
	l, err := bitpack.Describe(reflect.New(t).Interface())
	if err != nil {
		return nil, fmt.Errorf("bitpacktest: %v", err)
	}
	if l.Root == nil {
		return nil, fmt.Errorf("bitpacktest: bitpack.Describe(%s) returned no layout", t)
	}
	m := &model{typ: t, layout: l}
	memo := map[*bitpack.Field]*node{}
	if m.root, err = m.compile(l.Root, t.String(), -1, cfg, memo); err != nil {
		return nil, err
	}
	for _, n := range m.nodes {
		switch n.kind {
		case bitpack.KindPointer, bitpack.KindSlice, bitpack.KindMap, bitpack.KindSparse, bitpack.KindUnion:
			if !n.synthetic {
				n.cyclic = reaches(n.elem, n, map[*node]bool{}) || reachesAny(n.members, n)
			}
		}
	}
	m.computeRanks()
	if m.root.rank < 0 {
		return nil, fmt.Errorf("bitpacktest: %s has no finite value (a union whose every member holds the union again, directly)", t)
	}
	return m, nil
}

func reachesAny(ns []*node, target *node) bool {
	for _, n := range ns {
		if reaches(n, target, map[*node]bool{}) {
			return true
		}
	}
	return false
}

// computeRanks finds which nodes can hold a finite value and how: in round
// 0 everything that can be empty (scalars, strings, slices, maps, nil-able
// pointers); in round k+1 arrays, structs and must-be-set pointers whose
// contents all made it by round k, and unions with a member that did.
// Choosing, past the depth limit, only union members of a lower rank than
// the union strictly lowers the rank at every step, so generation ends.
func (m *model) computeRanks() {
	for _, n := range m.nodes {
		n.rank = -1
	}
	has := func(n *node) bool { return n.rank >= 0 }
	for round := 0; ; round++ {
		var done []*node
		for _, n := range m.nodes {
			if has(n) {
				continue
			}
			ok := true
			switch n.kind {
			case bitpack.KindArray:
				ok = n.f.Len == 0 || has(n.elem)
			case bitpack.KindStruct:
				for _, c := range n.fields {
					ok = ok && has(c)
				}
			case bitpack.KindUnion:
				ok = false
				for _, c := range n.members {
					ok = ok || has(c)
				}
			case bitpack.KindPointer:
				ok = !n.neverNil || has(n.elem)
			}
			if ok {
				done = append(done, n)
			}
		}
		if len(done) == 0 {
			return
		}
		for _, n := range done {
			n.rank = round
		}
	}
}

// pointerTo adds a synthetic *T node over elem (a sparse field's elements,
// a union member registered as a pointer).
func (m *model) pointerTo(elem *node, typ reflect.Type, path string, neverNil bool) *node {
	n := &node{f: &bitpack.Field{Type: typ, Kind: bitpack.KindPointer, Elem: elem.f}, typ: typ, kind: bitpack.KindPointer,
		path: path, index: -1, elem: elem, synthetic: true, neverNil: neverNil}
	m.nodes = append(m.nodes, n)
	return n
}

// reaches reports whether target can be reached from n.
func reaches(n, target *node, seen map[*node]bool) bool {
	if n == nil || seen[n] {
		return false
	}
	if n == target {
		return true
	}
	seen[n] = true
	if reaches(n.elem, target, seen) || reaches(n.key, target, seen) {
		return true
	}
	for _, c := range n.members {
		if reaches(c, target, seen) {
			return true
		}
	}
	for _, c := range n.fields {
		if reaches(c, target, seen) {
			return true
		}
	}
	return false
}

func (m *model) compile(f *bitpack.Field, path string, index int, cfg *config, memo map[*bitpack.Field]*node) (*node, error) {
	if n, ok := memo[f]; ok {
		return n, nil
	}
	n := &node{f: f, typ: f.Type, kind: f.Kind, path: path, index: index}
	memo[f] = n
	m.nodes = append(m.nodes, n)
	if f.Type == nil {
		return nil, fmt.Errorf("bitpacktest: %s: layout field has no Go type", path)
	}
	var err error
	switch f.Kind {
	case bitpack.KindBool, bitpack.KindFloat, bitpack.KindString, bitpack.KindBytes, bitpack.KindByteArray, bitpack.KindCheck:
	case bitpack.KindInt, bitpack.KindUint, bitpack.KindTime, bitpack.KindCompressedFloat, bitpack.KindQuat:
		err = n.compileNumber(f, path)
	case bitpack.KindArray, bitpack.KindSlice, bitpack.KindPointer, bitpack.KindSparse:
		err = m.compileContainer(n, f, path, cfg, memo)
	case bitpack.KindMap:
		err = m.compileMap(n, f, path, cfg, memo)
	case bitpack.KindUnion:
		err = m.compileUnion(n, f, path, cfg, memo)
	case bitpack.KindStruct:
		err = m.compileStruct(n, f, path, cfg, memo)
	case bitpack.KindCustom:
		err = n.compileCustom(f, path, cfg)
	default:
		// A kind this version does not know (bitpack grew one): refuse
		// clearly rather than generate values that do not satisfy it.
		return nil, fmt.Errorf("bitpacktest: %s (%s): layout kind %v is not supported by this version of bitpacktest", path, f.Type, f.Kind)
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

// compileNumber sets a number node's bounds: an integer's or time's code
// range and unit, a compressed float's quantizer, a quaternion's angle
// tolerance.
func (n *node) compileNumber(f *bitpack.Field, path string) error {
	switch f.Kind {
	case bitpack.KindInt:
		n.signed = true
		n.lo, n.hi = ord(f.IntMin), ord(f.IntMax)
		n.unit = max(f.Unit, 1)
		if err := n.fitGoType(); err != nil {
			return err
		}
		n.zero = ord(max(unord(n.lo), min(unord(n.hi), 0)))
	case bitpack.KindUint:
		n.lo, n.hi = f.UintMin, f.UintMax
		n.unit = max(f.Unit, 1)
		if err := n.fitGoType(); err != nil {
			return err
		}
		n.zero = n.lo
	case bitpack.KindTime:
		// A time is its Unix time's units: a signed code in [IntMin,
		// IntMax] (bitpack checked that each is a time.Time's).
		n.signed = true
		n.lo, n.hi = ord(f.IntMin), ord(f.IntMax)
		n.unit = f.Unit
		n.zero = ord(max(unord(n.lo), min(unord(n.hi), 0)))
	case bitpack.KindCompressedFloat:
		n.fmin, n.fmax = f.FloatMin, f.FloatMax
		if f.Type.Kind() == reflect.Float32 {
			q, err := quant.NewFloat(float32(f.FloatMin), float32(f.FloatMax), float32(f.Res))
			if err != nil {
				return fmt.Errorf("bitpacktest: %s: %v", path, err)
			}
			n.q32 = &q
		} else {
			q, err := quant.NewFloat64(f.FloatMin, f.FloatMax, f.Res)
			if err != nil {
				return fmt.Errorf("bitpacktest: %s: %v", path, err)
			}
			n.q64 = &q
		}
	case bitpack.KindQuat:
		// The documented worst case (package quant): 4·√3·e radians with
		// e = m/(2^b − 2), plus room for float32 rounding.
		e := float64(quant.QuatComponentMax) / float64(uint64(1)<<f.Bits-2)
		n.quatTol = 4*math.Sqrt(3)*e + 1e-5
	}
	return nil
}

// compileElem compiles the element of container node n, at path p.
func (m *model) compileElem(n *node, f *bitpack.Field, p string, cfg *config, memo map[*bitpack.Field]*node) error {
	if f.Elem == nil {
		return fmt.Errorf("bitpacktest: %s (%s): %v layout field has no element", n.path, f.Type, f.Kind)
	}
	var err error
	n.elem, err = m.compile(f.Elem, p, -1, cfg, memo)
	return err
}

// compileContainer compiles an array's, slice's, pointer's or sparse
// array's element.
func (m *model) compileContainer(n *node, f *bitpack.Field, path string, cfg *config, memo map[*bitpack.Field]*node) error {
	switch f.Kind {
	case bitpack.KindArray:
		if err := m.compileElem(n, f, path+"[]", cfg, memo); err != nil {
			return err
		}
	case bitpack.KindSlice, bitpack.KindPointer:
		p := path + "[]"
		if f.Kind == bitpack.KindPointer {
			p = path
		}
		if err := m.compileElem(n, f, p, cfg, memo); err != nil {
			return err
		}
	case bitpack.KindSparse:
		// []*T or [N]*T whose absent elements are nil: the layout's Elem is
		// T; the elements are *T nodes over it.
		if err := m.compileElem(n, f, path+"[]", cfg, memo); err != nil {
			return err
		}
		n.elem = m.pointerTo(n.elem, f.Type.Elem(), path+"[]", false)
	}
	return nil
}

// compileMap compiles a map's key, of a kind bitpacktest can generate,
// and its element.
func (m *model) compileMap(n *node, f *bitpack.Field, path string, cfg *config, memo map[*bitpack.Field]*node) error {
	if f.Key == nil {
		return fmt.Errorf("bitpacktest: %s (%s): map layout field has no key", path, f.Type)
	}
	switch f.Key.Kind {
	case bitpack.KindInt, bitpack.KindUint, bitpack.KindBool, bitpack.KindString:
	default:
		return fmt.Errorf("bitpacktest: %s (%s): map keys of layout kind %v are not supported by this version of bitpacktest", path, f.Type, f.Key.Kind)
	}
	var err error
	if n.key, err = m.compile(f.Key, path+"[key]", -1, cfg, memo); err != nil {
		return err
	}
	return m.compileElem(n, f, path+"[]", cfg, memo)
}

// compileUnion compiles each member of a union; a pointer member's node
// is never nil.
func (m *model) compileUnion(n *node, f *bitpack.Field, path string, cfg *config, memo map[*bitpack.Field]*node) error {
	if len(f.Members) == 0 || len(f.Members) != len(f.MemberTypes) {
		return fmt.Errorf("bitpacktest: %s (%s): union layout has %d members and %d member types", path, f.Type, len(f.Members), len(f.MemberTypes))
	}
	for i, mf := range f.Members {
		mt := f.MemberTypes[i]
		p := path + ".(" + mt.String() + ")"
		mn, err := m.compile(mf, p, -1, cfg, memo)
		if err != nil {
			return err
		}
		if mt.Kind() == reflect.Pointer {
			mn = m.pointerTo(mn, mt, p, true) // a nil member cannot be encoded
		}
		n.members = append(n.members, mn)
	}
	return nil
}

// compileStruct compiles a struct's fields, indexed by their Go field
// index.
func (m *model) compileStruct(n *node, f *bitpack.Field, path string, cfg *config, memo map[*bitpack.Field]*node) error {
	n.byIdx = map[int]*node{}
	for _, c := range f.Fields {
		if len(c.Index) != 1 {
			return fmt.Errorf("bitpacktest: %s.%s: unexpected field index %v", path, c.Name, c.Index)
		}
		cn, err := m.compile(c, path+"."+c.Name, c.Index[0], cfg, memo)
		if err != nil {
			return err
		}
		n.fields = append(n.fields, cn)
		n.byIdx[c.Index[0]] = cn
	}
	return nil
}

// compileCustom takes a self-encoding type's generator from cfg; without
// one its values stay zero (cfg.zeroCustom) or the type is refused.
func (n *node) compileCustom(f *bitpack.Field, path string, cfg *config) error {
	g, ok := cfg.custom[f.Type]
	if !ok {
		if cfg.zeroCustom {
			return nil
		}
		return fmt.Errorf("bitpacktest: %s: %s encodes itself (MarshalBits/UnmarshalBits), so bitpacktest cannot know which values are valid; register a generator with bitpacktest.Custom[%s](gen)", path, f.Type, f.Type)
	}
	n.custom = g
	// A generator's shrinker does not depend on the value it made, so
	// take it (and the sieve) from one sample.
	r := g(gopter.DefaultGenParameters().CloneWithSeed(1))
	n.shrinker, n.sieve = r.Shrinker, r.Sieve
	if n.shrinker == nil {
		n.shrinker = gopter.NoShrinker
	}
	return nil
}

// fitGoType narrows integer node n's range to what its Go type holds. The
// layout gives the wire's range, the same on every platform; an int or
// uint past 32 bits holds less of it on a 32-bit one (its decode refuses
// the rest). Elsewhere the tags already keep the range within the type.
func (n *node) fitGoType() error {
	tmin, tmax := typeExtent(n)
	lo, hi := max(n.lo, tmin), min(n.hi, tmax)
	if lo > hi {
		return fmt.Errorf("bitpacktest: %s (%s): no value of the range %s fits the Go type on this platform", n.path, n.typ, n.f.Encoding())
	}
	n.lo, n.hi = lo, hi
	return nil
}

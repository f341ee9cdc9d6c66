package bitpack_test

import (
	"math/rand"
	"reflect"
	"testing"

	"fmt"

	"github.com/bitpack-go/bitpack"
)

// A differential check of what a decode leaves in the caller's value,
// against a model written from the rules (decode_reuse_test.go): the
// packet's value with its empty slices and maps made nil, merged into the
// target — the target's own slices (cut or within capacity), pointees and
// pointer-form members filled in place, nil empties where it held nothing
// — whatever earlier packets left in the decoder's scratch value.

type modelNode struct {
	In   reIn
	Next *reIn
	U    reMember
	Bs   [][]byte `bits:"maxlen=3,elem.maxlen=2"`
}

type modelMsg struct {
	L  []modelNode     `bits:"maxlen=3"`
	P  *modelNode      //
	Sp [2]*modelNode   `bits:"sparse"`
	SS []*modelNode    `bits:"sparse,maxlen=3"`
	Bs [][]byte        `bits:"maxlen=3,elem.maxlen=2"`
	A  [2]modelNode    //
	M  map[uint8]uint8 `bits:"maxlen=2"`
}

type modelGen struct{ r *rand.Rand }

func (g modelGen) bytes(max int) []byte {
	switch g.r.Intn(3) {
	case 0:
		return nil
	case 1:
		return make([]byte, 0, g.r.Intn(3))
	}
	b := make([]byte, 1+g.r.Intn(max), max+g.r.Intn(2))
	for k := range b {
		b[k] = byte(g.r.Intn(256))
	}
	return b
}

func (g modelGen) in() reIn {
	v := reIn{B: g.bytes(3)}
	switch g.r.Intn(3) {
	case 1:
		v.S = make([]int8, 0, g.r.Intn(3))
	case 2:
		v.S = []int8{int8(g.r.Intn(8) - 4)}
	}
	switch g.r.Intn(3) {
	case 1:
		v.M = map[uint8]bool{}
	case 2:
		v.M = map[uint8]bool{uint8(g.r.Intn(4)): g.r.Intn(2) == 0}
	}
	return v
}

func (g modelGen) pin() *reIn {
	if g.r.Intn(3) == 0 {
		return nil
	}
	v := g.in()
	return &v
}

func (g modelGen) member() reMember {
	if g.r.Intn(2) == 0 {
		return &reA{In: g.in()}
	}
	return reB{In: g.in()}
}

func (g modelGen) bss() [][]byte {
	if g.r.Intn(3) == 0 {
		return nil
	}
	n := g.r.Intn(4)
	v := make([][]byte, n, n+g.r.Intn(2))
	for k := range v {
		v[k] = g.bytes(2)
	}
	return v
}

func (g modelGen) node() modelNode {
	return modelNode{In: g.in(), Next: g.pin(), U: g.member(), Bs: g.bss()}
}

func (g modelGen) pnode() *modelNode {
	if g.r.Intn(3) == 0 {
		return nil
	}
	v := g.node()
	return &v
}

func (g modelGen) msg() *modelMsg {
	v := &modelMsg{P: g.pnode(), Sp: [2]*modelNode{g.pnode(), g.pnode()}, Bs: g.bss(), A: [2]modelNode{g.node(), g.node()}}
	if g.r.Intn(4) > 0 {
		n := g.r.Intn(4)
		v.L = make([]modelNode, n, n+g.r.Intn(2))
		for k := range v.L {
			v.L[k] = g.node()
		}
	}
	if g.r.Intn(4) > 0 {
		n := g.r.Intn(4)
		v.SS = make([]*modelNode, n, n+g.r.Intn(2))
		for k := range v.SS {
			v.SS[k] = g.pnode()
		}
	}
	switch g.r.Intn(3) {
	case 1:
		v.M = map[uint8]uint8{}
	case 2:
		v.M = map[uint8]uint8{1: 2}
	}
	return v
}

// modelMerge returns what decoding the packet of src (empties nil) into
// dst leaves there, as a new value (dst is only read).
func modelMerge(dst, src reflect.Value) reflect.Value {
	out := reflect.New(src.Type()).Elem()
	switch src.Kind() {
	case reflect.Struct:
		for i := 0; i < src.NumField(); i++ {
			if src.Type().Field(i).IsExported() {
				out.Field(i).Set(modelMerge(dst.Field(i), src.Field(i)))
			}
		}
	case reflect.Array:
		for k := 0; k < src.Len(); k++ {
			out.Index(k).Set(modelMerge(dst.Index(k), src.Index(k)))
		}
	case reflect.Slice:
		n := src.Len()
		if n == 0 {
			if !dst.IsNil() {
				out.Set(reflect.MakeSlice(src.Type(), 0, 0))
			}
			return out
		}
		out.Set(reflect.MakeSlice(src.Type(), n, n))
		for k := 0; k < n; k++ {
			var d reflect.Value
			if k < dst.Cap() {
				d = dst.Slice(0, dst.Cap()).Index(k)
			} else {
				d = reflect.New(src.Type().Elem()).Elem()
			}
			out.Index(k).Set(modelMerge(d, src.Index(k)))
		}
	case reflect.Map:
		if src.Len() == 0 {
			if !dst.IsNil() {
				out.Set(reflect.MakeMap(src.Type()))
			}
			return out
		}
		out.Set(reflect.MakeMap(src.Type()))
		it := src.MapRange()
		for it.Next() {
			out.SetMapIndex(it.Key(), modelMerge(reflect.New(src.Type().Elem()).Elem(), it.Value()))
		}
	case reflect.Pointer:
		if src.IsNil() {
			return out
		}
		d := reflect.New(src.Type().Elem()).Elem()
		if !dst.IsNil() {
			d = dst.Elem()
		}
		p := reflect.New(src.Type().Elem())
		p.Elem().Set(modelMerge(d, src.Elem()))
		out.Set(p)
	case reflect.Interface:
		if src.IsNil() {
			return out
		}
		s := src.Elem()
		if s.Kind() == reflect.Pointer && !dst.IsNil() && dst.Elem().Type() == s.Type() && !dst.Elem().IsNil() {
			out.Set(modelMerge(dst.Elem(), s))
			return out
		}
		out.Set(modelMerge(reflect.New(s.Type()).Elem(), s))
	default:
		out.Set(src)
	}
	return out
}

func TestDecodeMatchesModel(t *testing.T) {
	reMust(t, reUnionErr)
	g := modelGen{rand.New(rand.NewSource(20))}
	for i := 0; i < 2000; i++ {
		seed := g.r.Int63()
		src := g.msg()
		p, err := bitpack.Marshal(src)
		reMust(t, err)
		target := modelGen{rand.New(rand.NewSource(seed))}.msg()
		want := modelMerge(reflect.ValueOf(modelGen{rand.New(rand.NewSource(seed))}.msg()).Elem(), reflect.ValueOf(src).Elem()).Interface().(modelMsg)
		if err := bitpack.Unmarshal(p, target); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*target, want) {
			t.Fatalf("packet %d:\n got %s\nwant %s", i, reShape(reflect.ValueOf(target).Elem()), reShape(reflect.ValueOf(want)))
		}
		// An unchanged delta (the packet's value as its own base) gives
		// the same: the base is cloned into the target.
		u, err := bitpack.AppendDelta(nil, src, src)
		reMust(t, err)
		target = modelGen{rand.New(rand.NewSource(seed))}.msg()
		reMust(t, bitpack.UnmarshalDelta(u, src, target))
		if !reflect.DeepEqual(*target, want) {
			t.Fatalf("unchanged delta %d:\n got %s\nwant %s", i, reShape(reflect.ValueOf(target).Elem()), reShape(reflect.ValueOf(want)))
		}
		// A delta from an unrelated base gives the same.
		base := g.msg()
		d, err := bitpack.AppendDelta(nil, base, src)
		if err != nil {
			continue // unchanged
		}
		target = modelGen{rand.New(rand.NewSource(seed))}.msg()
		if err := bitpack.UnmarshalDelta(d, base, target); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*target, want) {
			t.Fatalf("delta %d:\n got %s\nwant %s", i, reShape(reflect.ValueOf(target).Elem()), reShape(reflect.ValueOf(want)))
		}
	}
}

// Members stored in the interface's own word (a map, a struct of one
// pointer): settle reaches them through that word.
type wordMember interface{ isWordMember() }

type (
	wordMap struct {
		M map[uint8]bool `bits:"maxlen=2"`
	}
	wordPtr struct{ P *reIn }
)

func (wordMap) isWordMember() {}
func (wordPtr) isWordMember() {}

var wordUnionErr = func() error {
	u, err := bitpack.NewUnion(wordMap{}, wordPtr{})
	if err != nil {
		return err
	}
	return bitpack.RegisterUnion[wordMember](u)
}()

type modelTree struct {
	B    []byte      `bits:"maxlen=2"`
	Kids []modelTree `bits:"maxlen=2"`
}

type modelZero struct {
	Z [0][]byte `bits:"elem.maxlen=2"`
	B []byte    `bits:"maxlen=2"`
}

type modelMsg2 struct {
	U  wordMember
	UL []modelHolder   `bits:"maxlen=3"`
	T  *modelTree      //
	Z  []modelZero     `bits:"maxlen=3"`
	MV map[uint8]reIn  `bits:"maxlen=2"`
	MP map[uint8]*reIn `bits:"maxlen=2"`
}

type modelHolder struct{ U wordMember }

func (g modelGen) wordMember() wordMember {
	switch g.r.Intn(3) {
	case 0:
		return wordMap{M: g.in().M}
	case 1:
		return wordPtr{P: g.pin()}
	}
	return nil
}

func (g modelGen) tree(depth int) modelTree {
	v := modelTree{B: g.bytes(2)}
	if depth > 0 && g.r.Intn(3) > 0 {
		n := g.r.Intn(3)
		v.Kids = make([]modelTree, n, n+g.r.Intn(2))
		for k := range v.Kids {
			v.Kids[k] = g.tree(depth - 1)
		}
	}
	return v
}

func (g modelGen) msg2() *modelMsg2 {
	v := &modelMsg2{U: g.wordMember()}
	for v.U == nil {
		v.U = g.wordMember()
	}
	if g.r.Intn(4) > 0 {
		n := g.r.Intn(4)
		v.UL = make([]modelHolder, n, n+g.r.Intn(2))
		for k := range v.UL {
			for v.UL[k].U == nil {
				v.UL[k].U = g.wordMember()
			}
		}
	}
	if g.r.Intn(3) > 0 {
		t := g.tree(3)
		v.T = &t
	}
	if g.r.Intn(4) > 0 {
		n := g.r.Intn(4)
		v.Z = make([]modelZero, n, n+g.r.Intn(2))
		for k := range v.Z {
			v.Z[k].B = g.bytes(2)
		}
	}
	switch g.r.Intn(3) {
	case 1:
		v.MV, v.MP = map[uint8]reIn{}, map[uint8]*reIn{}
	case 2:
		v.MV, v.MP = map[uint8]reIn{3: g.in()}, map[uint8]*reIn{4: g.pin()}
	}
	return v
}

func TestDecodeMatchesModelMembers(t *testing.T) {
	reMust(t, wordUnionErr)
	g := modelGen{rand.New(rand.NewSource(21))}
	for i := 0; i < 2000; i++ {
		seed := g.r.Int63()
		src := g.msg2()
		p, err := bitpack.Marshal(src)
		reMust(t, err)
		target := modelGen{rand.New(rand.NewSource(seed))}.msg2()
		want := modelMerge(reflect.ValueOf(modelGen{rand.New(rand.NewSource(seed))}.msg2()).Elem(), reflect.ValueOf(src).Elem()).Interface().(modelMsg2)
		if err := bitpack.Unmarshal(p, target); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*target, want) {
			t.Fatalf("packet %d:\n got %#v\nwant %#v", i, *target, want)
		}
		// An unchanged delta (the packet's value as its own base) gives
		// the same: the base is cloned into the target.
		u, err := bitpack.AppendDelta(nil, src, src)
		reMust(t, err)
		target = modelGen{rand.New(rand.NewSource(seed))}.msg2()
		reMust(t, bitpack.UnmarshalDelta(u, src, target))
		if !reflect.DeepEqual(*target, want) {
			t.Fatalf("unchanged delta %d:\n got %s %s\nwant %s %s", i, reShape(reflect.ValueOf(target).Elem()), modelEntries(target), reShape(reflect.ValueOf(want)), modelEntries(&want))
		}
		base := g.msg2()
		d, err := bitpack.AppendDelta(nil, base, src)
		if err != nil {
			continue
		}
		target = modelGen{rand.New(rand.NewSource(seed))}.msg2()
		if err := bitpack.UnmarshalDelta(d, base, target); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*target, want) {
			t.Fatalf("delta %d:\n got %s %s\nwant %s %s", i, reShape(reflect.ValueOf(target).Elem()), modelEntries(target), reShape(reflect.ValueOf(want)), modelEntries(&want))
		}
	}
}

// modelEntries renders the shapes of v's map entries (reShape stops at maps).
func modelEntries(v *modelMsg2) string {
	s := ""
	for k, e := range v.MV {
		s += fmt.Sprintf(" MV[%d]=%s", k, reShape(reflect.ValueOf(e)))
	}
	for k, e := range v.MP {
		s += fmt.Sprintf(" MP[%d]=%s", k, reShape(reflect.ValueOf(e)))
	}
	return s
}

package bitpack_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// Members stored in the interface's own word (a map, a struct of one
// pointer): settle reaches them through that word.
type r20Member interface{ isR20Member() }

type (
	r20C struct {
		M map[uint8]bool `bits:"maxlen=2"`
	}
	r20D struct{ P *reIn }
)

func (r20C) isR20Member() {}
func (r20D) isR20Member() {}

var r20UnionErr = func() error {
	u, err := bitpack.NewUnion(r20C{}, r20D{})
	if err != nil {
		return err
	}
	return bitpack.RegisterUnion[r20Member](u)
}()

type r20Tree struct {
	B    []byte    `bits:"maxlen=2"`
	Kids []r20Tree `bits:"maxlen=2"`
}

type r20Zero struct {
	Z [0][]byte `bits:"elem.maxlen=2"`
	B []byte    `bits:"maxlen=2"`
}

type r20Msg2 struct {
	U  r20Member
	UL []r20Holder     `bits:"maxlen=3"`
	T  *r20Tree        //
	Z  []r20Zero       `bits:"maxlen=3"`
	MV map[uint8]reIn  `bits:"maxlen=2"`
	MP map[uint8]*reIn `bits:"maxlen=2"`
}

type r20Holder struct{ U r20Member }

func (g r20Gen) r20member() r20Member {
	switch g.r.Intn(3) {
	case 0:
		return r20C{M: g.in().M}
	case 1:
		return r20D{P: g.pin()}
	}
	return nil
}

func (g r20Gen) tree(depth int) r20Tree {
	v := r20Tree{B: g.bytes(2)}
	if depth > 0 && g.r.Intn(3) > 0 {
		n := g.r.Intn(3)
		v.Kids = make([]r20Tree, n, n+g.r.Intn(2))
		for k := range v.Kids {
			v.Kids[k] = g.tree(depth - 1)
		}
	}
	return v
}

func (g r20Gen) msg2() *r20Msg2 {
	v := &r20Msg2{U: g.r20member()}
	for v.U == nil {
		v.U = g.r20member()
	}
	if g.r.Intn(4) > 0 {
		n := g.r.Intn(4)
		v.UL = make([]r20Holder, n, n+g.r.Intn(2))
		for k := range v.UL {
			for v.UL[k].U == nil {
				v.UL[k].U = g.r20member()
			}
		}
	}
	if g.r.Intn(3) > 0 {
		t := g.tree(3)
		v.T = &t
	}
	if g.r.Intn(4) > 0 {
		n := g.r.Intn(4)
		v.Z = make([]r20Zero, n, n+g.r.Intn(2))
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

func TestR20DecodeModelMembers(t *testing.T) {
	reMust(t, r20UnionErr)
	g := r20Gen{rand.New(rand.NewSource(21))}
	for i := 0; i < 2000; i++ {
		seed := g.r.Int63()
		src := g.msg2()
		p, err := bitpack.Marshal(src)
		reMust(t, err)
		target := r20Gen{rand.New(rand.NewSource(seed))}.msg2()
		want := r20Merge(reflect.ValueOf(r20Gen{rand.New(rand.NewSource(seed))}.msg2()).Elem(), reflect.ValueOf(src).Elem()).Interface().(r20Msg2)
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
		target = r20Gen{rand.New(rand.NewSource(seed))}.msg2()
		reMust(t, bitpack.UnmarshalDelta(u, src, target))
		if !reflect.DeepEqual(*target, want) {
			t.Fatalf("unchanged delta %d:\n got %s %s\nwant %s %s", i, reShape(reflect.ValueOf(target).Elem()), r20Entries(target), reShape(reflect.ValueOf(want)), r20Entries(&want))
		}
		base := g.msg2()
		d, err := bitpack.AppendDelta(nil, base, src)
		if err != nil {
			continue
		}
		target = r20Gen{rand.New(rand.NewSource(seed))}.msg2()
		if err := bitpack.UnmarshalDelta(d, base, target); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*target, want) {
			t.Fatalf("delta %d:\n got %s %s\nwant %s %s", i, reShape(reflect.ValueOf(target).Elem()), r20Entries(target), reShape(reflect.ValueOf(want)), r20Entries(&want))
		}
	}
}

// r20Entries renders the shapes of v's map entries (reShape stops at maps).
func r20Entries(v *r20Msg2) string {
	s := ""
	for k, e := range v.MV {
		s += fmt.Sprintf(" MV[%d]=%s", k, reShape(reflect.ValueOf(e)))
	}
	for k, e := range v.MP {
		s += fmt.Sprintf(" MP[%d]=%s", k, reShape(reflect.ValueOf(e)))
	}
	return s
}

package bitpack_test

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// A differential check of what a decode leaves in the caller's value,
// against a model written from the rules (decode_reuse_test.go): the
// packet's value with its empty slices and maps made nil, merged into the
// target — the target's own slices (cut or within capacity), pointees and
// pointer-form members filled in place, nil empties where it held nothing
// — whatever earlier packets left in the decoder's scratch value.

type r20Node struct {
	In   reIn
	Next *reIn
	U    reMember
	Bs   [][]byte `bits:"maxlen=3,elem.maxlen=2"`
}

type r20Msg struct {
	L  []r20Node       `bits:"maxlen=3"`
	P  *r20Node        //
	Sp [2]*r20Node     `bits:"sparse"`
	SS []*r20Node      `bits:"sparse,maxlen=3"`
	Bs [][]byte        `bits:"maxlen=3,elem.maxlen=2"`
	A  [2]r20Node      //
	M  map[uint8]uint8 `bits:"maxlen=2"`
}

type r20Gen struct{ r *rand.Rand }

func (g r20Gen) bytes(max int) []byte {
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

func (g r20Gen) in() reIn {
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

func (g r20Gen) pin() *reIn {
	if g.r.Intn(3) == 0 {
		return nil
	}
	v := g.in()
	return &v
}

func (g r20Gen) member() reMember {
	if g.r.Intn(2) == 0 {
		return &reA{In: g.in()}
	}
	return reB{In: g.in()}
}

func (g r20Gen) bss() [][]byte {
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

func (g r20Gen) node() r20Node {
	return r20Node{In: g.in(), Next: g.pin(), U: g.member(), Bs: g.bss()}
}

func (g r20Gen) pnode() *r20Node {
	if g.r.Intn(3) == 0 {
		return nil
	}
	v := g.node()
	return &v
}

func (g r20Gen) msg() *r20Msg {
	v := &r20Msg{P: g.pnode(), Sp: [2]*r20Node{g.pnode(), g.pnode()}, Bs: g.bss(), A: [2]r20Node{g.node(), g.node()}}
	if g.r.Intn(4) > 0 {
		n := g.r.Intn(4)
		v.L = make([]r20Node, n, n+g.r.Intn(2))
		for k := range v.L {
			v.L[k] = g.node()
		}
	}
	if g.r.Intn(4) > 0 {
		n := g.r.Intn(4)
		v.SS = make([]*r20Node, n, n+g.r.Intn(2))
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

// r20Merge returns what decoding the packet of src (empties nil) into
// dst leaves there, as a new value (dst is only read).
func r20Merge(dst, src reflect.Value) reflect.Value {
	out := reflect.New(src.Type()).Elem()
	switch src.Kind() {
	case reflect.Struct:
		for i := 0; i < src.NumField(); i++ {
			if src.Type().Field(i).IsExported() {
				out.Field(i).Set(r20Merge(dst.Field(i), src.Field(i)))
			}
		}
	case reflect.Array:
		for k := 0; k < src.Len(); k++ {
			out.Index(k).Set(r20Merge(dst.Index(k), src.Index(k)))
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
			out.Index(k).Set(r20Merge(d, src.Index(k)))
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
			out.SetMapIndex(it.Key(), r20Merge(reflect.New(src.Type().Elem()).Elem(), it.Value()))
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
		p.Elem().Set(r20Merge(d, src.Elem()))
		out.Set(p)
	case reflect.Interface:
		if src.IsNil() {
			return out
		}
		s := src.Elem()
		if s.Kind() == reflect.Pointer && !dst.IsNil() && dst.Elem().Type() == s.Type() && !dst.Elem().IsNil() {
			out.Set(r20Merge(dst.Elem(), s))
			return out
		}
		out.Set(r20Merge(reflect.New(s.Type()).Elem(), s))
	default:
		out.Set(src)
	}
	return out
}

func TestR20DecodeModel(t *testing.T) {
	reMust(t, reUnionErr)
	g := r20Gen{rand.New(rand.NewSource(20))}
	for i := 0; i < 2000; i++ {
		seed := g.r.Int63()
		src := g.msg()
		p, err := bitpack.Marshal(src)
		reMust(t, err)
		target := r20Gen{rand.New(rand.NewSource(seed))}.msg()
		want := r20Merge(reflect.ValueOf(r20Gen{rand.New(rand.NewSource(seed))}.msg()).Elem(), reflect.ValueOf(src).Elem()).Interface().(r20Msg)
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
		target = r20Gen{rand.New(rand.NewSource(seed))}.msg()
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
		target = r20Gen{rand.New(rand.NewSource(seed))}.msg()
		if err := bitpack.UnmarshalDelta(d, base, target); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*target, want) {
			t.Fatalf("delta %d:\n got %s\nwant %s", i, reShape(reflect.ValueOf(target).Elem()), reShape(reflect.ValueOf(want)))
		}
	}
}

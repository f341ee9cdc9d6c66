package bitpack_test

import (
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
)

type r20Ptrs struct {
	P  *[]byte         `bits:"maxlen=2"`
	PM *map[uint8]bool `bits:"maxlen=2"`
	PP **reIn
	AP [2]*[]int8 `bits:"maxlen=2,elem.range=-4..3"`
	LP []*[]byte  `bits:"maxlen=2,elem.maxlen=2"`
}

func TestR20Ptrs(t *testing.T) {
	e, m := []byte{}, map[uint8]bool{}
	in := &reIn{B: []byte{}, S: []int8{}, M: map[uint8]bool{}}
	s8 := []int8{}
	src := &r20Ptrs{P: &e, PM: &m, PP: &in, AP: [2]*[]int8{&s8, nil}, LP: []*[]byte{&e, &e}}
	p, err := bitpack.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	// history: full values
	b1, m1 := []byte{1, 2}, map[uint8]bool{1: true}
	in1 := &reIn{B: []byte{1}, S: []int8{1}, M: map[uint8]bool{1: true}}
	s81 := []int8{1, 2}
	full := &r20Ptrs{P: &b1, PM: &m1, PP: &in1, AP: [2]*[]int8{&s81, &s81}, LP: []*[]byte{&b1, &b1}}
	var h r20Ptrs
	for range 3 {
		if err := bitpack.Unmarshal(mustMarshal(t, full), &h); err != nil {
			t.Fatal(err)
		}
	}
	var v r20Ptrs
	if err := bitpack.Unmarshal(p, &v); err != nil {
		t.Fatal(err)
	}
	want := r20Merge(reflect.ValueOf(r20Ptrs{}), reflect.ValueOf(*src)).Interface().(r20Ptrs)
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("got %s\nwant %s", reShape(reflect.ValueOf(v)), reShape(reflect.ValueOf(want)))
	}
}

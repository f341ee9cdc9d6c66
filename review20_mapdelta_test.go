package bitpack_test

import (
	"testing"

	"github.com/bitpack-go/bitpack"
)

type r20MapMsg struct {
	MV map[uint8]reIn `bits:"maxlen=2"`
}

// TestR20MapEntryDeltaEmpties: a map entry a delta changes is a new value
// in the caller's map, as a packet's entry is: a slice or map of it the
// delta empties is nil, whatever the base held — not the scratch value's
// copy of the base's, cut to length 0.
func TestR20MapEntryDeltaEmpties(t *testing.T) {
	base := &r20MapMsg{MV: map[uint8]reIn{3: {B: []byte{1}, S: []int8{1}, M: map[uint8]bool{1: true}}}}
	cur := &r20MapMsg{MV: map[uint8]reIn{3: {B: []byte{2}}}}
	d, err := bitpack.AppendDelta(nil, base, cur)
	reMust(t, err)
	for _, target := range []struct {
		name string
		v    *r20MapMsg
	}{
		{"nil map", &r20MapMsg{}},
		{"a map of its own", &r20MapMsg{MV: map[uint8]reIn{3: {S: make([]int8, 0, 2), M: map[uint8]bool{}}}}},
	} {
		reMust(t, bitpack.UnmarshalDelta(d, base, target.v))
		e := target.v.MV[3]
		if len(target.v.MV) != 1 || string(e.B) != "\x02" || e.S != nil || e.M != nil {
			t.Errorf("%s: MV = %#v; want map[3:{B:[2] S:nil M:nil}]", target.name, target.v.MV)
		}
	}
}

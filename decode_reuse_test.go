package bitpack_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// What a decode leaves in the caller's value: an empty slice, []byte or
// map is the caller's own, cut to length 0 (a map: cleared), where the
// caller's value held a non-nil one, and nil where it held nil or nothing
// (a new element, pointee or union member) — whatever earlier decodes
// left in the decoder's scratch value. The caller's pointees, elements
// (to their slice's capacity, grown or not) and pointer-form union
// members of the packet's type are filled in place.

type reIn struct {
	B []byte         `bits:"maxlen=3"`
	S []int8         `bits:"maxlen=2,elem.range=-4..3"`
	M map[uint8]bool `bits:"maxlen=2"`
}

type reMember interface{ isReMember() }

type (
	reA struct{ In reIn } // registered as a pointer: filled in place
	reB struct{ In reIn } // registered as a value: always new
)

func (*reA) isReMember() {}
func (reB) isReMember()  {}

var reUnionErr = func() error {
	u, err := bitpack.NewUnion(&reA{}, reB{})
	if err != nil {
		return err
	}
	return bitpack.RegisterUnion[reMember](u)
}()

type reMsg struct {
	N  uint8     `bits:"range=0..7"`
	B  []byte    `bits:"maxlen=3"`
	In reIn      // in place, always
	P  *reIn     // the pointee
	L  []reIn    `bits:"maxlen=3"`        // elements a decode writes whole
	LP []*reIn   `bits:"maxlen=3"`        // their pointees
	A  [2][]byte `bits:"maxlen=2"`        // an array of slices
	Sp []*reIn   `bits:"sparse,maxlen=3"` // a sparse slice
	U  reMember  // a union member
	K  []reKeep  `bits:"maxlen=3"` // elements with a field off the wire
	_  [0]func() // not comparable
}

type reKeep struct {
	In   reIn
	Note string `bits:"-"`
}

// reEmpty is a value whose every slice and map is empty (non-nil: the
// wire does not tell), with two elements in each slice of values and
// pointers, and a union member of each form.
func reEmpty(pointerForm bool) *reMsg {
	in := func() reIn { return reIn{B: []byte{}, S: []int8{}, M: map[uint8]bool{}} }
	pin := func() *reIn { v := in(); return &v }
	v := &reMsg{N: 1, B: []byte{}, In: in(), P: pin(), L: []reIn{in(), in()}, LP: []*reIn{pin(), pin()},
		A: [2][]byte{{}, {}}, Sp: []*reIn{nil, pin()}, K: []reKeep{{In: in()}, {In: in()}}}
	if pointerForm {
		v.U = &reA{In: in()}
	} else {
		v.U = reB{In: in()}
	}
	return v
}

// reFull is a value whose every slice and map has elements: decoded
// first, it leaves the scratch value holding slices with capacity.
func reFull() *reMsg {
	in := func() reIn { return reIn{B: []byte{1, 2, 3}, S: []int8{-1, 2}, M: map[uint8]bool{4: true}} }
	pin := func() *reIn { v := in(); return &v }
	return &reMsg{N: 2, B: []byte{9}, In: in(), P: pin(), L: []reIn{in(), in(), in()}, LP: []*reIn{pin(), pin(), pin()},
		A: [2][]byte{{5}, {6, 7}}, Sp: []*reIn{pin(), pin(), pin()}, U: &reA{In: in()}, K: []reKeep{{In: in()}, {In: in()}, {In: in()}}}
}

// reHeld is a target holding non-nil empty slices and maps with capacity
// everywhere the packet of reEmpty reaches, with room for cap elements in
// each slice (1: the packet's 2 elements grow it) and a union member in
// the given form.
func reHeld(capacity int, pointerForm bool) *reMsg {
	in := func() reIn { return reIn{B: make([]byte, 0, 3), S: make([]int8, 0, 2), M: map[uint8]bool{}} }
	pin := func() *reIn { v := in(); return &v }
	v := &reMsg{B: make([]byte, 0, 3), In: in(), P: pin(), A: [2][]byte{make([]byte, 0, 2), make([]byte, 0, 2)},
		L: make([]reIn, 0, capacity), LP: make([]*reIn, 0, capacity), Sp: make([]*reIn, 0, capacity), K: make([]reKeep, 0, capacity)}
	for range capacity { // within capacity: exactly capacity, on every platform
		v.L = append(v.L, in())
		v.LP = append(v.LP, pin())
		v.Sp = append(v.Sp, pin())
		v.K = append(v.K, reKeep{In: in(), Note: "mine"})
	}
	if pointerForm {
		v.U = &reA{In: in()}
	} else {
		v.U = reB{In: in()}
	}
	return v
}

// reShape renders which of v's slices and maps are nil ("nil") or empty
// and not ("[]", "{}"), through its elements, pointees and members.
func reShape(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "nil"
		}
		return "&" + reShape(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		t := v.Elem().Type()
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		return t.Name() + ":" + reShape(v.Elem())
	case reflect.Slice, reflect.Map:
		switch {
		case v.IsNil():
			return "nil"
		case v.Len() == 0 && v.Kind() == reflect.Map:
			return "{}"
		case v.Len() == 0:
			return "[]"
		case v.Kind() == reflect.Map || v.Type().Elem().Kind() == reflect.Uint8 || v.Type().Elem().Kind() == reflect.Int8:
			return fmt.Sprint(v.Len())
		}
		fallthrough
	case reflect.Array:
		var parts []string
		for k := 0; k < v.Len(); k++ {
			parts = append(parts, reShape(v.Index(k)))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Struct:
		var parts []string
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				if s := reShape(v.Field(i)); s != "" {
					parts = append(parts, f.Name+":"+s)
				}
			}
		}
		if len(parts) == 0 {
			return ""
		}
		return "{" + strings.Join(parts, " ") + "}"
	}
	return ""
}

// reHistories are what the decoder's scratch value went through before
// the decode a case checks: nothing more, or packets of full values
// decoded into zero values and into values that have the room (commit
// then copies, and the scratch value keeps its slices' capacity).
var reHistories = []struct {
	name string
	run  func(t *testing.T)
}{
	{"no history", func(*testing.T) {}},
	{"full, into a zero value", func(t *testing.T) {
		var v reMsg
		reMust(t, bitpack.Unmarshal(reMarshal(t, reFull()), &v))
	}},
	{"full, twice into one value", func(t *testing.T) {
		var v reMsg
		for range 2 {
			reMust(t, bitpack.Unmarshal(reMarshal(t, reFull()), &v))
		}
	}},
	{"empty, into a held value, then full twice", func(t *testing.T) {
		v := reHeld(3, true)
		reMust(t, bitpack.Unmarshal(reMarshal(t, reEmpty(true)), v))
		for range 2 {
			reMust(t, bitpack.Unmarshal(reMarshal(t, reFull()), v))
		}
	}},
	{"a delta from empty to full, twice into one value", func(t *testing.T) {
		d, err := bitpack.AppendDelta(nil, reEmpty(true), reFull())
		reMust(t, err)
		var v reMsg
		for range 2 {
			reMust(t, bitpack.UnmarshalDelta(d, reEmpty(true), &v))
		}
	}},
}

func reMarshal(t *testing.T, v *reMsg) []byte {
	t.Helper()
	p, err := bitpack.Marshal(v)
	reMust(t, err)
	return p
}

func reMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestDecodeNilOrEmpty: target state × packet → the shape of every empty
// part, the same whatever the scratch value went through.
func TestDecodeNilOrEmpty(t *testing.T) {
	reMust(t, reUnionErr)
	// The shapes of a reIn the target held (its own) or did not (new).
	own, fresh := "{B:[] S:[] M:{}}", "{B:nil S:nil M:nil}"
	// want is reShape of the decoded reEmpty, given the shape of each of
	// its parts.
	want := func(b, in, p, l0, l1, lp0, lp1, a, sp1, u, k0, k1 string) string {
		return "{B:" + b + " In:" + in + " P:&" + p + " L:[" + l0 + " " + l1 + "] LP:[&" + lp0 + " &" + lp1 + "] A:" + a +
			" Sp:[nil &" + sp1 + "] U:" + u + " K:[{In:" + k0 + "} {In:" + k1 + "}]}"
	}
	member := func(name, in string) string {
		if name == "reA" {
			return "reA:&{In:" + in + "}"
		}
		return "reB:{In:" + in + "}"
	}
	for _, c := range []struct {
		name   string
		target func() *reMsg
		packet func() *reMsg
		want   string
	}{
		{"zero target", func() *reMsg { return &reMsg{} }, func() *reMsg { return reEmpty(true) },
			want("nil", fresh, fresh, fresh, fresh, fresh, fresh, "[nil nil]", fresh, member("reA", fresh), fresh, fresh)},
		{"zero target, value-form member", func() *reMsg { return &reMsg{} }, func() *reMsg { return reEmpty(false) },
			want("nil", fresh, fresh, fresh, fresh, fresh, fresh, "[nil nil]", fresh, member("reB", fresh), fresh, fresh)},
		{"held, room for 3", func() *reMsg { return reHeld(3, true) }, func() *reMsg { return reEmpty(true) },
			want("[]", own, own, own, own, own, own, "[[] []]", own, member("reA", own), own, own)},
		{"held, room for 1: grown", func() *reMsg { return reHeld(1, true) }, func() *reMsg { return reEmpty(true) },
			want("[]", own, own, own, fresh, own, fresh, "[[] []]", fresh, member("reA", own), own, fresh)},
		{"held, member of the other form", func() *reMsg { return reHeld(3, false) }, func() *reMsg { return reEmpty(true) },
			want("[]", own, own, own, own, own, own, "[[] []]", own, member("reA", fresh), own, own)},
		{"held, value-form member", func() *reMsg { return reHeld(3, false) }, func() *reMsg { return reEmpty(false) },
			want("[]", own, own, own, own, own, own, "[[] []]", own, member("reB", fresh), own, own)},
	} {
		for _, way := range reWays {
			for _, h := range reHistories {
				h.run(t)
				v := c.target()
				before := reTargetOf(v)
				way.decode(t, c.packet, v)
				before.check(t, c.name+", "+way.name+", "+h.name, v, c.want)
			}
		}
	}
}

// reWays are the decodes that make the packet's value in the target: as
// a packet, and as deltas from bases whose empty parts are not nil.
var reWays = []struct {
	name   string
	decode func(t *testing.T, value func() *reMsg, v *reMsg)
}{
	{"Unmarshal", func(t *testing.T, value func() *reMsg, v *reMsg) {
		reMust(t, bitpack.Unmarshal(reMarshal(t, value()), v))
	}},
	{"UnmarshalDelta, only N changed", func(t *testing.T, value func() *reMsg, v *reMsg) {
		base := value()
		base.N = 5
		d, err := bitpack.AppendDelta(nil, base, value())
		reMust(t, err)
		reMust(t, bitpack.UnmarshalDelta(d, base, v))
	}},
	{"UnmarshalDelta, unchanged", func(t *testing.T, value func() *reMsg, v *reMsg) {
		d, err := bitpack.AppendDelta(nil, value(), value())
		reMust(t, err)
		if len(d) != 1 || d[0] != 0 {
			t.Fatalf("the delta of a value against itself is % x, want 00", d)
		}
		reMust(t, bitpack.UnmarshalDelta(d, value(), v))
	}},
	{"UnmarshalDelta from full", func(t *testing.T, value func() *reMsg, v *reMsg) {
		d, err := bitpack.AppendDelta(nil, reFull(), value())
		reMust(t, err)
		reMust(t, bitpack.UnmarshalDelta(d, reFull(), v))
	}},
}

// reTarget is what a target held before a decode: the pointees a decode
// must reuse.
type reTarget struct {
	old    reMsg
	lp, sp []*reIn // to their capacity
}

func reTargetOf(v *reMsg) reTarget {
	return reTarget{*v, append([]*reIn(nil), v.LP[:cap(v.LP)]...), append([]*reIn(nil), v.Sp[:cap(v.Sp)]...)}
}

// check compares the decoded v with want (its reShape), and checks that
// it holds the pointees and kept fields it must have reused.
func (b reTarget) check(t *testing.T, label string, v *reMsg, want string) {
	t.Helper()
	if got := reShape(reflect.ValueOf(*v)); got != want {
		t.Errorf("%s:\n got %s\nwant %s", label, got, want)
	}
	if b.old.P != nil && v.P != b.old.P {
		t.Errorf("%s: the pointee of P was not reused", label)
	}
	for k := range min(len(b.lp), len(v.LP)) {
		if b.lp[k] != nil && v.LP[k] != b.lp[k] {
			t.Errorf("%s: LP[%d]'s pointee was not reused", label, k)
		}
	}
	if len(b.sp) > 1 && b.sp[1] != nil && v.Sp[1] != b.sp[1] {
		t.Errorf("%s: Sp[1]'s pointee was not reused", label)
	}
	if a, ok := b.old.U.(*reA); ok {
		if got, ok := v.U.(*reA); ok && got != a {
			t.Errorf("%s: the *reA member was not reused", label)
		}
	}
	for k := range v.K {
		if note := v.K[k].Note; k < len(b.old.K) && note != "mine" || k >= len(b.old.K) && note != "" {
			t.Errorf("%s: K[%d].Note is %q", label, k, note)
		}
	}
}

type ptrsToEmpties struct {
	P  *[]byte         `bits:"maxlen=2"`
	PM *map[uint8]bool `bits:"maxlen=2"`
	PP **reIn
	AP [2]*[]int8 `bits:"maxlen=2,elem.range=-4..3"`
	LP []*[]byte  `bits:"maxlen=2,elem.maxlen=2"`
}

func TestPointersToEmpties(t *testing.T) {
	e, m := []byte{}, map[uint8]bool{}
	in := &reIn{B: []byte{}, S: []int8{}, M: map[uint8]bool{}}
	s8 := []int8{}
	src := &ptrsToEmpties{P: &e, PM: &m, PP: &in, AP: [2]*[]int8{&s8, nil}, LP: []*[]byte{&e, &e}}
	p, err := bitpack.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	// history: full values
	b1, m1 := []byte{1, 2}, map[uint8]bool{1: true}
	in1 := &reIn{B: []byte{1}, S: []int8{1}, M: map[uint8]bool{1: true}}
	s81 := []int8{1, 2}
	full := &ptrsToEmpties{P: &b1, PM: &m1, PP: &in1, AP: [2]*[]int8{&s81, &s81}, LP: []*[]byte{&b1, &b1}}
	var h ptrsToEmpties
	for range 3 {
		if err := bitpack.Unmarshal(mustMarshal(t, full), &h); err != nil {
			t.Fatal(err)
		}
	}
	var v ptrsToEmpties
	if err := bitpack.Unmarshal(p, &v); err != nil {
		t.Fatal(err)
	}
	want := modelMerge(reflect.ValueOf(ptrsToEmpties{}), reflect.ValueOf(*src)).Interface().(ptrsToEmpties)
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("got %s\nwant %s", reShape(reflect.ValueOf(v)), reShape(reflect.ValueOf(want)))
	}
}

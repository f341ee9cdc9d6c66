package bitpack_test

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
)

// ipWorld holds what a delta decoded into the base itself changes in
// place: slices with room past their length (whose spare elements hold
// old values), a sparse slice, a []byte, map entries holding a slice and
// a pointer, union members in both forms, a hook and a field off the wire.
type (
	ipSlot struct {
		N  uint8     `bits:"range=0..15"`
		Xs []uint8   `bits:"maxlen=3"`
		P  *deltaVec // pointer
	}
	ipWorld struct {
		Inv   map[uint8]ipSlot `bits:"maxlen=4"`
		List  []ipSlot         `bits:"maxlen=6"`
		Sp    []*ipSlot        `bits:"sparse,maxlen=6"`
		B     []byte           `bits:"maxlen=8"`
		Name  string           `bits:"maxlen=8"`
		Ev    rtEvent
		Evs   []rtEvent `bits:"maxlen=4"`
		Count counter
		At    time.Time `bits:"unit=1s,range=0..4102444800"`
		Keep  string    `bits:"-"`
	}
)

// ipBase is the base every ipEdits case starts from: a new one each time.
func ipBase() *ipWorld {
	w := &ipWorld{
		Inv:   map[uint8]ipSlot{1: {N: 1, Xs: []uint8{5}, P: &deltaVec{2, 2}}, 3: {N: 3}},
		List:  make([]ipSlot, 2, 5),
		Sp:    make([]*ipSlot, 3, 4),
		B:     append(make([]byte, 0, 4), 1, 2),
		Name:  "base",
		Ev:    rtSpawn{Who: 2},
		Evs:   []rtEvent{&rtSay{From: 1, Text: "hi"}, rtKill{Killer: 1}},
		Count: counter{3},
		At:    time.Date(2026, 11, 29, 10, 0, 0, 0, time.FixedZone("CET", 3600)), // a location: a pointer to put back
		Keep:  "mine",
	}
	w.List[0] = ipSlot{N: 1, Xs: []uint8{1, 2}, P: &deltaVec{1, 1}}
	w.List[1] = ipSlot{N: 2}
	w.List[:5][3] = ipSlot{N: 9, Xs: []uint8{9}, P: &deltaVec{3, 3}} // past the length: old
	w.Sp[1] = &ipSlot{N: 4}
	w.Sp[:4][3] = &ipSlot{N: 8, Xs: []uint8{8}} // past the length: old
	return w
}

// ipEdits are changes to ipBase, each a delta decoded in place, and the
// shape (see ipShape) decoding it gives: as Unmarshal decodes into a
// value, old elements past a slice's length are decoded into (an empty
// slice of theirs is theirs, cut to length 0), while map entries are new
// values (an empty slice in one is nil).
var ipEdits = []struct {
	name  string
	edit  func(w *ipWorld)
	shape string
}{
	{"a slice grows within its capacity", func(w *ipWorld) {
		w.List = append(w.List, ipSlot{N: 5, Xs: []uint8{7}}, ipSlot{N: 6, P: &deltaVec{0, 0}})
	}, "List 4 [2 nil 1 0] Sp 3 [- nil -] B 2 Inv 2 {1:1 3:nil}"},
	{"a slice grows past its capacity", func(w *ipWorld) {
		w.List = append(w.List, ipSlot{N: 5}, ipSlot{N: 6}, ipSlot{N: 7}, ipSlot{N: 8, Xs: []uint8{1}})
	}, "List 6 [2 nil nil 0 nil 1] Sp 3 [- nil -] B 2 Inv 2 {1:1 3:nil}"},
	{"a slice empties", func(w *ipWorld) { w.List = w.List[:0] }, "List 0 [] Sp 3 [- nil -] B 2 Inv 2 {1:1 3:nil}"},
	{"an element's slice empties and its pointer goes", func(w *ipWorld) { w.List[0].Xs, w.List[0].P = w.List[0].Xs[:0], nil },
		"List 2 [0 nil] Sp 3 [- nil -] B 2 Inv 2 {1:1 3:nil}"},
	{"an element's pointee changes", func(w *ipWorld) { w.List[0].P = &deltaVec{1, -3} },
		"List 2 [2 nil] Sp 3 [- nil -] B 2 Inv 2 {1:1 3:nil}"},
	{"a sparse slice grows within its capacity", func(w *ipWorld) { w.Sp = append(w.Sp, &ipSlot{N: 11}) },
		"List 2 [2 nil] Sp 4 [- nil - 0] B 2 Inv 2 {1:1 3:nil}"},
	{"a sparse slice grows past its capacity", func(w *ipWorld) { w.Sp = append(w.Sp, nil, nil, &ipSlot{N: 12}) },
		"List 2 [2 nil] Sp 6 [- nil - - - nil] B 2 Inv 2 {1:1 3:nil}"},
	{"a sparse slice shrinks, a slot empties", func(w *ipWorld) { w.Sp = w.Sp[:2]; w.Sp[1] = nil },
		"List 2 [2 nil] Sp 2 [- -] B 2 Inv 2 {1:1 3:nil}"},
	{"a sparse slot appears", func(w *ipWorld) { w.Sp[2] = &ipSlot{N: 1, Xs: []uint8{}} },
		"List 2 [2 nil] Sp 3 [- nil nil] B 2 Inv 2 {1:1 3:nil}"},
	{"map entries change, appear and go", func(w *ipWorld) {
		w.Inv = map[uint8]ipSlot{1: {N: 1, Xs: []uint8{}, P: &deltaVec{2, 3}}, 2: {N: 2, Xs: []uint8{4}}}
	}, "List 2 [2 nil] Sp 3 [- nil -] B 2 Inv 2 {1:nil 2:1}"},
	{"a map empties", func(w *ipWorld) { w.Inv = map[uint8]ipSlot{} }, "List 2 [2 nil] Sp 3 [- nil -] B 2 Inv 0 {}"},
	{"bytes change within their capacity", func(w *ipWorld) { w.B = append(w.B[:0], 9, 8, 7) },
		"List 2 [2 nil] Sp 3 [- nil -] B 3 Inv 2 {1:1 3:nil}"},
	{"bytes empty", func(w *ipWorld) { w.B = w.B[:0] }, "List 2 [2 nil] Sp 3 [- nil -] B 0 Inv 2 {1:1 3:nil}"},
	{"bytes grow past their capacity", func(w *ipWorld) { w.B = []byte{1, 2, 3, 4, 5, 6} },
		"List 2 [2 nil] Sp 3 [- nil -] B 6 Inv 2 {1:1 3:nil}"},
	{"a string", func(w *ipWorld) { w.Name = "other" }, "List 2 [2 nil] Sp 3 [- nil -] B 2 Inv 2 {1:1 3:nil}"},
	{"a member held by value changes", func(w *ipWorld) { w.Ev = rtSpawn{Who: 3} }, "List 2 [2 nil] Sp 3 [- nil -] B 2 Inv 2 {1:1 3:nil}"},
	{"a member of another type", func(w *ipWorld) { w.Ev = &rtSay{From: 2, Text: "yo"} }, "List 2 [2 nil] Sp 3 [- nil -] B 2 Inv 2 {1:1 3:nil}"},
	{"members in a slice change", func(w *ipWorld) { w.Evs = []rtEvent{&rtSay{From: 1, Text: "ho"}, rtKill{Killer: 2}} },
		"List 2 [2 nil] Sp 3 [- nil -] B 2 Inv 2 {1:1 3:nil}"},
	{"a time", func(w *ipWorld) { w.At = w.At.Add(90 * time.Second) }, "List 2 [2 nil] Sp 3 [- nil -] B 2 Inv 2 {1:1 3:nil}"},
	{"a hook", func(w *ipWorld) { w.Count = counter{5} }, "List 2 [2 nil] Sp 3 [- nil -] B 2 Inv 2 {1:1 3:nil}"},
	{"everything", func(w *ipWorld) {
		w.List = append(w.List[:1], ipSlot{N: 3}, ipSlot{N: 4, Xs: []uint8{4}})
		w.List[0].Xs = nil
		w.Sp = append(w.Sp, &ipSlot{N: 13})
		w.Inv = map[uint8]ipSlot{0: {}, 1: {N: 2, Xs: []uint8{5}, P: &deltaVec{2, 2}}}
		w.B, w.Name, w.Ev, w.Count = []byte{3}, "x", rtKill{Headshot: true}, counter{0}
		w.Evs = w.Evs[:1]
	}, "List 3 [0 nil 1] Sp 4 [- nil - 0] B 1 Inv 2 {0:nil 1:1}"},
}

// TestDeltaInPlace: a delta decoded into the base itself gives what it
// gives decoded into another value, on the wire and in the shape of what
// it empties (the base's own slices cut to length 0, but nil in a map's
// entries, which are new values); refused at any point — the packet cut
// short at any byte, a trailing byte after it, any one bit flipped — it
// leaves the base exactly as it was: the same values, nil and empty
// slices alike, the same pointees, arrays and maps, and the same old
// elements past a slice's length.
func TestDeltaInPlace(t *testing.T) {
	for _, tc := range ipEdits {
		want := ipBase()
		tc.edit(want)
		delta := deltaOf(t, ipBase(), want)
		wantBytes, err := bitpack.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		self := ipBase()
		if err := bitpack.UnmarshalDelta(delta, self, self); err != nil {
			t.Fatalf("%s: delta %x into the base itself: %v", tc.name, delta, err)
		}
		other := &ipWorld{Keep: "other"}
		if err := bitpack.UnmarshalDelta(delta, ipBase(), other); err != nil {
			t.Fatalf("%s: delta %x into another value: %v", tc.name, delta, err)
		}
		for _, got := range []*ipWorld{self, other} {
			if b, err := bitpack.Marshal(got); err != nil || string(b) != string(wantBytes) {
				t.Errorf("%s: decoded to %x (%v), want %x", tc.name, b, err, wantBytes)
			}
		}
		if self.Keep != "mine" || other.Keep != "other" {
			t.Errorf("%s: the field off the wire is %q and %q, want mine and other", tc.name, self.Keep, other.Keep)
		}
		if got := ipShape(self); got != tc.shape {
			t.Errorf("%s: decoded into the base itself, the shape is\n%s\nwant\n%s", tc.name, got, tc.shape)
		}
		for _, bad := range refusals(delta) {
			checkUndone(t, tc.name, bad)
		}
	}
}

// ipShape renders which of w's slices and maps are nil, empty or not:
// the list and its elements' Xs, the sparse slice and its elements' Xs
// ("-": an empty slot), the bytes, the map and its entries' Xs.
func ipShape(w *ipWorld) string {
	shape := func(isNil bool, n int) string {
		if isNil {
			return "nil"
		}
		return strconv.Itoa(n)
	}
	var list, sp, inv []string
	for _, e := range w.List {
		list = append(list, shape(e.Xs == nil, len(e.Xs)))
	}
	for _, e := range w.Sp {
		if e == nil {
			sp = append(sp, "-")
		} else {
			sp = append(sp, shape(e.Xs == nil, len(e.Xs)))
		}
	}
	for k := range 4 {
		if e, ok := w.Inv[uint8(k)]; ok {
			inv = append(inv, strconv.Itoa(k)+":"+shape(e.Xs == nil, len(e.Xs)))
		}
	}
	return "List " + shape(w.List == nil, len(w.List)) + " [" + strings.Join(list, " ") + "]" +
		" Sp " + shape(w.Sp == nil, len(w.Sp)) + " [" + strings.Join(sp, " ") + "]" +
		" B " + shape(w.B == nil, len(w.B)) + " Inv " + shape(w.Inv == nil, len(w.Inv)) + " {" + strings.Join(inv, " ") + "}"
}

// refusals returns packets that must be refused whatever the base: delta
// cut short at every byte but the first, and with a trailing byte; and
// packets that may be: delta with each of its bits flipped in turn.
func refusals(delta []byte) [][]byte {
	var out [][]byte
	for n := 1; n < len(delta); n++ {
		out = append(out, delta[:n])
	}
	out = append(out, append(append([]byte(nil), delta...), 0))
	for i := range 8 * len(delta) {
		d := append([]byte(nil), delta...)
		d[i/8] ^= 1 << (i % 8)
		out = append(out, d)
	}
	return out
}

// checkUndone decodes packet into ipBase() itself and into another value
// and, when it is refused, checks that neither changed in any way.
func checkUndone(t *testing.T, name string, packet []byte) {
	t.Helper()
	self := ipBase()
	before := identities(reflect.ValueOf(self))
	err := bitpack.UnmarshalDelta(packet, self, self)
	if err == nil {
		return
	}
	if !reflect.DeepEqual(self, ipBase()) {
		t.Errorf("%s: %x was refused (%v), but changed the base it was decoded into:\n%+v", name, packet, err, *self)
	}
	if after := identities(reflect.ValueOf(self)); after != before {
		t.Errorf("%s: %x was refused (%v), but changed what the base holds:\n%s\nwant\n%s", name, packet, err, after, before)
	}
	other, pristine := &ipWorld{List: []ipSlot{{N: 7}}}, &ipWorld{List: []ipSlot{{N: 7}}}
	if err := bitpack.UnmarshalDelta(packet, ipBase(), other); err == nil || !reflect.DeepEqual(other, pristine) {
		t.Errorf("%s: %x into another value: %v (refused into the base itself), value %+v", name, packet, err, *other)
	}
}

// identities renders where v's pointers, slices and maps point, and the
// lengths and capacities of its slices, with the old elements past each
// slice's length: what putting a value back by copying it would change.
func identities(v reflect.Value) string {
	var b strings.Builder
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			fmt.Fprintf(&b, "%x ", v.Pointer())
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Interface:
			if !v.IsNil() {
				fmt.Fprintf(&b, "%s ", v.Elem().Type())
				walk(v.Elem())
			}
		case reflect.Slice:
			fmt.Fprintf(&b, "%x/%d/%d[ ", v.Pointer(), v.Len(), v.Cap())
			all := v.Slice(0, v.Cap())
			for i := range all.Len() {
				walk(all.Index(i))
			}
			b.WriteString("] ")
		case reflect.Map:
			fmt.Fprintf(&b, "%x{ ", v.Pointer())
			keys := v.MapKeys()
			slices.SortFunc(keys, func(x, y reflect.Value) int { return cmp.Compare(x.Uint(), y.Uint()) })
			for _, k := range keys {
				fmt.Fprintf(&b, "%d: ", k.Uint())
				walk(v.MapIndex(k))
			}
			b.WriteString("} ")
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Uint8, reflect.Uint16, reflect.Uint32:
			fmt.Fprintf(&b, "%d ", v.Uint())
		case reflect.Int8, reflect.Int16, reflect.Int32:
			fmt.Fprintf(&b, "%d ", v.Int())
		case reflect.String:
			fmt.Fprintf(&b, "%q ", v.String())
		}
	}
	walk(v)
	return b.String()
}

// FuzzDeltaInPlace: UnmarshalDelta of hostile bytes against ipBase, into
// the base itself and into another value. It fails the input on a panic;
// a refused delta that changed either in any way (see checkUndone); and an
// accepted one that decodes, in place, to another value than into another
// value, on the wire.
func FuzzDeltaInPlace(f *testing.F) {
	for _, tc := range ipEdits {
		want := ipBase()
		tc.edit(want)
		d, err := bitpack.AppendDelta(nil, ipBase(), want)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkUndone(t, "fuzz", data)
		self, other := ipBase(), &ipWorld{}
		errSelf, errOther := bitpack.UnmarshalDelta(data, self, self), bitpack.UnmarshalDelta(data, ipBase(), other)
		if (errSelf == nil) != (errOther == nil) {
			t.Fatalf("%x: into the base itself: %v; into another value: %v", data, errSelf, errOther)
		}
		if errSelf != nil {
			return
		}
		a, err1 := bitpack.Marshal(self)
		b, err2 := bitpack.Marshal(other)
		if err1 != nil || err2 != nil || string(a) != string(b) {
			t.Fatalf("%x: decoded into the base itself %x (%v), into another value %x (%v)", data, a, err1, b, err2)
		}
	})
}

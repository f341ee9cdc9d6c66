package bitpack_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// stMsg decodes on the stack (see stackPlan): runs, a byte array and raw
// slices.
type stMsg struct {
	A   uint8    `bits:"range=0..100"`
	IDs []uint32 `bits:"maxlen=3"`
	Raw [2]byte
	Sm  []uint16 `bits:"maxlen=4"`
	Z   uint8    `bits:"bits=3"`
}

// TestStackDecode: a value decoded on the stack gets the packet's values,
// keeps its slices' backing arrays when they have the room (allocating
// nothing), grows them when not, keeps a nil slice nil at length 0, and on
// every refusal (named field, bit, detail) is left exactly as it was, its
// slices' elements included.
func TestStackDecode(t *testing.T) {
	for _, c := range []struct {
		v    any
		want bool
	}{
		{&stMsg{}, true},
		{&BenchPacket{}, true},
		{&smallInput{}, false}, // flat: decodeFlat's
		{&struct {
			A uint8
			S string `bits:"maxlen=4"`
		}{}, true},
		{&struct {
			S [5]string `bits:"maxlen=4"` // more strings and raw slices than stackItemsMax
		}{}, false},
		{&struct {
			S string `bits:"maxlen=1000000000000000"` // a length of 50 bits: not a read step of its own
		}{}, false},
		{&struct {
			A []uint32 `bits:"maxlen=3,range=0..9"` // checked elements
		}{}, false},
		{&struct {
			A []uint32 `bits:"maxlen=100"` // 400 bytes of elements
		}{}, false},
		{&struct {
			A uint8
			P *stMsg
		}{}, false},
	} {
		if got := bitpack.DecodesOnStack(reflect.TypeOf(c.v).Elem()); got != c.want {
			t.Errorf("%T decodes on the stack: %v, want %v", c.v, got, c.want)
		}
	}

	// A = 7, IDs = [0xdeadbeef, 5], Raw = [1, 2] (aligned), Sm = [0x1234], Z = 6.
	packet := bitsOf(f{7, 7}, f{2, 2}, f{0xdeadbeef, 32}, f{5, 32}, raw(1, 2), f{1, 3}, f{0x1234, 16}, f{6, 3})
	want := stMsg{A: 7, IDs: []uint32{0xdeadbeef, 5}, Raw: [2]byte{1, 2}, Sm: []uint16{0x1234}, Z: 6}
	if got, err := bitpack.Marshal(&want); err != nil || !bytes.Equal(got, packet) {
		t.Fatalf("Marshal = %x, %v; want %x", got, err, packet)
	}
	back := stMsg{IDs: make([]uint32, 3), Sm: make([]uint16, 0, 4)}
	ids, sm := &back.IDs[:1][0], &back.Sm[:1][0]
	if err := bitpack.Unmarshal(packet, &back); err != nil || !reflect.DeepEqual(back, want) {
		t.Fatalf("Unmarshal = %+v, %v; want %+v", back, err, want)
	}
	if &back.IDs[0] != ids || &back.Sm[0] != sm {
		t.Errorf("Unmarshal did not decode into the slices' own arrays")
	}
	if n := testing.AllocsPerRun(100, func() { _ = bitpack.Unmarshal(packet, &back) }); n != 0 {
		t.Errorf("Unmarshal with room allocates %v times", n)
	}
	short := stMsg{IDs: make([]uint32, 1), Sm: nil}
	if err := bitpack.Unmarshal(packet, &short); err != nil || !reflect.DeepEqual(short, want) {
		t.Fatalf("Unmarshal into short slices = %+v, %v", short, err)
	}
	empty := bitsOf(f{7, 7}, f{0, 2}, raw(1, 2), f{0, 3}, f{6, 3})
	nils := stMsg{Sm: make([]uint16, 2)}
	if err := bitpack.Unmarshal(empty, &nils); err != nil || nils.IDs != nil || nils.Sm == nil || len(nils.Sm) != 0 || nils.Raw != [2]byte{1, 2} {
		t.Fatalf("Unmarshal of empty slices = %#v, %v", nils, err)
	}

	var e *bitpack.Error
	for _, c := range []struct {
		name, path, detail string
		packet             []byte
		is                 error
		bit                int
	}{
		{"A over its range", "A", "value 101 out of range [0, 100]", bitsOf(f{101, 7}, f{0, 2}, raw(1, 2), f{0, 3}, f{6, 3}), bitpack.ErrRange, 0},
		{"Sm over maxlen", "Sm", "length 5 exceeds maxlen 4", bitsOf(f{7, 7}, f{0, 2}, raw(1, 2), f{5, 3}, f{0, 16}), bitpack.ErrRange, 32},
		{"IDs past the end", "IDs", "2 elements need at least 64 bits, 39 remain", bitsOf(f{7, 7}, f{2, 2}, f{0xdeadbeef, 32}, f{0, 7}), bitpack.ErrOverflow, 9},
		{"Sm past the end", "Sm", "", bitsOf(f{7, 7}, f{0, 2}, raw(1, 2)), bitpack.ErrOverflow, 32},
		{"a trailing byte", "", "", append(bytes.Clone(packet), 0), bitpack.ErrTrailing, 118},
	} {
		v := stMsg{A: 1, IDs: []uint32{9, 9, 9}, Raw: [2]byte{3, 3}, Sm: []uint16{8}, Z: 1}
		before := stMsg{A: 1, IDs: []uint32{9, 9, 9}, Raw: [2]byte{3, 3}, Sm: []uint16{8}, Z: 1}
		err := bitpack.Unmarshal(c.packet, &v)
		if !errors.As(err, &e) || !errors.Is(err, c.is) || e.Path != c.path || e.Bit != c.bit || c.detail != "" && e.Detail != c.detail {
			t.Errorf("%s: %v (path %q, bit %d); want %v at %q, bit %d, %q", c.name, err, pathOf(e), bitOf(e), c.is, c.path, c.bit, c.detail)
		}
		if !reflect.DeepEqual(v, before) || cap(v.IDs) != 3 {
			t.Errorf("%s: the value changed to %+v", c.name, v)
		}
		if off := bitpack.UnmarshalOffStack(c.packet, &v); off == nil || off.Error() != err.Error() {
			t.Errorf("%s: the scratch value's path says %v", c.name, off)
		}
	}
}

// TestStackDecodeAsScratch: decoding on the stack and through the scratch
// value give the same values and the same errors for the reference packet
// cut, damaged and extended at every byte.
func TestStackDecodeAsScratch(t *testing.T) {
	p := referencePacket()
	good, err := bitpack.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	packets := [][]byte{good, append(bytes.Clone(good), 0)}
	for i := range good {
		packets = append(packets, good[:i])
		for _, x := range []byte{0xff, 0x80, 0x01} {
			bad := bytes.Clone(good)
			bad[i] ^= x
			packets = append(packets, bad)
		}
	}
	for _, b := range packets {
		on, off := referencePacket(), referencePacket()
		on.EventIDs, off.EventIDs = make([]uint32, 2, 5), make([]uint32, 2, 5)
		errOn, errOff := bitpack.Unmarshal(b, &on), bitpack.UnmarshalOffStack(b, &off)
		if fmt.Sprint(errOn) != fmt.Sprint(errOff) || !reflect.DeepEqual(on, off) {
			t.Fatalf("%x: on the stack %v, %+v; through the scratch value %v, %+v", b, errOn, on, errOff, off)
		}
	}
}

func pathOf(e *bitpack.Error) string {
	if e == nil {
		return ""
	}
	return e.Path
}

func bitOf(e *bitpack.Error) int {
	if e == nil {
		return -1
	}
	return e.Bit
}

package bitpack

import (
	"bytes"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// TestPaddingOnly: which byte ranges of a type are padding, worked out by
// hand from the field offsets in the comments (amd64 and every 64-bit
// platform Go supports lay these out the same way).
func TestPaddingOnly(t *testing.T) {
	type inner struct {
		A uint8  // 0
		B uint32 // 4: padding 1..4
		C uint8  // 8: padding 9..12
	}
	type outer struct {
		X  uint16   // 0: padding 2..4
		In inner    // 4..16
		Z  struct{} // 16, no bytes
		Ar [2]inner // 16..28, 28..40: padding 17..20, 25..28, 29..32, 37..40
		Y  uint64   // 40
	}
	typ := reflect.TypeFor[outer]()
	for _, c := range []struct {
		from, to uintptr
		want     bool
	}{
		{2, 4, true}, {1, 4, false}, {2, 5, false},
		{5, 8, true}, {13, 16, true}, {12, 17, false},
		{16, 16, true}, // empty
		{17, 20, true}, {25, 28, true}, {25, 29, false}, {29, 32, true}, {24, 28, false}, {29, 33, false},
		{37, 40, true}, {37, 41, false},
		{3, 2, true}, // backwards: empty
	} {
		if got := paddingOnly(typ, c.from, c.to); got != c.want {
			t.Errorf("paddingOnly(outer, %d, %d) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
}

// TestCommitCopyLayout: commit copies across padding but never across a
// field off the wire, and lays its copies out in blocks of 16 to 32 bytes
// (two 16-byte moves; the last block overlapping the one before), shorter
// spans as two moves of 1, 2, 4 or 8 bytes, longer ones than 256 bytes by
// copy. The offsets are worked out by hand.
func TestCommitCopyLayout(t *testing.T) {
	type padded struct {
		A uint8  // 0
		B uint32 // 4: padding 1..4 merged
		S string `bits:"maxlen=4"` // 8..24: not copied
		C uint16 // 24
		D uint64 // 32: padding 26..32 merged
		E [40]byte
	}
	type kept struct {
		A    uint8  // 0
		Keep uint8  `bits:"-"`
		B    uint16 // 2
		C    uint32 // 4
		keep uint8  // 8
		D    uint8  // 9
		Big  [300]byte
	}
	type dense struct {
		A uint8
		B uint64
		C [3]uint32
	}
	r := func(off, n uintptr) byteRange { return byteRange{offset{off}, n} }
	b := func(at, last uintptr) block { return block{offset{at}, offset{last}} }
	sm := func(at, last, width uintptr) small { return small{offset{at}, offset{last}, width} }
	type want struct {
		typ    reflect.Type
		blocks []block
		smalls []small
		spans  []byteRange
	}
	wants := []want{
		// [0, 8): two 8-byte moves, the same; then [24, 80): 32 bytes at
		// 24, then the last 32.
		{reflect.TypeFor[padded](), []block{b(24, 40), b(48, 64)}, []small{sm(0, 0, 8)}, nil},
		// [0, 1), [2, 8), [9, 310): none merged across Keep or keep; 6
		// bytes are two 4-byte moves.
		{reflect.TypeFor[kept](), nil, []small{sm(0, 0, 1), sm(2, 4, 4)}, []byteRange{r(9, 301)}},
		// dense: the whole value, 32 bytes (padding 1..8 and 28..32 with it).
		{reflect.TypeFor[dense](), []block{b(0, 16)}, nil, nil},
	}
	if strconv.IntSize == 32 {
		// A string is 8 bytes and a uint64 is aligned to 4: padded's S is
		// 8..16, C 16, D 20..28, E 28..68, so [16, 68) is 32 bytes at 16
		// and the last 32 at 36; dense is 24 bytes (B at 4, C 12..24).
		wants[0].blocks = []block{b(16, 32), b(36, 52)}
		wants[2].blocks = []block{b(0, 8)}
	}
	for _, c := range wants {
		p, err := planOf(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		got := p.copies
		if !slices.Equal(got.blocks, c.blocks) || !slices.Equal(got.smalls, c.smalls) || !slices.Equal(got.spans, c.spans) {
			t.Errorf("%v: blocks %v, smalls %v, spans %v; want %v, %v, %v", c.typ, got.blocks, got.smalls, got.spans, c.blocks, c.smalls, c.spans)
		}
	}

	// And the fields off the wire between the copies keep their values.
	packet, err := Marshal(&kept{A: 1, B: 2, C: 3, D: 4, Big: [300]byte{5}})
	if err != nil {
		t.Fatal(err)
	}
	v := kept{Keep: 0x77, keep: 0x66}
	if err := Unmarshal(packet, &v); err != nil {
		t.Fatal(err)
	}
	if want := (kept{A: 1, Keep: 0x77, B: 2, C: 3, keep: 0x66, D: 4, Big: [300]byte{5}}); v != want {
		t.Errorf("decoded %+v\nwant %+v", v, want)
	}
}

// TestCommitBlocksExact: a decode writes exactly the bytes of the fields
// it decodes, whatever their size around the move sizes (1 to 16, 32, 256
// bytes): not the field off the wire after a byte array of n bytes, nor
// the neighbours of a pointee of n bytes that lives in the caller's array
// (its pointer, set, is decoded into in place, as commit copies it).
func TestCommitBlocksExact(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 63, 64, 65, 255, 256, 257} {
		arr := reflect.ArrayOf(n, reflect.TypeFor[byte]())
		pointee := reflect.StructOf([]reflect.StructField{{Name: "B", Type: arr}})
		typ := reflect.StructOf([]reflect.StructField{
			{Name: "B", Type: arr},
			{Name: "Keep", Type: reflect.TypeFor[uint8](), Tag: `bits:"-"`},
			{Name: "P", Type: reflect.PointerTo(pointee)},
		})
		pattern := func(seed byte) []byte {
			b := make([]byte, n)
			for i := range b {
				b[i] = seed + byte(i)*7
			}
			return b
		}
		in := reflect.New(typ).Elem()
		reflect.Copy(in.Field(0), reflect.ValueOf(pattern(1)))
		in.Field(2).Set(reflect.New(pointee))
		reflect.Copy(in.Field(2).Elem().Field(0), reflect.ValueOf(pattern(100)))
		packet, err := Marshal(in.Addr().Interface())
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}

		// The target: its pointee is the middle one of three, all 0xEE.
		three := reflect.New(reflect.ArrayOf(3, pointee)).Elem()
		for k := 0; k < 3; k++ {
			reflect.Copy(three.Index(k).Field(0), reflect.ValueOf(bytes.Repeat([]byte{0xEE}, n)))
		}
		out := reflect.New(typ)
		out.Elem().Field(1).SetUint(0x5A)
		out.Elem().Field(2).Set(three.Index(1).Addr())
		for round := 0; round < 2; round++ { // the second with the scratch value warm
			if err := Unmarshal(packet, out.Interface()); err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			o := out.Elem()
			if got := o.Field(0).Bytes(); !bytes.Equal(got, pattern(1)) {
				t.Errorf("n=%d: B = %x, want %x", n, got, pattern(1))
			}
			if k := o.Field(1).Uint(); k != 0x5A {
				t.Errorf("n=%d: the field off the wire became %#x", n, k)
			}
			if o.Field(2).Pointer() != three.Index(1).Addr().Pointer() {
				t.Fatalf("n=%d: the pointee was replaced", n)
			}
			want := [][]byte{bytes.Repeat([]byte{0xEE}, n), pattern(100), bytes.Repeat([]byte{0xEE}, n)}
			for k := 0; k < 3; k++ {
				if got := three.Index(k).Field(0).Bytes(); !bytes.Equal(got, want[k]) {
					t.Errorf("n=%d: element %d of the array the pointee lives in = %x, want %x", n, k, got, want[k])
				}
			}
		}
	}
}

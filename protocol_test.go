package bitpack_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------------------
// Sparse arrays.

type obj struct {
	V uint8 `bits:"range=0..15"` // 4 bits
}

type tSparseArray struct {
	Objs [10]*obj `bits:"sparse"`
}

type tSparseSlice struct {
	Objs []*obj `bits:"sparse,maxlen=16"`
}

// rel is the test's own int_relative encoder (the table in docs/wire.md#int_relative), for expected
// bytes: the difference d = cur - prev picks a tier.
func rel(d uint64, cur uint64) []f {
	tiers := []struct{ lo, hi uint64 }{{2, 6}, {7, 23}, {24, 280}, {281, 4377}, {4378, 69914}}
	if d == 1 {
		return []f{{1, 1}}
	}
	out := []f{{0, 1}}
	for _, t := range tiers {
		if d <= t.hi {
			n := 0
			for span := t.hi - t.lo; span > 0; span >>= 1 {
				n++
			}
			return append(out, f{1, 1}, f{d - t.lo, n})
		}
		out = append(out, f{0, 1})
	}
	return append(out, f{cur, 32})
}

func TestSparseGolden(t *testing.T) {
	present := func(idx ...int) (a [10]*obj) {
		for k, i := range idx {
			a[i] = &obj{V: uint8(k + 1)}
		}
		return a
	}
	// Indices 0, 1, 5, 9 of 10: differences 1, 1, 4, 4, then the end marker 10-9 = 1.
	elems := bitsOf(rel(1, 0), f{1, 4}, rel(1, 1), f{2, 4}, rel(4, 5), f{3, 4}, rel(4, 9), f{4, 4}, rel(1, 10))
	tests := []struct {
		name string
		in   any
		want []byte
	}{
		{"array 0,1,5,9 of 10", &tSparseArray{present(0, 1, 5, 9)},
			bitsOf(f{1, 1}, f{1, 4}, f{1, 1}, f{2, 4}, f{0, 1}, f{1, 1}, f{2, 3}, f{3, 4}, f{0, 1}, f{1, 1}, f{2, 3}, f{4, 4}, f{1, 1})},
		{"empty array: only the marker int_relative(-1, 10)", &tSparseArray{}, bitsOf(f{0, 1}, f{0, 1}, f{1, 1}, f{4, 5})},
		{"slice 0,1,5,9 of 10", &tSparseSlice{func() []*obj { a := present(0, 1, 5, 9); return a[:] }()},
			append(bitsOf(f{10, 5}), 0)[:0:0]},
		{"empty slice", &tSparseSlice{}, bitsOf(f{0, 5}, f{1, 1})},
	}
	// The slice row: a 5-bit length, then the same element stream.
	tests[2].want = bitsOf(f{10, 5}, f{1, 1}, f{1, 4}, f{1, 1}, f{2, 4}, f{0, 1}, f{1, 1}, f{2, 3}, f{3, 4}, f{0, 1}, f{1, 1}, f{2, 3}, f{4, 4}, f{1, 1})
	if !bytes.Equal(elems, tests[0].want) {
		t.Fatalf("the rel helper disagrees with the written-down bits: %x vs %x", elems, tests[0].want)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := bitpack.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("Marshal = %x, want %x", got, tt.want)
			}
			out := reflect.New(reflect.TypeOf(tt.in).Elem())
			if err := bitpack.Unmarshal(got, out.Interface()); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.in, out.Interface()); diff != "" && !strings.Contains(tt.name, "empty slice") {
				t.Fatalf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSparseCost: a 4000-slot world with five objects costs a few bits per
// object instead of 4000 presence bits.
func TestSparseCost(t *testing.T) {
	type world struct {
		Objs [4000]*obj `bits:"sparse"`
	}
	type dense struct {
		Objs [4000]*obj
	}
	var w world
	var d dense
	idx := []int{17, 250, 1024, 2048, 3999}
	for _, i := range idx {
		w.Objs[i], d.Objs[i] = &obj{V: 9}, &obj{V: 9}
	}
	sparse, err := bitpack.Marshal(&w)
	if err != nil {
		t.Fatal(err)
	}
	// Differences 18, 233, 774, 1024, 1951, then 1 for the marker: tiers of
	// 8, 13, 18, 18, 18 and 1 bits, plus 4 bits per object.
	wantBits := 8 + 13 + 18 + 18 + 18 + 1 + 5*4
	if len(sparse) != (wantBits+7)/8 {
		t.Fatalf("sparse world is %d bytes, want %d (%d bits)", len(sparse), (wantBits+7)/8, wantBits)
	}
	full, err := bitpack.Marshal(&d)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != (4000+5*4+7)/8 {
		t.Fatalf("dense world is %d bytes", len(full))
	}
	t.Logf("4000 slots, 5 objects: sparse %d bytes, presence bits %d bytes", len(sparse), len(full))
	var back world
	if err := bitpack.Unmarshal(sparse, &back); err != nil {
		t.Fatal(err)
	}
	for i, o := range back.Objs {
		if (o != nil) != (w.Objs[i] != nil) {
			t.Fatalf("slot %d: got %v", i, o)
		}
	}
}

func TestSparseRefusals(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		msg  string
	}{
		// d = 12 from -1: index 11 of a 10-slot array.
		{"index beyond length", bitsOf(rel(12, 11)), "field Objs at bit 0: sparse index 11 out of range for length 10"},
		// Element 5, then the absolute tier claiming index 3.
		{"index not increasing", bitsOf(rel(6, 5), f{0, 4}, f{0, 6}, f{3, 32}), "current 3 is not greater than previous 5"},
		{"index repeated", bitsOf(rel(6, 5), f{0, 4}, f{0, 6}, f{5, 32}), "current 5 is not greater than previous 5"},
		{"absolute tier for a small step", bitsOf(rel(6, 5), f{0, 4}, f{0, 6}, f{9, 32}), "difference 4 sent in the absolute tier"},
		{"no end marker", bitsOf(rel(1, 0), f{0, 4}), "needs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tSparseArray{}
			v.Objs[2] = &obj{V: 7}
			err := bitpack.Unmarshal(tt.data, &v)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.msg)
			}
			if !errors.Is(err, bitpack.ErrRange) && !errors.Is(err, bitpack.ErrOverflow) {
				t.Fatalf("err = %v wraps neither ErrRange nor ErrOverflow", err)
			}
			if v.Objs[2] == nil || v.Objs[2].V != 7 || v.Objs[0] != nil {
				t.Fatal("failed decode changed the value")
			}
		})
	}
	// A slice longer than maxlen is refused on both sides.
	if _, err := bitpack.Marshal(&tSparseSlice{Objs: make([]*obj, 17)}); !errors.Is(err, bitpack.ErrRange) {
		t.Fatalf("encode: %v", err)
	}
	if err := bitpack.Unmarshal(bitsOf(f{17, 5}, f{1, 1}), new(tSparseSlice)); !errors.Is(err, bitpack.ErrRange) {
		t.Fatalf("decode: %v", err)
	}
}

// ---------------------------------------------------------------------------
// Unions.

type Move struct {
	X int8 `bits:"range=-8..7"` // 4 bits
}

type Fire struct {
	Power uint8 `bits:"range=0..3"` // 2 bits
}

type Chat struct {
	Text string `bits:"maxlen=7"`
}

func TestUnionGolden(t *testing.T) {
	u1, err := bitpack.NewUnion(Move{})
	if err != nil {
		t.Fatal(err)
	}
	u2, _ := bitpack.NewUnion(Move{}, Fire{})
	u3, _ := bitpack.NewUnion(Move{}, &Fire{}, Chat{})
	tests := []struct {
		name string
		u    *bitpack.Union
		in   any
		want []byte
		back any
	}{
		{"one type: 0-bit index", u1, Move{X: -8}, bitsOf(f{0, 4}), &Move{X: -8}},
		{"two types: 1-bit index", u2, &Fire{Power: 3}, bitsOf(f{1, 1}, f{3, 2}), &Fire{Power: 3}},
		{"three types: 2-bit index", u3, Fire{Power: 2}, bitsOf(f{1, 2}, f{2, 2}), &Fire{Power: 2}},
		{"three types, last", u3, &Chat{Text: "hi"}, bitsOf(f{2, 2}, f{2, 3}, raw('h', 'i')), &Chat{Text: "hi"}},
		{"three types, first", u3, Move{X: 7}, bitsOf(f{0, 2}, f{15, 4}), &Move{X: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.u.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("Marshal = %x, want %x", got, tt.want)
			}
			back, err := tt.u.Unmarshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tt.back) {
				t.Fatalf("Unmarshal = %#v, want %#v", back, tt.back)
			}
			// Append and Encode/Decode agree.
			app, err := tt.u.Append([]byte{0xee}, tt.in)
			if err != nil || !bytes.Equal(app[1:], tt.want) {
				t.Fatalf("Append = %x, %v", app, err)
			}
			w := bitio.NewWriter(nil)
			if err := tt.u.Encode(w, tt.in); err != nil {
				t.Fatal(err)
			}
			w.WriteBits(1, 1) // something after it
			r := bitio.NewReader(w.Bytes())
			if v, err := tt.u.Decode(r); err != nil || !reflect.DeepEqual(v, tt.back) || r.ReadBits(1) != 1 {
				t.Fatalf("Decode = %#v, %v", v, err)
			}
		})
	}
}

func TestUnionRefusals(t *testing.T) {
	u3, _ := bitpack.NewUnion(Move{}, &Fire{}, Chat{})
	// Index 3 of 3 types.
	if _, err := u3.Unmarshal(bitsOf(f{3, 2}, f{0, 6})); !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), "union index 3 out of range [0, 2]") {
		t.Fatalf("index 3: %v", err)
	}
	if _, err := u3.Unmarshal(bitsOf(f{2, 2}, f{7, 3})); !errors.Is(err, bitpack.ErrOverflow) {
		t.Fatalf("truncated: %v", err)
	}
	if _, err := u3.Unmarshal(append(bitsOf(f{1, 2}, f{2, 2}), 0)); !errors.Is(err, bitpack.ErrTrailing) {
		t.Fatalf("trailing: %v", err)
	}
	for _, bad := range []any{nil, 5, Player{}, (*Fire)(nil)} {
		if b, err := u3.Marshal(bad); err == nil {
			t.Errorf("Marshal(%#v) = %x, want an error", bad, b)
		}
	}
	if _, err := u3.Marshal(&Move{X: 9}); !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), "field X: value 9 out of range [-8, 7]") {
		t.Errorf("member out of range: %v", err)
	}
	for _, args := range [][]any{nil, {Move{}, 3}, {Move{}, &Move{}}, {Fire{}, Fire{}}, {nil}} {
		if _, err := bitpack.NewUnion(args...); err == nil {
			t.Errorf("NewUnion(%v) accepted", args)
		}
	}
}

// Messages inside packets: interface fields encode through their union.

type Msg interface{ isMsg() }

func (Move) isMsg()   {}
func (*Fire) isMsg()  {}
func (Chat) isMsg()   {}
func (*Batch) isMsg() {}

// Batch holds messages, themselves possibly batches: recursion through the
// interface.
type Batch struct {
	Items []Msg `bits:"maxlen=3"`
}

type Envelope struct {
	Seq   uint16 `bits:"range=0..1023"`
	First Msg
	Rest  []Msg         `bits:"maxlen=4"`
	End   bitpack.Check `bits:"check=end of packet"`
}

var msgUnion = func() *bitpack.Union {
	u, err := bitpack.NewUnion(Move{}, &Fire{}, Chat{}, &Batch{})
	if err != nil {
		panic(err)
	}
	if err := bitpack.RegisterUnion[Msg](u); err != nil {
		panic(err)
	}
	return u
}()

func TestUnionFields(t *testing.T) {
	_ = msgUnion
	in := Envelope{
		Seq:   5,
		First: &Fire{Power: 1},
		Rest:  []Msg{Move{X: -1}, Chat{Text: "gg"}, &Batch{Items: []Msg{&Batch{}, Move{X: 3}}}},
	}
	got, err := bitpack.Marshal(&in)
	if err != nil {
		t.Fatal(err)
	}
	want := bitsOf(
		f{5, 10},
		f{1, 2}, f{1, 2}, // First: index 1 (Fire), Power 1
		f{3, 3},          // Rest: 3 items
		f{0, 2}, f{7, 4}, // Move X=-1: offset 7
		f{2, 2}, f{2, 3}, raw('g', 'g'), // Chat "gg"
		f{3, 2}, f{2, 2}, // Batch with 2 items
		f{3, 2}, f{0, 2}, // an empty Batch
		f{0, 2}, f{11, 4}, // Move X=3
		align, f{0x9908ace2, 32}, // the check
	)
	if !bytes.Equal(got, want) {
		t.Fatalf("Marshal = %x\n   want %x", got, want)
	}
	var back Envelope
	if err := bitpack.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	// Members come back in the form they were registered with: Move and
	// Chat as values, Fire and Batch as pointers.
	wantBack := in
	wantBack.Rest[2] = &Batch{Items: []Msg{&Batch{Items: nil}, Move{X: 3}}}
	if diff := cmp.Diff(wantBack, back); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
	// A nil message is an encode error naming the field.
	in.Rest[1] = nil
	if _, err := bitpack.Marshal(&in); !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), "field Rest[1]: nil bitpack_test.Msg") {
		t.Fatalf("nil member: %v", err)
	}
	// A hostile union index inside a packet.
	bad := bitsOf(f{5, 10}, f{3, 2}, f{0, 2}, f{0, 3}, align, f{0x9908ace2, 32})
	var v Envelope
	if err := bitpack.Unmarshal(bad, &v); err != nil {
		t.Fatalf("a Batch with no items is valid: %v", err)
	}
	bad = bitsOf(f{5, 10}, f{1, 2}, f{1, 2}, f{1, 3}, f{3, 2}, f{3, 2}, f{3, 2}, f{3, 2}, f{0, 2})
	if err := bitpack.Unmarshal(bad, &v); err == nil {
		t.Fatal("truncated nesting accepted")
	}
}

func TestUnionDepth(t *testing.T) {
	// Batches nested 70 deep: refused on encode, and a hostile packet of
	// nested Batch headers is refused on decode with ErrDepth.
	var m Msg = &Batch{}
	for i := 0; i < 70; i++ {
		m = &Batch{Items: []Msg{m}}
	}
	if _, err := bitpack.Marshal(&Envelope{First: m}); !errors.Is(err, bitpack.ErrDepth) {
		t.Fatalf("encode: %v", err)
	}
	var groups []any
	groups = append(groups, f{0, 10})
	for i := 0; i < 80; i++ {
		groups = append(groups, f{3, 2}, f{1, 2}) // Batch with one item, which is...
	}
	var v Envelope
	if err := bitpack.Unmarshal(bitsOf(groups...), &v); !errors.Is(err, bitpack.ErrDepth) {
		t.Fatalf("decode: %v", err)
	}
}

type Unregistered interface{ unregistered() }

type tUnregistered struct{ U Unregistered }

type Greeting interface{ greet() }

type hello struct{ N uint8 }

func (*hello) greet() {}

func TestRegisterUnion(t *testing.T) {
	if _, err := bitpack.Describe(&tUnregistered{}); err == nil || !strings.Contains(err.Error(), "bitpack_test.Unregistered is not supported") {
		t.Fatalf("unregistered interface: %v", err)
	}
	u, _ := bitpack.NewUnion(&hello{})
	if err := bitpack.RegisterUnion[int](u); err == nil {
		t.Error("non-interface accepted")
	}
	if err := bitpack.RegisterUnion[Greeting](nil); err == nil {
		t.Error("nil union accepted")
	}
	// hello implements Greeting only as a pointer.
	valueForm, _ := bitpack.NewUnion(hello{})
	if err := bitpack.RegisterUnion[Greeting](valueForm); err == nil || !strings.Contains(err.Error(), "does not implement") {
		t.Errorf("member without the method: %v", err)
	}
	if err := bitpack.RegisterUnion[Greeting](u); err != nil {
		t.Fatal(err)
	}
	if err := bitpack.RegisterUnion[Greeting](u); err != nil {
		t.Errorf("registering the same union again: %v", err)
	}
	other, _ := bitpack.NewUnion(&hello{})
	if err := bitpack.RegisterUnion[Greeting](other); err == nil {
		t.Error("a second union for the same interface accepted")
	}
	// The interface now works as a field.
	type holder struct{ G Greeting }
	b, err := bitpack.Marshal(&holder{G: &hello{N: 9}})
	if err != nil || !bytes.Equal(b, []byte{9}) {
		t.Fatalf("Marshal = %x, %v", b, err)
	}
}

// ---------------------------------------------------------------------------
// Serialize checks.

type tChecked struct {
	A   bool
	Mid bitpack.Check `bits:"check=middle"`
	B   uint8
	End bitpack.Check `bits:"check=end of packet"`
}

func TestCheckHash(t *testing.T) {
	type one struct {
		C bitpack.Check `bits:"check=end of packet"`
	}
	got, err := bitpack.Marshal(&one{})
	if err != nil {
		t.Fatal(err)
	}
	// hash("end of packet") = 0x9908ace2 (the articles' serialize_check
	// hash, with a-z folded to A-Z), little-endian.
	if want := []byte{0xe2, 0xac, 0x08, 0x99}; !bytes.Equal(got, want) {
		t.Fatalf("Marshal = %x, want %x", got, want)
	}
	type folded struct {
		C bitpack.Check `bits:"check=END OF PACKET"`
	}
	if up, _ := bitpack.Marshal(&folded{}); !bytes.Equal(up, got) {
		t.Fatalf("case folding: %x vs %x", up, got)
	}
}

func TestCheckFields(t *testing.T) {
	in := tChecked{A: true, B: 0x5a}
	got, err := bitpack.Marshal(&in)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := bitpack.Describe(&tChecked{})
	var mid uint32
	for _, fl := range l.Root.Fields {
		if fl.Name == "Mid" {
			mid = fl.CheckHash
		}
	}
	want := bitsOf(f{1, 1}, align, f{uint64(mid), 32}, f{0x5a, 8}, align, f{0x9908ace2, 32})
	if !bytes.Equal(got, want) {
		t.Fatalf("Marshal = %x, want %x", got, want)
	}
	var back tChecked
	if err := bitpack.Unmarshal(got, &back); err != nil || back != in {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	// A reader that disagrees (one field fewer) fails at the check.
	type short struct {
		A   bool
		Mid bitpack.Check `bits:"check=middle"`
		End bitpack.Check `bits:"check=end of packet"`
	}
	err = bitpack.Unmarshal(got, new(short))
	if !errors.Is(err, bitpack.ErrCheck) || !strings.Contains(err.Error(), `field End at bit 40: check "end of packet" read 0x`) {
		t.Fatalf("disagreeing reader: %v", err)
	}
	// Truncation is caught by the end-of-packet check.
	if err := bitpack.Unmarshal(got[:len(got)-1], new(tChecked)); !errors.Is(err, bitpack.ErrOverflow) {
		t.Fatalf("truncated: %v", err)
	}
	// Non-zero padding before a check is refused like every align.
	bad := bytes.Clone(got)
	bad[0] |= 0x80
	if err := bitpack.Unmarshal(bad, new(tChecked)); !errors.Is(err, bitpack.ErrPadding) {
		t.Fatalf("padding: %v", err)
	}
}

type (
	bCheckNoTag struct{ C bitpack.Check }
	bCheckWrong struct {
		C int32 `bits:"check=x"`
	}
	bCheckControl struct {
		C bitpack.Check `bits:"check=a\tb"`
	}
	bCheckExtra struct {
		C bitpack.Check `bits:"check=x,range=0..1"`
	}
)

func TestCheckTagErrors(t *testing.T) {
	for _, tt := range []struct {
		in  any
		msg string
	}{
		{bCheckNoTag{}, "needs a tag naming the check"},
		{bCheckWrong{}, "check applies to fields of type bitpack.Check, not int32"},
		{bCheckControl{}, "must be printable ASCII"},
		{bCheckExtra{}, "check does not combine with other options"},
	} {
		var te *bitpack.TagError
		if _, err := bitpack.Describe(tt.in); !errors.As(err, &te) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%T: %v, want a TagError containing %q", tt.in, err, tt.msg)
		}
	}
}

// ---------------------------------------------------------------------------
// Framing.

func TestSealOpen(t *testing.T) {
	const id = 0x12345678
	payload := []byte("hello, world")
	sealed := bitpack.Seal([]byte{0xee}, id, payload)
	// CRC32-IEEE of 78 56 34 12 | 00 00 00 00 | "hello, world" = 0xa10444f7
	// (computed independently with Python's zlib.crc32).
	want := append([]byte{0xee, 0xf7, 0x44, 0x04, 0xa1}, payload...)
	if !bytes.Equal(sealed, want) {
		t.Fatalf("Seal = %x, want %x", sealed, want)
	}
	got, err := bitpack.Open(id, sealed[1:])
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := bitpack.Open(id+1, sealed[1:]); !errors.Is(err, bitpack.ErrChecksum) {
		t.Errorf("wrong protocol id: %v", err)
	}
	for bit := 0; bit < 8*(len(sealed)-1); bit++ {
		bad := bytes.Clone(sealed[1:])
		bad[bit/8] ^= 1 << (bit % 8)
		if _, err := bitpack.Open(id, bad); !errors.Is(err, bitpack.ErrChecksum) {
			t.Fatalf("bit %d flipped: %v", bit, err)
		}
	}
	for n := 0; n < len(sealed)-1; n++ {
		if _, err := bitpack.Open(id, sealed[1:1+n]); !errors.Is(err, bitpack.ErrChecksum) {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	if empty := bitpack.Seal(nil, id, nil); len(empty) != 4 {
		t.Fatalf("sealed empty payload is %d bytes", len(empty))
	} else if p, err := bitpack.Open(id, empty); err != nil || len(p) != 0 {
		t.Fatalf("Open(empty) = %x, %v", p, err)
	}
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf = bitpack.Seal(buf[:0], id, payload); _, _ = bitpack.Open(id, buf) }); n != 0 {
		t.Errorf("Seal+Open: %v allocs", n)
	}
}

// TestSealAliased: Seal reads the whole payload before it writes, so dst
// and payload may overlap in any way (sealing a buffer in place, or a
// payload that sits where the CRC goes).
func TestSealAliased(t *testing.T) {
	const id = 0x12345678
	// CRC32-IEEE of 78 56 34 12 | 00 00 00 00 | "hello, world" = 0xa10444f7,
	// and of the same with "hello" = 0x771f2e57 (Python's zlib.crc32).
	want := append([]byte{0xf7, 0x44, 0x04, 0xa1}, "hello, world"...)
	for _, tc := range []struct {
		name   string
		seal   func(buf []byte) []byte
		wanted []byte
	}{
		{"payload is dst's spare capacity", func(buf []byte) []byte { return bitpack.Seal(buf[:0], id, buf[:12]) }, want},
		{"payload just after the CRC's place", func(buf []byte) []byte { return bitpack.Seal(buf[:0], id, buf[4:16]) }, want},
		{"payload overlapping the CRC's place", func(buf []byte) []byte { return bitpack.Seal(buf[:0], id, buf[2:14]) }, want},
		{"payload before dst's end", func(buf []byte) []byte { return bitpack.Seal(buf[:12], id, buf[:5])[12:] }, []byte{0x57, 0x2e, 0x1f, 0x77, 'h', 'e', 'l', 'l', 'o'}},
	} {
		buf := make([]byte, 64)
		switch tc.name {
		case "payload just after the CRC's place":
			copy(buf[4:], "hello, world")
		case "payload overlapping the CRC's place":
			copy(buf[2:], "hello, world")
		default:
			copy(buf, "hello, world")
		}
		if got := tc.seal(buf); !bytes.Equal(got, tc.wanted) {
			t.Errorf("%s: Seal = %x, want %x", tc.name, got, tc.wanted)
		}
	}
}

// ---------------------------------------------------------------------------
// Fingerprints.

func TestFingerprintGolden(t *testing.T) {
	l, err := bitpack.Describe(&BenchPacket{})
	if err != nil {
		t.Fatal(err)
	}
	const schema = "{u64;[3]q32(-1024,1024,0.01);[4]q32(-1,1,0.0001);r0..1000;u4;[8]r0..200;b;[<=16]u32;a64}"
	if got := l.Schema(); got != schema {
		t.Fatalf("Schema =\n%s\nwant\n%s", got, schema)
	}
	// FNV-1a of the schema, computed independently.
	fp, err := bitpack.Fingerprint(&BenchPacket{})
	if err != nil || fp != 236825676 {
		t.Fatalf("Fingerprint = %d, %v", fp, err)
	}
	el, _ := bitpack.Describe(&Envelope{})
	const envelope = "{r0..1023;U({r-8..7}|{r0..3}|{s7}|{[<=3]^3});[<=4]U({r-8..7}|{r0..3}|{s7}|{[<=3]^3});k9908ace2}"
	if got := el.Schema(); got != envelope {
		t.Fatalf("Envelope schema =\n%s\nwant\n%s", got, envelope)
	}
}

// Variants of one packet, each differing from fpBase by one thing.
type (
	fpBase struct {
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpRenamed struct { // field names do not count
		Alpha int32   `bits:"range=0..1000"`
		Beta  float32 `bits:"float,min=-10,max=10,res=0.01"`
		Gamma string  `bits:"maxlen=15"`
		Delta []uint8 `bits:"maxlen=4,bits=3"`
		Eps   *bool
	}
	fpClamp struct { // clamp changes the encoder, not the wire
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.01,clamp"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpRange struct {
		A int32   `bits:"range=0..1001"`
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpRes struct {
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.02"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpMaxlen struct {
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=16"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpElem struct {
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=4"`
		E *bool
	}
	fpOrder struct {
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		A int32   `bits:"range=0..1000"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpType struct {
		A int32   `bits:"range=0..1000"`
		B float64 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpPointer struct {
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E bool
	}
	fpExtra struct {
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
		F bool
	}
)

func TestFingerprintVariants(t *testing.T) {
	base, err := bitpack.Fingerprint(&fpBase{})
	if err != nil {
		t.Fatal(err)
	}
	for _, same := range []any{&fpBase{}, fpBase{}, &fpRenamed{}, &fpClamp{}} {
		if fp, _ := bitpack.Fingerprint(same); fp != base {
			t.Errorf("%T: fingerprint %d, want the base's %d", same, fp, base)
		}
	}
	seen := map[uint32]string{base: "base"}
	for _, v := range []any{&fpRange{}, &fpRes{}, &fpMaxlen{}, &fpElem{}, &fpOrder{}, &fpType{}, &fpPointer{}, &fpExtra{}} {
		fp, err := bitpack.Fingerprint(v)
		if err != nil {
			t.Fatal(err)
		}
		name := reflect.TypeOf(v).Elem().Name()
		if prev, dup := seen[fp]; dup {
			t.Errorf("%s has the same fingerprint as %s (%d)", name, prev, fp)
		}
		seen[fp] = name
	}
}

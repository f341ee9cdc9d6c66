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

package bitpack_test

import (
	"reflect"
	"strconv"
	"testing"
	"unsafe"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/zerobit"
)

// The figures Field.Charge exports for the allowances, which a generator
// copies into clients: each checked against a computation of its own.

type chPadded struct {
	A uint8
	B uint64
	C uint8
} // 64-bit: 1, 7 padding, 8, 1, 7 padding = 24 (386: 16)

type chTail struct {
	N uint32
	K bitpack.Check `bits:"check=tail"`
} // a zero-size last field: 4 + 1, rounded to 8 (386 too)

type chWords struct {
	S  string            `bits:"maxlen=3"`
	L  []uint16          `bits:"maxlen=2"`
	P  *uint8            //
	M  map[uint8]uint8   `bits:"maxlen=2"`
	U  chMsg             //
	C  complex64         `bits:"-"`
	F  [3]chPadded       //
	Z  [0]uint64         //
	I  int               //
	sk [5]byte           //lint:ignore U1000 not on the wire: the elements of a slice of chWords are charged twice
	Q  [2]*chTail        `bits:"sparse"`
	X  map[string]chTail `bits:"maxlen=3,key.maxlen=2"`
} // 16 + 24 + 8 + 8 + 16 + 8 + 72 + 0 + 8 + 5 (+3) + 16 + 8 = 192

type chMsg interface{ isChMsg() }

type chOne struct{ A uint8 }

type chTwo struct {
	B []chVec `bits:"maxlen=3"`
	c int32   //lint:ignore U1000 not on the wire: a member that keeps a field off it
}

func (chOne) isChMsg()  {}
func (*chTwo) isChMsg() {}

func init() {
	u, err := bitpack.NewUnion(chOne{}, &chTwo{})
	if err == nil {
		err = bitpack.RegisterUnion[chMsg](u)
	}
	if err != nil {
		panic(err)
	}
}

type chRoot struct {
	W []chWords `bits:"maxlen=2"`
	V [4]chVec
	H *chHook
	T [9]*chTail `bits:"sparse"`
}

type chVec struct{ X, Y int16 }

// chHook encodes itself: charged per call.
type chHook struct {
	A, B uint32
	skip bool //lint:ignore U1000 in the hook's value, whose size is charged
}

func (h *chHook) MarshalBits(w *bitio.Writer) error   { w.WriteBits(uint64(h.A), 32); return nil }
func (h *chHook) UnmarshalBits(r *bitio.Reader) error { h.A = uint32(r.ReadBits(32)); return nil }

func TestChargeSizes(t *testing.T) {
	for _, c := range []struct {
		v    any
		want int64 // worked out by hand for a 64-bit platform
	}{
		{chPadded{}, 24}, {chTail{}, 8}, {chWords{}, 192}, {chVec{}, 4}, {chHook{}, 12},
		{chRoot{}, 24 + 16 + 8 + 72},
	} {
		l, err := bitpack.Describe(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Root.Charge.Bytes; got != c.want {
			t.Errorf("%T: Charge.Bytes %d, want %d", c.v, got, c.want)
		}
		if unsafe.Sizeof(uintptr(0)) == 8 && l.Root.Charge.Bytes != int64(reflect.TypeOf(c.v).Size()) {
			t.Errorf("%T: Charge.Bytes %d, the compiler's size %d", c.v, l.Root.Charge.Bytes, reflect.TypeOf(c.v).Size())
		}
	}
}

// chargedNodes calls visit for every node of l that carries a Charge, with
// its path.
func chargedNodes(l bitpack.Layout, visit func(f *bitpack.Field, path string)) {
	seen := map[*bitpack.Field]bool{}
	var walk func(f *bitpack.Field, path string, charged bool)
	walk = func(f *bitpack.Field, path string, charged bool) {
		if f == nil || seen[f] {
			return
		}
		seen[f] = true
		if charged || f.Kind == bitpack.KindCustom {
			visit(f, path)
		}
		for _, c := range f.Fields {
			walk(c, path+"."+c.Name, false)
		}
		walk(f.Elem, path+"[]", f.Kind != bitpack.KindArray) // an array's elements are its holder's
		walk(f.Key, path+"[key]", true)
		for i, m := range f.Members {
			walk(m, path+"("+strconv.Itoa(i)+")", true)
		}
	}
	walk(l.Root, "", true)
}

// workOf counts the values one value of f visits (docs/wire.md, "Limits"):
// a struct, map, union or slice (not []byte) nested in it that can take
// no bits counts 64 for itself besides its own values.
func workOf(f *bitpack.Field) int64 {
	switch {
	case f.Kind == bitpack.KindStruct:
		n := int64(0)
		for _, c := range f.Fields {
			n += nestedWork(c)
		}
		return max(n, 1)
	}
	return fieldWork(f)
}

// nestedWork is the work of f nested in a value: 64 more for a struct,
// map, union or slice of no bits.
func nestedWork(f *bitpack.Field) int64 {
	switch f.Kind {
	case bitpack.KindStruct, bitpack.KindMap, bitpack.KindUnion, bitpack.KindSlice:
		if leastBits(f) == 0 { // a union: its index alone
			return workOf(f) + 64
		}
	}
	return workOf(f)
}

func fieldWork(f *bitpack.Field) int64 {
	switch {
	case f.Kind == bitpack.KindArray:
		return int64(f.Len) * nestedWork(f.Elem)
	case f.Kind == bitpack.KindSparse && f.Type.Kind() == reflect.Array:
		return (int64(f.Len) + 7) / 8
	}
	return 1
}

// partial reports whether a value of t keeps fields off the wire.
func partial(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && partial(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Tag.Get("bits") == "-" || partial(sf.Type) {
				return true
			}
		}
	}
	return false
}

func TestChargeFigures(t *testing.T) {
	for _, v := range []any{chRoot{}, Snapshot{}, BenchPacket{}, twArena{}, twMaps{}, twSparse{}, twUnions{}, twNest{}, twGate{}, twBigs{}, zerobit.Rows{}} {
		l, err := bitpack.Describe(v)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		chargedNodes(l, func(f *bitpack.Field, path string) {
			n++
			c := f.Charge
			want := bitpack.Charge{Work: workOf(f), Bytes: c.Bytes, Partial: partial(f.Type)}
			if f.Kind == bitpack.KindCustom {
				want.Work, want.Partial = 1, false
			}
			if c != want {
				t.Errorf("%T%s: Charge %+v, want %+v", v, path, c, want)
			}
			if unsafe.Sizeof(uintptr(0)) == 8 && c.Bytes != int64(f.Type.Size()) {
				t.Errorf("%T%s: Charge.Bytes %d, the compiler's size %d", v, path, c.Bytes, f.Type.Size())
			}
			if f.CountBits != leastBits(f) {
				t.Errorf("%T%s: CountBits %d, want %d", v, path, f.CountBits, leastBits(f))
			}
		})
		if n < 2 {
			t.Errorf("%T: only %d charged nodes", v, n)
		}
	}
}

// zeroNests nests structs that take no bits as fields, in small arrays
// (unrolled into the holder) and large ones (looped), and under a
// pointer, whose pointee is charged as itself.
type zeroNests struct {
	B     bool
	Z     zerobit.Cell
	W     struct{ In, Out zerobit.Cell }
	Few   [2]zerobit.Cell
	Many  [100]zerobit.Cell
	Deep  [3][2]zerobit.Cell
	Alone *zerobit.Cell
	M     map[uint8]uint8 `bits:"maxlen=0"`
	U     zerobit.Solo
	S     []zerobit.Cell `bits:"maxlen=0"`
	Bs    []byte         `bits:"maxlen=0"`
}

// TestZeroBitNestedWork: the figures of zeroNests worked out by hand, a
// nested Cell being its 1 value and 64 for itself: B 1; Z 65; W (In 65 +
// Out 65, and 64 for W, which takes no bits either) 194; Few 2 × 65; Many
// 100 × 65; Deep 3 × 2 × 65; Alone 1 (its pointee, a Cell of 1 value, is
// charged as itself); M, U and S, a map, a union and a slice of no bits,
// 65 each (its 1 and 64 for itself); Bs 1 (an empty []byte every reader
// shares).
func TestZeroBitNestedWork(t *testing.T) {
	l, err := bitpack.Describe(zeroNests{})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(1 + 65 + 194 + 130 + 6500 + 390 + 1 + 3*65 + 1); l.Root.Charge.Work != want || workOf(l.Root) != want {
		t.Errorf("zeroNests: Charge.Work %d, the test's model %d, want %d", l.Root.Charge.Work, workOf(l.Root), want)
	}
	alone := l.Root.Fields[6].Elem
	if alone.Charge.Work != 1 {
		t.Errorf("zeroNests.Alone's pointee: Charge.Work %d, want 1", alone.Charge.Work)
	}
}

// TestEachCharge: what a slice charges for each element, worked out from
// docs/wire.md: the element's Charge, with Work at least 64 when the
// element can take no bits; the zero Charge on other nodes.
func TestEachCharge(t *testing.T) {
	type (
		oneBit   struct{ B bool }
		zeroPart struct {
			A int8 `bits:"range=5..5"`
		}
		wideZero struct {
			A [100]int8 `bits:"range=5..5"`
		}
		eachTypes struct {
			Bits  []oneBit    `bits:"maxlen=8"`
			Zero  []zeroPart  `bits:"maxlen=8"`
			Wide  []wideZero  `bits:"maxlen=8"`
			Empty []emptyPart `bits:"maxlen=8"`
			Fixed [2]zeroPart
		}
	)
	l, err := bitpack.Describe(eachTypes{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bitpack.Charge{
		{Work: 1, Bytes: 1},     // a bool: one value, paid by its bit
		{Work: 64, Bytes: 1},    // one value of no bits: 64
		{Work: 100, Bytes: 100}, // 100 values of no bits: more than 64 already
		{Work: 64, Bytes: 0},    // a struct of no values: at least 1, and 64 for no bits
		{},                      // an array: its elements are its holder's
	} {
		f := l.Root.Fields[i]
		if got := f.EachCharge(); got != want {
			t.Errorf("%s: EachCharge %+v, want %+v", f.Name, got, want)
		}
	}
}

package bitpack_test

import (
	"errors"
	"hash/fnv"
	"strconv"
	"testing"

	"strings"

	"github.com/bitpack-go/bitpack"
)

// tWideInts has int and uint fields whose wire holds values past 32 bits:
// ranges past them, raw 64-bit fields, bits=40, unit= and clamp. Its
// layout is the same on every host; on a 32-bit one a decoded value the Go
// type cannot hold is ErrRange (CI runs this file on ARMv7 too, under
// qemu-user).
type tWideInts struct {
	R int  `bits:"range=0..5000000000"`
	S int  `bits:"range=-3000000000..3000000000"`
	U uint `bits:"range=4294967290..4294967300"`
	I int
	W uint
	B int  `bits:"bits=40"`
	M int  `bits:"unit=1000,range=-5000000..5000000"`
	C uint `bits:"range=0..8589934591,clamp"`
}

// The widths by hand: 5e9 and 6e9 lie between 2^32 and 2^33 (33 bits),
// 4294967300-4294967290 = 10 takes 4, 1e7 units lie between 2^23 and 2^24
// (24), 8589934591 = 2^33-1 (33): 33+33+4+64+64+40+24+33 = 295 bits.
const wideIntsLayout = `bitpack_test.tWideInts: 295 bits, 37 bytes
field  type  encoding                        bits
R      int   int [0, 5000000000]               33
S      int   int [-3000000000, 3000000000]     33
U      uint  int [4294967290, 4294967300]       4
I      int   int 64 bits (two's complement)    64
W      uint  uint 64 bits                      64
B      int   int 40 bits (two's complement)    40
M      int   int [-5000000, 5000000] × 1000    24
C      uint  int [0, 8589934591] clamp         33
`

// TestWideIntLayout: the layout, its schema and its hash do not depend on
// the host's int size (gen on a 386 machine writes the same clients, and
// generated Go code registers with the same hash, as on amd64).
func TestWideIntLayout(t *testing.T) {
	l, err := bitpack.Describe(tWideInts{})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.String(); got != wideIntsLayout {
		t.Errorf("on %d-bit ints the layout is\n%s\nwant\n%s", strconv.IntSize, got, wideIntsLayout)
	}
	const schema = "{r0..5000000000;r-3000000000..3000000000;r4294967290..4294967300;i64;u64;i40;r-5000000..5000000*1000;r0..8589934591}"
	if got := l.Schema(); got != schema {
		t.Errorf("on %d-bit ints the schema is %s, want %s", strconv.IntSize, got, schema)
	}
	h := fnv.New64a() // Hash's documented input: the rules line, then String
	h.Write([]byte("bitpack wire rules " + strconv.FormatUint(bitpack.RulesVersion, 16) + "\n" + wideIntsLayout))
	if got := l.Hash(); got != h.Sum64() {
		t.Errorf("on %d-bit ints Hash = %#x, want %#x", strconv.IntSize, got, h.Sum64())
	}
	if l.MinBits != 295 || l.MaxBits != 295 {
		t.Errorf("%d-%d bits, want 295", l.MinBits, l.MaxBits)
	}
}

// wideInts are the bits of a tWideInts (see the widths above): each
// field's code, with big set for field k its largest value past 32 bits.
func wideInts(big int) []byte {
	codes := []f{
		{7, 33},                  // R = 7
		{3000000000 - 5, 33},     // S = -5
		{5, 4},                   // U = 4294967295
		{0xffffffffffffff85, 64}, // I = -123
		{9, 64},                  // W = 9
		{1<<40 - 2, 40},          // B = -2
		{5000000 + 3, 24},        // M = 3000: 3 units
		{1, 33},                  // C = 1
	}
	bigs := []f{
		{5000000000, 33}, // R = 5000000000
		{0, 33},          // S = -3000000000
		{10, 4},          // U = 4294967300
		{1 << 40, 64},    // I = 2^40
		{1 << 32, 64},    // W = 2^32
		{1 << 39, 40},    // B = -2^39
		{0, 24},          // M = -5000000 units: -5e9
		{1<<33 - 1, 33},  // C = 2^33-1
	}
	if big >= 0 {
		codes[big] = bigs[big]
	}
	var out []any
	for _, c := range codes {
		out = append(out, c)
	}
	return bitsOf(out...)
}

// TestWideIntDecode: values that fit 32 bits decode and encode alike
// everywhere; each field's value past them decodes on a 64-bit host and is
// refused on a 32-bit one, naming the field, its bit, the value and what
// the Go type holds, and leaving the value as it was.
func TestWideIntDecode(t *testing.T) {
	small := tWideInts{R: 7, S: -5, U: 4294967295, I: -123, W: 9, B: -2, M: 3000, C: 1}
	var v tWideInts
	if err := bitpack.Unmarshal(wideInts(-1), &v); err != nil || v != small {
		t.Fatalf("Unmarshal = %+v, %v; want %+v", v, err, small)
	}
	if p, err := bitpack.Marshal(&small); err != nil || string(p) != string(wideInts(-1)) {
		t.Fatalf("Marshal = %x, %v; want %x", p, err, wideInts(-1))
	}
	// Through variables: a constant past 32 bits does not compile as an
	// int on a 32-bit host.
	i64 := func(x int64) int64 { return x }
	u64 := func(x uint64) uint64 { return x }
	const (
		intBound  = " does not fit a 32-bit int (range [-2147483648, 2147483647])"
		uintBound = " does not fit a 32-bit uint (range [0, 4294967295])"
	)
	for k, c := range []struct {
		set   func(*tWideInts) // the field's value on a 64-bit host (never run on a 32-bit one)
		err32 string
	}{
		{func(v *tWideInts) { v.R = int(i64(5000000000)) }, "field R at bit 0: value 5000000000" + intBound},
		{func(v *tWideInts) { v.S = int(i64(-3000000000)) }, "field S at bit 33: value -3000000000" + intBound},
		{func(v *tWideInts) { v.U = uint(u64(4294967300)) }, "field U at bit 66: value 4294967300" + uintBound},
		{func(v *tWideInts) { v.I = int(i64(1 << 40)) }, "field I at bit 70: value 1099511627776" + intBound},
		{func(v *tWideInts) { v.W = uint(u64(1 << 32)) }, "field W at bit 134: value 4294967296" + uintBound},
		{func(v *tWideInts) { v.B = int(i64(-1 << 39)) }, "field B at bit 198: value -549755813888" + intBound},
		{func(v *tWideInts) { v.M = int(i64(-5000000000)) }, "field M at bit 238: value -5000000000" + intBound},
		{func(v *tWideInts) { v.C = uint(u64(1<<33 - 1)) }, "field C at bit 262: value 8589934591" + uintBound},
	} {
		p := wideInts(k)
		v := small
		err := bitpack.Unmarshal(p, &v)
		if strconv.IntSize == 64 {
			want := small
			c.set(&want)
			if err != nil || v != want {
				t.Errorf("field %d: Unmarshal = %+v, %v; want %+v", k, v, err, want)
			}
			if q, err := bitpack.Marshal(&want); err != nil || string(q) != string(p) {
				t.Errorf("field %d: Marshal = %x, %v; want %x", k, q, err, p)
			}
			continue
		}
		want := "bitpack: decode bitpack_test.tWideInts: " + c.err32
		if !errors.Is(err, bitpack.ErrRange) || err.Error() != want {
			t.Errorf("field %d on a 32-bit host: %v\nwant %s", k, err, want)
		}
		if v != small {
			t.Errorf("field %d on a 32-bit host: the failed decode changed the value to %+v", k, v)
		}
	}
}

// wideIntsFull and wideIntsNarrow are alike on the wire (int and uint travel as 64
// bits everywhere): wideIntsFull writes values a 32-bit int cannot hold, and
// wideIntsNarrow must refuse them on a 32-bit host through every path that
// decodes an int: columns (slices of 4+ structs), raw slices, arrays, map
// keys and values, pointees, sparse slots, union-free deltas.
type wideIntsFull struct {
	A  int64
	S  []int64          `bits:"maxlen=8"`
	C  []widePair64     `bits:"maxlen=8"`
	Ar [3]uint64        //
	M  map[int64]uint64 `bits:"maxlen=4"`
	P  *int64           //
	Sp []*uint64        `bits:"sparse,maxlen=4"`
	R  int64            `bits:"range=0..5000000000"`
	Un int64            `bits:"unit=1000,range=-5000000..5000000"`
}

type widePair64 struct {
	X int64  `bits:"range=-5000000000..5000000000"`
	Y uint64 `bits:"range=0..5000000000"`
}

type wideIntsNarrow struct {
	A  int
	S  []int        `bits:"maxlen=8"`
	C  []widePair   `bits:"maxlen=8"`
	Ar [3]uint      //
	M  map[int]uint `bits:"maxlen=4"`
	P  *int         //
	Sp []*uint      `bits:"sparse,maxlen=4"`
	R  int          `bits:"range=0..5000000000"`
	Un int          `bits:"unit=1000,range=-5000000..5000000"`
}

type widePair struct {
	X int  `bits:"range=-5000000000..5000000000"`
	Y uint `bits:"range=0..5000000000"`
}

func smallWideInts() *wideIntsFull {
	one, two := int64(1), uint64(2)
	return &wideIntsFull{A: 1, S: []int64{1, 2}, C: []widePair64{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}},
		Ar: [3]uint64{1, 2, 3}, M: map[int64]uint64{1: 1}, P: &one, Sp: []*uint64{nil, &two}, R: 5, Un: 3000}
}

func TestWideIntRefusedOnEveryPath(t *testing.T) {
	big := int64(1) << 33
	cases := []struct {
		name, field string
		set         func(v *wideIntsFull)
	}{
		{"int", "field A", func(v *wideIntsFull) { v.A = -big }},
		{"raw slice", "field S[1]", func(v *wideIntsFull) { v.S[1] = big }},
		{"columns X", "field C[3].X", func(v *wideIntsFull) { v.C[3].X = -big / 2 }},
		{"columns Y", "field C[4].Y", func(v *wideIntsFull) { v.C[4].Y = uint64(big / 2) }},
		{"array", "field Ar[2]", func(v *wideIntsFull) { v.Ar[2] = uint64(big) }},
		{"map key", "field M", func(v *wideIntsFull) { v.M = map[int64]uint64{big: 1} }},
		{"map value", "field M", func(v *wideIntsFull) { v.M = map[int64]uint64{1: uint64(big)} }},
		{"pointee", "field P", func(v *wideIntsFull) { *v.P = big }},
		{"sparse", "field Sp[1]", func(v *wideIntsFull) { *v.Sp[1] = uint64(big) }},
		{"range", "field R", func(v *wideIntsFull) { v.R = big / 2 }},
		{"unit", "field Un", func(v *wideIntsFull) { v.Un = -4000000000 }},
	}
	for _, c := range cases {
		cur := smallWideInts()
		c.set(cur)
		p, err := bitpack.Marshal(cur)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		d, err := bitpack.AppendDelta(nil, smallWideInts(), cur)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, way := range []string{"packet", "delta"} {
			var v wideIntsNarrow
			base := wideIntsNarrow{A: 7}
			var err error
			if way == "packet" {
				err = bitpack.Unmarshal(p, &v)
			} else {
				var b wideIntsNarrow
				if err := bitpack.Unmarshal(mustMarshal(t, smallWideInts()), &b); err != nil {
					t.Fatal(err)
				}
				v = base
				err = bitpack.UnmarshalDelta(d, &b, &v)
			}
			if strconv.IntSize == 64 {
				if err != nil {
					t.Errorf("%s, %s: %v", c.name, way, err)
				}
				continue
			}
			if !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), "does not fit a 32-bit") {
				t.Errorf("%s, %s on a 32-bit host: %v; want ErrRange at %s: does not fit a 32-bit ...", c.name, way, err, c.field)
			}
			if way == "delta" && v.A != 7 {
				t.Errorf("%s, delta: failed decode changed the value: %+v", c.name, v)
			}
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	p, err := bitpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWideIntSameBytesEverywhere: values a 32-bit int holds, negative ones
// included, encode and delta-encode as their int64 twins do.
func TestWideIntSameBytesEverywhere(t *testing.T) {
	n1, u2 := -1, uint(2)
	a := &wideIntsNarrow{A: -5, S: []int{-1, 2147483647}, C: []widePair{{-2147483648, 4294967295}, {2, 2}, {3, 3}, {4, 4}},
		Ar: [3]uint{4294967295, 0, 1}, M: map[int]uint{-3: 4294967295, 5: 0}, P: &n1, Sp: []*uint{nil, &u2}, R: 2147483647, Un: -2147483000}
	m1, m2 := int64(-1), uint64(2)
	a64 := &wideIntsFull{A: -5, S: []int64{-1, 2147483647}, C: []widePair64{{-2147483648, 4294967295}, {2, 2}, {3, 3}, {4, 4}},
		Ar: [3]uint64{4294967295, 0, 1}, M: map[int64]uint64{-3: 4294967295, 5: 0}, P: &m1, Sp: []*uint64{nil, &m2}, R: 2147483647, Un: -2147483000}
	if got, want := mustMarshal(t, a), mustMarshal(t, a64); string(got) != string(want) {
		t.Errorf("Marshal = %x, want %x (int64 twin)", got, want)
	}
	var b wideIntsNarrow
	if err := bitpack.Unmarshal(mustMarshal(t, smallWideInts()), &b); err != nil {
		t.Fatal(err)
	}
	got, err := bitpack.AppendDelta(nil, &b, a)
	if err != nil {
		t.Fatal(err)
	}
	want, err := bitpack.AppendDelta(nil, smallWideInts(), a64)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("AppendDelta = %x, want %x (int64 twin)", got, want)
	}
	var v wideIntsNarrow
	if err := bitpack.UnmarshalDelta(got, &b, &v); err != nil || v.A != -5 || v.Un != -2147483000 || v.C[0].X != -2147483648 || v.M[-3] != 4294967295 {
		t.Errorf("UnmarshalDelta = %+v, %v", v, err)
	}
}

type tPlatformInt struct {
	I int
	U uint `bits:"range=0..0x1ffffffff"`
}

// TestPlatformInts: int and uint are 64 bits on the wire everywhere; on a
// 32-bit platform a value that does not fit is ErrRange (run the suite with
// GOARCH=arm, under qemu-user as CI does, to see that side).
func TestPlatformInts(t *testing.T) {
	big := bitsOf(f{1 << 40, 64}, f{1 << 32, 33})
	small := bitsOf(f{0xffffffffffffff85, 64}, f{7, 33}) // I = -123
	var v tPlatformInt
	if err := bitpack.Unmarshal(small, &v); err != nil || v.I != -123 || v.U != 7 {
		t.Fatalf("small values: %+v, %v", v, err)
	}
	err := bitpack.Unmarshal(big, &v)
	if strconv.IntSize == 64 {
		if err != nil || uint64(v.I) != 1<<40 || uint64(v.U) != 1<<32 {
			t.Fatalf("64-bit platform: %+v, %v", v, err)
		}
		return
	}
	if !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), "field I at bit 0: value 1099511627776 does not fit a 32-bit int (range [-2147483648, 2147483647])") {
		t.Fatalf("32-bit platform: %v", err)
	}
	if v.I != -123 {
		t.Fatal("failed decode changed the value")
	}
	if err := bitpack.Unmarshal(bitsOf(f{5, 64}, f{1 << 32, 33}), &v); !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), "field U at bit 64: value 4294967296 does not fit a 32-bit uint (range [0, 4294967295])") {
		t.Fatalf("32-bit platform, uint: %v", err)
	}
}

package bitpack_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
	"github.com/google/go-cmp/cmp"
)

// Delta golden bytes, written down by hand from the format in
// docs/wire.md ("Delta encoding"), bits listed in wire order (bit 0 of a
// number first).

type deltaPing struct {
	Health int32   `bits:"range=0..1000"` // 10 bits; short form 5 bits (±16)
	Alive  bool    // 1 bit: a change sends nothing more
	Speed  float32 `bits:"float,min=0,max=10,res=0.01"` // 10 bits
}

type deltaGrid struct {
	Cells [1000]uint8 `bits:"range=0..200"` // 8 bits each; short form 4 bits (±8)
}

type deltaList struct {
	IDs []uint16 `bits:"maxlen=7,range=0..1000"` // 3-bit length, 10 bits each
}

type deltaVec struct {
	X, Y int8 `bits:"range=-8..7"` // 4 bits each; short form 2 bits (±2)
}

type deltaBag struct {
	Ammo map[uint8]uint16 `bits:"maxlen=7,range=0..1000"` // 3-bit count, 8-bit keys, 10-bit values (short form 5 bits)
}

type deltaUnits struct {
	Big uint64 `bits:"unit=3,range=0..1000000"` // 20 bits of units; short form 8 bits (±128)
	Neg int32  `bits:"unit=10,range=-100..100"` // 8 bits of units; short form 4 bits (±8)
}

type deltaNestInner struct {
	A [2]uint8 `bits:"range=0..9"` // 4 bits; unrolled
}

type deltaNest struct {
	X [2]deltaNestInner // unrolled too: A's list is inside X's element
}

type deltaWide struct {
	U uint64 // 64 bits; short form 8 bits (±128)
}

type deltaOpt struct {
	Name string `bits:"maxlen=7"`
	Pos  *deltaVec
}

func deltaBagBase() *deltaBag { return &deltaBag{Ammo: map[uint8]uint16{1: 10, 5: 50, 9: 90}} }

func deltaGridWith(k int, v uint8) *deltaGrid {
	g := new(deltaGrid)
	for i := range g.Cells {
		g.Cells[i] = uint8(i % 200)
	}
	if k >= 0 {
		g.Cells[k] = v
	}
	return g
}

var deltaGoldens = []struct {
	name    string
	base, v any
	hex     string
}{
	// Root bit 0: 1 bit, a 1-byte packet.
	{"unchanged", &deltaPing{731, true, 0.105}, &deltaPing{731, true, 0.105}, "00"},
	// Moved less than its quantum (code 11 both): unchanged too.
	{"under a quantum", &deltaPing{731, true, 0.105}, &deltaPing{731, true, 0.1051}, "00"},
	// root 1; Health 0; Alive 1 (a bool's change is the bit); Speed 0.
	{"one bool", &deltaPing{731, true, 0.105}, &deltaPing{731, false, 0.105}, "05"},
	// root 1; Health 1, short 0, +9 as 16-1+9 = 24 (0 0 0 1 1); Alive 0; Speed 0.
	{"one int, short", &deltaPing{731, true, 0.105}, &deltaPing{740, true, 0.105}, "c3 00"},
	// root 1; Health 1, long 1, 100 in 10 bits (0 0 1 0 0 1 1 0 0 0); Alive 0; Speed 0.
	{"one int, long", &deltaPing{731, true, 0.105}, &deltaPing{100, true, 0.105}, "27 03"},
	// root 1 (Cells is the only item: no bit of its own); index
	// int_relative(-1, 500): d = 501, 0 0 0 0 1 then 501-281 = 220 in 13
	// bits; the element (its only field: no bit) short 0, +3 as 8-1+3 =
	// 10 (0 1 0 1); end int_relative(500, 1000): d = 500, 0 0 0 0 1 then
	// 219 in 13 bits. 42 bits; the element alone is 8.
	{"one of 1000 array elements", deltaGridWith(-1, 0), deltaGridWith(500, 100%200+3), "21 37 a0 70 1b 00"},
	// root 1; resized 1, length 3 (1 1 0); the 2 shared elements are
	// unchanged: end int_relative(-1, 2), d = 3: 0 1 then 1 in 3 bits;
	// the new element whole, 999 in 10 bits.
	{"a slice that grows", &deltaList{IDs: []uint16{5, 6}}, &deltaList{IDs: []uint16{5, 6, 999}}, "cf 9c 0f"},
	// root 1; Name 0; Pos 1, nil in the base: the pointee whole, X -8 → 0000, Y 7 → 1111.
	{"a pointer that appears", &deltaOpt{Name: "a"}, &deltaOpt{Name: "a", Pos: &deltaVec{-8, 7}}, "85 07"},
	// root 1; Name 0; Pos 1, then 0: nil now.
	{"a pointer that vanishes", &deltaOpt{Name: "a", Pos: &deltaVec{-8, 7}}, &deltaOpt{Name: "a"}, "05"},
	// root 1; Name 0; Pos 1, then 1: the pointee's body: X 1, short 0,
	// +2 as 2-1+2 = 3 (1 1); Y 0.
	{"a pointee that changes", &deltaOpt{Name: "a", Pos: &deltaVec{-8, 7}}, &deltaOpt{Name: "a", Pos: &deltaVec{-6, 7}}, "dd 00"},
	// root 1 (Ammo is the only item); entries in key order, each after a
	// 1: key 5 (in the base: 1, changed; its value's only field: short 0,
	// +3 as 16-1+3 = 18), key 7 (not in the base: the value whole, 70),
	// key 9 (in the base: 0, removed); 0 ends the list. 47 bits.
	{"a map's added, changed and removed keys", &deltaBag{Ammo: map[uint8]uint16{1: 10, 5: 50, 9: 90}},
		&deltaBag{Ammo: map[uint8]uint16{1: 10, 5: 53, 7: 70}}, "17 24 1f 18 31 01"},
	// root 1; Name 1, the string whole: length 2 (0 1 0), padding, "bc"; Pos 0.
	{"a string", &deltaOpt{Name: "a"}, &deltaOpt{Name: "bc"}, "0b 62 63 00"},
	// Codes of unit= fields are in units: root 1; Big 1, short 0, 306868
	// to 306869 units, +1 as 128-1+1 = 128 (0 0 0 0 0 0 0 1); Neg 1,
	// short 0, 5 to 6 units, +1 as 8-1+1 = 8 (0 0 0 1). (Not the Go
	// values' differences, 3 and 10, which the values' own units are not.)
	{"unit= fields, by their units", &deltaUnits{Big: 920604, Neg: 50}, &deltaUnits{Big: 920607, Neg: 60}, "03 0c 01"},
}

func TestDeltaGolden(t *testing.T) {
	for _, g := range deltaGoldens {
		t.Run(g.name, func(t *testing.T) {
			want := spacedHex(t, g.hex)
			got, err := bitpack.AppendDelta(nil, g.base, g.v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("AppendDelta = % x, want % x", got, want)
			}
			// It decodes to the value's quantized self, in a new value and
			// in the base itself.
			wantFull, err := bitpack.Marshal(g.v)
			if err != nil {
				t.Fatal(err)
			}
			for _, inPlace := range []bool{false, true} {
				base := clonePtr(t, g.base)
				target := clonePtr(t, g.base)
				if inPlace {
					target = base
				}
				if err := bitpack.UnmarshalDelta(want, base, target); err != nil {
					t.Fatalf("UnmarshalDelta (in place %v): %v", inPlace, err)
				}
				full, err := bitpack.Marshal(target)
				if err != nil || !bytes.Equal(full, wantFull) {
					t.Fatalf("in place %v: decoded to % x (%v), want % x", inPlace, full, err, wantFull)
				}
			}
		})
	}
}

// spacedHex decodes hex bytes written with spaces between them.
func spacedHex(t *testing.T, s string) []byte {
	t.Helper()
	return mustHex(t, strings.ReplaceAll(s, " ", ""))
}

// clonePtr returns a new *T holding a copy of what p (a *T) holds, by its
// encoding.
func clonePtr(t *testing.T, p any) any {
	t.Helper()
	b, err := bitpack.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var c any
	switch p.(type) {
	case *deltaPing:
		c = new(deltaPing)
	case *deltaGrid:
		c = new(deltaGrid)
	case *deltaList:
		c = new(deltaList)
	case *deltaOpt:
		c = new(deltaOpt)
	case *deltaBag:
		c = new(deltaBag)
	case *deltaUnits:
		c = new(deltaUnits)
	case *deltaWide:
		c = new(deltaWide)
	case *deltaNest:
		c = new(deltaNest)
	default:
		t.Fatalf("clonePtr: %T", p)
	}
	if err := bitpack.Unmarshal(b, c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDeltaRefused: deltas a decoder must refuse, written by hand, with
// the sentinel, field path and bit offset of each refusal; a refused
// delta leaves the target as it was, also when the target is the base.
func TestDeltaRefused(t *testing.T) {
	cases := []struct {
		name string
		base any
		hex  string
		err  error
		path string
		bit  int
	}{
		{"empty", &deltaPing{731, true, 0.105}, "", bitpack.ErrOverflow, "", 0},
		{"trailing byte", &deltaPing{731, true, 0.105}, "00 00", bitpack.ErrTrailing, "", 1},
		{"trailing byte after a change", &deltaPing{731, true, 0.105}, "05 00", bitpack.ErrTrailing, "", 4},
		// root 1, then every field unchanged: not the delta of anything.
		{"changed but nothing changes", &deltaPing{731, true, 0.105}, "01", bitpack.ErrRange, "", 0},
		// Health long form 735: within 16 of 731, the short form's.
		{"long form in the short range", &deltaPing{731, true, 0.105}, "ff 16", bitpack.ErrRange, "Health", 1},
		// Health long form 731: the base's.
		{"long form of the base's code", &deltaPing{731, true, 0.105}, "df 16", bitpack.ErrRange, "Health", 1},
		// Health long form 1001 > 1000.
		{"long form out of range", &deltaPing{731, true, 0.105}, "4f 1f", bitpack.ErrRange, "Health", 1},
		// Health short -16 from 5: below 0.
		{"short form out of range", &deltaPing{5, true, 0.105}, "03 00", bitpack.ErrRange, "Health", 1},
		// Health 1, long 1, then 5 of the code's 10 bits.
		{"truncated", &deltaPing{731, true, 0.105}, "07", bitpack.ErrOverflow, "Health", 3},
		// Cells: index int_relative(-1, 1001) (d = 1002: 281-tier, 721).
		{"index past the array", deltaGridWith(-1, 0), "61 b4 00", bitpack.ErrRange, "Cells", 1},
		// Cells: index 500, then the element (its only field: no bit) in
		// the long form, 100: the base's own code.
		{"element listed unchanged", deltaGridWith(-1, 0), "21 37 48 06 19", bitpack.ErrRange, "Cells[500]", 19},
		// IDs: resized to 2, the base's length.
		{"new length is the base's", &deltaList{IDs: []uint16{5, 6}}, "0b", bitpack.ErrRange, "IDs", 2},
		// IDs: resized 0 and an empty list (end int_relative(-1, 2)):
		// nothing changes.
		{"slice marked changed, unchanged", &deltaList{IDs: []uint16{5, 6}}, "19", bitpack.ErrRange, "IDs", 1},
		// Pos: appears, then only X's 4 bits.
		{"pointee cut short", &deltaOpt{Name: "a"}, "05", bitpack.ErrOverflow, "Pos.Y", 7},
		// Ammo: a 0 at once: the list of changed entries is empty.
		{"map changed, no entry", deltaBagBase(), "01", bitpack.ErrRange, "Ammo", 1},
		// Ammo: key 9 removed, then key 5: keys must ascend.
		{"map keys descending", deltaBagBase(), "27 58 00", bitpack.ErrRange, "Ammo", 11},
		// Ammo: key 5 changed, its value in the long form: 50, the base's.
		{"map value the base's", deltaBagBase(), "17 2c 03", bitpack.ErrRange, "Ammo[5]", 11},
		// Ammo: 7 entries, and key 100 added: 8 > maxlen 7.
		{"map past maxlen", &deltaBag{Ammo: map[uint8]uint16{0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6}}, "93 01 00", bitpack.ErrRange, "Ammo", 20},
		// Name: "a" again.
		{"string the base's", &deltaOpt{Name: "a"}, "07 61 00", bitpack.ErrRange, "Name", 1},
		// U (the only item: no bit) short 0, +2 as 128-1+2 = 129 (1 0 0 0 0 0 0 1)
		// from 2^64-2: past the largest 64-bit code.
		{"short form past 64 bits", &deltaWide{U: 1<<64 - 2}, "05 02", bitpack.ErrRange, "U", 1},
		// Root 1; X (the only item) lists index 1 (int_relative d = 2:
		// 0 1 000); element 1's only item A lists d = 4 (0 1 010): index 3
		// of 2, named by A's whole path.
		{"index past a nested unrolled array", &deltaNest{}, "85 5a 03", bitpack.ErrRange, "X[1].A", 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := spacedHex(t, c.hex)
			before, _ := bitpack.Marshal(c.base)
			for _, inPlace := range []bool{false, true} {
				base := clonePtr(t, c.base)
				target := clonePtr(t, c.base)
				if inPlace {
					target = base
				}
				var want []byte
				if inPlace {
					want = before
				} else {
					want, _ = bitpack.Marshal(target)
				}
				err := bitpack.UnmarshalDelta(data, base, target)
				var be *bitpack.Error
				if !errors.As(err, &be) || !errors.Is(err, c.err) {
					t.Fatalf("UnmarshalDelta(% x) = %v, want a *bitpack.Error wrapping %v", data, err, c.err)
				}
				if be.Path != c.path || be.Bit != c.bit || be.Op != "decode" {
					t.Errorf("error %q: op %q path %q bit %d, want decode %q %d", err, be.Op, be.Path, be.Bit, c.path, c.bit)
				}
				after, _ := bitpack.Marshal(target)
				if !bytes.Equal(after, want) {
					t.Fatalf("in place %v: a refused delta changed the target", inPlace)
				}
			}
		})
	}
}

// TestDeltaCostOneElement: one changed element of 1000, in an array, a
// slice or a sparse array, costs at most its own full encoding plus 8
// bytes, wherever it is.
func TestDeltaCostOneElement(t *testing.T) {
	type unit struct {
		ID  uint16  `bits:"range=0..1023"`
		X   float32 `bits:"float,min=-1000,max=1000,res=0.01"`
		Y   float32 `bits:"float,min=-1000,max=1000,res=0.01"`
		HP  uint8   `bits:"range=0..100"`
		Sel bool
	}
	type arr struct{ U [1000]unit }
	type sl struct {
		U []unit `bits:"maxlen=1000"`
	}
	type sp struct {
		U [1000]*unit `bits:"sparse"`
	}
	mk := func(i int) unit { return unit{ID: uint16(i), X: float32(i), Y: -float32(i), HP: uint8(i % 100)} }
	changed := unit{ID: 1000, X: -999.99, Y: 999.99, HP: 100, Sel: true}
	own, err := bitpack.Marshal(&changed)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{0, 1, 499, 998, 999} {
		a, b := new(arr), new(arr)
		s1, s2 := &sl{U: make([]unit, 1000)}, &sl{U: make([]unit, 1000)}
		p1, p2 := new(sp), new(sp)
		for i := range 1000 {
			a.U[i], b.U[i], s1.U[i], s2.U[i] = mk(i), mk(i), mk(i), mk(i)
			e1, e2 := mk(i), mk(i)
			p1.U[i], p2.U[i] = &e1, &e2
		}
		b.U[k], s2.U[k], *p2.U[k] = changed, changed, changed
		for name, pair := range map[string][2]any{"array": {a, b}, "slice": {s1, s2}, "sparse": {p1, p2}} {
			d, err := bitpack.AppendDelta(nil, pair[0], pair[1])
			if err != nil {
				t.Fatal(err)
			}
			if len(d) > len(own)+8 {
				t.Errorf("%s, element %d: %d bytes, more than its own %d + 8", name, k, len(d), len(own))
			}
		}
	}
}

// TestDeltaArgs: the any-typed functions take pointers or values of one
// type, and refuse the rest with an error, never a panic.
func TestDeltaArgs(t *testing.T) {
	base, v := deltaPing{731, true, 0.105}, deltaPing{740, true, 0.105}
	d1, err1 := bitpack.AppendDelta(nil, &base, &v)
	d2, err2 := bitpack.AppendDelta(nil, base, v)
	if err1 != nil || err2 != nil || !bytes.Equal(d1, d2) {
		t.Fatalf("pointers: % x %v; values: % x %v", d1, err1, d2, err2)
	}
	var got deltaPing
	if err := bitpack.UnmarshalDelta(d1, base, &got); err != nil || got != v {
		t.Fatalf("UnmarshalDelta against a value: %+v %v", got, err)
	}
	for name, fn := range map[string]func() error{
		"types differ":      func() error { _, err := bitpack.AppendDelta(nil, &base, &deltaList{}); return err },
		"nil v":             func() error { _, err := bitpack.AppendDelta(nil, &base, nil); return err },
		"nil base":          func() error { return bitpack.UnmarshalDelta(d1, nil, &got) },
		"v not a pointer":   func() error { return bitpack.UnmarshalDelta(d1, &base, got) },
		"nil *T":            func() error { return bitpack.UnmarshalDelta(d1, &base, (*deltaPing)(nil)) },
		"Quantize(nil)":     func() error { return bitpack.Quantize(nil) },
		"Quantize(a value)": func() error { return bitpack.Quantize(base) },
	} {
		if err := fn(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	c, err := bitpack.NewCodec[deltaPing]()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppendDelta(nil, nil, &v); err == nil {
		t.Error("Codec.AppendDelta with a nil base: no error")
	}
	if err := c.UnmarshalDelta(d1, &base, nil); err == nil {
		t.Error("Codec.UnmarshalDelta into nil: no error")
	}
	if err := c.Quantize(nil); err == nil {
		t.Error("Codec.Quantize(nil): no error")
	}
}

// TestQuantize: Quantize makes a value what its encoding decodes to, and
// refuses (leaving it alone) a value Marshal refuses.
func TestQuantize(t *testing.T) {
	// 0.1049 is code 10 (0.1049·1000/10 + 0.5, truncated); code 10 decodes
	// as float32(float32(10/1000)·10) = 0.099999994.
	v := deltaPing{731, true, 0.1049}
	if err := bitpack.Quantize(&v); err != nil || v != (deltaPing{731, true, 0.099999994}) {
		t.Fatalf("Quantize: %+v %v, want {731 true 0.099999994}", v, err)
	}
	bad := deltaPing{1001, true, 0.5}
	err := bitpack.Quantize(&bad)
	if !errors.Is(err, bitpack.ErrRange) || bad != (deltaPing{1001, true, 0.5}) {
		t.Fatalf("Quantize of an out-of-range value: %+v %v", bad, err)
	}
	if !strings.Contains(err.Error(), "encode") {
		t.Errorf("error %q does not say it is the encoding that failed", err)
	}
}

// TestDeltaEncodeRefused: AppendDelta refuses a v Append would refuse
// where it differs from base, and a base whose changed field cannot be
// coded, naming it.
func TestDeltaEncodeRefused(t *testing.T) {
	base, v := deltaPing{731, true, 0.105}, deltaPing{1001, true, 0.105}
	if _, err := bitpack.AppendDelta(nil, &base, &v); !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), "Health") {
		t.Fatalf("v out of range: %v", err)
	}
	base, v = deltaPing{1001, true, 0.105}, deltaPing{731, true, 0.105}
	_, err := bitpack.AppendDelta(nil, &base, &v)
	if !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), "base value") {
		t.Fatalf("base out of range: %v", err)
	}
	dst := []byte{1, 2, 3}
	if out, err := bitpack.AppendDelta(dst, &base, &v); err == nil || !bytes.Equal(out, dst) || cap(out) != cap(dst) {
		t.Fatalf("on error AppendDelta returned % x, not dst", out)
	}
	if diff := cmp.Diff(deltaPing{1001, true, 0.105}, base); diff != "" {
		t.Fatal(diff)
	}
}

// TestDeltaAllowance: the allowances apply to what a delta adds. Two
// big4K elements (8192 values that take no bits) in a 2-byte delta are
// refused by the decoder, naming the slice, and by AppendDelta; copying a
// base of 1.2 MB into the decode is not charged, so a 1-byte delta
// against it decodes.
func TestDeltaAllowance(t *testing.T) {
	two := big4Ks{L: make([]big4K, 2)}
	_, err := bitpack.AppendDelta(nil, &big4Ks{}, &two)
	if !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), "8192 values, would take its decode past the 5120 values") {
		t.Errorf("AppendDelta of two big4K: %v", err)
	}
	// root 1; L (the only item) resized 1, length 2 (0 1 0 0 0 0 0 0);
	// no shared element: end int_relative(-1, 0) = 1; the two elements
	// take no bits. 11 bits.
	delta := spacedHex(t, "0b 04")
	err = bitpack.UnmarshalDelta(delta, &big4Ks{}, &big4Ks{})
	var be *bitpack.Error
	if !errors.As(err, &be) || be.Path != "L" || be.Bit != 1 || be.Detail != "8192 values would take the decode past the 5120"+workRefusal {
		t.Errorf("its delta: %v", err)
	}

	type bigBase struct {
		Flag  bool
		Items []uint32 `bits:"maxlen=300000"`
	}
	base := bigBase{Items: make([]uint32, 300000)}
	for i := range base.Items {
		base.Items[i] = uint32(i)
	}
	v := base
	v.Flag = true
	d, err := bitpack.AppendDelta(nil, &base, &v)
	if err != nil || !bytes.Equal(d, []byte{0x03}) {
		t.Fatalf("one flag against a big base: % x %v", d, err)
	}
	var got bigBase
	if err := bitpack.UnmarshalDelta(d, &base, &got); err != nil || !got.Flag || len(got.Items) != 300000 || got.Items[299999] != 299999 {
		t.Fatalf("decoding it: %v", err)
	}
}

// TestDeltaZeroAllocs: AppendDelta into a reused buffer, UnmarshalDelta
// into a reused value and Quantize allocate nothing, for the example
// world's snapshot over consecutive ticks (players pick weapons up and
// drop them: pointers appear and vanish).
func TestDeltaZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates; the plain test run checks this")
	}
	c, err := bitpack.NewCodec[world.Snapshot]()
	if err != nil {
		t.Fatal(err)
	}
	w := world.New(400, 7)
	snaps := make([]world.Snapshot, 12)
	for i := range snaps {
		w.Step()
		w.Snapshot(&snaps[i])
	}
	flips := 0
	for i := 1; i < len(snaps); i++ {
		for j := range min(len(snaps[i].Players), len(snaps[i-1].Players)) {
			if (snaps[i].Players[j].Weapon == nil) != (snaps[i-1].Players[j].Weapon == nil) {
				flips++
			}
		}
	}
	if flips == 0 {
		t.Fatal("no weapon appears or vanishes in these ticks: pick others")
	}
	deltas := make([][]byte, len(snaps)-1)
	for i := range deltas {
		if deltas[i], err = c.AppendDelta(nil, &snaps[i], &snaps[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 0, 1<<16)
	var got world.Snapshot
	k := 0
	cases := []struct {
		name string
		fn   func()
	}{
		{"Codec.AppendDelta", func() { buf, _ = c.AppendDelta(buf[:0], &snaps[k], &snaps[k+1]) }},
		{"Codec.UnmarshalDelta", func() { err = c.UnmarshalDelta(deltas[k], &snaps[k], &got) }},
		{"AppendDelta", func() { buf, _ = bitpack.AppendDelta(buf[:0], &snaps[k], &snaps[k+1]) }},
		{"UnmarshalDelta", func() { err = bitpack.UnmarshalDelta(deltas[k], &snaps[k], &got) }},
		{"Codec.Quantize", func() { err = c.Quantize(&got) }},
	}
	for _, tc := range cases {
		for k = range deltas { // warm up: got and the scratch value hold what every tick needs
			tc.fn()
		}
		k = 0
		allocs := testing.AllocsPerRun(100, func() {
			tc.fn()
			k = (k + 1) % len(deltas)
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if allocs != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tc.name, allocs)
		}
	}
}

package gen_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/gen"
	"github.com/bitpack-go/bitpack/gen/testdata/gohostile"
	"github.com/bitpack-go/bitpack/internal/sweeps"
	"github.com/google/go-cmp/cmp"
)

// Reproducers of what the hostile-type tests found, with exact packets.

// TestGoGrowReuses: a slice of pointers that outgrows the target's
// capacity keeps the target's old pointees, filled in place (their fields
// off the wire kept), as within capacity; the elements past its capacity
// get new pointees. The plan once handed over its scratch slice whole
// (old pointees let go of), and gen.Go's commit had to copy that.
func TestGoGrowReuses(t *testing.T) {
	// L = [&{A: 3}, &{A: 5}]: length 2 in 2 bits (0, 1), then for each a
	// presence bit (1) and A in 3 bits: 3 = 1, 1, 0 and 5 = 1, 0, 1; bits
	// from the low end of each byte: 0111 1011, 01 -> de 02.
	packet := []byte{0xde, 0x02}
	want := gohostile.AtkGrow{L: []*gohostile.AtkKeep{{A: 3}, {A: 5}}}
	if p, err := bitpack.Marshal(&want); err != nil || !bytes.Equal(p, packet) {
		t.Fatalf("the plan writes % x, %v; want % x", p, err, packet)
	}
	decoders := map[string]func(v *gohostile.AtkGrow) bool{
		"plan":      func(v *gohostile.AtkGrow) bool { return bitpack.Unmarshal(packet, v) == nil },
		"generated": func(v *gohostile.AtkGrow) bool { return gohostile.Unmarshal(packet, v) },
	}
	for name, decode := range decoders {
		for _, c := range []struct {
			name   string
			target func() gohostile.AtkGrow
			want   gohostile.AtkGrow
			reused int // the target's pointees (to its capacity) the result holds
		}{
			{"capacity 0", func() gohostile.AtkGrow { return gohostile.AtkGrow{} }, want, 0},
			{"capacity 1, grown", func() gohostile.AtkGrow { return gohostile.AtkGrow{L: []*gohostile.AtkKeep{{A: 1, Note: "mine"}}} },
				gohostile.AtkGrow{L: []*gohostile.AtkKeep{{A: 3, Note: "mine"}, {A: 5}}}, 1},
			{"capacity 1 past length 0, grown", func() gohostile.AtkGrow {
				return gohostile.AtkGrow{L: []*gohostile.AtkKeep{{A: 1, Note: "stale"}}[:0]}
			}, gohostile.AtkGrow{L: []*gohostile.AtkKeep{{A: 3, Note: "stale"}, {A: 5}}}, 1},
			{"capacity 2 past length 1, in place", func() gohostile.AtkGrow {
				return gohostile.AtkGrow{L: []*gohostile.AtkKeep{{A: 1, Note: "mine"}, {A: 7, Note: "stale"}}[:1]}
			}, gohostile.AtkGrow{L: []*gohostile.AtkKeep{{A: 3, Note: "mine"}, {A: 5, Note: "stale"}}}, 2},
			{"capacity 2, a nil pointer, in place", func() gohostile.AtkGrow { return gohostile.AtkGrow{L: []*gohostile.AtkKeep{nil, {A: 7, Note: "mine"}}} },
				gohostile.AtkGrow{L: []*gohostile.AtkKeep{{A: 3}, {A: 5, Note: "mine"}}}, 1},
		} {
			v := c.target()
			old := append([]*gohostile.AtkKeep(nil), v.L[:cap(v.L)]...) // the pointers, before the decode writes over them
			if !decode(&v) {
				t.Fatalf("%s, %s: refuses % x", name, c.name, packet)
			}
			if d := cmp.Diff(c.want, v); d != "" {
				t.Errorf("%s, %s (-want +got):\n%s", name, c.name, d)
			}
			reused := 0
			for k := range min(len(old), len(v.L)) {
				if old[k] != nil && v.L[k] == old[k] {
					reused++
				}
			}
			if reused != c.reused {
				t.Errorf("%s, %s: %d of the target's pointees reused, want %d", name, c.name, reused, c.reused)
			}
		}
	}
}

// TestGoIntOn32Bit: an int or uint is 64 bits on the wire; a 32-bit
// platform's holds 32. The packet's I is 1<<32 (bit 32 of 128 set).
func TestGoIntOn32Bit(t *testing.T) {
	for _, c := range []struct {
		packet []byte
		i      int64
		u      uint64
		err    string
	}{
		{[]byte{0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 1 << 32, 0, "value 4294967296 does not fit a 32-bit int (range [-2147483648, 2147483647])"},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 1, 0, 0, 0}, -1 << 63, 1 << 32, "value -9223372036854775808 does not fit a 32-bit int (range [-2147483648, 2147483647])"},
		{[]byte{0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}, 1<<31 - 1, 1 << 32, "value 4294967296 does not fit a 32-bit uint (range [0, 4294967295])"},
		{[]byte{0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, -1 << 31, 1<<32 - 1, ""},
	} {
		var g, b gohostile.AtkInt
		ok := gohostile.Unmarshal(c.packet, &g)
		err := bitpack.Unmarshal(c.packet, &b)
		if strconv.IntSize == 64 || c.err == "" {
			if !ok || err != nil || int64(g.I) != c.i || uint64(g.U) != c.u || g != b {
				t.Errorf("% x: generated %v %+v, the plan %v %+v; want {I:%d U:%d}", c.packet, ok, g, err, b, c.i, c.u)
			}
			continue
		}
		if ok || err == nil || !strings.Contains(err.Error(), c.err) || g != (gohostile.AtkInt{}) {
			t.Errorf("% x on %d bits: generated %v %+v, the plan %v; want both to refuse: %s", c.packet, strconv.IntSize, ok, g, err, c.err)
		}
	}
}

// TestGoIntRange: an int or uint ranged past 32 bits has the same layout,
// so the same generated code, on every host. IR's code is 33 bits (its
// lower bound -2147483649 is code 0), UR's 4 from bit 33 (4294967290 is
// code 0); L's length is 2 bits, its element 33. A 64-bit host decodes
// every packet, generated code and plan alike, and writes it back; a
// 32-bit one refuses the values its int and uint cannot hold, the
// generated code by handing the packet to the plan, which words it.
func TestGoIntRange(t *testing.T) {
	const (
		intBound  = " does not fit a 32-bit int (range [-2147483648, 2147483647])"
		uintBound = " does not fit a 32-bit uint (range [0, 4294967295])"
	)
	for _, c := range []struct {
		packet []byte
		ir     int64  // IR, or L[0]
		ur     uint64 // UR
		err32  string // "": decoded on a 32-bit host too
	}{
		{[]byte{0x01, 0, 0, 0, 0x0a}, -2147483648, 4294967295, ""},
		{[]byte{0, 0, 0, 0, 0}, -2147483649, 4294967290, "field IR at bit 0: value -2147483649" + intBound},
		{[]byte{0x01, 0, 0, 0, 0x0b}, 2147483648, 4294967295, "field IR at bit 0: value 2147483648" + intBound},
		{[]byte{0x01, 0, 0, 0, 0x14}, -2147483648, 4294967300, "field UR at bit 33: value 4294967300" + uintBound},
	} {
		var g, b gohostile.AtkIntRange
		ok := gohostile.Unmarshal(c.packet, &g)
		err := bitpack.Unmarshal(c.packet, &b)
		if strconv.IntSize == 64 || c.err32 == "" {
			if !ok || err != nil || int64(g.IR) != c.ir || uint64(g.UR) != c.ur || g != b {
				t.Errorf("% x: generated %v %+v, the plan %v %+v; want {IR:%d UR:%d}", c.packet, ok, g, err, b, c.ir, c.ur)
			}
			if p, ok := gohostile.Append(nil, &g); !ok || !bytes.Equal(p, c.packet) {
				t.Errorf("% x: generated Append = % x, %v", c.packet, p, ok)
			}
			continue
		}
		if want := "bitpack: decode gohostile.AtkIntRange: " + c.err32; ok || err == nil || err.Error() != want || g != (gohostile.AtkIntRange{}) || b != (gohostile.AtkIntRange{}) {
			t.Errorf("% x on 32 bits: generated %v %+v, the plan %v %+v; want both to refuse: %s", c.packet, ok, g, err, b, want)
		}
	}
	// L = [4294967296]: length 1 (bits 0-1), the element's bit 32 at bit 34.
	packet := []byte{0x01, 0, 0, 0, 0x04}
	var g, b gohostile.AtkUintRange
	ok := gohostile.Unmarshal(packet, &g)
	err := bitpack.Unmarshal(packet, &b)
	if strconv.IntSize == 64 {
		if !ok || err != nil || len(g.L) != 1 || uint64(g.L[0]) != 1<<32 || !cmp.Equal(g, b) {
			t.Errorf("% x: generated %v %+v, the plan %v %+v; want {L:[4294967296]}", packet, ok, g, err, b)
		}
		return
	}
	if want := "bitpack: decode gohostile.AtkUintRange: field L[0] at bit 2: value 4294967296" + uintBound; ok || err == nil || err.Error() != want {
		t.Errorf("% x on 32 bits: generated %v %+v, the plan %v; want both to refuse: %s", packet, ok, g, err, want)
	}
}

// TestGoRefusals: what gen.Go cannot generate it refuses, naming
// the field, before writing anything.
func TestGoRefusals(t *testing.T) {
	for _, c := range []struct {
		proto any
		err   string
	}{
		{gohostile.AtkHuge{}, "gen: Go: gohostile.AtkHuge needs 32769 bytes of locals to decode into (over 16384, zeroed on every call however short the packet), so its decode is left to the plan"},
		{gohostile.AtkWideSlice{}, "gen: Go: gohostile.AtkWideSlice needs 25608 bytes of locals to decode into (over 16384, zeroed on every call however short the packet), so its decode is left to the plan"},
		// 1 + (1 + 100 × 64) values: an element of no bits counts what its
		// decode charges, 64; 2 × 100 + 64 bytes for the elements.
		{gohostile.AtkFreeElems{}, "gen: Go: gohostile.AtkFreeElems can hold up to 6402 values and 264 bytes when decoded: beyond what every packet may decode (bitpack's allowances), so its decode is left to the plan"},
		// 100 × 65: a struct of no bits in an array counts its value and
		// 64 for itself (the type's Charge), more than goCost's 1 + 100 × 2.
		{gohostile.AtkFreeCells{}, "gen: Go: gohostile.AtkFreeCells can hold up to 6500 values and 0 bytes when decoded: beyond what every packet may decode (bitpack's allowances), so its decode is left to the plan"},
		{gohostile.AtkNamedBytes{}, "gen: Go: gohostile.AtkNamedBytes field L: []gohostile.NByte holds gohostile.NByte, not byte: the generated code could not copy the packet's bytes into it (leave gohostile.AtkNamedBytes to the plan)"},
		{gohostile.AtkNamedByteArray{}, "gen: Go: gohostile.AtkNamedByteArray field P: [2]gohostile.NByte holds gohostile.NByte, not byte: the generated code could not copy the packet's bytes into it (leave gohostile.AtkNamedByteArray to the plan)"},
		{gohostile.AtkGeneric{}, "gen: Go: gohostile.AtkG[github.com/bitpack-go/bitpack/gen/testdata/gohostile.NByte] is an instance of a generic type, which the generated code cannot name (leave the types that hold it to the plan)"},
		{gohostile.AtkG[uint16]{}, "gen: Go: gohostile.AtkG[uint16] is an instance of a generic type, which the generated code cannot name (leave the types that hold it to the plan)"},
		{gohostile.AtkPos{}, "gen: Go: type gohostile.pos has a name the generated code gives a variable, an import or a helper of its own (rename it, or leave the types that hold it to the plan)"},
		{gohostile.AtkEnd{}, "gen: Go: type gohostile.end has a name the generated code gives a variable, an import or a helper of its own (rename it, or leave the types that hold it to the plan)"},
		{gohostile.AtkQ3{}, "gen: Go: type gohostile.q3 has a name the generated code gives a variable, an import or a helper of its own (rename it, or leave the types that hold it to the plan)"},
		{gohostile.AtkOtherHidden{}, "gen: Go: gohostile.AtkOtherHidden field hidden: othertypes.Wrapped's field hidden is unexported in package github.com/bitpack-go/bitpack/gen/internal/othertypes: code in package github.com/bitpack-go/bitpack/gen/testdata/gohostile cannot reach it (leave gohostile.AtkOtherHidden to the plan)"},
	} {
		var out bytes.Buffer
		err := gen.Go(&out, gen.Options{}, c.proto)
		if err == nil || err.Error() != c.err {
			t.Errorf("gen.Go(%T) = %v\nwant %s", c.proto, err, c.err)
		}
		if out.Len() != 0 {
			t.Errorf("gen.Go(%T) wrote %d bytes with its error", c.proto, out.Len())
		}
	}
}

// TestPlanNilOrEmpty: the plan decoded one packet into two zero values
// and gave a nil element one time, an empty one the other, depending on
// what its scratch value kept from earlier packets: a grown slice's
// elements were the scratch value's, and an empty []byte decoded into one
// with capacity is empty, not nil. Now what commit hands over to a place
// the target held nothing in is settled (commit.go): BB[0] is nil both
// times, as the generated code makes it.
func TestPlanNilOrEmpty(t *testing.T) {
	// BB = [[1 2]]: length 1 in 2 bits (1, 0), the element's length 2 in
	// 2 bits (0, 1), aligned, its two bytes: 09 01 02. BB = [[]]: 01.
	full, empty := []byte{0x09, 0x01, 0x02}, []byte{0x01}
	for v, p := range map[*gohostile.AtkBB][]byte{{BB: [][]byte{{1, 2}}}: full, {BB: [][]byte{{}}}: empty} {
		if q, err := bitpack.Marshal(v); err != nil || !bytes.Equal(q, p) {
			t.Fatalf("the plan writes % x, %v; want % x", q, err, p)
		}
	}
	var a gohostile.AtkBB
	for range 2 { // the second decode commits by copying: the scratch value keeps its [][]byte
		if err := bitpack.Unmarshal(full, &a); err != nil {
			t.Fatal(err)
		}
	}
	var first, second gohostile.AtkBB
	if err := bitpack.Unmarshal(empty, &first); err != nil {
		t.Fatal(err)
	}
	if err := bitpack.Unmarshal(empty, &second); err != nil {
		t.Fatal(err)
	}
	var generated gohostile.AtkBB
	if !gohostile.Unmarshal(empty, &generated) {
		t.Fatalf("the generated code refuses % x", empty)
	}
	for name, v := range map[string]gohostile.AtkBB{"first": first, "second": second, "generated": generated} {
		if len(v.BB) != 1 || v.BB[0] != nil {
			t.Errorf("%s: BB %#v; want [][]byte{nil}", name, v.BB)
		}
	}
}

// TestGoCommitOrder: a target whose pointer P points at its own field X.
// The plan's commit copies the fixed-width fields first (X = 9), then
// fills P's pointee in place (*P = 7, so X = 7); gen.Go's commit went in
// field order (*P = 7, then X = 9).
func TestGoCommitOrder(t *testing.T) {
	// P = &7, X = 9, S = [1 2], Y = 4: a presence bit and 16 bits, 16, a
	// length of 2 bits and 2 x 16, 16; 83 bits.
	packet := []byte{0x0f, 0x00, 0x12, 0x00, 0x0c, 0x00, 0x10, 0x00, 0x20, 0x00, 0x00}
	seven := int16(7)
	if p, err := bitpack.Marshal(&gohostile.AtkAlias{P: &seven, X: 9, S: []int16{1, 2}, Y: 4}); err != nil || !bytes.Equal(p, packet) {
		t.Fatalf("the plan writes % x, %v; want % x", p, err, packet)
	}
	decoders := map[string]func(v *gohostile.AtkAlias) bool{
		"plan":      func(v *gohostile.AtkAlias) bool { return bitpack.Unmarshal(packet, v) == nil },
		"generated": func(v *gohostile.AtkAlias) bool { return gohostile.Unmarshal(packet, v) },
	}
	for name, decode := range decoders {
		var v gohostile.AtkAlias
		v.P = &v.X
		if !decode(&v) {
			t.Fatalf("%s refuses % x", name, packet)
		}
		if v.P != &v.X || v.X != 7 || v.Y != 4 || len(v.S) != 2 || v.S[0] != 1 || v.S[1] != 2 {
			t.Errorf("%s: P %p (&X %p), X %d, S %v, Y %d; want P = &X, X 7, S [1 2], Y 4", name, v.P, &v.X, v.X, v.S, v.Y)
		}
	}
}

// TestGoStringBytes decodes strings of every one and two bytes, the
// three- and four-byte sequences at the edges of UTF-8 (surrogates,
// overlong forms, past U+10FFFF, noncharacters, truncations) and random
// ones, with and without a NUL, by the generated code and the plan: the
// same verdicts, the same strings.
func TestGoStringBytes(t *testing.T) {
	var cases [][]byte
	for a := 0; a < 256; a++ {
		cases = append(cases, []byte{byte(a)})
		for b := 0; b < 256; b++ {
			cases = append(cases, []byte{byte(a), byte(b)})
		}
	}
	for _, s := range []string{
		"\xed\xa0\x80", "\xed\xbf\xbf", "\xed\x9f\xbf", "\xee\x80\x80", // surrogates and their neighbours
		"\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xe0\xa0\x80", "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xf0\x90\x80\x80", // overlong forms
		"\xf4\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80", "\xff\xfe", // around U+10FFFF
		"\xef\xbf\xbe", "\xef\xbf\xbf", "\xef\xbb\xbf", "\xef\xbf\xbd", // U+FFFE, U+FFFF, BOM, U+FFFD
		"\xe2\x82", "\xf0\x9f\x98", "\xe2\x82\xac\x00", "a\x00b", "\x00", "😀😀", "€€\xe2",
	} {
		cases = append(cases, []byte(s))
	}
	rng := rand.New(rand.NewSource(73))
	for i := 0; i < 100000; i++ {
		b := make([]byte, 3+rng.Intn(6))
		for k := range b {
			b[k] = byte(0x80 + rng.Intn(0x78)) // mostly continuation and lead bytes
			if rng.Intn(4) == 0 {
				b[k] = byte(rng.Intn(256))
			}
		}
		cases = append(cases, b)
	}
	accepted := 0
	for _, c := range cases {
		packet := append([]byte{byte(len(c))}, c...)
		var g, b gohostile.AtkStr
		ok := gohostile.Unmarshal(packet, &g)
		err := bitpack.Unmarshal(packet, &b)
		if ok != (err == nil) || g != b {
			t.Fatalf("% x: generated %v %q, the plan %v %q", packet, ok, g.S, err, b.S)
		}
		if ok {
			accepted++
			if g.S != string(c) {
				t.Fatalf("% x: decoded %q", packet, g.S)
			}
		}
	}
	t.Logf("%d strings, %d accepted", len(cases), accepted)
}

// TestGoEveryCode decodes every code of four compressed floats (and the
// codes past M up to the next power of two) by the generated code and the
// plan, compares the values bit for bit, and encodes each back by both:
// the packet again.
func TestGoEveryCode(t *testing.T) {
	stride := uint32(sweeps.FullOrQuick(1, 13)) // without BITPACK_FULL=1, every 13th code past 2^14 and the last
	check := func(name string, bits int, maxCode uint32, decode func(p []byte) (uint64, bool, uint64, error), encode func(p []byte) (string, bool)) {
		n := (bits + 7) / 8
		for c := uint32(0); c < 1<<bits; c = nextCode(c, stride, maxCode) {
			var w [4]byte
			binary.LittleEndian.PutUint32(w[:], c)
			p := w[:n]
			g, ok, b, err := decode(p)
			if ok != (err == nil) || ok != (c <= maxCode) || g != b {
				t.Fatalf("%s code %d: generated %#x %v, the plan %#x %v", name, c, g, ok, b, err)
			}
			if ok {
				if msg, same := encode(p); !same {
					t.Fatalf("%s code %d: %s", name, c, msg)
				}
			}
		}
	}
	check("AtkCF1", 14, 10000, cfDecode(gohostile.Unmarshal[gohostile.AtkCF1], func(v gohostile.AtkCF1) uint64 { return uint64(math.Float32bits(v.F)) }), cfEncode(gohostile.Append[gohostile.AtkCF1]))
	check("AtkCF2", 13, 4096, cfDecode(gohostile.Unmarshal[gohostile.AtkCF2], func(v gohostile.AtkCF2) uint64 { return uint64(math.Float32bits(v.F)) }), cfEncode(gohostile.Append[gohostile.AtkCF2]))
	check("AtkCF3", 21, 2000000, cfDecode(gohostile.Unmarshal[gohostile.AtkCF3], func(v gohostile.AtkCF3) uint64 { return uint64(math.Float32bits(v.F)) }), cfEncode(gohostile.Append[gohostile.AtkCF3]))
	check("AtkCF4", 21, 1580000, cfDecode(gohostile.Unmarshal[gohostile.AtkCF4], func(v gohostile.AtkCF4) uint64 { return math.Float64bits(v.F) }), cfEncode(gohostile.Append[gohostile.AtkCF4]))
}

// nextCode is the code after c in TestGoEveryCode's sweep: every code up to
// 2^14, then every stride-th, with the largest valid code and the one past
// it always included.
func nextCode(c, stride, maxCode uint32) uint32 {
	next := c + 1
	if c >= 1<<14 {
		next = c + stride
	}
	if c < maxCode && next > maxCode {
		return maxCode
	}
	if c == maxCode {
		return maxCode + 1
	}
	return next
}

func cfDecode[T any](gen func([]byte, *T) bool, bits func(T) uint64) func(p []byte) (uint64, bool, uint64, error) {
	return func(p []byte) (uint64, bool, uint64, error) {
		var g, b T
		ok := gen(p, &g)
		err := bitpack.Unmarshal(p, &b)
		return bits(g), ok, bits(b), err
	}
}

func cfEncode[T any](gen func([]byte, *T) ([]byte, bool)) func(p []byte) (string, bool) {
	return func(p []byte) (string, bool) {
		var v T
		if err := bitpack.Unmarshal(p, &v); err != nil {
			return err.Error(), false
		}
		g, ok := gen(nil, &v)
		b, err := bitpack.Marshal(&v)
		if !ok || err != nil || !bytes.Equal(g, p) || !bytes.Equal(b, p) {
			return fmt.Sprintf("re-encoded: generated % x %v, the plan % x %v; want % x", g, ok, b, err, p), false
		}
		return "", true
	}
}

// atkTimeBase is a valid AtkTime: every time 1970 but One, 5 hours later.
func atkTimeBase() gohostile.AtkTime {
	z := time.Unix(0, 0)
	return gohostile.AtkTime{Ns: z, Edge: z, Big: z, One: time.Unix(5*3600, 0), T: z}
}

// TestGoTimeEdges holds gen.Go's time.Time code to the plan at the edges
// of time.Time and of int64 units: each of the times below in each of
// AtkTime's fields (the others valid), and packets of the codes at the
// ends of each field's range.
func TestGoTimeEdges(t *testing.T) {
	fn := gohostile.Generated[reflect.TypeFor[gohostile.AtkTime]()]
	latest := math.MaxInt64 + time.Time{}.Unix() // the latest Unix second of a time.Time
	first := time.Unix(math.MinInt64, 0)         // the earliest Unix second: before it, Unix wraps
	earliest := first
	for range 40 { // Add saturates at the earliest time.Time
		earliest = earliest.Add(math.MinInt64)
	}
	unit := time.Duration(math.MaxInt64) // Big's
	z := time.Unix(0, 0)
	times := []time.Time{
		{}, earliest, first, first.Add(-1), first.Add(time.Second / 2), first.Add(time.Second/2 - 1),
		time.Unix(latest, 0), time.Unix(latest, 499_999_999), time.Unix(latest, 500_000_000), time.Unix(latest, 999_999_999),
		time.Unix(0, math.MaxInt64), time.Unix(0, math.MaxInt64).Add(1), time.Unix(0, math.MinInt64), time.Unix(0, math.MinInt64).Add(-1),
		time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1600, 1, 1, 0, 0, 0, 0, time.FixedZone("x", -3600)),
		z, time.Unix(-1, 999_999_999), time.Unix(0, 1_000_499_999), time.Unix(0, 1_000_500_000), time.Unix(0, -500_000), time.Now(),
		z.Add(3 * unit), z.Add(3 * unit).Add(unit / 2), z.Add(3 * unit).Add(unit/2 + 1), z.Add(-4 * unit), z.Add(-4 * unit).Add(-unit / 2), z.Add(-4 * unit).Add(-unit/2 - 1),
		time.Unix(5*3600, 0), time.Unix(5*3600+1799, 999_999_999), time.Unix(5*3600+1800, 0),
	}
	refused := map[string]int{}
	for _, tm := range times {
		for _, field := range []string{"Ns", "Edge", "Big", "One", "T", "P"} {
			v := atkTimeBase()
			switch field {
			case "Ns":
				v.Ns = tm
			case "Edge":
				v.Edge = tm
			case "Big":
				v.Big = tm
			case "One":
				v.One = tm
			case "T":
				v.T = tm
			case "P":
				v.P = &tm
			}
			if msg := atkEncodeAgrees(fn, &v); msg != "" {
				t.Fatalf("%s = %v: %s", field, tm, msg)
			}
			if _, err := bitpack.Marshal(&v); err != nil {
				refused[field]++
			}
		}
	}
	// Every field refuses some of them but Ns and Big, which clamp: Ns the
	// earliest time to its lowest code, 2300 to its highest.
	for _, f := range []string{"Edge", "One", "T", "P"} {
		if refused[f] == 0 || refused[f] == len(times) {
			t.Errorf("%s refuses %d of %d times", f, refused[f], len(times))
		}
	}
	for tm, want := range map[time.Time]time.Time{earliest: time.Unix(0, math.MinInt64).UTC(), times[14]: time.Unix(0, math.MaxInt64).UTC()} {
		v := atkTimeBase()
		v.Ns = tm
		p, ok := fn.Append(nil, &v)
		var back gohostile.AtkTime
		if !ok || !fn.Unmarshal(p, &back) || back.Ns != want {
			t.Errorf("Ns = %v: %v, clamped to %v; want %v", tm, ok, back.Ns, want)
		}
	}

	// Packets: Ns (64 bits), Edge (64), Big (3), One (none), T (10), P's
	// presence bit and its 10. Each field's codes, the others 0.
	edgeLimit := uint64(latest) + 1<<63 // latest - math.MinInt64
	codes := map[string][]uint64{
		"Ns": {0, 1 << 63, math.MaxUint64}, "Edge": {0, 1, edgeLimit - 1, edgeLimit, edgeLimit + 1, math.MaxUint64},
		"Big": {0, 3, 4, 7}, "T": {0, 1000, 1001, 1023}, "P": {0, 1000, 1001},
	}
	prior := atkTimeBase()
	prior.P = &prior.T
	for field, cs := range codes {
		for _, c := range cs {
			for _, present := range []bool{false, true} {
				var w bitio.Writer
				put := func(name string, bits int) {
					if name == field {
						w.WriteBits(c, bits)
					} else {
						w.WriteBits(0, bits)
					}
				}
				put("Ns", 64)
				put("Edge", 64)
				put("Big", 3)
				put("T", 10)
				w.WriteBool(present || field == "P")
				if present || field == "P" {
					put("P", 10)
				}
				p := w.Bytes()
				for _, target := range []func() reflect.Value{
					func() reflect.Value { return reflect.New(reflect.TypeFor[gohostile.AtkTime]()) },
					func() reflect.Value { v := prior; v.P = &v.T; return reflect.ValueOf(&v) },
				} {
					if msg := atkDecodeAgrees(fn, p, target); msg != "" {
						t.Fatalf("%s code %d (% x): %s", field, c, p, msg)
					}
				}
			}
		}
	}
}

// TestGoTimeCommitOrder: a target whose pointer P points at its own time
// T. The plan's commit fills P's pointee in place (T = 7 ms), then
// commits the times (T = 9 ms): gen.Go's commit must leave T last too,
// though it comes first in field order.
func TestGoTimeCommitOrder(t *testing.T) {
	// T = 9 ms, P = &7 ms: after 131 bits of zeros (Ns, Edge, Big) T in 10
	// bits, P's presence bit and 10 bits.
	var w bitio.Writer
	w.WriteBits(1<<63, 64) // Ns: 1970 (two's complement 0, offset 2^63)
	w.WriteBits(1<<63, 64) // Edge: 1970 (0 s, offset 2^63)
	w.WriteBits(4, 3)      // Big: 0 (two's complement 0, offset 4)
	w.WriteBits(9, 10)
	w.WriteBool(true)
	w.WriteBits(7, 10)
	packet := w.Bytes()
	decoders := map[string]func(v *gohostile.AtkTime) bool{
		"plan":      func(v *gohostile.AtkTime) bool { return bitpack.Unmarshal(packet, v) == nil },
		"generated": func(v *gohostile.AtkTime) bool { return gohostile.Unmarshal(packet, v) },
	}
	for name, decode := range decoders {
		v := atkTimeBase()
		v.P = &v.T
		if !decode(&v) {
			t.Fatalf("%s refuses % x", name, packet)
		}
		if v.P != &v.T || v.T != time.UnixMilli(9).UTC() || v.Edge != time.Unix(0, 0).UTC() {
			t.Errorf("%s: P %p (&T %p), T %v, Edge %v; want P = &T, T 1970-01-01 00:00:00.009, Edge 1970", name, v.P, &v.T, v.T, v.Edge)
		}
	}
}

// TestGoCommitOrderParts: a target of AtkOrder whose pointers point into
// itself, each at a part the plan commits in another pass than field
// order gives (commit.go: copies, strings, pointers, slices, the other
// kinds). What each place holds after the plan's commit, pass by pass:
//   - PL at L[0], L of capacity 1: the pointers' pass writes 7 ms there;
//     the slices' pass grows L, filling the old array's element in place
//     (9 ms) before moving it to the new one: *PL is 9 ms, L [9 ms 10 ms];
//   - PS at Str: Str is "ab" (strings), then "cd" (pointers);
//   - PB at B[0]: 5 (pointers), then B is [1 2] (other kinds);
//   - PF at F[1].X: 4 (copies), then 6 (pointers); F's times last;
//   - E[1].P at E[0].S[0]: 12 (pointers), then E[0].S is [11] (slices);
//   - A[32] at T: T is 20 ms, then A (after T in field order) 21 ms.
//
// gen.Go's commit went in field order (a slice or []byte before a pointer
// into it, a pointer before its string), committed an unrolled array
// (F, E) element by element and the times after every other kind, and
// grew L into a new array before filling it.
func TestGoCommitOrderParts(t *testing.T) {
	ms := func(n int64) time.Time { return time.UnixMilli(n).UTC() }
	seven, cd, five, six, twelve, t21 := ms(7), "cd", uint8(5), int16(6), int16(12), ms(21)
	value := gohostile.AtkOrder{
		L: []time.Time{ms(9), ms(10)}, PL: &seven, PS: &cd, Str: "ab", B: []byte{1, 2}, PB: &five,
		F: [2]gohostile.AtkOrderF{{T: ms(1), X: 3}, {T: ms(2), X: 4}}, PF: &six,
		E: [2]gohostile.AtkOrderE{{S: []int16{11}}, {P: &twelve}}, T: ms(20),
	}
	value.A[32] = &t21
	packet, err := bitpack.Marshal(&value)
	if err != nil {
		t.Fatal(err)
	}
	decoders := map[string]func(v *gohostile.AtkOrder) bool{
		"plan":      func(v *gohostile.AtkOrder) bool { return bitpack.Unmarshal(packet, v) == nil },
		"generated": func(v *gohostile.AtkOrder) bool { return gohostile.Unmarshal(packet, v) },
	}
	for name, decode := range decoders {
		var v gohostile.AtkOrder
		v.L = make([]time.Time, 1)
		v.PL, v.PS, v.B = &v.L[0], &v.Str, make([]byte, 2)
		v.PB, v.PF = &v.B[0], &v.F[1].X
		v.E[0].S = make([]int16, 1)
		v.E[1].P, v.A[32] = &v.E[0].S[0], &v.T
		if !decode(&v) {
			t.Fatalf("%s refuses % x", name, packet)
		}
		if len(v.L) != 2 || v.L[0] != ms(9) || v.L[1] != ms(10) || *v.PL != ms(9) {
			t.Errorf("%s: L %v, *PL %v; want L [9 ms 10 ms], *PL 9 ms", name, v.L, *v.PL)
		}
		if v.PS != &v.Str || v.Str != "cd" {
			t.Errorf("%s: Str %q (PS at it: %v); want PS at Str, \"cd\"", name, v.Str, v.PS == &v.Str)
		}
		if v.PB != &v.B[0] || len(v.B) != 2 || v.B[0] != 1 || v.B[1] != 2 {
			t.Errorf("%s: B %v (PB at B[0]: %v); want PB at B[0], B [1 2]", name, v.B, v.PB == &v.B[0])
		}
		if v.PF != &v.F[1].X || v.F != [2]gohostile.AtkOrderF{{T: ms(1), X: 3}, {T: ms(2), X: 6}} {
			t.Errorf("%s: F %v (PF at F[1].X: %v); want PF at F[1].X, F [{1 ms 3} {2 ms 6}]", name, v.F, v.PF == &v.F[1].X)
		}
		if v.E[0].P != nil || len(v.E[0].S) != 1 || v.E[1].P != &v.E[0].S[0] || v.E[0].S[0] != 11 || v.E[1].S != nil {
			t.Errorf("%s: E %+v (E[1].P at E[0].S[0]: %v); want E[0] {nil [11]}, E[1].P at E[0].S[0], E[1].S nil", name, v.E, v.E[1].P == &v.E[0].S[0])
		}
		if v.A[32] != &v.T || v.T != ms(21) {
			t.Errorf("%s: T %v (A[32] at T: %v); want A[32] at T, T 21 ms", name, v.T, v.A[32] == &v.T)
		}
	}
}

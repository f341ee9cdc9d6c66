package bitpack_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bitpack-go/bitpack"
)

// Every path a string is decoded by makes the same checks: its length
// against maxlen, zero padding, its bytes in the packet, valid UTF-8 and
// no NUL; and the packet as a whole, trailing bytes, atomically. The
// paths: a value decoded on the stack (strStack), the scratch value's
// read program with its strings held back until the packet is accepted
// (strPlan, and strStack off the stack), each with a string read from the
// packet's window (S, early) and one in the packet's last 8 bytes, read
// through the Reader (T); the elements of []string, map keys and values,
// and a delta's strings.

type strStack struct {
	A uint8  `bits:"range=0..200"`
	S string `bits:"maxlen=20"` // 5-bit length
	T string `bits:"maxlen=5"`  // 3-bit length
	Z uint8  `bits:"bits=3"`
}

// strPlan is strStack's wire with a presence bit after it: a pointer, so
// it is not decoded on the stack. With P nil the bit fits strStack's last
// byte: the same packets decode as both.
type strPlan struct {
	A uint8  `bits:"range=0..200"`
	S string `bits:"maxlen=20"`
	T string `bits:"maxlen=5"`
	Z uint8  `bits:"bits=3"`
	P *uint8
}

func strPacket(a uint8, s, t string, z uint8) []byte {
	return bitsOf(f{uint64(a), 8}, f{uint64(len(s)), 5}, raw([]byte(s)...), f{uint64(len(t)), 3}, raw([]byte(t)...), f{uint64(z), 3})
}

// strOracle decodes a strPlan packet (withP) or a strStack packet as
// docs/wire.md describes it, bit by bit, with the string rule as the
// standard library words it: the value, or false for a packet a decoder
// must refuse.
func strOracle(p []byte, withP bool) (strPlan, bool) {
	var v strPlan
	pos := 0
	read := func(n int) (uint64, bool) {
		if pos+n > 8*len(p) {
			return 0, false
		}
		var x uint64
		for i := range n {
			x |= uint64(p[(pos+i)/8]>>((pos+i)%8)&1) << i
		}
		pos += n
		return x, true
	}
	str := func(maxlen, lenBits int) (string, bool) {
		n, ok := read(lenBits)
		if !ok || n > uint64(maxlen) {
			return "", false
		}
		for pos%8 != 0 {
			if b, ok := read(1); !ok || b != 0 {
				return "", false
			}
		}
		if pos/8+int(n) > len(p) {
			return "", false
		}
		b := p[pos/8 : pos/8+int(n)]
		pos += 8 * int(n)
		return string(b), utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
	}
	a, ok := read(8)
	if !ok || a > 200 {
		return v, false
	}
	v.A = uint8(a)
	if v.S, ok = str(20, 5); !ok {
		return v, false
	}
	if v.T, ok = str(5, 3); !ok {
		return v, false
	}
	z, ok := read(3)
	if !ok {
		return v, false
	}
	v.Z = uint8(z)
	present, ok := uint64(0), true
	if withP {
		present, ok = read(1)
	}
	if !ok {
		return v, false
	}
	if present == 1 {
		x, ok := read(8)
		if !ok {
			return v, false
		}
		px := uint8(x)
		v.P = &px
	}
	return v, 8*len(p)-pos < 8 // only the last byte's padding may remain
}

func (v strPlan) stack() strStack { return strStack{v.A, v.S, v.T, v.Z} }

// strPaths decodes p into copies of prior by every path a strStack or
// strPlan packet can take, and returns each path's error and value.
func strPaths(p []byte, prior strPlan) map[string]struct {
	err error
	v   strPlan
} {
	out := map[string]struct {
		err error
		v   strPlan
	}{}
	on, off, plan := prior.stack(), prior.stack(), prior
	errOn := bitpack.Unmarshal(p, &on)
	errOff := bitpack.UnmarshalOffStack(p, &off)
	errPlan := bitpack.Unmarshal(p, &plan)
	out["on the stack"] = struct {
		err error
		v   strPlan
	}{errOn, strPlan{A: on.A, S: on.S, T: on.T, Z: on.Z, P: prior.P}}
	out["scratch value"] = struct {
		err error
		v   strPlan
	}{errOff, strPlan{A: off.A, S: off.S, T: off.T, Z: off.Z, P: prior.P}}
	out["read program"] = struct {
		err error
		v   strPlan
	}{errPlan, plan}
	return out
}

// TestStringRefusals: each check, on each path, for the string read from
// the window (S) and the one read through the Reader (T): the error names
// the field, the bit and what is wrong, and the value is left as it was.
func TestStringRefusals(t *testing.T) {
	if !bitpack.DecodesOnStack(reflect.TypeFor[strStack]()) || bitpack.DecodesOnStack(reflect.TypeFor[strPlan]()) {
		t.Fatal("strStack must decode on the stack, strPlan not")
	}
	s20 := "abcdefghijklmnopqrst"
	// S's bytes start at bit 16, T's length at bit 16+8*len(S).
	tAt := func(s string) int { return 16 + 8*len(s) }
	cases := []struct {
		name   string
		packet []byte
		is     error
		msg    string
	}{
		{"S over maxlen", bitsOf(f{1, 8}, f{21, 5}, raw([]byte(s20+"u")...), f{0, 3}, f{0, 3}), bitpack.ErrRange,
			"field S at bit 8: length 21 exceeds maxlen 20"},
		{"S padding", bitsOf(f{1, 8}, f{2, 5}, f{4, 3}, raw('a', 'b'), f{0, 3}, f{0, 3}), bitpack.ErrPadding,
			"field S at bit 13: padding bits 0b100 are not zero"},
		{"S past the end", bitsOf(f{1, 8}, f{20, 5}, raw('a', 'b', 'c', 'd', 'e')), bitpack.ErrOverflow,
			"field S at bit 16: needs 20 bytes, 5 remain"},
		{"S past the end, from the window", bitsOf(f{1, 8}, f{20, 5}, raw([]byte(s20[:12])...)), bitpack.ErrOverflow,
			"field S at bit 16: needs 20 bytes, 12 remain"},
		{"S invalid UTF-8", strPacket(1, "abcdefghij\xffklmnopqr", "xy", 1), bitpack.ErrInvalidString,
			"field S at bit 8: invalid UTF-8 at offset 10"},
		{"S cut character", strPacket(1, "abcdefghijklmnopqr\xc3", "xy", 1), bitpack.ErrInvalidString,
			"field S at bit 8: invalid UTF-8 at offset 18"},
		{"S surrogate", strPacket(1, "\xed\xa0\x80", "xy", 1), bitpack.ErrInvalidString,
			"field S at bit 8: invalid UTF-8 at offset 0"},
		{"S NUL", strPacket(1, "abcdefgh\x00jklmnopqrs", "xy", 1), bitpack.ErrInvalidString,
			"field S at bit 8: NUL byte at offset 8"},
		{"S NUL after non-ASCII", strPacket(1, "é\x00", "xy", 1), bitpack.ErrInvalidString,
			"field S at bit 8: NUL byte at offset 2"},
		{"T over maxlen", bitsOf(f{1, 8}, f{20, 5}, raw([]byte(s20)...), f{6, 3}, raw('a', 'b', 'c', 'd', 'e', 'f'), f{0, 3}), bitpack.ErrRange,
			fmt.Sprintf("field T at bit %d: length 6 exceeds maxlen 5", tAt(s20))},
		{"T padding", bitsOf(f{1, 8}, f{20, 5}, raw([]byte(s20)...), f{1, 3}, f{1, 5}, raw('a'), f{0, 3}), bitpack.ErrPadding,
			fmt.Sprintf("field T at bit %d: padding bits 0b1 are not zero", tAt(s20)+3)},
		{"T past the end", bitsOf(f{1, 8}, f{20, 5}, raw([]byte(s20)...), f{5, 3}, raw('a', 'b')), bitpack.ErrOverflow,
			fmt.Sprintf("field T at bit %d: needs 5 bytes, 2 remain", tAt(s20)+8)},
		{"T invalid UTF-8", strPacket(1, s20, "ab\x80", 1), bitpack.ErrInvalidString,
			fmt.Sprintf("field T at bit %d: invalid UTF-8 at offset 2", tAt(s20))},
		{"T NUL", strPacket(1, s20, "abcd\x00", 1), bitpack.ErrInvalidString,
			fmt.Sprintf("field T at bit %d: NUL byte at offset 4", tAt(s20))},
		{"Z past the end", bitsOf(f{1, 8}, f{20, 5}, raw([]byte(s20)...), f{0, 3}, align), bitpack.ErrOverflow,
			fmt.Sprintf("field Z at bit %d: needs 3 bits, 0 remain", tAt(s20)+8)},
		{"a trailing byte", append(strPacket(1, s20, "abcde", 1), 0), bitpack.ErrTrailing,
			fmt.Sprintf("at bit %d: 1 trailing byte after the value", tAt(s20)+8+40+3)},
	}
	prior := strPlan{A: 7, S: "before", T: "old", Z: 2}
	for _, c := range cases {
		// Valid string bytes past the packet, in its capacity: a decoder
		// that reads past the packet's end would take them.
		c.packet = append(c.packet, strings.Repeat("z", 32)...)[:len(c.packet)]
		if _, ok := strOracle(c.packet, true); ok {
			t.Fatalf("%s: the oracle accepts the packet", c.name)
		}
		for path, got := range strPaths(c.packet, prior) {
			msg := c.msg
			if path == "read program" && c.is == bitpack.ErrTrailing { // P's presence bit
				msg = strings.Replace(msg, fmt.Sprint(tAt(s20)+51), fmt.Sprint(tAt(s20)+51+1), 1)
			}
			if !errors.Is(got.err, c.is) || got.err == nil || !strings.HasSuffix(got.err.Error(), msg) {
				t.Errorf("%s, %s: %v\nwant %v ending %q", c.name, path, got.err, c.is, msg)
			}
			if !reflect.DeepEqual(got.v, prior) {
				t.Errorf("%s, %s: a refused packet changed the value to %+v", c.name, path, got.v)
			}
		}
	}
}

// TestStringPathsAgree holds every path to the oracle on valid packets
// (ASCII, multi-byte, empty and full-length strings) and on every bit
// flip, truncation and extension of them, and on random bytes: the same
// verdict, the oracle's value when accepted, the prior value when not.
func TestStringPathsAgree(t *testing.T) {
	texts := []string{"", "a", "abcdefgh", "abcdefghijklmnopqrst", "héllo wörld", "日本語", "🎮x", "Ωmega-7", "0123456789abcdef"}
	tails := []string{"", "x", "abcde", "é", "日"}
	var packets [][]byte
	for i, s := range texts {
		for j, tl := range tails {
			good := strPacket(uint8(i*20), s, tl, uint8(j))
			packets = append(packets, good, append(bytes.Clone(good), 0))
			for n := range len(good) {
				// Valid string bytes past its end, in its capacity: a
				// decoder that reads past the packet would accept them.
				packets = append(packets, append(bytes.Clone(good[:n]), strings.Repeat("z", 32)...)[:n])
			}
			for bit := range 8 * len(good) {
				bad := bytes.Clone(good)
				bad[bit/8] ^= 1 << (bit % 8)
				packets = append(packets, bad)
			}
		}
	}
	r := rand.New(rand.NewPCG(31, 1))
	for range 3000 {
		p := make([]byte, r.IntN(40))
		for i := range p {
			p[i] = byte(r.IntN(256))
			if r.IntN(2) == 0 {
				p[i] = "ab\x00\xc3\xa9\xffz"[r.IntN(7)]
			}
		}
		packets = append(packets, p)
	}
	nine := uint8(9)
	priors := []strPlan{{}, {A: 3, S: "abcdefgh", T: "x", Z: 1}, {S: "日本語", T: "abcde", P: &nine}}
	accepted := 0
	for _, p := range packets {
		for k, prior := range priors {
			for path, got := range strPaths(p, prior) {
				want, ok := strOracle(p, path == "read program")
				if path != "read program" {
					want.P = prior.P // strStack has no P
				}
				if ok != (got.err == nil) {
					t.Fatalf("% x, %s, prior %d: accepted %v (%v), the oracle %v", p, path, k, got.err == nil, got.err, ok)
				}
				if !ok {
					want = prior
				} else if k == 0 && path == "read program" {
					accepted++
				}
				if !reflect.DeepEqual(got.v, want) {
					t.Fatalf("% x, %s, prior %d: %+v, want %+v", p, path, k, got.v, want)
				}
			}
		}
	}
	if accepted < 100 {
		t.Fatalf("only %d of %d packets valid: the test exercises too little", accepted, len(packets))
	}
}

// TestStringAllocs: a decode makes the strings that changed in one
// allocation, on the stack and through the scratch value, and none when
// they are as the target holds them; encoding allocates nothing.
func TestStringAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	recs := recordSamples()
	c, err := bitpack.NewCodec[stringRecord]()
	if err != nil {
		t.Fatal(err)
	}
	p0, _ := c.Marshal(&recs[0])
	p1, _ := c.Marshal(&recs[1])
	var back stringRecord
	i := 0
	if n := testing.AllocsPerRun(100, func() {
		i++
		if err := c.Unmarshal([][]byte{p0, p1}[i%2], &back); err != nil {
			t.Fatal(err)
		}
	}); n != 1 {
		t.Errorf("record decode, strings changed: %v allocations, want 1", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = c.Unmarshal(p1, &back) }); n != 0 || back != recs[1] {
		t.Errorf("record decode, strings unchanged: %v allocations (%+v), want 0", n, back)
	}
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf, _ = c.Append(buf[:0], &recs[i%16]) }); n != 0 {
		t.Errorf("record encode: %v allocations, want 0", n)
	}
	// Through the scratch value's read program.
	q0, q1 := strPacket(1, "abcdefghij", "xyz", 1), strPacket(2, "klmnopqrst", "uvw", 2)
	var plan strPlan
	if n := testing.AllocsPerRun(100, func() {
		i++
		if err := bitpack.Unmarshal([][]byte{q0, q1}[i%2], &plan); err != nil {
			t.Fatal(err)
		}
	}); n != 1 {
		t.Errorf("read program decode, strings changed: %v allocations, want 1", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = bitpack.Unmarshal(q1, &plan) }); n != 0 || plan.S != "klmnopqrst" || plan.T != "uvw" {
		t.Errorf("read program decode, strings unchanged: %v allocations (%+v), want 0", n, plan)
	}
}

type (
	strList struct {
		L []string `bits:"maxlen=100,elem.maxlen=3"` // 7-bit count, 2-bit lengths
	}
	strMap struct {
		M map[string]string `bits:"maxlen=4,key.maxlen=4,elem.maxlen=6"` // 3-bit count, 3-bit lengths
	}
	strArray struct {
		A [3]string `bits:"maxlen=4"` // unrolled: three strings of the value's own
	}
	strHeld struct {
		P *strStack
		E []strStack `bits:"maxlen=3"`
	}
)

// strListPacket is a strList of the given elements.
func strListPacket(elems ...string) []byte {
	parts := []any{f{uint64(len(elems)), 7}}
	for _, e := range elems {
		parts = append(parts, f{uint64(len(e)), 2}, raw([]byte(e)...))
	}
	return bitsOf(parts...)
}

// TestStringContainers: strings as slice elements (more than a decode
// holds back at once), map keys and values (made as they are read: an
// entry is copied into the map), an unrolled array's, a pointee's and a
// slice of structs' decode like a value's own, and each refusal names the
// element, leaving the value as it was.
func TestStringContainers(t *testing.T) {
	checkStringSlice(t)
	checkStringMap(t)
	checkStringArray(t)
	checkStringPointeeAndStructs(t)
}

// checkStringSlice: a []string of 100 elements round-trips, and a bad
// element is refused by its index and bit.
func checkStringSlice(t *testing.T) {
	elems := make([]string, 100)
	for i := range elems {
		elems[i] = fmt.Sprintf("%c%02d", 'a'+i%26, i)
	}
	elems[7] = "é"
	elems[8] = ""
	good := strListPacket(elems...)
	var l strList
	if err := bitpack.Unmarshal(good, &l); err != nil || !reflect.DeepEqual(l.L, elems) {
		t.Fatalf("[]string: %v, %q", err, l.L)
	}
	if back, err := bitpack.Marshal(&l); err != nil || !bytes.Equal(back, good) {
		t.Fatalf("[]string encodes to % x (%v), want % x", back, err, good)
	}
	// The count takes bits 0-6, element 0 bits 7-39 (a 2-bit length,
	// padding, 3 bytes), each next one 32 bits but elements 7 ("é": 24)
	// and 8 ("": 8): element k > 8 starts at bit 40 + 32(k-1) - 8 - 24.
	bitOf := func(k int) int { return 40 + 32*(k-1) - 8 - 24 }
	for _, c := range []struct {
		name string
		k    int
		elem string
		msg  string
	}{
		{"NUL", 70, "a\x00b", "NUL byte at offset 1"},
		{"invalid UTF-8", 99, "ab\xff", "invalid UTF-8 at offset 2"},
		{"cut character", 9, "ab\xe2", "invalid UTF-8 at offset 2"},
	} {
		bad := slicesClone(elems)
		bad[c.k] = c.elem
		prior := strList{L: slicesClone(elems[:50])}
		v := strList{L: slicesClone(elems[:50])}
		err := bitpack.Unmarshal(strListPacket(bad...), &v)
		want := fmt.Sprintf("field L[%d] at bit %d: %s", c.k, bitOf(c.k), c.msg)
		if !errors.Is(err, bitpack.ErrInvalidString) || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("[]string %s: %v, want ...%q", c.name, err, want)
		}
		if !reflect.DeepEqual(v, prior) {
			t.Errorf("[]string %s: a refused packet changed the value", c.name)
		}
	}
}

// checkStringMap: map keys and values decode, and each refusal names the
// key or value.
func checkStringMap(t *testing.T) {
	// Map: count 2, then "ab" -> "x", "cd" -> "yz" (3-bit lengths, aligned).
	entry := func(k, v string) []any {
		return []any{f{uint64(len(k)), 3}, raw([]byte(k)...), f{uint64(len(v)), 3}, raw([]byte(v)...)}
	}
	mapPacket := func(entries ...[]any) []byte {
		parts := []any{f{uint64(len(entries)), 3}}
		for _, e := range entries {
			parts = append(parts, e...)
		}
		return bitsOf(parts...)
	}
	var m strMap
	if err := bitpack.Unmarshal(mapPacket(entry("ab", "x"), entry("cd", "yz")), &m); err != nil || !reflect.DeepEqual(m.M, map[string]string{"ab": "x", "cd": "yz"}) {
		t.Fatalf("map: %v, %q", err, m.M)
	}
	for _, c := range []struct {
		name   string
		packet []byte
		is     error
		msg    string
	}{
		// entry 0 is bits 3..40 ("ab" at 8, "x" at 32); entry 1's key at 40.
		{"key NUL", mapPacket(entry("ab", "x"), entry("c\x00", "yz")), bitpack.ErrInvalidString, `field M[key 1] at bit 40: NUL byte at offset 1`},
		{"key invalid", mapPacket(entry("\xc3", "x")), bitpack.ErrInvalidString, `field M[key 0] at bit 3: invalid UTF-8 at offset 0`},
		{"value invalid", mapPacket(entry("ab", "x"), entry("cd", "y\xff")), bitpack.ErrInvalidString, `field M["cd"] at bit 64: invalid UTF-8 at offset 1`},
		{"value over maxlen", mapPacket(entry("ab", "abcdefg")), bitpack.ErrRange, `field M["ab"] at bit 24: length 7 exceeds maxlen 6`},
		{"keys out of order", mapPacket(entry("cd", "x"), entry("ab", "yz")), bitpack.ErrRange, `field M at bit 40: key "ab" does not follow key "cd"`},
	} {
		v := strMap{M: map[string]string{"old": "v"}}
		err := bitpack.Unmarshal(c.packet, &v)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("map %s: %v, want %q", c.name, err, c.msg)
		}
		if !reflect.DeepEqual(v.M, map[string]string{"old": "v"}) {
			t.Errorf("map %s: a refused packet changed the value to %q", c.name, v.M)
		}
	}
}

// checkStringArray: an unrolled array of strings decodes, and its bad
// element is refused by index and bit.
func checkStringArray(t *testing.T) {
	// An unrolled array, decoded on the stack.
	if !bitpack.DecodesOnStack(reflect.TypeFor[strArray]()) {
		t.Errorf("strArray does not decode on the stack")
	}
	arr := bitsOf(f{2, 3}, raw('a', 'b'), f{0, 3}, align, f{4, 3}, raw('w', 'x', 'y', 'z'))
	var a strArray
	if err := bitpack.Unmarshal(arr, &a); err != nil || a.A != [3]string{"ab", "", "wxyz"} {
		t.Fatalf("array: %v, %q", err, a.A)
	}
	arrBad := bitsOf(f{2, 3}, raw('a', 'b'), f{0, 3}, align, f{4, 3}, raw('w', 0, 'y', 'z'))
	if err := bitpack.Unmarshal(arrBad, &a); !errors.Is(err, bitpack.ErrInvalidString) || !strings.HasSuffix(err.Error(), "field A[2] at bit 32: NUL byte at offset 1") || a.A != [3]string{"ab", "", "wxyz"} {
		t.Errorf("array: %v, %q", err, a.A)
	}
}

// checkStringPointeeAndStructs: strings in a pointee and in a slice of
// structs.
func checkStringPointeeAndStructs(t *testing.T) {
	// A pointee's strings and a slice of structs' strings, through the
	// scratch value's read program.
	h := strHeld{P: &strStack{A: 1, S: "pointee", T: "é"}, E: []strStack{{S: "e0"}, {S: "e1", T: "日"}, {A: 200, S: "abcdefghijklmnopqrst", T: "abcde", Z: 7}}}
	packet, err := bitpack.Marshal(&h)
	if err != nil {
		t.Fatal(err)
	}
	var back strHeld
	if err := bitpack.Unmarshal(packet, &back); err != nil || !reflect.DeepEqual(back, h) {
		t.Fatalf("pointee and slice: %v, %+v", err, back)
	}
	i := bytes.Index(packet, []byte("abcdefghijklmnopqrst"))
	packet[i+19] = 0xff
	prior := strHeld{P: &strStack{S: "old"}}
	v := strHeld{P: &strStack{S: "old"}}
	if err := bitpack.Unmarshal(packet, &v); !errors.Is(err, bitpack.ErrInvalidString) || !strings.Contains(err.Error(), "field E[2].S at bit") ||
		!strings.HasSuffix(err.Error(), "invalid UTF-8 at offset 19") || !reflect.DeepEqual(v, prior) {
		t.Errorf("slice of structs: %v, %+v", err, v)
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

type deltaText struct {
	Name string `bits:"maxlen=5"` // 3-bit length
	Tag  string `bits:"maxlen=20"`
}

// TestStringDeltaRefusals: a delta's changed string is checked as a
// packet's: length, padding, its bytes there, UTF-8, NUL; and a refused
// delta leaves the value as it was.
func TestStringDeltaRefusals(t *testing.T) {
	base := &deltaText{Name: "a", Tag: "t"}
	// root 1; Name 1, its length in 3 bits (bits 2-4), padding to 8, bytes;
	// then Tag's bit. A refusal of the string itself names the bit its
	// length starts at (after the changed bit); that it equals the base's,
	// the bit of the item.
	good := bitsOf(f{1, 1}, f{1, 1}, f{2, 3}, raw('b', 'c'), f{0, 1})
	var v deltaText
	if err := bitpack.UnmarshalDelta(good, base, &v); err != nil || v != (deltaText{Name: "bc", Tag: "t"}) {
		t.Fatalf("delta: %v, %+v", err, v)
	}
	if got, err := bitpack.AppendDelta(nil, base, &deltaText{Name: "bc", Tag: "t"}); err != nil || !bytes.Equal(got, good) {
		t.Fatalf("AppendDelta = % x, %v; want % x", got, err, good)
	}
	for _, c := range []struct {
		name   string
		packet []byte
		is     error
		msg    string
	}{
		{"over maxlen", bitsOf(f{1, 1}, f{1, 1}, f{6, 3}, raw('a', 'b', 'c', 'd', 'e', 'f'), f{0, 1}), bitpack.ErrRange, "field Name at bit 2: length 6 exceeds maxlen 5"},
		{"padding", bitsOf(f{1, 1}, f{1, 1}, f{2, 3}, f{1, 3}, raw('b', 'c'), f{0, 1}), bitpack.ErrPadding, "field Name at bit 5: padding bits 0b1 are not zero"},
		{"past the end", bitsOf(f{1, 1}, f{1, 1}, f{5, 3}, raw('b', 'c')), bitpack.ErrOverflow, "field Name at bit 8: needs 5 bytes, 2 remain"},
		{"invalid UTF-8", bitsOf(f{1, 1}, f{1, 1}, f{2, 3}, raw('b', 0x80), f{0, 1}), bitpack.ErrInvalidString, "field Name at bit 2: invalid UTF-8 at offset 1"},
		{"NUL", bitsOf(f{1, 1}, f{1, 1}, f{2, 3}, raw(0, 'c'), f{0, 1}), bitpack.ErrInvalidString, "field Name at bit 2: NUL byte at offset 0"},
		{"the base's", bitsOf(f{1, 1}, f{1, 1}, f{1, 3}, raw('a'), f{0, 1}), bitpack.ErrRange, "field Name at bit 1"},
		{"Tag NUL", bitsOf(f{1, 1}, f{0, 1}, f{1, 1}, f{3, 5}, raw('x', 0, 'y')), bitpack.ErrInvalidString, "field Tag at bit 3: NUL byte at offset 1"},
		{"trailing byte", append(bytes.Clone(good), 0), bitpack.ErrTrailing, "1 trailing byte after the value"},
	} {
		v := deltaText{Name: "kept", Tag: "kept"}
		err := bitpack.UnmarshalDelta(c.packet, base, &v)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v %q", c.name, err, c.is, c.msg)
		}
		if v != (deltaText{Name: "kept", Tag: "kept"}) {
			t.Errorf("%s: a refused delta changed the value to %+v", c.name, v)
		}
	}
}

// TestStringsConcurrent: goroutines decoding values with strings at once
// each get their own packet's strings (the strings a decode holds back
// belong to its scratch value; run with -race).
func TestStringsConcurrent(t *testing.T) {
	const workers = 8
	done := make(chan error, workers)
	for g := range workers {
		go func() {
			s := fmt.Sprintf("worker-%02d-name", g)
			p := strPacket(uint8(g), s, "t"+fmt.Sprint(g%10), 1)
			var v strPlan
			for range 500 {
				if err := bitpack.Unmarshal(p, &v); err != nil || v.S != s || v.T != "t"+fmt.Sprint(g%10) {
					done <- fmt.Errorf("worker %d: %+v, %v", g, v, err)
					return
				}
			}
			done <- nil
		}()
	}
	for range workers {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

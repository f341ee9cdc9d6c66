package bitpacktest

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// invPacket is one map, so that packets are written by hand: a 3-bit
// count, then 8-bit keys and 16-bit values.
type invPacket struct {
	M map[uint8]uint16 `bits:"maxlen=5"`
}

// TestFuzzBodyMaps: bitpack passes the fuzz checks for maps — on the
// corpus, random inputs, and packets with keys out of order or repeated,
// which it must refuse leaving the pre-filled maps as they were.
func TestFuzzBodyMaps(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[mapKinds](), reflect.TypeFor[mapTree](), reflect.TypeFor[invPacket]()} {
		fz := newTestFuzzer(t, typ)
		corpus := fz.corpus(nil)
		failures, panics := runFuzzBody(fz, append(corpus, randomInputs(corpus, 3000, 120)...))
		for _, err := range failures {
			t.Errorf("%s: %v", typ, err)
		}
		for _, p := range panics {
			t.Errorf("%s: panic: %s", typ, p)
		}
	}
	fz := newTestFuzzer(t, reflect.TypeFor[invPacket]())
	for _, tc := range []struct {
		name   string
		packet []byte
	}{
		// count 2 = 010, key 9, value 500, key 2, value 7 (LSB first).
		{"unsorted", packBits(2, 3, 9, 8, 500, 16, 2, 8, 7, 16)},
		{"duplicate", packBits(2, 3, 2, 8, 7, 16, 2, 8, 7, 16)},
		{"duplicate after a sorted pair", packBits(3, 3, 1, 8, 0, 16, 2, 8, 0, 16, 2, 8, 0, 16)},
	} {
		var v invPacket
		if err := bitpack.Unmarshal(tc.packet, &v); !errors.Is(err, bitpack.ErrRange) {
			t.Errorf("%s: Unmarshal(%x) = %v, want ErrRange", tc.name, tc.packet, err)
		}
		for i, pf := range fz.prefills {
			if err := fz.checkInto(pf, tc.packet); err != nil {
				t.Errorf("%s, into pre-filled value %d: %v", tc.name, i, err)
			}
		}
	}
	sorted := packBits(2, 3, 2, 8, 7, 16, 9, 8, 500, 16)
	for i, pf := range fz.prefills {
		if err := fz.checkInto(pf, sorted); err != nil {
			t.Errorf("sorted, into pre-filled value %d: %v", i, err)
		}
	}
}

// packBits writes (value, width) pairs least significant bit first, as
// bitpack's writer does, and pads to whole bytes.
func packBits(pairs ...uint64) []byte {
	var out []byte
	var acc uint64
	n := 0
	for i := 0; i < len(pairs); i += 2 {
		v, w := pairs[i], int(pairs[i+1])
		for b := 0; b < w; b++ {
			acc |= (v >> b & 1) << n
			n++
			if n == 8 {
				out = append(out, byte(acc))
				acc, n = 0, 0
			}
		}
	}
	if n > 0 {
		out = append(out, byte(acc))
	}
	return out
}

// TestPackBits: the hand-written packets above follow the wire.
func TestPackBits(t *testing.T) {
	v := invPacket{M: map[uint8]uint16{9: 500, 2: 7}}
	b, err := bitpack.Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}
	if want := packBits(2, 3, 2, 8, 7, 16, 9, 8, 500, 16); string(b) != string(want) {
		t.Fatalf("Marshal = %x, packBits = %x", b, want)
	}
}

// TestAllocBoundMap: a map's bound, by hand (see mapBound), and full maps
// of the largest keys and values decode within it.
func TestAllocBoundMap(t *testing.T) {
	type strs struct {
		M map[uint16]string `bits:"maxlen=10,elem.maxlen=20"`
	}
	type wide struct {
		M map[uint8]wideVal `bits:"maxlen=3"`
	}
	for _, tc := range []struct {
		typ          reflect.Type
		want, want32 int64 // on a 64-bit platform, and a 32-bit one
	}{
		// A slot is {uint16; string}, 24 bytes, and a control byte: 25;
		// tables 2048 + (16 + 8×10)×25 = 4448; buffers 3×(2 + 16) + 512;
		// strings 10×(20 + 64). On 32 bits a string is 8 bytes, aligned
		// to 4: a slot 4 + 8 + 1 = 13, tables 2048 + 96×13 = 3296, buffers
		// 3×(2 + 8) + 512.
		{reflect.TypeFor[strs](), 4448 + 566 + 840, 3296 + 542 + 840},
		// The 4097-byte value is stored apart (4097 + 1024 + 16 = 5137,
		// in both maps): a slot is {uint8; *wideVal}, 16 bytes, and a
		// control byte: 17; tables 2048 + (16 + 8×3)×17 = 2728; buffers
		// 3×(1 + 4097) + 512. On 32 bits the pointer is 4 bytes, aligned
		// to 4: a slot 4 + 4 + 1 = 9, tables 2048 + 40×9 = 2408.
		{reflect.TypeFor[wide](), 2728 + 2*3*5137 + 12806, 2408 + 2*3*5137 + 12806},
	} {
		fz := newTestFuzzer(t, tc.typ)
		if strconv.IntSize == 32 {
			tc.want = tc.want32
		}
		if fz.bound != tc.want+allocSlack {
			t.Errorf("%s: bound %d, want %d", tc.typ, fz.bound-allocSlack, tc.want)
		}
	}
	if raceEnabled {
		t.Skip("allocations are not measured under the race detector")
	}
	// Full maps, decoded into each pre-filled value (nil maps and
	// small ones, which grow): check measures the first 64 calls.
	type big struct {
		M map[uint16]uint64   `bits:"maxlen=5000"`
		S map[string][]string `bits:"maxlen=6,key.maxlen=30,elem.maxlen=3,elem.elem.maxlen=40"`
	}
	x := big{M: map[uint16]uint64{}, S: map[string][]string{}}
	for k := range 5000 {
		x.M[uint16(k)*13] = math.MaxUint64 - uint64(k)
	}
	for k := range 6 {
		x.S[strings.Repeat(string(rune('a'+k)), 30)] = []string{strings.Repeat("x", 40), strings.Repeat("y", 40), strings.Repeat("z", 40)}
	}
	packet, err := bitpack.Marshal(&x)
	if err != nil {
		t.Fatal(err)
	}
	fz := newTestFuzzer(t, reflect.TypeFor[big]())
	grown := 0
	for i, pf := range fz.prefills {
		if err := fz.checkInto(pf, packet); err != nil {
			t.Fatalf("into pre-filled value %d: %v", i, err)
		}
		if pf.value.Field(0).Len() > 0 {
			grown++
		}
	}
	if grown == 0 {
		t.Fatal("no pre-filled value had entries in M: no decode copied into a map that grows")
	}
}

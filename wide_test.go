package bitpack_test

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// Fields of 57 to 64 bits are read from the packet's window with two loads
// of 32 bits, the second one from the packet's last 8 bytes when the field
// ends there. wideStack decodes on the stack, widePlan (a pointer after
// the same wire: its presence bit fits the last byte) through the scratch
// value's read program.

type wideStack struct {
	A uint8 `bits:"bits=5"`
	U uint64
	S string `bits:"maxlen=3"`
	V float64
	W int64 `bits:"bits=60"`
}

type widePlan struct {
	A uint8 `bits:"bits=5"`
	U uint64
	S string `bits:"maxlen=3"`
	V float64
	W int64 `bits:"bits=60"`
	P *uint8
}

// TestWideFields: every position of the packet's end against the two wide
// fields before it, by truncation, and every bit flip: both paths give the
// oracle's verdict, and its values when accepted (a bit flip inside a raw
// field changes only that field).
func TestWideFields(t *testing.T) {
	if !bitpack.DecodesOnStack(reflect.TypeFor[wideStack]()) || bitpack.DecodesOnStack(reflect.TypeFor[widePlan]()) {
		t.Fatal("wideStack must decode on the stack, widePlan not")
	}
	v := wideStack{A: 21, U: 0xfedcba9876543210, S: "ab", V: math.Pi, W: -1 << 59}
	// A in bits 0-4, U 5-68, S's length 69-70 and padding 71, its bytes
	// 72-87, V 88-151, W 152-211; then padding, or P's bit (212): 27 bytes.
	want := bitsOf(f{21, 5}, f{0xfedcba9876543210, 64}, f{2, 2}, raw('a', 'b'), f{math.Float64bits(math.Pi), 64}, f{1 << 59, 60})
	got, err := bitpack.Marshal(&v)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Marshal = % x, %v; want % x", got, err, want)
	}
	for n := 0; n <= len(want); n++ {
		p := append(bytes.Clone(want[:n]), strings.Repeat("\xff", 16)...)[:n] // bytes past the end that would pass
		var s, off wideStack
		var q widePlan
		errS, errOff, errQ := bitpack.Unmarshal(p, &s), bitpack.UnmarshalOffStack(p, &off), bitpack.Unmarshal(p, &q)
		if ok := n == len(want); ok != (errS == nil) || ok != (errQ == nil) || fmt.Sprint(errS) != fmt.Sprint(errOff) {
			t.Fatalf("%d of %d bytes: %v, %v, %v", n, len(want), errS, errOff, errQ)
		}
		// 8 bytes hold the window's load at U, not U (bits 5-68).
		if u := "field U at bit 5: needs 64 bits, 59 remain"; n == 8 && (!strings.HasSuffix(errS.Error(), u) || !strings.HasSuffix(errQ.Error(), u)) {
			t.Fatalf("8 bytes: %v, %v; want ...%s", errS, errQ, u)
		}
		if n == len(want) && (s != v || q != (widePlan{A: v.A, U: v.U, S: v.S, V: v.V, W: v.W})) {
			t.Fatalf("decoded %+v and %+v, want %+v", s, q, v)
		}
	}
	plan := func(w wideStack) widePlan { return widePlan{A: w.A, U: w.U, S: w.S, V: w.V, W: w.W} }
	for bit := range 8 * len(want) {
		p := bytes.Clone(want)
		p[bit/8] ^= 1 << (bit % 8)
		var s, off wideStack
		var q widePlan
		errS, errOff, errQ := bitpack.Unmarshal(p, &s), bitpack.UnmarshalOffStack(p, &off), bitpack.Unmarshal(p, &q)
		if fmt.Sprint(errS) != fmt.Sprint(errOff) || s != off {
			t.Fatalf("bit %d: on the stack %v, %+v; through the scratch value %v, %+v", bit, errS, s, errOff, off)
		}
		exp, ok, okPlan := v, true, true
		switch {
		case bit < 5:
			exp.A ^= 1 << bit
		case bit < 69:
			exp.U ^= 1 << (bit - 5)
		case bit < 72: // S's length or padding: whatever follows decides
			continue
		case bit < 88: // S's bytes: still a string unless a high bit is set
			exp.S = string(p[9:11])
			ok, okPlan = bit%8 != 7, bit%8 != 7
		case bit < 152:
			exp.V = math.Float64frombits(math.Float64bits(v.V) ^ 1<<(bit-88))
		case bit < 212:
			exp.W = int64((uint64(v.W)^1<<(bit-152))<<4) >> 4
		default: // the last byte's padding; widePlan's P, then padding
			okPlan = bit != 212
		}
		if ok != (errS == nil) || okPlan != (errQ == nil) {
			t.Fatalf("bit %d: %v, %v; want accepted %v, %v", bit, errS, errQ, ok, okPlan)
		}
		if ok && s != exp || okPlan && q != plan(exp) {
			t.Fatalf("bit %d: %+v, %+v; want %+v", bit, s, q, exp)
		}
	}
}

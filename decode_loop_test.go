package bitpack_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// rpMsg has a step of each kind the decoder's read loop runs without a
// call (see decode_loop.go): a run, a [N]byte after padding, a raw run at a byte
// boundary, a pointer to a flat pointee (its presence bit read with the
// pointee's first run), and a run after it.
type rpMsg struct {
	X uint8 `bits:"bits=3"`
	B [3]byte
	R [4]uint32
	P *fpInner
	Y uint16 `bits:"range=0..1000"`
}

// rpWire is rpMsg{X: 5, B: {1, 2, 3}, R: {...}, P: &{A: 100, B: 0xbeef},
// Y: 999} on the wire, written down field by field: 25 bytes.
func rpWire(pad uint64) []byte {
	return bitsOf(f{5, 3}, f{pad, 5}, f{1, 8}, f{2, 8}, f{3, 8},
		f{0x11223344, 32}, f{0x55667788, 32}, f{0x99aabbcc, 32}, f{0xddeeff00, 32},
		f{1, 1}, f{100, 7}, f{0xbeef, 16}, f{999, 10})
}

// TestReadLoopSteps: each step of the read loop decodes the bytes' values
// wherever it falls in the packet (away from its end, the loop's own
// path; within its last 8 bytes or past it, through the Reader), and a
// refusal names the field and bit it did before the loop.
func TestReadLoopSteps(t *testing.T) {
	want := rpMsg{X: 5, B: [3]byte{1, 2, 3}, R: [4]uint32{0x11223344, 0x55667788, 0x99aabbcc, 0xddeeff00}, P: &fpInner{A: 100, B: 0xbeef}, Y: 999}
	wire := rpWire(0)
	if len(wire) != 25 {
		t.Fatalf("wire is %d bytes", len(wire))
	}
	if got, err := bitpack.Marshal(&want); err != nil || string(got) != string(wire) {
		t.Fatalf("Marshal = %x, %v; want %x", got, err, wire)
	}
	// The same value after 0 to 9 bytes of a []byte before it: every step
	// falls at every distance from the packet's end.
	type outer struct {
		Pre []byte `bits:"maxlen=9"`
		M   rpMsg
	}
	for n := 0; n <= 9; n++ {
		pre := make([]byte, n)
		for i := range pre {
			pre[i] = byte(0xa0 + i)
		}
		packet := append(bitsOf(f{uint64(n), 4}, f{0, -1}), pre...)
		packet = append(packet, wire...)
		var got outer
		if err := bitpack.Unmarshal(packet, &got); err != nil || !bytes.Equal(got.Pre, pre) || !reflect.DeepEqual(got.M, want) {
			t.Errorf("after %d bytes: %+v, %v", n, got, err)
		}
	}

	// An absent pointee: its presence bit only, and the field set to nil.
	absent := bitsOf(f{5, 3}, f{0, 5}, f{1, 8}, f{2, 8}, f{3, 8},
		f{0x11223344, 32}, f{0x55667788, 32}, f{0x99aabbcc, 32}, f{0xddeeff00, 32},
		f{0, 1}, f{999, 10})
	got := rpMsg{P: &fpInner{A: 1}}
	if err := bitpack.Unmarshal(absent, &got); err != nil || got.P != nil || got.Y != 999 {
		t.Errorf("absent pointee: %+v, %v", got, err)
	}

	var e *bitpack.Error
	for _, c := range []struct {
		name   string
		packet []byte
		err    error
		path   string
		bit    int
	}{
		{"padding bit set", rpWire(0b00100), bitpack.ErrPadding, "B", 3},
		{"cut in B", wire[:3], bitpack.ErrOverflow, "B", 8},
		{"cut in R", wire[:10], bitpack.ErrOverflow, "R[1]", 64},
		{"cut in P's run", wire[:21], bitpack.ErrOverflow, "P.B", 168},
		{"cut in Y", wire[:24], bitpack.ErrOverflow, "Y", 184},
		{"P.A out of range", bitsOf(f{5, 3}, f{0, 5}, f{1, 8}, f{2, 8}, f{3, 8},
			f{0x11223344, 32}, f{0x55667788, 32}, f{0x99aabbcc, 32}, f{0xddeeff00, 32},
			f{1, 1}, f{101, 7}, f{0xbeef, 16}, f{999, 10}), bitpack.ErrRange, "P.A", 161},
	} {
		keep := rpMsg{X: 1, P: &fpInner{A: 2}}
		got := keep
		err := bitpack.Unmarshal(c.packet, &got)
		if !errors.As(err, &e) || !errors.Is(err, c.err) || e.Path != c.path || e.Bit != c.bit {
			t.Errorf("%s: %v; want %v at %s, bit %d", c.name, err, c.err, c.path, c.bit)
		}
		if !reflect.DeepEqual(got, keep) {
			t.Errorf("%s: the target changed: %+v", c.name, got)
		}
	}
}

// TestReadLoopPointeeRuns: a pointee of two runs (the first read with the
// presence bit by the gate, the second a step of its own) decodes, and a
// field out of range in the second is refused with the pointer's path,
// its bit, and the target untouched.
func TestReadLoopPointeeRuns(t *testing.T) {
	type msg struct {
		S *gpStats
		Z uint8 `bits:"range=0..9"`
	}
	wire := func(score uint64) []byte {
		return bitsOf(f{1, 1}, f{975, 11}, f{1500, 11}, f{620, 10}, f{12, 10}, f{3, 10}, f{score, 18}, f{48, 10}, f{2, 2}, f{4, 4})
	}
	want := msg{S: &gpStats{Health: 875, Armor: 1500, Stamina: 620, Kills: 12, Deaths: 3, Score: -4200, Ping: 48, Team: 2}, Z: 4}
	for range 3 { // the first decode allocates the pointee, the others reuse it
		var got msg
		if err := bitpack.Unmarshal(wire(95800), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("Unmarshal = %+v, %v", got, err)
		}
	}
	keep := msg{Z: 1}
	got := keep
	var e *bitpack.Error
	if err := bitpack.Unmarshal(wire(250000), &got); !errors.As(err, &e) || !errors.Is(err, bitpack.ErrRange) || e.Path != "S.Score" || e.Bit != 53 {
		t.Fatalf("Score code 250000: %v; want a range error at S.Score, bit 53", err)
	}
	if !reflect.DeepEqual(got, keep) {
		t.Errorf("the target changed: %+v", got)
	}
}

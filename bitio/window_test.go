package bitio

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"github.com/bitpack-go/bitpack/internal/bitwindow"
	"github.com/bitpack-go/bitpack/quant"
)

// TestWindowField: bitpack finds a Reader's window by this field's name
// and type (its unsafe.go panics when they change).
func TestWindowField(t *testing.T) {
	f, ok := reflect.TypeFor[Reader]().FieldByName("win")
	if !ok || f.Type != reflect.TypeFor[bitwindow.Window]() {
		t.Fatalf("Reader has no field win of type bitwindow.Window: %v", f)
	}
}

// checkWindow fails t unless r keeps what package bitwindow says bitio
// keeps true of a Reader over packet.
func checkWindow(t *testing.T, r *Reader, packet []byte, step string) {
	t.Helper()
	if r.err != nil {
		if r.win.Data != nil {
			t.Fatalf("after %s: error %v recorded, window still holds %d bytes", step, r.err, len(r.win.Data))
		}
		return
	}
	if len(r.win.Data) != len(packet) || len(packet) > 0 && unsafe.SliceData(r.win.Data) != unsafe.SliceData(packet) {
		t.Fatalf("after %s: window of %d bytes is not the packet's %d", step, len(r.win.Data), len(packet))
	}
	if r.end != 8*len(r.win.Data) {
		t.Fatalf("after %s: end %d, 8*len(Data) %d", step, r.end, 8*len(r.win.Data))
	}
	if r.win.Pos < 0 || r.win.Pos > r.end || r.win.Pos != r.BitsRead() {
		t.Fatalf("after %s: Pos %d, BitsRead %d, end %d", step, r.win.Pos, r.BitsRead(), r.end)
	}
}

// TestWindowContract runs random sequences of every kind of read,
// successful and failing, checking the window after each.
func TestWindowContract(t *testing.T) {
	q, err := quant.NewQuat(9)
	if err != nil {
		t.Fatal(err)
	}
	qf, err := quant.NewFloat(-1, 1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ops := []struct {
		name string
		do   func(r *Reader)
	}{
		{"ReadBits", func(r *Reader) { r.ReadBits(rng.IntN(70) - 2) }},
		{"ReadBool", func(r *Reader) { r.ReadBool() }},
		{"Skip", func(r *Reader) { r.Skip(rng.IntN(40) - 3) }},
		{"Rewind", func(r *Reader) { r.Rewind(rng.IntN(r.BitsRead() + 3)) }},
		{"ReadInt", func(r *Reader) { r.ReadInt(int64(rng.IntN(9)-4), int64(rng.IntN(9)-4)) }},
		{"ReadUint", func(r *Reader) { r.ReadUint(uint64(rng.IntN(300)), uint64(rng.IntN(300))) }},
		{"ReadFloat32", func(r *Reader) { r.ReadFloat32() }},
		{"ReadQuantized", func(r *Reader) { r.ReadQuantized(&qf) }},
		{"ReadIntRelative", func(r *Reader) { r.ReadIntRelative(int32(rng.IntN(100))) }},
		{"Align", func(r *Reader) { r.Align() }},
		{"ReadBytes", func(r *Reader) { r.ReadBytes(make([]byte, rng.IntN(5))) }},
		{"ReadString", func(r *Reader) { r.ReadString(rng.IntN(6)) }},
		{"ReadQuat", func(r *Reader) { r.ReadQuat(&q) }},
		{"ReadUints", func(r *Reader) { ReadUints(r, make([]uint16, rng.IntN(4)), rng.IntN(18)) }},
		{"Fail", func(r *Reader) {
			if rng.IntN(8) == 0 {
				r.Fail(errors.New("refused"))
			}
		}},
	}
	for round := range 3000 {
		packet := make([]byte, rng.IntN(24))
		for i := range packet {
			packet[i] = byte(rng.Uint32())
		}
		r := NewReader(packet)
		checkWindow(t, r, packet, "NewReader")
		for range 12 {
			op := ops[rng.IntN(len(ops))]
			op.do(r)
			checkWindow(t, r, packet, op.name)
		}
		if round%100 == 0 {
			r.Reset(packet)
			checkWindow(t, r, packet, "Reset")
		}
	}
}

// TestWindowPos: setting Pos, as the decoder does after its read loop,
// moves the Reader there.
func TestWindowPos(t *testing.T) {
	packet := []byte{0x12, 0x34, 0x56, 0x78, 0x9a}
	for pos := 0; pos <= 8*len(packet); pos++ {
		r := NewReader(packet)
		r.win.Pos = pos
		n := min(8, 8*len(packet)-pos)
		var want uint64
		for i := range n { // the packet's bits from pos on, least significant first
			bit := pos + i
			want |= uint64(packet[bit/8]>>(bit%8)&1) << i
		}
		if got := r.ReadBits(n); got != want || r.BitsRead() != pos+n || r.Err() != nil {
			t.Errorf("Pos %d: ReadBits(%d) = %#x at bit %d, %v; want %#x at bit %d", pos, n, got, r.BitsRead(), r.Err(), want, pos+n)
		}
	}
}

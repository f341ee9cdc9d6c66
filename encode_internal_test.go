package bitpack

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
)

// TestFloat32Bounds: the encode program tests a float32 field against its
// bounds in float32 (ceil32 and floor32 of the float64 bounds); for every
// float32 near the bounds the verdict must be the float64 one's.
func TestFloat32Bounds(t *testing.T) {
	for _, b := range [][3]float64{{-1024, 1024, 0.01}, {-0.1, 0.1, 0.001}, {0, 1, 0.3}, {-3.3, 7.7, 0.05}, {1e-3, 2e-3, 1e-6}, {-1, 1, 0.0001}, {0.1, 0.7, 0.003}, {-1e-7, 3.3e-7, 1e-9}} {
		p := prepareQuantizer(32, b[0], b[1], b[2])
		if p.err != nil {
			t.Fatal(p.err)
		}
		lo, hi := ceil32(p.lo), floor32(p.hi)
		// The encoder codes the values it accepts with QuantizeInRange,
		// which is specified from the quantizer's min up.
		if lo < p.q32.Min() || hi > max(p.q32.Max(), p.q32.Dequantize(p.q32.MaxCode())) {
			t.Fatalf("bounds %v: [%v, %v] outside the quantizer's [%v, decoded max %v]", b, lo, hi, p.q32.Min(), p.q32.Dequantize(p.q32.MaxCode()))
		}
		for _, edge := range []float64{p.lo, p.hi} {
			at := math.Float32bits(float32(edge))
			for d := uint32(0); d < 1<<12; d++ {
				for _, f := range []float32{math.Float32frombits(at + d), math.Float32frombits(at - d)} {
					want := float64(f) >= p.lo && float64(f) <= p.hi
					if got := f >= lo && f <= hi; got != want {
						t.Fatalf("bounds %v: %v accepted=%v in float32, %v in float64 (lo %v hi %v)", b, f, got, want, p.lo, p.hi)
					}
				}
			}
		}
	}
}

type encodeGroupsGrunt struct {
	ID     uint16     `bits:"range=0..2047"`
	Pos    [3]float32 `bits:"float,min=-1024,max=1024,res=0.1"`
	Health uint8      `bits:"range=1..100"`
	Name   string     `bits:"maxlen=8"`
	Quat   [4]float32 `bits:"quat,bits=9"`
	Wide   [4]float32 `bits:"quat,bits=21"`
	Flags  [5]uint16
}

// TestEncodeGroups pins how the encode program packs fields: greedily into
// groups of at most 64 bits, a float vector or a run of like integers as
// one step, every other op a step of its own (ending the group before it).
func TestEncodeGroups(t *testing.T) {
	p, err := planOf(reflect.TypeFor[encodeGroupsGrunt]())
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		kind               uint8
		shift, count, bits uint8
		last               bool
	}
	want := []step{
		{accU16, 0, 1, 0, false},
		{accQ32, 11, 3, 0, false}, // 15 bits each: one step
		{accU8, 56, 1, 63, true},
		{accString, 0, 0, 0, false}, // the string: a step of its own
		{accQuat, 0, 0, 29, true},   // 2 + 3×9 bits, alone: an op follows
		{accOp, 0, 0, 0, false},     // the 2 + 3×21-bit quaternion takes more than a word
		{accRun, 0, 4, 64, true},    // Flags, unrolled: four fill a word, as one step...
		{accU16, 0, 1, 16, true},    // ...and the fifth starts the next
	}
	var got []step
	for _, st := range p.enc {
		got = append(got, step{st.kind, st.shift, st.count, st.groupBits, st.last})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("encode program:\n got %v\nwant %v", got, want)
	}
}

type encodeOpsPacket struct {
	A uint8 `bits:"range=0..3"`
	B [5]byte
	C []uint16 `bits:"maxlen=9"`
	D []uint16 `bits:"maxlen=9,bits=10"`
}

// TestEncodeOpSteps: byte arrays and slices of raw full-width integers are
// steps the encode program runs itself; other ops go to encodeOp.
func TestEncodeOpSteps(t *testing.T) {
	p, err := planOf(reflect.TypeFor[encodeOpsPacket]())
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		kind        uint8
		limit       uint64
		width, size uint8
	}
	want := []step{
		{accU8, 3, 2, 1},
		{accBytes, 5, 0, 0},
		{accRaw, 9, 4, 2}, // length in 4 bits, elements of 2 bytes
		{accOp, 0, 0, 0},  // 10-bit elements: encodeElems
	}
	var got []step
	for _, st := range p.enc {
		got = append(got, step{st.kind, st.limit, st.width, st.size})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("encode program:\n got %v\nwant %v", got, want)
	}
	v := encodeOpsPacket{A: 2, B: [5]byte{1, 2, 3, 4, 5}, C: []uint16{0xabcd, 7}, D: []uint16{1023}}
	b, err := Marshal(&v)
	// A (2 bits), pad, B, then len(C) = 2 in 4 bits, C's two 16-bit
	// elements, len(D) = 1 in 4 bits and D[0] in 10.
	wantBytes := []byte{0x02, 1, 2, 3, 4, 5, 0xd2, 0xbc, 0x7a, 0x00, 0x10, 0xff, 0x03}
	if err != nil || !reflect.DeepEqual(b, wantBytes) {
		t.Errorf("Marshal = % x, %v\nwant % x", b, err, wantBytes)
	}
	v.C = make([]uint16, 10)
	if _, err := Marshal(&v); err == nil || err.Error() != "bitpack: encode bitpack.encodeOpsPacket: field C: slice of 10 elements exceeds maxlen 9" {
		t.Errorf("too long: %v", err)
	}
}

type columnInner struct {
	A uint8 `bits:"range=0..5"`
	B int16
}

type columnElem struct {
	ID    uint16     `bits:"range=0..2047"`
	Pos   [3]float32 `bits:"float,min=-100,max=100,res=0.01"`
	Neg   int8       `bits:"range=-100..27"`
	Raw   int32
	Wide  uint64
	Small int16 `bits:"bits=5"`
	On    bool
	Rot   [4]float32 `bits:"quat,bits=10"`
	Big   float64    `bits:"float,min=-1,max=1,res=0.001"`
	In    *columnInner
	Name  string     `bits:"maxlen=5"`
	Vel   [2]float32 `bits:"float,min=-1,max=1,res=0.1,clamp"`
	Ammo  [5]int32   `bits:"range=-3..200"`
	Bytes [3]uint8
}

func randomColumnElem(r *rand.Rand) columnElem {
	e := columnElem{
		ID:    uint16(r.IntN(2048)),
		Neg:   int8(r.IntN(128) - 100),
		Raw:   r.Int32() - r.Int32(),
		Wide:  r.Uint64(),
		Small: int16(r.IntN(32) - 16),
		On:    r.IntN(2) == 1,
		Big:   r.Float64()*2 - 1,
		Name:  "abcde"[:r.IntN(6)],
		Vel:   [2]float32{float32(r.Float64()*4 - 2), float32(r.Float64()*4 - 2)}, // clamped beyond ±1
	}
	for i := range e.Pos {
		e.Pos[i] = float32(r.Float64()*200 - 100)
	}
	q := [4]float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	for i := range q {
		e.Rot[i] = float32(q[i] / n)
	}
	for i := range e.Ammo {
		e.Ammo[i] = int32(r.IntN(204) - 3)
	}
	e.Bytes = [3]uint8{uint8(r.Int()), uint8(r.Int()), uint8(r.Int())}
	if r.IntN(3) > 0 {
		e.In = &columnInner{A: uint8(r.IntN(6)), B: int16(r.Int())}
	}
	return e
}

// TestColumnsMatchValues: a slice long enough for encodeColumns (and
// longer than one chunk) encodes to the same bits as encodeValues writing
// the elements one by one, for every kind of step, at every start offset;
// and a refused element is reported by index in wire order, whichever
// column finds a refusal first.
func TestColumnsMatchValues(t *testing.T) {
	p, err := planOf(reflect.TypeFor[columnElem]())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{columnMin, 5, 63, 64, 65, 200, 1000} {
		elems := make([]columnElem, n)
		for i := range elems {
			elems[i] = randomColumnElem(r)
		}
		// Valid values pass the column pass itself: otherwise every chunk
		// would fall back to encodeValues and this test compare it with
		// itself.
		codes := make([]uint64, n*p.groups)
		if !fillColumns(p, codes, pointerTo(&elems[0]), reflect.TypeFor[columnElem]().Size(), n) {
			t.Fatalf("n=%d: fillColumns refuses valid values", n)
		}
		for lead := 0; lead < 8; lead += 3 {
			var want, got bitio.Writer
			want.WriteBits(0, lead)
			got.WriteBits(0, lead)
			first := pointerTo(&elems[0])
			stride := reflect.TypeFor[columnElem]().Size()
			if err, k := encodeValues(&want, p, first, stride, n, 0); err != nil {
				t.Fatalf("n=%d: encodeValues: element %d: %v", n, k, err)
			}
			if err, k := encodeColumns(&got, p, first, stride, n, 0); err != nil {
				t.Fatalf("n=%d: encodeColumns: element %d: %v", n, k, err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) || got.BitsWritten() != want.BitsWritten() {
				t.Fatalf("n=%d lead=%d: encodeColumns wrote %d bits %x\nencodeValues wrote %d bits %x", n, lead, got.BitsWritten(), got.Bytes(), want.BitsWritten(), want.Bytes())
			}
		}
	}

	// Element 150 has a bad float; 170 a bad ID, whose column comes first.
	elems := make([]columnElem, 400)
	for i := range elems {
		elems[i] = randomColumnElem(r)
	}
	elems[150].Pos[2] = 100.5
	elems[170].ID = 2048
	elems[390].Neg = 28
	elems[390].Ammo[3] = -4 // after Neg on the wire
	_, err = Marshal(&struct {
		E []columnElem `bits:"maxlen=1000"`
	}{elems})
	var ve *Error
	if !errors.As(err, &ve) || ve.Path != "E[150].Pos[2]" {
		t.Fatalf("error %v, want one for E[150].Pos[2]", err)
	}
	elems[150].Pos[2], elems[170].ID = 0, 2047
	_, err = Marshal(&struct {
		E []columnElem `bits:"maxlen=1000"`
	}{elems})
	if !errors.As(err, &ve) || ve.Path != "E[390].Neg" { // in a later chunk
		t.Fatalf("error %v, want one for E[390].Neg", err)
	}
	one := elems[390]
	_, err = Marshal(&one) // a single value: encodeValues' run step
	if !errors.As(err, &ve) || ve.Path != "Neg" {
		t.Fatalf("error %v, want one for Neg", err)
	}
	one.Neg = 27
	_, err = Marshal(&one)
	if !errors.As(err, &ve) || ve.Path != "Ammo[3]" || ve.Detail != "value -4 out of range [-3, 200]" {
		t.Fatalf("error %v, want value -4 out of range for Ammo[3]", err)
	}
	elems[390].Neg = 27
	_, err = Marshal(&struct {
		E []columnElem `bits:"maxlen=1000"`
	}{elems})
	if !errors.As(err, &ve) || ve.Path != "E[390].Ammo[3]" || ve.Detail != "value -4 out of range [-3, 200]" { // inside a run of integers
		t.Fatalf("error %v, want value -4 out of range for E[390].Ammo[3]", err)
	}
}

type columnSlice struct {
	E []columnElem `bits:"maxlen=300"`
}

// FuzzEncodeColumns: any slice of elements a packet decodes to encodes to
// the same bits through encodeColumns as through encodeValues, at any bit
// offset; and with one element spoiled, both report the same error for
// the same element.
func FuzzEncodeColumns(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{4, 9, 70} {
		v := columnSlice{E: make([]columnElem, n)}
		for i := range v.E {
			v.E[i] = randomColumnElem(r)
		}
		packet, err := Marshal(&v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(packet, uint8(3), uint16(2))
	}
	p, err := planOf(reflect.TypeFor[columnElem]())
	if err != nil {
		f.Fatal(err)
	}
	stride := reflect.TypeFor[columnElem]().Size()
	f.Fuzz(func(t *testing.T, packet []byte, lead uint8, spoil uint16) {
		var v columnSlice
		if Unmarshal(packet, &v) != nil || len(v.E) == 0 {
			return
		}
		run := func() (*bitio.Writer, *bitio.Writer, *fieldError, *fieldError, int, int) {
			var a, b bitio.Writer
			a.WriteBits(0, int(lead%64))
			b.WriteBits(0, int(lead%64))
			ea, ka := encodeValues(&a, p, pointerTo(&v.E[0]), stride, len(v.E), 0)
			eb, kb := encodeColumns(&b, p, pointerTo(&v.E[0]), stride, len(v.E), 0)
			return &a, &b, ea, eb, ka, kb
		}
		a, b, ea, eb, _, _ := run()
		if ea != nil || eb != nil {
			t.Fatalf("a decoded slice does not encode: %v / %v", ea, eb)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) || a.BitsWritten() != b.BitsWritten() {
			t.Fatalf("encodeColumns wrote %x, encodeValues %x", b.Bytes(), a.Bytes())
		}
		// Spoil one field of one element: an ID, a position, an ammo count.
		e := &v.E[int(spoil)%len(v.E)]
		switch spoil % 3 {
		case 0:
			e.ID = 2048 + spoil
		case 1:
			e.Pos[spoil%3] = float32(math.NaN())
		default:
			e.Ammo[spoil%5] = 201
		}
		_, _, ea, eb, ka, kb := run()
		if ea == nil || eb == nil || ka != kb || ea.Error() != eb.Error() {
			t.Fatalf("spoiled element: encodeValues %v at %d, encodeColumns %v at %d", ea, ka, eb, kb)
		}
	})
}

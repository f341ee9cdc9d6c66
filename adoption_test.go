package bitpack_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
)

type (
	stringList struct {
		L []string `bits:"maxlen=4,elem.maxlen=15"`
	}
	blobList struct {
		L [][]byte `bits:"maxlen=2,elem.maxlen=3"`
	}
	nestedStrings struct {
		L [][]string `bits:"maxlen=2,elem.maxlen=2,elem.elem.maxlen=7"`
	}
	stringArray struct {
		A [2]string `bits:"maxlen=7"` // arrays hand maxlen down, as before
	}
	clamped struct {
		A uint8 `bits:"range=0..200,clamp"`
		B int8  `bits:"range=-5..5,clamp"`
	}
	clampedRun struct {
		R [4]uint8 `bits:"range=0..9,clamp"`
	}
	clampedRow struct {
		V int16 `bits:"range=-100..100,clamp"`
		W uint8 `bits:"bits=3,clamp"`
	}
	clampedRows struct {
		Rows []clampedRow `bits:"maxlen=8"`
	}
	timed struct {
		D time.Duration `bits:"range=0..1000,unit=1ms"`
	}
	scaled struct {
		S int32  `bits:"range=-10..10,unit=100"`
		U uint16 `bits:"bits=4,unit=1000"`
	}
)

// TestElemOptions: elem. options reach elements (strings of a []string,
// byte slices of a [][]byte), nest, and combine with the options handed
// down; misplaced or doubled ones are tag errors that say what to do.
func TestElemOptions(t *testing.T) {
	for _, tc := range []struct {
		in, out any
		want    []byte
	}{
		// length 2 in 3 bits (bit 1); "ab": length 2 in 4 bits (bit 4),
		// align, 61 62; "": length 0, align.
		{&stringList{L: []string{"ab", ""}}, &stringList{}, []byte{0x12, 0x61, 0x62, 0x00}},
		// length 2 in 2 bits (bit 1); {1, 2}: length 2 in 2 bits (bit 3),
		// align, 01 02; {}: length 0, align.
		{&blobList{L: [][]byte{{1, 2}, nil}}, &blobList{}, []byte{0x0a, 0x01, 0x02, 0x00}},
		// length 1 in 2 bits (bit 0); inner length 1 in 2 bits (bit 2);
		// "hi": length 2 in 3 bits (bit 5), align, 68 69.
		{&nestedStrings{L: [][]string{{"hi"}}}, &nestedStrings{}, []byte{0x25, 0x68, 0x69}},
		// "a": 3 bits (bit 0), align, 61; "": 3 bits, align.
		{&stringArray{A: [2]string{"a", ""}}, &stringArray{}, []byte{0x01, 0x61, 0x00}},
	} {
		got, err := bitpack.Marshal(tc.in)
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("%T: %x, %v; want %x", tc.in, got, err, tc.want)
			continue
		}
		if err := bitpack.Unmarshal(got, tc.out); err != nil || !reflect.DeepEqual(normalize(tc.in), normalize(tc.out)) {
			t.Errorf("%T back: %+v, %v", tc.in, tc.out, err)
		}
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{struct {
			L []string `bits:"maxlen=4"`
		}{}, `tag "maxlen=4": the string elements of []string need a maxlen of their own: add elem.maxlen=N to the tag, e.g. bits:"maxlen=4,elem.maxlen=32"`},
		{struct {
			L [][]byte `bits:"maxlen=4"`
		}{}, `tag "maxlen=4": the []uint8 elements of [][]uint8 need a maxlen of their own: add elem.maxlen=N to the tag, e.g. bits:"maxlen=4,elem.maxlen=16"`},
		{struct {
			L []int16 `bits:"maxlen=4,range=0..9,elem.range=0..5"`
		}{}, `tag "maxlen=4,range=0..9,elem.range=0..5": range given both for the field and with the elem. prefix`},
		{struct {
			A int16 `bits:"elem.range=0..5"`
		}{}, `tag "elem.range=0..5": elem. does not apply to int16`},
		{struct {
			L []string `bits:"maxlen=4,elem.maxlen=x"`
		}{}, `tag "maxlen=4,elem.maxlen=x": elem.: maxlen=x is not a count (0..2147483647)`},
	} {
		_, err := bitpack.Marshal(tc.v)
		var te *bitpack.TagError
		if !errors.As(err, &te) || !bytes.HasSuffix([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("%T: %v\nwant …%s", tc.v, err, tc.want)
		}
	}
}

// normalize makes nil and empty slices alike (they are alike on the wire).
func normalize(v any) any {
	return reflect.ValueOf(v).Elem().Interface()
}

// TestIntegerClamp: with clamp, an integer outside its range encodes as
// the nearer bound (in a lone field, a run of like fields, and the column
// encoder's slices); without it, it is refused.
func TestIntegerClamp(t *testing.T) {
	// A = 250 → 200 in 8 bits (c8); B = -9 → -5: code 0 in 4 bits.
	got, err := bitpack.Marshal(&clamped{A: 250, B: -9})
	if err != nil || !bytes.Equal(got, []byte{0xc8, 0x00}) {
		t.Fatalf("clamped: %x, %v; want c800", got, err)
	}
	var back clamped
	if err := bitpack.Unmarshal(got, &back); err != nil || back != (clamped{A: 200, B: -5}) {
		t.Fatalf("clamped back: %+v, %v", back, err)
	}
	if got, err := bitpack.Marshal(&clamped{A: 0, B: 100}); err != nil || !bytes.Equal(got, []byte{0x00, 0x0a}) {
		t.Fatalf("B = 100 → 5 (code 10): %x, %v; want 000a", got, err)
	}
	// {1, 12, 3, 255} → codes 1, 9, 3, 9 in 4 bits each.
	if got, err := bitpack.Marshal(&clampedRun{R: [4]uint8{1, 12, 3, 255}}); err != nil || !bytes.Equal(got, []byte{0x91, 0x93}) {
		t.Fatalf("clamped run: %x, %v; want 9193", got, err)
	}
	// Rows go through the column encoder (4 or more): the same bytes as
	// encoding each row alone.
	rows := clampedRows{}
	for i, v := range []int16{-300, 50, 101, 7, 32767} {
		row := clampedRow{V: v, W: uint8(i * 3)}
		rows.Rows = append(rows.Rows, row)
	}
	got, err = bitpack.Marshal(&rows)
	if err != nil {
		t.Fatal(err)
	}
	var back2 clampedRows
	if err := bitpack.Unmarshal(got, &back2); err != nil {
		t.Fatal(err)
	}
	wantRows := []clampedRow{{-100, 0}, {50, 3}, {100, 6}, {7, 7}, {100, 7}}
	if !reflect.DeepEqual(back2.Rows, wantRows) {
		t.Fatalf("rows back %v, want %v", back2.Rows, wantRows)
	}
	type strict struct {
		A uint8 `bits:"range=0..200"`
	}
	if _, err := bitpack.Marshal(&strict{A: 250}); err == nil || err.Error() != "bitpack: encode bitpack_test.strict: field A: value 250 out of range [0, 200]" {
		t.Errorf("without clamp: %v", err)
	}
	type bad struct {
		A uint8 `bits:"clamp"`
	}
	if _, err := bitpack.Marshal(&bad{}); err == nil || err.Error() != `bitpack: type bitpack_test.bad field A: tag "clamp": clamp needs what to clamp to: a compressed float (float,min=,max=,res=) or an integer range (range= or bits=)` {
		t.Errorf("clamp alone: %v", err)
	}
}

// TestUnits: unit= sends an integer in units (a time.Duration in any Go
// duration, other integers a count), rounded to the nearest unit, half
// away from zero; the round trip is the rounded value.
func TestUnits(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want []byte
		back time.Duration
	}{
		{1500 * time.Microsecond, []byte{0x02, 0x00}, 2 * time.Millisecond},    // 1.5 ms → 2
		{2400 * time.Microsecond, []byte{0x02, 0x00}, 2 * time.Millisecond},    // 2.4 ms → 2
		{1000 * time.Millisecond, []byte{0xe8, 0x03}, 1000 * time.Millisecond}, // 1000: 10 bits
		{499 * time.Microsecond, []byte{0x00, 0x00}, 0},
	} {
		got, err := bitpack.Marshal(&timed{D: tc.in})
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("%v: %x, %v; want %x", tc.in, got, err, tc.want)
			continue
		}
		var back timed
		if err := bitpack.Unmarshal(got, &back); err != nil || back.D != tc.back {
			t.Errorf("%v back: %v, %v; want %v", tc.in, back.D, err, tc.back)
		}
	}
	// S = -150 → -1.5 units of 100 → -2: code 8 in 5 bits; U = 2500 →
	// 2.5 units of 1000 → 3 in 4 bits, from bit 5.
	got, err := bitpack.Marshal(&scaled{S: -150, U: 2500})
	if want := []byte{0x08 | 3<<5, 0x00}; err != nil || !bytes.Equal(got, want) {
		t.Fatalf("scaled: %x, %v; want %x", got, err, want)
	}
	var back scaled
	if err := bitpack.Unmarshal(got, &back); err != nil || back != (scaled{S: -200, U: 3000}) {
		t.Fatalf("scaled back: %+v, %v", back, err)
	}
	if _, err := bitpack.Marshal(&timed{D: 5 * time.Second}); err == nil || err.Error() != "bitpack: encode bitpack_test.timed: field D: value 5s is 5000 units of 1ms, out of range [0, 1000]" {
		t.Errorf("5s: %v", err)
	}
	l, err := bitpack.Describe(&timed{})
	if err != nil || l.Root.Fields[0].Encoding() != "int [0, 1000] × 1ms" || l.Schema() != "{r0..1000*1000000}" {
		t.Errorf("layout: %q, schema %q, %v", l.Root.Fields[0].Encoding(), l.Schema(), err)
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{struct {
			A int16 `bits:"range=0..1000,unit=100"`
		}{}, `tag "range=0..1000,unit=100": values [0, 1000] in units of 100 do not fit int16`},
		{struct {
			D time.Duration `bits:"range=0..10,unit=1000"`
		}{}, `tag "range=0..10,unit=1000": unit=1000 is not a positive Go duration (e.g. unit=1ms)`},
		{struct {
			A int32 `bits:"range=0..10,unit=1ms"`
		}{}, `tag "range=0..10,unit=1ms": unit=1ms is not a positive count (a Go duration such as 1ms is for time.Duration fields)`},
		{struct {
			D time.Duration `bits:"unit=1ms"`
		}{}, `tag "unit=1ms": unit=1ms needs range= or bits= (in units) to say how the value travels`},
	} {
		_, err := bitpack.Marshal(tc.v)
		var te *bitpack.TagError
		if !errors.As(err, &te) || !bytes.HasSuffix([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("%T: %v\nwant …%s", tc.v, err, tc.want)
		}
	}
}

// TestTagKeyTypos: a struct tag key one edit from bits is a tag error
// (bit:"range=0..10" used to be ignored: the field travelled as raw 32
// bits); other keys are left alone.
func TestTagKeyTypos(t *testing.T) {
	type (
		bit struct {
			A int32 `bit:"range=0..10"`
		}
		capital struct {
			A int32 `json:"a" Bits:"range=0..10"`
		}
		bitz struct {
			A int32 `bitz:"range=0..10"`
		}
		bist struct {
			A int32 `bist:"range=0..10"`
		}
		bytes struct {
			A int32 `byte:"x" json:"a,omitempty" gobits:"y"`
		}
	)
	for _, tc := range []struct {
		v   any
		key string
	}{{bit{}, "bit"}, {capital{}, "Bits"}, {bitz{}, "bitz"}, {bist{}, "bist"}} {
		_, err := bitpack.Describe(tc.v)
		var te *bitpack.TagError
		want := `struct tag key "` + tc.key + `" looks like a misspelt bits: bitpack reads only bits:"...", so the field would travel as if untagged; spell it bits`
		if !errors.As(err, &te) || te.Field != "A" || te.Problem != want {
			t.Errorf("%T: %v\nwant problem %s", tc.v, err, want)
		}
	}
	if _, err := bitpack.Describe(bytes{}); err != nil {
		t.Errorf("keys two edits away: %v", err)
	}
}

// TestReferenceWriterOverflow: a compressed float whose largest value the
// C++ reference writer would code past M (M = 2^23 + 1: float32(M + 0.5)
// rounds to even, 8388610) is a tag error; M = 2^23 is fine.
func TestReferenceWriterOverflow(t *testing.T) {
	type over struct {
		A float32 `bits:"float,min=0,max=8388609,res=1"`
	}
	type fine struct {
		A float32 `bits:"float,min=0,max=8388608,res=1"`
	}
	_, err := bitpack.Describe(over{})
	want := `bitpack: type bitpack_test.over field A: tag "float,min=0,max=8388609,res=1": 8388609 steps: serialize's C++ writer codes the largest value as floor(float32(M + 0.5)) = 8388610, past M, so a C++ client could not write it; use a coarser res`
	if err == nil || err.Error() != want {
		t.Errorf("%v\nwant %s", err, want)
	}
	if _, err := bitpack.Describe(fine{}); err != nil {
		t.Errorf("M = 2^23: %v", err)
	}
}

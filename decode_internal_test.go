package bitpack

import (
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
)

type decodeRuns struct {
	Pos  [3]float32 `bits:"float,min=0,max=10,res=0.01"` // M = 1000: 10 bits each
	Ammo [4]int16   `bits:"range=-3..200"`               // 8 bits each
	On   bool
}

// twoBits is a hook: a type holding one commits a hook value too.
type twoBits struct{ V uint8 }

func (x *twoBits) MarshalBits(w *bitio.Writer) error { w.WriteBits(uint64(x.V), 2); return w.Err() }
func (x *twoBits) UnmarshalBits(r *bitio.Reader) error {
	x.V = uint8(r.ReadBits(2))
	return r.Err()
}

// decodeRunsHook is decodeRuns with a hook after it.
type decodeRunsHook struct {
	decodeRuns
	Extra twoBits
}

// TestDecodeRuns pins how a fused run's like fields share one scalar entry
// (one dispatch for a vector or an array of counters), and that a code out
// of range inside such an entry is reported for its own element and bit,
// leaving the target as it was, with or without a hook beside the run.
func TestDecodeRuns(t *testing.T) {
	p, err := planOf(reflect.TypeFor[decodeRuns]())
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		access, shift, count, width uint8
	}
	want := []entry{
		{accQ32, 0, 3, 10}, // Pos: 30 bits
		{accI16, 30, 3, 8}, // Ammo[0..2]: 24 more, 54 of fuseBits' 56...
		{accI16, 0, 1, 8},  // ...so Ammo[3] starts the next run
		{accU8, 8, 1, 1},   // On (a bool is stored as a byte)
	}
	var got []entry
	for _, sc := range p.scalars {
		got = append(got, entry{sc.access, sc.shift, sc.count, sc.width})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scalars:\n got %v\nwant %v", got, want)
	}
	// Compressed float64 fields each keep an entry of their own.
	p64, err := planOf(reflect.TypeFor[struct {
		V [2]float64 `bits:"float,min=0,max=1,res=0.01"`
	}]())
	if err != nil || len(p64.scalars) != 2 || p64.scalars[0].count != 1 || p64.scalars[1].count != 1 {
		t.Errorf("float64 vector: %d entries, %v; want 2 of count 1", len(p64.scalars), err)
	}

	codes := func(pos [3]uint64, ammo [4]uint64, hook bool) []byte {
		var w bitio.Writer
		for _, c := range pos {
			w.WriteBits(c, 10)
		}
		for _, c := range ammo {
			w.WriteBits(c, 8)
		}
		w.WriteBits(1, 1) // On
		if hook {
			w.WriteBits(0, 2)
		}
		return w.Bytes()
	}
	tests := []struct {
		name       string
		pos        [3]uint64
		ammo       [4]uint64
		field, msg string
	}{
		{"second float", [3]uint64{5, 1001, 7}, [4]uint64{}, "Pos[1]", "at bit 10: compressed float code 1001 out of range [0, 1000]"},
		{"third float", [3]uint64{5, 6, 1023}, [4]uint64{}, "Pos[2]", "at bit 20: compressed float code 1023 out of range [0, 1000]"},
		{"second counter", [3]uint64{}, [4]uint64{0, 204, 0, 0}, "Ammo[1]", "at bit 38: value 201 out of range [-3, 200]"},
		{"last counter of the run", [3]uint64{}, [4]uint64{0, 0, 255, 0}, "Ammo[2]", "at bit 46: value 252 out of range [-3, 200]"},
		{"counter in the next run", [3]uint64{}, [4]uint64{0, 0, 0, 250}, "Ammo[3]", "at bit 54: value 247 out of range [-3, 200]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a decodeRuns
			a.Ammo[3] = 99
			err := Unmarshal(codes(tt.pos, tt.ammo, false), &a)
			if want := "bitpack: decode bitpack.decodeRuns: field " + tt.field + " " + tt.msg; !errors.Is(err, ErrRange) || err.Error() != want {
				t.Errorf("%v\nwant %s", err, want)
			}
			if a != (decodeRuns{Ammo: [4]int16{3: 99}}) {
				t.Errorf("the target changed: %+v", a)
			}
			var b decodeRunsHook
			b.Ammo[3] = 99
			err = Unmarshal(codes(tt.pos, tt.ammo, true), &b)
			if want := "bitpack: decode bitpack.decodeRunsHook: field decodeRuns." + tt.field + " " + tt.msg; !errors.Is(err, ErrRange) || err.Error() != want {
				t.Errorf("with a hook: %v\nwant %s", err, want)
			}
			if b != (decodeRunsHook{decodeRuns: decodeRuns{Ammo: [4]int16{3: 99}}}) {
				t.Errorf("with a hook, the target changed: %+v", b)
			}
		})
	}

	// And a valid packet decodes, every element in its place.
	wantValue := decodeRuns{Pos: [3]float32{0, 5, 10}, Ammo: [4]int16{-3, 0, 200, 97}, On: true}
	var a decodeRuns
	if err := Unmarshal(codes([3]uint64{0, 500, 1000}, [4]uint64{0, 3, 203, 100}, false), &a); err != nil || a != wantValue {
		t.Errorf("%+v, %v\nwant %+v", a, err, wantValue)
	}
	var b decodeRunsHook
	if err := Unmarshal(codes([3]uint64{0, 500, 1000}, [4]uint64{0, 3, 203, 100}, true), &b); err != nil || b.decodeRuns != wantValue {
		t.Errorf("with a hook: %+v, %v\nwant %+v", b, err, wantValue)
	}
}

// TestRawRunsPlanned: which fields fuse makes raw runs of (TestRawRuns
// checks what they decode to).
func TestRawRunsPlanned(t *testing.T) {
	type msg struct {
		A   uint8
		S   [4]uint32 // a raw run
		One [1]uint64 // alone: a fused run
		B   [3]uint16 // three fit one fused run, with Sep
		Sep bool
		C   [4]uint16 // a raw run
		R   [2]uint32 `bits:"range=0..100"` // checked: fused
	}
	p, err := planOf(reflect.TypeFor[msg]())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range p.ops {
		if o := &p.ops[i]; o.group > 0 {
			kind := "fused"
			if o.rawRun {
				kind = "raw"
			}
			got = append(got, o.path+" "+kind+" "+strconv.Itoa(int(o.group)))
		}
	}
	want := []string{"A fused 1", "S[0] raw 4", "One[0] fused 1", "B[0] fused 4", "C[0] raw 4", "R[0] fused 2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("runs %q, want %q", got, want)
	}
}

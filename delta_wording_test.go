package bitpack_test

import (
	"errors"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// A delta decoder refuses a change the same way whichever of its paths
// decodes the field: the inline one (a value's own fields, a flat list
// element with its widest form in the packet) or the field's kind (an
// unrolled array's elements, a flat list element near the packet's end).

type dwElem struct {
	A uint32 `bits:"range=0..100000"` // 17 bits; the short form has 8 (h = 128)
}

type dwArray struct{ L [2]dwElem } // unrolled: its element's field is its parent's op

type dwSlice struct {
	L []dwElem `bits:"maxlen=2"`
}

type dwSigned struct {
	T int16 `bits:"range=-40..80"` // 7 bits: codes 0..120 of 0..127
}

type dwFloat struct {
	F float32 `bits:"float,min=0,max=10,res=0.01"` // 10 bits: codes 0..1000
}

// dwPacket writes bits (value, width pairs) and pads them to pad bytes.
func dwPacket(t *testing.T, pad int, bits ...int) []byte {
	t.Helper()
	var w bitio.Writer
	for i := 0; i < len(bits); i += 2 {
		w.WriteBits(uint64(bits[i]), bits[i+1])
	}
	for w.BitsWritten() < 8*pad {
		w.WriteBits(0, 1)
	}
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	return w.Bytes()
}

func TestDeltaRefusalWordedOnce(t *testing.T) {
	const (
		below  = "change -128 from code 5 leaves the range [0, 100000]"
		above  = "change +128 from code 99990 leaves the range [0, 100000]"
		past   = "value 131071 out of range [0, 100000]"
		signed = "value 87 out of range [-40, 80]"
		float  = "compressed float code 1023 out of range [0, 1000]"
	)
	low, high := dwElem{A: 5}, dwElem{A: 99990}
	// The field's part: the short form (0, then e in 8 bits: d = e - 128
	// below 0, e - 127 above) or the long form (1, then the code).
	short0, short255, long := []int{0, 1, 0, 8}, []int{0, 1, 255, 8}, []int{1, 1, 131071, 17}
	// Prefixes: the root's changed bit; an unrolled array's element 0 (its
	// index as int_relative from -1: 1); a slice not resized (0), element 0.
	root, array, slice := []int{1, 1}, []int{1, 1, 1, 1}, []int{1, 1, 0, 1, 1, 1}
	cat := func(parts ...[]int) []int {
		var all []int
		for _, p := range parts {
			all = append(all, p...)
		}
		return all
	}
	for _, c := range []struct {
		name       string
		base, into any
		packet     []byte
		path       string
		bit        int
		overflow   bool
		detail     string
	}{
		{"root, below 0", &low, new(dwElem), dwPacket(t, 2, cat(root, short0)...), "A", 1, false, below},
		{"root, past the limit", &high, new(dwElem), dwPacket(t, 2, cat(root, short255)...), "A", 1, false, above},
		{"root, long form", &low, new(dwElem), dwPacket(t, 3, cat(root, long)...), "A", 1, false, past},
		{"root, cut in the short form", &low, new(dwElem), dwPacket(t, 1, cat(root, []int{0, 1})...), "A", 2, true, "needs 8 bits, 6 remain"},
		{"unrolled array, below 0", &dwArray{L: [2]dwElem{low, low}}, new(dwArray), dwPacket(t, 2, cat(array, short0)...), "L[0].A", 2, false, below},
		{"unrolled array, past the limit", &dwArray{L: [2]dwElem{high, high}}, new(dwArray), dwPacket(t, 2, cat(array, short255)...), "L[0].A", 2, false, above},
		{"unrolled array, long form", &dwArray{L: [2]dwElem{low, low}}, new(dwArray), dwPacket(t, 3, cat(array, long)...), "L[0].A", 2, false, past},
		{"unrolled array, cut in the short form", &dwArray{L: [2]dwElem{low, low}}, new(dwArray), dwPacket(t, 1, cat(array, []int{0, 1})...), "L[0].A", 3, true, "needs 8 bits, 5 remain"},
		// 13 bits after the element's start: fewer than its widest form
		// (18), so its kind decodes it; with 4 bytes, the window does.
		{"slice near the end, below 0", &dwSlice{L: []dwElem{low, low}}, new(dwSlice), dwPacket(t, 2, cat(slice, short0)...), "L[0].A", 3, false, below},
		{"slice, below 0", &dwSlice{L: []dwElem{low, low}}, new(dwSlice), dwPacket(t, 4, cat(slice, short0)...), "L[0].A", 3, false, below},
		{"slice near the end, past the limit", &dwSlice{L: []dwElem{high, high}}, new(dwSlice), dwPacket(t, 2, cat(slice, short255)...), "L[0].A", 3, false, above},
		{"slice, past the limit", &dwSlice{L: []dwElem{high, high}}, new(dwSlice), dwPacket(t, 4, cat(slice, short255)...), "L[0].A", 3, false, above},
		{"slice, long form", &dwSlice{L: []dwElem{low, low}}, new(dwSlice), dwPacket(t, 4, cat(slice, long)...), "L[0].A", 3, false, past},
		{"slice, cut in the short form", &dwSlice{L: []dwElem{low, low}}, new(dwSlice), dwPacket(t, 1, cat(slice, []int{0, 1})...), "L[0].A", 4, true, "needs 8 bits, 4 remain"},
		// Long forms of other kinds past their limits, as storeScalar words them.
		{"signed, long form", &dwSigned{T: 0}, new(dwSigned), dwPacket(t, 2, 1, 1, 1, 1, 127, 7), "T", 1, false, signed},
		{"float, long form", &dwFloat{F: 0.05}, new(dwFloat), dwPacket(t, 2, 1, 1, 1, 1, 1023, 10), "F", 1, false, float},
	} {
		err := bitpack.UnmarshalDelta(c.packet, c.base, c.into)
		var e *bitpack.Error
		sentinel := bitpack.ErrRange
		if c.overflow {
			sentinel = bitpack.ErrOverflow
		}
		if !errors.As(err, &e) || !errors.Is(err, sentinel) || e.Path != c.path || e.Bit != c.bit || e.Detail != c.detail {
			t.Errorf("%s: UnmarshalDelta(% x) = %v; want %v of %s at bit %d: %s", c.name, c.packet, err, sentinel, c.path, c.bit, c.detail)
		}
	}
}

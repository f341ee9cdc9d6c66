package bitpack

import "reflect"

// Charge is what the Go decoder charges against its allowances
// (docs/wire.md, "Limits of the Go decoder") for one value of a layout
// node that it allocates or visits on its own: the top-level value, an
// element of a slice or a sparse field, a pointee, a union member, a
// map's key or value, a hook's value (see Field.Charge). The figures come from the
// Go type, at a 64-bit platform's sizes on every platform, so that a
// decoder in another language (the generated clients) charges exactly
// what Go charges, and accepts exactly the packets Go accepts, with
// numbers a generator copies from here.
type Charge struct {
	// Work is the values one value visits, its variable parts aside: 1
	// for each field (a nested struct's fields each; a string, slice,
	// pointer, map, union, hook or quaternion is 1), an array's Len times
	// its element's Work, a sparse array's slots at 1 for each 8 (rounded
	// up); at least 1. A struct, map, union or slice nested in the value
	// (a field or an array's element) that can take no bits counts 64 for
	// itself besides its own values, what one bit pays for (see nodeWork).
	Work int64
	// Bytes is the Go type's size on a 64-bit platform: 8-byte ints,
	// pointers, maps and alignment; 16-byte strings and interfaces,
	// 24-byte slices; padding included (see size64).
	Bytes int64
	// Partial: the value keeps fields off the wire (unexported, or tagged
	// bits:"-"), so a slice of it is charged twice: the decoder grows the
	// caller's slice in place as well as its own.
	Partial bool
}

// size64 is the size of a value of t on a 64-bit platform (amd64, arm64):
// what the allowances charge for it whatever the platform, so that every
// platform (and every language) refuses the same packets. On a 32-bit
// platform a value takes at most this much, so the allowances still bound
// what a decode allocates. Sizes saturate.
func size64(t reflect.Type) int64 {
	size, _ := layout64(t)
	return size
}

// layout64 returns the size and alignment of t on a 64-bit platform, by
// Go's rules: fields at multiples of their alignment, a struct's size a
// multiple of its largest, and one byte more before that rounding for a
// struct of non-zero size whose last field has none (so that its address
// cannot point past the value).
func layout64(t reflect.Type) (size, align int64) {
	switch t.Kind() {
	case reflect.Bool, reflect.Int8, reflect.Uint8:
		return 1, 1
	case reflect.Int16, reflect.Uint16:
		return 2, 2
	case reflect.Int32, reflect.Uint32, reflect.Float32:
		return 4, 4
	case reflect.Complex64:
		return 8, 4
	case reflect.Complex128:
		return 16, 8
	case reflect.String, reflect.Interface:
		return 16, 8
	case reflect.Slice:
		return 24, 8
	case reflect.Array:
		elem, a := layout64(t.Elem())
		return satMul(int64(t.Len()), elem), a
	case reflect.Struct:
		var off int64
		align = 1
		last := int64(-1)
		for i := range t.NumField() {
			fs, fa := layout64(t.Field(i).Type)
			off = satAdd(alignUp(off, fa), fs)
			align, last = max(align, fa), fs
		}
		if last == 0 && off > 0 {
			off++
		}
		return alignUp(off, align), align
	}
	// 64-bit integers and floats, int, uint, uintptr, pointers, maps,
	// channels, functions.
	return 8, 8
}

// alignUp rounds n up to a multiple of a, a power of two.
func alignUp(n, a int64) int64 { return min(n+a-1, saturated) &^ (a - 1) }

// EachCharge is what the Go decoder charges for each element of slice
// node f when the packet gives the slice's length (docs/wire.md, "Limits
// of the Go decoder"): its element's Charge, but with Work at least 64 —
// what one bit of input pays for — when an element can take no bits
// (CountBits 0), since nothing in the packet pays for those (see
// elemWork). The zero Charge for other kinds.
func (f *Field) EachCharge() Charge {
	if f.Kind != KindSlice || f.Elem == nil {
		return Charge{}
	}
	c := f.Elem.Charge
	c.Work = elemWork(c.Work, f.Elem.CountBits)
	return c
}

// chargeOf is the Charge of a value of plan p.
func chargeOf(p *plan) Charge {
	return Charge{Work: p.work, Bytes: p.bytes, Partial: !p.complete}
}

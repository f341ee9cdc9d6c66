package rules

import (
	"fmt"
	"math/bits"
)

// The decoder's allowances (docs/wire.md, "Limits of the Go decoder"):
// what one packet may make a decode visit and allocate, whatever its
// tags allow. bitpack's decoder charges them, and every generated reader
// (C++, C#, TypeScript) charges them alike with these numbers, which gen
// writes into each runtime, so that every language accepts exactly the
// packets Go accepts. The figures of each value charged (its Work, Bytes
// and count figure) are the layout's (bitpack.Field.Charge, CountBits).
const (
	// A decode of b bits may visit WorkBaseValues + WorkValuesPerBit·b
	// values and allocate AllocBaseBytes + AllocBytesPerBit·b bytes.
	WorkBaseValues   = 4096
	WorkValuesPerBit = 64
	AllocBaseBytes   = 1 << 20
	AllocBytesPerBit = 64

	// DecodeOverheadBytes is charged once per allowance, when it starts:
	// the decoder's own bookkeeping and the error it may return.
	DecodeOverheadBytes = 1024
	// HookCallBytes is charged with each hook call besides its value: its
	// Reader, frame and kept result.
	HookCallBytes = 256
	// A map of n entries is charged MapHeaderBytes + MapSlotFactor·n·slot
	// bytes (rounded, twice: the scratch value's map and the caller's),
	// slot being an entry's key, value and control byte; an entry a delta
	// adds, 2·MapSlotFactor·slot.
	MapHeaderBytes = 256
	MapSlotFactor  = 5
	// A sparse slice's n slots visit ⌈n / SlotsPerValue⌉ values and take
	// SlotBytes each (a pointer on a 64-bit platform).
	SlotsPerValue = 8
	SlotBytes     = 8

	// MaxFigure caps the figures a refusal names (a count check's bits
	// and the count figures it multiplies, an allowance's values) and the
	// count figures themselves: 2^53-1, the largest integer a double holds
	// exactly, so that a reader computing in doubles (TypeScript) names
	// the same. Every allowance is far below it, so the cap changes no
	// verdict.
	MaxFigure = 1<<53 - 1

	// Saturated caps every figure and charge: far above anything real (a
	// quarter of int64's range), so a sum of a few never overflows.
	Saturated = 1<<63/4 - 1

	// RoundAlloc's steps (see there): the smallest allocation, the size
	// past which Go allocates whole pages, and the page.
	AllocSmallBytes = 16
	AllocClassLimit = 32 << 10
	AllocPageBytes  = 8 << 10
)

// WorkWords and BytesWords are the allowances as a refusal states them
// ("4096 plus 64 per bit", "1 MiB plus 64 bytes per bit"), in Go's
// refusals and, through gen, every runtime's.
var (
	WorkWords  = fmt.Sprintf("%d plus %d per bit", WorkBaseValues, WorkValuesPerBit)
	BytesWords = fmt.Sprintf("%s plus %d bytes per bit", sizeWords(AllocBaseBytes), AllocBytesPerBit)
)

// sizeWords says n bytes in MiB when it is a whole number of them.
func sizeWords(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// RoundAlloc returns at least what Go's allocator takes for n bytes, as
// the allowances count it: 0 for n ≤ 0, 16 up to 16; above 32 KiB whole
// 8 KiB pages; else n rounded up to a multiple of half its leading power
// of two (Go's size classes are at most 50% apart up to 32 KiB). It
// saturates at Saturated.
func RoundAlloc(n int64) int64 {
	switch {
	case n <= 0:
		return 0
	case n <= AllocSmallBytes:
		return AllocSmallBytes
	case n > AllocClassLimit:
		return min(n+(AllocPageBytes-1), Saturated) &^ (AllocPageBytes - 1)
	}
	step := int64(1) << (bits.Len64(uint64(n)) - 2)
	return (n + step - 1) &^ (step - 1)
}

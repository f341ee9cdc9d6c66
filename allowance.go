package bitpack

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/frame"
	"github.com/bitpack-go/bitpack/internal/rules"
)

// Allowances: whatever the tags allow, what a packet can make one decode
// do is bounded by the packet's own size. The packet's bits already bound
// what needs them (a length prefix is checked against the bits left before
// anything is allocated), but values can be wide for their bits, or take
// none at all: elements whose only field is range=5..5, empty structs,
// structs whose other fields are skipped, a union member or a hook that
// reads nothing, sparse slots. Without a bound they multiply when they
// nest: a few bytes could claim a million values, or 128 MiB.
//
// So each decode has two allowances, both computed from the bits of input
// (the whole packet for Unmarshal; for the decodes one after another on
// one Reader — Decode, and what hooks decode — one pair shared by all,
// for the bits the Reader held at the first, kept in its frame):
//
//   - work: workBaseValues plus workValuesPerBit for every bit. Every value
//     visited counts — a struct's fields, array and slice elements,
//     pointees, union members, hook calls, and sparse slots at an eighth
//     of a value each (slotsWork);
//   - memory: allocBaseBytes plus allocBytesPerBit for every bit. Every
//     allocation counts — slices, strings and byte slices, pointees, union
//     members, hook values and their calls' bookkeeping — at Go's size
//     class or more (roundAlloc), and twice for the one kind of value that
//     commit (commit.go) may allocate again in yours.
//
// Both are charged before anything is allocated or looped over, whether or
// not your value's capacity could be reused, so the outcome never depends
// on what the target held. Decodes inside a hook spend from their hook's
// decode. 64 per bit is more than any value without skipped parts needs (a
// bool is 1 value and 1 byte for 1 bit); the bases cover small packets of
// wide values. Values the decoder would refuse are refused by Marshal too
// (checkAllowance), so every value Marshal accepts decodes.
const (
	workBaseValues   = rules.WorkBaseValues
	workValuesPerBit = rules.WorkValuesPerBit
	allocBaseBytes   = rules.AllocBaseBytes
	allocBytesPerBit = rules.AllocBytesPerBit

	// decodeOverheadBytes is charged once per decode for the decoder's own
	// bookkeeping and the error it may return.
	decodeOverheadBytes = rules.DecodeOverheadBytes
	// hookCallBytes is about what one hook call allocates besides the
	// value: its Reader and frame, the kept result (measured at about 250
	// bytes; TestDecodeAllowance checks the total).
	hookCallBytes = rules.HookCallBytes
	// mapSlotFactor: a map's entries take up to this many times their
	// slots (see mapCharge).
	mapSlotFactor  = rules.MapSlotFactor
	mapHeaderBytes = rules.MapHeaderBytes

	// maxFigure caps the figures a refusal names (a count check's bits
	// and the minimum sizes it multiplies, an allowance's values).
	maxFigure = rules.MaxFigure
)

// The numbers live in package rules, which gen writes into every
// generated reader's runtime: the readers charge what this decoder
// charges (docs/wire.md, "Limits of the Go decoder").

// budget is what a decode may spend and has spent.
type budget struct {
	workLimit, work   int64 // values it may visit, and has (by charge's count)
	bytesLimit, bytes int64 // bytes it may allocate, and has
}

// load and store move a budget from and to the frame a Reader carries
// (what it has spent to the frame's Spent, when it has one).
func (b *budget) load(f *frame.Frame) {
	*b = budget{workLimit: f.WorkLimit, work: f.Work, bytesLimit: f.BytesLimit, bytes: f.Bytes}
	if s := f.Spent; s != nil {
		b.work, b.bytes = s.Work, s.Bytes
	}
}

func (b *budget) store(f *frame.Frame) {
	f.WorkLimit, f.Work, f.BytesLimit, f.Bytes = b.workLimit, b.work, b.bytesLimit, b.bytes
	if s := f.Spent; s != nil {
		s.Work, s.Bytes = b.work, b.bytes
	}
}

// budgetFor returns the allowances of a decode of inputBits bits.
func budgetFor(inputBits int) budget {
	return budget{
		workLimit:  workBaseValues + workValuesPerBit*int64(inputBits),
		bytesLimit: allocBaseBytes + allocBytesPerBit*int64(inputBits),
	}
}

// charge records work values about to be visited and bytes about to be
// allocated — n values of size bytes each, for the refusal's words — or
// refuses them: the packet claims more than its bits pay for.
func (b *budget) charge(work, bytes int64, n int, size uintptr, bit int) *fieldError {
	if !b.take(work, bytes) {
		return b.refusal(work, bytes, n, size, bit)
	}
	return nil
}

// take is charge without the refusal: it records work and bytes and
// reports true, or changes nothing and reports false (a loop that must
// make no call words the refusal elsewhere, by charge).
func (b *budget) take(work, bytes int64) bool {
	if work > b.workLimit-b.work || bytes > b.bytesLimit-b.bytes {
		return false
	}
	b.work += work
	b.bytes += bytes
	return true
}

// refusal words charge's refusal (out of line: charge inlines).
func (b *budget) refusal(work, bytes int64, n int, size uintptr, bit int) *fieldError {
	if work > b.workLimit-b.work {
		return newFieldError("", bit, ErrRange, "%d values would take the decode past the %d values it may visit for this input (%s): the packet claims more values than its bits can pay for", min(work, maxFigure), b.workLimit, rules.WorkWords)
	}
	what := fmt.Sprintf("%d values of %d bytes", n, size)
	if n == 1 {
		what = fmt.Sprintf("a value of %d bytes", size)
	}
	return newFieldError("", bit, ErrRange, "%s would take the decode past the %d bytes it may allocate for this input (%s)", what, b.bytesLimit, rules.BytesWords)
}

// Charges: what each kind of value costs against the allowances. The
// decoder charges them as it meets the values; checkAllowance charges the
// same for a value being encoded, so both sides agree on every value.

// rootCharge is the cost of a decode of plan p, before its variable
// parts: its own values, and when it decodes into a new value (a Union's:
// fresh) that value. (The decoder's own bookkeeping, decodeOverheadBytes,
// is charged once for all the decodes sharing an allowance.)
func rootCharge(p *plan, fresh bool) (work, bytes int64) {
	if fresh {
		return p.work, roundAlloc(p.bytes)
	}
	return p.work, 0
}

// elemsCharge is the cost of n elements of the slice or byte-slice op o:
// twice for elements that keep fields off the wire, which commit grows in
// place of the caller's slice (see commitSlice) as well as the decode in
// the scratch value — unless the decode is fresh (into a new value: no
// commit).
func elemsCharge(o *op, n int, fresh bool) (work, bytes int64) {
	if o.kind == KindBytes {
		return 0, roundAlloc(int64(n))
	}
	bytes = roundAlloc(satMul(int64(n), o.elem.bytes))
	if !o.elem.complete && !fresh {
		bytes = satMul(bytes, 2)
	}
	return satMul(int64(n), elemWork(o.elem.work, o.elem.minBits)), bytes
}

// stringCharge is the cost of a string of n bytes (the single-pass copy
// shares it).
func stringCharge(n int) (work, bytes int64) { return 0, roundAlloc(int64(n)) }

// pointeeCharge is the cost of the pointee of pointer op o.
func pointeeCharge(o *op) (work, bytes int64) {
	return o.elem.work, roundAlloc(o.elem.bytes)
}

// slotsCharge is the cost of a sparse slice's n slots.
func slotsCharge(n int) (work, bytes int64) {
	return slotsWork(n), roundAlloc(satMul(int64(n), slotBytes))
}

// slotsWork is the work of visiting n sparse slots: an absent slot is a
// presence bit and a pointer store, about an eighth of a value's cost
// (measured: 0.55 ns a slot against 4.5 ns a zero-bit value), so a table
// of 10000 entity slots is 1250 values, and an empty one encodes.
func slotsWork(n int) int64 { return (int64(n) + slotsPerValue - 1) / slotsPerValue }

const slotsPerValue = rules.SlotsPerValue

// sparseElemCharge is the cost of one present element of sparse op o.
func sparseElemCharge(o *op) (work, bytes int64) {
	return o.elem.work, roundAlloc(o.elem.bytes)
}

// memberCharge is the cost of a union member of plan mp (one allocation,
// in either form: see union).
func memberCharge(mp *plan) (work, bytes int64) { return mp.work, roundAlloc(mp.bytes) }

// hookCharge is the cost of one call of hook op o, before what the hook
// decodes itself (o.n: its value's size64).
func hookCharge(o *op) (work, bytes int64) {
	return 1, roundAlloc(int64(o.n)) + hookCallBytes
}

// ptrSize is a pointer's size on this platform; slotBytes, on a 64-bit
// one, is what the allowances charge for one (see size64).
const (
	ptrSize   = 4 << (^uintptr(0) >> 63)
	slotBytes = rules.SlotBytes
)

// roundAlloc returns at least what Go's allocator takes for n bytes (see
// rules.RoundAlloc).
func roundAlloc(n int64) int64 { return rules.RoundAlloc(n) }

// planWork is the number of values one value of p visits, its variable
// parts aside (slice elements, pointees, sparse elements, union members
// and what hooks decode are charged when the packet says how many): each
// op's value, an array's elements, a sparse array's slots. Arrays are
// finished first (see finish); at least 1, for the value itself.
func planWork(p *plan) int64 {
	var n int64
	for i := range p.ops {
		o := &p.ops[i]
		switch {
		case o.kind == KindArray:
			n = satAdd(n, satMul(int64(o.n), o.elem.work))
		case o.kind == KindSparse && !o.slice:
			n = satAdd(n, slotsWork(o.n))
		default:
			n = satAdd(n, 1)
		}
	}
	return max(n, 1)
}

// nodeWork is the work of layout node f by planWork's count (1 for each
// leaf, an array's Len × its element's Work, a sparse array's slots),
// walking nested structs; with floor, each value nested in the value (a
// struct field or an array's element) that can take no bits and that a
// reader makes on its own (ownObject: a struct, a map, a union, a slice)
// counts workValuesPerBit (what one bit pays for) for itself besides its
// own values: it is an object in C# and TypeScript that no bit pays for.
// Counted as nothing, one bit of a slice element held 63 of them (a
// 64-byte packet of 495 elements of a bool and 63 structs of no bits cost
// TypeScript 69 of its snapshot decodes; of a bool and 63 maps of maxlen
// 0, C# 647), and one-element arrays nested 16 deep around a value of no
// bits 33 objects for a bit (C# 35, in an attacker's review). The
// difference of the two counts is what the floors add to planWork; the
// value itself (nested false) is not floored: a top-level value, a
// pointee and a union member are charged when something in the packet
// says they are there (and a slice element by elemWork).
func nodeWork(f *Field, floor, nested bool) int64 {
	switch f.Kind {
	case KindStruct:
		var n int64
		for _, c := range f.Fields {
			n = satAdd(n, nodeWork(c, floor, true))
		}
		if floor && nested && ownObject(f) {
			n = satAdd(n, workValuesPerBit)
		}
		return n
	case KindArray:
		// A looped array's element is a plan's root, whose Work (its own
		// floors included) planWork multiplies; an unrolled one's is a
		// node whose leaves are the plan's own ops.
		e := f.Elem
		if e.Charge.Work == 0 {
			return satMul(int64(f.Len), nodeWork(e, floor, true))
		}
		w := e.Charge.Work
		if floor && ownObject(e) {
			w = satAdd(w, workValuesPerBit)
		}
		return satMul(int64(f.Len), w)
	case KindSparse:
		if f.Type.Kind() == reflect.Array {
			return slotsWork(f.Len)
		}
	case KindMap, KindUnion, KindSlice:
		if floor && nested && ownObject(f) {
			return 1 + workValuesPerBit
		}
	}
	return 1
}

// ownObject reports whether a value of node f that can take no bits is
// one a client reader makes on its own, an object no bit pays for: a
// struct, a map, a union's member, a slice (but []byte and strings, whose
// empty values every reader shares).
func ownObject(f *Field) bool {
	switch f.Kind {
	case KindStruct, KindMap, KindSlice, KindUnion: // a union: its index takes no bits (one member)
		return f.CountBits == 0
	}
	return false
}

// elemWork is what the allowances charge for each element of a slice,
// whose elements visit work values and take at least minBits bits: its
// work, but at least workValuesPerBit (what one bit pays for) when an
// element can take no bits (range=5..5 fields, maxlen=0 strings, empty
// structs, a union of one such member). A count claims such elements for
// nothing, and each still costs a decoder time: an element to build, in
// C# and TypeScript an object; counted as values alone, b bits could
// claim 4096 + 64b of them (a 64-byte packet of 32,768 zero-bit structs
// holding a string cost Go 150-270 of its 1.6 KB snapshot decodes, C#
// 450, TypeScript 185); so charged, at most 64 + b. Only a count claims
// values in bulk: a pointee, a sparse element and a union member each
// cost the bit that says it is there, and an array's elements are its
// holder's work (planWork).
func elemWork(work, minBits int64) int64 {
	if minBits == 0 {
		return max(work, workValuesPerBit)
	}
	return work
}

// paidFor reports whether every charge inside a value of p is paid for by
// bits of its own at 64 per bit (as bool fields, numbers and strings are):
// then, as long as the plan's own work fits the base, no packet can take a
// decode past its allowances, and Marshal need not count (checkAllowance).
// Slices of elements that can take no bits, sparse slices (absent slots
// are free), unions and hooks are not paid. A plan reached again counts as
// paid: it is being examined (its other ops decide), or it was and was
// paid, since an unpaid one ends the search. So plans stay marked for the
// whole search, which is linear in the type graph (unmarking them on the
// way out made a chain of structs with two pointers each exponential).
func paidFor(p *plan, visited map[*plan]bool) bool {
	if visited[p] {
		return true
	}
	visited[p] = true
	// unit reports whether a value of elem costing bytes (at most, besides
	// a rounding of 16) is paid by bits (its own and those before it).
	unit := func(elem *plan, bytes int64, bits int64) bool {
		budget := satMul(allocBytesPerBit, bits)
		return bits >= 1 && elem.work <= satMul(workValuesPerBit, bits) && 32+bytes <= budget && paidFor(elem, visited)
	}
	for i := range p.ops {
		o := &p.ops[i]
		switch o.kind {
		case KindCustom, KindUnion, KindMap:
			return false
		case KindSparse:
			if o.slice || !unit(o.elem, 3*o.elem.bytes/2, 1+o.elem.minBits) {
				return false
			}
		case KindSlice:
			perElem := 3 * o.elem.bytes / 2 // roundAlloc's at most 1.5×
			if !o.elem.complete {
				perElem *= 2
			}
			if !unit(o.elem, perElem, o.elem.minBits) {
				return false
			}
		case KindPointer:
			if !unit(o.elem, 3*o.elem.bytes/2, 1+o.elem.minBits) {
				return false
			}
		case KindArray:
			if !paidFor(o.elem, visited) {
				return false
			}
		}
	}
	return true
}

// Encoding checks what the value's decoder will charge (checkAllowance),
// so that every value an encode accepts decodes. Encodes on one Writer
// share its frame as the decodes on one Reader do (see internal/frame):
// beginEncode starts it at the first, and each endEncode checks what the
// value charges, with what the encodes before it on the Writer charged,
// against the allowances of the bits written since the first — never
// more than the decoder's, which counts every bit left in its Reader.

// beginEncode starts w's frame, if this is the first encode on w since
// its Reset, at bit start, where the value begins. The decoder's own
// bookkeeping is charged here, as the decoder charges it when it starts.
func beginEncode(w *bitio.Writer, start int) {
	if f := frameOfWriter(w); !f.Active {
		*f = frame.Frame{Active: true, Start: start, Bytes: decodeOverheadBytes}
	}
}

// endEncode refuses the value of p at base, just encoded on w from bit
// start, if its decoder would refuse it for claiming more than the bits
// pay for, and otherwise adds what it charges to w's frame. whole: the
// bits end a packet (Marshal, Append), whose decoder counts whole bytes;
// fresh: a Union's value, which its decoder allocates. Inside a hook
// (Counting) it only adds: the encode that called the hook checks.
func endEncode(w *bitio.Writer, p *plan, base pointer, start int, whole, fresh bool) *fieldError {
	f := frameOfWriter(w)
	if !p.counted && !fresh {
		// Every charge of the value is paid by its own bits at most at the
		// allowances' rates (see paidFor), so it fits; count it at those
		// rates, which bounds it.
		bits := int64(w.BitsWritten() - start)
		f.Work = satAdd(f.Work, workValuesPerBit*bits)
		f.Bytes = satAdd(f.Bytes, allocBytesPerBit*bits)
		return nil
	}
	c := allowanceCheck{fresh: fresh}
	if f.Counting {
		c.budget = budget{workLimit: saturated, bytesLimit: saturated}
	} else {
		bits := w.BitsWritten() - f.Start
		if whole {
			bits = (bits + 7) &^ 7
		}
		c.budget = budgetFor(bits)
	}
	c.budget.work, c.budget.bytes = f.Work, f.Bytes
	if err := checkAllowance(&c, p, base); err != nil {
		return err
	}
	f.Work, f.Bytes = c.budget.work, c.budget.bytes
	return nil
}

// checkAllowance charges what the decoder charges for a value of p at
// base, in the same order, so both refuse at the same field. What a hook
// decodes itself is not seen here: the hook's own encodes add it to the
// Writer's frame (see marshalHook).
func checkAllowance(c *allowanceCheck, p *plan, base pointer) *fieldError {
	work, bytes := rootCharge(p, c.fresh)
	if err := c.budget.charge(work, bytes, 1, uintptr(p.bytes), -1); err != nil {
		return err
	}
	return c.value(p, base, 0)
}

type allowanceCheck struct {
	budget budget
	fresh  bool // the decoder allocates the value (see rootCharge)
}

// value charges what the decoder charges for the variable parts of the
// value at base (its fixed part was charged with its container). depth
// counts levels, as encoding does, so a cyclic value cannot loop here:
// encoding has refused it already.
func (c *allowanceCheck) value(p *plan, base pointer, depth int) *fieldError {
	if depth > MaxDepth {
		return nil
	}
	for i := range p.ops {
		o := &p.ops[i]
		at := base.field(o.offset)
		var err *fieldError
		switch o.kind {
		case KindString:
			s := *at.string()
			work, bytes := stringCharge(len(s))
			err = c.budget.charge(work, bytes, 1, uintptr(len(s)), -1)
		case KindBytes:
			n := len(*at.bytes())
			work, bytes := elemsCharge(o, n, c.fresh)
			err = c.budget.charge(work, bytes, 1, uintptr(n), -1)
		case KindArray:
			err = c.elems(o, at, o.n, o.stride, depth)
		case KindSlice:
			n := at.sliceLen()
			work, bytes := elemsCharge(o, n, c.fresh)
			if err = c.budget.charge(work, bytes, n, uintptr(o.elem.bytes), -1); err == nil && n > 0 {
				err = c.elems(o, at.sliceElem(0, 0), n, o.stride, depth)
			}
		case KindPointer:
			if e := at.elem(); !e.isNil() {
				work, bytes := pointeeCharge(o)
				if err = c.budget.charge(work, bytes, 1, uintptr(o.elem.bytes), -1); err == nil {
					err = c.value(o.elem, e, depth+1)
				}
			}
		case KindSparse:
			err = c.sparse(o, at, depth)
		case KindUnion:
			err = c.union(o, at, depth)
		case KindCustom:
			work, bytes := hookCharge(o)
			err = c.budget.charge(work, bytes, 1, uintptr(o.n)+hookCallBytes, -1)
		case KindMap:
			err = c.mapEntries(o, at, depth)
		}
		if err != nil {
			return err.withPrefix(o.path)
		}
	}
	return nil
}

func (c *allowanceCheck) elems(o *op, first pointer, n int, stride uintptr, depth int) *fieldError {
	if o.elem.scalar != nil {
		return nil // nothing variable inside
	}
	for k := range n {
		if err := c.value(o.elem, first.index(k, stride), depth+1); err != nil {
			return err.withPrefix("[" + strconv.Itoa(k) + "]")
		}
	}
	return nil
}

func (c *allowanceCheck) sparse(o *op, at pointer, depth int) *fieldError {
	n := o.n
	if o.slice {
		n = at.sliceLen()
		work, bytes := slotsCharge(n)
		if err := c.budget.charge(work, bytes, n, slotBytes, -1); err != nil {
			return err
		}
	}
	for k := range n {
		e := sparseSlot(o, at, k).elem()
		if e.isNil() {
			continue
		}
		work, bytes := sparseElemCharge(o)
		err := c.budget.charge(work, bytes, 1, uintptr(o.elem.bytes), -1)
		if err == nil {
			err = c.value(o.elem, e, depth+1)
		}
		if err != nil {
			return err.withPrefix("[" + strconv.Itoa(k) + "]")
		}
	}
	return nil
}

func (c *allowanceCheck) union(o *op, at pointer, depth int) *fieldError {
	iv := at.value(o.typ).Elem()
	if iv.IsNil() {
		return nil // encoding refused it
	}
	idx, base, err := o.union.find(iv.Elem())
	if err != nil {
		return nil
	}
	mp, err := o.union.member(idx)
	if err != nil {
		return nil
	}
	work, bytes := memberCharge(mp)
	if ferr := c.budget.charge(work, bytes, 1, uintptr(mp.bytes), -1); ferr != nil {
		return ferr
	}
	return c.value(mp, base, depth+1)
}

package gen

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// The delta corpus's hook commands (docs/wire.md, Delta encoding, hook):
// for each hook of a HookBox holding one at every spot and of a few
// samples, a delta changing that hook
// alone, written (E) and read against its base (D, accepted) and against
// the value it brings (D, refused: the base's value sent again, compared
// by the bits each writes on its own while the delta's bits sit at
// another position); and for each Nib, a base holding the reserved 15,
// which a packet can bring but MarshalBits refuses: a delta changing it is
// refused (the base cannot be written), one changing another field is
// accepted (its result cannot be written), a delta bringing 15 is a
// change, and the writers refuse or accept those as Go's AppendDelta does.

// hookSpot is one hook of a HookBox: change gives it another value
// (false when the box has no hook there); set, a Nib spot's only, gives
// it value v.
type hookSpot struct {
	name   string
	change func(*HookBox) bool
	set    func(b *HookBox, v uint8) bool
}

func nextStamp(s *Stamp) { s.v = (s.v + 0x5a5) & 0xfff }

// sortedByteKeys are a map's keys in ascending order.
func sortedByteKeys[V any](m map[uint8]V) []uint8 {
	var keys []uint8
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func hookSpots() []hookSpot {
	var spots []hookSpot
	stamp := func(name string, with func(*HookBox, func(*Stamp)) bool) {
		spots = append(spots, hookSpot{name: name, change: func(b *HookBox) bool { return with(b, nextStamp) }})
	}
	nib := func(name string, with func(*HookBox, func(*Nib)) bool) {
		spots = append(spots, hookSpot{name: name,
			change: func(b *HookBox) bool { return with(b, func(n *Nib) { n.v = (n.v + 1) % 15 }) },
			set:    func(b *HookBox, v uint8) bool { return with(b, func(n *Nib) { n.v = v }) }})
	}
	nib("Nib", func(b *HookBox, f func(*Nib)) bool { f(&b.Nib); return true })
	stamp("Ptr", func(b *HookBox, f func(*Stamp)) bool {
		if b.Ptr != nil {
			f(b.Ptr)
		}
		return b.Ptr != nil
	})
	stamp("ByID's first key", func(b *HookBox, f func(*Stamp)) bool {
		keys := sortedByteKeys(b.ByID)
		if len(keys) > 0 {
			s := b.ByID[keys[0]]
			f(&s)
			b.ByID[keys[0]] = s
		}
		return len(keys) > 0
	})
	for i := range 3 {
		stamp(fmt.Sprintf("List[%d]", i), func(b *HookBox, f func(*Stamp)) bool {
			if i < len(b.List) {
				f(&b.List[i])
			}
			return i < len(b.List)
		})
		stamp(fmt.Sprintf("Slots[%d]", i), func(b *HookBox, f func(*Stamp)) bool {
			if b.Slots[i] != nil {
				f(b.Slots[i])
			}
			return b.Slots[i] != nil
		})
	}
	for i := range 2 {
		stamp(fmt.Sprintf("Pair[%d]", i), func(b *HookBox, f func(*Stamp)) bool { f(&b.Pair[i]); return true })
		stamp(fmt.Sprintf("Elems[%d].At", i), func(b *HookBox, f func(*Stamp)) bool {
			if i < len(b.Elems) {
				f(&b.Elems[i].At)
			}
			return i < len(b.Elems)
		})
		nib(fmt.Sprintf("Nibs[%d]", i), func(b *HookBox, f func(*Nib)) bool {
			if i < len(b.Nibs) {
				f(&b.Nibs[i])
			}
			return i < len(b.Nibs)
		})
		nib(fmt.Sprintf("NibAt's key %d", i), func(b *HookBox, f func(*Nib)) bool {
			keys := sortedByteKeys(b.NibAt)
			if i < len(keys) {
				n := b.NibAt[keys[i]]
				f(&n)
				b.NibAt[keys[i]] = n
			}
			return i < len(keys)
		})
	}
	return spots
}

// boxCopy decodes a HookBox packet into a value of its own.
func boxCopy(p []byte) *HookBox {
	return decodeFresh(reflect.TypeFor[HookBox](), p).Interface().(*HookBox)
}

// boxWith is the packet of the box p decodes to with change applied, or
// nil when change does not apply.
func boxWith(p []byte, change func(*HookBox) bool) []byte {
	b := boxCopy(p)
	if !change(b) {
		return nil
	}
	return mustMarshal(b)
}

// onlyDifference is the one bit where two packets of one length differ,
// or -1.
func onlyDifference(a, b []byte) int {
	if len(a) != len(b) {
		return -1
	}
	at := -1
	for i := range a {
		for x := a[i] ^ b[i]; x != 0; x &= x - 1 {
			if at >= 0 {
				return -1
			}
			at = 8*i + trailingZeros8(x)
		}
	}
	return at
}

func trailingZeros8(x byte) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

// withBit is p with bit set.
func withBit(p []byte, bit int) []byte {
	q := append([]byte(nil), p...)
	q[bit/8] |= 1 << (bit % 8)
	return q
}

// nibAt is the bit where a Nib spot's 4 bits start in the packets two
// values write, a and b, that differ in it only, by 8 (bit 3): -1 when
// they differ elsewhere.
func nibAt(a, b []byte) int {
	at := onlyDifference(a, b)
	if at < 3 {
		return -1
	}
	return at - 3
}

// fullHookBox holds a hook at every spot hookSpots names.
func fullHookBox() *HookBox {
	return &HookBox{Nib: Nib{9}, Odd: true, Pair: [2]Stamp{{0x5a3}, {0x0ff}}, List: []Stamp{{1}, {0xabc}, {0xfff}}, Ptr: &Stamp{0x800},
		Slots: [3]*Stamp{{0x123}, nil, {0x7}}, ByID: map[uint8]Stamp{2: {0x321}, 7: {0xf0f}},
		Elems: []StampBeside{{N: 1, At: Stamp{0x456}}, {N: 2, At: Stamp{0}}}, Nibs: []Nib{{3}, {14}}, NibAt: map[uint8]Nib{0: {1}, 3: {7}}}
}

// hookDeltas adds the hook commands for table type k, HookBox: of
// fullHookBox and of samples.
func (c *corpus) hookDeltas(k int, samples []any) {
	typ := reflect.TypeFor[HookBox]()
	for n, sample := range append([]any{fullHookBox()}, samples...) {
		p := mustMarshal(sample)
		for _, spot := range hookSpots() {
			what := fmt.Sprintf("HookBox sample %d, %s", n, spot.name)
			q := boxWith(p, spot.change)
			if q == nil {
				continue
			}
			d, err := bitpack.AppendDelta(nil, boxCopy(p), boxCopy(q))
			if err != nil {
				panic(what + ": " + err.Error())
			}
			c.deltaWrite(k, typ, p, q, d, what+" changed")
			c.deltaRead(k, typ, p, d, what+" changed")
			c.deltaRead(k, typ, q, d, what+" sent again")
			if spot.set == nil {
				continue
			}
			c.reservedNib(k, p, spot, what)
		}
	}
}

// reservedNib adds the commands of a base or value whose Nib at spot is
// the reserved 15, from sample packet p.
func (c *corpus) reservedNib(k int, p []byte, spot hookSpot, what string) {
	typ := reflect.TypeFor[HookBox]()
	set := func(v uint8) []byte { return boxWith(p, func(b *HookBox) bool { return spot.set(b, v) }) }
	p14, p6, p3 := set(14), set(6), set(3)
	at := nibAt(p14, p6)
	if at < 0 {
		panic(what + ": the packets of Nib 14 and 6 differ elsewhere than its bit 3")
	}
	p15 := withBit(p14, at) // 14 is 0111 from its first bit: 15 sets that bit
	// The base holding 15: a delta changing the Nib is refused (the base
	// cannot be written); one changing Odd (bit 4) alone is accepted,
	// its result unwritable; Go's writer writes the latter (the Nib the
	// same in memory) and refuses the former.
	d3, err := bitpack.AppendDelta(nil, boxCopy(p14), boxCopy(p3))
	if err != nil {
		panic(what + ": " + err.Error())
	}
	c.deltaRead(k, typ, p15, d3, what+": 15 in the base, changed to 3")
	odd := p15[0] ^ 1<<4
	q15 := append([]byte{odd}, p15[1:]...)
	dOdd, err := bitpack.AppendDelta(nil, boxCopy(p15), boxCopy(q15))
	if err != nil {
		panic(what + ": " + err.Error())
	}
	c.deltaRead(k, typ, p15, dOdd, what+": 15 in the base, Odd changed")
	c.deltaWriteAnswer(k, typ, p15, q15, what+": 15 in the base and the value, Odd changed")
	c.identityAnswer(p14, q15)
	c.deltaWriteAnswer(k, typ, p15, p3, what+": 15 in the base, 3 in the value")
	c.deltaWriteAnswer(k, typ, p14, p15, what+": 14 in the base, 15 in the value")
	// A delta bringing 15 (from one bringing 13, 1011 from its first bit,
	// or 5, 1010): a change, accepted; its result cannot be written.
	d13, err := bitpack.AppendDelta(nil, boxCopy(p14), boxCopy(set(13)))
	if err != nil {
		panic(what + ": " + err.Error())
	}
	d5, err := bitpack.AppendDelta(nil, boxCopy(p14), boxCopy(set(5)))
	if err != nil {
		panic(what + ": " + err.Error())
	}
	dat := nibAt(d13, d5)
	if dat < 0 {
		panic(what + ": the deltas bringing 13 and 5 differ elsewhere than the Nib's bit 3")
	}
	d15 := withBit(d13, dat+1)
	c.deltaRead(k, typ, p14, d15, what+": 15 sent against 14")
	c.deltaRead(k, typ, p15, d15, what+": 15 sent against 15")
}

// deltaWriteAnswer adds an E command whose answer is AppendDelta's on the
// values the packets decode to, a refusal included.
func (c *corpus) deltaWriteAnswer(k int, typ reflect.Type, basePacket, valuePacket []byte, what string) {
	d, err := bitpack.AppendDelta(nil, decodeFresh(typ, basePacket).Interface(), decodeFresh(typ, valuePacket).Interface())
	if err == nil {
		c.deltaWrite(k, typ, basePacket, valuePacket, d, what)
		return
	}
	cmd := command{
		line:  fmt.Sprintf("E %d %x %x", k, basePacket, valuePacket),
		want:  "REFUSED",
		what:  "write the delta of " + what + fmt.Sprintf(": %x against %x (Go: %v)", valuePacket, basePacket, err),
		exact: true,
	}
	errors.As(err, &cmd.err)
	c.add(cmd)
}

// identityAnswer sets the last command's byIdentity: the answer of a
// client comparing hook values by identity, which writes the value of
// valuePacket at the spot where its base holds an equal value its hook
// refuses. It is Go's refusal of that value's delta against the base of
// basePacket, which differs from it at that spot only (and in Odd).
func (c *corpus) identityAnswer(basePacket, valuePacket []byte) {
	typ := reflect.TypeFor[HookBox]()
	cmd := &c.cmds[len(c.cmds)-1]
	_, err := bitpack.AppendDelta(nil, decodeFresh(typ, basePacket).Interface(), decodeFresh(typ, valuePacket).Interface())
	var e *bitpack.Error
	if cmd.line[0] != 'E' || !errors.As(err, &e) {
		panic(fmt.Sprintf("%s: no E command, or Go writes the value against another base (%v)", cmd.what, err))
	}
	cmd.byIdentity = fmt.Sprintf("REFUSED\t%s\t%s\t%d\t%s", goKind(err), e.Path, e.Bit, err.Error())
}

// TestHookDeltaVerdicts checks Go's own answer to one of the hook
// commands, derived by hand: a HookBox whose Nib is 15 (its 4 bits at bit
// 0 of its packet set) is a base no delta may change the Nib of.
func TestHookDeltaVerdicts(t *testing.T) {
	var zero HookBox
	p := mustMarshal(&zero)
	base := withBit(withBit(withBit(withBit(p, 0), 1), 2), 3)
	var got HookBox
	if err := bitpack.Unmarshal(base, &got); err != nil || got.Nib.v != 15 {
		t.Fatalf("Unmarshal(% x) = %v, Nib %d; want Nib 15", base, err, got.Nib.v)
	}
	// The root changed (bit 0), Nib's changed bit (1) and 3 in 4 bits
	// (bits 2 and 3 set), then the other nine items unchanged.
	d := []byte{0x0f, 0x00}
	err := bitpack.UnmarshalDelta(d, &got, new(HookBox))
	var e *bitpack.Error
	if !errors.As(err, &e) || !errors.Is(err, bitpack.ErrRange) || e.Path != "Nib" || e.Bit != 1 || e.Detail != "base value: hook refused the value: nib out of range" {
		t.Errorf("UnmarshalDelta(% x) against Nib 15 = %v; want the base's Nib refused at bit 1", d, err)
	}
}

// TestHookDeltaRefusedInPlace: a delta applied to its base in place that
// flips Odd, then sends Pair[0]'s value again (refused), leaves the base
// as it was, Odd included.
func TestHookDeltaRefusedInPlace(t *testing.T) {
	from := HookBox{Pair: [2]Stamp{{0x123}, {0x456}}}
	to := from
	to.Odd, to.Pair[0] = true, Stamp{0x9ab}
	d, err := bitpack.AppendDelta(nil, &from, &to)
	if err != nil {
		t.Fatal(err)
	}
	base := from
	base.Pair[0] = to.Pair[0]
	want := base
	err = bitpack.UnmarshalDelta(d, &base, &base)
	var e *bitpack.Error
	if !errors.As(err, &e) || e.Path != "Pair[0]" || e.Detail != "the delta marks the value changed but it is the base's (not canonical)" {
		t.Errorf("UnmarshalDelta(% x) in place = %v; want Pair[0] refused as the base's value", d, err)
	}
	if !reflect.DeepEqual(base, want) {
		t.Errorf("the refused delta changed its target: %+v, was %+v", base, want)
	}
}

// TestHookDeltaUnchangedRefusedValue: a hook value its MarshalBits
// refuses, the same in memory as the base's, is unchanged: Go writes the
// delta of N alone, 25 (the root's changed bit, At's 0, N's 1, then N's
// change +1 from 1 in its short form of 2 bits: 0, then 2), as the C++,
// Rust and (the base's own object) C# and TypeScript writers do
// (TestCSharpMisuse, TestTypeScriptMisuse).
func TestHookDeltaUnchangedRefusedValue(t *testing.T) {
	d, err := bitpack.AppendDelta(nil, &Hooked{At: Stamp{5000}, N: 1}, &Hooked{At: Stamp{5000}, N: 2})
	if err != nil || fmt.Sprintf("%x", d) != "25" {
		t.Errorf("AppendDelta = %x, %v; want 25", d, err)
	}
}

package bitpack_test

import (
	"bytes"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"reflect"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// hookNode nests itself through a hook: box's MarshalBits writes a presence
// bit and then the next node with bitpack.Encode on the Writer it was
// given; UnmarshalBits reads it back with bitpack.Decode.
type (
	hookNode struct {
		V   uint8 `bits:"range=0..1"`
		Box nodeBox
	}
	nodeBox struct{ Next *hookNode }
)

var boxDecodes atomic.Int64

func (b *nodeBox) MarshalBits(w *bitio.Writer) error {
	w.WriteBool(b.Next != nil)
	if b.Next == nil {
		return nil
	}
	return bitpack.Encode(w, b.Next)
}

func (b *nodeBox) UnmarshalBits(r *bitio.Reader) error {
	boxDecodes.Add(1)
	if !r.ReadBool() {
		return r.Err()
	}
	b.Next = new(hookNode)
	return bitpack.Decode(r, b.Next)
}

func nodeChain(n int) *hookNode {
	head := &hookNode{V: 1}
	for cur := head; n > 1; n-- {
		cur.Box.Next = &hookNode{}
		cur = cur.Box.Next
	}
	return head
}

// TestHookRecursion: each hook runs once per decode (not once per pass, which
// doubled the work at every level), and MaxDepth counts the levels above a
// hook, so recursion through hooks stops like any other.
func TestHookRecursion(t *testing.T) {
	in := nodeChain(20)
	packet, err := bitpack.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	// V and the presence bit per node; the last node's bit is 0.
	if want := (20*2 + 7) / 8; len(packet) != want {
		t.Fatalf("packet is %d bytes, want %d", len(packet), want)
	}
	boxDecodes.Store(0)
	var out hookNode
	if err := bitpack.Unmarshal(packet, &out); err != nil {
		t.Fatal(err)
	}
	if n := boxDecodes.Load(); n != 20 {
		t.Errorf("UnmarshalBits ran %d times for 20 nodes, want 20", n)
	}
	depth := 0
	for cur := &out; cur != nil; cur = cur.Box.Next {
		depth++
	}
	if depth != 20 || out.V != 1 {
		t.Fatalf("decoded a chain of %d (V %d), want 20", depth, out.V)
	}

	// All ones: every node present, for as long as the packet lasts.
	boxDecodes.Store(0)
	err = bitpack.Unmarshal(bytes.Repeat([]byte{0xff}, 1<<16), &hookNode{})
	// The path runs through every hook, and messages do not nest.
	// Each node is two levels, as it would be without the hook: hookNode
	// and the nodeBox value.
	want := "bitpack: decode bitpack_test.hookNode: field " + strings.Repeat("Box.", 31) + "Box at bit 64: more than 64 nested levels"
	if !errors.Is(err, bitpack.ErrDepth) || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if n := boxDecodes.Load(); n != 32 {
		t.Errorf("UnmarshalBits ran %d times before the depth limit, want 32", n)
	}

	// A cycle through the hook on encode.
	cyc := &hookNode{}
	cyc.Box.Next = cyc
	if _, err := bitpack.Marshal(cyc); !errors.Is(err, bitpack.ErrDepth) {
		t.Fatalf("cyclic Marshal: %v, want ErrDepth", err)
	}
}

// deltaCount's decoder adds the wire value to what the receiver holds and
// refuses totals above 15: it depends on its receiver.
type (
	deltaCount struct{ N uint8 }
	tDelta     struct {
		A uint8
		C deltaCount
	}
)

var deltaSawNonZero atomic.Bool

func (c *deltaCount) MarshalBits(w *bitio.Writer) error {
	w.WriteBits(uint64(c.N), 4)
	return nil
}

func (c *deltaCount) UnmarshalBits(r *bitio.Reader) error {
	if c.N != 0 {
		deltaSawNonZero.Store(true)
	}
	c.N += uint8(r.ReadBits(4))
	if c.N > 15 {
		return errors.New("count above 15")
	}
	return nil
}

// TestHookReceiver: UnmarshalBits always gets a new zero value, so a
// decode cannot depend on the field's previous value, and the field is set
// only when the whole packet is accepted.
func TestHookReceiver(t *testing.T) {
	deltaSawNonZero.Store(false)
	v := tDelta{A: 1, C: deltaCount{14}}
	if err := bitpack.Unmarshal([]byte{0x07, 0x05}, &v); err != nil {
		t.Fatal(err)
	}
	if v != (tDelta{7, deltaCount{5}}) || deltaSawNonZero.Load() {
		t.Fatalf("got %+v (hook saw a non-zero receiver: %v), want {7 {5}} from a zero receiver", v, deltaSawNonZero.Load())
	}
	// A failure after the hook leaves everything as it was.
	v = tDelta{A: 1, C: deltaCount{14}}
	if err := bitpack.Unmarshal([]byte{0x07, 0x05, 0x00}, &v); !errors.Is(err, bitpack.ErrTrailing) {
		t.Fatalf("err = %v, want ErrTrailing", err)
	}
	if v != (tDelta{1, deltaCount{14}}) {
		t.Fatalf("a failed Unmarshal changed the value to %+v", v)
	}
}

// selfList is a hook type that decodes and encodes its own type, the
// pattern the Unmarshaler documentation shows: the hook's value is a level,
// so each call goes one deeper and MaxDepth stops a hostile chain.
type selfList struct{ Next *selfList }

var selfEncodes, selfDecodes atomic.Int64

func (l *selfList) MarshalBits(w *bitio.Writer) error {
	if selfEncodes.Add(1) > 10000 { // a valve, so a regression fails instead of crashing
		return errors.New("test valve: 10000 nested MarshalBits calls")
	}
	w.WriteBool(l.Next != nil)
	if l.Next == nil {
		return nil
	}
	return bitpack.Encode(w, l.Next)
}

func (l *selfList) UnmarshalBits(r *bitio.Reader) error {
	selfDecodes.Add(1)
	if !r.ReadBool() {
		return r.Err()
	}
	l.Next = new(selfList)
	return bitpack.Decode(r, l.Next)
}

func TestHookOfItsOwnType(t *testing.T) {
	// Three nodes: presence bits 1, 1, 0.
	in := &selfList{Next: &selfList{Next: &selfList{}}}
	packet, err := bitpack.Marshal(in)
	if err != nil || !bytes.Equal(packet, []byte{0x03}) {
		t.Fatalf("Marshal = %x, %v; want 03", packet, err)
	}
	var out selfList
	if err := bitpack.Unmarshal(packet, &out); err != nil || out.Next == nil || out.Next.Next == nil || out.Next.Next.Next != nil {
		t.Fatalf("Unmarshal: %v, %+v", err, out)
	}

	selfDecodes.Store(0)
	err = bitpack.Unmarshal(bytes.Repeat([]byte{0xff}, 1<<16), &selfList{})
	want := "bitpack: decode bitpack_test.selfList: at bit 64: more than 64 nested levels"
	if !errors.Is(err, bitpack.ErrDepth) || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if n := selfDecodes.Load(); n != 64 {
		t.Errorf("UnmarshalBits ran %d times before the depth limit, want 64", n)
	}

	selfEncodes.Store(0)
	cyc := &selfList{}
	cyc.Next = cyc
	if _, err := bitpack.Marshal(cyc); !errors.Is(err, bitpack.ErrDepth) {
		t.Fatalf("cyclic Marshal: %v, want ErrDepth", err)
	}
	if n := selfEncodes.Load(); n != 64 {
		t.Errorf("MarshalBits ran %d times on a cyclic value, want 64", n)
	}
}

// VarU writes a uint32 as 1 to 5 groups of 7 bits, each after a bit that
// says whether another group follows.
type VarU struct{ V uint32 }

func (v *VarU) MarshalBits(w *bitio.Writer) error {
	x := v.V
	for x >= 0x80 {
		w.WriteBits(uint64(x&0x7f)|0x80, 8)
		x >>= 7
	}
	w.WriteBits(uint64(x), 8)
	return w.Err()
}

func (v *VarU) UnmarshalBits(r *bitio.Reader) error {
	var x uint32
	for shift := 0; shift < 35; shift += 7 {
		b := r.ReadBits(8)
		if r.Err() != nil {
			return r.Err()
		}
		x |= uint32(b&0x7f) << shift
		if b < 0x80 {
			v.V = x
			return nil
		}
	}
	return bitpack.ErrRange
}

type promotedState struct {
	VarU
	Health int32  `bits:"range=0..1000"`
	Name   string `bits:"maxlen=15"`
	Bad    uint8  `bits:"range=0..300"`
}

type onlyVarU struct{ VarU }

type ownHooksOverVarU struct {
	VarU
	Health int32 `bits:"range=0..1000"`
}

func (s *ownHooksOverVarU) MarshalBits(w *bitio.Writer) error {
	w.WriteBits(uint64(s.Health), 10)
	return w.Err()
}

func (s *ownHooksOverVarU) UnmarshalBits(r *bitio.Reader) error {
	s.Health = int32(r.ReadBits(10))
	return r.Err()
}

type promotedThroughPointer struct {
	*VarU
	Alive bool
}

type onlyPointerVarU struct{ *VarU }

// TestPromotedHooks: a struct that gets its hooks from an embedded field
// while it has fields of its own is a tag error naming both (bitpack used
// to encode only the embedded field, dropping the rest and never checking
// their tags); a struct that is only the embedded hook type, or that
// declares its own hooks, encodes through them.
func TestPromotedHooks(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{&promotedState{}, "bitpack: type bitpack_test.promotedState field VarU: bitpack_test.promotedState gets MarshalBits/UnmarshalBits from its embedded field VarU, so only VarU would be encoded and its own fields (Health, Name, Bad) never would; define both methods on bitpack_test.promotedState, or give the embedded field a name"},
		// Through a pointer, even alone: a decode's new value has a nil
		// *VarU, which the promoted UnmarshalBits would write through.
		{&promotedThroughPointer{}, "bitpack: type bitpack_test.promotedThroughPointer field VarU: bitpack_test.promotedThroughPointer gets MarshalBits/UnmarshalBits from its embedded pointer field VarU, which is nil in every value a decode creates; define both methods on bitpack_test.promotedThroughPointer"},
		{&onlyPointerVarU{}, "bitpack: type bitpack_test.onlyPointerVarU field VarU: bitpack_test.onlyPointerVarU gets MarshalBits/UnmarshalBits from its embedded pointer field VarU, which is nil in every value a decode creates; define both methods on bitpack_test.onlyPointerVarU"},
	} {
		_, err := bitpack.Marshal(tc.v)
		var te *bitpack.TagError
		if !errors.As(err, &te) || err.Error() != tc.want {
			t.Errorf("%T: %v\nwant %s", tc.v, err, tc.want)
		}
	}
	only := onlyVarU{VarU{V: 300}}
	data, err := bitpack.Marshal(&only)
	if want := []byte{0xac, 0x02}; err != nil || !bytes.Equal(data, want) {
		t.Fatalf("struct{ VarU }: %x, %v; want %x", data, err, want)
	}
	var back onlyVarU
	if err := bitpack.Unmarshal(data, &back); err != nil || back.V != 300 {
		t.Fatalf("struct{ VarU } back: %+v, %v", back, err)
	}
	own := ownHooksOverVarU{VarU{V: 300}, 731}
	if data, err := bitpack.Marshal(&own); err != nil || !bytes.Equal(data, []byte{0xdb, 0x02}) {
		t.Fatalf("own hooks: %x, %v; want db02", data, err)
	}
}

// peekHook decodes its value from a copy of the Reader it was handed,
// then moves the Reader past it: the shape of a hook that peeks, or that
// saves its Reader to backtrack (save := *r; try; *r = save) after a
// refused attempt.
type (
	peekHook struct{ In heavyPages }
	peekList struct {
		L []peekHook `bits:"maxlen=100"`
	}
)

func (h *peekHook) MarshalBits(w *bitio.Writer) error { return bitpack.Encode(w, &h.In) }

func (h *peekHook) UnmarshalBits(r *bitio.Reader) error {
	peek := *r
	if err := bitpack.Decode(&peek, &h.In); err != nil {
		return err
	}
	r.Skip(peek.BitsRead() - r.BitsRead())
	return r.Err()
}

// TestHookReaderCopySharesAllowance: the allowance spent lives in
// the Reader value (its frame), so a decode on a copy of the hook's Reader
// spends from the copy, and decodeHook reloads the unspent budget from the
// Reader the hook returns. Each hook call can then spend the whole
// allowance again.
//
// Input: count 30 (7 bits), then 30 times: length 120 (8 bits) and 120
// zero bits (3847 bits, 481 bytes).
// Observed: Unmarshal accepts it and allocates 29.5 MB (30 × 120 ×
// 8 KiB), against the documented bound of 1 MiB + 64 bytes per bit
// (1294848 bytes). (Marshal refuses the same value: the Writer side
// counts.)
// Expected: the packet is refused (ErrRange, allowance) or costs at most
// the bound: copies of a Reader share one account, e.g. the frame points
// to the spending rather than holding it.
func TestHookReaderCopySharesAllowance(t *testing.T) {
	fs := []any{f{30, 7}}
	for range 30 {
		fs = append(fs, f{120, 8})
		for range 120 {
			fs = append(fs, f{0, 1})
		}
	}
	packet := bitsOf(fs...)
	var v peekList
	var err error
	n := allocatedBy(&v, func() { err = bitpack.Unmarshal(packet, &v) })
	if err == nil && !raceEnabled && n > allowanceBound(packet) {
		t.Errorf("%d-byte packet accepted, %d bytes allocated, bound %d", len(packet), n, allowanceBound(packet))
	}
}

// rewindHook is a careless hook: it peeks a byte and rewinds too far, to
// the packet's start.
type (
	rewindHook struct{ V uint8 }
	rewindMsg  struct {
		A    uint8
		H    rewindHook
		Rest [2]byte
	}
)

func (h rewindHook) MarshalBits(w *bitio.Writer) error { w.WriteBits(uint64(h.V), 8); return w.Err() }
func (h *rewindHook) UnmarshalBits(r *bitio.Reader) error {
	h.V = uint8(r.ReadBits(8))
	r.Rewind(0)
	return r.Err()
}

// TestHookRewindBeforeStart: a failed decode leaves the value as it was, even
// when a hook moves its Reader back before where it started. Observed:
// validation accepts (the fields after the hook re-read the packet), the
// store pass writes A and H, then fails on the hook's negative bit count
// ("field H at bit 8: negative bit count -8", the branch unmarshalIn
// calls unreachable), leaving A = 0x11 and H.V = 0x22 in the value.
// Expected: refused in validation, naming the hook, value untouched.
func TestHookRewindBeforeStart(t *testing.T) {
	v := rewindMsg{A: 7}
	err := bitpack.Unmarshal([]byte{0x11, 0x22}, &v)
	want := "bitpack: decode bitpack_test.rewindMsg: field H at bit 8: UnmarshalBits left the Reader at bit 0, before bit 8 where its value starts"
	if !errors.Is(err, bitpack.ErrRange) || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if v != (rewindMsg{A: 7}) {
		t.Errorf("refused decode changed the value: %+v", v)
	}
}

// hooker is an interface with both hook methods; ifaceEmbed embeds it
// next to a field of its own.
type (
	hooker interface {
		MarshalBits(w *bitio.Writer) error
		UnmarshalBits(r *bitio.Reader) error
	}
	ifaceEmbed struct {
		hooker
		Health int32 `bits:"range=0..1000"`
	}
	ifaceOnly struct{ hooker }
	hookVal   struct{ V uint8 }
)

func (h *hookVal) MarshalBits(w *bitio.Writer) error { w.WriteBits(uint64(h.V), 8); return w.Err() }
func (h *hookVal) UnmarshalBits(r *bitio.Reader) error {
	h.V = uint8(r.ReadBits(8))
	return r.Err()
}

// TestEmbeddedInterfaceHooksRefused: hooks promoted from an embedded
// interface field are promoted hooks too (issue 13 item 4). Observed:
// hookCarrier looks for a *T that implements the hooks, and a pointer to
// an interface has no methods, so the type compiles: Marshal writes only
// the embedded value (05 for Health 700), and every Unmarshal panics with
// a nil pointer dereference (a new value's embedded interface is nil).
// Expected: a *TagError naming the type and the embedded field (also for
// a struct that is only the embedded interface, which panics the same
// way).
func TestEmbeddedInterfaceHooksRefused(t *testing.T) {
	_, err := bitpack.Describe(ifaceEmbed{})
	var te *bitpack.TagError
	want := "bitpack_test.ifaceEmbed gets MarshalBits/UnmarshalBits from its embedded interface field hooker, which is nil in every value a decode creates; define both methods on bitpack_test.ifaceEmbed"
	if !errors.As(err, &te) || te.Type != reflect.TypeFor[ifaceEmbed]() || te.Field != "hooker" || te.Problem != want {
		t.Errorf("Describe: %v, want a *TagError for ifaceEmbed's field hooker: %s", err, want)
	}
	// Alone, too: every decode would call UnmarshalBits on a nil
	// interface.
	if _, err := bitpack.Describe(ifaceOnly{}); !errors.As(err, &te) || te.Field != "hooker" {
		t.Errorf("Describe(ifaceOnly): %v, want a *TagError for its field hooker", err)
	}
	v := ifaceEmbed{hooker: &hookVal{V: 5}, Health: 700}
	if data, err := bitpack.Marshal(&v); err == nil {
		t.Errorf("Marshal wrote %x (Health dropped)", data)
	}
}

// alignedHook is a hook type whose bits depend on where they start: V in 3
// bits, an align, then V again as a byte. On its own (from bit 0) it
// writes 16 bits; at bit 3 of a packet, 13.
type (
	alignedHook   struct{ V uint8 }
	alignedHooked struct {
		A uint8 `bits:"range=0..3"`
		P alignedHook
	}
)

func (p *alignedHook) MarshalBits(w *bitio.Writer) error {
	w.WriteBits(uint64(p.V&7), 3)
	w.Align()
	w.WriteBits(uint64(p.V&7), 8)
	return w.Err()
}

func (p *alignedHook) UnmarshalBits(r *bitio.Reader) error {
	p.V = uint8(r.ReadBits(3))
	r.Align()
	if again := r.ReadBits(8); r.Err() == nil && again != uint64(p.V) {
		return errors.New("the byte is not V")
	}
	return r.Err()
}

// TestHookDeltaComparesBitsOnTheirOwn: a delta's hook value is unchanged
// when it writes, on its own, the bits the base's value writes, as the
// encoder decides, wherever the hook sits in the packet. The delta 2d 05
// (bit 0 changed, bit 1 A unchanged, bit 2 P changed, bits 3-5 V = 5,
// bits 6-7 padding, byte 1 = 5) sends P.V = 5: a change against P.V = 2,
// and none against P.V = 5, although its 13 bits in the packet differ
// from the 16 that P.V = 5 writes from bit 0 (the padding).
func TestHookDeltaComparesBitsOnTheirOwn(t *testing.T) {
	delta := []byte{0x2d, 0x05}
	from, to := alignedHooked{A: 1, P: alignedHook{2}}, alignedHooked{A: 1, P: alignedHook{5}}
	if got, err := bitpack.AppendDelta(nil, &from, &to); err != nil || !bytes.Equal(got, delta) {
		t.Fatalf("AppendDelta = %x, %v; want %x", got, err, delta)
	}
	if got, err := bitpack.AppendDelta(nil, &to, &to); err != nil || !bytes.Equal(got, []byte{0}) {
		t.Fatalf("AppendDelta(to, to) = %x, %v; want 00", got, err)
	}
	var v alignedHooked
	if err := bitpack.UnmarshalDelta(delta, &from, &v); err != nil || v != to {
		t.Fatalf("against P.V = 2: %+v, %v; want %+v", v, err, to)
	}
	v = alignedHooked{A: 3, P: alignedHook{7}}
	err := bitpack.UnmarshalDelta(delta, &to, &v)
	const want = "bitpack: decode bitpack_test.alignedHooked: field P at bit 2: the delta marks the value changed but it is the base's (not canonical)"
	if !errors.Is(err, bitpack.ErrRange) || err.Error() != want {
		t.Fatalf("against P.V = 5: %v\nwant %s", err, want)
	}
	if v != (alignedHooked{A: 3, P: alignedHook{7}}) {
		t.Fatalf("a refused delta changed the target to %+v", v)
	}
}

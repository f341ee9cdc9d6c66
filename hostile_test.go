package bitpack_test

// Regression tests for decoder and layout bugs found by review: each names
// the packet or value that used to go wrong and exactly what must happen
// now.

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// allocatedBy returns the bytes fn allocated. The plan of v's type is
// compiled first, and v's pointer type entered in the cache Marshal and
// Unmarshal share (Marshal enters it before it encodes), so neither is
// counted: that cache is a copy-on-write map, whose first entry of a type
// copies every type cached before it, a cost that depends on which tests
// ran first, not on the decode. Nothing else is warmed up (a scratch value
// kept by an earlier decode could hide an allocation).
func allocatedBy(v any, fn func()) uint64 {
	if _, err := bitpack.Describe(v); err != nil {
		panic(err)
	}
	_, _ = bitpack.Marshal(v) // the pointer-type cache; the verdict does not matter
	var before, after runtimeStats
	before.read()
	fn()
	after.read()
	return after.totalAlloc - before.totalAlloc
}

// Element structs whose only wire field is the first one, with more in
// memory after it: the elements' stride is larger than the field.
type (
	strideEntity struct {
		ID   uint32
		note string
	}
	strideSnap struct {
		Es []strideEntity `bits:"maxlen=4"`
	}
	strideArray struct {
		Es [40]strideEntity
	}
	strideSkipped struct {
		A uint64
		S string `bits:"-"`
	}
	// The sparse field makes this type decode in two passes, writing
	// straight into the target.
	strideTwoPass struct {
		L []strideSkipped `bits:"maxlen=4"`
		S [1]*uint8       `bits:"sparse"`
	}
)

func TestElementStride(t *testing.T) {
	in := strideSnap{Es: []strideEntity{{1, "a"}, {2, "b"}}}
	got, err := bitpack.Marshal(&in)
	if want := bitsOf(f{2, 3}, f{1, 32}, f{2, 32}); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Marshal = %x (%v), want %x", got, err, want)
	}
	var back strideSnap
	if err := bitpack.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if want := []strideEntity{{1, ""}, {2, ""}}; !reflect.DeepEqual(back.Es, want) {
		t.Fatalf("Unmarshal = %+v, want %+v", back.Es, want)
	}

	var arr strideArray
	for i := range arr.Es {
		arr.Es[i] = strideEntity{uint32(100 + i), "x"}
	}
	got, err = bitpack.Marshal(&arr)
	if err != nil || len(got) != 40*4 {
		t.Fatalf("array: %d bytes, %v", len(got), err)
	}
	var arrBack strideArray
	if err := bitpack.Unmarshal(got, &arrBack); err != nil {
		t.Fatal(err)
	}
	for i, e := range arrBack.Es {
		if e.ID != uint32(100+i) || e.note != "" {
			t.Fatalf("Es[%d] = %+v, want ID %d", i, e, 100+i)
		}
	}

	// Two-pass decoding of the packet that used to land wire words on the
	// skipped string's header (a string of length 1000 at 0xdead0000).
	packet := mustHex(t, "0b00000000000000000068f506000000401f00000000000010")
	v := strideTwoPass{L: []strideSkipped{{S: "kept"}}}
	err = bitpack.Unmarshal(packet, &v)
	if err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	for i, e := range v.L {
		if e.S != map[int]string{0: "kept"}[i] {
			t.Fatalf("L[%d].S = %q: the skipped string was written", i, e.S)
		}
	}
	// The words are the elements' A fields: 1, then what used to become
	// the string's pointer and length.
	if want := []uint64{1, 0xdead0000, 1000}; len(v.L) != 3 || v.L[0].A != want[0] || v.L[1].A != want[1] || v.L[2].A != want[2] {
		t.Fatalf("L = %+v, want A = %x", v.L, want)
	}
	if again, err := bitpack.Marshal(&v); err != nil || !bytes.Equal(again, packet) {
		t.Fatalf("re-encoded %x (%v), want %x", again, err, packet)
	}
}

// Recursive types with no struct on the cycle.
type (
	selfPointer *selfPointer
	selfArray   [1]*selfArray
	tSelfPtr    struct{ X selfPointer }
	tSelfArr    struct{ X selfArray }
)

func TestNonStructRecursionDepth(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
	}{{"type P *P", new(tSelfPtr)}, {"type A [1]*A", new(tSelfArr)}} {
		t.Run(tc.name, func(t *testing.T) {
			// Every bit a presence bit saying "one more": the decoder must
			// stop at MaxDepth, not overflow the stack.
			err := bitpack.Unmarshal(bytes.Repeat([]byte{0xff}, 1<<20), tc.v)
			if !errors.Is(err, bitpack.ErrDepth) || !strings.Contains(err.Error(), "more than 64 nested levels") {
				t.Fatalf("err = %v, want ErrDepth", err)
			}
		})
	}
	// A short chain still works: X -> p1 -> p2 -> nil.
	var p2 selfPointer
	p1 := selfPointer(&p2)
	in := tSelfPtr{X: selfPointer(&p1)}
	got, err := bitpack.Marshal(&in)
	if want := bitsOf(f{1, 1}, f{1, 1}, f{0, 1}); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Marshal = %x (%v), want %x", got, err, want)
	}
	var back tSelfPtr
	if err := bitpack.Unmarshal(got, &back); err != nil || back.X == nil || *back.X == nil || **back.X != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	// A cyclic value on encode.
	var cyc selfPointer
	cyc = selfPointer(&cyc)
	if _, err := bitpack.Marshal(&tSelfPtr{X: cyc}); !errors.Is(err, bitpack.ErrDepth) {
		t.Fatalf("cyclic Marshal: %v, want ErrDepth", err)
	}
}

// Padding inside array elements must not let a whole-value copy stand in
// for field copies while a skipped field exists.
type (
	paddedElem struct {
		A uint8
		B uint16
	}
	paddedOuter struct {
		Arr  [17]paddedElem
		Keep [17]uint8 `bits:"-"`
	}
)

func TestDenseCopyKeepsSkippedFields(t *testing.T) {
	var in paddedOuter
	in.Arr[16] = paddedElem{7, 700}
	packet, err := bitpack.Marshal(&in)
	if err != nil {
		t.Fatal(err)
	}
	dst := paddedOuter{Keep: [17]uint8{0: 7, 16: 9}}
	if err := bitpack.Unmarshal(packet, &dst); err != nil {
		t.Fatal(err)
	}
	if dst.Keep[0] != 7 || dst.Keep[16] != 9 || dst.Arr[16] != (paddedElem{7, 700}) {
		t.Fatalf("got %+v", dst)
	}
}

// Element counts times element bits overflow a 32-bit int (CI runs this
// file on a 32-bit platform too: ARMv7 under qemu-user).
type (
	hugeUints struct {
		L []uint64 `bits:"maxlen=67108864"`
	}
	hugeUintsTwoPass struct {
		L []uint64  `bits:"maxlen=67108865"`
		S [1]*uint8 `bits:"sparse"`
	}
)

func TestCountTimesBitsOverflow(t *testing.T) {
	var v hugeUints
	packet := mustHex(t, "00000004") // length 2^26, then 5 bits
	var err error
	if grew := allocatedBy(v, func() { err = bitpack.Unmarshal(packet, &v) }); grew > 64<<10 {
		t.Fatalf("a 4-byte packet allocated %d bytes", grew)
	}
	if want := "bitpack: decode bitpack_test.hugeUints: field L at bit 27: 67108864 elements need at least 4294967296 bits, 5 remain"; !errors.Is(err, bitpack.ErrOverflow) || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}

	w := hugeUintsTwoPass{L: []uint64{42}}
	err = bitpack.Unmarshal(mustHex(t, "0100007c6f5e4d3c2b1a0910"), &w)
	if want := "bitpack: decode bitpack_test.hugeUintsTwoPass: field L at bit 27: 67108865 elements need at least 4294967360 bits, 69 remain"; !errors.Is(err, bitpack.ErrOverflow) || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if len(w.L) != 1 || w.L[0] != 42 {
		t.Fatalf("a failed decode changed the value: len %d", len(w.L))
	}
}

// A slice of arrays of a struct that is itself still being compiled when
// the array is (U6 -> W6 -> [40]U6): the array's minimum size must count
// its elements.
type (
	recU6 struct {
		X    uint32
		Next *recW6
	}
	recW6   struct{ Arr [40]recU6 }
	recTop6 struct {
		P  *recU6
		Ws []recW6 `bits:"maxlen=100000"`
	}
)

func TestMinBitsThroughRecursion(t *testing.T) {
	l, err := bitpack.Describe(recW6{})
	if err != nil || l.MinBits != 40*33 {
		t.Fatalf("Describe: MinBits %d (%v), want %d", l.MinBits, err, 40*33)
	}
	var v recTop6
	packet := mustHex(t, "400d03") // P nil, 100000 Ws
	if grew := allocatedBy(v, func() { err = bitpack.Unmarshal(packet, &v) }); grew > 64<<10 {
		t.Fatalf("a 3-byte packet allocated %d bytes", grew)
	}
	if !errors.Is(err, bitpack.ErrOverflow) || !strings.Contains(err.Error(), "field Ws at bit 18: 100000 elements need at least 132000000 bits, 6 remain") {
		t.Fatalf("err = %v", err)
	}
}

type (
	bigPointee  struct{ D [1 << 20]byte }
	tBigPointer struct{ P *bigPointee }
)

func TestPointeeNotAllocatedBeforeItsBits(t *testing.T) {
	var v tBigPointer
	var err error
	if grew := allocatedBy(v, func() { err = bitpack.Unmarshal([]byte{0x01}, &v) }); grew > 64<<10 {
		t.Fatalf("a 1-byte packet allocated %d bytes", grew)
	}
	// The pointee is charged, when its presence bit says it is there,
	// before it is made: 1 MiB and the decode's own 1 KiB are past a 1-byte
	// packet's allowance.
	if want := "bitpack: decode bitpack_test.tBigPointer: field P at bit 0: a value of 1048576 bytes would take the decode past the 1049088 bytes it may allocate for this input (1 MiB plus 64 bytes per bit)"; !errors.Is(err, bitpack.ErrRange) || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if v.P != nil {
		t.Fatal("value changed")
	}
}

// What decodes allocate into a scratch value counts towards dropping it,
// strings and pointees as well as slices.
type (
	keepName struct {
		S string `bits:"maxlen=60000"`
	}
	keepNames struct {
		L []keepName `bits:"maxlen=64"`
	}
	keepBig     struct{ D [65536]byte }
	keepPointer struct {
		L []*keepBig `bits:"maxlen=64"`
	}
)

func TestScratchDropsBigAllocations(t *testing.T) {
	names := keepNames{L: make([]keepName, 64)}
	for i := range names.L {
		names.L[i].S = strings.Repeat("n", 60000)
	}
	ptrs := keepPointer{L: make([]*keepBig, 64)}
	for i := range ptrs.L {
		ptrs.L[i] = new(keepBig)
	}
	for _, tc := range []struct {
		big, small any
	}{
		{&names, &keepNames{L: []keepName{{"a"}}}},
		{&ptrs, &keepPointer{L: []*keepBig{nil}[:0]}},
	} {
		typ := reflect.TypeOf(tc.big).Elem()
		small, err := bitpack.Marshal(tc.small)
		if err != nil {
			t.Fatal(err)
		}
		if err := bitpack.Unmarshal(small, reflect.New(typ).Interface()); err != nil {
			t.Fatal(err)
		}
		if !bitpack.ScratchKept(typ) {
			t.Fatalf("%v: a small decode's scratch value was not kept", typ)
		}
		big, err := bitpack.Marshal(tc.big)
		if err != nil {
			t.Fatal(err)
		}
		if err := bitpack.Unmarshal(big, reflect.New(typ).Interface()); err != nil {
			t.Fatal(err)
		}
		// The scratch value itself is kept (making it again would cost
		// the next packet), what the big decode allocated into it not.
		if !bitpack.ScratchKept(typ) || bitpack.ScratchHoldsBuffers(typ) {
			t.Fatalf("%v: after a decode of %d bytes of packet the scratch value is kept %v, holds its buffers %v; want kept, not holding them", typ, len(big), bitpack.ScratchKept(typ), bitpack.ScratchHoldsBuffers(typ))
		}
	}
}

// A union's largest member bounds its size; member rows are labelled with
// their whole type name.
type (
	sizedMsg    interface{ sized() }
	bigMember   struct{ D [100]byte }
	smallMember struct{ B bool }
	tSizedUnion struct{ M sizedMsg }
)

func (bigMember) sized()   {}
func (smallMember) sized() {}

func TestUnionLayoutBounds(t *testing.T) {
	u, err := bitpack.NewUnion(bigMember{}, smallMember{})
	if err != nil {
		t.Fatal(err)
	}
	if err := bitpack.RegisterUnion[sizedMsg](u); err != nil {
		t.Fatal(err)
	}
	l, err := bitpack.Describe(tSizedUnion{})
	if err != nil {
		t.Fatal(err)
	}
	// Index bit, then a bool; or index bit, up to 7 bits of alignment and
	// 100 bytes.
	if l.MinBits != 1+1 || l.MaxBits != 1+7+800 {
		t.Fatalf("bits %d–%d, want 2–808", l.MinBits, l.MaxBits)
	}
	got, err := bitpack.Marshal(&tSizedUnion{M: bigMember{}})
	if err != nil || 8*len(got) < l.MaxBits {
		t.Fatalf("the big member takes %d bytes (%v), more than MaxBits %d", len(got), err, l.MaxBits)
	}
	for _, want := range []string{"  (bitpack_test.bigMember) ", "  (bitpack_test.smallMember) "} {
		if !strings.Contains(l.String(), want) {
			t.Errorf("layout lacks a row %q:\n%s", want, l)
		}
	}
}

// A bit-count error inside a one-field element names the field; a
// slice's elements are checked at their count first.
type (
	healthOnly struct {
		Health int32 `bits:"range=0..1000"`
	}
	tHealthList struct {
		Players []healthOnly `bits:"maxlen=8"`
	}
	tHealthArray struct {
		A       uint8 `bits:"bits=4"`
		Players [3]healthOnly
		Names   []string `bits:"maxlen=1,elem.maxlen=1"` // not a flat plan: the array is decoded by its kind
	}
)

func TestScalarElementErrorPath(t *testing.T) {
	err := bitpack.Unmarshal(mustHex(t, "0200"), &tHealthList{})
	if want := "bitpack: decode bitpack_test.tHealthList: field Players at bit 4: 2 elements need at least 20 bits, 12 remain"; !errors.Is(err, bitpack.ErrOverflow) || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	err = bitpack.Unmarshal(mustHex(t, "0200"), &tHealthArray{})
	if want := "bitpack: decode bitpack_test.tHealthArray: field Players[1].Health at bit 14: needs 10 bits, 2 remain"; !errors.Is(err, bitpack.ErrOverflow) || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

// Minimum sizes across cycles: an array whose element type is still being
// costed, and a union member that contains the union again.
type (
	cycMsg interface{ cyc() }
	cycA   struct {
		X uint32
		M cycMsg
	}
	cycB struct{ Y [100]byte }
)

func (cycA) cyc() {}
func (cycB) cyc() {}

func TestLayoutMinimaAcrossCycles(t *testing.T) {
	l, err := bitpack.Describe(recU6{})
	if err != nil {
		t.Fatal(err)
	}
	// recU6: X, then Next's presence bit. Its Next.Arr row: 40 of them.
	if l.MinBits != 33 {
		t.Errorf("recU6 MinBits = %d, want 33", l.MinBits)
	}
	found := false
	for _, r := range l.Rows() {
		if r.Path == "Next.Arr" {
			found = true
			if r.MinBits != 40*33 {
				t.Errorf("row %s: MinBits %d, want %d", r.Path, r.MinBits, 40*33)
			}
		}
	}
	if !found {
		t.Errorf("no Next.Arr row in\n%s", l)
	}

	u, err := bitpack.NewUnion(cycA{}, cycB{})
	if err != nil {
		t.Fatal(err)
	}
	if err := bitpack.RegisterUnion[cycMsg](u); err != nil {
		t.Fatal(err)
	}
	l, err = bitpack.Describe(cycA{})
	if err != nil {
		t.Fatal(err)
	}
	// X, the index bit, then the cheaper member: cycB's 100 bytes (a cycA
	// would need another member inside it).
	if want := 32 + 1 + 800; l.MinBits != want || l.MaxBits != -1 {
		t.Fatalf("cycA bits %d–%d, want %d–unbounded", l.MinBits, l.MaxBits, want)
	}
	smallest, err := bitpack.Marshal(&cycA{M: cycB{}})
	if err != nil || len(smallest) != (833+7)/8 {
		t.Fatalf("the smallest cycA takes %d bytes (%v), want %d", len(smallest), err, (833+7)/8)
	}
}

// A maxlen whose slice could not be allocated, or that a few bytes of
// packet could fill, is refused when the plan compiles, instead of letting
// a short packet make Go's allocator panic or allocate gigabytes.
type (
	hugeElem struct {
		Pad [1 << 30]byte `bits:"-"`
	}
	tHugeSlice struct {
		L []hugeElem `bits:"maxlen=1073741824"`
	}
	tHugeSparse struct {
		L []*uint8 `bits:"sparse,maxlen=100000000"`
	}
	tFreeInts struct {
		L []int32 `bits:"maxlen=100000000,range=0..0"`
	}
	// At the limit: 1 MiB of pointers or of zero-bit elements.
	tSparseAtLimit struct {
		L []*uint8 `bits:"sparse,maxlen=131072"`
	}
	tFreeAtLimit struct {
		L []int32 `bits:"maxlen=262144,range=7..7"`
	}
)

func TestSliceAllocationBoundAtCompile(t *testing.T) {
	ptr := strconv.IntSize / 8
	for _, tc := range []struct {
		v       any
		problem string
	}{
		{tHugeSlice{}, fmt.Sprintf("maxlen=1073741824 of bitpack_test.hugeElem (1073741824 bytes each) exceeds the %d bytes one decoded slice may take", uint64(maxSliceBytes))},
		{tHugeSparse{}, fmt.Sprintf("maxlen=100000000: absent elements take no bits on the wire, so a packet of a few bytes could make the decoder allocate 100000000×%d bytes; at most 1048576 bytes (maxlen %d) is allowed", ptr, 1<<20/ptr)},
		{tFreeInts{}, "maxlen=100000000: its elements can take no bits on the wire, so a packet of a few bytes could make the decoder allocate 100000000×4 bytes; at most 1048576 bytes (maxlen 262144) is allowed"},
	} {
		_, err := bitpack.Describe(tc.v)
		var te *bitpack.TagError
		if !errors.As(err, &te) || te.Field != "L" || te.Problem != tc.problem {
			t.Errorf("%T: %v\nwant problem %q", tc.v, err, tc.problem)
		}
		// Decoding the packets that used to panic or allocate gigabytes
		// is the same error.
		for _, packet := range []string{"feffff7fc0ffffff0f", "ffffff7f", "00000040"} {
			if err := bitpack.Unmarshal(mustHex(t, packet), reflect.New(reflect.TypeOf(tc.v)).Interface()); !errors.As(err, &te) {
				t.Errorf("%T: Unmarshal(%s) = %v, want the TagError", tc.v, packet, err)
			}
		}
	}
	// At the compile-time limit, the work allowance (4096 + 64 values per
	// bit of the packet's whole bytes) decides: neither the decoder nor
	// Marshal takes 131072 free slots (16384 values: 8 slots cost one) or
	// 262144 free elements (64 values each: they can take no bits) from a
	// few bytes; thousands of slots decode, and 80 free elements (their
	// 19-bit length is a 3-byte packet: 5632 values, 5121 spent).
	atLimit := tSparseAtLimit{L: make([]*uint8, 131072)}
	if _, err := bitpack.Marshal(&atLimit); err == nil || err.Error() != "bitpack: encode bitpack_test.tSparseAtLimit: field L: 16384 values would take the decode past the 7680"+workRefusal {
		t.Errorf("131072 free slots: %v", err)
	}
	free := tFreeAtLimit{L: make([]int32, 262144)}
	for i := range free.L {
		free.L[i] = 7
	}
	if _, err := bitpack.Marshal(&free); err == nil || err.Error() != "bitpack: encode bitpack_test.tFreeAtLimit: field L: 16777216 values would take the decode past the 5632"+workRefusal {
		t.Errorf("262144 free elements: %v", err)
	}
	in := tSparseAtLimit{L: make([]*uint8, 4000)}
	checkFullLength(t, &in, &tSparseAtLimit{}, func(v any) int { return len(v.(*tSparseAtLimit).L) })
	in2 := tFreeAtLimit{L: free.L[:80]}
	checkFullLength(t, &in2, &tFreeAtLimit{}, func(v any) int { return len(v.(*tFreeAtLimit).L) })
}

// checkFullLength decodes the encoding of in, a value at its type's
// maxlen, into out: it decodes, to the full length, allocating about what
// the limit allows.
func checkFullLength(t *testing.T, in, out any, length func(any) int) {
	t.Helper()
	packet, err := bitpack.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	grew := allocatedBy(out, func() { err = bitpack.Unmarshal(packet, out) })
	if err != nil || length(out) != length(in) {
		t.Fatalf("%T: Unmarshal of %d bytes: length %d, %v", in, len(packet), length(out), err)
	}
	if bound := allowanceBound(packet); grew > bound {
		t.Errorf("%T: decoding allocated %d bytes, over %d", in, grew, bound)
	}
}

// maxSliceBytes mirrors bitpack's limit: min(MaxInt/2, 1 TiB).
const maxSliceBytes = min(math.MaxInt/2, 1<<40)

// Values that take no or few bits on the wire, nested or repeated so that
// each one stays within what compiling allows for a single slice (1 MiB)
// but together they would not.
type (
	zeroBitElem struct {
		X int64 `bits:"range=5..5"`
	}
	innerFree struct {
		E []zeroBitElem `bits:"maxlen=131072"` // 131072×8 bytes: 1 MiB, 0 bits each
	}
	outerFree struct {
		In []innerFree `bits:"maxlen=64"`
	}
	zeroBitBig struct {
		A [1 << 16]int64 `bits:"range=0..0"` // 512 KiB, 0 bits
	}
	zeroBitPointers struct {
		P [64]*zeroBitBig
	}
	emptyElem         struct{ A [0]int32 }
	emptyElemsTooMany struct {
		Z []emptyElem `bits:"maxlen=2147483647"`
	}
	// Wide values for one bit: a union member (after its index) and a
	// pointee (after its presence bit).
	bigMsg    interface{ isBig() }
	smallBig  struct{ B bool }
	bigUnions struct {
		M []bigMsg `bits:"maxlen=64"`
	}
	bigOneBit struct {
		B bool
		A [1 << 16]int64 `bits:"range=0..0"`
	}
	bigOneBitPointers struct{ P [64]*bigOneBit }
	// A hook that reads nothing, and one that reads a bit and then
	// decodes an innerFree through bitpack (its decode spends from the
	// same budget).
	silentHook  struct{}
	silentHooks struct {
		H []silentHook `bits:"maxlen=32768"`
	}
	nestingFreeHook struct{ In innerFree }
	nestingHooks    struct {
		H []nestingFreeHook `bits:"maxlen=8"`
	}
)

func (zeroBitBig) isBig() {}
func (smallBig) isBig()   {}

func init() {
	u, err := bitpack.NewUnion(zeroBitBig{}, smallBig{})
	if err != nil {
		panic(err)
	}
	if err := bitpack.RegisterUnion[bigMsg](u); err != nil {
		panic(err)
	}
}

var silentCalls atomic.Int64

func (silentHook) MarshalBits(*bitio.Writer) error { return nil }
func (*silentHook) UnmarshalBits(*bitio.Reader) error {
	silentCalls.Add(1)
	return nil
}

func (h nestingFreeHook) MarshalBits(w *bitio.Writer) error {
	w.WriteBool(true)
	return bitpack.Encode(w, &h.In)
}

func (h *nestingFreeHook) UnmarshalBits(r *bitio.Reader) error {
	if !r.ReadBool() {
		return r.Err()
	}
	return bitpack.Decode(r, &h.In)
}

// bitString packs (value, width) pairs LSB first, as bitio does.
func bitString(fields ...[2]uint64) []byte {
	w := bitio.NewWriter(nil)
	for _, f := range fields {
		w.WriteBits(f[0], int(f[1]))
	}
	return w.Bytes()
}

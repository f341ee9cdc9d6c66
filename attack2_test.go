package bitpack_test

// Attacker review of maps, stream allowances and quaternion shapes (the
// attack2 branch). Each test here fails on the code it was written
// against; its comment gives the input, what was observed and what is
// expected.

import (
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/bitpacktest"
)

// retainedHeap returns the live heap after the garbage collector has run
// (twice: sync.Pools are emptied over two cycles).
func retainedHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// a2BigMap is a type of its own, so that its scratch value starts fresh.
type a2BigMap struct {
	M map[uint16]uint64 `bits:"maxlen=65535"`
}

// a2MapPacket is count n (16 bits), then keys 0..n-1 (16 bits) each with
// value k (64 bits).
func a2MapPacket(n int) []byte {
	fs := []any{f{uint64(n), 16}}
	for k := range n {
		fs = append(fs, f{uint64(k), 16}, f{uint64(k), 64})
	}
	return bitsOf(fs...)
}

// a2DecodeIntoKeptMap decodes small, big, small into one value that keeps
// a non-nil map (a server reusing its message value), then drops it.
//
//go:noinline
func a2DecodeIntoKeptMap(t *testing.T, small, big []byte) {
	v := a2BigMap{M: map[uint16]uint64{}}
	for _, p := range [][]byte{small, big, small} {
		if err := bitpack.Unmarshal(p, &v); err != nil {
			t.Fatal(err)
		}
	}
	if len(v.M) != 1 || v.M[0] != 0 {
		t.Fatalf("decoded %v", v.M)
	}
}

// TestAttack2MapScratchPinsGrownMap: a map the scratch value already has
// is reused (cleared, then filled) and grows as entries go in, but that
// growth is never counted in d.grown (decodeMap calls d.grow only when it
// makes a new map), so scratchKeepLimit never releases it: the scratch
// value, kept forever in plan.spare, pins the largest map any packet ever
// made it hold.
//
// Input: Unmarshal of a 1-entry packet, then of a 60000-entry packet
// (a2MapPacket(60000), 600002 bytes, accepted), then the 1-entry packet
// again, all into one value whose map is non-nil (commit copies into it,
// so the scratch keeps its own map), then the value is dropped.
// Observed: about 2.3 MB of heap stays live after GC (the scratch's
// 60000-entry table). And every later small decode of the type clears
// that table at commit (sm.Clear() scans all of it when it holds an
// entry): a 12-byte packet then took 44 µs instead of 0.33 µs (measured
// once, 2000 decodes each; not asserted) — work its bits do not pay for.
// Expected: as for slices (decodeSlice counts growth past the capacity),
// the growth counts toward scratchKeepLimit (64 KiB) and the scratch lets
// the map go: under 256 KiB stays live.
func TestAttack2MapScratchPinsGrownMap(t *testing.T) {
	if _, err := bitpack.Describe(a2BigMap{}); err != nil {
		t.Fatal(err)
	}
	small := a2MapPacket(1)
	big := a2MapPacket(60000)
	base := retainedHeap()
	a2DecodeIntoKeptMap(t, small, big)
	after := retainedHeap()
	runtime.KeepAlive(small)
	runtime.KeepAlive(big)
	if after > base && after-base > 256<<10 {
		t.Errorf("%d bytes stay live after the decodes, the value dropped; want under %d (the scratch value keeps its grown map)", after-base, 256<<10)
	}
}

type a2PtrMap struct {
	P *map[uint8]bool `bits:"maxlen=2"`
}

// TestAttack2MapNilOrEmptyDependsOnHistory: the same packet decoded into
// the same zero value gives a nil map or an empty non-nil one depending on
// what earlier decodes of the type left in the scratch value.
//
// Packet `zero` = presence bit 1, count 0 (2 bits): *P is an empty map.
// Into a zero a2PtrMap on a fresh type: *P == nil (as docs/wire.md says:
// "the Go decoder leaves a nil map nil for a count of 0"). After one
// decode of presence 1, count 1, key 3, true into a value whose P and map
// are non-nil (commit fills them in place, so the scratch keeps its
// pointee and its map), the same `zero` packet into a new zero a2PtrMap
// gives *P == map[] (non-nil): decodeMap clears the scratch's map rather
// than leaving it nil, and commitPointee hands the pointee over, map and
// all. Slices do not do this (the same sequence with a []uint8 in the
// pointee gives nil both times).
// Expected: the result does not depend on earlier decodes: *P nil both
// times.
func TestAttack2MapNilOrEmptyDependsOnHistory(t *testing.T) {
	zero := bitsOf(f{1, 1}, f{0, 2})
	one := bitsOf(f{1, 1}, f{1, 2}, f{3, 8}, f{1, 1})
	var first a2PtrMap
	if err := bitpack.Unmarshal(zero, &first); err != nil || first.P == nil || *first.P != nil {
		t.Fatalf("first decode: %v, %v", first.P, err)
	}
	m := map[uint8]bool{9: true}
	kept := a2PtrMap{P: &m}
	if err := bitpack.Unmarshal(one, &kept); err != nil || !reflect.DeepEqual(m, map[uint8]bool{3: true}) {
		t.Fatalf("in place: %v, %v", m, err)
	}
	var again a2PtrMap
	if err := bitpack.Unmarshal(zero, &again); err != nil || again.P == nil {
		t.Fatalf("again: %v, %v", again.P, err)
	}
	if *again.P != nil {
		t.Errorf("the same packet into a zero value: *P = %#v the second time, nil the first", *again.P)
	}
}

// A blob hook as the package documents it (see withinBlob in
// hooks_buffer_test.go): MarshalBits writes the value's Marshal as a blob,
// UnmarshalBits decodes the blob with UnmarshalWithin, within the packet's
// allowances and MaxDepth.
type (
	a2Heavy struct {
		L []rvPadded `bits:"maxlen=255"` // 1 bit, 8 KiB charged (twice 4 KiB), an element
	}
	a2HeavyBlob struct{ In a2Heavy }
	a2TwoBlobs  struct{ A, B a2HeavyBlob }
)

func (h *a2HeavyBlob) MarshalBits(w *bitio.Writer) error {
	return writeBlob(w, &h.In, func(v any) ([]byte, error) { return bitpack.MarshalWithin(w, v) })
}

func (h *a2HeavyBlob) UnmarshalBits(r *bitio.Reader) error {
	b := readBlob(r)
	if r.Err() != nil {
		return r.Err()
	}
	return bitpack.UnmarshalWithin(r, b, &h.In)
}

// TestAttack2BlobMarshalAcceptsUnmarshalRefuses: the documented blob hook
// can only encode its value with plain Marshal (there is no encoding
// counterpart of UnmarshalWithin, and Union has neither), whose allowance
// check is a new one for the blob alone, while UnmarshalWithin spends
// from the packet's one allowance. So Marshal checks each blob against
// 1 MiB and the decoder all of them together.
//
// Input: a2TwoBlobs with 100 zero elements in each blob (each blob 14
// bytes, charging 100 × 8 KiB = 800 KiB: Marshal accepts it).
// Observed: Marshal returns a 32-byte packet; Unmarshal of it refuses
// "field B.L at bit 128: 100 values of 4096 bytes would take the decode
// past the 1064960 bytes it may allocate for this input".
// Expected (doc.go: "every value Marshal accepts decodes"): Marshal
// refuses the value, or the decoder accepts the packet — e.g. an encode
// for hooks that counts a blob into the hook Writer's frame.
func TestAttack2BlobMarshalAcceptsUnmarshalRefuses(t *testing.T) {
	v := a2TwoBlobs{A: a2HeavyBlob{a2Heavy{L: make([]rvPadded, 100)}}, B: a2HeavyBlob{a2Heavy{L: make([]rvPadded, 100)}}}
	packet, err := bitpack.Marshal(&v)
	if err != nil {
		return // refused on both sides: consistent
	}
	var back a2TwoBlobs
	if err := bitpack.Unmarshal(packet, &back); err != nil {
		t.Errorf("Marshal accepted the value (%d bytes), Unmarshal refuses its packet: %v", len(packet), err)
	}
}

// A linked list carried as nested blobs: a presence bit, then the next
// node as a blob (16-bit length, bytes), decoded with UnmarshalWithin.
type (
	a2ChainNode struct {
		V    uint8
		Next a2ChainLink
	}
	a2ChainLink struct{ N *a2ChainNode }
)

func (h *a2ChainLink) MarshalBits(w *bitio.Writer) error {
	if h.N == nil {
		w.WriteBits(0, 1)
		return w.Err()
	}
	w.WriteBits(1, 1)
	return writeBlob(w, h.N, func(v any) ([]byte, error) { return bitpack.MarshalWithin(w, v) })
}

func (h *a2ChainLink) UnmarshalBits(r *bitio.Reader) error {
	if r.ReadBits(1) == 0 {
		return r.Err()
	}
	b := readBlob(r)
	if r.Err() != nil {
		return r.Err()
	}
	h.N = new(a2ChainNode)
	return bitpack.UnmarshalWithin(r, b, h.N)
}

// TestAttack2BlobDepthMarshalAcceptsUnmarshalRefuses: the same asymmetry
// for MaxDepth. Each blob's Marshal starts again at depth 0, so encoding
// a chain of blob hooks has no depth limit, while UnmarshalWithin counts
// every level against the packet's MaxDepth.
//
// Input: a chain of 40 a2ChainNodes (V = 0..39 below the root).
// Observed: Marshal returns 162 bytes; Unmarshal refuses them with
// ErrDepth "more than 64 nested levels".
// Expected: Marshal refuses (ErrDepth) what its decoder refuses, as it
// does for hooks that Encode on the Writer they are handed.
func TestAttack2BlobDepthMarshalAcceptsUnmarshalRefuses(t *testing.T) {
	var root a2ChainNode
	cur := &root
	for i := range 40 {
		cur.Next.N = &a2ChainNode{V: uint8(i)}
		cur = cur.Next.N
	}
	packet, err := bitpack.Marshal(&root)
	if err != nil {
		return
	}
	var back a2ChainNode
	if err := bitpack.Unmarshal(packet, &back); err != nil {
		msg := err.Error()
		if len(msg) > 200 {
			msg = msg[:100] + " ... " + msg[len(msg)-100:]
		}
		t.Errorf("Marshal accepted a 40-node chain (%d bytes), Unmarshal refuses it: depth %v: %s", len(packet), errors.Is(err, bitpack.ErrDepth), msg)
	}
}

// a2PeekHook decodes its value from a copy of the Reader it was handed,
// then moves the Reader past it: the shape of a hook that peeks, or that
// saves its Reader to backtrack (save := *r; try; *r = save) after a
// refused attempt.
type (
	a2PeekHook struct{ In a2Heavy }
	a2PeekList struct {
		L []a2PeekHook `bits:"maxlen=100"`
	}
)

func (h *a2PeekHook) MarshalBits(w *bitio.Writer) error { return bitpack.Encode(w, &h.In) }

func (h *a2PeekHook) UnmarshalBits(r *bitio.Reader) error {
	peek := *r
	if err := bitpack.Decode(&peek, &h.In); err != nil {
		return err
	}
	r.Skip(peek.BitsRead() - r.BitsRead())
	return r.Err()
}

// TestAttack2HookReaderCopyRefundsAllowance: the allowance spent lives in
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
func TestAttack2HookReaderCopyRefundsAllowance(t *testing.T) {
	fs := []any{f{30, 7}}
	for range 30 {
		fs = append(fs, f{120, 8})
		for range 120 {
			fs = append(fs, f{0, 1})
		}
	}
	packet := bitsOf(fs...)
	var v a2PeekList
	var err error
	n := allocatedBy(&v, func() { err = bitpack.Unmarshal(packet, &v) })
	if err == nil && !raceEnabled && n > allowanceBound(packet) {
		t.Errorf("%d-byte packet accepted, %d bytes allocated, bound %d", len(packet), n, allowanceBound(packet))
	}
}

type a2Tiny struct{ A uint8 }

// TestAttack2UnmarshalWithinOutsideHook: UnmarshalWithin's doc says
// "Outside a hook (r was not handed to one), it is Unmarshal", but it
// continues r's frame whenever the frame is active — also after a plain
// Decode on r, outside any hook — so its allowance is r's, not buf's.
//
// Input: r over the single byte 0x07; Decode(r, &a2Tiny{}) (accepted);
// then UnmarshalWithin(r, a2MapPacket(60000), &a2BigMap{}), a packet
// Unmarshal accepts.
// Observed: refused, ErrRange, "field M at bit 0: 120000 values would
// take the decode past the 4608 values it may visit for this input" (the
// work allowance of r's 8 bits).
// Expected: what Unmarshal gives: nil.
func TestAttack2UnmarshalWithinOutsideHook(t *testing.T) {
	packet := a2MapPacket(60000)
	var plain a2BigMap
	if err := bitpack.Unmarshal(packet, &plain); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	r := bitio.NewReader([]byte{7})
	if err := bitpack.Decode(r, &a2Tiny{}); err != nil {
		t.Fatal(err)
	}
	var within a2BigMap
	if err := bitpack.UnmarshalWithin(r, packet, &within); err != nil {
		t.Errorf("UnmarshalWithin outside a hook refuses what Unmarshal accepts: %v", err)
	}
}

// Four-float quaternion structs whose field names are not X, Y, Z, W.
type (
	// gonum.org/v1/gonum/num/quat.Number: the real (w) part first.
	a2GonumQuat struct{ Real, Imag, Jmag, Kmag float64 }
	a2WIJK      struct{ W, I, J, K float32 } // W is even named
	a2SXYZ      struct{ S, X, Y, Z float32 } // X, Y, Z named, S scalar
)

// TestAttack2QuatNamesOutOfOrder: a struct of four floats not named
// exactly W, X, Y, Z is read in declaration order as x, y, z, w, even
// when its names say otherwise: gonum's quat.Number{Real, Imag, Jmag,
// Kmag} sends Real (its w) as x and Kmag as w; {W, I, J, K} sends the
// field named W as x; {S, X, Y, Z} sends the field named X as y. All
// three compile (QuatPaths w = [3]), so the identity Number{Real: 1}
// travels as a 180° turn about x (L = 0) — silently wrong rotations.
// The issue (15 item 7) asks to refuse other shapes "with an error that
// says how to tag them".
// Expected: a *TagError pointing at wxyz (or w read from the field the
// names make w: path [0]); never w = the last field.
func TestAttack2QuatNamesOutOfOrder(t *testing.T) {
	for _, v := range []any{
		struct {
			Q a2GonumQuat `bits:"quat,bits=9"`
		}{},
		struct {
			Q a2WIJK `bits:"quat,bits=9"`
		}{},
		struct {
			Q a2SXYZ `bits:"quat,bits=9"`
		}{},
	} {
		l, err := bitpack.Describe(v)
		var te *bitpack.TagError
		if errors.As(err, &te) {
			continue
		}
		if err != nil {
			t.Errorf("%T: %v", v, err)
			continue
		}
		q := l.Root.Fields[0]
		if !reflect.DeepEqual(q.QuatPaths[3], []int{0}) {
			t.Errorf("%s: compiles with w read from field %v and x from %v", q.Type, q.QuatPaths[3], q.QuatPaths[0])
		}
	}
	// What the identity becomes: L = 0 (x), codes 255 255 255 — not the
	// identity's L = 3.
	id := struct {
		Q a2GonumQuat `bits:"quat,bits=9"`
	}{Q: a2GonumQuat{Real: 1}}
	if got, err := bitpack.Marshal(&id); err == nil && got[0]&3 != 3 {
		t.Errorf("Number{Real: 1}, the identity, encodes with L = %d: % x", got[0]&3, got)
	}
}

// TestAttack2BitpacktestMaps: bitpacktest (CheckRoundTrip, Gen, Fuzz), the
// documented way to property-test and fuzz one's own types, refuses every
// type that holds a map.
// Observed: "bitpacktest: bitpack_test.tInventory.Items
// (map[uint8]uint16): layout kind map is not supported by this version of
// bitpacktest". Expected: maps generated (at most maxlen entries, keys in
// their tag's range) and compared like the other kinds.
func TestAttack2BitpacktestMaps(t *testing.T) {
	bitpacktest.CheckRoundTrip[tInventory](t)
}

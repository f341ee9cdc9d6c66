package bitpack_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// Hooks that carry a bitpack value as a blob of bytes of their own: a
// 16-bit length, then the bytes (aligned), decoded with Unmarshal (a new
// decode), UnmarshalWithin (part of the hook's decode) or a Union's
// Unmarshal.
type (
	blobInner struct {
		A uint16
		B uint8
		C uint8 `bits:"range=0..9"` // at bit 24 of the blob
	}
	plainBlob  struct{ In blobInner }
	withinBlob struct{ In blobInner }
	unionBlob  struct{ In any }
	blobOuter  struct {
		Lead  uint8
		Plain plainBlob
	}
	withinOuter struct {
		Lead   uint8
		Within withinBlob
	}
	unionOuter struct {
		Lead uint8
		U    unionBlob
	}
	uA struct{ X uint8 }
	uB struct {
		V [2]uint8 `bits:"range=0..9"`
	}
)

var blobUnion, _ = bitpack.NewUnion(uA{}, uB{})

func writeBlob(w *bitio.Writer, v any, marshal func(any) ([]byte, error)) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	w.WriteBits(uint64(len(b)), 16)
	w.WriteBytes(b)
	return w.Err()
}

func readBlob(r *bitio.Reader) []byte {
	n := r.ReadBits(16)
	if r.Err() != nil || n > uint64(r.BitsRemaining()/8) {
		r.ReadBytes(make([]byte, r.BitsRemaining()/8+1)) // fail as a short packet
		return nil
	}
	b := make([]byte, n)
	r.ReadBytes(b)
	return b
}

func (h *plainBlob) MarshalBits(w *bitio.Writer) error {
	return writeBlob(w, &h.In, bitpack.Marshal)
}
func (h *plainBlob) UnmarshalBits(r *bitio.Reader) error {
	b := readBlob(r)
	if r.Err() != nil {
		return r.Err()
	}
	return bitpack.Unmarshal(b, &h.In)
}
func (h *withinBlob) MarshalBits(w *bitio.Writer) error {
	return writeBlob(w, &h.In, func(v any) ([]byte, error) { return bitpack.MarshalWithin(w, v) })
}
func (h *withinBlob) UnmarshalBits(r *bitio.Reader) error {
	b := readBlob(r)
	if r.Err() != nil {
		return r.Err()
	}
	return bitpack.UnmarshalWithin(r, b, &h.In)
}
func (h *unionBlob) MarshalBits(w *bitio.Writer) error {
	return writeBlob(w, h.In, blobUnion.Marshal)
}
func (h *unionBlob) UnmarshalBits(r *bitio.Reader) error {
	b := readBlob(r)
	if r.Err() != nil {
		return r.Err()
	}
	v, err := blobUnion.Unmarshal(b)
	h.In = v
	return err
}

// TestHookBufferBits: an error from a decode of the hook's own buffer is
// reported at the hook's bit in the packet, and says where in the buffer
// it was (it used to name the buffer's bit as if it were the packet's); a
// Union's error keeps naming the member type.
func TestHookBufferBits(t *testing.T) {
	// Lead (8 bits), the length (16), then the blob from bit 24: A, B, C=12.
	blob := []byte{0x34, 0x12, 0x56, 12}
	packet := append([]byte{0xaa, byte(len(blob)), 0}, blob...)
	for _, tc := range []struct {
		v    any
		want string
	}{
		{&blobOuter{}, "bitpack: decode bitpack_test.blobOuter: field Plain.C at bit 8: value 12 out of range [0, 9] (at bit 24 of the buffer the hook decoded)"},
		{&withinOuter{}, "bitpack: decode bitpack_test.withinOuter: field Within.C at bit 8: value 12 out of range [0, 9] (at bit 24 of the buffer the hook decoded)"},
	} {
		if err := bitpack.Unmarshal(packet, tc.v); !errors.Is(err, bitpack.ErrRange) || err.Error() != tc.want {
			t.Errorf("%T: %v\nwant %s", tc.v, err, tc.want)
		}
	}
	// The union's index (1 bit: uB), then V[0] = 3, V[1] = 12 at bit 5.
	ub := []byte{1 | 3<<1 | (12&7)<<5, 12 >> 3}
	upacket := append([]byte{0xaa, byte(len(ub)), 0}, ub...)
	want := "bitpack: decode bitpack_test.unionOuter: field U(bitpack_test.uB).V[1] at bit 8: value 12 out of range [0, 9] (at bit 5 of the buffer the hook decoded)"
	if err := bitpack.Unmarshal(upacket, &unionOuter{}); err == nil || err.Error() != want {
		t.Errorf("union in a hook: %v\nwant %s", err, want)
	}
	// Sound values round-trip through all three.
	for _, v := range []any{&blobOuter{Lead: 1, Plain: plainBlob{blobInner{1, 2, 3}}}, &withinOuter{Lead: 1, Within: withinBlob{blobInner{1, 2, 3}}}, &unionOuter{Lead: 1, U: unionBlob{&uB{V: [2]uint8{4, 5}}}}} {
		data, err := bitpack.Marshal(v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		back := bytes.Clone(data)
		if err := bitpack.Unmarshal(back, v); err != nil {
			t.Fatalf("%T back: %v", v, err)
		}
		if again, _ := bitpack.Marshal(v); !bytes.Equal(again, data) {
			t.Errorf("%T: %x re-encodes as %x", v, data, again)
		}
	}
}

// Blobs that each allocate almost what a decode of their own bytes may:
// seven pointees of 64 KiB for 2 bytes.
type (
	blobFill struct {
		P [7]*wideOne
	}
	fillWithin struct{ In blobFill }
	fillFlood  struct{ H [64]fillWithin }
)

func (h *fillWithin) MarshalBits(w *bitio.Writer) error {
	return writeBlob(w, &h.In, bitpack.Marshal)
}
func (h *fillWithin) UnmarshalBits(r *bitio.Reader) error {
	b := readBlob(r)
	if r.Err() != nil {
		return r.Err()
	}
	return bitpack.UnmarshalWithin(r, b, &h.In)
}

// TestUnmarshalWithinAllowance: blobs decoded with UnmarshalWithin spend
// from the decode that called the hook. 64 blobs of 2 bytes (each seven
// pointees of 65537 bytes, 73728 counted) in a 256-byte packet: 1 MiB + 64
// × 2048 = 1179648 bytes. The packet's decode spends 1024; each blob's
// hook call 64 + 256, its decode 1024 and 7 × 73728: two blobs take
// 1035904, and the third's second pointee is refused. (Decoded with plain
// Unmarshal, each blob would have an allowance of its own, and the packet
// could allocate 32 MiB.)
func TestUnmarshalWithinAllowance(t *testing.T) {
	one := []byte{2, 0, 0xff, 0x3f}
	packet := bytes.Repeat(one, 64)
	var v fillFlood
	_ = bitpack.Unmarshal(nil, &v) // the scratch value (see TestDecodeAllowance)
	var err error
	n := allocatedBy(&v, func() { err = bitpack.Unmarshal(packet, &v) })
	want := "bitpack: decode bitpack_test.fillFlood: field H[2].P[1] at bit 64: a value of 65537 bytes would take the decode past the 1179648 bytes it may allocate for this input (1 MiB plus 64 bytes per bit) (at bit 2 of the buffer the hook decoded)"
	if err == nil || !errors.Is(err, bitpack.ErrRange) || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if n > allowanceBound(packet) {
		t.Errorf("allocated %d bytes, over %d", n, allowanceBound(packet))
	}
}

// deepBlob decodes a blob holding another deepBlob: with UnmarshalWithin,
// MaxDepth counts every level.
type deepBlob struct {
	Next *deepBlob `bits:"-"`
}

func (d *deepBlob) MarshalBits(w *bitio.Writer) error { return nil }
func (d *deepBlob) UnmarshalBits(r *bitio.Reader) error {
	b := readBlob(r)
	if r.Err() != nil || len(b) == 0 {
		return r.Err()
	}
	d.Next = new(deepBlob)
	return bitpack.UnmarshalWithin(r, b, d.Next)
}

func TestUnmarshalWithinDepth(t *testing.T) {
	// 70 nested blobs: each is a 16-bit length and the next blob.
	packet := []byte{0, 0}
	for range 70 {
		packet = append([]byte{byte(len(packet)), byte(len(packet) >> 8)}, packet...)
	}
	err := bitpack.Unmarshal(packet, &deepBlob{})
	if !errors.Is(err, bitpack.ErrDepth) {
		t.Fatalf("70 levels of blobs: %v", err)
	}
	ok := []byte{0, 0}
	for range 30 {
		ok = append([]byte{byte(len(ok)), byte(len(ok) >> 8)}, ok...)
	}
	if err := bitpack.Unmarshal(ok, &deepBlob{}); err != nil {
		t.Fatalf("30 levels: %v", err)
	}
}

// A blob hook as the package documents it (see withinBlob in
// hooks_buffer_test.go): MarshalBits writes the value's Marshal as a blob,
// UnmarshalBits decodes the blob with UnmarshalWithin, within the packet's
// allowances and MaxDepth.
type (
	heavyPages struct {
		L []paddedPage `bits:"maxlen=255"` // 1 bit, 8 KiB charged (twice 4 KiB), an element
	}
	heavyBlob     struct{ In heavyPages }
	twoHeavyBlobs struct{ A, B heavyBlob }
)

func (h *heavyBlob) MarshalBits(w *bitio.Writer) error {
	return writeBlob(w, &h.In, func(v any) ([]byte, error) { return bitpack.MarshalWithin(w, v) })
}

func (h *heavyBlob) UnmarshalBits(r *bitio.Reader) error {
	b := readBlob(r)
	if r.Err() != nil {
		return r.Err()
	}
	return bitpack.UnmarshalWithin(r, b, &h.In)
}

// TestBlobHookAllowanceBothSides: the documented blob hook
// can only encode its value with plain Marshal (there is no encoding
// counterpart of UnmarshalWithin, and Union has neither), whose allowance
// check is a new one for the blob alone, while UnmarshalWithin spends
// from the packet's one allowance. So Marshal checks each blob against
// 1 MiB and the decoder all of them together.
//
// Input: twoHeavyBlobs with 100 zero elements in each blob (each blob 14
// bytes, charging 100 × 8 KiB = 800 KiB: Marshal accepts it).
// Observed: Marshal returns a 32-byte packet; Unmarshal of it refuses
// "field B.L at bit 128: 100 values of 4096 bytes would take the decode
// past the 1064960 bytes it may allocate for this input".
// Expected (doc.go: "every value Marshal accepts decodes"): Marshal
// refuses the value, or the decoder accepts the packet — e.g. an encode
// for hooks that counts a blob into the hook Writer's frame.
func TestBlobHookAllowanceBothSides(t *testing.T) {
	v := twoHeavyBlobs{A: heavyBlob{heavyPages{L: make([]paddedPage, 100)}}, B: heavyBlob{heavyPages{L: make([]paddedPage, 100)}}}
	packet, err := bitpack.Marshal(&v)
	if err != nil {
		return // refused on both sides: consistent
	}
	var back twoHeavyBlobs
	if err := bitpack.Unmarshal(packet, &back); err != nil {
		t.Errorf("Marshal accepted the value (%d bytes), Unmarshal refuses its packet: %v", len(packet), err)
	}
}

// A linked list carried as nested blobs: a presence bit, then the next
// node as a blob (16-bit length, bytes), decoded with UnmarshalWithin.
type (
	blobChainNode struct {
		V    uint8
		Next blobChainLink
	}
	blobChainLink struct{ N *blobChainNode }
)

func (h *blobChainLink) MarshalBits(w *bitio.Writer) error {
	if h.N == nil {
		w.WriteBits(0, 1)
		return w.Err()
	}
	w.WriteBits(1, 1)
	return writeBlob(w, h.N, func(v any) ([]byte, error) { return bitpack.MarshalWithin(w, v) })
}

func (h *blobChainLink) UnmarshalBits(r *bitio.Reader) error {
	if r.ReadBits(1) == 0 {
		return r.Err()
	}
	b := readBlob(r)
	if r.Err() != nil {
		return r.Err()
	}
	h.N = new(blobChainNode)
	return bitpack.UnmarshalWithin(r, b, h.N)
}

// TestBlobHookDepthBothSides: the same asymmetry
// for MaxDepth. Each blob's Marshal starts again at depth 0, so encoding
// a chain of blob hooks has no depth limit, while UnmarshalWithin counts
// every level against the packet's MaxDepth.
//
// Input: a chain of 40 blobChainNodes (V = 0..39 below the root).
// Observed: Marshal returns 162 bytes; Unmarshal refuses them with
// ErrDepth "more than 64 nested levels".
// Expected: Marshal refuses (ErrDepth) what its decoder refuses, as it
// does for hooks that Encode on the Writer they are handed.
func TestBlobHookDepthBothSides(t *testing.T) {
	var root blobChainNode
	cur := &root
	for i := range 40 {
		cur.Next.N = &blobChainNode{V: uint8(i)}
		cur = cur.Next.N
	}
	packet, err := bitpack.Marshal(&root)
	if err != nil {
		return
	}
	var back blobChainNode
	if err := bitpack.Unmarshal(packet, &back); err != nil {
		msg := err.Error()
		if len(msg) > 200 {
			msg = msg[:100] + " ... " + msg[len(msg)-100:]
		}
		t.Errorf("Marshal accepted a 40-node chain (%d bytes), Unmarshal refuses it: depth %v: %s", len(packet), errors.Is(err, bitpack.ErrDepth), msg)
	}
}

type tinyValue struct{ A uint8 }

// TestUnmarshalWithinOutsideHookIsUnmarshal: UnmarshalWithin's doc says
// "Outside a hook (r was not handed to one), it is Unmarshal", but it
// continues r's frame whenever the frame is active — also after a plain
// Decode on r, outside any hook — so its allowance is r's, not buf's.
//
// Input: r over the single byte 0x07; Decode(r, &tinyValue{}) (accepted);
// then UnmarshalWithin(r, bigMapPacket(60000), &bigMap{}), a packet
// Unmarshal accepts.
// Observed: refused, ErrRange, "field M at bit 0: 120000 values would
// take the decode past the 4608 values it may visit for this input" (the
// work allowance of r's 8 bits).
// Expected: what Unmarshal gives: nil.
func TestUnmarshalWithinOutsideHookIsUnmarshal(t *testing.T) {
	packet := bigMapPacket(60000)
	var plain bigMap
	if err := bitpack.Unmarshal(packet, &plain); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	r := bitio.NewReader([]byte{7})
	if err := bitpack.Decode(r, &tinyValue{}); err != nil {
		t.Fatal(err)
	}
	var within bigMap
	if err := bitpack.UnmarshalWithin(r, packet, &within); err != nil {
		t.Errorf("UnmarshalWithin outside a hook refuses what Unmarshal accepts: %v", err)
	}
}

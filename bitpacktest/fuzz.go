package bitpacktest

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/deepbits"
	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
)

// Fuzz turns f into a native fuzz target for T: it seeds the corpus and
// checks that Unmarshal treats every input as hostile — it never panics,
// refuses bad packets with one of bitpack's errors, leaves the value alone
// when it refuses, accepts only packets that re-encode to themselves, and
// allocates no more than the tags allow. Call it from a FuzzXxx function:
//
//	func FuzzPlayer(f *testing.F) { bitpacktest.Fuzz(f, Player{Health: 100}) }
//
// and run it with the command in the package documentation (its
// -fuzzminimizetime setting matters once packets run to hundreds of
// bytes).
//
// The seed corpus holds the encodings of seeds, the encodings of a few
// small generated values (at most 16 elements and pointees in all, 8
// elements per slice, 32 bytes per string or byte slice, recursion 2
// deep; fixed seed, so the corpus is the same on every run), each seed's
// encoding cut in half, an empty packet, and all-zero and all-one packets
// of the largest size the layout allows, at most 64 bytes. Short inputs
// keep the fuzzer fast: each run, and each minimization of an input the
// fuzzer finds interesting, costs more the longer the input is, so seed
// with small values too (a few entities, not a full snapshot).
//
// For each input, Fuzz decodes into a T that already holds a value: one
// of eight made when the target starts (the zero value and seven small
// generated values), chosen by the input's hash, so a failure replays. It
// fails the input if:
//   - Unmarshal panics;
//   - it fails with an error that is not a *bitpack.Error wrapping one of
//     ErrOverflow, ErrRange, ErrPadding, ErrInvalidString, ErrTrailing,
//     ErrDepth or ErrCheck;
//   - it fails and the value changed (compared exactly: floats by bits,
//     nil and empty slices and maps distinct);
//   - it succeeds and the value does not re-encode to the input, ignoring
//     the padding bits of the last byte;
//   - the decode allocated more than the tags allow (see below).
//
// # Allocation bound
//
// Decoding may allocate what the tags permit and no more: maxlen bytes for
// a string or []byte, 2×maxlen elements for a slice (growth rounding) plus
// what each element may allocate, Go's tables for maxlen entries of a map
// (8 slots an entry: the decoder fills its own, then copies into yours,
// which may grow) plus what each key and value may allocate, one element for a pointer or a sparse
// field's element, a member value (twice: new, then boxed) for a union,
// 1 KiB plus twice the type's size per custom hook call, and 64 KiB of
// slack for error messages. runtime.ReadMemStats stops the world, so only
// the first 64 inputs of a process and every 16th after are measured.
// Recursive types (unbounded), the race detector (its instrumentation
// allocates) and NoAllocCheck skip the measurement.
//
// Types with custom hooks get their zero value in the pre-filled values
// unless a generator is registered; use FuzzWith to register one.
func Fuzz[T any](f *testing.F, seeds ...T) {
	f.Helper()
	FuzzWith(f, nil, seeds...)
}

// FuzzWith is Fuzz with options: Custom generators for the pre-filled
// value, Corpus packets, NoAllocCheck and CmpOptions (the others do not
// apply to fuzzing).
func FuzzWith[T any](f *testing.F, opts []Option, seeds ...T) {
	f.Helper()
	typ := reflect.TypeFor[T]()
	cfg := newConfig(typ, opts)
	cfg.zeroCustom = true
	fz, err := newFuzzer(typ, cfg)
	if err != nil {
		f.Fatal(err)
	}
	var encs [][]byte
	for i := range seeds {
		b, err := bitpack.Marshal(&seeds[i])
		if err != nil {
			f.Fatalf("bitpacktest: seed %d does not marshal: %v", i, err)
		}
		encs = append(encs, b)
	}
	for _, b := range fz.corpus(encs) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := fz.check(data); err != nil {
			t.Fatal(err)
		}
	})
}

// fuzzer is the body of a fuzz target for one type.
type fuzzer struct {
	m        *model
	cfg      *config
	smallCfg *config // the generated corpus values and the pre-filled targets
	rt       *roundTripper
	exact    []cmp.Option // for "a failed decode changed nothing"
	bound    int64        // allocation bound in bytes; < 0: do not measure
	calls    atomic.Int64

	mu       sync.Mutex // check is not reentrant: it decodes into shared targets
	prefills []*prefilled
}

// A prefilled target is a T that Unmarshal decodes into, holding a value
// made once, when the fuzzer is built: building a value of a big type for
// every input cost more than the decode under test. value is never handed
// to Unmarshal; target is a deep copy of it that is, restored from value
// after every decode that changed it.
type prefilled struct {
	value  reflect.Value // a T
	target reflect.Value // a *T
	dirty  bool          // target may differ from value
}

// Sizes of what the fuzzer generates. Small values keep the seed corpus
// short, which matters most for throughput: Go minimizes every input it
// finds interesting by running the target on shorter copies of it, a
// number of runs that grows with the square of the input's length, and
// the fuzzer's inputs descend from the corpus.
const (
	smallBudget    = 16 // slice elements and pointees in one value
	smallMaxElems  = 8  // elements of one slice
	smallDepth     = 2  // levels of a recursive type
	prefillCount   = 8  // pre-filled targets: the zero value and 7 generated ones
	edgePacketSize = 64 // the largest all-zero and all-one corpus packets, in bytes
)

// allocSlack covers what a decode allocates besides the data: the error
// and its message, hook readers.
const allocSlack = 64 << 10

func newFuzzer(typ reflect.Type, cfg *config) (*fuzzer, error) {
	m, err := compileModel(typ, cfg)
	if err != nil {
		return nil, err
	}
	fz := &fuzzer{m: m, cfg: cfg, rt: newRoundTripper(m, cfg), exact: m.exactOptions(cfg)}
	small := *cfg
	small.depth, small.maxElems = min(cfg.depth, smallDepth), min(cfg.maxElems, smallMaxElems)
	small.budget = smallBudget
	fz.smallCfg = &small
	for i := 0; i < prefillCount; i++ {
		v := reflect.New(typ).Elem()
		if i > 0 {
			p := &gopter.GenParameters{MaxSize: 100, Rng: rand.New(&splitmix{uint64(i)})}
			v = m.generate(p, fz.smallCfg)
		}
		fz.prefills = append(fz.prefills, &prefilled{value: v, target: reflect.New(typ), dirty: true})
	}
	fz.bound = allocBound(m.root, map[*node]bool{})
	if fz.bound >= 0 {
		fz.bound += allocSlack
	}
	if cfg.noAlloc {
		fz.bound = -1
	}
	return fz, nil
}

// exactOptions compare without any allowance: every field, floats by
// bits, nil and empty slices and maps distinct.
func (m *model) exactOptions(cfg *config) []cmp.Option {
	opts := []cmp.Option{cmp.Exporter(func(reflect.Type) bool { return true })}
	opts = append(opts, m.floatComparers()...)
	return append(opts, cfg.cmpOpts...)
}

// corpus returns the seed corpus: the seeds' encodings, generated values,
// and edge-case packets.
func (fz *fuzzer) corpus(encs [][]byte) [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	add := func(b []byte) {
		if !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, b)
		}
	}
	for _, b := range encs {
		add(b)
	}
	for _, b := range fz.cfg.packets {
		add(b)
	}
	p := &gopter.GenParameters{MaxSize: 100, Rng: rand.New(rand.NewSource(1))}
	for i := 0; i < 8; i++ {
		v := fz.m.generate(p, fz.smallCfg)
		ptr := reflect.New(fz.m.typ)
		ptr.Elem().Set(v)
		if b, err := bitpack.Marshal(ptr.Interface()); err == nil {
			add(b)
		}
	}
	add([]byte{})
	for _, b := range encs {
		add(b[:len(b)/2])
	}
	l := fz.m.layout
	n := edgePacketSize
	if l.MaxBits >= 0 {
		n = min(n, (l.MaxBits+7)/8)
	}
	add(bytes.Repeat([]byte{0xff}, n))
	add(make([]byte, n))
	add(make([]byte, (l.MinBits+7)/8))
	return out
}

// pick returns the pre-filled target for data, chosen by data's hash (so
// a failure replays).
func (fz *fuzzer) pick(data []byte) *prefilled {
	return fz.prefills[crc32.ChecksumIEEE(data)%uint32(len(fz.prefills))]
}

// restore makes pf's target hold pf's value again.
func (pf *prefilled) restore() {
	if pf.dirty {
		copyInto(pf.target.Elem(), pf.value)
		pf.dirty = false
	}
}

// measure reports whether this call measures allocations.
func (fz *fuzzer) measure() bool {
	if raceEnabled || fz.bound < 0 {
		return false
	}
	n := fz.calls.Add(1)
	return n <= 64 || n%16 == 0
}

var sentinels = []error{bitpack.ErrOverflow, bitpack.ErrRange, bitpack.ErrPadding, bitpack.ErrInvalidString,
	bitpack.ErrTrailing, bitpack.ErrDepth, bitpack.ErrCheck}

// check runs one fuzz input; see Fuzz for what it checks. A panic in
// Unmarshal propagates (the fuzz engine reports it with the input).
func (fz *fuzzer) check(data []byte) error {
	return fz.checkInto(fz.pick(data), data)
}

// checkInto is check decoding into the pre-filled target pf.
func (fz *fuzzer) checkInto(pf *prefilled, data []byte) error {
	fz.mu.Lock()
	defer fz.mu.Unlock()
	pf.restore()
	v := pf.target
	pf.dirty = true // until shown otherwise; a panic leaves it unknown
	var err error
	if fz.measure() {
		m0, m1 := new(runtime.MemStats), new(runtime.MemStats)
		runtime.ReadMemStats(m0)
		err = bitpack.Unmarshal(data, v.Interface())
		runtime.ReadMemStats(m1)
		if grew := m1.TotalAlloc - m0.TotalAlloc; grew > uint64(fz.bound) {
			return fmt.Errorf("decoding %d bytes (%x) allocated %d bytes; the tags of %s allow at most %d (err: %v)", len(data), data, grew, fz.m.typ, fz.bound, err)
		}
	} else {
		err = bitpack.Unmarshal(data, v.Interface())
	}
	if err != nil {
		var be *bitpack.Error
		if !errors.As(err, &be) {
			return fmt.Errorf("Unmarshal(%x) error is a %T, not a *bitpack.Error: %v", data, err, err)
		}
		wraps := false
		for _, s := range sentinels {
			wraps = wraps || errors.Is(err, s)
		}
		if !wraps {
			return fmt.Errorf("Unmarshal(%x) error wraps none of bitpack's sentinels: %v", data, err)
		}
		if deepbits.Identical(pf.value, v.Elem()) {
			pf.dirty = false
			return nil
		}
		if diff := cmp.Diff(pf.value.Interface(), v.Elem().Interface(), fz.exact...); diff != "" {
			return fmt.Errorf("Unmarshal(%x) failed (%v) but changed the value (-before +after):\n%s", data, err, diff)
		}
		return nil
	}
	// Accepted: it must re-encode to the same bits.
	if msg := fz.rt.sameEncoding(data, v, true); msg != "" {
		return errors.New(msg)
	}
	return nil
}

// allocBound returns how many bytes decoding a value of n may allocate
// (see Fuzz), or -1 when unbounded (a recursive type).
func allocBound(n *node, onStack map[*node]bool) int64 {
	if onStack[n] {
		return -1
	}
	onStack[n] = true
	defer delete(onStack, n)
	switch n.kind {
	case bitpack.KindString, bitpack.KindBytes:
		return int64(n.f.MaxLen) + 64
	case bitpack.KindArray:
		return mulBound(int64(n.f.Len), allocBound(n.elem, onStack))
	case bitpack.KindSparse:
		if n.typ.Kind() == reflect.Array {
			return mulBound(int64(n.f.Len), allocBound(n.elem, onStack))
		}
		fallthrough
	case bitpack.KindSlice:
		e := allocBound(n.elem, onStack)
		backing := mulBound(2*int64(n.f.MaxLen), int64(n.typ.Elem().Size()))
		return addBound(addBound(backing, 64), mulBound(int64(n.f.MaxLen), e))
	case bitpack.KindMap:
		contents := mulBound(int64(n.f.MaxLen), addBound(allocBound(n.key, onStack), allocBound(n.elem, onStack)))
		return addBound(mapBound(n.typ, int64(n.f.MaxLen)), contents)
	case bitpack.KindPointer:
		return addBound(int64(n.typ.Elem().Size())+16, allocBound(n.elem, onStack))
	case bitpack.KindStruct:
		var sum int64
		for _, c := range n.fields {
			sum = addBound(sum, allocBound(c, onStack))
		}
		return sum
	case bitpack.KindUnion:
		// A new member value, boxed into the interface, and its contents.
		var worst int64
		for _, c := range n.members {
			b := allocBound(c, onStack)
			if b < 0 {
				return -1
			}
			worst = max(worst, addBound(2*int64(c.typ.Size())+32, b))
		}
		return worst
	case bitpack.KindCustom:
		return 2*int64(n.typ.Size()) + 1024
	}
	return 0
}

// mapBound bounds the memory of decoding a map of type t with up to
// maxLen entries, apart from what its keys and values hold: Go's tables —
// the decoder's, made for the count (up to 2 × 8/7 slots an entry), and
// the caller's, into which the entries are copied and which may grow
// from empty (twice that, all its sizes summed): about 7 slots an entry,
// 8 here, each slot the key and the value (a pointer to one stored apart
// past 128 bytes, once in each map) plus a control byte — and the
// decoder's buffers (a key, the key before it and a value).
func mapBound(t reflect.Type, maxLen int64) int64 {
	kt, vt := t.Key(), t.Elem()
	var apart int64
	for _, x := range []*reflect.Type{&kt, &vt} {
		if size := int64((*x).Size()); size > 128 {
			apart += size + size/4 + 16 // rounded up to a size class
			*x = reflect.PointerTo(*x)
		}
	}
	align := int64(max(kt.Align(), vt.Align()))
	off := (int64(kt.Size()) + int64(vt.Align()) - 1) &^ (int64(vt.Align()) - 1)
	slot := (off+int64(vt.Size())+align-1)&^(align-1) + 1
	tables := addBound(2048, mulBound(16+8*maxLen, slot))
	buffers := 3*int64(t.Key().Size()+t.Elem().Size()) + 512
	return addBound(addBound(tables, mulBound(2*maxLen, apart)), buffers)
}

const boundLimit = 1 << 50

func addBound(a, b int64) int64 {
	if a < 0 || b < 0 || a+b > boundLimit {
		return -1
	}
	return a + b
}

func mulBound(k, b int64) int64 {
	if b < 0 {
		if k == 0 {
			return 0
		}
		return -1
	}
	if b != 0 && k > boundLimit/b {
		return -1
	}
	return k * b
}

// splitmix is a rand.Source that is cheap to seed (math/rand's default
// source takes longer to seed than a small packet takes to check).
type splitmix struct{ s uint64 }

func (x *splitmix) Seed(seed int64) { x.s = uint64(seed) }

func (x *splitmix) Uint64() uint64 {
	x.s += 0x9e3779b97f4a7c15
	z := x.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (x *splitmix) Int63() int64 { return int64(x.Uint64() >> 1) }

package gen

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/internal/sweeps"
)

// corpus is the cross-language tests' script, shared by every language:
// the driver commands and, for each, the answer bitpack's Go side gives.
// It is built once per test binary (sharedCorpus) from the model of the
// table; each language renders the write cases in its own syntax.
type corpus struct {
	m      *model.Model
	cmds   []command
	writes []writeCase
	reads  int
	probes int
}

// command is one line for a driver and what Go says about it.
type command struct {
	line  string
	want  string         // OK <hex>, REFUSED, TRAILING, or a probe's bits
	what  string         // for messages
	err   *bitpack.Error // Go's refusal, for comparing where the clients refuse
	quiet []string       // Go's answer with signalling NaNs of raw floats quieted (see quietAnswers)
	exact bool           // the value exists alike in every language (write cases: no invalid UTF-8)
	// unwritable is Go's encoder's refusal of the result of a delta Go
	// accepts (a zero-bit value the delta's bits paid for, which the
	// result's own packet would not): a driver writing the result back
	// may accept it (the C++, C# and TypeScript writers do not apply the
	// allowances) or refuse it in these words (Rust's, like Marshal).
	unwritable string
	// byIdentity is the answer of the clients that compare hook values
	// by identity (C#, TypeScript) to a delta write Go accepts: a value
	// its hook refuses, equal to the base's in Go's memory but another
	// object there, which they write and refuse, in Go's words for it.
	byIdentity string
}

// writeCase is a value the drivers build in their own language and write.
type writeCase struct {
	root  *model.Type
	value reflect.Value // an addressable copy
}

// lazyCorpus builds a corpus on first use (it takes seconds) and hands
// the same one to every language's test.
type lazyCorpus struct {
	name  string
	build func(t *testing.T, entries []tableEntry, c *corpus)
	once  sync.Once
	c     *corpus
}

// corpusProtos are the corpora's root types: the table's, then the
// zero-bit ones (see corpus_zerobit_test.go).
func corpusProtos() []any {
	var protos []any
	for _, e := range table() {
		protos = append(protos, e.proto)
	}
	return append(protos, zeroBitProtos()...)
}

func (l *lazyCorpus) get(t *testing.T) *corpus {
	t.Helper()
	l.once.Do(func() {
		start := time.Now()
		entries := table()
		m, err := build(Options{Enums: tableEnums}, corpusProtos())
		if err != nil {
			t.Fatal(err)
		}
		c := &corpus{m: m}
		l.build(t, entries, c)
		l.c = c
		t.Logf("%s of %d commands in %v", l.name, len(c.cmds), time.Since(start))
	})
	if l.c == nil {
		t.Fatalf("building the %s failed in an earlier test", l.name)
	}
	return l.c
}

var mainCorpus = lazyCorpus{name: "corpus", build: buildCorpus}

// sharedCorpus is the corpus of reads, writes and probes.
func sharedCorpus(t *testing.T) *corpus { return mainCorpus.get(t) }

// fullSweeps reports whether the environment sets BITPACK_FULL=1, as
// .ci/run does (internal/sweeps reads it): the cross-language tests then
// run the full corpora (the counts below, the delta corpus's and the
// probes') and the C++ driver's AddressSanitizer and UBSan build too.
// Without it every table type, tag kind and language is still checked, on
// fewer samples of each, and the C++ driver is built once, optimised, so
// that go test ./... stays quick.
func fullSweeps() bool { return sweeps.Full() }

// sweep is full with BITPACK_FULL=1, else quick; -short does not change
// it (see sweeps.FullOrQuick).
func sweep(full, quick int) int { return sweeps.FullOrQuick(full, quick) }

// How much of each table type the corpus takes.
var (
	validPerType   = sweep(40, 12) // random valid values, each read and written back
	hostilePerType = sweep(3, 1)   // of which the first few are spoiled bit by bit
	writePerType   = sweep(6, 3)   // valid values written from C++ assignments
	spoilPerType   = sweep(2, 1)   // values whose leaves are spoiled one at a time
	spoilCap       = sweep(90, 30) // at most this many spoiled values per type
	spoilStride    = sweep(1, 3)   // every way to spoil a leaf, or every third
	randomPerType  = sweep(30, 8)  // packets of random bytes
)

func buildCorpus(t *testing.T, entries []tableEntry, c *corpus) {
	t.Helper()
	m := c.m
	rng := rand.New(rand.NewSource(17))
	for k, entry := range entries {
		typ := reflect.TypeOf(entry.proto)
		root := m.Roots[k]
		n := validPerType
		if typ == reflect.TypeOf(Far{}) {
			n = 4 // big values: a few go a long way
		}
		samples := entry.sample(int64(k)+1, n)
		switch typ {
		case reflect.TypeOf(Scalars{}):
			samples = append(samples, specialFloats()...)
		case reflect.TypeOf(Text{}):
			samples = append(samples, specialTexts()...)
		}
		for i, v := range samples {
			p, err := bitpack.Marshal(v)
			if err != nil {
				t.Fatalf("%s: sample %d does not marshal: %v", typ, i, err)
			}
			c.read(k, typ, p, fmt.Sprintf("%s sample %d", typ, i))
			if i < hostilePerType && (i == 0 && fullSweeps() || typ != reflect.TypeOf(Far{})) { // one Far is 900 packets, each tens of ms to a client
				c.hostile(k, typ, p, rng, fmt.Sprintf("%s sample %d", typ, i))
			}
			if (i < writePerType || i >= n) && typ != reflect.TypeOf(Far{}) {
				c.write(root, v, fmt.Sprintf("%s sample %d", typ, i))
			}
		}
		for i := 0; i < randomPerType; i++ {
			p := make([]byte, rng.Intn(48))
			rng.Read(p)
			c.read(k, typ, p, fmt.Sprintf("%s random packet %d", typ, i))
		}
		for _, cr := range crafted(t, typ) {
			c.read(k, typ, cr.packet, fmt.Sprintf("%s crafted: %s", typ, cr.name))
		}
		if typ != reflect.TypeOf(Far{}) {
			c.spoil(entry, root, k)
		}
	}
	c.zeroBitReads(len(entries), rng)
	c.pinned(t)
	c.quatProbes()
	c.frames(rng)
}

// frames adds Seal and Open: payloads sealed alike, and sealed packets
// opened alike, damaged or sealed with another id.
func (c *corpus) frames(rng *rand.Rand) {
	hexOrDash := func(b []byte) string {
		if len(b) == 0 {
			return "-"
		}
		return hex.EncodeToString(b)
	}
	for i := 0; i < sweep(40, 10); i++ {
		id := rng.Uint32()
		payload := make([]byte, rng.Intn(40))
		rng.Read(payload)
		sealed := bitpack.Seal(nil, id, payload)
		c.add(command{line: fmt.Sprintf("S %x %s", id, hexOrDash(payload)), want: "OK " + hex.EncodeToString(sealed), what: fmt.Sprintf("Seal(%#x, %x)", id, payload)})
		for _, p := range [][]byte{sealed, flipBit(sealed, rng.Intn(8*len(sealed))), sealed[:rng.Intn(len(sealed))]} {
			for _, openID := range []uint32{id, id ^ 1} {
				want := "REFUSED"
				if got, err := bitpack.Open(openID, p); err == nil {
					want = "OK " + hex.EncodeToString(got)
				}
				c.add(command{line: fmt.Sprintf("O %x %s", openID, hexOrDash(p)), want: want, what: fmt.Sprintf("Open(%#x, %x)", openID, p)})
			}
		}
	}
}

func flipBit(p []byte, bit int) []byte {
	q := append([]byte(nil), p...)
	q[bit/8] ^= 1 << (bit % 8)
	return q
}

// specialTexts are Texts whose strings a careless client changes: a
// leading U+FEFF (a character to Go, a byte-order mark to some decoders),
// characters of every UTF-8 length, U+FFFD and U+10FFFF, strings filling
// their maxlen in bytes but not in characters.
func specialTexts() []any {
	return []any{
		Text{Name: "\ufeffbom", Note: "\ufeff", Codes: []uint8{1}},
		Text{Name: "é€😀", Note: "\ufffd\U0010ffff\u0800\u07ff\u0080\x7f", Blob: []byte{0xef, 0xbb, 0xbf}},
		Text{Name: "😀😀😀€", Note: strings.Repeat("€", 12) + "éab", Key: [16]byte{0xef, 0xbb, 0xbf, 0xff}},
	}
}

// specialFloats are Scalars whose raw floats are the bit patterns a
// careless copy loses: NaNs with payloads (signalling and quiet), -0,
// denormals, infinities.
func specialFloats() []any {
	f32 := []uint32{0x7f800001, 0xffc12345, 0x80000000, 0x00000001, 0x807fffff, 0x7f800000, 0xff800000}
	f64 := []uint64{0x7ff0000000000001, 0xfff8000000abcdef, 0x8000000000000000, 0x0000000000000001, 0x800fffffffffffff, 0x7ff0000000000000, 0xfff0000000000000}
	var out []any
	for i := range f32 {
		out = append(out, Scalars{F32: math.Float32frombits(f32[i]), F64: math.Float64frombits(f64[i]), I: -1, U: ^uint(0)})
	}
	return out
}

func (c *corpus) add(cmd command) { c.cmds = append(c.cmds, cmd) }

// read adds a packet for the driver to read as table type k.
func (c *corpus) read(k int, typ reflect.Type, p []byte, what string) {
	cmd := command{line: fmt.Sprintf("R %d %x", k, p), what: what + ": packet " + hex.EncodeToString(p), exact: true}
	v := reflect.New(typ)
	err := bitpack.Unmarshal(p, v.Interface())
	var again []byte
	if err == nil {
		if again, err = bitpack.Marshal(v.Interface()); err != nil {
			err = fmt.Errorf("re-encoding an accepted packet failed: %w", err)
		}
	}
	switch {
	case errors.Is(err, bitpack.ErrTrailing):
		cmd.want = "TRAILING"
	case err != nil:
		cmd.want, cmd.what = "REFUSED", cmd.what+" (Go: "+err.Error()+")"
		errors.As(err, &cmd.err)
	default:
		cmd.want = "OK " + hex.EncodeToString(again)
		cmd.quiet = quietAnswers(c.m.Roots[k], v.Elem(), cmd.want)
	}
	if hostIntRefusal(err) {
		c.twinAnswer(&cmd, k, typ, func(twin reflect.Type) (reflect.Value, error) {
			w := reflect.New(twin)
			return w, bitpack.Unmarshal(p, w.Interface())
		})
	}
	c.add(cmd)
	c.reads++
}

// hostile adds the packets derived from a valid one: every truncation,
// every bit flipped (every bit of the first 64 bytes, and 256 others past
// them), and whole bytes appended.
func (c *corpus) hostile(k int, typ reflect.Type, p []byte, rng *rand.Rand, what string) {
	c.damaged(p, rng, func(q []byte, how string) { c.read(k, typ, q, what+" "+how) })
}

// write adds a write case: each driver builds v in its own language and
// writes it; the Go side marshals it.
func (c *corpus) write(root *model.Type, v any, what string) {
	rv := reflect.New(reflect.TypeOf(v)).Elem() // addressable, so floats are read as bits
	rv.Set(reflect.ValueOf(v))
	cmd := command{line: fmt.Sprintf("W %d", len(c.writes)), what: "write " + what, exact: validText(root, nil, rv)}
	b, err := bitpack.Marshal(v)
	if err != nil {
		cmd.want, cmd.what = "REFUSED", cmd.what+" (Go: "+err.Error()+")"
		errors.As(err, &cmd.err)
	} else {
		cmd.want = "OK " + hex.EncodeToString(b)
		cmd.quiet = quietAnswers(root, rv, cmd.want)
	}
	c.add(cmd)
	c.writes = append(c.writes, writeCase{root: root, value: rv})
}

// spoil adds a write case for each way the spoiler has to make a leaf of
// the first few samples invalid.
func (c *corpus) spoil(entry tableEntry, root *model.Type, k int) {
	added := 0
	seen := map[string]bool{} // each way to spoil each field once (not once per element)
	for j := 0; j < spoilPerType; j++ {
		for target := 0; added < spoilCap; target++ {
			fresh := entry.sample(int64(k)+1, j+1)[j] // a copy of sample j of its own
			rv := reflect.New(reflect.TypeOf(fresh)).Elem()
			rv.Set(reflect.ValueOf(fresh))
			s := &spoiler{target: target}
			s.structFields(root, nil, rv)
			if !s.done {
				break
			}
			if seen[s.what] {
				continue
			}
			seen[s.what] = true
			what := fmt.Sprintf("%s sample %d with %s", root.Go, j, s.what)
			if target%spoilStride != 0 {
				if handPinned("write " + what) {
					c.write(root, rv.Interface(), what) // a case handErrors pins, taken beside the others
				}
				continue
			}
			c.write(root, rv.Interface(), what)
			added++
		}
	}
}

// handPinned reports whether a write case's description (the command's,
// but for Go's refusal, which follows a space) is one of handErrors'.
func handPinned(what string) bool {
	for _, h := range handErrors {
		if strings.HasPrefix(what+" ", h.what) {
			return true
		}
	}
	return false
}

// pinned adds the float probes of the Pinned type: every code of each of
// its compressed floats decoded by both sides to the same bits, the quant
// package's pinned examples encoded to bytes written down by hand, and
// thousands of values near the middle between two codes (where a fused
// multiply-add rounds differently) encoded alike.
func (c *corpus) pinned(t *testing.T) {
	var fields []*model.Value
	for _, r := range c.m.Roots {
		if r.Go == reflect.TypeOf(Pinned{}) {
			for _, m := range r.Fields {
				fields = append(fields, m.Value)
			}
		}
	}
	most := 0
	for _, f := range fields {
		most = max(most, int(f.Steps))
	}
	for code := 0; code <= most; code++ {
		var w bitio.Writer
		for _, f := range fields {
			w.WriteBits(uint64(code%(int(f.Steps)+1)), f.Bits)
		}
		p := w.Bytes()
		var v Pinned
		if err := bitpack.Unmarshal(p, &v); err != nil {
			t.Fatalf("code %d: %v", code, err)
		}
		c.add(command{line: fmt.Sprintf("D %x", p), want: fmt.Sprintf("%08x %08x %016x", float32bits(v.V), float32bits(v.A), float64bits(v.W)),
			what: fmt.Sprintf("Pinned code %d (modulo each field's M) decodes", code)})
		c.probes++
	}
	// V's codes 1, 3, 11, 1000 (the quant package's examples), A's 3142 for
	// 0 (the middle of 6284 steps), W's 300 for 0 (0.3/5 of 5000 steps): V
	// in bits 0-9, A in 10-22, W in 23-35.
	for _, ex := range []struct {
		v    float32
		want string
	}{{0.005, "0118319600"}, {0.025, "0318319600"}, {0.105, "0b18319600"}, {9.995, "e81b319600"}} {
		if got, _ := goWrite(Pinned{V: ex.v}); got != "OK "+ex.want {
			t.Errorf("bitpack encodes Pinned{V: %v} as %s, want %s", ex.v, got, ex.want)
		}
		c.encode(Pinned{V: ex.v}, "OK "+ex.want)
	}
	rng := rand.New(rand.NewSource(5))
	near := func(f *model.Value) float64 {
		step := (f.Max - f.Min) / float64(f.Steps)
		x := f.Min + (float64(rng.Intn(int(f.Steps)))+0.5)*step
		if f.FloatBits == 32 {
			x32 := float32(x)
			for k := rng.Intn(5) - 2; k != 0; k -= sign(k) {
				x32 = math.Nextafter32(x32, float32(math.Inf(sign(k))))
			}
			return float64(x32)
		}
		for k := rng.Intn(5) - 2; k != 0; k -= sign(k) {
			x = math.Nextafter(x, math.Inf(sign(k)))
		}
		return x
	}
	for i := 0; i < sweep(6000, 1500); i++ {
		v := Pinned{V: float32(near(fields[0])), A: float32(near(fields[1])), W: near(fields[2])}
		want, err := goWrite(v)
		if err != nil {
			want = "REFUSED"
		}
		c.encode(v, want)
	}
}

func sign(k int) int {
	if k < 0 {
		return -1
	}
	return 1
}

// encode adds a Pinned value for the driver to write (command P).
func (c *corpus) encode(v Pinned, want string) {
	c.add(command{line: fmt.Sprintf("P %08x %08x %016x", float32bits(v.V), float32bits(v.A), float64bits(v.W)), want: want,
		what: fmt.Sprintf("Pinned{V: %v, A: %v, W: %v} encodes", v.V, v.A, v.W)})
	c.probes++
}

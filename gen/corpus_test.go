package gen

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// corpus is the cross-language test's script: the driver commands and,
// for each, the answer bitpack's Go side gives.
type corpus struct {
	e        *cppEmitter
	commands []string
	want     []string
	what     []string
	writes   []string // the C++ of each write case
	reads    int
	probes   int
}

// How much of each table type the corpus takes.
const (
	validPerType   = 40 // random valid values, each read and written back
	hostilePerType = 3  // of which the first few are spoiled bit by bit
	writePerType   = 6  // valid values written from C++ assignments
	spoilPerType   = 2  // values whose leaves are spoiled one at a time
	spoilCap       = 90 // at most this many spoiled values per type
	randomPerType  = 30 // packets of random bytes
)

func newCorpus(t *testing.T) *corpus {
	t.Helper()
	entries := table()
	var protos []any
	for _, e := range entries {
		protos = append(protos, e.proto)
	}
	m, err := build(protos)
	if err != nil {
		t.Fatal(err)
	}
	e, err := newCPP(m, Options{Include: "minserialize.h"})
	if err != nil {
		t.Fatal(err)
	}
	c := &corpus{e: e}
	rng := rand.New(rand.NewSource(17))
	for k, entry := range entries {
		typ := reflect.TypeOf(entry.proto)
		root := m.Roots[k]
		n := validPerType
		if typ == reflect.TypeOf(Far{}) {
			n = 4 // big values: a few go a long way
		}
		samples := entry.sample(int64(k)+1, n)
		if typ == reflect.TypeOf(Scalars{}) {
			samples = append(samples, specialFloats()...)
		}
		for i, v := range samples {
			p, err := bitpack.Marshal(v)
			if err != nil {
				t.Fatalf("%s: sample %d does not marshal: %v", typ, i, err)
			}
			c.read(k, typ, p, fmt.Sprintf("%s sample %d", typ, i))
			if i < hostilePerType {
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
	c.pinned(t)
	c.frames(rng)
	return c
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
	for i := 0; i < 40; i++ {
		id := rng.Uint32()
		payload := make([]byte, rng.Intn(40))
		rng.Read(payload)
		sealed := bitpack.Seal(nil, id, payload)
		c.commands = append(c.commands, fmt.Sprintf("S %x %s", id, hexOrDash(payload)))
		c.want = append(c.want, "OK "+hex.EncodeToString(sealed))
		c.what = append(c.what, fmt.Sprintf("Seal(%#x, %x)", id, payload))
		for _, p := range [][]byte{sealed, flipBit(sealed, rng.Intn(8*len(sealed))), sealed[:rng.Intn(len(sealed))]} {
			for _, openID := range []uint32{id, id ^ 1} {
				want := "REFUSED"
				if got, err := bitpack.Open(openID, p); err == nil {
					want = "OK " + hex.EncodeToString(got)
				}
				c.commands = append(c.commands, fmt.Sprintf("O %x %s", openID, hexOrDash(p)))
				c.want = append(c.want, want)
				c.what = append(c.what, fmt.Sprintf("Open(%#x, %x)", openID, p))
			}
		}
	}
}

func flipBit(p []byte, bit int) []byte {
	q := append([]byte(nil), p...)
	q[bit/8] ^= 1 << (bit % 8)
	return q
}

// specialFloats are Scalars whose raw floats are the bit patterns a
// careless copy loses: NaNs with payloads (signalling and quiet), -0,
// denormals, infinities.
func specialFloats() []any {
	f32 := []uint32{0x7f800001, 0xffc12345, 0x80000000, 0x00000001, 0x807fffff, 0x7f800000, 0xff800000}
	f64 := []uint64{0x7ff0000000000001, 0xfff8000000abcdef, 0x8000000000000000, 0x0000000000000001, 0x800fffffffffffff, 0x7ff0000000000000, 0xfff0000000000000}
	var out []any
	for i := range f32 {
		out = append(out, Scalars{F32: math.Float32frombits(f32[i]), F64: math.Float64frombits(f64[i]), I: -1, U: math.MaxUint64})
	}
	return out
}

// read adds a packet for the driver to read as table type k.
func (c *corpus) read(k int, typ reflect.Type, p []byte, what string) {
	want, err := goRead(typ, p)
	switch {
	case errors.Is(err, bitpack.ErrTrailing):
		want = "TRAILING"
	case err != nil:
		want, what = "REFUSED", what+" (Go: "+err.Error()+")"
	}
	c.commands = append(c.commands, fmt.Sprintf("R %d %x", k, p))
	c.want = append(c.want, want)
	c.what = append(c.what, what+": packet "+hex.EncodeToString(p))
	c.reads++
}

// hostile adds the packets derived from a valid one: every truncation,
// every bit flipped (every bit of the first 64 bytes, and 256 others past
// them), and whole bytes appended.
func (c *corpus) hostile(k int, typ reflect.Type, p []byte, rng *rand.Rand, what string) {
	for n := 0; n < len(p); n++ {
		c.read(k, typ, p[:n], fmt.Sprintf("%s cut to %d bytes", what, n))
	}
	flip := func(bit int) {
		q := append([]byte(nil), p...)
		q[bit/8] ^= 1 << (bit % 8)
		c.read(k, typ, q, fmt.Sprintf("%s with bit %d flipped", what, bit))
	}
	for bit := 0; bit < 8*min(len(p), 64); bit++ {
		flip(bit)
	}
	if len(p) > 64 {
		for i := 0; i < 256; i++ {
			flip(512 + rng.Intn(8*len(p)-512))
		}
	}
	for _, extra := range [][]byte{{0}, {0xff}, {0, 0}} {
		c.read(k, typ, append(append([]byte(nil), p...), extra...), fmt.Sprintf("%s with %x appended", what, extra))
	}
}

// write adds a write case: the C++ driver stores v in the generated
// struct and writes it; the Go side marshals it.
func (c *corpus) write(root *Type, v any, what string) {
	want, err := goWrite(v)
	if err != nil {
		want, what = "REFUSED", what+" (Go: "+err.Error()+")"
	}
	a := &assigner{e: c.e}
	rv := reflect.New(reflect.TypeOf(v)).Elem() // addressable, so floats are read as bits
	rv.Set(reflect.ValueOf(v))
	a.structFields(root, nil, rv, "v->")
	name := c.e.typeNames[root]
	code := fmt.Sprintf("static void write_case_%d()\n{\n    %s * v = new %s();\n    %s\n    write_value( v, 1 << 20 );\n    delete v;\n}\n\n",
		len(c.writes), name, name, strings.Join(a.lines, "\n    "))
	c.commands = append(c.commands, fmt.Sprintf("W %d", len(c.writes)))
	c.writes = append(c.writes, code)
	c.want = append(c.want, want)
	c.what = append(c.what, "write "+what)
}

// spoil adds a write case for each way the spoiler has to make a leaf of
// the first few samples invalid.
func (c *corpus) spoil(entry tableEntry, root *Type, k int) {
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
			c.write(root, rv.Interface(), fmt.Sprintf("%s sample %d with %s", root.Go, j, s.what))
			added++
		}
	}
}

// pinned adds the float probes of the Pinned type: every code of each of
// its compressed floats decoded by both sides to the same bits, the quant
// package's pinned examples encoded to bytes written down by hand, and
// thousands of values near the middle between two codes (where a fused
// multiply-add rounds differently) encoded alike.
func (c *corpus) pinned(t *testing.T) {
	var fields []*Value
	for _, r := range c.e.m.Roots {
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
		c.commands = append(c.commands, fmt.Sprintf("D %x", p))
		c.want = append(c.want, fmt.Sprintf("%08x %08x %016x", float32bits(v.V), float32bits(v.A), float64bits(v.W)))
		c.what = append(c.what, fmt.Sprintf("Pinned code %d (modulo each field's M) decodes", code))
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
	near := func(f *Value) float64 {
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
	for i := 0; i < 6000; i++ {
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
	c.commands = append(c.commands, fmt.Sprintf("P %08x %08x %016x", float32bits(v.V), float32bits(v.A), float64bits(v.W)))
	c.want = append(c.want, want)
	c.what = append(c.what, fmt.Sprintf("Pinned{V: %v, A: %v, W: %v} encodes", v.V, v.A, v.W))
	c.probes++
}

// dispatch is the generated part of the driver: reads by type index, and
// the write cases.
func (c *corpus) dispatch(t *testing.T) string {
	var b strings.Builder
	b.WriteString("static void dispatch_read( int type, const uint8_t * data, int64_t bytes )\n{\n    switch ( type )\n    {\n")
	for k, r := range c.e.m.Roots {
		fmt.Fprintf(&b, "    case %d: read_packet<%s>( data, bytes ); break;\n", k, c.e.typeNames[r])
	}
	b.WriteString("    default: puts( \"BADTYPE\" ); break;\n    }\n}\n\n")
	for _, w := range c.writes {
		b.WriteString(w)
	}
	b.WriteString("static void ( * const write_cases[] )() =\n{\n")
	for i := range c.writes {
		fmt.Fprintf(&b, "    write_case_%d,\n", i)
	}
	b.WriteString("};\n\nstatic void dispatch_write( int n )\n{\n")
	b.WriteString("    if ( n < 0 || n >= int( sizeof write_cases / sizeof write_cases[0] ) )\n        puts( \"BADCASE\" );\n    else\n        write_cases[n]();\n}\n")
	return b.String()
}

// agree reports whether the driver's answer matches bitpack's.
func (c *corpus) agree(want, got string) bool { return want == got }

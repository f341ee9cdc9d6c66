package gen

import (
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// The corpus on a 32-bit host. int and uint are 64 bits on the wire on
// every platform, and the generated clients (C++, C#, TypeScript) hold
// them in 64-bit types; only Go's int and uint are 32 bits there, so the
// plan refuses a packet whose int or uint value they cannot hold, which
// the clients rightly accept. For such a packet the corpus takes its
// answer from the type's wire twin: the same fields with int64 and uint64
// for int and uint, the same layout (TestWireTwins), whose decode holds
// every value. On a 64-bit host the twin is never asked.

// scalarsWire is Scalars with int64 and uint64 for int and uint.
type scalarsWire struct {
	B   bool
	I8  int8
	I16 int16
	I32 int32
	I64 int64
	I   int64
	U8  uint8
	U16 uint16
	U32 uint32
	U64 uint64
	U   uint64
	F32 float32
	F64 float64
}

// wireTwins are the table types holding an int or uint whose wire values
// a 32-bit int cannot hold, with their twins.
var wireTwins = map[reflect.Type]reflect.Type{
	reflect.TypeFor[Scalars](): reflect.TypeFor[scalarsWire](),
}

// hostIntRefusal reports whether err is the plan's refusal of an int or
// uint its 32-bit Go type cannot hold (kind_int.go, storeInt): the one
// refusal that depends on the host.
func hostIntRefusal(err error) bool {
	var e *bitpack.Error
	return strconv.IntSize == 32 && errors.As(err, &e) && errors.Is(err, bitpack.ErrRange) &&
		(strings.Contains(e.Detail, " does not fit a 32-bit int ") || strings.Contains(e.Detail, " does not fit a 32-bit uint "))
}

// twinAnswer is the answer for a command the plan refused with a host
// int refusal: the twin's decode of the same bits (run), re-encoded. The
// twin's own refusals name the twin, so they are not compared word for
// word (exact is false).
func (c *corpus) twinAnswer(cmd *command, k int, typ reflect.Type, run func(twin reflect.Type) (reflect.Value, error)) {
	twin, ok := wireTwins[typ]
	if !ok {
		panic(typ.String() + " has no wire twin (wireTwins), yet the plan refused one of its ints as the host's")
	}
	cmd.err, cmd.exact = nil, false
	v, err := run(twin)
	var again []byte
	if err == nil {
		again, err = bitpack.Marshal(v.Interface())
	}
	switch {
	case errors.Is(err, bitpack.ErrTrailing):
		cmd.want = "TRAILING"
	case err != nil:
		cmd.want = "REFUSED"
	default:
		cmd.want = "OK " + hex.EncodeToString(again)
		cmd.quiet = quietAnswers(c.m.Roots[k], v.Elem(), cmd.want)
	}
	cmd.what += " (answered by " + twin.String() + ")"
}

// wideInt returns an int or uint field under f whose wire values a 32-bit
// int or uint cannot all hold, or nil.
func wideInt(f *bitpack.Field, seen map[*bitpack.Field]bool) *bitpack.Field {
	if f == nil || seen[f] {
		return nil
	}
	seen[f] = true
	if k := f.Type.Kind(); k == reflect.Int && (f.IntMin < math.MinInt32 || f.IntMax > math.MaxInt32) ||
		k == reflect.Uint && f.UintMax > math.MaxUint32 {
		return f
	}
	for _, c := range append(append(slices.Clone(f.Fields), f.Elem, f.Key), f.Members...) {
		if w := wideInt(c, seen); w != nil {
			return w
		}
	}
	return nil
}

// TestWireTwins: each twin travels as its table type does (the same
// schema, field by field the same encoding), every table type with an int
// or uint field has one, and on a 32-bit host the plan refuses a Scalars
// whose I does not fit while its twin reads the same packet.
func TestWireTwins(t *testing.T) {
	for _, e := range table() {
		typ := reflect.TypeOf(e.proto)
		twin, ok := wireTwins[typ]
		l, err := bitpack.Describe(e.proto)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			if f := wideInt(l.Root, map[*bitpack.Field]bool{}); f != nil {
				t.Errorf("%s: its %s %s holds values past 32 bits, and %s has no wire twin", typ, f.Type, f.Encoding(), typ)
			}
			continue
		}
		if wideInt(l.Root, map[*bitpack.Field]bool{}) == nil {
			t.Errorf("%s has a wire twin but no int or uint past 32 bits", typ)
		}
		lt, err := bitpack.Describe(reflect.New(twin).Interface())
		if err != nil {
			t.Fatal(err)
		}
		if l.Schema() != lt.Schema() {
			t.Errorf("%s: schema %s, its twin %s: %s", typ, l.Schema(), twin, lt.Schema())
		}
		rows, trows := l.Rows(), lt.Rows()
		if len(rows) != len(trows) {
			t.Fatalf("%s: %d rows, its twin %d", typ, len(rows), len(trows))
		}
		for i := range rows {
			if rows[i].Path != trows[i].Path || rows[i].Encoding != trows[i].Encoding {
				t.Errorf("%s: row %s %s, its twin's %s %s", typ, rows[i].Path, rows[i].Encoding, trows[i].Path, trows[i].Encoding)
			}
		}
	}
	// Scalars with I = 2^32: B (1 bit), I8..I64 (120), then I's 64 bits from
	// bit 121, the rest zero: 1 + 120 + 64 + 8+16+32+64+64 + 32+64 = 465
	// bits, 59 bytes. Bit 121 + 32 = 153 is bit 1 of byte 19.
	p := make([]byte, 59)
	p[19] = 0x02
	var s Scalars
	err := bitpack.Unmarshal(p, &s)
	var w scalarsWire
	if werr := bitpack.Unmarshal(p, &w); werr != nil || w != (scalarsWire{I: 1 << 32}) {
		t.Errorf("the twin reads %+v, %v; want I = 2^32", w, werr)
	}
	if strconv.IntSize == 64 {
		if err != nil || uint64(s.I) != 1<<32 {
			t.Errorf("Scalars reads I = %d, %v; want 2^32", s.I, err)
		}
		return
	}
	const want = "bitpack: decode gen.Scalars: field I at bit 121: value 4294967296 does not fit a 32-bit int (range [-2147483648, 2147483647])"
	if err == nil || err.Error() != want || !hostIntRefusal(err) {
		t.Errorf("Scalars on a 32-bit host: %v (a host refusal: %v); want %s", err, hostIntRefusal(err), want)
	}
}

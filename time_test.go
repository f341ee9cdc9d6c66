package bitpack_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen"
)

// time.Time tagged unit=U travels as its Unix time in units of U, an
// integer of range= or bits= over those units (docs/wire.md, "time.Time").

type timeMsg struct {
	At   time.Time `bits:"unit=1ms,range=0..4102444800000"`        // 1970..2100 in ms: 42 bits
	Near time.Time `bits:"unit=1ms,range=-10000..10000"`           // ±10 s around 1970 in ms: 15 bits
	Born time.Time `bits:"unit=1s,range=-62135596800..4102444800"` // year 1 (the zero time.Time) to 2100 in s: 36 bits
	Tick time.Time `bits:"unit=1h,bits=8"`                         // raw two's complement: ±128 hours
	Fine time.Time `bits:"unit=1ns,bits=64"`                       // nanoseconds, 1678..2262
}

func utc(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
}

// TestTimeWire: golden bytes for several units, the zero time, times
// before 1970, and rounding both ways (half away from zero on both sides
// of the epoch); the decoded values are UTC, without monotonic reading,
// and the zero time decodes to the zero time.Time.
func TestTimeWire(t *testing.T) {
	cases := []struct {
		name string
		v    timeMsg
		// The codes, worked out by hand: units - min (At: 1704164645600 ms
		// is 2024-01-02 03:04:05.6 UTC; Born: -62135596800 s is year 1).
		at, near, born, tick, fine uint64
		back                       timeMsg // what decodes
	}{
		{"whole units", timeMsg{At: utc(2024, 1, 2, 3, 4, 5, 600_000_000), Near: time.Unix(0, 0), Born: time.Time{}, Tick: time.Unix(3*3600, 0), Fine: time.Unix(0, 1)},
			1704164645600, 10000, 0, 3, 1,
			timeMsg{At: time.UnixMilli(1704164645600).UTC(), Near: time.Unix(0, 0).UTC(), Born: time.Time{}, Tick: time.Unix(3*3600, 0).UTC(), Fine: time.Unix(0, 1).UTC()}},
		// 0.4 ms down, 0.5 ms up (away from zero); before 1970: -0.5 ms and
		// -0.5 s away from zero, -1.4 ms to -1, -1.500000001 s to -2, -1.5 h
		// to -2; 29 min 59 s down; -1 ns as 64 bits of two's complement.
		{"rounding", timeMsg{At: utc(2024, 1, 2, 3, 4, 5, 600_400_000), Near: time.Unix(0, -500_000), Born: utc(1969, 12, 31, 23, 59, 59, 500_000_000), Tick: time.Unix(-5400, 0), Fine: time.Unix(-1, 999_999_999)},
			1704164645600, 10000 - 1, 62135596800 - 1, 1<<8 - 2, 1<<64 - 1,
			timeMsg{At: time.UnixMilli(1704164645600).UTC(), Near: time.UnixMilli(-1).UTC(), Born: time.Unix(-1, 0).UTC(), Tick: time.Unix(-2*3600, 0).UTC(), Fine: time.Unix(0, -1).UTC()}},
		{"rounding up", timeMsg{At: utc(2024, 1, 2, 3, 4, 5, 600_500_000), Near: time.Unix(0, -1_400_000), Born: utc(1969, 12, 31, 23, 59, 58, 499_999_999), Tick: time.Unix(1799, 0), Fine: time.Unix(-(1 << 33), 0)},
			1704164645601, 10000 - 1, 62135596800 - 2, 0, 1<<64 - 1<<33*1_000_000_000,
			timeMsg{At: time.UnixMilli(1704164645601).UTC(), Near: time.UnixMilli(-1).UTC(), Born: time.Unix(-2, 0).UTC(), Tick: time.Unix(0, 0).UTC(), Fine: time.Unix(-(1 << 33), 0).UTC()}},
		{"before 1970, in a zone", timeMsg{At: time.UnixMilli(0).In(time.FixedZone("x", -7200)), Near: time.Unix(-10, 0), Born: utc(1, 1, 1, 0, 0, 1, 0), Tick: time.Unix(-128*3600, 0), Fine: utc(1900, 1, 1, 0, 0, 0, 0)},
			0, 0, 1, 128, uint64(utc(1900, 1, 1, 0, 0, 0, 0).UnixNano()),
			timeMsg{At: time.UnixMilli(0).UTC(), Near: time.Unix(-10, 0).UTC(), Born: utc(1, 1, 1, 0, 0, 1, 0), Tick: time.Unix(-128*3600, 0).UTC(), Fine: utc(1900, 1, 1, 0, 0, 0, 0)}},
	}
	for _, c := range cases {
		want := bitsOf(f{c.at, 42}, f{c.near, 15}, f{c.born, 36}, f{c.tick, 8}, f{c.fine, 64})
		got, err := bitpack.Marshal(&c.v)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: Marshal = % x, %v\nwant % x", c.name, got, err, want)
			continue
		}
		back := timeMsg{At: time.Now(), Born: time.Now().In(time.Local)} // replaced whole
		if err := bitpack.Unmarshal(got, &back); err != nil || back != c.back {
			t.Errorf("%s: Unmarshal = %+v, %v\nwant %+v", c.name, back, err, c.back)
		}
		for _, tm := range []time.Time{back.At, back.Near, back.Born, back.Tick, back.Fine} {
			if tm.Location() != time.UTC || tm != tm.Round(0) || strings.Contains(tm.String(), "m=") {
				t.Errorf("%s: %v is not a UTC time without monotonic reading", c.name, tm)
			}
		}
	}
	// The zero time decodes to the zero time.Time exactly.
	var z timeMsg
	z.Born = time.Time{}
	z.At, z.Near, z.Tick, z.Fine = time.UnixMilli(5).UTC(), time.Unix(0, 0).UTC(), time.Unix(0, 0).UTC(), time.Unix(0, 0).UTC()
	p, err := bitpack.Marshal(&z)
	var zb timeMsg
	if err != nil || bitpack.Unmarshal(p, &zb) != nil || !zb.Born.IsZero() || zb.Born != (time.Time{}) || zb != z {
		t.Fatalf("zero time: %+v, %v", zb, err)
	}
	// A monotonic reading changes nothing on the wire.
	now := time.Now()
	a, _ := bitpack.Marshal(&timeMsg{At: now, Born: now})
	b, _ := bitpack.Marshal(&timeMsg{At: now.Round(0).In(time.FixedZone("y", 3600)), Born: now.Round(0)})
	if !bytes.Equal(a, b) {
		t.Errorf("a monotonic reading or a location changed the wire: % x, % x", a, b)
	}
}

// TestTimeRefusals: a time outside its range refuses the packet (or is
// clamped), naming its units; a code past the range refuses the packet
// and leaves the value as it was; wrong tags are refused when the type
// compiles.
func TestTimeRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		v    any
		msg  string
	}{
		{"after the range", &timeMsg{At: utc(2100, 1, 1, 0, 0, 0, 1_000_000), Near: time.Unix(0, 0)},
			"field At: value 2100-01-01 00:00:00.001 +0000 UTC is 4102444800001 units of 1ms, out of range [0, 4102444800000]"},
		{"before the range", &timeMsg{At: time.Unix(0, 0), Near: time.Unix(-10, -500_000).UTC()},
			"field Near: value 1969-12-31 23:59:49.9995 +0000 UTC is -10001 units of 1ms, out of range [-10000, 10000]"},
		{"the zero time, out of range", &timeMsg{},
			"field At: value 0001-01-01 00:00:00 +0000 UTC is -62135596800000 units of 1ms, out of range [0, 4102444800000]"},
		{"beyond 64 bits of units", &timeMsg{At: time.Unix(0, 0), Near: time.Unix(0, 0), Born: time.Unix(0, 0), Tick: time.Unix(0, 0), Fine: utc(2300, 1, 1, 0, 0, 0, 0)},
			"field Fine: value 2300-01-01 00:00:00 +0000 UTC is beyond ±2^63 units of 1ns, out of range [-9223372036854775808, 9223372036854775807]"},
		{"raw bits", &timeMsg{At: time.Unix(0, 0), Near: time.Unix(0, 0), Born: time.Unix(0, 0), Tick: time.Unix(128*3600-1800, 0).UTC()},
			"field Tick: value 1970-01-06 07:30:00 +0000 UTC is 128 units of 1h0m0s, out of range [-128, 127]"},
	} {
		if _, err := bitpack.Marshal(c.v); !errors.Is(err, bitpack.ErrRange) || !strings.HasSuffix(err.Error(), c.msg) {
			t.Errorf("%s: %v\nwant ...%s", c.name, err, c.msg)
		}
	}

	type clamped struct {
		T time.Time `bits:"unit=1h,range=0..100,clamp"`
	}
	for _, c := range []struct{ in, out time.Time }{
		{time.Time{}, time.Unix(0, 0).UTC()},
		{time.Unix(-1, 0), time.Unix(0, 0).UTC()},
		{utc(9999, 1, 1, 0, 0, 0, 0), time.Unix(100*3600, 0).UTC()},
		{time.Unix(50*3600+1799, 0), time.Unix(50*3600, 0).UTC()},
	} {
		p, err := bitpack.Marshal(&clamped{c.in})
		var back clamped
		if err != nil || bitpack.Unmarshal(p, &back) != nil || back.T != c.out {
			t.Errorf("clamp %v: %v, %v; want %v", c.in, err, back.T, c.out)
		}
	}

	// Near: 15 bits for codes 0..20000; 20001 is past the range.
	bad := bitsOf(f{0, 42}, f{20001, 15}, f{0, 36}, f{0, 8}, f{0, 64})
	prior := timeMsg{At: time.Unix(1, 0).UTC(), Near: time.Unix(2, 0)}
	v := prior
	if err := bitpack.Unmarshal(bad, &v); !errors.Is(err, bitpack.ErrRange) || !strings.HasSuffix(err.Error(), "field Near at bit 42: value 10001 out of range [-10000, 10000]") || v != prior {
		t.Errorf("code past the range: %v, %+v", err, v)
	}
	good, _ := bitpack.Marshal(&timeMsg{At: time.Unix(0, 0), Near: time.Unix(0, 0), Born: time.Unix(0, 0), Tick: time.Unix(0, 0), Fine: time.Unix(0, 0)})
	if err := bitpack.Unmarshal(good[:10], &v); !errors.Is(err, bitpack.ErrOverflow) || !strings.HasSuffix(err.Error(), "field Born at bit 57: needs 36 bits, 23 remain") || v != prior {
		t.Errorf("truncated: %v, %+v", err, v)
	}

	for _, c := range []struct {
		v   any
		msg string
	}{
		{&struct{ T time.Time }{}, `field T: time.Time travels as its Unix time in units of unit= (a Go duration), bounded by range= or bits= in those units`},
		{&struct {
			T time.Time `bits:"range=0..10"`
		}{}, `time.Time travels as its Unix time in units of unit=`},
		{&struct {
			T time.Time `bits:"unit=1ms"`
		}{}, `unit=1ms needs range= or bits= (in units) to say how the value travels`},
		{&struct {
			T time.Time `bits:"unit=5,range=0..10"`
		}{}, `unit=5 is not a positive Go duration (e.g. unit=1ms)`},
		{&struct {
			T time.Time `bits:"unit=1s,bits=64"`
		}{}, `values [-9223372036854775808, 9223372036854775807] in units of 1s are not all time.Time's: Unix seconds must be within [-9223372036854775808, 9223371974719179007]`},
		{&struct {
			T time.Time `bits:"maxlen=4,unit=1s,range=0..9"`
		}{}, `maxlen does not apply to time.Time`},
		{&struct {
			M map[time.Time]int `bits:"maxlen=4"`
		}{}, `map keys must be integers, strings or bools`},
	} {
		if _, err := bitpack.Describe(c.v); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%T: %v\nwant ...%s", c.v, err, c.msg)
		}
	}
}

// TestTimeLayout: Describe's words, Layout.Schema's production, and the
// options reaching a time.Time in an array, through a pointer and from a
// struct-level tag.
func TestTimeLayout(t *testing.T) {
	l, err := bitpack.Describe(&timeMsg{})
	if err != nil {
		t.Fatal(err)
	}
	words := []string{
		"Unix time, int [0, 4102444800000] × 1ms",
		"Unix time, int [-10000, 10000] × 1ms",
		"Unix time, int [-62135596800, 4102444800] × 1s",
		"Unix time, int 8 bits (two's complement) × 1h0m0s",
		"Unix time, int 64 bits (two's complement) × 1ns",
	}
	for i, f := range l.Root.Fields {
		if f.Kind != bitpack.KindTime || f.Encoding() != words[i] || f.Kind.String() != "time" {
			t.Errorf("%s: %s %q, want %q", f.Name, f.Kind, f.Encoding(), words[i])
		}
	}
	if l.MinBits != 165 || l.MaxBits != 165 {
		t.Errorf("%d..%d bits, want 165", l.MinBits, l.MaxBits)
	}
	want := "{tr0..4102444800000*1000000;tr-10000..10000*1000000;tr-62135596800..4102444800*1000000000;ti8*3600000000000;ti64*1}"
	if s := l.Schema(); s != want {
		t.Errorf("Schema = %s\nwant %s", s, want)
	}
	type inner struct {
		T time.Time
		D time.Duration
	}
	type holder struct {
		A [2]time.Time `bits:"unit=1s,range=0..10"`
		P *time.Time   `bits:"unit=1s,range=0..10"`
		S []time.Time  `bits:"maxlen=2,elem.unit=1s,elem.range=0..10"`
		I inner        `bits:"unit=1s,range=0..10"` // reaches the time and the duration
	}
	h := holder{A: [2]time.Time{time.Unix(1, 0).UTC(), time.Unix(2, 0).UTC()}, P: new(time.Time), S: []time.Time{time.Unix(3, 0).UTC()}, I: inner{time.Unix(4, 0).UTC(), 5 * time.Second}}
	*h.P = time.Unix(6, 0).UTC()
	p, err := bitpack.Marshal(&h)
	// A: 1, 2; P: present, 6; S: length 1, 3; I: 4, 5 (4 bits each).
	if want := bitsOf(f{1, 4}, f{2, 4}, f{1, 1}, f{6, 4}, f{1, 2}, f{3, 4}, f{4, 4}, f{5, 4}); err != nil || !bytes.Equal(p, want) {
		t.Fatalf("holder: % x, %v; want % x", p, err, want)
	}
	var back holder
	if err := bitpack.Unmarshal(p, &back); err != nil || !reflect.DeepEqual(back, h) {
		t.Fatalf("holder: %+v, %v", back, err)
	}
}

// TestTimeDelta: a time's delta is an integer's, by its code in units:
// the short form for a small change, the long form else, nothing when
// the units are the same.
func TestTimeDelta(t *testing.T) {
	type clock struct {
		T time.Time `bits:"unit=1s,range=0..1000000"` // 20 bits; short form 8 bits (±128)
	}
	base := &clock{time.Unix(1000, 0)}
	for _, c := range []struct {
		name string
		v    clock
		want []byte
	}{
		// The root's changed bit; T, the only item, has none. Short: 0,
		// then +3 as 128-1+3 = 130.
		{"short", clock{time.Unix(1003, 0)}, bitsOf(f{1, 1}, f{0, 1}, f{130, 8})},
		// Long: 1, then the code 5000.
		{"long", clock{time.Unix(5000, 0)}, bitsOf(f{1, 1}, f{1, 1}, f{5000, 20})},
	} {
		got, err := bitpack.AppendDelta(nil, base, &c.v)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s: % x, %v; want % x", c.name, got, err, c.want)
			continue
		}
		var back clock
		if err := bitpack.UnmarshalDelta(got, base, &back); err != nil || back.T != c.v.T.UTC() {
			t.Errorf("%s: %v, %v", c.name, back.T, err)
		}
	}
	// Within half a unit of the base: unchanged, the root's 0 bit.
	if got, err := bitpack.AppendDelta(nil, base, &clock{time.Unix(1000, 400_000_000)}); err != nil || !bytes.Equal(got, []byte{0}) {
		t.Errorf("same units: % x, %v", got, err)
	}
	// A long form for what the short one carries is refused, the value kept.
	v := clock{time.Unix(7, 0)}
	if err := bitpack.UnmarshalDelta(bitsOf(f{1, 1}, f{1, 1}, f{1003, 20}), base, &v); !errors.Is(err, bitpack.ErrRange) ||
		!strings.HasSuffix(err.Error(), "field T at bit 1: code 1003 is within 128 of the base's 1000: the short form carries it (not canonical)") || v.T != time.Unix(7, 0) {
		t.Errorf("non-canonical long form: %v, %v", err, v.T)
	}
}

// TestTimeDeltaNoBits: a time of one unit (range=A..A, 0 bits) holds one
// value only, and takes no part in a delta, as a fixed-width field of 0
// bits does not (docs/wire.md, "Items"): the delta of a change in N alone
// is the root's changed bit, then N's part without a bit of its own (the
// only item): the short form, 0, then +3 as 8-1+3 = 10 in 4 bits.
func TestTimeDeltaNoBits(t *testing.T) {
	type one struct {
		T time.Time `bits:"unit=1h,range=5..5"`
		N int16     `bits:"range=0..100"`
	}
	base := &one{T: time.Unix(5*3600, 0).UTC(), N: 1} // as a receiver holds it
	want := bitsOf(f{1, 1}, f{0, 1}, f{10, 4})
	got, err := bitpack.AppendDelta(nil, base, &one{T: time.Unix(5*3600, 0), N: 4})
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("% x, %v; want % x", got, err, want)
	}
	var back one
	if err := bitpack.UnmarshalDelta(got, base, &back); err != nil || back.N != 4 || back.T != time.Unix(5*3600, 0).UTC() {
		t.Errorf("%+v, %v", back, err)
	}
	l, err := bitpack.Describe(one{})
	if err != nil || l.Root.Fields[0].DeltaItem() {
		t.Errorf("T is a delta item (%v)", err)
	}
}

// TestTimeAllocs: a time costs no allocation either way.
func TestTimeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	c, err := bitpack.NewCodec[timeMsg]()
	if err != nil {
		t.Fatal(err)
	}
	v := timeMsg{At: utc(2024, 1, 2, 3, 4, 5, 6), Near: time.Unix(1, 0), Born: time.Time{}, Tick: time.Unix(0, 0), Fine: time.Unix(5, 5)}
	buf := make([]byte, 0, 64)
	var err2 error
	if n := testing.AllocsPerRun(100, func() { buf, err2 = c.Append(buf[:0], &v) }); n != 0 || err2 != nil {
		t.Errorf("encode: %v allocations, %v", n, err2)
	}
	var back timeMsg
	if n := testing.AllocsPerRun(100, func() { _ = c.Unmarshal(buf, &back) }); n != 0 || back.Near != time.Unix(1, 0).UTC() {
		t.Errorf("decode: %v allocations, %+v", n, back)
	}
}

// TestTimeGenerated: every generator takes time.Time fields (gen's tests
// hold what they write to the plan: TestGoAgrees, TestGoTimeEdges and the
// cross-language corpus), and generated Go converts with package rules'
// functions, word for word, not a copy of its own.
func TestTimeGenerated(t *testing.T) {
	for name, g := range map[string]func(io.Writer, gen.Options, ...any) error{
		"Go": gen.Go, "C++": gen.CPP, "C#": gen.CSharp, "TypeScript": gen.TypeScript, "Rust": gen.Rust,
	} {
		if err := g(io.Discard, gen.Options{}, &timeMsg{}); err != nil {
			t.Errorf("gen.%s: %v", name, err)
		}
	}
	var out bytes.Buffer
	if err := gen.Go(&out, gen.Options{}, &timeMsg{}); err != nil {
		t.Fatal(err)
	}
	// The file imports time as bptime and math/bits as bpbits.
	generated := strings.NewReplacer("bptime.", "time.", "bpbits.", "bits.").Replace(out.String())
	for _, fn := range []string{"UnixUnits", "TimeOfUnits"} {
		if src := ruleSource(t, fn); !strings.Contains(generated, strings.ReplaceAll(src, fn, "bitpack"+fn)) {
			t.Errorf("the generated Go has no copy of rules.%s:\n%s", fn, src)
		}
	}
}

// ruleSource is the source of function name of internal/rules/time.go,
// its doc comment included.
func ruleSource(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("internal/rules/time.go")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	start := strings.Index(src, "// "+name+" is ")
	end := strings.Index(src[start:], "\n}\n")
	if start < 0 || end < 0 {
		t.Fatalf("internal/rules/time.go has no documented %s", name)
	}
	return src[start : start+end+3]
}

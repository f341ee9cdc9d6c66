package bitpack_test

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bitpack-go/bitpack"
)

// The string-heavy record of issue 31: the shape of the record a public
// suite of Go serializers times (a name, a phone, a date as a number, a
// small count, a flag, an amount), and a safe hand-written codec of it to
// measure bitpack's string path against.

type stringRecord struct {
	Name     string `bits:"maxlen=16"`
	Phone    string `bits:"maxlen=10"`
	BirthDay int64
	Siblings int `bits:"range=0..255"`
	Spouse   bool
	Money    float64
}

// recordSamples are the records the benchmark cycles through: names and
// phones of the suite's lengths (16 and 10 ASCII letters and digits),
// different in every record, so that each decode has new strings to
// allocate, as a stream of records would.
func recordSamples() []stringRecord {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	seed := uint32(2463534242)
	next := func() uint32 { // xorshift32
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return seed
	}
	text := func(n int, alphabet string) string {
		var b strings.Builder
		for range n {
			b.WriteByte(alphabet[next()%uint32(len(alphabet))])
		}
		return b.String()
	}
	out := make([]stringRecord, 16)
	for i := range out {
		out[i] = stringRecord{
			Name:     text(16, letters),
			Phone:    text(10, "0123456789"),
			BirthDay: 1_700_000_000_000_000_000 + int64(next())*1_000_003,
			Siblings: int(next() % 5),
			Spouse:   next()%2 == 1,
			Money:    float64(next()) / (1 << 32),
		}
	}
	return out
}

// The hand-written codec: what a careful programmer writes for this record
// without a library, as safe as bitpack's decoder. Byte-oriented: a 1-byte
// length before each string, fixed-width little-endian numbers, one byte
// each for the count and the flag. Encoding and decoding both check each
// string's length, UTF-8 and NUL bytes and the count's range; decoding
// also the flag byte (0 or 1), the packet's length (truncation, trailing
// bytes), and it is all-or-nothing: the target changes only once the whole
// packet is accepted, with both strings allocated.

var (
	errHandRange   = errors.New("out of range")
	errHandString  = errors.New("invalid string")
	errHandLength  = errors.New("wrong packet length")
	errHandBoolean = errors.New("bool byte not 0 or 1")
)

const (
	handNameMax  = 16
	handPhoneMax = 10
	handTail     = 8 + 1 + 1 + 8 // BirthDay, Siblings, Spouse, Money
)

// handStringOK reports whether s may travel: at most maxlen bytes, UTF-8,
// no NUL.
func handStringOK(s string, maxlen int) bool {
	return len(s) <= maxlen && strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
}

func handAppendRecord(dst []byte, r *stringRecord) ([]byte, error) {
	if !handStringOK(r.Name, handNameMax) || !handStringOK(r.Phone, handPhoneMax) {
		return dst, errHandString
	}
	if r.Siblings < 0 || r.Siblings > 255 {
		return dst, errHandRange
	}
	dst = append(dst, byte(len(r.Name)))
	dst = append(dst, r.Name...)
	dst = append(dst, byte(len(r.Phone)))
	dst = append(dst, r.Phone...)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(r.BirthDay))
	spouse := byte(0)
	if r.Spouse {
		spouse = 1
	}
	dst = append(dst, byte(r.Siblings), spouse)
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(r.Money)), nil
}

// handString reads a string of at most maxlen bytes from the front of p:
// its bytes (aliasing p) and the rest of p.
func handString(p []byte, maxlen int) (s, rest []byte, err error) {
	if len(p) < 1 {
		return nil, nil, errHandLength
	}
	n := int(p[0])
	if n > maxlen {
		return nil, nil, errHandRange
	}
	if len(p) < 1+n {
		return nil, nil, errHandLength
	}
	s = p[1 : 1+n]
	// strings.IndexByte and utf8.ValidString: the conversions do not copy.
	if strings.IndexByte(string(s), 0) >= 0 || !utf8.ValidString(string(s)) {
		return nil, nil, errHandString
	}
	return s, p[1+n:], nil
}

func handReadRecord(p []byte, r *stringRecord) error {
	name, rest, err := handString(p, handNameMax)
	if err != nil {
		return err
	}
	phone, rest, err := handString(rest, handPhoneMax)
	if err != nil {
		return err
	}
	if len(rest) != handTail {
		return errHandLength
	}
	if rest[9] > 1 {
		return errHandBoolean
	}
	r.Name = string(name)
	r.Phone = string(phone)
	r.BirthDay = int64(binary.LittleEndian.Uint64(rest))
	r.Siblings = int(rest[8])
	r.Spouse = rest[9] == 1
	r.Money = math.Float64frombits(binary.LittleEndian.Uint64(rest[10:]))
	return nil
}

// TestRecordWire pins the record's bytes: each string's length in the bits
// its maxlen needs (5 for 16, 4 for 10), padding to the byte, the bytes;
// then the int64 raw, the count in 8 bits, the flag, the float64's bits.
func TestRecordWire(t *testing.T) {
	r := stringRecord{Name: "Ada", Phone: "12", BirthDay: -2, Siblings: 3, Spouse: true, Money: 1.5}
	want := bitsOf(
		f{3, 5}, raw('A', 'd', 'a'), // length 3 in 5 bits, padding, the bytes
		f{2, 4}, raw('1', '2'),
		f{0xFFFFFFFFFFFFFFFE, 64}, f{3, 8}, f{1, 1}, f{0x3FF8000000000000, 64},
	)
	got, err := bitpack.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("record:\n got % x\nwant % x", got, want)
	}
	var back stringRecord
	if err := bitpack.Unmarshal(got, &back); err != nil || back != r {
		t.Fatalf("decoded %+v, %v; want %+v", back, err, r)
	}
	// At full length: 361 bits, 46 bytes.
	full := recordSamples()[0]
	if got, err := bitpack.Marshal(&full); err != nil || len(got) != 46 {
		t.Fatalf("a full record is %d bytes (%v), want 46", len(got), err)
	}
}

// TestHandRecordCodec checks the baseline does the work it claims: every
// sample round-trips, and it refuses what bitpack refuses, leaving the
// target as it was.
func TestHandRecordCodec(t *testing.T) {
	for _, r := range recordSamples() {
		p, err := handAppendRecord(nil, &r)
		if err != nil || len(p) != 1+16+1+10+handTail {
			t.Fatalf("%+v: %d bytes, %v", r, len(p), err)
		}
		var back stringRecord
		if err := handReadRecord(p, &back); err != nil || back != r {
			t.Fatalf("read %+v, %v; want %+v", back, err, r)
		}
	}
	bad := []stringRecord{
		{Name: strings.Repeat("a", 17)},
		{Name: "a\x00b"},
		{Phone: "\xff"},
		{Siblings: 256},
		{Siblings: -1},
	}
	for _, r := range bad {
		if _, err := handAppendRecord(nil, &r); err == nil {
			t.Errorf("hand encoder accepts %+v", r)
		}
		if _, err := bitpack.Marshal(&r); err == nil {
			t.Errorf("bitpack accepts %+v", r)
		}
	}
	good := recordSamples()[1]
	p, _ := handAppendRecord(nil, &good)
	packets := map[string][]byte{
		"truncated":     p[:len(p)-1],
		"trailing byte": append(append([]byte(nil), p...), 0),
		"empty":         nil,
		"name too long": append([]byte{17}, p[1:]...),
		"NUL in name":   append([]byte{16, 0}, p[2:]...),
		"bad UTF-8":     append([]byte{16, 0xC0}, p[2:]...),
		"flag byte 2":   append(append([]byte(nil), p[:len(p)-9]...), append([]byte{2}, p[len(p)-8:]...)...),
	}
	for name, q := range packets {
		prior := recordSamples()[2]
		got := prior
		if err := handReadRecord(q, &got); err == nil || got != prior {
			t.Errorf("%s: hand decoder gave %v and %+v", name, err, got)
		}
	}
}

// BenchmarkRecord writes and reads the records by hand ("hand", the
// baseline), through Codec[stringRecord] ("codec", the plan) and through
// the Go code gen.Go generated for the type ("generated"), cycling through
// the samples, into a reused buffer and a reused target.
func BenchmarkRecord(b *testing.B) {
	recs := recordSamples()
	c, err := bitpack.NewCodec[stringRecord]()
	if err != nil {
		b.Fatal(err)
	}
	cg, err := bitpack.NewCodec[recordGen]()
	if err != nil {
		b.Fatal(err)
	}
	var hand, plan [][]byte
	for i := range recs {
		h, err := handAppendRecord(nil, &recs[i])
		if err != nil {
			b.Fatal(err)
		}
		p, err := c.Marshal(&recs[i])
		if err != nil {
			b.Fatal(err)
		}
		hand, plan = append(hand, h), append(plan, p)
	}
	gens := make([]recordGen, len(recs))
	for i := range recs {
		gens[i] = recordGen(recs[i])
	}
	buf := make([]byte, 0, 64)
	writes := []struct {
		name string
		fn   func(i int) error
	}{
		{"write/hand", func(i int) (err error) { buf, err = handAppendRecord(buf[:0], &recs[i]); return }},
		{"write/codec", func(i int) (err error) { buf, err = c.Append(buf[:0], &recs[i]); return }},
		{"write/generated", func(i int) (err error) { buf, err = cg.Append(buf[:0], &gens[i]); return }},
	}
	for _, w := range writes {
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := w.fn(i); err != nil {
					b.Fatal(err)
				}
				i = (i + 1) & 15
			}
		})
	}
	var back stringRecord
	reads := []struct {
		name    string
		packets [][]byte
		fn      func([]byte) error
	}{
		{"read/hand", hand, func(p []byte) error { return handReadRecord(p, &back) }},
		{"read/codec", plan, func(p []byte) error { return c.Unmarshal(p, &back) }},
		{"read/generated", plan, func(p []byte) error { return cg.Unmarshal(p, (*recordGen)(&back)) }},
	}
	for _, r := range reads {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := r.fn(r.packets[i]); err != nil {
					b.Fatal(err)
				}
				i = (i + 1) & 15
			}
		})
	}
}

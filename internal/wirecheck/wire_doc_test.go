package wirecheck

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/google/go-cmp/cmp"
)

// The worked examples of docs/wire.md. Each doc block of Go code appears
// here line for line (TestDocGoMatchesTest checks it), so the bytes the
// doc shows are checked against the declarations it shows.

type Quat struct{ X, Y, Z, W float32 }

type Pose struct {
	A Quat `bits:"quat,bits=9"`
	B Quat `bits:"quat,bits=9"`
}

func examplePose() example {
	value := Pose{A: Quat{0, 0, 0, 1}, B: Quat{0, 0, 0.70710677, 0.70710677}}
	decoded := value
	return plain(value, decoded)
}

type Loadout struct {
	Ammo map[uint8]uint16 `bits:"maxlen=7,range=0..999"`  // 3-bit count; 8-bit keys; 10-bit values
	Tags []string         `bits:"maxlen=3,elem.maxlen=7"` // 2-bit length; 3-bit lengths, align, bytes
	Cool time.Duration    `bits:"unit=10ms,range=0..100"` // 7 bits, in units of 10ms
}

func exampleLoadout() example {
	value := Loadout{Ammo: map[uint8]uint16{3: 120, 1: 999}, Tags: []string{"hq", "a"}, Cool: 250 * time.Millisecond}
	return plain(value, value)
}

type Profile struct {
	Name string    `bits:"maxlen=16"`                   // 5-bit length, align, bytes
	Seen time.Time `bits:"unit=1s,range=0..4102444800"` // 32 bits: seconds from 1970 to 2100
}

func exampleProfile() example {
	value := Profile{Name: "ada", Seen: time.Date(2024, 1, 2, 3, 4, 5, 600_000_000, time.UTC)}
	decoded := Profile{Name: "ada", Seen: time.Date(2024, 1, 2, 3, 4, 6, 0, time.UTC)}
	return plain(value, decoded)
}

type Ping struct {
	Health int32   `bits:"range=0..1000"` // 10 bits
	Alive  bool    // 1 bit
	Speed  float32 `bits:"float,min=0,max=10,res=0.01"` // M = 1000: 10 bits
}

func examplePing() example {
	value := Ping{Health: 731, Alive: true, Speed: 0.105}
	decoded := Ping{Health: 731, Alive: true, Speed: 0.11}
	return plain(value, decoded)
}

type Hello struct {
	Kind uint8  `bits:"bits=3"`
	Name string `bits:"maxlen=15"` // 4-bit length, align, bytes
}

func exampleHello() example {
	value := Hello{Kind: 5, Name: "ada"}
	return plain(value, value)
}

type Misc struct {
	Delta int8     `bits:"bits=4"`               // -3 → 1101
	Temp  int16    `bits:"range=-40..80"`        // 7 bits
	IDs   []uint16 `bits:"maxlen=3,range=0..15"` // 2-bit length, 4 bits each
	Opt   *uint8   // presence bit, then 8 bits
	Raw   int16    // 16 bits, two's complement
	Ratio float64  `bits:"float,min=0,max=1,res=0.001"` // float64 formula: M = 1000, 10 bits
}

func exampleMisc() example {
	opt := uint8(200)
	value := Misc{Delta: -3, Temp: -5, IDs: []uint16{3, 15}, Opt: &opt, Raw: -2, Ratio: 0.25}
	return plain(value, value)
}

type Unit struct {
	HP uint8 `bits:"range=0..100"` // 7 bits
}

type Squad struct {
	Slots [8]*Unit `bits:"sparse"`
}

func exampleSquad() example {
	value := Squad{}
	value.Slots[1] = &Unit{HP: 100}
	value.Slots[2] = &Unit{HP: 7}
	value.Slots[7] = &Unit{HP: 50}
	return plain(value, value)
}

type Echo struct {
	Seen  bool
	cache [4096]byte // off the wire: Go memory a decode allocates all the same
}

type Sonar struct {
	Echoes []Echo `bits:"maxlen=1000"` // 10-bit length
}

func exampleSonar() example {
	value := Sonar{Echoes: make([]Echo, 127)}
	_ = value.Echoes[0].cache // the field is there for its size alone
	return plain(value, value)
}

type Move struct {
	DX int8 `bits:"range=-8..7"`
	DY int8 `bits:"range=-8..7"`
}

type Fire struct {
	Power uint8 `bits:"range=0..3"`
}

type Chat struct {
	Text string `bits:"maxlen=31"`
}

// msgUnion is the union of the doc's union examples, built by the doc's
// own lines.
var msgUnion, firePacket = unionFire()

func unionFire() (*bitpack.Union, []byte) {
	u, _ := bitpack.NewUnion(Move{}, &Fire{}, Chat{}) // index = position: 2 bits
	packet, _ := u.Marshal(&Fire{Power: 2})
	return u, packet
}

func exampleUnionFire() example {
	return unionPacket(firePacket, &Fire{Power: 2})
}

func exampleUnionChat() example {
	u := msgUnion
	packet, _ := u.Marshal(Chat{Text: "hi"})
	return unionPacket(packet, &Chat{Text: "hi"})
}

type Msg interface{ isMsg() }

func (Move) isMsg()  {}
func (*Fire) isMsg() {}
func (Chat) isMsg()  {}

type Envelope struct {
	First Msg
	Rest  []Msg `bits:"maxlen=4"`
}

func exampleEnvelope() example {
	u := msgUnion
	err := bitpack.RegisterUnion[Msg](u)
	value := Envelope{First: &Fire{Power: 3}, Rest: []Msg{Move{DX: -1, DY: 2}}}
	ex := plain(value, value)
	if err != nil {
		ex.encode = func() ([]byte, error) { return nil, err }
	}
	return ex
}

type Checked struct {
	Seq   uint16        `bits:"range=0..1023"` // 10 bits
	Check bitpack.Check `bits:"check=end of packet"`
}

func exampleChecked() example {
	value := Checked{Seq: 1000}
	return plain(value, value)
}

const protocolID = 0x12345678

func exampleSealed() example {
	hello, _ := bitpack.Marshal(&Hello{Kind: 5, Name: "ada"})
	packet := bitpack.Seal(nil, 0x12345678, hello)
	return example{
		encode: func() ([]byte, error) { return packet, nil },
		decode: func(b []byte) (any, error) { return bitpack.Open(protocolID, b) },
		want:   hello,
		reencode: func(v any) ([]byte, error) {
			return bitpack.Seal(nil, protocolID, v.([]byte)), nil
		},
	}
}

type BenchPacket struct {
	Sequence    uint64
	Position    [3]float32 `bits:"float,min=-1024,max=1024,res=0.01"`
	Orientation [4]float32 `bits:"float,min=-1,max=1,res=0.0001"`
	Health      int32      `bits:"range=0..1000"`
	Weapon      uint32     `bits:"bits=4"`
	Ammo        [8]int32   `bits:"range=0..200"`
	Firing      bool
	EventIDs    []uint32 `bits:"maxlen=16"`
	Payload     [64]byte
}

func exampleReference() example {
	value := BenchPacket{
		Sequence:    0x123456789ABCDEF0,
		Position:    [3]float32{102.4, -55.3, 12.75},
		Orientation: [4]float32{0.1, 0.2, 0.3, 0.9},
		Health:      731,
		Weapon:      11,
		Firing:      true,
	}
	for i := range value.Ammo {
		value.Ammo[i] = int32(i * 13 % 200)
	}
	for i := 0; i < 9; i++ {
		value.EventIDs = append(value.EventIDs, uint32(uint64(i)*2654435761))
	}
	for i := range value.Payload {
		value.Payload[i] = byte(i * 47)
	}
	// The quantized fields come back as their quanta: the values the
	// reference C++ reader returns for these codes.
	decoded := value
	decoded.Position = [3]float32{102.400024, -55.299988, 12.75}
	decoded.Orientation = [4]float32{0.100000024, 0.20000005, 0.29999995, 0.9}
	return plain(value, decoded)
}

// ---------------------------------------------------------------------------
// The checker.

// example says how to produce a doc example's packet and read it back.
type example struct {
	encode   func() ([]byte, error)
	decode   func([]byte) (any, error)
	want     any                       // what decode returns for the packet
	reencode func(any) ([]byte, error) // encodes what decode returned
	layout   any                       // a *T for Describe and Fingerprint; nil when there is no type
}

func examplePingDelta() example {
	base := Ping{Health: 731, Alive: true, Speed: 0.11}
	value := Ping{Health: 740, Alive: false, Speed: 0.1051}
	decoded := Ping{Health: 740, Alive: false, Speed: 0.11}
	return deltaOf(base, value, decoded)
}

func exampleSquadDelta() example {
	base := Squad{}
	base.Slots[1] = &Unit{HP: 100}
	base.Slots[2] = &Unit{HP: 7}
	base.Slots[7] = &Unit{HP: 50}
	value := Squad{}
	value.Slots[1] = &Unit{HP: 100}
	value.Slots[3] = &Unit{HP: 9}
	value.Slots[7] = &Unit{HP: 49}
	return deltaOf(base, value, value)
}

type Crate struct {
	Count uint8 `bits:"range=0..100"` // 7 bits
}

type Hold struct {
	Crates map[int8]*Crate `bits:"maxlen=8"`
}

func exampleHoldDelta() example {
	base := Hold{Crates: map[int8]*Crate{1: {Count: 5}, 2: nil, 3: {Count: 7}, 4: {Count: 9}}}
	value := Hold{Crates: map[int8]*Crate{1: nil, 2: {Count: 6}, 3: {Count: 7}, 5: nil, 6: {Count: 1}}}
	return deltaOf(base, value, value)
}

var examples = map[string]func() example{
	"ping-delta":  examplePingDelta,
	"squad-delta": exampleSquadDelta,
	"hold-delta":  exampleHoldDelta,
	"pose":        examplePose,
	"ping":        examplePing,
	"loadout":     exampleLoadout,
	"profile":     exampleProfile,
	"hello":       exampleHello,
	"misc":        exampleMisc,
	"squad":       exampleSquad,
	"sonar":       exampleSonar,
	"union-fire":  exampleUnionFire,
	"union-chat":  exampleUnionChat,
	"envelope":    exampleEnvelope,
	"checked":     exampleChecked,
	"sealed":      exampleSealed,
	"reference":   exampleReference,
}

// plain is the example of a value that Marshal encodes and Unmarshal
// decodes into a T, giving decoded.
func plain[T any](value, decoded T) example {
	return example{
		encode: func() ([]byte, error) { return bitpack.Marshal(&value) },
		decode: func(b []byte) (any, error) {
			var v T
			err := bitpack.Unmarshal(b, &v)
			return &v, err
		},
		want:     &decoded,
		reencode: func(v any) ([]byte, error) { return bitpack.Marshal(v) },
		layout:   new(T),
	}
}

// deltaOf is the example of value's delta against base, which
// UnmarshalDelta against base decodes to decoded.
func deltaOf[T any](base, value, decoded T) example {
	return example{
		encode: func() ([]byte, error) { return bitpack.AppendDelta(nil, &base, &value) },
		decode: func(b []byte) (any, error) {
			var v T
			err := bitpack.UnmarshalDelta(b, &base, &v)
			return &v, err
		},
		want:     &decoded,
		reencode: func(v any) ([]byte, error) { return bitpack.AppendDelta(nil, &base, v) },
	}
}

// unionPacket is the example of a msgUnion packet that decodes to want.
func unionPacket(packet []byte, want any) example {
	return example{
		encode:   func() ([]byte, error) { return packet, nil },
		decode:   msgUnion.Unmarshal,
		want:     want,
		reencode: msgUnion.Marshal,
	}
}

// block is one fenced block of the doc whose info string has key=value
// attributes.
type block struct {
	lang  string
	attrs map[string]string
	body  string
	line  int
}

func docBlocks(t *testing.T) []block {
	t.Helper()
	data, err := os.ReadFile("../../docs/wire.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		info, ok := strings.CutPrefix(lines[i], "```")
		if !ok || info == "" {
			continue
		}
		start := i
		var body []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		fields := strings.Fields(info)
		b := block{lang: fields[0], attrs: map[string]string{}, body: strings.Join(body, "\n"), line: start + 1}
		for _, f := range fields[1:] {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				t.Fatalf("wire.md:%d: info string word %q is not key=value", b.line, f)
			}
			b.attrs[k] = v
		}
		if len(b.attrs) > 0 {
			out = append(out, b)
		}
	}
	return out
}

func mustHex(t *testing.T, b block) []byte {
	t.Helper()
	data, err := hex.DecodeString(strings.Join(strings.Fields(b.body), ""))
	if err != nil {
		t.Fatalf("wire.md:%d: %v", b.line, err)
	}
	return data
}

// normalized returns s's lines with runs of spaces and tabs collapsed and
// blank lines dropped, as one string with a newline around each line.
func normalized(s string) string {
	var b strings.Builder
	b.WriteByte('\n')
	for _, l := range strings.Split(s, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			b.WriteString(strings.Join(f, " "))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// missingChunks returns the blank-line-separated chunks of a doc block's
// code that are not in source (normalized), spacing aside.
func missingChunks(code, source string) []string {
	var missing []string
	for _, chunk := range strings.Split(code, "\n\n") {
		if !strings.Contains(source, normalized(chunk)) {
			missing = append(missing, chunk)
		}
	}
	return missing
}

// TestDocBlocksKnown catches a misspelt marker, which the other tests
// would skip.
func TestDocBlocksKnown(t *testing.T) {
	keys := map[string]bool{"example": true, "reencoded": true, "schema": true, "fingerprint": true, "reject": true, "error": true, "words": true, "source": true}
	for _, b := range docBlocks(t) {
		for k, v := range b.attrs {
			if !keys[k] {
				t.Errorf("wire.md:%d: unknown marker %s=%s", b.line, k, v)
			}
		}
		if name, ok := b.attrs["reencoded"]; ok && examples[name] == nil {
			t.Errorf("wire.md:%d: reencoded=%s names no example", b.line, name)
		}
	}
}

func TestDocGoMatchesTest(t *testing.T) {
	src, err := os.ReadFile("wire_doc_test.go")
	if err != nil {
		t.Fatal(err)
	}
	source := normalized(string(src))
	seen := map[string]bool{}
	for _, b := range docBlocks(t) {
		name, ok := b.attrs["example"]
		if !ok || b.lang != "go" {
			continue
		}
		seen[name] = true
		for _, chunk := range missingChunks(b.body, source) {
			t.Errorf("wire.md:%d (%s): this code is not in wire_doc_test.go:\n%s", b.line, name, chunk)
		}
	}
	for name := range examples {
		if !seen[name] {
			t.Errorf("example %q has no Go block in wire.md", name)
		}
	}
}

func TestDocExamples(t *testing.T) {
	blocks := docBlocks(t)
	reencoded := map[string][]byte{}
	for _, b := range blocks {
		if name, ok := b.attrs["reencoded"]; ok {
			reencoded[name] = mustHex(t, b)
		}
	}
	seen := map[string]bool{}
	for _, b := range blocks {
		name, ok := b.attrs["example"]
		if !ok || b.lang != "hex" {
			continue
		}
		mk, known := examples[name]
		if !known {
			t.Errorf("wire.md:%d: example %q is not in the test", b.line, name)
			continue
		}
		seen[name] = true
		want := mustHex(t, b)
		t.Run(name, func(t *testing.T) {
			again, ok := reencoded[name]
			if !ok {
				again = want
			}
			checkExample(t, mk(), want, again)
		})
	}
	for name := range examples {
		if !seen[name] {
			t.Errorf("example %q has no hex block in wire.md", name)
		}
	}
}

// checkExample encodes ex and requires want, decodes want and requires
// ex.want, and re-encodes the decoded value and requires again.
func checkExample(t *testing.T, ex example, want, again []byte) {
	got, err := ex.encode()
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encode:\n got % x\nwant % x", got, want)
	}
	v, err := ex.decode(want)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if diff := cmp.Diff(ex.want, v, cmp.AllowUnexported(Echo{})); diff != "" {
		t.Fatalf("decoded value (-doc +bitpack):\n%s", diff)
	}
	re, err := ex.reencode(v)
	if err != nil {
		t.Fatalf("re-encode: %v", err)
	}
	if !bytes.Equal(re, again) {
		t.Fatalf("re-encoded:\n got % x\nwant % x", re, again)
	}
}

func TestDocSchemas(t *testing.T) {
	n := 0
	for _, b := range docBlocks(t) {
		name, ok := b.attrs["schema"]
		if !ok {
			continue
		}
		n++
		mk, known := examples[name]
		var v any
		if known {
			v = mk().layout
		}
		if v == nil {
			t.Errorf("wire.md:%d: schema of %q, which is not a type example", b.line, name)
			continue
		}
		l, err := bitpack.Describe(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Schema(); got != strings.TrimSpace(b.body) {
			t.Errorf("wire.md:%d: Schema of %s:\n got %s\nwant %s", b.line, name, got, strings.TrimSpace(b.body))
		}
		fp, err := bitpack.Fingerprint(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%#08x", fp); got != b.attrs["fingerprint"] {
			t.Errorf("wire.md:%d: Fingerprint of %s is %s, the doc says %s", b.line, name, got, b.attrs["fingerprint"])
		}
	}
	if n == 0 {
		t.Error("wire.md has no schema blocks")
	}
}

var categories = map[string]error{
	"overflow":       bitpack.ErrOverflow,
	"range":          bitpack.ErrRange,
	"padding":        bitpack.ErrPadding,
	"invalid-string": bitpack.ErrInvalidString,
	"trailing":       bitpack.ErrTrailing,
	"depth":          bitpack.ErrDepth,
	"check":          bitpack.ErrCheck,
	"checksum":       bitpack.ErrChecksum,
}

// TestDocRejects decodes each reject block's packet as its example's type
// and requires the category it names; a words block that follows names
// the refusal's text, which must end the error's (after the type).
func TestDocRejects(t *testing.T) {
	n, worded := 0, 0
	var last error // the previous reject block's refusal
	lastName := ""
	for _, b := range docBlocks(t) {
		if name, ok := b.attrs["words"]; ok {
			worded++
			switch {
			case name != lastName || last == nil:
				t.Errorf("wire.md:%d: words=%s follows no refused packet of %s", b.line, name, name)
			case !strings.HasSuffix(last.Error(), ": "+strings.TrimSpace(b.body)):
				t.Errorf("wire.md:%d: the refusal is\n%v\nwhich does not end in the doc's words\n%s", b.line, last, b.body)
			}
			continue
		}
		name, ok := b.attrs["reject"]
		if !ok {
			continue
		}
		n++
		last, lastName = nil, name
		mk, known := examples[name]
		sentinel, knownErr := categories[b.attrs["error"]]
		if !known || !knownErr {
			t.Errorf("wire.md:%d: unknown example %q or error category %q", b.line, name, b.attrs["error"])
			continue
		}
		packet := mustHex(t, b)
		_, err := mk().decode(packet)
		if !errors.Is(err, sentinel) {
			t.Errorf("wire.md:%d: decoding % x as %s: got %v, want %s", b.line, packet, name, err, b.attrs["error"])
		}
		last = err
	}
	if n == 0 || worded == 0 {
		t.Errorf("wire.md has %d reject blocks and %d words blocks, want some of each", n, worded)
	}
}

// TestDocSourceBlocks: a Go block marked source=FILE (a declaration the
// doc shows from elsewhere in the repository) is in that file, chunk by
// chunk, spacing aside.
func TestDocSourceBlocks(t *testing.T) {
	n := 0
	for _, b := range docBlocks(t) {
		file, ok := b.attrs["source"]
		if !ok {
			continue
		}
		n++
		src, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(file)))
		if err != nil {
			t.Errorf("wire.md:%d: %v", b.line, err)
			continue
		}
		for _, chunk := range missingChunks(b.body, normalized(string(src))) {
			t.Errorf("wire.md:%d: this code is not in %s:\n%s", b.line, file, chunk)
		}
	}
	if n == 0 {
		t.Error("wire.md has no source blocks")
	}
}

package bitio_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// The files under testdata/conformance are copied unchanged from the shared
// golden vectors produced by the reference C++ serialize implementation.

type vectorOp struct {
	Op     string          `json:"op"`
	N      int             `json:"n"`
	Min    json.Number     `json:"min"`
	Max    json.Number     `json:"max"`
	Value  json.RawMessage `json:"value"`
	Bits   string          `json:"bits"`
	Len    int             `json:"len"`
	Hex    string          `json:"hex"`
	MaxLen int             `json:"maxlen"`
	// string
	ValueHex string `json:"value_hex"`
	// cfloat
	MinBits      string `json:"min_bits"`
	MaxBits      string `json:"max_bits"`
	ResBits      string `json:"res_bits"`
	ValueBits    string `json:"value_bits"`
	MaxIntValue  uint32 `json:"max_integer_value"`
	NBits        int    `json:"nbits"`
	Code         uint32 `json:"code"`
	DecodedBits  string `json:"decoded_bits"`
	BufferSize   int    `json:"buffer_size"`
	DecodedValue any    `json:"decoded"`
}

type vectorCase struct {
	Name      string     `json:"name"`
	Bits      int        `json:"bits"`
	Bytes     int        `json:"bytes"`
	Hex       string     `json:"hex"`
	Ops       []vectorOp `json:"ops"`
	FailIndex int        `json:"fail_index"`
	Reason    string     `json:"reason"`
}

type vectorFile struct {
	Format string       `json:"format"`
	Count  int          `json:"count"`
	Cases  []vectorCase `json:"cases"`
}

func loadVectors(t *testing.T, name string) vectorFile {
	t.Helper()
	raw, err := os.ReadFile("../testdata/conformance/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var f vectorFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) != f.Count {
		t.Fatalf("%s: %d cases, header says %d", name, len(f.Cases), f.Count)
	}
	return f
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func bits32(t *testing.T, s string) float32 {
	t.Helper()
	u, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		t.Fatalf("bad float bits %q: %v", s, err)
	}
	return math.Float32frombits(uint32(u))
}

func bits64(t *testing.T, s string) float64 {
	t.Helper()
	u, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		t.Fatalf("bad double bits %q: %v", s, err)
	}
	return math.Float64frombits(u)
}

func num64(t *testing.T, n json.Number) int64 {
	t.Helper()
	v, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		t.Fatalf("bad integer %q: %v", n, err)
	}
	return v
}

// rawInt parses an op's "value" as an integer (JSON number or decimal string).
func rawInt(t *testing.T, raw json.RawMessage) json.Number {
	t.Helper()
	s := string(raw)
	if len(s) > 1 && s[0] == '"' {
		s = s[1 : len(s)-1]
	}
	return json.Number(s)
}

func rawBool(t *testing.T, raw json.RawMessage) bool {
	t.Helper()
	switch string(raw) {
	case "true":
		return true
	case "false":
		return false
	}
	t.Fatalf("bad bool %s", raw)
	return false
}

func cfloatParams(t *testing.T, op vectorOp) (min, max, res float32) {
	return bits32(t, op.MinBits), bits32(t, op.MaxBits), bits32(t, op.ResBits)
}

// writeOp performs op on w.
func writeOp(t *testing.T, w *bitio.Writer, op vectorOp) {
	t.Helper()
	switch op.Op {
	case "bits":
		v, err := strconv.ParseUint(string(rawInt(t, op.Value)), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		w.WriteBits(v, op.N)
	case "bool":
		w.WriteBool(rawBool(t, op.Value))
	case "int":
		w.WriteInt(num64(t, rawInt(t, op.Value)), num64(t, op.Min), num64(t, op.Max))
	case "uint64":
		v, err := strconv.ParseUint(string(rawInt(t, op.Value)), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		w.WriteBits(v, 64)
	case "float":
		w.WriteFloat32(bits32(t, op.Bits))
	case "double":
		w.WriteFloat64(bits64(t, op.Bits))
	case "cfloat":
		min, max, res := cfloatParams(t, op)
		w.WriteCompressedFloat(bits32(t, op.ValueBits), min, max, res)
	case "align":
		w.Align()
	case "bytes":
		w.WriteBytes(mustHex(t, op.Hex))
	case "string":
		w.WriteString(string(mustHex(t, op.ValueHex)), op.MaxLen)
	default:
		t.Fatalf("unknown op %q", op.Op)
	}
}

// readOp performs op on r and, when check is set, compares what it read
// with the recorded value. It reports whether the read succeeded.
func readOp(t *testing.T, r *bitio.Reader, op vectorOp, check bool) bool {
	t.Helper()
	switch op.Op {
	case "bits":
		got := r.ReadBits(op.N)
		if check && r.Err() == nil && strconv.FormatUint(got, 10) != string(rawInt(t, op.Value)) {
			t.Errorf("bits(%d): got %d, want %s", op.N, got, rawInt(t, op.Value))
		}
	case "bool":
		got := r.ReadBool()
		if check && r.Err() == nil && got != rawBool(t, op.Value) {
			t.Errorf("bool: got %v, want %s", got, op.Value)
		}
	case "int":
		got := r.ReadInt(num64(t, op.Min), num64(t, op.Max))
		if check && r.Err() == nil && got != num64(t, rawInt(t, op.Value)) {
			t.Errorf("int[%s,%s]: got %d, want %s", op.Min, op.Max, got, op.Value)
		}
	case "uint64":
		got := r.ReadBits(64)
		if check && r.Err() == nil && strconv.FormatUint(got, 10) != string(rawInt(t, op.Value)) {
			t.Errorf("uint64: got %d, want %s", got, op.Value)
		}
	case "float":
		got := r.ReadFloat32()
		if want := bits32(t, op.Bits); check && r.Err() == nil && math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("float: got bits %#08x, want %s", math.Float32bits(got), op.Bits)
		}
	case "double":
		got := r.ReadFloat64()
		if want := bits64(t, op.Bits); check && r.Err() == nil && math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("double: got bits %#016x, want %s", math.Float64bits(got), op.Bits)
		}
	case "cfloat":
		min, max, res := cfloatParams(t, op)
		got := r.ReadCompressedFloat(min, max, res)
		if want := bits32(t, op.DecodedBits); check && r.Err() == nil && math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("cfloat: got bits %#08x (%v), want %s", math.Float32bits(got), got, op.DecodedBits)
		}
	case "align":
		r.Align()
	case "bytes":
		want := mustHex(t, op.Hex)
		got := make([]byte, op.Len)
		r.ReadBytes(got)
		if check && r.Err() == nil && !bytes.Equal(got, want) {
			t.Errorf("bytes: got %x, want %x", got, want)
		}
	case "string":
		got := r.ReadString(op.MaxLen)
		if want := string(mustHex(t, op.ValueHex)); check && r.Err() == nil && got != want {
			t.Errorf("string: got %q, want %q", got, want)
		}
	default:
		t.Fatalf("unknown op %q", op.Op)
	}
	return r.Err() == nil
}

func TestConformanceVectors(t *testing.T) {
	f := loadVectors(t, "vectors.json")
	if f.Count != 300 {
		t.Fatalf("expected 300 vectors, file has %d", f.Count)
	}
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			want := mustHex(t, c.Hex)
			w := bitio.NewWriter(nil)
			for i, op := range c.Ops {
				writeOp(t, w, op)
				if err := w.Err(); err != nil {
					t.Fatalf("write op %d (%s): %v", i, op.Op, err)
				}
			}
			if got := w.BitsWritten(); got != c.Bits {
				t.Errorf("BitsWritten = %d, want %d", got, c.Bits)
			}
			if got := w.Bytes(); !bytes.Equal(got, want) {
				t.Fatalf("bytes:\n got %x\nwant %x", got, want)
			}
			r := bitio.NewReader(want)
			for i, op := range c.Ops {
				if !readOp(t, r, op, true) {
					t.Fatalf("read op %d (%s): %v", i, op.Op, r.Err())
				}
			}
			if got := r.BitsRead(); got != c.Bits {
				t.Errorf("BitsRead = %d, want %d", got, c.Bits)
			}
		})
	}
}

// TestConformanceCompressedFloatParams checks quant's derived parameters and
// codes against every compressed float the reference recorded.
func TestConformanceCompressedFloatParams(t *testing.T) {
	f := loadVectors(t, "vectors.json")
	n := 0
	for _, c := range f.Cases {
		for _, op := range c.Ops {
			if op.Op != "cfloat" {
				continue
			}
			n++
			min, max, res := cfloatParams(t, op)
			q, err := quant.NewFloat(min, max, res)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if q.MaxCode() != op.MaxIntValue || q.Bits() != op.NBits {
				t.Errorf("%s: M=%d bits=%d, reference M=%d bits=%d", c.Name, q.MaxCode(), q.Bits(), op.MaxIntValue, op.NBits)
			}
			if got := q.Quantize(bits32(t, op.ValueBits)); got != op.Code {
				t.Errorf("%s: Quantize(%s) = %d, reference %d", c.Name, op.ValueBits, got, op.Code)
			}
			if got := q.Dequantize(op.Code); math.Float32bits(got) != math.Float32bits(bits32(t, op.DecodedBits)) {
				t.Errorf("%s: Dequantize(%d) = %#08x, reference %s", c.Name, op.Code, math.Float32bits(got), op.DecodedBits)
			}
		}
	}
	if n == 0 {
		t.Fatal("no compressed floats in the vectors")
	}
}

var rejectSentinels = map[string]error{
	"overflow":            bitio.ErrOverflow,
	"out_of_range":        bitio.ErrRange,
	"cfloat_out_of_range": bitio.ErrRange,
	"bad_padding":         bitio.ErrPadding,
	"string_invalid_utf8": bitio.ErrInvalidString,
	"string_interior_nul": bitio.ErrInvalidString,
}

func TestConformanceRejects(t *testing.T) {
	f := loadVectors(t, "reject.json")
	if f.Count != 61 {
		t.Fatalf("expected 61 reject cases, file has %d", f.Count)
	}
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			sentinel, ok := rejectSentinels[c.Reason]
			if !ok {
				t.Fatalf("unknown reason %q", c.Reason)
			}
			data := mustHex(t, c.Hex)
			if len(data) != c.Bytes {
				t.Fatalf("hex holds %d bytes, case says %d", len(data), c.Bytes)
			}
			r := bitio.NewReader(data)
			for i, op := range c.Ops[:c.FailIndex] {
				if !readOp(t, r, op, true) {
					t.Fatalf("op %d (%s) failed before fail_index %d: %v", i, op.Op, c.FailIndex, r.Err())
				}
			}
			if readOp(t, r, c.Ops[c.FailIndex], false) {
				t.Fatalf("op %d (%s) succeeded; want %s", c.FailIndex, c.Ops[c.FailIndex].Op, c.Reason)
			}
			err := r.Err()
			if !errors.Is(err, sentinel) {
				t.Fatalf("op %d failed with %v; want %v", c.FailIndex, err, sentinel)
			}
			var be *bitio.Error
			if !errors.As(err, &be) {
				t.Fatalf("error %v is not a *bitio.Error", err)
			}
		})
	}
}

package model

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/zerobit"
)

var update = flag.Bool("update", false, "rewrite the step goldens")

// The types of the step goldens and of TestEveryKindHasAStep.
type (
	Stamped struct {
		At   time.Time    `bits:"unit=1s,range=0..4102444800"`
		Log  []time.Time  `bits:"maxlen=3,unit=1ms,bits=44,clamp"`
		Fine *time.Time   `bits:"unit=1ns,bits=64"`
		Born [2]time.Time `bits:"unit=1h,range=-17259888..1139568"` // year 1 (the zero time.Time) to 2100
	}
	Vec3 struct{ X, Y, Z float32 }

	Player struct {
		Name    string        `bits:"maxlen=12"`
		Health  uint8         `bits:"range=0..100"`
		Pos     Vec3          `bits:"float,min=-100,max=100,res=0.01"`
		Rot     [4]float32    `bits:"quat,bits=9"`
		Tags    []uint16      `bits:"maxlen=4,bits=10"`
		Pet     *Vec3         ``
		Timeout time.Duration `bits:"unit=1ms,range=0..60000"`
		Tilt    int8          `bits:"bits=3,clamp"`
		Score   int32         ``
	}

	World struct {
		Start   bitpack.Check     `bits:"check=world"`
		Players [4]*Player        `bits:"sparse"`
		Extra   []*Vec3           `bits:"maxlen=300,sparse"`
		Scores  map[string]uint16 `bits:"maxlen=8,key.maxlen=6,bits=12"`
		Flags   map[bool]uint8    `bits:"maxlen=2"`
		Last    Msg               ``
		At      Stamp             ``
		Grid    [3][3]bool        ``
		Big     [40]uint16        ``
		Blob    []byte            `bits:"maxlen=16"`
		Key     [8]byte           ``
		Pinned  uint8             `bits:"range=5..5"`
		Speed   float64           `bits:"float,min=0,max=50,res=0.001,clamp"`
	}

	Msg  interface{ isMsg() }
	Move struct{ X, Y int16 }
	Fire struct {
		Power uint8 `bits:"range=1..10"`
	}

	Stamp struct{ v uint16 }
)

func (Move) isMsg() {}
func (Fire) isMsg() {}

func (s *Stamp) MarshalBits(w *bitio.Writer) error {
	if s.v > 4095 {
		return errors.New("stamp out of range")
	}
	w.WriteBits(uint64(s.v), 12)
	return nil
}

func (s *Stamp) UnmarshalBits(r *bitio.Reader) error {
	s.v = uint16(r.ReadBits(12))
	return r.Err()
}

func init() {
	u, err := bitpack.NewUnion(Move{}, Fire{})
	if err != nil {
		panic(err)
	}
	if err := bitpack.RegisterUnion[Msg](u); err != nil {
		panic(err)
	}
}

// TestEveryKindHasAStep: every kind the root package has (Kind 1 up to
// the first that has no name) is one a model value can be built from,
// with a step, or one the generators refuse in words. A kind added to
// bitpack fails here until the model gives it its step (and steps.go the
// numbers it needs) or a refusal.
func TestEveryKindHasAStep(t *testing.T) {
	m, err := Build([]any{World{}, Stamped{}})
	if err != nil {
		t.Fatal(err)
	}
	steps := map[bitpack.Kind][]Op{}
	var walk func(v *Value)
	walk = func(v *Value) {
		if v == nil {
			return
		}
		if v.Op == 0 {
			t.Errorf("%s (%s) has no step", v.Path, v.Kind)
		}
		steps[v.Kind] = append(steps[v.Kind], v.Op)
		walk(v.Elem)
		walk(v.Key)
		for _, u := range v.Fields {
			walk(u.Value)
		}
	}
	for _, typ := range m.Types {
		for _, f := range typ.Fields {
			walk(f.Value)
		}
	}
	want := map[bitpack.Kind]Op{
		bitpack.KindBool: OpBool, bitpack.KindInt: OpInt, bitpack.KindUint: OpInt, bitpack.KindFloat: OpFloat,
		bitpack.KindCompressedFloat: OpCompressed, bitpack.KindString: OpString, bitpack.KindBytes: OpBytes,
		bitpack.KindByteArray: OpByteArray, bitpack.KindArray: OpArray, bitpack.KindSlice: OpSlice,
		bitpack.KindPointer: OpPointer, bitpack.KindStruct: OpStruct, bitpack.KindQuat: OpQuat,
		bitpack.KindCustom: OpHook, bitpack.KindSparse: OpSparse, bitpack.KindUnion: OpUnion,
		bitpack.KindCheck: OpCheck, bitpack.KindMap: OpMap, bitpack.KindTime: OpInt,
	}
	// Kinds the generators refuse, each with a type holding one and the
	// exact refusal; a kind leaves this list when the model gives it its
	// step (time.Time did: its units are a signed integer's code).
	refused := map[bitpack.Kind]struct {
		value any
		err   string
	}{}
	for k := bitpack.Kind(1); !strings.HasPrefix(k.String(), "Kind("); k++ {
		if r, ok := refused[k]; ok {
			if _, err := Build([]any{r.value}); err == nil || err.Error() != r.err {
				t.Errorf("a %s field: Build gives %v, want the refusal %q", k, err, r.err)
			}
			continue
		}
		w, ok := want[k]
		if !ok {
			t.Errorf("bitpack has kind %d (%s), which the model has no step for", k, k)
			continue
		}
		got := steps[k]
		if len(got) == 0 {
			t.Errorf("no value of kind %s in World or Stamped: the test does not reach it", k)
		}
		for _, op := range got {
			if op != w && !(k == bitpack.KindStruct && op == OpFields) {
				t.Errorf("a %s value has step %s, want %s", k, op, w)
			}
		}
	}
}

// TestStepGoldens: the steps of a few types, in words (Model.Dump),
// against testdata/*.steps, which were read and checked by hand.
func TestStepGoldens(t *testing.T) {
	for _, tc := range []struct {
		name  string
		types []any
		enums []EnumSpec
	}{
		{"player", []any{Player{}}, nil},
		{"world", []any{World{}}, nil},
		{"squad", []any{Squad{}}, squadEnums},
		{"stamped", []any{Stamped{}}, nil},
	} {
		m, err := Build(tc.types, tc.enums...)
		if err != nil {
			t.Fatal(err)
		}
		got := m.Dump()
		file := filepath.Join("testdata", tc.name+".steps")
		if *update {
			if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: the steps are not %s (go test -run TestStepGoldens -update, then read the difference):\n%s", tc.name, file, got)
		}
	}
}

// Half keeps a field off the wire: a slice of it is charged twice.
type Half struct {
	A    uint8
	keep uint8
}

// Halves holds a slice of Half.
type Halves struct {
	H []Half `bits:"maxlen=9"`
}

var _ = Half{}.keep // kept off the wire on purpose

// TestChargesFromLayout: the steps carry bitpack's charges and count
// figures, as docs/wire.md words them for these types (worked out by
// hand from the Go types: a Chunk is 4096 values and bytes and takes no
// bits), and every value's count figure is its layout node's.
func TestChargesFromLayout(t *testing.T) {
	m, err := Build([]any{zerobit.ZeroSlice{}, zerobit.ZeroMap{}, zerobit.ZeroPair{}, zerobit.MixedStream{}, Halves{}, World{}})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]*Type{}
	for _, typ := range m.Types {
		types[typ.Name] = typ
	}
	field := func(typ, name string) *Value {
		for _, f := range types[typ].Fields {
			if f.Name == name {
				return f.Value
			}
		}
		t.Fatalf("%s has no field %s", typ, name)
		return nil
	}
	for _, c := range []struct {
		what string
		got  Charge
		each int64
		want Charge
		ways int64
	}{
		{"ZeroSlice.C, a slice of Chunks", field("ZeroSlice", "C").Charge, field("ZeroSlice", "C").Each, Charge{Work: 4096, Bytes: 4096}, 0},
		{"ZeroMap.M, uint8 keys to Chunks", field("ZeroMap", "M").Charge, field("ZeroMap", "M").Each, Charge{Work: 4097, Bytes: 4098}, 8},
		{"MixedStream.M, a slice of unions", field("MixedStream", "M").Charge, field("MixedStream", "M").Each, Charge{Work: 1, Bytes: 16}, 1},
		{"Halves.H, a slice of a struct with a field off the wire", field("Halves", "H").Charge, field("Halves", "H").Each, Charge{Work: 1, Bytes: 2, Twice: true}, 8},
		{"World.Scores, string keys to uint16", field("World", "Scores").Charge, field("World", "Scores").Each, Charge{Work: 2, Bytes: 19}, 15},
	} {
		if c.got != c.want || c.each != c.ways {
			t.Errorf("%s: charge %+v, count figure %d; want %+v, %d", c.what, c.got, c.each, c.want, c.ways)
		}
	}
	// ZeroPair: two Chunks of 4096 values, each 64 more as a struct of no
	// bits nested in a value, and its label's 1.
	for name, want := range map[string]Charge{
		"ZeroPair": {Work: 8321, Bytes: 8208}, "Chunk": {Work: 4096, Bytes: 4096}, "Tick": {Work: 1, Bytes: 1},
		"World": {Work: 60, Bytes: 232}, "Halves": {Work: 1, Bytes: 24},
	} {
		if got := types[name].Charge; got != want {
			t.Errorf("type %s: charge %+v, want %+v", name, got, want)
		}
	}
	// Every value's count figure, and every union member's charge, is
	// its layout node's.
	for _, typ := range m.Types {
		if typ.Kind != TypeStruct {
			continue
		}
		l, err := bitpack.Describe(reflect.New(typ.Go).Interface())
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range typ.Fields {
			sameFigures(t, f.Value, l.Root.Fields[i])
		}
	}
}

// sameFigures compares value v's count figures, and its unions' member
// charges, with layout node f's, through its parts.
func sameFigures(t *testing.T, v *Value, f *bitpack.Field) {
	t.Helper()
	if v.CountBits != f.CountBits {
		t.Errorf("%s: count figure %d, its layout's %d", v.Path, v.CountBits, f.CountBits)
	}
	if v.Op == OpUnion {
		for i, mt := range v.Type.Members {
			if c := f.Members[i].Charge; mt.Charge != (Charge{Work: c.Work, Bytes: c.Bytes, Twice: c.Partial}) {
				t.Errorf("%s: member %s charged %+v, its layout's %+v", v.Path, mt.Name, mt.Charge, c)
			}
		}
	}
	if v.Elem != nil {
		sameFigures(t, v.Elem, f.Elem)
	}
	if v.Key != nil {
		sameFigures(t, v.Key, f.Key)
	}
	for i, u := range v.Fields {
		sameFigures(t, u.Value, f.Fields[i])
	}
}

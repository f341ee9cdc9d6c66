package model

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

var update = flag.Bool("update", false, "rewrite the step goldens")

// The types of the step goldens and of TestEveryKindHasAStep.
type (
	Stamped struct {
		At time.Time `bits:"unit=1s,range=0..4102444800"`
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
	m, err := Build([]any{World{}})
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
		bitpack.KindCheck: OpCheck, bitpack.KindMap: OpMap,
	}
	// Kinds the generators refuse, each with a type holding one and the
	// exact refusal; a kind leaves this list when the model gives it its
	// step.
	refused := map[bitpack.Kind]struct {
		value any
		err   string
	}{
		bitpack.KindTime: {Stamped{}, "gen: field At of model.Stamped: time fields are not supported yet"},
	}
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
			t.Errorf("no value of kind %s in World: the test does not reach it", k)
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

package gen

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// Level is an unsigned enum of the enum tests whose largest value needs
// all 64 bits.
type Level uint64

// TestEnumOf: EnumOf names the type by its package and name and lists the
// constants by value (an unsigned one above the int64 range too), names
// breaking ties.
func TestEnumOf(t *testing.T) {
	got := EnumOf(map[string]Level{"Top": 1<<64 - 1, "Low": 1, "Zero": 0, "None": 0})
	want := Enum{PkgPath: "github.com/bitpack-go/bitpack/gen", Name: "Level", Constants: []EnumConstant{
		{"None", 0}, {"Zero", 0}, {"Low", 1}, {"Top", -1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("EnumOf = %+v, want %+v", got, want)
	}
}

// leveled holds a Level.
type leveled struct {
	L Level `bits:"range=0..3"`
}

// TestEnumErrors: constants that cannot name the type's values are
// refused by every generator, and nothing is written.
func TestEnumErrors(t *testing.T) {
	bad := Options{Enums: []Enum{{PkgPath: "github.com/bitpack-go/bitpack/gen", Name: "Level"}}}
	for name, g := range map[string]func(*bytes.Buffer) error{
		"CPP":        func(w *bytes.Buffer) error { return CPP(w, bad, &leveled{}) },
		"CSharp":     func(w *bytes.Buffer) error { return CSharp(w, bad, &leveled{}) },
		"TypeScript": func(w *bytes.Buffer) error { return TypeScript(w, bad, &leveled{}) },
		"Go":         func(w *bytes.Buffer) error { return Go(w, bad, &leveled{}) },
	} {
		var out bytes.Buffer
		err := g(&out)
		if err == nil || !strings.Contains(err.Error(), "the constants of github.com/bitpack-go/bitpack/gen.Level: none given") || out.Len() != 0 {
			t.Errorf("%s: %v, %d bytes written", name, err, out.Len())
		}
	}
}

package model

import (
	"strings"
	"testing"
	"time"
)

// The types of the enum tests: a named integer type of each signedness,
// one whose constants are not given, and a struct holding them.
type (
	Team   uint8
	Offset int16
	Plain  uint8

	Squad struct {
		Side    Team          `bits:"range=0..3"`
		Shift   Offset        ``
		Roster  [2]Offset     ``
		Bytes   [2]Team       `` // a byte array: bytes in every language
		ByTeam  map[Team]bool `bits:"maxlen=3"`
		Other   Plain         ``
		Respawn time.Duration `bits:"unit=100ms,range=-50..50"`
	}
)

var squadEnums = []EnumSpec{
	{PkgPath: "github.com/bitpack-go/bitpack/gen/internal/model", Name: "Team", Constants: []SpecConstant{{"Red", 0}, {"Blue", 1}, {"Spectator", 2}}},
	{PkgPath: "github.com/bitpack-go/bitpack/gen/internal/model", Name: "Offset", Constants: []SpecConstant{{"Left", -1}, {"Centre", 0}, {"Right", 1}}},
	{PkgPath: "github.com/bitpack-go/bitpack/gen/internal/model", Name: "Unused", Constants: []SpecConstant{{"A", 1}}},
}

// TestEnums: the values of a type whose constants are given name it,
// each use of it the same enum, in the order found; a type whose constants
// are not given, and a given type no value holds, make none.
func TestEnums(t *testing.T) {
	m, err := Build([]any{Squad{}}, squadEnums...)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Enums) != 2 || m.Enums[0].Name != "Team" || m.Enums[1].Name != "Offset" {
		t.Fatalf("enums %v, want Team and Offset", m.Enums)
	}
	team, offset := m.Enums[0], m.Enums[1]
	if team.Kind != TypeEnum || team.Signed || team.GoBits != 8 || !offset.Signed || offset.GoBits != 16 {
		t.Errorf("Team: signed %t, %d bits; Offset: signed %t, %d bits", team.Signed, team.GoBits, offset.Signed, offset.GoBits)
	}
	if got := offset.Constants[0]; got.Name != "Left" || got.Int != -1 || got.Value(true) != "-1" {
		t.Errorf("Offset's first constant is %+v, want Left -1", got)
	}
	f := m.Roots[0].Fields
	for i, want := range []*Type{team, offset, nil, nil, nil, nil, nil} {
		if f[i].Value.Enum != want {
			t.Errorf("field %s: enum %v, want %v", f[i].Name, f[i].Value.Enum, want)
		}
	}
	if f[2].Value.Elem.Enum != offset || f[4].Value.Key.Enum != team {
		t.Error("Roster's elements and ByTeam's keys do not name Team")
	}
	if !f[6].Value.Counted || f[1].Value.Counted {
		t.Error("only the duration with unit= is counted in its units")
	}
}

// TestEnumRefusals: constants that cannot name a type's values are
// refused, naming the type.
func TestEnumRefusals(t *testing.T) {
	path := "github.com/bitpack-go/bitpack/gen/internal/model"
	for _, tc := range []struct {
		spec EnumSpec
		want string
	}{
		{EnumSpec{PkgPath: path, Name: "Team"}, "the constants of " + path + ".Team: none given"},
		{EnumSpec{PkgPath: path, Name: "Team", Constants: []SpecConstant{{"Red", 256}}}, "Red = 256 does not fit uint8"},
		{EnumSpec{PkgPath: path, Name: "Team", Constants: []SpecConstant{{"Red", -1}}}, "Red = 18446744073709551615 does not fit uint8"},
		{EnumSpec{PkgPath: path, Name: "Offset", Constants: []SpecConstant{{"Far", -32769}}}, "Far = -32769 does not fit int16"},
		{EnumSpec{PkgPath: path, Name: "Team", Constants: []SpecConstant{{"Red", 0}, {"Red", 1}}}, `"Red" is not a Go identifier, or is given twice`},
		{EnumSpec{PkgPath: path, Name: "Team", Constants: []SpecConstant{{"1st", 0}}}, `"1st" is not a Go identifier`},
		{EnumSpec{PkgPath: "time", Name: "Duration", Constants: []SpecConstant{{"Second", 1e9}}}, "time.Duration's constants cannot name its values"},
	} {
		_, err := Build([]any{Squad{}}, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
	_, err := Build([]any{Squad{}}, squadEnums[0], squadEnums[0])
	if err == nil || !strings.Contains(err.Error(), "the constants of "+path+".Team are given twice") {
		t.Errorf("a type given twice: %v", err)
	}
}

package main

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack/cmd/bitpack/testdata/teams"
	"github.com/bitpack-go/bitpack/gen"
)

const teamsPath = "github.com/bitpack-go/bitpack/cmd/bitpack/testdata/teams"

// teamsEnums are testdata/teams' enums, read off its source by eye.
var teamsEnums = []enum{
	{teamsPath + "/ranks", "Rank", []enumConstant{{"Bottom", -1 << 40}, {"Top", 1 << 40}}},
	{teamsPath, "Team", []enumConstant{{"Red", 1}, {"Blue", 2}, {"Spectator", 0}}},
	{teamsPath, "offset", []enumConstant{{"back", -1}, {"forward", 1}}},
}

// TestModuleEnums: the named integer types of the package and of the
// module's packages it imports, each with the constants its package
// declares of it, in declaration order; untyped constants, constants of
// the underlying type, types without constants and the standard
// library's (time.Duration's) are not taken.
func TestModuleEnums(t *testing.T) {
	got, err := moduleEnums(teamsPath)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, teamsEnums) {
		t.Errorf("enums\n%+v\nwant\n%+v", got, teamsEnums)
	}
}

// TestGenEnums: the command passes the enums it reads to gen, in every
// language but Go's (all three with BITPACK_FULL=1; C++ alone without:
// the options reach every language through the same program).
func TestGenEnums(t *testing.T) {
	var opts gen.Options
	for _, e := range teamsEnums {
		ge := gen.Enum{PkgPath: e.pkgPath, Name: e.name}
		for _, c := range e.constants {
			ge.Constants = append(ge.Constants, gen.EnumConstant{Name: c.name, Value: c.value})
		}
		opts.Enums = append(opts.Enums, ge)
	}
	for _, tc := range []struct {
		lang string
		gen  func(w io.Writer, opts gen.Options, values ...any) error
	}{{"cpp", gen.CPP}, {"cs", gen.CSharp}, {"ts", gen.TypeScript}} {
		if tc.lang != "cpp" && !fullSweeps() {
			continue
		}
		var stdout, stderr bytes.Buffer
		if err := run([]string{"gen", "-lang", tc.lang, "./testdata/teams", "Match"}, &stdout, &stderr); err != nil {
			t.Fatalf("-lang %s: %v\n%s", tc.lang, err, stderr.String())
		}
		var direct bytes.Buffer
		if err := tc.gen(&direct, opts, &teams.Match{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(stdout.Bytes(), direct.Bytes()) {
			t.Errorf("-lang %s: the command's output differs from gen's given the enums", tc.lang)
		}
		if !strings.Contains(stdout.String(), "Spectator") {
			t.Errorf("-lang %s: the output does not name Team's values", tc.lang)
		}
	}
}

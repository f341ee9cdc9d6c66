package gen

import (
	"math/rand"
	"reflect"

	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// For the external tests of gen.Go's code for the hostile types
// (golang_hostile_test.go, golang_hostile_values_test.go and
// golang_edges_test.go, package gen_test).

// Update is the -update flag: rewrite the golden generated files.
var Update = update

// DiffBits is diffBits.
var DiffBits = diffBits

// Damaged calls add with the damaged copies of p the corpus tests try
// (see corpus.damaged).
func Damaged(p []byte, rng *rand.Rand, add func(q []byte, how string)) {
	(&corpus{}).damaged(p, rng, add)
}

// Spoiled calls fn with each spoiled copy of the value packet p decodes
// to (a value of proto's type, fresh for each call: spoiling changes
// slices in place) and what was spoiled (see spoiler).
func Spoiled(proto any, p []byte, fn func(v reflect.Value, what string)) error {
	m, err := model.Build([]any{proto})
	if err != nil {
		return err
	}
	typ := reflect.TypeOf(proto)
	for target := 0; ; target++ {
		rv := decodeFresh(typ, p)
		s := &spoiler{target: target}
		s.structFields(m.Roots[0], nil, rv.Elem())
		if !s.done {
			return nil
		}
		fn(rv, s.what)
	}
}

// TimeIn draws a time of lo to hi units of unit since 1970 (see timeIn).
var TimeIn = timeIn

package gen_test

import (
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack/gen/testdata/gohostile"
	"github.com/bitpack-go/bitpack/internal/sweeps"
)

// Targets whose pointers point into the target itself: at a field, an
// array's or a slice's element (spare capacity included), another
// pointee. The plan's commit writes each part of the target in its own
// order (commit.go: the copies, strings, pointers' pointees, slices, then
// the other kinds in field order), so where two parts are one place the
// one committed last wins; gen.Go's commit must leave the same value.

// aliasable reports whether a pointer to t may be aimed into the target:
// a value that holds no pointer of its own but strings, slices and times,
// so that no aim makes a cycle.
func aliasable(t reflect.Type) bool {
	if t == reflect.TypeFor[time.Time]() {
		return true
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	case reflect.Array, reflect.Slice:
		return aliasable(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !aliasable(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// aim points some of the pointers in the value rv (a pointer) at places
// of their type inside it, drawn from rng: the same rng state, the same
// aims in a deep copy.
func aim(rv reflect.Value, rng *rand.Rand) {
	places := map[reflect.Type][]reflect.Value{}
	var ptrs []reflect.Value
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if v.CanAddr() && aliasable(v.Type()) {
			places[v.Type()] = append(places[v.Type()], v)
		}
		if v.Type() == reflect.TypeFor[time.Time]() {
			return // its location is no place of the target's
		}
		switch v.Kind() {
		case reflect.Pointer:
			if aliasable(v.Type().Elem()) && v.CanSet() {
				ptrs = append(ptrs, v)
			}
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(settable(v.Field(i)))
			}
		case reflect.Array:
			for k := 0; k < v.Len(); k++ {
				walk(v.Index(k))
			}
		case reflect.Slice:
			full := v.Slice(0, v.Cap())
			for k := 0; k < full.Len(); k++ {
				walk(full.Index(k))
			}
		}
	}
	walk(rv.Elem())
	for _, p := range ptrs {
		if to := places[p.Type().Elem()]; len(to) > 0 && rng.Intn(3) > 0 {
			p.Set(to[rng.Intn(len(to))].Addr())
		}
	}
}

// aimedPrior is a target made from the value packet other decodes to,
// dirtied from seed, its pointers aimed from seed.
func aimedPrior(typ reflect.Type, other []byte, seed int64) reflect.Value {
	v := atkPrior(typ, other, seed)
	aim(v, rand.New(rand.NewSource(seed)))
	return v
}

// TestGoCommitAliases decodes samples of the hostile types into targets
// whose pointers point into themselves (aimedPrior), by the generated
// code and the plan: the same verdicts, the same values.
func TestGoCommitAliases(t *testing.T) {
	samples := sweeps.FullOrQuick(24, 8)
	for k, proto := range gohostile.Protos() {
		typ := reflect.TypeOf(proto)
		fn := gohostile.Generated[typ]
		packets := atkSamples(typ, int64(k)+300, samples)
		for i, p := range packets {
			other := packets[(i+1)%len(packets)]
			for seed := int64(1); seed <= 4; seed++ {
				seed := seed + 4*int64(i)
				if msg := atkDecodeAgrees(fn, p, func() reflect.Value { return aimedPrior(typ, other, seed) }); msg != "" {
					t.Fatalf("%v packet %d (% x) into the value of % x aimed from seed %d: %s", typ, i, p, other, seed, msg)
				}
			}
		}
	}
}

package gen_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"os"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitpacktest"
	"github.com/bitpack-go/bitpack/gen"
	"github.com/bitpack-go/bitpack/gen/testdata/gohostile"
	"github.com/bitpack-go/bitpack/internal/sweeps"
	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
)

// The hostile types (package gohostile, under testdata) carry their
// generated code (gohostile/bitpack_gen.go: TestGoHostileGolden keeps it
// current; go test ./gen -run TestGoHostileGolden -update rewrites it).
// These tests hold it to the plan as TestGoAgrees does the table's, and
// decode into values whose fields off the wire hold values and whose
// slices have spare capacity holding stale elements: what the plan's
// commit keeps, the generated commit must keep.

const hostileFile = "testdata/gohostile/bitpack_gen.go"

// TestGoHostileGolden regenerates gohostile/bitpack_gen.go and compares.
func TestGoHostileGolden(t *testing.T) {
	var out bytes.Buffer
	if err := gen.Go(&out, gen.Options{Package: "gohostile"}, gohostile.Protos()...); err != nil {
		t.Fatal(err)
	}
	if *gen.Update {
		if err := os.WriteFile(hostileFile, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(hostileFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, out.Bytes()) {
		t.Errorf("%s is not what gen.Go writes now: go test ./gen -run TestGoHostileGolden -update", hostileFile)
	}
}

// atkCmp compares floats bit for bit (NaN payloads, -0), named ones too.
var atkCmp = []cmp.Option{
	cmp.Exporter(func(reflect.Type) bool { return true }),
	cmp.Comparer(func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }),
	cmp.Comparer(func(a, b gohostile.NF32) bool { return math.Float32bits(float32(a)) == math.Float32bits(float32(b)) }),
	cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }),
	cmp.Comparer(func(a, b gohostile.NF64) bool { return math.Float64bits(float64(a)) == math.Float64bits(float64(b)) }),
}

// atkPrior makes a target to decode into, the same each call for the same
// arguments: the zero value (p nil), the value p decodes to, or that value
// dirtied from seed (seed not 0; see dirty). The value is made once and
// deep-copied (dirty draws from its own seeded source, but the copy is
// cheaper than a decode).
func atkPrior(typ reflect.Type, p []byte, seed int64) reflect.Value {
	v := reflect.New(typ)
	if p == nil {
		return v
	}
	key := atkPriorKey{typ, string(p), seed}
	if m, ok := atkPriors.Load(key); ok {
		return deepCopy(m.(reflect.Value))
	}
	if err := bitpack.Unmarshal(p, v.Interface()); err != nil {
		panic(fmt.Sprintf("%v: a packet the plan wrote does not decode: %v", typ, err))
	}
	if seed != 0 {
		dirty(v.Elem(), rand.New(rand.NewSource(seed)), 0)
	}
	atkPriors.Store(key, v)
	return deepCopy(v)
}

type atkPriorKey struct {
	typ  reflect.Type
	p    string
	seed int64
}

var atkPriors sync.Map

// deepCopy copies v (a pointer) and all it reaches, keeping nil apart
// from empty and slices' capacity and what lies in it.
func deepCopy(v reflect.Value) reflect.Value {
	c := reflect.New(v.Type()).Elem()
	copyInto(c, v)
	return c
}

func copyInto(d, s reflect.Value) {
	switch s.Kind() {
	case reflect.Pointer:
		if !s.IsNil() {
			p := reflect.New(s.Type().Elem())
			copyInto(p.Elem(), s.Elem())
			d.Set(p)
		}
	case reflect.Slice:
		if !s.IsNil() {
			n := reflect.MakeSlice(s.Type(), s.Len(), s.Cap())
			full, sfull := n.Slice(0, s.Cap()), s.Slice(0, s.Cap())
			for k := 0; k < s.Cap(); k++ {
				copyInto(full.Index(k), sfull.Index(k))
			}
			d.Set(n)
		}
	case reflect.Array:
		for k := 0; k < s.Len(); k++ {
			copyInto(d.Index(k), s.Index(k))
		}
	case reflect.Struct:
		for i := 0; i < s.NumField(); i++ {
			copyInto(settable(d.Field(i)), settable(s.Field(i)))
		}
	default:
		d.Set(s)
	}
}

// settable makes a field reached through unexported ones settable.
func settable(rv reflect.Value) reflect.Value {
	if rv.CanSet() || !rv.CanAddr() {
		return rv
	}
	return reflect.NewAt(rv.Type(), unsafe.Pointer(rv.UnsafeAddr())).Elem()
}

// offWire reports whether bitpack leaves struct field f off the wire.
func offWire(f reflect.StructField) bool {
	return f.Tag.Get("bits") == "-" || !f.IsExported() && !f.Anonymous
}

// dirty fills the fields off the wire of the value rv with values of
// their own, and gives some of its slices spare capacity holding stale
// elements (random, pointers and all).
func dirty(rv reflect.Value, rng *rand.Rand, depth int) {
	switch rv.Kind() {
	case reflect.Struct:
		for i := 0; i < rv.NumField(); i++ {
			f := settable(rv.Field(i))
			if offWire(rv.Type().Field(i)) {
				fillRandom(f, rng, depth)
			} else {
				dirty(f, rng, depth)
			}
		}
	case reflect.Pointer:
		if !rv.IsNil() {
			dirty(rv.Elem(), rng, depth)
		}
	case reflect.Array:
		for k := 0; k < rv.Len(); k++ {
			dirty(rv.Index(k), rng, depth)
		}
	case reflect.Slice:
		for k := 0; k < rv.Len(); k++ {
			dirty(rv.Index(k), rng, depth)
		}
		if rng.Intn(2) == 0 {
			n := rv.Len()
			grown := reflect.MakeSlice(rv.Type(), n, n+1+rng.Intn(3))
			reflect.Copy(grown, rv)
			full := grown.Slice(0, grown.Cap())
			for k := n; k < full.Len(); k++ {
				fillRandom(full.Index(k), rng, depth+1)
			}
			rv.Set(grown)
		}
	}
}

// fillRandom sets rv, whatever it is, to a random value.
func fillRandom(rv reflect.Value, rng *rand.Rand, depth int) {
	switch rv.Kind() {
	case reflect.Bool:
		rv.SetBool(rng.Intn(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		rv.SetInt(int64(int8(rng.Int())))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		rv.SetUint(uint64(uint8(rng.Int())))
	case reflect.Float32, reflect.Float64:
		rv.SetFloat(rng.Float64())
	case reflect.String:
		rv.SetString("kept" + strconv.Itoa(rng.Intn(100)))
	case reflect.Slice:
		if depth < 3 {
			n := 1 + rng.Intn(2)
			s := reflect.MakeSlice(rv.Type(), n, n)
			for k := 0; k < n; k++ {
				fillRandom(s.Index(k), rng, depth+1)
			}
			rv.Set(s)
		}
	case reflect.Array:
		for k := 0; k < rv.Len(); k++ {
			fillRandom(rv.Index(k), rng, depth)
		}
	case reflect.Pointer:
		if depth < 3 {
			p := reflect.New(rv.Type().Elem())
			fillRandom(p.Elem(), rng, depth+1)
			rv.Set(p)
		}
	case reflect.Struct:
		for i := 0; i < rv.NumField(); i++ {
			fillRandom(settable(rv.Field(i)), rng, depth)
		}
	}
}

// atkDecodeAgrees decodes p with the generated function and the plan,
// each into its own target made by prior, and reports how they differ.
func atkDecodeAgrees(fn gohostile.Pair, p []byte, prior func() reflect.Value) string {
	g, b, before := prior(), prior(), prior()
	ok := fn.Unmarshal(p, g.Interface())
	err := bitpack.Unmarshal(p, b.Interface())
	switch {
	case ok != (err == nil):
		return fmt.Sprintf("generated accepts: %v, the plan: %v", ok, err)
	case !ok:
		if d := gen.DiffBits(before.Interface(), g.Interface(), atkCmp...); d != "" {
			return "a refused packet changed the target (-before +after):\n" + d
		}
	default:
		if d := gen.DiffBits(b.Interface(), g.Interface(), atkCmp...); d != "" {
			return "values differ (-plan +generated):\n" + d // nil and empty too (see TestPlanNilOrEmpty)
		}
	}
	return ""
}

// atkEncodeAgrees appends v with the generated function and the plan after
// the same prefix.
func atkEncodeAgrees(fn gohostile.Pair, v any) string {
	prefix := []byte{0xa5}
	g, ok := fn.Append(prefix, v)
	b, err := bitpack.Append(prefix, v)
	switch {
	case ok != (err == nil):
		return fmt.Sprintf("generated writes: %v, the plan: %v", ok, err)
	case ok && !bytes.Equal(g, b):
		return fmt.Sprintf("generated % x, the plan % x", g, b)
	case !ok && !bytes.Equal(g, prefix):
		return fmt.Sprintf("a refused value returned % x", g)
	}
	return ""
}

// hostileGens are generators of valid values of the hostile types.
func hostileGens() map[reflect.Type]gopter.Gen {
	m := bitpacktest.MaxElems(4)
	return map[reflect.Type]gopter.Gen{
		reflect.TypeFor[gohostile.AtkWide]():          bitpacktest.Gen[gohostile.AtkWide](m),
		reflect.TypeFor[gohostile.AtkZero]():          bitpacktest.Gen[gohostile.AtkZero](m),
		reflect.TypeFor[gohostile.AtkUnits]():         bitpacktest.Gen[gohostile.AtkUnits](m),
		reflect.TypeFor[gohostile.AtkNamed]():         bitpacktest.Gen[gohostile.AtkNamed](m),
		reflect.TypeFor[gohostile.AtkQuat]():          bitpacktest.Gen[gohostile.AtkQuat](m),
		reflect.TypeFor[gohostile.AtkBytes]():         bitpacktest.Gen[gohostile.AtkBytes](m),
		reflect.TypeFor[gohostile.AtkOff]():           bitpacktest.Gen[gohostile.AtkOff](m),
		reflect.TypeFor[gohostile.AtkNest]():          bitpacktest.Gen[gohostile.AtkNest](m),
		reflect.TypeFor[gohostile.AtkFloat]():         bitpacktest.Gen[gohostile.AtkFloat](m),
		reflect.TypeFor[gohostile.AtkOther]():         bitpacktest.Gen[gohostile.AtkOther](m),
		reflect.TypeFor[gohostile.AtkOtherPrivate]():  bitpacktest.Gen[gohostile.AtkOtherPrivate](m),
		reflect.TypeFor[gohostile.AtkIntRange32]():    bitpacktest.Gen[gohostile.AtkIntRange32](m),
		reflect.TypeFor[gohostile.AtkIntRange]():      bitpacktest.Gen[gohostile.AtkIntRange](m),
		reflect.TypeFor[gohostile.AtkUintRange]():     bitpacktest.Gen[gohostile.AtkUintRange](m),
		reflect.TypeFor[gohostile.AtkGrow]():          bitpacktest.Gen[gohostile.AtkGrow](m),
		reflect.TypeFor[gohostile.AtkInt]():           bitpacktest.Gen[gohostile.AtkInt](m),
		reflect.TypeFor[gohostile.AtkAlias]():         bitpacktest.Gen[gohostile.AtkAlias](m),
		reflect.TypeFor[gohostile.AtkStr]():           bitpacktest.Gen[gohostile.AtkStr](m),
		reflect.TypeFor[gohostile.AtkCF1]():           bitpacktest.Gen[gohostile.AtkCF1](m),
		reflect.TypeFor[gohostile.AtkCF2]():           bitpacktest.Gen[gohostile.AtkCF2](m),
		reflect.TypeFor[gohostile.AtkCF3]():           bitpacktest.Gen[gohostile.AtkCF3](m),
		reflect.TypeFor[gohostile.AtkCF4]():           bitpacktest.Gen[gohostile.AtkCF4](m),
		reflect.TypeFor[gohostile.AtkGenericFields](): bitpacktest.Gen[gohostile.AtkGenericFields](m),
		reflect.TypeFor[gohostile.AtkLocals]():        bitpacktest.Gen[gohostile.AtkLocals](m),
		reflect.TypeFor[gohostile.AtkBB]():            bitpacktest.Gen[gohostile.AtkBB](m),
		reflect.TypeFor[gohostile.AtkTime]():          atkTimeGen(),
		reflect.TypeFor[gohostile.AtkOrder]():         atkOrderGen(),
	}
}

// atkOrderGen draws valid AtkOrders: times within their range, each
// pointer nil or not, slices of every length.
func atkOrderGen() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		r := p.Rng
		ms := func() time.Time { return gen.TimeIn(r, 0, 1000, time.Millisecond) }
		i16 := func() *int16 {
			if r.Intn(2) == 0 {
				return nil
			}
			x := int16(r.Uint32())
			return &x
		}
		v := gohostile.AtkOrder{Str: "ab"[:r.Intn(3)], T: ms()}
		for n := r.Intn(3); n > 0; n-- {
			v.L = append(v.L, ms())
			v.B = append(v.B, byte(r.Uint32()))
		}
		if r.Intn(2) == 0 {
			t := ms()
			v.PL = &t
		}
		if r.Intn(2) == 0 {
			s := "xyz"[:r.Intn(4)]
			v.PS = &s
		}
		if r.Intn(2) == 0 {
			b := uint8(r.Uint32())
			v.PB = &b
		}
		v.PF = i16()
		for k := range v.F {
			v.F[k] = gohostile.AtkOrderF{T: ms(), X: int16(r.Uint32())}
			v.E[k].P = i16()
			if r.Intn(2) == 0 {
				v.E[k].S = []int16{int16(r.Uint32())}
			}
		}
		for k := range v.A {
			if r.Intn(4) == 0 {
				t := ms()
				v.A[k] = &t
			}
		}
		return gopter.NewGenResult(v, gopter.NoShrinker)
	}
}

// atkTimeGen draws valid AtkTimes: each time within its field's range,
// P nil or not (never pointing at T: TestGoTimeCommitOrder does that).
func atkTimeGen() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		r := p.Rng
		v := gohostile.AtkTime{
			Ns:   gen.TimeIn(r, math.MinInt64, math.MaxInt64, time.Nanosecond),
			Edge: gen.TimeIn(r, math.MinInt64, math.MaxInt64+time.Time{}.Unix(), time.Second),
			Big:  gen.TimeIn(r, -4, 3, math.MaxInt64),
			One:  gen.TimeIn(r, 5, 5, time.Hour),
			T:    gen.TimeIn(r, 0, 1000, time.Millisecond),
		}
		if r.Intn(2) == 0 {
			t := gen.TimeIn(r, 0, 1000, time.Millisecond)
			v.P = &t
		}
		return gopter.NewGenResult(v, gopter.NoShrinker)
	}
}

// atkSamples are n packets of valid values of typ drawn from seed.
func atkSamples(typ reflect.Type, seed int64, n int) [][]byte {
	g := hostileGens()[typ]
	params := gopter.DefaultGenParameters()
	params.Rng = rand.New(rand.NewSource(seed))
	var out [][]byte
	for len(out) < n {
		v, ok := g(params).Retrieve()
		if !ok {
			continue
		}
		rv := reflect.New(typ)
		rv.Elem().Set(reflect.ValueOf(v))
		p, err := bitpack.Marshal(rv.Interface())
		if err != nil {
			panic(fmt.Sprintf("%v: a generated value does not encode: %v", typ, err))
		}
		out = append(out, p)
	}
	return out
}

// TestGoHostileAgrees runs the generated code and the plan on samples of
// the hostile types: encodes of the samples and of their spoiled copies;
// decodes of their packets, damaged and random ones into the zero value,
// into another sample and into that sample dirtied: 24 samples of each
// type with BITPACK_FULL=1, 8 without.
func TestGoHostileAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(61))
	for k, proto := range gohostile.Protos() {
		typ := reflect.TypeOf(proto)
		fn := gohostile.Generated[typ]
		packets := atkSamples(typ, int64(k)+100, sweeps.FullOrQuick(24, 8))
		checks, spoiled := 0, 0
		for i, p := range packets {
			if msg := atkEncodeAgrees(fn, atkPrior(typ, p, 0).Interface()); msg != "" {
				t.Fatalf("%v encoding the value of % x: %s", typ, p, msg)
			}
			other := packets[(i+1)%len(packets)]
			try := func(q []byte, how string) {
				checks++
				for _, prior := range []func() reflect.Value{
					func() reflect.Value { return atkPrior(typ, nil, 0) },
					func() reflect.Value { return atkPrior(typ, other, 0) },
					func() reflect.Value { return atkPrior(typ, other, int64(i)+1) },
				} {
					if msg := atkDecodeAgrees(fn, q, prior); msg != "" {
						t.Fatalf("%v packet %d %s (% x), prior % x: %s", typ, i, how, q, other, msg)
					}
				}
			}
			try(p, "as written")
			if i < sweeps.FullOrQuick(6, 2) {
				gen.Damaged(p, rng, try)
			}
			for j := 0; j < sweeps.FullOrQuick(40, 10); j++ {
				q := make([]byte, rng.Intn(len(p)+2))
				rng.Read(q)
				try(q, "random")
			}
			if i < sweeps.FullOrQuick(4, 2) {
				err := gen.Spoiled(proto, p, func(v reflect.Value, what string) {
					spoiled++
					if msg := atkEncodeAgrees(fn, v.Interface()); msg != "" {
						t.Fatalf("%v sample %d with %s: %s", typ, i, what, msg)
					}
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Logf("%v: %d samples, %d packets decoded (3 targets each), %d spoiled values", typ, len(packets), checks, spoiled)
	}
}

// FuzzGoHostile holds the hostile types' generated decoders to the plan on
// any packet: the first byte picks the type, the second the target (0 the
// zero value, else a sample dirtied from it, and for an odd byte with its
// pointers aimed into itself: aimedPrior), the rest is the packet; an
// accepted packet is re-encoded by both.
func FuzzGoHostile(f *testing.F) {
	protos := gohostile.Protos()
	samples := make([][]byte, len(protos))
	for k, proto := range protos {
		ps := atkSamples(reflect.TypeOf(proto), int64(k)+7, 3)
		samples[k] = ps[0]
		for j, p := range ps {
			f.Add(append([]byte{byte(k), byte(j)}, p...))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		k := int(in[0]) % len(protos)
		typ, seed, p := reflect.TypeOf(protos[k]), int64(in[1]), in[2:]
		fn := gohostile.Generated[typ]
		prior := func() reflect.Value {
			switch {
			case seed == 0:
				return atkPrior(typ, nil, 0)
			case seed%2 == 1:
				return aimedPrior(typ, samples[k], seed)
			}
			return atkPrior(typ, samples[k], seed)
		}
		if msg := atkDecodeAgrees(fn, p, prior); msg != "" {
			t.Fatalf("%v packet % x, target seed %d: %s", typ, p, seed, msg)
		}
		v := reflect.New(typ)
		if bitpack.Unmarshal(p, v.Interface()) == nil {
			if msg := atkEncodeAgrees(fn, v.Interface()); msg != "" {
				t.Fatalf("%v re-encoding % x: %s", typ, p, msg)
			}
		}
	})
}

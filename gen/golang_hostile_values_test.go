package gen_test

import (
	"encoding/binary"
	"math"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack/gen/testdata/gohostile"
)

// Encodes of arbitrary values, valid or not: every leaf drawn from bytes
// (a fuzzer's or a seeded random source's), mixing raw bit patterns, small
// numbers, values at and a few ulps around the bounds a float tag names,
// unit quaternions nudged across the 0.01 norm tolerance, strings of any
// bytes, slices past their maxlen.

// atkSource hands out the bytes of a packet of choices, then zeros.
type atkSource struct{ b []byte }

func (s *atkSource) byte() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

func (s *atkSource) u64() uint64 {
	var w [8]byte
	for i := range w {
		w[i] = s.byte()
	}
	return binary.LittleEndian.Uint64(w[:])
}

// tagFloat is the number a float tag gives option name ("min", "max"),
// or false.
func tagFloat(tag reflect.StructTag, name string) (float64, bool) {
	for _, opt := range strings.Split(tag.Get("bits"), ",") {
		if v, ok := strings.CutPrefix(opt, name+"="); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// tagRange is the bounds of a range= tag, as written.
func tagRange(tag reflect.StructTag) (lo, hi string, ok bool) {
	for _, opt := range strings.Split(tag.Get("bits"), ",") {
		if r, found := strings.CutPrefix(opt, "range="); found {
			lo, hi, ok = strings.Cut(r, "..")
			return lo, hi, ok
		}
	}
	return "", "", false
}

// mutate replaces some parts of the valid value rv (one in 24 of the
// values it reaches, as s says) with values fillFrom draws.
func mutate(rv reflect.Value, tag reflect.StructTag, s *atkSource, depth int) {
	if s.byte()%24 == 0 {
		fillFrom(rv, tag, s, depth)
		return
	}
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		for k := 0; k < rv.Len(); k++ {
			mutate(rv.Index(k), tag, s, depth+1)
		}
	case reflect.Pointer:
		if !rv.IsNil() {
			mutate(rv.Elem(), tag, s, depth+1)
		}
	case reflect.Struct:
		for i := 0; i < rv.NumField(); i++ {
			mutate(settable(rv.Field(i)), fieldTag(rv.Type().Field(i), tag), s, depth)
		}
	}
}

// fieldTag is the tag that applies to struct field f of a struct under
// tag.
func fieldTag(f reflect.StructField, tag reflect.StructTag) reflect.StructTag {
	if f.Tag == "" || tag.Get("bits") != "" && !strings.Contains(string(f.Tag), "bits:") {
		return tag // a struct under a tag: its fields take it
	}
	return f.Tag
}

// fillFrom sets rv from s; tag is the struct tag that applies to it.
func fillFrom(rv reflect.Value, tag reflect.StructTag, s *atkSource, depth int) {
	if fillQuat(rv, s) {
		return
	}
	switch rv.Kind() {
	case reflect.Bool:
		rv.SetBool(s.byte()&1 != 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var v int64
		switch s.byte() % 5 {
		case 0:
			v = int64(s.u64())
		case 1:
			v = int64(int8(s.byte()))
		case 2:
			v = int64(int16(s.byte()) | int16(s.byte())<<8)
		default: // a bound of range= and one past it
			lo, hi, ok := tagRange(tag)
			b, _ := strconv.ParseInt(lo, 10, 64)
			if s.byte()&1 != 0 {
				b, _ = strconv.ParseInt(hi, 10, 64)
			}
			v = b + int64(int8(s.byte())%2)
			if !ok {
				v = int64(int8(s.byte()))
			}
		}
		rv.SetInt(v)
		if rv.Int() != v { // what the Go type keeps of it
			rv.SetInt(int64(int8(v)))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var v uint64
		switch s.byte() % 5 {
		case 0:
			v = s.u64()
		case 1:
			v = uint64(s.byte())
		case 2:
			v = uint64(s.byte()) | uint64(s.byte())<<8
		default:
			lo, hi, ok := tagRange(tag)
			b, _ := strconv.ParseUint(lo, 10, 64)
			if s.byte()&1 != 0 {
				b, _ = strconv.ParseUint(hi, 10, 64)
			}
			v = b + uint64(int64(int8(s.byte())%2))
			if !ok {
				v = uint64(s.byte())
			}
		}
		rv.SetUint(v)
		if rv.Uint() != v {
			rv.SetUint(uint64(uint8(v)))
		}
	case reflect.Float32, reflect.Float64:
		rv.SetFloat(atkFloat(rv.Kind() == reflect.Float32, tag, s))
	case reflect.String:
		const pieces = "a\x00\xff\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z" // bytes of UTF-8 and not
		b := make([]byte, s.byte()%24)
		for i := range b {
			b[i] = pieces[int(s.byte())%len(pieces)]
		}
		rv.SetString(string(b))
	case reflect.Slice:
		n := int(s.byte() % 6)
		if n == 5 {
			rv.Set(reflect.Zero(rv.Type()))
			return
		}
		sl := reflect.MakeSlice(rv.Type(), n, n)
		for k := 0; k < n; k++ {
			fillFrom(sl.Index(k), tag, s, depth+1)
		}
		rv.Set(sl)
	case reflect.Array:
		for k := 0; k < rv.Len(); k++ {
			fillFrom(rv.Index(k), tag, s, depth)
		}
	case reflect.Pointer:
		if s.byte()%3 == 0 || depth > 4 {
			rv.Set(reflect.Zero(rv.Type()))
			return
		}
		p := reflect.New(rv.Type().Elem())
		fillFrom(p.Elem(), tag, s, depth+1)
		rv.Set(p)
	case reflect.Struct:
		for i := 0; i < rv.NumField(); i++ {
			fillFrom(settable(rv.Field(i)), fieldTag(rv.Type().Field(i), tag), s, depth)
		}
	}
}

// atkFloat is a float for a field of tag: raw bits, a small number, or
// near one of the tag's bounds.
func atkFloat(f32 bool, tag reflect.StructTag, s *atkSource) float64 {
	lo, okLo := tagFloat(tag, "min")
	hi, okHi := tagFloat(tag, "max")
	mode := s.byte() % 6
	if !okLo || !okHi {
		mode %= 2
	}
	var x float64
	switch mode {
	case 0:
		if f32 {
			return float64(math.Float32frombits(uint32(s.u64())))
		}
		return math.Float64frombits(s.u64())
	case 1:
		return float64(int8(s.byte())) / 4
	case 2:
		x = lo
	case 3:
		x = hi
	default:
		x = lo + (hi-lo)*float64(s.byte())/255
	}
	ulps := int(int8(s.byte())) % 4
	if f32 {
		f := float32(x)
		for ; ulps > 0; ulps-- {
			f = math.Nextafter32(f, float32(math.Inf(1)))
		}
		for ; ulps < 0; ulps++ {
			f = math.Nextafter32(f, float32(math.Inf(-1)))
		}
		return float64(f)
	}
	for ; ulps > 0; ulps-- {
		x = math.Nextafter(x, math.Inf(1))
	}
	for ; ulps < 0; ulps++ {
		x = math.Nextafter(x, math.Inf(-1))
	}
	return x
}

// fillQuat sets a value made of exactly four floats (a quaternion's
// holder) to a unit quaternion, often nudged, and reports whether it did.
func fillQuat(rv reflect.Value, s *atkSource) bool {
	var leaves []reflect.Value
	if !floatLeaves(rv, &leaves) || len(leaves) != 4 || s.byte()%4 == 0 {
		return false
	}
	var q [4]float64
	var n float64
	for k := range q {
		q[k] = float64(int8(s.byte())) + 0.5
		n += q[k] * q[k]
	}
	scale := 1 / math.Sqrt(n)
	switch s.byte() % 4 {
	case 1:
		scale *= 1.004 // a squared norm near 1.008: inside 0.01
	case 2:
		scale *= 1.006 // near 1.012: outside
	case 3:
		scale = 0 // all zero, some -0
	}
	for k, l := range leaves {
		x := q[k] * scale
		if scale == 0 && s.byte()&1 != 0 {
			x = math.Copysign(0, -1)
		}
		l.SetFloat(x)
	}
	return true
}

func floatLeaves(rv reflect.Value, out *[]reflect.Value) bool {
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		*out = append(*out, rv)
		return true
	case reflect.Array:
		for k := 0; k < rv.Len(); k++ {
			if !floatLeaves(rv.Index(k), out) {
				return false
			}
		}
		return rv.Len() > 0
	case reflect.Struct:
		for i := 0; i < rv.NumField(); i++ {
			if !floatLeaves(settable(rv.Field(i)), out) {
				return false
			}
		}
		return rv.NumField() > 0
	}
	return false
}

// TestGoHostileEncodes encodes values of every hostile type drawn from
// seeded random bytes, whole or as a valid sample with some parts
// replaced, with the generated code and the plan.
func TestGoHostileEncodes(t *testing.T) {
	rng := rand.New(rand.NewSource(67))
	for _, proto := range gohostile.Protos() {
		typ := reflect.TypeOf(proto)
		fn := gohostile.Generated[typ]
		samples := atkSamples(typ, 71, 20)
		accepted := 0
		const n = 4000
		for i := 0; i < n; i++ {
			b := make([]byte, 512)
			rng.Read(b)
			v := reflect.New(typ)
			if i%2 == 0 {
				fillFrom(v.Elem(), "", &atkSource{b}, 0)
			} else {
				v = atkPrior(typ, samples[i%len(samples)], 0)
				mutate(v.Elem(), "", &atkSource{b}, 0)
			}
			if msg := atkEncodeAgrees(fn, v.Interface()); msg != "" {
				t.Fatalf("%v value from % x: %s", typ, b, msg)
			}
			if _, ok := fn.Append(nil, v.Interface()); ok {
				accepted++
			}
		}
		t.Logf("%v: %d values, %d accepted", typ, n, accepted)
	}
}

// FuzzGoHostileEncode is TestGoHostileEncodes on a fuzzer's bytes: the
// first picks the type and whether to draw the value whole or mutate a
// sample.
func FuzzGoHostileEncode(f *testing.F) {
	protos := gohostile.Protos()
	samples := make([][]byte, len(protos))
	for k, proto := range protos {
		samples[k] = atkSamples(reflect.TypeOf(proto), int64(k)+3, 1)[0]
		f.Add([]byte{byte(k), 1, 2, 3, 4, 5, 6, 7, 8, 9})
		f.Add([]byte{byte(k + 128), 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 24, 48})
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		typ := reflect.TypeOf(protos[int(in[0])%len(protos)])
		v := reflect.New(typ)
		if in[0] < 128 {
			fillFrom(v.Elem(), "", &atkSource{in[1:]}, 0)
		} else {
			v = atkPrior(typ, samples[int(in[0])%len(protos)], 0)
			mutate(v.Elem(), "", &atkSource{in[1:]}, 0)
		}
		if msg := atkEncodeAgrees(gohostile.Generated[typ], v.Interface()); msg != "" {
			t.Fatalf("%v value from % x: %s", typ, in[1:], msg)
		}
	})
}

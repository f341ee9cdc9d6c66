package bitpacktest

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/deepbits"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// CheckDelta checks bitpack's delta guarantees for T on generated pairs of
// values (Gen[T]), as gopter properties, each over two pairs: two
// independent values (base, v), and base with v made by changing some of
// base's parts into v's (mixed: a few fields, elements, pointers, lengths)
// — the common case of a snapshot against the last one. With q standing
// for Quantize:
//
//  1. AppendDelta(base, v) accepts every pair of values that satisfy T's
//     tags.
//  2. UnmarshalDelta(AppendDelta(base, v), q(base)) gives exactly q(v): the
//     same wire codes (compared as Marshal's bytes), compressed floats at
//     their quantum, quaternions at their code's value (nil and empty
//     slices are the same on the wire).
//  3. The delta is canonical: it re-encodes to the same bytes against the
//     same base, AppendDelta(q(base), UnmarshalDelta(…)).
//  4. Quantizing either side changes nothing: AppendDelta(q(base), q(v))
//     is AppendDelta(base, v).
//  5. A value against itself, or against q of itself, is the 1-byte
//     packet 00, and decoding into the base itself (v == base) gives what
//     decoding into another value gives.
//  6. A refused delta — the delta cut short, with a trailing byte, or with
//     a bit flipped — changes nothing: neither the value it is decoded
//     into, nor the base, decoded into itself or not (compared field by
//     field, nil and empty slices apart).
//
// Count, Seed and the generator options apply as for CheckRoundTrip; a
// failure is shrunk and reported with the seed that replays it.
func CheckDelta[T any](t *testing.T, opts ...Option) {
	t.Helper()
	typ := reflect.TypeFor[T]()
	rep, err := runDelta(typ, newConfig(typ, opts))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.props {
		if p.result.Passed() {
			t.Logf("%s: passed %d tests (seed %d)", p.name, p.result.Succeeded, rep.seed)
		} else {
			t.Error(rep.message(p))
		}
	}
}

// deltaPair is one generated case: base, an independent v, and the seed
// of the mix of the two.
type deltaPair struct {
	Base, V any
	Mix     int64
}

func runDelta(typ reflect.Type, cfg *config) (*roundTripReport, error) {
	m, err := compileModel(typ, cfg)
	if err != nil {
		return nil, err
	}
	c := &deltaChecker{m: m}
	params := gopter.DefaultTestParametersWithSeed(cfg.seed)
	params.MinSuccessfulTests = cfg.count
	props := gopter.NewProperties(params)
	g := m.gen(cfg)
	pairs := gopter.CombineGens(g, g, gen.Int64()).Map(func(vs []any) deltaPair {
		return deltaPair{Base: vs[0], V: vs[1], Mix: vs[2].(int64)}
	})
	props.Property("AppendDelta accepts every pair of valid values", prop.ForAll(c.each(c.accepts), pairs))
	props.Property("UnmarshalDelta(AppendDelta(base, v), q(base)) == q(v)", prop.ForAll(c.each(c.rebuilds), pairs))
	props.Property("the delta re-encodes to itself against the same base", prop.ForAll(c.each(c.canonical), pairs))
	props.Property("AppendDelta(q(base), q(v)) == AppendDelta(base, v)", prop.ForAll(c.each(c.quantized), pairs))
	props.Property("AppendDelta(x, x) == 00, and decoding in place", prop.ForAll(c.each(c.itself), pairs))
	props.Property("a refused delta changes neither the value it is decoded into nor the base, in place or not", prop.ForAll(c.each(c.atomic), pairs))
	rep := &roundTripReport{typ: typ, seed: cfg.seed, what: "delta"}
	props.Run(rep)
	return rep, nil
}

// deltaChecker holds what the delta properties share.
type deltaChecker struct{ m *model }

// each runs check on the pair's two cases (base, v) and (base, mix), and
// returns the first failure.
func (c *deltaChecker) each(check func(base, v reflect.Value) string) func(deltaPair) string {
	return func(p deltaPair) string {
		base, v := reflect.ValueOf(p.Base), reflect.ValueOf(p.V)
		if msg := check(base, v); msg != "" {
			return "independent pair: " + msg
		}
		if msg := check(base, c.mix(base, v, p.Mix)); msg != "" {
			return "mixed pair: " + msg
		}
		return ""
	}
}

// ptr returns a *T holding a deep copy of x.
func (c *deltaChecker) ptr(x reflect.Value) reflect.Value {
	p := reflect.New(c.m.typ)
	copyInto(p.Elem(), x)
	return p
}

// q returns a *T holding x quantized (bitpack.Quantize of a copy).
func (c *deltaChecker) q(x reflect.Value) (reflect.Value, error) {
	p := c.ptr(x)
	return p, bitpack.Quantize(p.Interface())
}

func (c *deltaChecker) accepts(base, v reflect.Value) string {
	if _, err := bitpack.AppendDelta(nil, c.ptr(base).Interface(), c.ptr(v).Interface()); err != nil {
		return fmt.Sprintf("AppendDelta refused values that satisfy the tags: %v\nbase: %s\nv: %s", err, show(base), show(v))
	}
	return ""
}

// decoded returns q(base), the delta of v against base, and what it
// decodes to against q(base).
func (c *deltaChecker) decoded(base, v reflect.Value) (qb reflect.Value, delta []byte, got reflect.Value, msg string) {
	delta, err := bitpack.AppendDelta(nil, c.ptr(base).Interface(), c.ptr(v).Interface())
	if err != nil {
		return qb, nil, got, fmt.Sprintf("AppendDelta: %v", err)
	}
	if qb, err = c.q(base); err != nil {
		return qb, nil, got, fmt.Sprintf("Quantize(base): %v", err)
	}
	got = reflect.New(c.m.typ)
	if err := bitpack.UnmarshalDelta(delta, qb.Interface(), got.Interface()); err != nil {
		return qb, nil, got, fmt.Sprintf("UnmarshalDelta refused AppendDelta's own delta %x: %v\nbase: %s\nv: %s", delta, err, show(base), show(v))
	}
	return qb, delta, got, ""
}

func (c *deltaChecker) rebuilds(base, v reflect.Value) string {
	_, delta, got, msg := c.decoded(base, v)
	if msg != "" {
		return msg
	}
	qv, err := c.q(v)
	if err != nil {
		return fmt.Sprintf("Quantize(v): %v", err)
	}
	want, err1 := bitpack.Marshal(qv.Interface())
	have, err2 := bitpack.Marshal(got.Interface())
	switch {
	case err1 != nil || err2 != nil:
		return fmt.Sprintf("Marshal: %v, %v", err1, err2)
	case !bytes.Equal(want, have) || !equal(c.m.root, qv.Elem(), got.Elem()):
		return fmt.Sprintf("delta %x against q(base) decodes to a value other than q(v)\nbase: %s\nv: %s\nq(v): %s\ngot: %s", delta, show(base), show(v), show(qv.Elem()), show(got.Elem()))
	}
	return ""
}

func (c *deltaChecker) canonical(base, v reflect.Value) string {
	qb, delta, got, msg := c.decoded(base, v)
	if msg != "" {
		return msg
	}
	again, err := bitpack.AppendDelta(nil, qb.Interface(), got.Interface())
	if err != nil || !bytes.Equal(again, delta) {
		return fmt.Sprintf("delta %x decodes to a value whose delta against the same base is %x (%v)\nbase: %s\nv: %s", delta, again, err, show(base), show(v))
	}
	return ""
}

func (c *deltaChecker) quantized(base, v reflect.Value) string {
	delta, err := bitpack.AppendDelta(nil, c.ptr(base).Interface(), c.ptr(v).Interface())
	if err != nil {
		return fmt.Sprintf("AppendDelta: %v", err)
	}
	qb, err1 := c.q(base)
	qv, err2 := c.q(v)
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("Quantize: %v, %v", err1, err2)
	}
	dq, err := bitpack.AppendDelta(nil, qb.Interface(), qv.Interface())
	if err != nil || !bytes.Equal(dq, delta) {
		return fmt.Sprintf("AppendDelta(base, v) = %x but AppendDelta(q(base), q(v)) = %x (%v)\nbase: %s\nv: %s", delta, dq, err, show(base), show(v))
	}
	return ""
}

func (c *deltaChecker) itself(base, v reflect.Value) string {
	for _, x := range []reflect.Value{base, v} {
		qx, err := c.q(x)
		if err != nil {
			return fmt.Sprintf("Quantize: %v", err)
		}
		for _, y := range []reflect.Value{c.ptr(x), qx} {
			d, err := bitpack.AppendDelta(nil, c.ptr(x).Interface(), y.Interface())
			if err != nil || !bytes.Equal(d, []byte{0}) {
				return fmt.Sprintf("the delta of a value against itself (or its quantized self) is %x (%v), not 00\nvalue: %s", d, err, show(x))
			}
		}
	}
	qb, delta, got, msg := c.decoded(base, v)
	if msg != "" {
		return msg
	}
	if err := bitpack.UnmarshalDelta(delta, qb.Interface(), qb.Interface()); err != nil {
		return fmt.Sprintf("UnmarshalDelta into the base itself refused %x: %v", delta, err)
	}
	a, err1 := bitpack.Marshal(qb.Interface())
	b, err2 := bitpack.Marshal(got.Interface())
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) || !equal(c.m.root, got.Elem(), qb.Elem()) {
		return fmt.Sprintf("decoding %x into the base itself gives %s, into another value %s", delta, show(qb.Elem()), show(got.Elem()))
	}
	return ""
}

func (c *deltaChecker) atomic(base, v reflect.Value) string {
	delta, err := bitpack.AppendDelta(nil, c.ptr(base).Interface(), c.ptr(v).Interface())
	if err != nil {
		return fmt.Sprintf("AppendDelta: %v", err)
	}
	qb, err := c.q(base)
	if err != nil {
		return fmt.Sprintf("Quantize(base): %v", err)
	}
	pristine := deepCopy(qb.Elem())
	for _, bad := range corrupted(delta) {
		self := c.ptr(qb.Elem())
		if err := bitpack.UnmarshalDelta(bad, self.Interface(), self.Interface()); err != nil && !deepbits.Identical(self.Elem(), pristine) {
			return fmt.Sprintf("%x was refused (%v) but changed the base it was decoded into: %s\nbase: %s", bad, err, show(self.Elem()), show(pristine))
		}
		other := c.ptr(v)
		if err := bitpack.UnmarshalDelta(bad, qb.Interface(), other.Interface()); err != nil && !deepbits.Identical(other.Elem(), v) {
			return fmt.Sprintf("%x was refused (%v) but changed the value it was decoded into: %s\nvalue: %s", bad, err, show(other.Elem()), show(v))
		}
		if !deepbits.Identical(qb.Elem(), pristine) {
			return fmt.Sprintf("decoding %x into another value changed the base: %s\nbase: %s", bad, show(qb.Elem()), show(pristine))
		}
	}
	return ""
}

// corrupted returns packets made from delta that a decoder refuses, or
// may: cut to half its bytes, with a trailing byte, and with a bit flipped
// at a third, at two thirds and at the end of its bits.
func corrupted(delta []byte) [][]byte {
	out := [][]byte{append(append([]byte(nil), delta...), 0)}
	if len(delta) > 1 {
		out = append(out, delta[:len(delta)/2])
	}
	n := 8 * len(delta)
	for _, i := range []int{n / 3, 2 * n / 3, n - 1} {
		d := append([]byte(nil), delta...)
		d[i/8] ^= 1 << (i % 8)
		out = append(out, d)
	}
	return out
}

// mix returns base with some of its parts replaced by v's (see
// CheckDelta), drawn from seed; v when the mix is one Marshal refuses
// (for what its packet would cost the decoder).
func (c *deltaChecker) mix(base, v reflect.Value, seed int64) reflect.Value {
	out := deepCopy(base)
	mixInto(c.m.root, out, v, rand.New(rand.NewSource(seed)))
	p := reflect.New(c.m.typ)
	p.Elem().Set(out)
	if _, err := bitpack.Marshal(p.Interface()); err != nil {
		return v
	}
	return out
}

// mixInto changes some parts of dst (a deep copy of a value of n) into
// src's: each leaf with odds 1 in 4, containers part by part.
func mixInto(n *node, dst, src reflect.Value, r *rand.Rand) {
	if !dst.CanSet() && n.kind != bitpack.KindStruct {
		return
	}
	switch n.kind {
	case bitpack.KindStruct:
		for _, f := range n.fields {
			mixInto(f, dst.Field(f.index), src.Field(f.index), r)
		}
		return
	case bitpack.KindArray:
		for i := 0; i < dst.Len(); i++ {
			mixInto(n.elem, dst.Index(i), src.Index(i), r)
		}
		return
	case bitpack.KindSlice, bitpack.KindSparse:
		if dst.Kind() == reflect.Array {
			for i := 0; i < dst.Len(); i++ {
				mixInto(n.elem, dst.Index(i), src.Index(i), r)
			}
			return
		}
		if r.Intn(4) == 0 && !src.IsNil() { // src's length: elements past dst's come from src
			s := reflect.MakeSlice(dst.Type(), src.Len(), src.Len())
			reflect.Copy(s, dst)
			for i := dst.Len(); i < src.Len(); i++ {
				copyInto(s.Index(i), src.Index(i))
			}
			dst.Set(s)
		}
		for i := 0; i < min(dst.Len(), src.Len()); i++ {
			mixInto(n.elem, dst.Index(i), src.Index(i), r)
		}
		return
	case bitpack.KindPointer:
		if !dst.IsNil() && !src.IsNil() && r.Intn(2) == 0 {
			mixInto(n.elem, dst.Elem(), src.Elem(), r)
			return
		}
	}
	if r.Intn(4) == 0 {
		copyInto(dst, src)
	}
}

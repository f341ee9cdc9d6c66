package bitpacktest

import (
	"fmt"
	"math"
	"reflect"
	"unicode/utf8"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/internal/deepbits"
	"github.com/leanovate/gopter"
)

// Shrinking. gopter shrinks greedily: it asks the shrinker for candidates
// simpler than the failing value, keeps the first that still fails, and
// starts again from it. So candidates come simplest first (the target
// itself, then big steps, then small ones), lazily (a struct's later fields
// are not visited unless the earlier ones are done), and every candidate is
// a new value that satisfies the tags: shrinking only moves toward the
// in-range value closest to zero, shortens, or drops pointers.

// stream yields candidates one at a time; false means exhausted.
type stream func() (reflect.Value, bool)

func none() (reflect.Value, bool) { return reflect.Value{}, false }

// list yields vs in order, skipping invalid values.
func list(vs ...reflect.Value) stream {
	i := 0
	return func() (reflect.Value, bool) {
		for i < len(vs) {
			i++
			if vs[i-1].IsValid() {
				return vs[i-1], true
			}
		}
		return none()
	}
}

// each yields part(0), then part(1), ... part(n-1), building each part only
// when the previous one is exhausted.
func each(n int, part func(i int) stream) stream {
	var cur stream
	i := 0
	return func() (reflect.Value, bool) {
		for {
			if cur == nil {
				if i >= n {
					return none()
				}
				cur = part(i)
				i++
			}
			if v, ok := cur(); ok {
				return v, true
			}
			cur = nil
		}
	}
}

// concat yields the streams parts build, in order, building each lazily.
func concat(parts ...func() stream) stream {
	return each(len(parts), func(i int) stream { return parts[i]() })
}

// mapped applies f to every candidate of s.
func mapped(s stream, f func(reflect.Value) reflect.Value) stream {
	return func() (reflect.Value, bool) {
		v, ok := s()
		if !ok {
			return none()
		}
		return f(v), true
	}
}

// shrinker is the gopter.Shrinker of m's values.
func (m *model) shrinker() gopter.Shrinker {
	return func(value any) gopter.Shrink {
		v := reflect.ValueOf(value)
		if !v.IsValid() {
			v = reflect.Zero(m.typ)
		}
		s := shrinks(m.root, v)
		return func() (any, bool) {
			c, ok := s()
			if !ok {
				return nil, false
			}
			return c.Interface(), true
		}
	}
}

// fresh returns a new settable value of n's type.
func fresh(n *node) reflect.Value { return reflect.New(n.typ).Elem() }

// clone returns a settable copy of v (shallow below n: candidates share the
// parts they do not change, which nothing ever mutates).
func clone(n *node, v reflect.Value) reflect.Value {
	c := fresh(n)
	assign(n, c, v)
	return c
}

// assign stores src into dst. Values read through an unexported embedded
// struct cannot be stored whole; their wire fields are copied one by one.
func assign(n *node, dst, src reflect.Value) {
	if dst.CanSet() && src.CanInterface() {
		dst.Set(src)
		return
	}
	if n.kind != bitpack.KindStruct {
		panic(fmt.Sprintf("bitpacktest: %s: cannot store a %s", n.path, n.typ))
	}
	for _, c := range n.fields {
		assign(c, dst.Field(c.index), src.Field(c.index))
	}
}

// shrinks returns the candidates for v, a value of node n.
func shrinks(n *node, v reflect.Value) stream {
	switch n.kind {
	case bitpack.KindBool:
		if v.Bool() {
			c := fresh(n)
			return list(c)
		}
	case bitpack.KindInt:
		return mapped(orderedShrinks(ord(v.Int()/n.unit), n.zero), func(c reflect.Value) reflect.Value {
			nv := fresh(n)
			nv.SetInt(unord(c.Uint()) * n.unit)
			return nv
		})
	case bitpack.KindUint:
		return mapped(orderedShrinks(v.Uint()/uint64(n.unit), n.zero), func(c reflect.Value) reflect.Value {
			nv := fresh(n)
			nv.SetUint(c.Uint() * uint64(n.unit))
			return nv
		})
	case bitpack.KindTime:
		if c, _, ok := timeCode(n, v); ok {
			return mapped(orderedShrinks(c, n.zero), func(c reflect.Value) reflect.Value {
				nv := fresh(n)
				setTime(n, nv, c.Uint())
				return nv
			})
		}
	case bitpack.KindFloat:
		return rawFloatShrinks(n, v)
	case bitpack.KindCompressedFloat:
		return compressedShrinks(n, v.Float())
	case bitpack.KindQuat:
		if getQuat(v, n.f.QuatPaths) != [4]float64{0, 0, 0, 1} {
			c := fresh(n)
			setQuat(c, n.f.QuatPaths, [4]float64{0, 0, 0, 1})
			return list(c)
		}
	case bitpack.KindString:
		return stringShrinks(n, v.String())
	case bitpack.KindBytes:
		return sliceShrinks(n, v, func(i int, e reflect.Value) stream {
			if e.Uint() == 0 {
				return none
			}
			return list(reflect.Zero(e.Type()))
		})
	case bitpack.KindByteArray:
		return arrayShrinks(n, v, func(i int, e reflect.Value) stream {
			if e.Uint() == 0 {
				return none
			}
			return list(reflect.Zero(e.Type()))
		})
	case bitpack.KindArray:
		return arrayShrinks(n, v, func(i int, e reflect.Value) stream { return shrinks(n.elem, e) })
	case bitpack.KindSlice:
		return sliceShrinks(n, v, func(i int, e reflect.Value) stream { return shrinks(n.elem, e) })
	case bitpack.KindMap:
		return mapShrinks(n, v)
	case bitpack.KindSparse:
		if n.typ.Kind() == reflect.Slice {
			return sliceShrinks(n, v, func(i int, e reflect.Value) stream { return shrinks(n.elem, e) })
		}
		return arrayShrinks(n, v, func(i int, e reflect.Value) stream { return shrinks(n.elem, e) })
	case bitpack.KindUnion:
		return unionShrinks(n, v)
	case bitpack.KindPointer:
		if v.IsNil() {
			return none
		}
		return concat(
			func() stream {
				if n.neverNil {
					return none
				}
				return list(reflect.Zero(n.typ))
			},
			func() stream {
				return mapped(shrinks(n.elem, v.Elem()), func(c reflect.Value) reflect.Value {
					p := reflect.New(n.typ.Elem())
					assign(n.elem, p.Elem(), c)
					return p
				})
			})
	case bitpack.KindStruct:
		return each(len(n.fields), func(i int) stream {
			c := n.fields[i]
			return mapped(shrinks(c, v.Field(c.index)), func(cand reflect.Value) reflect.Value {
				nv := clone(n, v)
				assign(c, nv.Field(c.index), cand)
				return nv
			})
		})
	case bitpack.KindCustom:
		if n.custom == nil || !v.CanInterface() {
			return none
		}
		s := n.shrinker(v.Interface()).Filter(n.sieve)
		return func() (reflect.Value, bool) {
			c, ok := s()
			if !ok {
				return none()
			}
			nv := fresh(n)
			setCustom(n, nv, c)
			return nv, true
		}
	}
	return none
}

// orderedShrinks yields integers (in ord form, as uint64 Values) from x
// toward target: target itself, then x minus half the distance, a quarter,
// ..., one step (QuickCheck's shrinkIntegral).
func orderedShrinks(x, target uint64) stream {
	if x == target {
		return none
	}
	d := x - target
	up := x < target
	if up {
		d = target - x
	}
	k := 0
	return func() (reflect.Value, bool) {
		if k >= 64 || d>>k == 0 {
			return none()
		}
		step := d >> k
		k++
		if up {
			return reflect.ValueOf(x + step), true
		}
		return reflect.ValueOf(x - step), true
	}
}

// floatValue makes a value of n's float type from x, keeping a float32's
// bits (x is exact at float32 precision when it comes from one).
func floatValue(n *node, x float64) reflect.Value {
	nv := fresh(n)
	if n.isFloat32() {
		setFloat32(nv, float32(x))
	} else {
		nv.SetFloat(x)
	}
	return nv
}

// rawFloatShrinks: +0; for NaN the canonical NaN; for finite values the
// absolute value, the integer part, and the value scaled down by 2^64,
// 2^16, 2^4 and 2.
func rawFloatShrinks(n *node, v reflect.Value) stream {
	var x float64
	var bits uint64
	f32 := n.isFloat32()
	if f32 {
		b := deepbits.Float32Bits(v)
		x, bits = float64(math.Float32frombits(b)), uint64(b)
	} else {
		x = v.Float()
		bits = math.Float64bits(x)
	}
	if bits == 0 {
		return none
	}
	cands := []reflect.Value{floatValue(n, 0)}
	seen := map[float64]bool{0: true}
	add := func(c float64) {
		if f32 {
			c = float64(float32(c))
		}
		if !seen[c] && c != x {
			seen[c] = true
			cands = append(cands, floatValue(n, c))
		}
	}
	switch {
	case math.IsNaN(x):
		canonical := uint64(0x7ff8000000000000)
		if f32 {
			canonical = 0x7fc00000
		}
		if bits != canonical {
			nv := fresh(n)
			if f32 {
				setFloat32(nv, math.Float32frombits(uint32(canonical)))
			} else {
				nv.SetFloat(math.Float64frombits(canonical))
			}
			cands = append(cands, nv)
		}
	case math.IsInf(x, 0):
	default:
		if x < 0 {
			add(-x)
		}
		add(math.Trunc(x))
		for _, k := range []float64{0x1p-64, 0x1p-16, 0x1p-4, 0.5} {
			add(x * k)
		}
	}
	return list(cands...)
}

// compressedShrinks: the in-range value closest to zero, the nearest bound
// for an out-of-range (clamped) value, then points between the target and
// x, and the integer part, all inside the field's range (or, for clamp
// fields, anything finite, as the tag allows).
func compressedShrinks(n *node, x float64) stream {
	lo, hi := n.fmin, n.fmax
	target := min(hi, max(lo, 0))
	var cands []reflect.Value
	seen := map[float64]bool{x: true}
	add := func(c float64) {
		if n.q32 != nil {
			c = float64(float32(c))
		}
		inRange := c >= lo && c <= hi
		if !seen[c] && (inRange || (n.f.Clamp && !math.IsInf(c, 0) && !math.IsNaN(c))) {
			seen[c] = true
			cands = append(cands, floatValue(n, c))
		}
	}
	add(target)
	add(min(hi, max(lo, x)))
	for _, k := range []float64{0x1p-8, 0x1p-4, 0.25, 0.5} {
		add(target + (x-target)*k)
	}
	add(math.Trunc(x))
	return list(cands...)
}

// stringShrinks: empty, the first and second halves, each rune removed,
// each rune replaced by 'a'. Cuts fall on rune boundaries.
func stringShrinks(n *node, s string) stream {
	if s == "" {
		return none
	}
	str := func(x string) reflect.Value {
		nv := fresh(n)
		nv.SetString(x)
		return nv
	}
	var starts []int
	for i := range s {
		starts = append(starts, i)
	}
	h := starts[len(starts)/2]
	return concat(
		func() stream {
			if h == 0 {
				return list(str(""))
			}
			return list(str(""), str(s[:h]), str(s[h:]))
		},
		func() stream {
			if len(starts) == 1 {
				return none
			}
			return each(len(starts), func(i int) stream {
				_, size := utf8.DecodeRuneInString(s[starts[i]:])
				return list(str(s[:starts[i]] + s[starts[i]+size:]))
			})
		},
		func() stream {
			return each(len(starts), func(i int) stream {
				r, size := utf8.DecodeRuneInString(s[starts[i]:])
				if r == 'a' {
					return none
				}
				return list(str(s[:starts[i]] + "a" + s[starts[i]+size:]))
			})
		})
}

// sliceShrinks: empty, the first and second halves, each element removed,
// then each element shrunk.
func sliceShrinks(n *node, v reflect.Value, elem func(i int, e reflect.Value) stream) stream {
	k := v.Len()
	if k == 0 {
		if v.IsNil() {
			return none
		}
		return list(reflect.Zero(n.typ)) // empty: nil is the same on the wire, and simpler
	}
	sub := func(from, to int) reflect.Value {
		c := reflect.MakeSlice(n.typ, to-from, to-from)
		reflect.Copy(c, v.Slice(from, to))
		return c
	}
	return concat(
		func() stream {
			if k == 1 {
				return list(reflect.Zero(n.typ))
			}
			return list(reflect.Zero(n.typ), sub(0, k/2), sub(k/2, k))
		},
		func() stream {
			if k == 1 {
				return none
			}
			return each(k, func(i int) stream {
				c := reflect.MakeSlice(n.typ, 0, k-1)
				c = reflect.AppendSlice(c, v.Slice(0, i))
				c = reflect.AppendSlice(c, v.Slice(i+1, k))
				return list(c)
			})
		},
		func() stream {
			return each(k, func(i int) stream {
				return mapped(elem(i, v.Index(i)), func(e reflect.Value) reflect.Value {
					c := sub(0, k)
					elemAssign(n, c.Index(i), e)
					return c
				})
			})
		})
}

// arrayShrinks: each element shrunk, one at a time.
func arrayShrinks(n *node, v reflect.Value, elem func(i int, e reflect.Value) stream) stream {
	return each(v.Len(), func(i int) stream {
		return mapped(elem(i, v.Index(i)), func(e reflect.Value) reflect.Value {
			c := fresh(n)
			reflect.Copy(c, v)
			elemAssign(n, c.Index(i), e)
			return c
		})
	})
}

// elemAssign stores an element candidate into a container's element slot.
func elemAssign(n *node, dst, e reflect.Value) {
	if n.elem != nil {
		assign(n.elem, dst, e)
		return
	}
	dst.Set(e) // bytes
}

// unionShrinks: the simplest value of each member with a lower index (that
// has a finite value), then the current member's value shrunk.
func unionShrinks(n *node, v reflect.Value) stream {
	if v.IsNil() {
		return none
	}
	cur := v.Elem()
	idx := -1
	for i, c := range n.members {
		if c.typ == cur.Type() {
			idx = i
		}
	}
	if idx < 0 {
		return none
	}
	wrap := func(c reflect.Value) reflect.Value {
		nv := fresh(n)
		nv.Set(c)
		return nv
	}
	return concat(
		func() stream {
			return each(idx, func(j int) stream {
				if n.members[j].rank < 0 {
					return none
				}
				return list(wrap(minimal(n.members[j])))
			})
		},
		func() stream { return mapped(shrinks(n.members[idx], cur), wrap) })
}

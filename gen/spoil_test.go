package gen

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/internal/rules"
)

// spoiler enumerates the ways to make one leaf of a value invalid, in a
// fixed order, and applies the k-th: a ranged integer just outside its
// range, an integer one past its bits (with unit=, in units, and values
// half a unit from the bounds, which round outwards; clamp tags accept
// them all), a compressed float NaN, infinite or outside its bounds (clamp
// tags accept those that are finite), a quaternion with a NaN or infinite
// component or not unit length (and some that are accepted: nearly unit,
// all -0, ties), a string too long or not UTF-8, a slice or map one past
// maxlen, a map key outside its tag, a nil union, a hook value its
// MarshalBits refuses.
type spoiler struct {
	target, n int
	done      bool
	what      string
}

func (s *spoiler) site(what string, apply func()) {
	if s.n == s.target && !s.done {
		apply()
		s.done, s.what = true, what
	}
	s.n++
}

func (s *spoiler) structFields(t *model.Type, uses []*model.FieldUse, rv reflect.Value) {
	if uses == nil {
		for _, m := range t.Fields {
			uses = append(uses, &model.FieldUse{Member: m, Value: m.Value})
		}
	}
	for _, u := range uses {
		s.value(u.Value, settable(rv.Field(u.Member.Index)))
	}
}

func (s *spoiler) value(v *model.Value, rv reflect.Value) {
	switch v.Kind {
	case bitpack.KindInt, bitpack.KindUint:
		s.integer(v, rv)
	case bitpack.KindTime:
		s.times(v, rv)
	case bitpack.KindCompressedFloat:
		span := v.Max - v.Min
		// 2.5e6 and -123456.7: Go's %v writes the first with an exponent (from
		// 1e6 up), the second without.
		for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), v.Max + span, v.Min - span, v.Hi, v.Lo, nextUp(v), 2.5e6, -123456.7} {
			s.site(fmt.Sprintf("%s = %v", v.Path, f), func() { rv.SetFloat(f) })
		}
	case bitpack.KindString:
		for _, str := range []string{strings.Repeat("a", v.MaxLen+1), "\xff", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "a\xe2\x82"} {
			if len(str) <= v.MaxLen || str[0] == 'a' && len(str) == v.MaxLen+1 {
				s.site(fmt.Sprintf("%s = %q", v.Path, str), func() { rv.SetString(str) })
			}
		}
	case bitpack.KindQuat:
		s.quat(v, rv)
	case bitpack.KindMap:
		s.mapEntries(v, rv)
	case bitpack.KindBytes, bitpack.KindSlice:
		s.site(fmt.Sprintf("%s: %d elements", v.Path, v.MaxLen+1), func() {
			rv.Set(reflect.MakeSlice(rv.Type(), v.MaxLen+1, v.MaxLen+1))
		})
		for i := 0; i < rv.Len() && v.Kind == bitpack.KindSlice; i++ {
			s.value(v.Elem, rv.Index(i))
		}
	case bitpack.KindArray:
		for i := 0; i < rv.Len(); i++ {
			s.value(v.Elem, rv.Index(i))
		}
	case bitpack.KindPointer:
		if !rv.IsNil() {
			s.value(v.Elem, rv.Elem())
		}
	case bitpack.KindSparse:
		if rv.Kind() == reflect.Slice {
			s.site(fmt.Sprintf("%s: %d slots", v.Path, v.MaxLen+1), func() {
				rv.Set(reflect.MakeSlice(rv.Type(), v.MaxLen+1, v.MaxLen+1))
			})
		}
		for i := 0; i < rv.Len(); i++ {
			if e := rv.Index(i); !e.IsNil() {
				s.value(v.Elem, e.Elem())
			}
		}
	case bitpack.KindStruct:
		s.structFields(v.Type, v.Fields, rv)
	case bitpack.KindUnion:
		s.site(v.Path+" = nil", func() { rv.Set(reflect.Zero(rv.Type())) })
		if rv.IsNil() {
			return
		}
		dyn := rv.Elem()
		if dyn.Kind() == reflect.Pointer {
			s.structFields(memberOf(v.Type, dyn.Elem().Type()), nil, dyn.Elem())
			return
		}
		c := reflect.New(dyn.Type()).Elem()
		c.Set(dyn)
		s.structFields(memberOf(v.Type, dyn.Type()), nil, c)
		rv.Set(c)
	case bitpack.KindCustom:
		s.site(v.Path+".v = 5000", func() { settable(rv.Field(0)).SetUint(5000) })
	}
}

func memberOf(u *model.Type, t reflect.Type) *model.Type {
	for _, m := range u.Members {
		if m.Go == t {
			return m
		}
	}
	panic(t.String() + " is not a member of " + u.Go.String())
}

// nextUp is the float just above a compressed float's upper accepted bound.
func nextUp(v *model.Value) float64 {
	if v.FloatBits == 32 {
		return float64(math.Nextafter32(float32(v.Hi), float32(math.Inf(1))))
	}
	return math.Nextafter(v.Hi, math.Inf(1))
}

func (s *spoiler) integer(v *model.Value, rv reflect.Value) {
	typeMin, typeMax := int64(-1)<<(v.GoBits-1), int64(uint64(1)<<(v.GoBits-1)-1)
	set := func(what string, f func()) { s.site(v.Path+" = "+what, f) }
	if v.Unit > 1 {
		s.units(v, rv)
		return
	}
	switch {
	case v.Signed && v.Ranged:
		if v.IntMin > typeMin {
			set(strconv.FormatInt(v.IntMin-1, 10), func() { rv.SetInt(v.IntMin - 1) })
		}
		if v.IntMax < typeMax {
			set(strconv.FormatInt(v.IntMax+1, 10), func() { rv.SetInt(v.IntMax + 1) })
		}
	case v.Ranged:
		if v.UintMin > 0 {
			set(strconv.FormatUint(v.UintMin-1, 10), func() { rv.SetUint(v.UintMin - 1) })
		}
		if v.UintMax < math.MaxUint64>>(64-v.GoBits) {
			set(strconv.FormatUint(v.UintMax+1, 10), func() { rv.SetUint(v.UintMax + 1) })
		}
	case v.Signed && v.Bits < v.GoBits:
		lim := int64(1) << (v.Bits - 1)
		set(strconv.FormatInt(lim, 10), func() { rv.SetInt(lim) })
		set(strconv.FormatInt(-lim-1, 10), func() { rv.SetInt(-lim - 1) })
	case !v.Signed && v.Bits < v.GoBits:
		set(strconv.FormatUint(1<<v.Bits, 10), func() { rv.SetUint(1 << v.Bits) })
	}
}

// settable returns rv, made settable when it was reached through an
// unexported field (an unexported embedded struct's fields, a hook's
// state): the spoiler changes values the encoder reads through those.
func settable(rv reflect.Value) reflect.Value {
	if rv.CanSet() || !rv.CanAddr() {
		return rv
	}
	return reflect.NewAt(rv.Type(), unsafe.Pointer(rv.UnsafeAddr())).Elem()
}

// times spoils a time.Time: a unit past each bound, and half a unit past
// them (rounded away from zero, so refused) and just under half (rounded
// back in), and times Go prints in the calendar's far corners (year 1,
// year 0 and before, five-digit years, the earliest Unix second, which
// Go's calendar wraps, and the latest), each at a whole number of units,
// when they are outside the range in a count of int64. (A time whose
// count no client holds is left out: one whose units pass int64, which Go
// refuses in words no client's count can reach — half a unit past a
// bound at an end of int64 — and one past ±2^53 units where TypeScript
// holds the field as a number, which would round it.)
func (s *spoiler) times(v *model.Value, rv reflect.Value) {
	lo, hi, _ := model.IntBounds(v)
	u := v.Unit
	at := func(units, offset int64) {
		t, ok := timeOfCount(units, u)
		if !ok {
			return
		}
		t = t.Add(time.Duration(offset))
		if k, _, ok := rules.UnixUnits(t, u); !ok || !countHeld(v, k) || !hostPrintsYear(t) {
			return
		}
		s.site(fmt.Sprintf("%s = %s (%d units%+dns)", v.Path, t, units, offset), func() { rv.Set(reflect.ValueOf(t)) })
	}
	for _, x := range []struct {
		bound, step, offset int64
	}{{hi, 1, 0}, {hi, 0, u / 2}, {hi, 0, (u - 1) / 2}, {lo, -1, 0}, {lo, 0, -u / 2}, {lo, 0, -(u - 1) / 2}} {
		if k := x.bound + x.step; (k > x.bound) == (x.step > 0) && (x.step != 0 || x.offset != 0) {
			at(k, x.offset)
		}
	}
	latest := math.MaxInt64 + time.Time{}.Unix()
	for _, t := range []time.Time{
		{}, time.Date(0, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Unix(math.MinInt64, 0), time.Unix(latest, 999999999),
		time.Unix(calendarStart, 0), time.Unix(calendarStart-1, 0),
	} {
		if k, _, ok := rules.UnixUnits(t, u); ok && (k < lo || k > hi) {
			at(k, 0)
		}
	}
}

// hostPrintsYear reports whether Go's Time.String prints t's year on this
// host: where int is 32 bits, package time keeps the year in one and a
// year past 2^31 wraps (Unix second -9223372028741760000, the first day of
// Go's calendar, prints as year -219246272 there), so Go's refusal of such
// a time is not in the words every client uses. Those times are spoiled on
// 64-bit hosts only (and their handErrors pins checked there).
func hostPrintsYear(t time.Time) bool {
	const years31 = 67e15 // seconds: about 2.1e9 years either side of 1970
	return strconv.IntSize == 64 || t.Unix() > -years31 && t.Unix() < years31
}

// timeOfCount is the time units units of u nanoseconds after 1970, if
// there is one (Unix seconds from math.MinInt64 to the latest a
// time.Time holds).
func timeOfCount(units, u int64) (time.Time, bool) {
	sec := new(big.Int).Mul(big.NewInt(units), big.NewInt(u))
	sec.Div(sec, big.NewInt(int64(time.Second))) // Euclidean: floored
	latest := math.MaxInt64 + time.Time{}.Unix()
	if !sec.IsInt64() || sec.Int64() > latest {
		return time.Time{}, false
	}
	return rules.TimeOfUnits(units, u), true
}

// units spoils an integer with unit=: values one unit past each bound,
// and half a unit past them (rounded away from zero, so refused) and just
// under half (rounded back in).
func (s *spoiler) units(v *model.Value, rv reflect.Value) {
	u := v.Unit
	if v.Signed {
		lo, hi, _ := model.IntBounds(v)
		typeMin, typeMax := int64(-1)<<(v.GoBits-1), int64(uint64(1)<<(v.GoBits-1)-1)
		for _, x := range []struct {
			units, offset int64
		}{{hi + 1, 0}, {hi, u / 2}, {hi, (u - 1) / 2}, {lo - 1, 0}, {lo, -u / 2}, {lo, -(u - 1) / 2}} {
			w, ok := mulInt64(x.units, u)
			if !ok || w > typeMax-max(x.offset, 0) || w < typeMin-min(x.offset, 0) {
				continue
			}
			w += x.offset
			s.site(fmt.Sprintf("%s = %d (units %d%+d)", v.Path, w, x.units, x.offset), func() { rv.SetInt(w) })
		}
		return
	}
	lo, hi := model.UintBounds(v)
	typeMax := uint64(math.MaxUint64) >> (64 - v.GoBits)
	for _, x := range []struct {
		units uint64
		up    bool
		off   uint64
	}{{hi + 1, true, 0}, {hi, true, uint64(u) / 2}, {hi, true, uint64(u-1) / 2}, {lo - 1, false, 0}} {
		if x.units < lo && !(lo > 0 && x.units == lo-1) || x.units > typeMax/uint64(u) {
			continue
		}
		w := x.units*uint64(u) + x.off
		if w > typeMax {
			continue
		}
		s.site(fmt.Sprintf("%s = %d", v.Path, w), func() { rv.SetUint(w) })
	}
}

func mulInt64(a, b int64) (int64, bool) {
	p := a * b
	return p, a == 0 || p/a == b && !(a == -1 && b == math.MinInt64)
}

// quat spoils a quaternion's components: refused ones (a NaN, an
// infinity, too long, too short, a tiny non-zero one) and accepted ones
// (all -0, within the norm's tolerance, the tie of four halves, a
// component just past m).
func (s *spoiler) quat(v *model.Value, rv reflect.Value) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, q := range []struct {
		what string
		c    [4]float64
	}{
		{"NaN", [4]float64{0, nan, 0, 1}},
		{"-Inf", [4]float64{0, 0, -inf, 1}},
		{"scaled 1.5", [4]float64{0.3 * 1.5, -0.1 * 1.5, 0.5 * 1.5, 0.8062258 * 1.5}},
		{"scaled 0.99", [4]float64{0.99, 0, 0, 0}},
		{"scaled 1.006", [4]float64{0.5 * 1.006, 0.5 * 1.006, -0.5 * 1.006, 0.5 * 1.006}},
		{"tiny", [4]float64{1e-3, 0, 0, 0}},
		{"huge", [4]float64{3e38, 0, -1e20, 1}},
		{"all -0", [4]float64{math.Copysign(0, -1), math.Copysign(0, -1), math.Copysign(0, -1), math.Copysign(0, -1)}},
		{"halves", [4]float64{-0.5, 0.5, -0.5, 0.5}},
		{"past m", [4]float64{0.70710677, 0.7071068, 0, 0}},
	} {
		s.site(fmt.Sprintf("%s = %s %v", v.Path, q.what, q.c), func() {
			for i, steps := range v.Comps {
				quatComponent(rv, steps).SetFloat(q.c[i])
			}
		})
	}
}

// quatComponent is the component of quaternion rv at steps.
func quatComponent(rv reflect.Value, steps []model.QuatStep) reflect.Value {
	for _, st := range steps {
		if st.Member != nil {
			rv = rv.Field(st.Member.Index)
		} else {
			rv = rv.Index(st.Index)
		}
	}
	return rv
}

// mapEntries spoils a map: one entry past maxlen (when the key domain has
// that many keys), then each key (replaced by a spoiled copy) and value in
// key order.
func (s *spoiler) mapEntries(v *model.Value, rv reflect.Value) {
	if extra := keysBeyond(v, rv, v.MaxLen+1); extra != nil {
		s.site(fmt.Sprintf("%s: %d entries", v.Path, v.MaxLen+1), func() {
			m := reflect.MakeMap(rv.Type())
			for _, k := range extra {
				m.SetMapIndex(k, reflect.New(rv.Type().Elem()).Elem())
			}
			rv.Set(m)
		})
	}
	for _, k := range sortedKeys(rv) {
		if s.done {
			return
		}
		kc := reflect.New(k.Type()).Elem()
		kc.Set(k)
		if s.value(v.Key, kc); s.done {
			val := rv.MapIndex(k)
			rv.SetMapIndex(k, reflect.Value{})
			rv.SetMapIndex(kc, val)
			return
		}
		vc := reflect.New(rv.Type().Elem()).Elem()
		vc.Set(rv.MapIndex(k))
		if s.value(v.Elem, vc); s.done {
			rv.SetMapIndex(k, vc)
			return
		}
	}
}

// keysBeyond returns n distinct keys of map value v (small integers, short
// strings), or nil when its keys cannot be that many.
func keysBeyond(v *model.Value, rv reflect.Value, n int) []reflect.Value {
	kt := rv.Type().Key()
	var keys []reflect.Value
	for i := 0; len(keys) < n && i < n; i++ {
		k := reflect.New(kt).Elem()
		switch v.Key.Kind {
		case bitpack.KindBool:
			if i > 1 {
				return nil
			}
			k.SetBool(i == 1)
		case bitpack.KindString:
			if v.Key.MaxLen < 2 {
				return nil
			}
			k.SetString(strconv.Itoa(i))
		case bitpack.KindInt:
			lo, _, _ := model.IntBounds(v.Key)
			k.SetInt(lo + int64(i))
		default:
			lo, _ := model.UintBounds(v.Key)
			k.SetUint(lo + uint64(i))
		}
		keys = append(keys, k)
	}
	return keys
}

// sortedKeys are a map's keys in bitpack's order: numbers by value,
// strings by their bytes, false before true.
func sortedKeys(rv reflect.Value) []reflect.Value {
	keys := rv.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int {
		switch a.Kind() {
		case reflect.String:
			return strings.Compare(a.String(), b.String())
		case reflect.Bool:
			return boolInt(a.Bool()) - boolInt(b.Bool())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return cmpInt(a.Int(), b.Int())
		}
		return cmpInt(a.Uint(), b.Uint())
	})
	return keys
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpInt[T int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

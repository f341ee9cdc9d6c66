package model

// ZeroTime says what a field's value holds in its struct's zero value
// where that is not 0: a time.Time (alone, or in arrays of arrays of
// it) whose tag encodes Go's zero time as TimeZero, not 0. lens are the
// lengths of the arrays around the time, outermost first; ok is false
// for every other value, a time whose TimeZero is 0, one in an array of
// no elements, and one behind a slice, pointer, sparse array or map (the
// zero value holds none of those). A struct field's own type holds its
// own times.
func ZeroTime(v *Value) (zero int64, lens []int, ok bool) {
	for ; v.Op == OpArray; v = v.Elem {
		if v.Len == 0 {
			return 0, nil, false
		}
		lens = append(lens, v.Len)
	}
	if v.Op != OpInt || !v.Time {
		return 0, nil, false
	}
	zero = TimeZero(v)
	return zero, lens, zero != 0
}

// ZeroTimes reports whether a field of the model's struct types holds a
// time whose zero value is not 0 (see ZeroTime).
func (m *Model) ZeroTimes() bool {
	for _, t := range m.Types {
		for _, f := range t.Fields {
			if _, _, ok := ZeroTime(f.Value); ok {
				return true
			}
		}
	}
	return false
}

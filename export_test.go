package bitpack

import (
	"reflect"

	"github.com/bitpack-go/bitpack/bitio"
)

// CompileCount reports how many times the plan of t was compiled.
func CompileCount(t reflect.Type) int64 {
	n, ok := compiles.Load(t)
	if !ok {
		return 0
	}
	return *n.(*int64)
}

// ScratchKept reports whether t's plan holds a scratch value for its next
// decode.
func ScratchKept(t reflect.Type) bool {
	p, err := planOf(t)
	return err == nil && p.spare.Load() != nil
}

// ScratchHoldsBuffers reports whether t's kept scratch value holds
// anything a decode allocated into it: a slice's backing array, a
// string, a pointee.
func ScratchHoldsBuffers(t reflect.Type) bool {
	p, err := planOf(t)
	if err != nil {
		return false
	}
	s := p.spare.Load()
	if s == nil {
		return false
	}
	v := reflect.ValueOf(s.v).Elem()
	holds := false
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Slice:
			holds = holds || v.Cap() > 0
		case reflect.String:
			holds = holds || v.Len() > 0
		case reflect.Pointer, reflect.Interface, reflect.Map:
			holds = holds || !v.IsNil()
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	walk(v)
	return holds
}

// DeltaBits is AppendDelta(nil, base, v) that also reports how many bits
// of the packet the delta takes (the rest of its last byte is padding).
func DeltaBits(base, v any) ([]byte, int, error) {
	p, t, pb, pv, err := deltaArgs(base, v, "DeltaBits", false)
	if err != nil {
		return nil, 0, err
	}
	var w bitio.Writer
	w.Reset(nil)
	e := deltaEncoder{w: &w}
	e.check.budget = budget{workLimit: saturated, bytesLimit: saturated}
	ferr := e.root(p, pv, pb)
	if ferr == nil {
		ferr = e.allowance()
	}
	if ferr != nil {
		return nil, 0, publicError("encode", t, ferr)
	}
	return w.Bytes(), w.BitsWritten(), nil
}

// DecodesOnStack reports whether a value of t decodes on the stack (see
// stackPlan).
func DecodesOnStack(t reflect.Type) bool {
	p, err := planOf(t)
	return err == nil && p.onStack
}

// UnmarshalOffStack is Unmarshal through a plan of its own that does not
// decode on the stack (the scratch value's path), for comparisons.
func UnmarshalOffStack(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	p, err := compile(rv.Type().Elem())
	if err != nil {
		return err
	}
	p.onStack = false
	return unmarshalPlan(data, p, p.typ, pointerOf(rv))
}

// RulesVersion is rulesVersion (see Layout.Hash).
const RulesVersion = rulesVersion

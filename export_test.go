package bitpack

import "reflect"

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

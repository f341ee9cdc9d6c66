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

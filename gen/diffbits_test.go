package gen

import (
	"reflect"

	"github.com/google/go-cmp/cmp"

	"github.com/bitpack-go/bitpack/internal/deepbits"
)

// diffBits is go-cmp's Diff of x and y with opts, or "" at once where
// they are identical bit for bit (deepbits.Identical, which is never more
// lenient than go-cmp's options here: floats by bits, NaNs equated,
// time.Time's Equal). The decode comparisons took ten times as long with
// go-cmp alone.
func diffBits(x, y any, opts ...cmp.Option) string {
	a, b := reflect.ValueOf(x), reflect.ValueOf(y)
	if a.IsValid() && b.IsValid() && a.Type() == b.Type() && deepbits.Identical(a, b) {
		return ""
	}
	return cmp.Diff(x, y, opts...)
}

package bitpack_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// TestNilAndZeroReceivers calls every exported method of *Union and
// *Codec[T] — found by reflection, so methods added later are covered —
// on a nil receiver and on a zero value (&Union{}, &Codec[T]{}), with zero
// arguments. None may panic; on a nil receiver every method that returns
// an error returns a non-nil one, and so does every method of a zero value
// that encodes or decodes (they have no plan to run).
func TestNilAndZeroReceivers(t *testing.T) {
	for _, recv := range []reflect.Value{
		reflect.Zero(reflect.TypeFor[*bitpack.Union]()),
		reflect.ValueOf(&bitpack.Union{}),
		reflect.Zero(reflect.TypeFor[*bitpack.Codec[Player]]()),
		reflect.ValueOf(&bitpack.Codec[Player]{}),
	} {
		typ := recv.Type()
		if typ.NumMethod() < 5 {
			t.Fatalf("%s has %d methods: reflection is not seeing them", typ, typ.NumMethod())
		}
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			name := fmt.Sprintf("(%s).%s on %s", typ, m.Name, map[bool]string{true: "a nil receiver", false: "a zero value"}[recv.IsNil()])
			args := []reflect.Value{recv}
			for k := 1; k < m.Type.NumIn(); k++ {
				args = append(args, reflect.Zero(m.Type.In(k)))
			}
			var out []reflect.Value
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("%s panicked: %v", name, p)
					}
				}()
				out = m.Func.Call(args)
			}()
			if len(out) == 0 {
				continue
			}
			last := out[len(out)-1]
			if last.Type() != reflect.TypeFor[error]() {
				continue
			}
			if last.IsNil() {
				t.Errorf("%s returned a nil error", name)
				continue
			}
			// The receiver is named first, whatever else is wrong.
			want := map[string]string{
				"Union true":  "bitpack: method called on a nil *Union (use NewUnion)",
				"Union false": "bitpack: method called on a Union with no members (use NewUnion)",
				"Codec true":  "bitpack: method called on a nil *Codec (use NewCodec)",
				"Codec false": "bitpack: method called on a zero Codec (use NewCodec)",
			}[strings.Split(typ.Elem().Name(), "[")[0]+" "+fmt.Sprint(recv.IsNil())]
			if got := last.Interface().(error).Error(); got != want {
				t.Errorf("%s: error %q, want %q", name, got, want)
			}
		}
	}
}

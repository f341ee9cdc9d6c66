package model

import (
	"reflect"

	"github.com/bitpack-go/bitpack"
)

// ZeroEncodes reports whether bitpack encodes the zero value of struct
// type t. Package snapshot asks it of a stream's type (every stream
// starts from the zero value: a nil interface, say, refuses it), so it
// says which root types a generator gives a snapshot Receiver.
func (t *Type) ZeroEncodes() bool {
	if t.Kind != TypeStruct {
		return false
	}
	_, err := bitpack.Marshal(reflect.New(t.Go).Interface())
	return err == nil
}

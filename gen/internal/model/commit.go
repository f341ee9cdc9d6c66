package model

import "reflect"

// What bitpack's commit (commit.go) does with a decoded value, which a
// generated decoder that keeps the plan's atomicity repeats: where it
// copies, and what of the caller's value it keeps.

// Complete reports whether a decode writes every field of v, through
// structs and arrays (a pointer, slice or string is written as a whole):
// nothing of v is kept off the wire. It is the plan's isComplete
// (commit.go).
func Complete(v *Value) bool {
	switch v.Op {
	case OpArray:
		return Complete(v.Elem)
	case OpStruct, OpFields:
		uses := FieldUses(v)
		if len(uses) != v.Go.NumField() {
			return false
		}
		for _, u := range uses {
			if !Complete(u.Value) {
				return false
			}
		}
	}
	return true
}

// HasPointers reports whether a value of t holds a pointer (bitpack's
// hasPointers, for the types gen.Go generates).
func HasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	case reflect.Array:
		return t.Len() > 0 && HasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if HasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

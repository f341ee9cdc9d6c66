package snapshot

import (
	"fmt"
	"math/bits"
	"reflect"
	"strings"
	"unsafe"

	"github.com/bitpack-go/bitpack"
)

// setKind is the shape of an entity set.
type setKind uint8

const (
	setArray setKind = iota // sparse [N]*E
	setSlice                // sparse []*E
	setMap                  // map[K]V, K an integer; V the entity (a *E or a value)
)

// entitySet is one field of Options.Entities, resolved against T.
type entitySet struct {
	path   string
	kind   setKind
	offset uintptr      // of the field within T
	typ    reflect.Type // the field's type
	elem   reflect.Type // the entity's type: E for *E slots and *E map values, V for other map values
	ptrs   bool         // map values are pointers (slots always are)
	n      int          // an array's length, a slice's or map's maxlen
	layout *bitpack.Field
	cmp    *comparer // nil: entities cannot be compared in memory
	memo   bool      // the entity holds no pointers: the Sender remembers what it sent (see memo)
	size   uintptr   // elem's size

	// Bits the Sender plans with (see budget.go): an entity entering (its
	// encoding whole) and its overhead in the delta (its index, its form
	// bit), both upper bounds while the layout bounds them.
	wholeBits, overheadBits int
}

// resolveEntities resolves opts.Entities against T and its layout.
func resolveEntities(t reflect.Type, root *bitpack.Field, paths []string) ([]*entitySet, error) {
	var sets []*entitySet
	seen := map[string]bool{}
	for _, path := range paths {
		if seen[path] {
			return nil, fmt.Errorf("snapshot: Entities lists %q twice", path)
		}
		seen[path] = true
		s, err := resolveEntity(t, root, path)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	return sets, nil
}

// resolveEntity finds path's field in t, through struct fields (embedded
// ones too) held by value, and checks that it is an entity set on the
// wire.
func resolveEntity(t reflect.Type, root *bitpack.Field, path string) (*entitySet, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("snapshot: Entities path %q in %s: %s", path, t, fmt.Sprintf(format, args...))
	}
	if path == "" {
		return nil, bad("empty")
	}
	cur, node := t, root
	var off uintptr
	var f reflect.StructField
	for i, name := range strings.Split(path, ".") {
		if cur.Kind() != reflect.Struct {
			return nil, bad("%s is a %s, not a struct", strings.Join(strings.Split(path, ".")[:i], "."), cur)
		}
		var ok bool
		if f, ok = cur.FieldByName(name); !ok {
			return nil, bad("%s has no field %s", cur, name)
		}
		if !f.IsExported() {
			return nil, bad("field %s is unexported", name)
		}
		// Walk the field's index path (more than one step for a field
		// promoted from an embedded struct), in memory and in the layout.
		for _, x := range f.Index {
			sf := cur.Field(x)
			if sf.Type.Kind() == reflect.Pointer && sf.Anonymous {
				return nil, bad("%s is reached through the embedded pointer %s", name, sf.Name)
			}
			off += sf.Offset
			node = childOf(node, x)
			if node == nil {
				return nil, bad("field %s is not on the wire (bits:\"-\")", sf.Name)
			}
			cur = sf.Type
		}
	}
	s := &entitySet{path: path, offset: off, typ: cur, layout: node}
	switch {
	case node.Kind == bitpack.KindSparse && cur.Kind() == reflect.Array:
		s.kind, s.elem, s.n = setArray, cur.Elem().Elem(), cur.Len()
	case node.Kind == bitpack.KindSparse:
		s.kind, s.elem, s.n = setSlice, cur.Elem().Elem(), node.MaxLen
	case node.Kind == bitpack.KindMap && isInteger(cur.Key()):
		s.kind, s.elem, s.n = setMap, cur.Elem(), node.MaxLen
		if cur.Elem().Kind() == reflect.Pointer {
			s.elem, s.ptrs = cur.Elem().Elem(), true
		}
	case node.Kind == bitpack.KindMap:
		return nil, bad("a map with %s keys: an entity set's map has integer keys", cur.Key())
	default:
		return nil, bad("a %s (%s): an entity set is a sparse [N]*E array, a sparse []*E slice or a map with integer keys", cur, node.Kind)
	}
	s.size = s.elem.Size()
	s.cmp = newComparer(entityLayout(s))
	s.memo = s.cmp != nil && s.kind != setMap && pointerFree(s.elem)
	s.wholeBits, s.overheadBits = entityBits(s)
	return s, nil
}

// entityLayout returns the layout of the set's entity: E for slots and
// pointer map values, V for other map values.
func entityLayout(s *entitySet) *bitpack.Field {
	if s.kind == setMap && s.ptrs {
		return s.layout.Elem.Elem
	}
	return s.layout.Elem
}

// childOf returns the layout of field x of the struct node describes, nil
// when that field is not on the wire.
func childOf(node *bitpack.Field, x int) *bitpack.Field {
	for _, c := range node.Fields {
		if len(c.Index) == 1 && c.Index[0] == x {
			return c
		}
	}
	return nil
}

func isInteger(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// maxIndexBits is the most bits an int_relative takes (six flags and 32
// raw bits: docs/wire.md).
const maxIndexBits = 38

// entityBits returns the bits of one entity entering whole (-1 when its
// layout has no bound), and the bits the delta adds around an entity: its
// index or key, the bit that says removed or changed, and the list's end.
func entityBits(s *entitySet) (whole, overhead int) {
	whole = s.layout.Elem.MaxBits // a map's pointer values: with their presence bit
	switch s.kind {
	case setMap:
		overhead = 1 + s.layout.Key.MaxBits + 1 + 1 // entry bit, key, changed bit, the list's end
		if s.layout.Key.MaxBits < 0 {
			overhead = -1
		}
	case setSlice:
		// index, changed bit, end marker; resized bit and length
		overhead = maxIndexBits + 1 + maxIndexBits + 1 + bits.Len(uint(s.n))
	default:
		overhead = maxIndexBits + 1 + maxIndexBits // index, changed bit, end marker
	}
	return whole, overhead
}

// The slots of sparse arrays and slices, read and written as pointers
// (the element type does not matter: only the pointers move).

// slots returns the slots of an array or slice set of the value at base.
func (s *entitySet) slots(base unsafe.Pointer) []unsafe.Pointer {
	p := unsafe.Add(base, s.offset)
	if s.kind == setArray {
		return unsafe.Slice((*unsafe.Pointer)(p), s.n)
	}
	return *(*[]unsafe.Pointer)(p)
}

// setSlots sets a slice set's slice in the value at base.
func (s *entitySet) setSlots(base unsafe.Pointer, v []unsafe.Pointer) {
	*(*[]unsafe.Pointer)(unsafe.Add(base, s.offset)) = v
}

// mapOf returns a map set's map in the value at base.
func (s *entitySet) mapOf(base unsafe.Pointer) reflect.Value {
	return reflect.NewAt(s.typ, unsafe.Add(base, s.offset)).Elem()
}

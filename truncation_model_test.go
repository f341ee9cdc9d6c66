package bitpack_test

import (
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// A model of how a decoder refuses a truncated packet, written from
// docs/wire.md ("Truncated packets" and "Limits of the Go decoder") and
// independent of the decoder under test: it walks a type's layout
// (Describe) over the packet with bitio's primitives, charging the
// allowances with the figures the layout exports (Field.Charge), and
// reports the first refusal the rules name. Packets here are prefixes of
// valid packets, so every bit present is valid: the refusals are a read
// past the end, a count the bits left cannot hold, and the allowances.

// truncRefusal is a refusal as a path, a bit and words.
type truncRefusal struct {
	path   string
	bit    int
	detail string
}

func (r truncRefusal) String() string {
	return fmt.Sprintf("field %s at bit %d: %s", r.path, r.bit, r.detail)
}

// modelRefusal reports where the model refuses packet for layout l, or
// false when it reads the whole value. fresh: the decode makes a new value
// (Union.Unmarshal), which it charges, and nothing twice.
func modelRefusal(l bitpack.Layout, packet []byte, fresh bool) (truncRefusal, bool) {
	var r bitio.Reader
	r.Reset(packet)
	bits := int64(8 * len(packet))
	m := truncModel{r: &r, fresh: fresh, workLimit: 4096 + 64*bits, bytesLimit: 1<<20 + 64*bits, bytes: 1024}
	rootBytes := int64(0)
	if fresh {
		rootBytes = roundAllocModel(l.Root.Charge.Bytes)
	}
	ref := m.charge(l.Root.Charge.Work, rootBytes, 1, l.Root.Charge.Bytes, "", 0)
	if ref == nil {
		ref = m.value(l.Root, "")
	}
	if ref == nil {
		return truncRefusal{}, false
	}
	return *ref, true
}

type truncModel struct {
	r                 *bitio.Reader
	fresh             bool
	workLimit, work   int64
	bytesLimit, bytes int64
}

// charge spends work values and bytes bytes — n values of size bytes, for
// the words — or refuses them at bit.
func (m *truncModel) charge(work, bytes int64, n int, size int64, path string, bit int) *truncRefusal {
	switch {
	case work > m.workLimit-m.work:
		return &truncRefusal{path: path, bit: bit, detail: fmt.Sprintf("%d values would take the decode past the %d values it may visit for this input (4096 plus 64 per bit): the packet claims more values than its bits can pay for", min(work, 1<<53-1), m.workLimit)}
	case bytes > m.bytesLimit-m.bytes:
		what := fmt.Sprintf("%d values of %d bytes", n, size)
		if n == 1 {
			what = fmt.Sprintf("a value of %d bytes", size)
		}
		return &truncRefusal{path: path, bit: bit, detail: fmt.Sprintf("%s would take the decode past the %d bytes it may allocate for this input (1 MiB plus 64 bytes per bit)", what, m.bytesLimit)}
	}
	m.work += work
	m.bytes += bytes
	return nil
}

// roundAllocModel is docs/wire.md's rounding of an allocation of n bytes.
func roundAllocModel(n int64) int64 {
	switch {
	case n <= 0:
		return 0
	case n <= 16:
		return 16
	case n > 32<<10:
		return (n + 8<<10 - 1) / (8 << 10) * (8 << 10)
	}
	step := int64(1) << (bits.Len64(uint64(n)) - 2)
	return (n + step - 1) / step * step
}

// failed turns the Reader's error into the refusal of the field at path.
func (m *truncModel) failed(path string) *truncRefusal {
	var be *bitio.Error
	if !errors.As(m.r.Err(), &be) {
		panic(fmt.Sprintf("model: a read at %s failed with %v", path, m.r.Err()))
	}
	return &truncRefusal{path: path, bit: be.Bit, detail: be.Detail}
}

// read reads n bits of the field at path.
func (m *truncModel) read(n int, path string) (uint64, *truncRefusal) {
	v := m.r.ReadBits(n)
	if m.r.Err() != nil {
		return 0, m.failed(path)
	}
	return v, nil
}

func lengthBits(maxlen int) int { return bits.Len64(uint64(maxlen)) }

// countRefusal is the up-front check of n values of at least each bits
// (a slice's elements, a map's entries) against the bits left.
func (m *truncModel) countRefusal(n int, each int64, what, path string) *truncRefusal {
	rest := m.r.BitsRemaining()
	need := min(int64(n)*each, 1<<53-1) // n < 2^31 and each < 2^31 here: exact
	if n == 0 || each == 0 || need <= int64(rest) {
		return nil
	}
	noun, verb := what, "needs"
	switch {
	case n > 1 && what == "entry":
		noun, verb = "entries", "need"
	case n > 1:
		noun, verb = what+"s", "need"
	}
	return &truncRefusal{path: path, bit: m.r.BitsRead(), detail: fmt.Sprintf("%d %s %s at least %d bits, %d remain", n, noun, verb, need, rest)}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// value reads a value of f, the field at path.
func (m *truncModel) value(f *bitpack.Field, path string) *truncRefusal {
	r := m.r
	switch f.Kind {
	case bitpack.KindBool, bitpack.KindInt, bitpack.KindUint, bitpack.KindFloat, bitpack.KindCompressedFloat:
		_, ref := m.read(f.Bits, path)
		return ref
	case bitpack.KindQuat:
		for _, n := range []int{2, f.Bits, f.Bits, f.Bits} { // the index, then three codes
			if _, ref := m.read(n, path); ref != nil {
				return ref
			}
		}
	case bitpack.KindString, bitpack.KindBytes, bitpack.KindByteArray:
		return m.byteKinds(f, path)
	case bitpack.KindArray:
		for i := 0; i < f.Len; i++ {
			if ref := m.value(f.Elem, path+"["+strconv.Itoa(i)+"]"); ref != nil {
				return ref
			}
		}
	case bitpack.KindSlice:
		return m.slice(f, path)
	case bitpack.KindPointer:
		start := r.BitsRead()
		present, ref := m.read(1, path)
		if ref != nil || present == 0 {
			return ref
		}
		e := f.Elem.Charge
		if ref := m.charge(e.Work, roundAllocModel(e.Bytes), 1, e.Bytes, path, start); ref != nil {
			return ref
		}
		return m.value(f.Elem, path)
	case bitpack.KindStruct:
		for _, c := range f.Fields {
			if ref := m.value(c, join(path, c.Name)); ref != nil {
				return ref
			}
		}
	case bitpack.KindSparse:
		return m.sparse(f, path)
	case bitpack.KindUnion:
		start := r.BitsRead()
		idx, ref := m.read(f.Bits, path)
		if ref != nil {
			return ref
		}
		for i, wire := range f.MemberIndex {
			if uint64(wire) == idx {
				e := f.Members[i].Charge
				if ref := m.charge(e.Work, roundAllocModel(e.Bytes), 1, e.Bytes, path, start); ref != nil {
					return ref
				}
				return m.value(f.Members[i], path)
			}
		}
		panic("model: no member of index " + strconv.Itoa(int(idx)))
	case bitpack.KindCheck:
		if r.Align(); r.Err() != nil {
			return m.failed(path)
		}
		_, ref := m.read(32, path)
		return ref
	case bitpack.KindMap:
		return m.mapValue(f, path)
	default:
		panic("model: no " + f.Kind.String())
	}
	return nil
}

// byteKinds reads a string, []byte or [N]byte.
func (m *truncModel) byteKinds(f *bitpack.Field, path string) *truncRefusal {
	r := m.r
	start := r.BitsRead()
	switch f.Kind {
	case bitpack.KindString:
		s := r.ReadStringBytes(f.MaxLen)
		if r.Err() != nil {
			return m.failed(path)
		}
		return m.charge(0, roundAllocModel(int64(len(s))), 1, int64(len(s)), path, start)
	case bitpack.KindBytes:
		n, ref := m.read(lengthBits(f.MaxLen), path)
		if ref != nil {
			return ref
		}
		if r.Align(); r.Err() != nil {
			return m.failed(path)
		}
		if rest := r.BitsRemaining() / 8; int(n) > rest {
			return &truncRefusal{path: path, bit: start, detail: fmt.Sprintf("needs %d bytes, %d remain", n, rest)}
		}
		if ref := m.charge(0, roundAllocModel(int64(n)), 1, int64(n), path, start); ref != nil {
			return ref
		}
		r.Skip(8 * int(n))
	default:
		if r.ReadBytes(make([]byte, f.Len)); r.Err() != nil {
			return m.failed(path)
		}
	}
	return nil
}

// slice reads a slice: its length, the count check, its charge, its
// elements.
func (m *truncModel) slice(f *bitpack.Field, path string) *truncRefusal {
	start := m.r.BitsRead()
	n, ref := m.read(lengthBits(f.MaxLen), path)
	if ref != nil {
		return ref
	}
	if ref := m.countRefusal(int(n), leastBits(f.Elem), "element", path); ref != nil {
		return ref
	}
	e := f.Elem.Charge
	bytes := roundAllocModel(int64(n) * e.Bytes)
	if e.Partial && !m.fresh {
		bytes *= 2
	}
	each := e.Work
	if leastBits(f.Elem) == 0 {
		each = max(each, 64) // an element of no bits: one bit's worth
	}
	if ref := m.charge(int64(n)*each, bytes, int(n), e.Bytes, path, start); ref != nil {
		return ref
	}
	for i := 0; i < int(n); i++ {
		if ref := m.value(f.Elem, path+"["+strconv.Itoa(i)+"]"); ref != nil {
			return ref
		}
	}
	return nil
}

// sparse reads a sparse array or slice.
func (m *truncModel) sparse(f *bitpack.Field, path string) *truncRefusal {
	r := m.r
	n := f.Len
	if f.Type.Kind() == reflect.Slice {
		start := r.BitsRead()
		v, ref := m.read(lengthBits(f.MaxLen), path)
		if ref != nil {
			return ref
		}
		n = int(v)
		if ref := m.charge((int64(n)+7)/8, roundAllocModel(8*int64(n)), n, 8, path, start); ref != nil {
			return ref
		}
	}
	for prev := int32(-1); ; {
		start := r.BitsRead()
		idx := r.ReadIntRelative(prev)
		if r.Err() != nil {
			return m.failed(path)
		}
		if int(idx) == n {
			return nil
		}
		elem := path + "[" + strconv.Itoa(int(idx)) + "]"
		e := f.Elem.Charge
		if ref := m.charge(e.Work, roundAllocModel(e.Bytes), 1, e.Bytes, elem, start); ref != nil {
			return ref
		}
		if ref := m.value(f.Elem, elem); ref != nil {
			return ref
		}
		prev = idx
	}
}

// mapValue reads a map: its count, the count check, its charge, its
// entries.
func (m *truncModel) mapValue(f *bitpack.Field, path string) *truncRefusal {
	start := m.r.BitsRead()
	n, ref := m.read(lengthBits(f.MaxLen), path)
	if ref != nil {
		return ref
	}
	if ref := m.countRefusal(int(n), leastBits(f.Key)+leastBits(f.Elem), "entry", path); ref != nil {
		return ref
	}
	if n > 0 {
		k, v := f.Key.Charge, f.Elem.Charge
		slot := k.Bytes + v.Bytes + 1
		bytes := roundAllocModel(256 + int64(n)*5*slot)
		if !m.fresh {
			bytes *= 2
		}
		if ref := m.charge(int64(n)*(k.Work+v.Work), bytes, int(n), slot, path, start); ref != nil {
			return ref
		}
	}
	for k := 0; k < int(n); k++ {
		key, ref := m.key(f.Key, path+"[key "+strconv.Itoa(k)+"]")
		if ref != nil {
			return ref
		}
		if ref := m.value(f.Elem, path+"["+key+"]"); ref != nil {
			return ref
		}
	}
	return nil
}

// key reads a map key of f and returns it as refusals name it.
func (m *truncModel) key(f *bitpack.Field, path string) (string, *truncRefusal) {
	switch f.Kind {
	case bitpack.KindString:
		b := m.r.ReadStringBytes(f.MaxLen)
		if m.r.Err() != nil {
			return "", m.failed(path)
		}
		return strconv.Quote(string(b)), nil
	case bitpack.KindBool:
		v, ref := m.read(1, path)
		return strconv.FormatBool(v == 1), ref
	case bitpack.KindUint:
		v, ref := m.read(f.Bits, path)
		return strconv.FormatUint(f.UintMin+v, 10), ref
	case bitpack.KindInt:
		v, ref := m.read(f.Bits, path)
		if f.Ranged {
			return strconv.FormatInt(f.IntMin+int64(v), 10), ref
		}
		return strconv.FormatInt(int64(v<<(64-f.Bits))>>(64-f.Bits), 10), ref
	}
	panic("model: no key of " + f.Kind.String())
}

// leastBits is the figure a count is checked with (docs/wire.md): the
// fewest bits a value of f takes, a union counted as its index alone and
// a hook as none.
func leastBits(f *bitpack.Field) int64 {
	switch f.Kind {
	case bitpack.KindBool, bitpack.KindInt, bitpack.KindUint, bitpack.KindFloat, bitpack.KindCompressedFloat,
		bitpack.KindUnion:
		return int64(f.Bits)
	case bitpack.KindQuat:
		return 2 + 3*int64(f.Bits)
	case bitpack.KindString, bitpack.KindBytes, bitpack.KindSlice, bitpack.KindMap:
		return int64(lengthBits(f.MaxLen))
	case bitpack.KindByteArray:
		return 8 * int64(f.Len)
	case bitpack.KindArray:
		return int64(f.Len) * leastBits(f.Elem)
	case bitpack.KindPointer:
		return 1
	case bitpack.KindStruct:
		var n int64
		for _, c := range f.Fields {
			n += leastBits(c)
		}
		return n
	case bitpack.KindSparse:
		if f.Type.Kind() == reflect.Slice {
			return int64(lengthBits(f.MaxLen)) + 1
		}
		return relativeBitsOf(f.Len + 1)
	case bitpack.KindCheck:
		return 32
	case bitpack.KindCustom:
		return 0
	}
	panic("model: no " + f.Kind.String())
}

// relativeBitsOf is the size of int_relative for a difference d >= 1 (the
// table in docs/wire.md).
func relativeBitsOf(d int) int64 {
	for i, hi := range []int{1, 6, 23, 280, 4377, 69914} {
		if d <= hi {
			return []int64{1, 5, 8, 13, 18, 23}[i]
		}
	}
	return 38
}

package bitpack

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Kind says how a field travels on the wire.
type Kind uint8

const (
	KindBool            Kind = iota + 1 // 1 bit
	KindInt                             // signed integer: raw two's complement, or ranged (Field.Ranged)
	KindUint                            // unsigned integer: raw, or ranged
	KindFloat                           // raw IEEE-754 float32/float64
	KindCompressedFloat                 // quantized float: FloatMin, FloatMax, Res
	KindString                          // length prefix, align, bytes (MaxLen)
	KindBytes                           // []byte: length prefix, align, bytes (MaxLen)
	KindByteArray                       // [Len]byte: align, Len bytes
	KindArray                           // Len elements of Elem
	KindSlice                           // length prefix, then elements of Elem (MaxLen)
	KindPointer                         // presence bit, then Elem
	KindStruct                          // Fields in order
	KindQuat                            // smallest-three quaternion, Bits per component
	KindCustom                          // MarshalBits / UnmarshalBits
	KindSparse                          // []*T (MaxLen) or [Len]*T: indices of the non-nil elements, Elem = T
	KindUnion                           // interface field: type index (Bits), then one of Members
	KindCheck                           // serialize check: align, 32-bit hash of CheckName
	KindMap                             // count (MaxLen), then entries in ascending key order: Key, then Elem
	KindTime                            // time.Time: its Unix time in units of Unit, a signed integer (Ranged, IntMin, IntMax, Bits)

	kindCount // (not a kind: the size of the kinds table)
)

func (k Kind) String() string {
	if k > 0 && k < kindCount {
		return kinds[k].name
	}
	if k == 0 {
		return "invalid"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Field is one node of a type's wire layout, as compiled from its tags.
// Layouts are trees: struct nodes hold their encoded fields, and array,
// slice and pointer nodes their element. A recursive type's layout is a
// graph (an Elem leads back to an ancestor), so walk it with a visited set.
type Field struct {
	Name  string       // the Go field name; "" for the top-level value and for elements
	Index []int        // index in the parent struct, for reflect.Value.FieldByIndex; nil otherwise
	Type  reflect.Type // the Go type
	Kind  Kind

	Bits             int     // fixed width: bool 1, raw/ranged integers, code bits, quat bits per component
	Ranged           bool    // integers: range=A..B (else raw two's complement / unsigned)
	IntMin, IntMax   int64   // KindInt: the range, or the raw width's range
	UintMin, UintMax uint64  // KindUint: the range, or the raw width's range
	FloatMin         float64 // KindCompressedFloat: the tag's bounds and resolution
	FloatMax         float64
	Res              float64
	Clamp            bool  // KindCompressedFloat, KindInt, KindUint, KindTime: clamp out-of-range values on encode
	Unit             int64 // KindInt, KindUint with unit=, KindTime: the Go value of one unit on the wire, in nanoseconds for a time (0: none)
	MaxLen           int   // KindString, KindBytes, KindSlice, KindSparse slices, KindMap
	Len              int   // KindArray, KindByteArray

	Fields []*Field // KindStruct
	Elem   *Field   // KindArray, KindSlice, KindPointer, KindMap (its values); KindSparse: the pointee
	Key    *Field   // KindMap: its keys

	// KindQuat: where x, y, z and w are within the value, each a path of
	// steps: a field index in a struct, an element index in an array
	// (mathgl's Quat{W; V Vec3} has x at {1, 0} and w at {0}).
	QuatPaths [4][]int

	// KindUnion: the member layouts in index order, and the Go type each
	// decodes to (T, or *T for members registered as pointers).
	Members     []*Field
	MemberTypes []reflect.Type
	MemberIndex []int // the type index of each on the wire
	union       *Union

	CheckName string // KindCheck
	CheckHash uint32

	// MinBits and MaxBits bound the field's size on the wire. MaxBits is -1
	// when unbounded (recursive types, custom hooks). Alignment padding is
	// counted as 0..7 bits because it depends on where the field starts.
	MinBits, MaxBits int

	// CountBits is the fewest bits a value takes with a union counted as
	// its index alone and a hook as none, at most 2^53-1: the figure a
	// decoder checks a count of these against (a slice's elements; a
	// map's keys and values, added) before reading them (docs/wire.md,
	// "Truncated packets"). MinBits counts a union's cheapest member too.
	CountBits int64

	// Charge is what the Go decoder's allowances charge for a value of
	// this node that it allocates or visits on its own (see Charge): set
	// on the top-level value, the elements of slices and sparse fields,
	// pointees, union members, map keys and values, and hooks; zero on
	// struct fields and array elements otherwise, which are charged with
	// the value that holds them. What a slice charges for each of its
	// elements is its EachCharge.
	Charge Charge
}

// Layout describes how a type travels on the wire: its field tree and the
// smallest and largest packet it can produce.
type Layout struct {
	Type    reflect.Type
	Root    *Field
	MinBits int
	MaxBits int // -1: unbounded
}

// Describe compiles (or fetches) the plan of v's type — the pointee for a
// pointer — and returns its layout. Tag errors surface here as they would
// from Marshal.
func Describe(v any) (Layout, error) {
	t := reflect.TypeOf(v)
	if t == nil {
		return Layout{}, fmt.Errorf("bitpack: Describe(nil)")
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	p, err := planOf(t)
	if err != nil {
		return Layout{}, err
	}
	return layoutOf(p)
}

// Layout returns the wire layout of T. (Its plan compiled in NewCodec, so
// only a union member that fails to compile can make it empty.)
func (c *Codec[T]) Layout() Layout {
	if c == nil || c.plan == nil {
		return Layout{}
	}
	l, _ := layoutOf(c.plan)
	return l
}

// layoutOf returns p's layout: a copy of the one p keeps (see
// plan.layout), so that nothing a caller does to it reaches the plan, its
// Fingerprint, or another caller's layout.
func layoutOf(p *plan) (Layout, error) {
	l, err := p.layout()
	if err != nil {
		return Layout{}, err
	}
	root, _ := cloneField(l.Root, map[*Field]*Field{}, nil)
	return Layout{Type: l.Type, Root: root, MinBits: l.MinBits, MaxBits: l.MaxBits}, nil
}

// layout returns p's full layout, built on first use and then kept: the
// plan's own tree copied, with the members of its unions attached (they
// compile lazily: see Union) and the sizes of every node computed. A
// member that does not compile yet (an interface not registered) is an
// error, not kept: a registration may cure it.
func (p *plan) layout() (*Layout, error) {
	if l := p.described.Load(); l != nil {
		return l, nil
	}
	root, err := cloneField(p.root, map[*Field]*Field{}, attachMembers)
	if err != nil {
		return nil, err
	}
	mins, maxs := minsOf(root), map[*Field]int64{}
	for f, min := range mins { // every node
		f.MinBits = sizeInt(min)
		if f.MaxBits = sizeInt(maxOf(f, map[*Field]bool{}, maxs)); f.MaxBits == unbounded {
			f.MaxBits = -1
		}
	}
	l := &Layout{Type: p.typ, Root: root, MinBits: root.MinBits, MaxBits: root.MaxBits}
	p.described.CompareAndSwap(nil, l)
	return p.described.Load(), nil
}

// cloneField copies the layout graph from f (a recursive type's is a
// graph: copies keeps it one), calling attach on each union node copied.
func cloneField(f *Field, copies map[*Field]*Field, attach func(*Field, map[*Field]*Field) error) (*Field, error) {
	if f == nil {
		return nil, nil
	}
	if c, ok := copies[f]; ok {
		return c, nil
	}
	c := new(Field)
	*c = *f
	copies[f] = c
	c.Index = append([]int(nil), f.Index...)
	c.Fields = make([]*Field, len(f.Fields))
	var err error
	for i, x := range f.Fields {
		if c.Fields[i], err = cloneField(x, copies, attach); err != nil {
			return nil, err
		}
	}
	if c.Elem, err = cloneField(f.Elem, copies, attach); err != nil {
		return nil, err
	}
	if c.Key, err = cloneField(f.Key, copies, attach); err != nil {
		return nil, err
	}
	c.Members, c.MemberTypes = make([]*Field, len(f.Members)), append([]reflect.Type(nil), f.MemberTypes...)
	c.MemberIndex = append([]int(nil), f.MemberIndex...)
	for i, m := range f.Members {
		if c.Members[i], err = cloneField(m, copies, attach); err != nil {
			return nil, err
		}
	}
	if f.Fields == nil {
		c.Fields = nil
	}
	if f.Members == nil {
		c.Members = nil
	}
	if attach != nil && c.Kind == KindUnion && c.Members == nil {
		if err := attach(c, copies); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// attachMembers attaches copies of the member layouts of union node f.
func attachMembers(f *Field, copies map[*Field]*Field) error {
	u := f.union
	if u == nil {
		return nil
	}
	for i := range u.members {
		mp, err := u.member(i)
		if err != nil {
			return err
		}
		m, err := cloneField(mp.root, copies, attachMembers)
		if err != nil {
			return err
		}
		f.Members = append(f.Members, m)
		f.MemberTypes = append(f.MemberTypes, u.members[i].form())
		f.MemberIndex = append(f.MemberIndex, int(u.members[i].index))
	}
	return nil
}

// Unrolled reports whether f is an array the plan compiler unrolls into
// its parent's ops (one of at most unrollLimit ops in all) rather than
// looping over a plan of its element. The wire is the same either way,
// but a delta places one refusal by it: an unrolled array's listed
// element that changes nothing is refused where it is read, any other
// array's with the whole list (docs/wire.md, Delta encoding).
func (f *Field) Unrolled() bool {
	return f.Kind == KindArray && f.Len*opsOf(f.Elem) <= unrollLimit
}

// DeltaItem reports whether f, a value that is not a struct, is an item
// of the delta of the struct that holds it: a value that can change. A
// serialize check, a fixed-width value of no bits (a time.Time among
// them: in a delta it is the integer of its units) and an array of no
// elements, or of elements without items, hold one value only, and are
// not. (A struct's items are its fields', recursively.)
func (f *Field) DeltaItem() bool {
	switch {
	case f.Kind == KindCheck:
		return false
	case f.Kind == KindArray:
		return f.Len > 0 && hasDeltaItems(f.Elem)
	case f.Kind > 0 && f.Kind < kindCount && kinds[f.Kind].fixed, f.Kind == KindTime:
		return f.Bits > 0
	}
	return true
}

// hasDeltaItems reports whether a value of f has a delta item.
func hasDeltaItems(f *Field) bool {
	if f.Kind != KindStruct {
		return f.DeltaItem()
	}
	for _, c := range f.Fields {
		if hasDeltaItems(c) {
			return true
		}
	}
	return false
}

// Encoding describes f's wire encoding in a few words, e.g.
// "int [0, 1000]" or "compressed float [-10, 10] res 0.01".
func (f *Field) Encoding() string {
	if f.Kind > 0 && f.Kind < kindCount {
		return kinds[f.Kind].describe(f)
	}
	return f.Kind.String()
}

// Row is one line of a rendered layout.
type Row struct {
	Path     string // e.g. "Players[].Pos.X"
	Depth    int    // nesting, for indentation
	Type     reflect.Type
	Encoding string
	MinBits  int
	MaxBits  int // -1: unbounded
}

// Rows flattens the layout in wire order. Containers come before their
// contents; an element's fields appear under the container's path with
// "[]" appended. A recursive reference is one row marked "(recursive)".
func (l Layout) Rows() []Row {
	var rows []Row
	onPath := map[*Field]bool{}
	// walk emits f's row (unless it is a struct reached through a pointer
	// or at the top, whose fields speak for it) and its contents.
	var walk func(f *Field, path string, depth int, row bool)
	walk = func(f *Field, path string, depth int, row bool) {
		if onPath[f] {
			rows = append(rows, Row{Path: path, Depth: depth, Type: f.Type, Encoding: f.Encoding() + " (recursive)", MinBits: f.MinBits, MaxBits: f.MaxBits})
			return
		}
		onPath[f] = true
		defer delete(onPath, f)
		if row {
			rows = append(rows, Row{Path: path, Depth: depth, Type: f.Type, Encoding: f.Encoding(), MinBits: f.MinBits, MaxBits: f.MaxBits})
			depth++
		}
		switch f.Kind {
		case KindStruct:
			for _, c := range f.Fields {
				walk(c, joinPath(path, c.Name), depth, true)
			}
		case KindArray, KindSlice, KindSparse:
			walk(f.Elem, path+"[]", depth, true)
		case KindMap:
			walk(f.Key, path+"[key]", depth, true)
			walk(f.Elem, path+"[]", depth, true)
		case KindPointer:
			walk(f.Elem, path, depth, f.Elem.Kind != KindStruct)
		case KindUnion:
			for i, m := range f.Members {
				walk(m, path+"("+f.MemberTypes[i].String()+")", depth, true)
			}
		}
	}
	if l.Root != nil {
		walk(l.Root, "", 0, l.Root.Kind != KindStruct)
	}
	return rows
}

func bitsText(min, max int) string {
	switch {
	case max < 0:
		return fmt.Sprintf("%d–∞", min)
	case min == max:
		return strconv.Itoa(min)
	}
	return fmt.Sprintf("%d–%d", min, max)
}

func bytesText(min, max int) string {
	if max < 0 {
		return fmt.Sprintf("%d–∞ bytes", (min+7)/8)
	}
	if min == max {
		return fmt.Sprintf("%d bytes", (min+7)/8)
	}
	return fmt.Sprintf("%d–%d bytes", (min+7)/8, (max+7)/8)
}

// String renders the layout as an aligned table: one row per field with its
// path, Go type, encoding and bit cost, then the packet's size range.
func (l Layout) String() string {
	rows := l.Rows()
	head := [4]string{"field", "type", "encoding", "bits"}
	cells := make([][4]string, len(rows))
	width := [4]int{len(head[0]), len(head[1]), len(head[2]), len(head[3])}
	for i, r := range rows {
		path := strings.Repeat("  ", r.Depth) + lastSegments(r.Path, r.Depth)
		cells[i] = [4]string{path, r.Type.String(), r.Encoding, bitsText(r.MinBits, r.MaxBits)}
		for k, c := range cells[i] {
			width[k] = max(width[k], len([]rune(c)))
		}
	}
	var b strings.Builder
	name := "<nil>"
	if l.Type != nil {
		name = l.Type.String()
	}
	fmt.Fprintf(&b, "%s: %s bits, %s\n", name, bitsText(l.MinBits, l.MaxBits), bytesText(l.MinBits, l.MaxBits))
	line := func(c [4]string) {
		for k := 0; k < 3; k++ {
			b.WriteString(c[k])
			b.WriteString(strings.Repeat(" ", width[k]-len([]rune(c[k]))+2))
		}
		b.WriteString(strings.Repeat(" ", width[3]-len([]rune(c[3]))))
		b.WriteString(c[3])
		b.WriteByte('\n')
	}
	line(head)
	for _, c := range cells {
		line(c)
	}
	return b.String()
}

// lastSegments shows a nested row by its own name (its parent rows are
// printed above it); top-level rows show their full path.
func lastSegments(path string, depth int) string {
	if depth == 0 {
		return path
	}
	if strings.HasSuffix(path, ")") { // a union member: "(pkg.Type)", whose name has a dot
		if k := strings.LastIndex(path, "("); k >= 0 {
			return path[k:]
		}
	}
	i := strings.LastIndexAny(path, ".")
	j := strings.LastIndex(path, "[]")
	if j > i && j == len(path)-2 {
		return "[]"
	}
	if i >= 0 {
		return path[i+1:]
	}
	return path
}

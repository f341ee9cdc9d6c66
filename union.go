package bitpack

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/frame"
)

// Union is a set of packet types told apart by a type index: on the wire,
// the index in a fixed number of bits, then the value encoded by its own
// plan. By default the index is the member's position in NewUnion's
// arguments and its width is bits_required(0, n-1) — 0 bits for one type,
// 1 for two, 2 for three or four — which grows with the number of members,
// so adding a member can change every member's bytes. IndexBits fixes the
// width when the union is built, so that members appended later (at the
// end) leave the bytes of the others as they were; At gives members the
// indices a team's protocol already numbers its messages with. Any change
// to the members, their indices or the width changes the Fingerprint of
// every type that holds the union.
//
// Registered with RegisterUnion, a union also encodes every struct field of
// its interface type: messages inside a packet.
//
// A Union is safe for concurrent use.
type Union struct {
	members []unionMember
	byType  map[reflect.Type]int // member struct type and its pointer type -> position in members
	byIndex map[uint64]int       // wire index -> position, when indices are not the positions
	bits    int                  // the index's width
	fixed   bool                 // IndexBits or At was given: Schema says so
}

type unionMember struct {
	typ     reflect.Type // the struct type
	pointer bool         // registered as *T: decoded fields hold *T, else T
	index   uint64       // on the wire
	plan    atomic.Pointer[plan]
}

// UnionOption is an argument of NewUnion that is not a member: IndexBits or
// At.
type UnionOption struct {
	indexBits int // IndexBits: > 0
	at        int // At: the index
	member    any // At: the member
}

// IndexBits makes the union's type index n bits wide (1 to 32) whatever
// its members, leaving room for 2^n of them: members appended later keep
// the bytes of the others. A NewUnion argument.
func IndexBits(n int) UnionOption { return UnionOption{indexBits: n} }

// At gives member (a struct value or pointer, as NewUnion takes them) the
// type index index, for a protocol that numbers its messages already:
// NewUnion(At(7, Move{}), At(9, &Fire{})). Members after it without At
// take the next indices. A NewUnion argument.
func At(index int, member any) UnionOption { return UnionOption{at: index, member: member} }

// NewUnion builds a union from struct values or pointers to structs; the
// position of each is its type index, unless At says otherwise. Pointers
// register the member in pointer form (interface fields decode to *T),
// values in value form. IndexBits fixes the index's width.
//
// Every member's tags are checked here, and the first problem is returned
// as a *TagError, so that no client packet can be the first to find one.
// Fields of interface types whose union is not registered yet (the union's
// own interface, in recursive messages; or an interface registered later)
// are checked as far as they can be: a type that reaches such a field fails
// to compile, naming the interface, until its union is registered. Unions
// that refer to each other's interfaces can therefore be built and
// registered in any order.
func NewUnion(types ...any) (*Union, error) {
	u := &Union{byType: map[reflect.Type]int{}}
	next, width, seen := uint64(0), 0, map[uint64]int{}
	for i, v := range types {
		if opt, ok := v.(UnionOption); ok {
			if opt.member == nil {
				if width != 0 || opt.indexBits < 1 || opt.indexBits > 32 {
					return nil, fmt.Errorf("bitpack: NewUnion argument %d: IndexBits(%d): give it once, 1 to 32", i, opt.indexBits)
				}
				width, u.fixed = opt.indexBits, true
				continue
			}
			if opt.at < 0 {
				return nil, fmt.Errorf("bitpack: NewUnion argument %d: At(%d): an index is not negative", i, opt.at)
			}
			next, v, u.fixed = uint64(opt.at), opt.member, true
		}
		t := reflect.TypeOf(v)
		if t == nil {
			return nil, fmt.Errorf("bitpack: NewUnion argument %d is nil", i)
		}
		pointer := t.Kind() == reflect.Pointer
		if pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil, fmt.Errorf("bitpack: NewUnion argument %d: %s is not a struct or a pointer to one", i, reflect.TypeOf(v))
		}
		if j, dup := u.byType[t]; dup {
			return nil, fmt.Errorf("bitpack: NewUnion: %s appears twice (arguments %d and %d)", t, j, i)
		}
		if j, dup := seen[next]; dup {
			return nil, fmt.Errorf("bitpack: NewUnion: index %d given to %s and %s", next, u.members[j].typ, t)
		}
		seen[next] = len(u.members)
		u.byType[t] = len(u.members)
		u.byType[reflect.PointerTo(t)] = len(u.members)
		u.members = append(u.members, unionMember{typ: t, pointer: pointer, index: next})
		next++
	}
	if len(u.members) == 0 {
		return nil, errors.New("bitpack: NewUnion needs at least one type")
	}
	top := uint64(0)
	for i := range u.members {
		top = max(top, u.members[i].index)
		if u.members[i].index != uint64(i) {
			u.byIndex = seen
		}
	}
	u.bits = bitio.BitsRequired(0, top)
	if width != 0 {
		if width < u.bits {
			return nil, fmt.Errorf("bitpack: NewUnion: IndexBits(%d) cannot hold index %d", width, top)
		}
		u.bits = width
	}
	for i := range u.members {
		if err := checkTags(u.members[i].typ); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// lookup returns the position of the member with wire index idx.
func (u *Union) lookup(idx uint64) (int, bool) {
	if u.byIndex == nil {
		return int(idx), idx < uint64(len(u.members))
	}
	i, ok := u.byIndex[idx]
	return i, ok
}

// indexRefusal words the refusal of an index that names no member.
func (u *Union) indexRefusal(idx uint64) string {
	if u.byIndex == nil {
		return fmt.Sprintf("union index %d out of range [0, %d]", idx, len(u.members)-1)
	}
	var known []string
	for i := range u.members {
		known = append(known, strconv.FormatUint(u.members[i].index, 10))
	}
	return fmt.Sprintf("union index %d names no member (%s)", idx, strings.Join(known, ", "))
}

// Len returns the number of member types (0 for a nil or zero Union).
func (u *Union) Len() int {
	if u == nil {
		return 0
	}
	return len(u.members)
}

var (
	errNilUnion   = errors.New("bitpack: method called on a nil *Union (use NewUnion)")
	errEmptyUnion = errors.New("bitpack: method called on a Union with no members (use NewUnion)")
)

// usable refuses a nil Union and the zero Union, which has no members.
func (u *Union) usable() error {
	if u == nil {
		return errNilUnion
	}
	if len(u.members) == 0 {
		return errEmptyUnion
	}
	return nil
}

// member returns the plan of member i, compiling it on first use.
func (u *Union) member(i int) (*plan, error) {
	m := &u.members[i]
	if p := m.plan.Load(); p != nil {
		return p, nil
	}
	p, err := planOf(m.typ)
	if err != nil {
		return nil, err
	}
	m.plan.Store(p)
	return p, nil
}

// form returns the Go type fields of the union's interfaces hold for the
// member: T, or *T for a member given to NewUnion as a pointer.
func (m *unionMember) form() reflect.Type {
	if m.pointer {
		return reflect.PointerTo(m.typ)
	}
	return m.typ
}

// memberError is the error of a union field whose member does not compile
// (it holds an interface whose union is not registered yet: see NewUnion).
func memberError(path string, bit int, err error) *fieldError {
	return &fieldError{path: path, bit: bit, err: ErrRange, detail: strings.TrimPrefix(err.Error(), "bitpack: "), cause: err}
}

// find returns the index of v's type and the address of its value (a copy
// when v is not a pointer).
func (u *Union) find(v reflect.Value) (int, pointer, error) {
	if !v.IsValid() {
		return 0, pointer{}, errors.New("nil value")
	}
	i, ok := u.byType[v.Type()]
	if !ok {
		return 0, pointer{}, fmt.Errorf("%s is not a member of the union", v.Type())
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0, pointer{}, fmt.Errorf("nil %s", v.Type())
		}
		return i, pointerOf(v), nil
	}
	c := reflect.New(v.Type())
	c.Elem().Set(v)
	return i, pointerOf(c), nil
}

// Append appends the type index and the encoding of v (a member type T or
// *T) to dst. On error it returns dst unchanged.
func (u *Union) Append(dst []byte, v any) ([]byte, error) {
	var w bitio.Writer
	w.Reset(dst)
	if err := u.encode(&w, v, 0, true); err != nil {
		return dst, err
	}
	return w.Bytes(), nil
}

// Marshal returns the type index and the encoding of v.
func (u *Union) Marshal(v any) ([]byte, error) {
	bp := scratchBuffers.Get().(*[]byte)
	b, err := u.Append((*bp)[:0], v)
	if err != nil {
		scratchBuffers.Put(bp)
		return nil, err
	}
	out := append([]byte(nil), b...)
	putScratchBuffer(bp, b)
	return out, nil
}

// Encode writes the type index and v to w; on error nothing stays in w and
// w is failed.
func (u *Union) Encode(w *bitio.Writer, v any) error {
	if err := u.usable(); err != nil {
		return err
	}
	if w == nil {
		return errors.New("bitpack: Union.Encode with a nil *bitio.Writer")
	}
	if err := w.Err(); err != nil {
		return err
	}
	start, saved := w.BitsWritten(), *frameOfWriter(w)
	if err := u.encode(w, v, hookDepth(w), false); err != nil {
		w.Rewind(start)
		*frameOfWriter(w) = saved
		w.Fail(err)
		return err
	}
	return nil
}

// encode writes v at depth0 (0, or a hook's: see hookDepth); whole: the
// bits end a packet (see endEncode).
func (u *Union) encode(w *bitio.Writer, v any, depth0 int, whole bool) error {
	if err := u.usable(); err != nil {
		return err
	}
	i, base, err := u.find(reflect.ValueOf(v))
	if err != nil {
		return fmt.Errorf("bitpack: Union.Marshal: %w", err)
	}
	p, err := u.member(i)
	if err != nil {
		return err
	}
	start := w.BitsWritten()
	beginEncode(w, start)
	w.WriteBits(u.members[i].index, u.bits)
	ferr := encodeRoot(w, p, base, depth0)
	if ferr == nil {
		ferr = endEncode(w, p, base, start, whole, true)
	}
	if ferr != nil {
		return memberOf(publicError("encode", u.members[i].typ, ferr))
	}
	return nil
}

// Unmarshal decodes a packet written by Marshal and returns a pointer to a
// new value of the member type its index names. The whole packet must be
// consumed. An index >= Len() is ErrRange.
func (u *Union) Unmarshal(data []byte) (any, error) {
	var r bitio.Reader
	r.Reset(data)
	v, err := u.decode(&r, true)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Decode reads a type index and a value from r, leaving r after it, and
// returns a pointer to the new value. On error r is failed.
func (u *Union) Decode(r *bitio.Reader) (any, error) {
	if err := u.usable(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, errors.New("bitpack: Union.Decode with a nil *bitio.Reader")
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	f := frameOfReader(r)
	inHook := f.Active && f.Depth > 0
	v, err := u.decode(r, false)
	if err != nil {
		if inHook {
			inStream(err) // a hook passing it on reports the bit as it is
		}
		r.Fail(err)
	}
	return v, err
}

func (u *Union) decode(r *bitio.Reader, whole bool) (any, error) {
	if err := u.usable(); err != nil {
		return nil, err
	}
	d := decoder{r: r, fresh: true}
	var f *frame.Frame // the allowances count the index's bits too
	if !whole {
		f = frameOfReader(r) // one allowance for consecutive Decodes
	}
	d.enter(f)
	start := r.BitsRead()
	idx := r.ReadBits(u.bits)
	if err := r.Err(); err != nil {
		return nil, publicError("decode", nil, fromBitio("", start, err))
	}
	pos, ok := u.lookup(idx)
	if !ok {
		return nil, &Error{Op: "decode", Bit: start, Err: ErrRange, Detail: u.indexRefusal(idx)}
	}
	m := &u.members[pos]
	p, err := u.member(pos)
	if err != nil {
		return nil, err
	}
	// A new value: nothing to keep untouched, so no scratch value. It is
	// charged (start) before it is made.
	var v reflect.Value
	ferr := d.start(p)
	if ferr == nil {
		v = reflect.New(m.typ)
		ferr = d.plan(p, pointerOf(v), d.depth0)
	}
	d.leave(f)
	if ferr != nil {
		return nil, memberOf(publicError("decode", m.typ, ferr))
	}
	if rest := r.BitsRemaining(); whole && rest >= 8 {
		return nil, &Error{Op: "decode", Type: m.typ, Bit: r.BitsRead(), Err: ErrTrailing,
			Detail: trailingDetail(rest / 8), member: true}
	}
	return v.Interface(), nil
}

// ---------------------------------------------------------------------------
// Registration: interface-typed fields encode through their union.

var registry struct {
	sync.RWMutex
	byIface map[reflect.Type]*Union
}

// registryGen counts registrations. A plan that failed to compile before a
// registration is compiled again after it (the failure may have been an
// interface field whose union was not registered yet).
var registryGen atomic.Uint64

// RegisterUnion makes every field of interface type I (or a slice of I,
// with maxlen) encode through u: the type index, then the member. I must be
// an interface type that every member implements in the form it was given
// to NewUnion (T or *T). Registration is keyed by I, so packages cannot
// collide on names; registering the same union again is a no-op, a
// different one for the same I is an error. Register in an init function,
// before the first Marshal of a type that holds an I.
//
// Everything is checked before the union becomes visible to other
// goroutines (NewUnion checked the members' tags), and it is published in
// one step: a goroutine that compiles a type holding an I at the same time
// sees either no union (and compiles the type again once it is registered)
// or this one, never a union that is then withdrawn.
func RegisterUnion[I any](u *Union) error {
	it := reflect.TypeFor[I]()
	if it.Kind() != reflect.Interface {
		return fmt.Errorf("bitpack: RegisterUnion[%s]: not an interface type", it)
	}
	if u == nil {
		return fmt.Errorf("bitpack: RegisterUnion[%s]: nil *Union", it)
	}
	if len(u.members) == 0 {
		return fmt.Errorf("bitpack: RegisterUnion[%s]: the Union has no members (use NewUnion)", it)
	}
	for i := range u.members {
		m := &u.members[i]
		form := m.typ
		if m.pointer {
			form = reflect.PointerTo(m.typ)
		}
		if !form.Implements(it) {
			return fmt.Errorf("bitpack: RegisterUnion[%s]: member %s does not implement %s", it, form, it)
		}
	}
	registry.Lock()
	defer registry.Unlock()
	if old, ok := registry.byIface[it]; ok {
		if old == u {
			return nil
		}
		return fmt.Errorf("bitpack: RegisterUnion[%s]: a different union is already registered for %s", it, it)
	}
	if registry.byIface == nil {
		registry.byIface = map[reflect.Type]*Union{}
	}
	registry.byIface[it] = u
	registryGen.Add(1)
	return nil
}

// unionFor returns the union registered for interface type t, or nil.
func unionFor(t reflect.Type) *Union {
	registry.RLock()
	defer registry.RUnlock()
	return registry.byIface[t]
}

package bitpack

import (
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/bitpack-go/bitpack/quant"
)

// Plans: a type compiled once (see compile.go) into a flat list of ops,
// each with everything precomputed, and the cache that holds them.

// op is one field of a plan (or a run of one), with everything its kind
// needs precomputed. Which fields mean what depends on the kind: see its
// kind_*.go file.
type op struct {
	// Hot: what every execution reads. Fixed-width fields are executed in
	// fused groups: the first op of a run of consecutive fixed-width fields
	// holds the run's length and total width, so the run costs one
	// ReadBits.
	kind      Kind
	fit       bool     // int/uint on a 32-bit platform: a decoded value must fit 32 bits
	clamp     bool     // integers and compressed floats: clamp instead of refusing out-of-range values
	ranged    bool     // integers: range=A..B (else raw)
	unit      int64    // integers with unit=: the Go value of one unit on the wire (0: none)
	access    uint8    // fixed-width kinds: how the Go value is loaded and stored (program.go)
	group     uint16   // fixed-width kinds: ops in the fused run that starts here (0 inside a run)
	rawRun    bool     // the run that starts here is a raw run (see fuse)
	bits      int      // wire bits of a fixed-width field or of a length prefix
	groupBits int      // fixed-width kinds: total wire bits of the run that starts here
	scs       []scalar // fixed-width kinds: the run's fields (part of plan.scalars)
	offset    offset   // from the start of the plan's value
	size      uintptr  // Go size of the field (fixed-width fields are stored in size bytes)
	// Fixed-width kinds: wire bits = (value - min) ^ flip, valid up to
	// limit (see kind_int.go's intCode; for compressed floats, limit is
	// the largest code).
	min, limit, flip uint64
	qp               *prepared // compressed floats: the quantizer
	n                int       // strings, []byte, slices, sparse slices: maxlen; [N]byte, arrays, sparse arrays: length
	stride           uintptr   // arrays, slices, sparse: element size
	elem             *plan     // arrays, slices, pointers: the element's plan; sparse: the pointee's plan
	level            int       // nesting level of the field within the plan: its struct level (0: not in a struct), +1 in a recursive non-struct plan (see finish)

	// Cold: rarer kinds, and what errors and layouts need.
	qq     *quant.Quat
	mapx   *mapInfo     // maps: the keys' plan, their order, buffers
	f64    bool         // quaternions: float64 components
	union  *Union       // unions
	ifaces []ifaceWord  // unions: how the field holds each member
	hash   uint32       // checks
	slice  bool         // sparse: a slice (with a length prefix) rather than an array
	offs   [4]offset    // quaternions: component offsets from offset
	typ    reflect.Type // slices, sparse: the slice type; pointers: the element type; hooks, unions: the type
	name   string       // checks: the check's name
	// Slices, sparse: the TagError for the field's own tag, for checks made
	// once the whole type is compiled (see checkFreeSlices).
	refuse func(format string, args ...any) error
	path   string // field path within the plan, e.g. "Pos.X" or "Ammo[3]"
}

// scratch is a value of a plan's type that decodes land in before being
// committed (see decode_loop.go).
type scratch struct {
	v      any                 // the *T, keeping it alive
	base   pointer             // its address
	grown  int64               // bytes decodes have allocated into it (see decodeFlat)
	spares map[*plan][]pointer // pointees it let go of, for the next (see takeSpare)
	strs   *[]pendingString    // strings a decode into it holds back (see setString), made for plans with strings
	undo   *undoLog            // what deltas decoded into their base change (see delta_inplace.go)
	// A delta's copy of its base through the scratch value (see clone):
	// which way it goes, and the base's maps not copied in (yet), by the
	// address of the scratch value's field.
	cloning  uint8
	lazyMaps map[pointer]pointer
}

// getScratch returns a scratch value for p, reusing a put-back one.
func (p *plan) getScratch() *scratch {
	if s := p.spare.Swap(nil); s != nil {
		return s
	}
	if s, ok := p.pool.Get().(*scratch); ok {
		return s
	}
	v := reflect.New(p.typ)
	s := &scratch{v: v.Interface(), base: pointerOf(v)}
	if p.strings {
		s.strs = new([]pendingString)
	}
	return s
}

// putScratch gives a scratch value back for the next decode.
func (p *plan) putScratch(s *scratch) {
	if !p.spare.CompareAndSwap(nil, s) {
		p.pool.Put(s)
	}
}

type plan struct {
	typ         reflect.Type
	size        uintptr // typ.Size()
	bytes       int64   // size64(typ): what the allowances charge for a value (see Charge)
	pointerFree bool    // typ holds no pointers: its values can come from newValue's untyped memory
	ops         []op
	dense       bool                    // all but padding is pointer-free wire data: commit copies the value whole
	complete    bool                    // all but padding is written by decoding: nothing is kept off the wire (see isComplete)
	empties     bool                    // a value can hold an empty slice, []byte or map, or a union member (see settle)
	minBits     int64                   // the fewest bits a value takes, a union as its index, at most maxFigure (see countRefusal)
	work        int64                   // values one value visits, its variable parts aside (see planWork)
	paid        bool                    // every charge inside is paid by bits of its own (see paidFor)
	counted     bool                    // encoding must count the allowances: not paid, or its own work exceeds what its bits pay (see endEncode)
	spare       atomic.Pointer[scratch] // the last scratch value put back: no pool round trip when uncontended
	pool        sync.Pool               // more scratch values, when goroutines decode the type at once
	copies      byteCopies              // the pointer-free bytes a decode writes, coalesced (see commitCopies)
	others      []int                   // the ops commit handles one by one (strings, slices, loops, ...)
	commits     commitSteps             // others, grouped by kind for commit
	scalars     []scalar                // fused runs' fields, in order
	read        []rstep                 // the read program: runs, flat pointees, every other op (see decoder.plan)
	enc         []encStep               // the encode program: every op, fixed-width fields gathered into groups of up to 64 bits
	run         []encStep               // enc with some pointees' steps spliced in: what encodeValue runs (see buildRun)
	runOps      []op                    // the ops run's steps refer to: ops, then the spliced pointees' (see buildRun)
	encOut      []encOut                // the encode program's output order: its groups and its other ops (see encodeColumns)
	groups      int                     // the encode program's groups
	scalar      *op                     // the only op, when the plan is one scalar at offset 0 (tight element loops)
	root        *Field                  // layout: the plan's own tree (unions without their members; see plan.layout)
	described   atomic.Pointer[Layout]  // the full layout, once Describe built it
	fixedOnly   bool                    // every op is fixed-width: a value is its runs and nothing else (see gateSteps)
	onStack     bool                    // a value decodes on the stack: runs, byte arrays, short raw slices (see stackPlan)
	strings     bool                    // a decode of a value may meet a string: one of its ops is, or runs a plan that may hold one
	levels      int                     // struct levels the inline part spans: 0 for non-structs, 1 for a flat struct (and see finish)
	use         usage                   // option kinds that reached a leaf inside (see usage)
	delta       []ditem                 // the fields a delta walks (see ditem)
	dsteps      []dstep                 // the delta program over them (see dstep)
	flat        bool                    // dsteps are fixed-width fields only (see listFlat)
	shallow     bool                    // a value spans at most MaxDepth levels, whatever it holds: cloning one cannot fail (see deepest)
	inlineMaps  bool                    // a value holds a map in itself, not through a pointer (see materializeIn)
	deltaErr    error                   // building delta failed (an internal error: compile reports it)

	compiling bool // planFor has not returned yet
	reentered bool // reached again while compiling: on a cycle of plans
}

// usage records which kinds of inherited option reached a leaf, so that a
// struct-level tag that applies to nothing is reported.
type usage struct{ ints, floats, quats bool }

func (u *usage) merge(o usage) {
	u.ints = u.ints || o.ints
	u.floats = u.floats || o.floats
	u.quats = u.quats || o.quats
}

type cacheEntry struct {
	once sync.Once
	plan *plan
	err  error
	gen  uint64 // registryGen when compiled
}

var planCache sync.Map // reflect.Type -> *cacheEntry

// compiles counts compilations per type, so tests can check "exactly once".
var compiles sync.Map // reflect.Type -> *int64 (guarded by the entry's Once)

// planOf returns the cached plan for t, compiling it on first use. A
// compile error is cached too, until a union is registered: the error may
// have been an interface field waiting for its union.
func planOf(t reflect.Type) (*plan, error) {
	for {
		e, ok := planCache.Load(t)
		if !ok {
			e, _ = planCache.LoadOrStore(t, new(cacheEntry))
		}
		entry := e.(*cacheEntry)
		entry.once.Do(func() {
			n, _ := compiles.LoadOrStore(t, new(int64))
			*n.(*int64)++
			entry.gen = registryGen.Load()
			entry.plan, entry.err = compile(t)
		})
		if entry.err != nil && entry.gen != registryGen.Load() {
			planCache.CompareAndDelete(t, entry)
			continue
		}
		return entry.plan, entry.err
	}
}

// byPointerType is the hot-path cache of Marshal, Append and Unmarshal: the
// plan of T keyed by the type word of *T, the argument they are given. It
// is a copy-on-write map behind an atomic pointer: reads take no lock and
// hash a pointer, and it only grows when a type is first used.
var byPointerType atomic.Pointer[map[typeID]*plan]

// planOfPointer returns the plan for a non-nil *T argument and the address
// it holds, or ok == false when v is anything else (or not cached yet).
func planOfPointer(v any) (p *plan, base pointer, ok bool) {
	id, base := ifaceOf(v)
	if m := byPointerType.Load(); m != nil && !base.isNil() {
		if p, ok = (*m)[id]; ok {
			return p, base, true
		}
	}
	return nil, pointer{}, false
}

// rememberPointerType caches p for the *T argument v.
func rememberPointerType(v any, p *plan) {
	id, _ := ifaceOf(v)
	for {
		old := byPointerType.Load()
		next := map[typeID]*plan{id: p}
		if old != nil {
			if _, ok := (*old)[id]; ok {
				return
			}
			for k, x := range *old {
				next[k] = x
			}
		}
		if byPointerType.CompareAndSwap(old, &next) {
			return
		}
	}
}

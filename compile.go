package bitpack

import (
	"fmt"
	"reflect"
)

// The compiler: a reflect.Type and its tags into a plan. It walks the
// type, hands each field to its kind (kind_*.go), and once the whole type
// graph is compiled finishes what depends on other plans (sizes, commit
// ranges, allowances).

// ---------------------------------------------------------------------------
// The cache: one entry per top-level type, compiled exactly once even when
// many goroutines ask for it at the same time (a sync.Once per entry; the
// entry itself is published with LoadOrStore).

// compile builds the plan for a top-level type.
func compile(t reflect.Type) (*plan, error) {
	return (&compiler{memo: map[memoKey]*plan{}}).compile(t)
}

// checkTags compiles t only to report its tag errors: a field of an
// interface type no union is registered for yet compiles as a placeholder
// (NewUnion checks members this way; see there). The plan is thrown away.
func checkTags(t reflect.Type) error {
	_, err := (&compiler{memo: map[memoKey]*plan{}, placeholders: true}).compile(t)
	return err
}

func (c *compiler) compile(t reflect.Type) (*plan, error) {
	p, err := c.planFor(t, &tagOptions{}, fieldCtx{owner: t})
	if err != nil {
		return nil, err
	}
	// What depends on other plans is decided once the whole type graph is
	// compiled (a plan reached again while it was being compiled is
	// complete only then), for every plan of it.
	finished := map[*plan]bool{}
	for _, q := range c.memo {
		finish(q, finished)
	}
	for _, q := range c.memo {
		q.buildRun() // with every level final (see finish)
		q.buildRead()
		q.commits = commitStepsOf(q)
	}
	depths := map[*plan]int{}
	for _, q := range c.memo {
		q.shallow = deepest(q, depths) <= MaxDepth
		if q.deltaErr != nil {
			return nil, q.deltaErr
		}
		if err := checkFreeSlices(q, c.placeholders); err != nil {
			return nil, err
		}
		q.paid = paidFor(q, map[*plan]bool{})
		q.empties = holdsEmpties(q, map[*plan]bool{})
		q.counted = !q.paid || q.work > satMul(workValuesPerBit, q.minBits)
	}
	return p, nil
}

// checkFreeSlices refuses tags that would let a few bytes of packet
// allocate more than allocBaseBytes (see there) through one slice: sparse
// slices (an absent element is free) and slices of elements with nothing
// variable to send (range=5..5, only skipped fields, empty structs, each
// counted as at least one byte). It runs once the whole type is compiled,
// when the elements' minimum sizes are known. (Decoding bounds what
// several such slices in one packet add up to.)
//
// With placeholders (checkTags), a slice of elements holding an interface
// whose union is not registered yet is left to the real compile: the
// placeholder takes no bits, the union may.
func checkFreeSlices(p *plan, placeholders bool) error {
	for i := range p.ops {
		o := &p.ops[i]
		free := o.kind == KindSlice && o.elem.minBits == 0 || o.kind == KindSparse && o.slice
		if free && placeholders && o.kind == KindSlice && holdsPlaceholder(o.elem) {
			continue
		}
		if size := uint64(max(o.stride, 1)); free && uint64(o.n) > allocBaseBytes/size {
			why := "its elements can take no bits on the wire"
			if o.kind == KindSparse {
				why = "absent elements take no bits on the wire"
			}
			return o.refuse("maxlen=%d: %s, so a packet of a few bytes could make the decoder allocate %d×%d bytes; at most %d bytes (maxlen %d) is allowed", o.n, why, o.n, size, allocBaseBytes, allocBaseBytes/size)
		}
	}
	return nil
}

// holdsPlaceholder reports whether a value of p holds a placeholder union
// in its fixed part (see checkTags).
func holdsPlaceholder(p *plan) bool {
	for i := range p.ops {
		o := &p.ops[i]
		if o.kind == KindUnion && o.union == nil || o.kind == KindArray && holdsPlaceholder(o.elem) {
			return true
		}
	}
	return false
}

// finish computes what a plan takes from its array elements' plans: the
// copy ranges and density commit uses, and the fewest bits a value takes.
// Array elements are finished first; arrays cannot contain themselves, so
// the recursion ends.
//
// It also makes a recursive plan that is not a struct (type P *P, type
// A [1]*A) count as one level: every cycle of plans passes through a plan
// that was reached again while being compiled, so counting those bounds
// the recursion by MaxDepth even when no struct is on the cycle.
func finish(p *plan, finished map[*plan]bool) {
	if finished[p] {
		return
	}
	finished[p] = true
	for i := range p.ops {
		if o := &p.ops[i]; o.kind == KindArray {
			finish(o.elem, finished)
		}
	}
	if p.reentered && p.typ.Kind() != reflect.Struct {
		// Its fields sit one level deeper than they would: each pass
		// through it is a nesting level, as each pass through a struct is.
		for i := range p.ops {
			p.ops[i].level++
			p.levels = max(p.levels, p.ops[i].level)
		}
	}
	spans, others := commitRanges(p)
	p.others = others
	if p.dense = isDense(p); p.dense {
		spans = []byteRange{{n: p.size}} // padding and all
	}
	p.copies = byteCopiesOf(spans)
	p.complete = isComplete(p)
	// Every node of the plan's own tree (unions without their members)
	// gets its count figure; the tree's nodes are this compile's alone.
	for f, bits := range minsOf(p.root) {
		f.CountBits = min(bits, maxFigure)
	}
	p.minBits = p.root.CountBits
	p.work = planWork(p)
	if floored := nodeWork(p.root, true, false); floored >= saturated {
		p.work = saturated
	} else {
		p.work = satAdd(p.work, floored-nodeWork(p.root, false, false))
	}
	p.root.Charge = chargeOf(p)
	p.inlineMaps = inlineMaps(p)
	if p.delta, p.deltaErr = deltaItems(p); p.deltaErr == nil {
		p.dsteps, p.flat = deltaSteps(p)
	}
}

// ---------------------------------------------------------------------------
// The compiler.

type compiler struct {
	memo map[memoKey]*plan
	// placeholders: interfaces without a registered union compile to a
	// union op with no union (checkTags only; such plans never run).
	placeholders bool
}

type memoKey struct {
	t         reflect.Type
	opts      tagOptions
	inherited bool
}

// fieldCtx says where a value being compiled sits and where its options
// came from.
type fieldCtx struct {
	offset    offset       // of the value within the plan's root
	path      string       // of the value within the plan's root (runtime error paths)
	where     string       // of the value within the top-level type (TagError messages)
	level     int          // struct level of the value's container (0 at a plan root)
	owner     reflect.Type // the struct that declares the field
	field     string       // the field's name within owner
	promoted  *promotion   // inside an embedded struct: which of the fields promoted from it are sent
	vpath     string       // inside an embedded struct: its index path from promoted.into
	inherited bool         // options came down from a struct-level tag...
	tagOwner  reflect.Type // ...written on this struct's field
	tagField  string
	use       *usage       // where inherited options record that they reached a leaf
	container reflect.Type // an element's: the slice, array, map or pointer type holding it
	key       bool         // a map's keys (container is the map)
}

// structural reports a problem with the field itself (its type, a missing
// maxlen).
func (f fieldCtx) structural(o *tagOptions, format string, args ...any) error {
	text := ""
	if !f.inherited && o != nil {
		text = o.text
	}
	return &TagError{Type: f.owner, Field: f.field, Tag: text, Problem: fmt.Sprintf(format, args...)}
}

// missingMaxlen is the error for a string or slice without a maxlen of its
// own: for an element of a slice, map or array, it says how to give one.
func (f fieldCtx) missingMaxlen(o *tagOptions, t reflect.Type, example string) error {
	if f.key {
		return f.structural(o, "the %s keys of %s need a maxlen of their own: add key.maxlen=N to the tag, e.g. bits:\"maxlen=4,key.maxlen=%s\"", t, f.container, example)
	}
	if f.container != nil && f.container.Kind() != reflect.Pointer {
		return f.structural(o, "the %s elements of %s need a maxlen of their own: add elem.maxlen=N to the tag, e.g. bits:\"maxlen=4,elem.maxlen=%s\"", t, f.container, example)
	}
	return f.structural(o, "%s needs a maxlen tag of its own, e.g. bits:\"maxlen=%s\"", t, example)
}

// tagged reports a problem with the options the field was given, naming
// the field where they were written.
func (f fieldCtx) tagged(o *tagOptions, format string, args ...any) error {
	owner, field := f.owner, f.field
	problem := fmt.Sprintf(format, args...)
	if f.inherited {
		owner, field = f.tagOwner, f.tagField
		problem = fmt.Sprintf("at %s: %s", f.where, problem)
	}
	return &TagError{Type: owner, Field: field, Tag: o.text, Problem: problem}
}

// element returns the context of the elements of the container value of
// type t ([]T, [N]T, map values, *T): seg is their path segment.
func (f fieldCtx) element(t reflect.Type, seg string) fieldCtx {
	g := f
	g.path = joinPath(f.path, seg)
	g.where = joinPath(f.where, seg)
	g.container = t
	return g
}

// elemOptions returns the options for the elements of container type t
// (see tagOptions.elemOptions), worded as a TagError.
func (f fieldCtx) elemOptions(o *tagOptions, t reflect.Type, keepMaxlen bool) (*tagOptions, error) {
	e, err := o.elemOptions(keepMaxlen)
	if err != nil {
		return nil, f.tagged(o, "%v", err)
	}
	return e, nil
}

// joinPath joins a path and a segment: "Pos"+"X" = "Pos.X", "Ammo"+"[3]" = "Ammo[3]".
func joinPath(prefix, seg string) string {
	switch {
	case seg == "":
		return prefix
	case prefix == "":
		return seg
	case seg[0] == '[':
		return prefix + seg
	}
	return prefix + "." + seg
}

// planFor compiles t with options o into a standalone plan (offsets from the
// start of a t value), reusing a memoized plan for the same (type, options):
// that is what lets recursive types compile.
func (c *compiler) planFor(t reflect.Type, o *tagOptions, f fieldCtx) (*plan, error) {
	key := memoKey{t: t, opts: *o, inherited: f.inherited}
	key.opts.text = "" // the text only words error messages; equal options share a plan
	if p, ok := c.memo[key]; ok {
		if f.use != nil {
			f.use.merge(p.use)
		}
		if p.compiling {
			p.reentered = true
		}
		return p, nil
	}
	p := &plan{typ: t, size: t.Size(), bytes: size64(t), root: &Field{Type: t}, compiling: true, pointerFree: !hasPointers(t)}
	c.memo[key] = p
	// Offsets and paths inside a sub-plan are relative to its element; an
	// error's path is completed while the error travels up.
	inner := f
	inner.offset, inner.level, inner.path = offset{}, 0, ""
	inner.use = &p.use
	root, err := c.appendValue(&p.ops, t, o, inner)
	if err != nil {
		delete(c.memo, key)
		return nil, err
	}
	*p.root = *root // keep the node pointer that recursive references already hold
	p.compiling = false
	p.fuse()
	p.buildEncode()
	p.fixedOnly = len(p.ops) > 0
	for i := range p.ops {
		p.fixedOnly = p.fixedOnly && kinds[p.ops[i].kind].fixed
	}
	p.onStack = stackPlan(p)
	for i := range p.ops {
		switch p.ops[i].kind {
		case KindString, KindArray, KindSlice, KindPointer, KindSparse, KindUnion:
			p.strings = true
		}
	}
	if len(p.ops) == 1 && kinds[p.ops[0].kind].fixed && p.ops[0].offset == (offset{}) {
		p.scalar = &p.ops[0]
	}
	for i := range p.ops {
		p.levels = max(p.levels, p.ops[i].level)
	}
	if t.Kind() == reflect.Struct {
		p.levels = max(p.levels, 1) // a struct whose fields are all skipped still counts
	}

	if f.use != nil {
		f.use.merge(p.use)
	}
	return p, nil
}

// only reports whether o holds no options besides those keep accepts.
func only(o *tagOptions, keep func(*tagOptions)) bool {
	rest := *o
	keep(&rest)
	rest.text = ""
	return rest == tagOptions{}
}

// notApplicable is the error for direct options a type cannot take.
func (f fieldCtx) notApplicable(o *tagOptions, t reflect.Type) error {
	return f.tagged(o, "%s does not apply to %s", o.names(), t)
}

// appendValue compiles a value of type t at f.offset: it appends the ops
// and returns the layout node.
func (c *compiler) appendValue(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx) (*Field, error) {
	base := op{offset: f.offset, path: f.path, level: f.level, size: t.Size()}
	if t == checkType {
		return c.appendCheck(ops, o, f, base)
	}
	if o.checkSet && !f.inherited {
		return nil, f.tagged(o, "check applies to fields of type bitpack.Check, not %s", t)
	}
	if t == timeType {
		return c.appendTime(ops, t, o, f, base)
	}
	if o.key != "" && t.Kind() != reflect.Map {
		return nil, f.tagged(o, "key. applies to maps' keys, not to %s", t)
	}
	if ok, err := hasHooks(t, f); err != nil {
		return nil, err
	} else if ok {
		return c.appendHook(ops, t, o, f, base)
	}
	switch t.Kind() {
	case reflect.Bool:
		return c.appendBool(ops, t, o, f, base)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return c.appendInt(ops, t, o, f, base)
	case reflect.Float32, reflect.Float64:
		return c.appendFloat(ops, t, o, f, base)
	case reflect.String:
		return c.appendString(ops, t, o, f, base)
	case reflect.Slice:
		return c.appendSlice(ops, t, o, f, base)
	case reflect.Array:
		return c.appendArray(ops, t, o, f, base)
	case reflect.Pointer:
		return c.appendPointer(ops, t, o, f, base)
	case reflect.Map:
		return c.appendMap(ops, t, o, f, base)
	case reflect.Struct:
		return c.appendStruct(ops, t, o, f)
	case reflect.Interface:
		if u := unionFor(t); u != nil || c.placeholders {
			return c.appendUnion(ops, t, u, o, f, base)
		}
	}
	return nil, f.structural(o, "%s is not supported (%s have no wire form)", t, kindName(t.Kind()))
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Interface:
		return "interfaces not registered with RegisterUnion"
	case reflect.Chan:
		return "channels"
	case reflect.Func:
		return "functions"
	case reflect.Complex64, reflect.Complex128:
		return "complex numbers"
	case reflect.UnsafePointer:
		return "unsafe pointers"
	case reflect.Uintptr:
		return "uintptrs"
	}
	return k.String() + "s"
}

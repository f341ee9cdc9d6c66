package bitpack

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Structs: their fields inline, in order, with tags handed down to leaves
// and embedded structs promoted as encoding/json does. A struct is not an
// op (its fields' ops are its parent's); it is a node of the layout.

var structKind = kindFuncs{name: "struct",
	describe: func(*Field) string { return "struct" },
	schema: func(s *schemaWriter, f *Field) {
		s.write("{")
		for i, c := range f.Fields {
			if i > 0 {
				s.write(";")
			}
			s.walk(c)
		}
		s.write("}")
	},
	maxBits: func(f *Field, max func(*Field) int64) int64 {
		var n int64
		for _, c := range f.Fields {
			n = satAdd(n, max(c))
		}
		return n
	},
	minBits: func(f *Field, min func(*Field) int64) int64 {
		var n int64
		for _, c := range f.Fields {
			n = satAdd(n, min(c))
		}
		return n
	}}

func (c *compiler) appendStruct(ops *[]op, t reflect.Type, o *tagOptions, f fieldCtx) (*Field, error) {
	if o.quat && (isQuatShaped(t) || !f.inherited && looksLikeQuat(t)) {
		// A struct of four floats tagged quat that is not quat-shaped
		// (a field unexported or tagged) gets appendQuat's explanation
		// rather than "quat reaches no field".
		return c.appendQuat(ops, t, o, f, op{offset: f.offset, path: f.path, level: f.level, size: t.Size()})
	}
	if bad := (tagOptions{maxlenSet: o.maxlenSet, sparse: o.sparse, checkSet: o.checkSet}); !f.inherited && bad != (tagOptions{}) {
		return nil, f.tagged(o, "%s does not apply to struct %s", bad.names(), t)
	}
	// Options written on this field are inherited by the leaves inside that
	// have no tag of their own; each kind of option must reach one leaf.
	inherit := leafOptions(o)
	var own usage
	if !f.inherited && !o.isZero() {
		f.inherited, f.tagOwner, f.tagField, f.use = true, f.owner, f.field, &own
	}
	// Which fields of embedded structs are promoted is decided once, from
	// the struct the embedding starts at.
	promoted, vpath := f.promoted, f.vpath
	if promoted == nil {
		promoted, vpath = promotedFields(t), ""
	}
	node := &Field{Type: t, Kind: KindStruct}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		key := vpath + "." + strconv.Itoa(i)
		fo, err := structFieldOptions(t, sf, promoted, key)
		if err != nil || fo == nil {
			if err != nil {
				return nil, err
			}
			continue // not sent
		}
		ff := fieldCtx{
			offset: f.offset.plus(fieldOffset(sf)), path: joinPath(f.path, sf.Name), where: joinPath(f.where, sf.Name),
			level: f.level + 1, owner: t, field: sf.Name,
		}
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			ff.promoted, ff.vpath = promoted, key
		}
		opts := fo
		if fo.isZero() && f.inherited && !inherit.isZero() {
			ff.inherited, ff.tagOwner, ff.tagField, ff.use = true, f.tagOwner, f.tagField, f.use
			opts = inherit
		}
		child, err := c.appendValue(ops, sf.Type, opts, ff)
		if err != nil {
			return nil, err
		}
		child.Name, child.Index = sf.Name, []int{i}
		node.Fields = append(node.Fields, child)
	}
	if !hasExportedField(t) {
		return nil, f.structural(o, "%s has no exported fields and no MarshalBits/UnmarshalBits methods, so nothing of it can be encoded", t)
	}
	if f.use == &own {
		var missing []string
		if inherit.hasInt() && !own.ints {
			missing = append(missing, "range/bits reach no integer field")
		}
		if inherit.float && !own.floats {
			missing = append(missing, "float reaches no float field")
		}
		if inherit.quat && !own.quats {
			missing = append(missing, "quat reaches no quaternion-shaped field")
		}
		if len(missing) > 0 {
			return nil, &TagError{Type: f.owner, Field: f.field, Tag: o.text, Problem: fmt.Sprintf("applies to no field of %s: %s", t, strings.Join(missing, "; "))}
		}
	}
	return node, nil
}

// structFieldOptions returns the parsed tag of field sf of struct t (key
// is its index path from the struct the embedding starts at), or nil when
// the field is not sent: unexported, skipped, hidden by promotion. A tag
// on a field that is never sent is an error: it would have no effect.
func structFieldOptions(t reflect.Type, sf reflect.StructField, promoted *promotion, key string) (*tagOptions, error) {
	text, hasTag := sf.Tag.Lookup("bits")
	refuse := func(problem string) (*tagOptions, error) {
		return nil, &TagError{Type: t, Field: sf.Name, Tag: text, Problem: problem}
	}
	if typo := misspeltBits(sf.Tag); typo != "" {
		return refuse(fmt.Sprintf("struct tag key %q looks like a misspelt bits: bitpack reads only bits:\"...\", so the field would travel as if untagged; spell it bits", typo))
	}
	embeddedStruct := sf.Anonymous && sf.Type.Kind() == reflect.Struct
	switch {
	case !sf.IsExported() && !sf.Anonymous:
		if hasTag {
			return refuse("unexported fields are never encoded; remove the tag or export the field")
		}
		return nil, nil
	case !embeddedStruct && sf.IsExported() && text != "-" && !promoted.sent[key]:
		if hasTag {
			return refuse(fmt.Sprintf("embedded in %s, the field is hidden by another field named %s (Go's and encoding/json's promotion rules), so it is never encoded; remove the tag or rename one of them", promoted.into, sf.Name))
		}
		return nil, nil
	}
	fo, err := parseTag(text)
	switch {
	case err != nil:
		return refuse(err.Error())
	case fo.skip:
		return nil, nil
	case embeddedStruct && !sf.IsExported() && !fo.isZero():
		return refuse(`an unexported embedded struct takes no options (its exported fields are inlined; bits:"-" skips them all)`)
	case sf.Anonymous && !sf.IsExported() && !embeddedStruct:
		// An unexported embedded non-struct is invisible outside its
		// package; unexported embedded structs are inlined like any
		// struct field: all their exported fields are sent.
		if sf.Type.Kind() == reflect.Pointer && sf.Type.Elem().Kind() == reflect.Struct {
			return refuse("an embedded pointer to the unexported struct type " + sf.Type.Elem().String() + " cannot be allocated on decode; embed the struct itself or name the field")
		}
		if hasTag {
			return refuse("unexported embedded fields are never encoded; remove the tag")
		}
		return nil, nil
	}
	return fo, nil
}

// misspeltBits returns the first key of the struct tag within one edit of
// "bits" (a letter changed, added or dropped, or two neighbours swapped:
// bit, Bits, bitz, bist) that is not "bits", or "".
func misspeltBits(tag reflect.StructTag) string {
	for _, k := range tagKeys(string(tag)) {
		if k != "bits" && oneEditFrom(k, "bits") {
			return k
		}
	}
	return ""
}

// tagKeys lists the keys of a struct tag in the conventional format
// (key:"value" pairs separated by spaces), as reflect.StructTag reads it.
func tagKeys(tag string) []string {
	var keys []string
	for tag != "" {
		tag = strings.TrimLeft(tag, " ")
		i := 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			return keys
		}
		keys = append(keys, tag[:i])
		tag = tag[i+1:]
		// Skip the quoted value.
		j := 1
		for j < len(tag) && tag[j] != '"' {
			if tag[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(tag) {
			return keys
		}
		tag = tag[j+1:]
	}
	return keys
}

// oneEditFrom reports whether a becomes b by at most one edit: a letter
// substituted, inserted or deleted, or two adjacent letters swapped.
func oneEditFrom(a, b string) bool {
	switch {
	case a == b:
		return true
	case len(a) == len(b):
		var diff []int
		for i := range len(a) {
			if a[i] != b[i] {
				diff = append(diff, i)
			}
		}
		return len(diff) == 1 || len(diff) == 2 && diff[1] == diff[0]+1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]
	case len(a) == len(b)+1:
		a, b = b, a
		fallthrough
	case len(b) == len(a)+1: // b has one letter more
		for i := range len(a) {
			if a[i] != b[i] {
				return a[i:] == b[i+1:]
			}
		}
		return true
	}
	return false
}

// leafOptions keeps the options a struct hands down to its leaves: range
// and bits for integers, the compressed-float options for floats, quat (with
// its bits) for quaternion-shaped fields.
func leafOptions(o *tagOptions) *tagOptions {
	l := &tagOptions{text: o.text,
		rangeSet: o.rangeSet, rangeLo: o.rangeLo, rangeHi: o.rangeHi,
		bitsSet: o.bitsSet, bits: o.bits,
		float: o.float, minSet: o.minSet, maxSet: o.maxSet, resSet: o.resSet,
		min: o.min, max: o.max, res: o.res, clamp: o.clamp, unit: o.unit,
		quat: o.quat, wxyz: o.wxyz, xyzw: o.xyzw,
	}
	return l
}

// promotedFields returns the index paths (".i.j") of the fields of struct
// t, and of the structs embedded in it, that are sent: encoding/json's
// rule for promoted fields. An embedded struct (not a pointer to one:
// that is a field of its own, with a presence bit) is inlined, and its
// fields compete by name with the fields around it: of the exported fields
// named N, the one at the shallowest embedding depth is sent, and if two
// or more share that depth none is. Fields tagged bits:"-" and unexported
// fields take no part.
func promotedFields(t reflect.Type) *promotion {
	type candidate struct {
		key   string
		depth int
	}
	byName := map[string][]candidate{}
	var walk func(t reflect.Type, prefix string, depth int)
	walk = func(t reflect.Type, prefix string, depth int) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			key := prefix + "." + strconv.Itoa(i)
			switch {
			case sf.Tag.Get("bits") == "-":
			case sf.Anonymous && sf.Type.Kind() == reflect.Struct:
				walk(sf.Type, key, depth+1)
			case sf.IsExported():
				byName[sf.Name] = append(byName[sf.Name], candidate{key, depth})
			}
		}
	}
	walk(t, "", 0)
	p := &promotion{into: t, sent: map[string]bool{}}
	for _, cs := range byName {
		best, count := cs[0], 0
		for _, c := range cs {
			switch {
			case c.depth < best.depth:
				best, count = c, 1
			case c.depth == best.depth:
				count++
			}
		}
		if count == 1 {
			p.sent[best.key] = true
		}
	}
	return p
}

// promotion says which fields of a struct and the structs embedded in it
// are sent, by index path from the struct.
type promotion struct {
	into reflect.Type
	sent map[string]bool
}

// hasExportedField reports whether t (or a struct embedded in it) has an
// exported field.
func hasExportedField(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.IsExported() {
			return true
		}
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && hasExportedField(sf.Type) {
			return true
		}
	}
	return false
}

package bitpack

import (
	"hash/fnv"
	"reflect"
	"strconv"
	"strings"
)

// Fingerprint returns a 32-bit hash of v's wire layout: FNV-1a over the text
// Layout.Schema returns. Two types have the same fingerprint when they put
// the same bits on the wire in the same way; any change that alters the
// wire — a range, a resolution, a maxlen, the order or type of a field, a
// union member — changes it. Go field names do not count.
//
// Mix it into the protocol id so that a client built from another schema
// is rejected by the CRC, without a byte of overhead:
//
//	fp, _ := bitpack.Fingerprint(&Packet{})
//	packet := bitpack.Seal(dst, appID^fp, payload)
func Fingerprint(v any) (uint32, error) {
	l, err := Describe(v)
	if err != nil {
		return 0, err
	}
	h := fnv.New32a()
	h.Write([]byte(l.Schema()))
	return h.Sum32(), nil
}

// Schema returns a canonical text description of the wire layout, the input
// of Fingerprint. The format, one production per kind:
//
//	b                      bool
//	i<bits> / u<bits>      raw signed (two's complement) / unsigned integer
//	r<min>..<max>          ranged integer (signed and unsigned alike: same wire)
//	f32 / f64              raw float
//	q32(<min>,<max>,<res>) compressed float (q64 for float64); numbers in the
//	                       shortest form that round-trips at that precision
//	s<maxlen>              string
//	y<maxlen>              []byte
//	a<n>                   [n]byte block
//	[<n>]<elem>            array
//	[<=<maxlen>]<elem>     slice
//	*<elem>                pointer (presence bit)
//	{<f>;<f>;...}          struct, fields in wire order
//	Q<bits>/<M>            quaternion: bits per component, and M = 2^bits - 2,
//	                       the component steps of the canonical smallest-three
//	                       wire (e.g. Q9/510; the earlier wire, M = 2^bits - 1
//	                       and not canonical, was Q<bits>)
//	c<type>                custom MarshalBits type (its Go type name)
//	S[<n>]<elem>           sparse array (S[<=<maxlen>] for a slice)
//	U(<m>|<m>|...)         union, members in index order
//	k<hex>                 serialize check, 8 hex digits of the hash
//	^<k>                   the node k levels up (recursive types; 1 is the parent)
//
// Clamp does not appear: it changes what the encoder accepts, not the wire.
// Recursion is written where the Go type graph closes a cycle, so two
// differently structured recursive types can describe the same bits with
// different text; the same type always gives the same text.
func (l Layout) Schema() string {
	var b strings.Builder
	var stack []*Field
	var walk func(f *Field)
	walk = func(f *Field) {
		for k := len(stack) - 1; k >= 0; k-- {
			if same(stack[k], f) {
				b.WriteString("^" + strconv.Itoa(len(stack)-k))
				return
			}
		}
		stack = append(stack, f)
		defer func() { stack = stack[:len(stack)-1] }()
		switch f.Kind {
		case KindBool:
			b.WriteString("b")
		case KindInt, KindUint:
			switch {
			case f.Ranged && f.Kind == KindInt:
				b.WriteString("r" + strconv.FormatInt(f.IntMin, 10) + ".." + strconv.FormatInt(f.IntMax, 10))
			case f.Ranged:
				b.WriteString("r" + strconv.FormatUint(f.UintMin, 10) + ".." + strconv.FormatUint(f.UintMax, 10))
			case f.Kind == KindInt:
				b.WriteString("i" + strconv.Itoa(f.Bits))
			default:
				b.WriteString("u" + strconv.Itoa(f.Bits))
			}
		case KindFloat:
			b.WriteString("f" + strconv.Itoa(f.Bits))
		case KindCompressedFloat:
			prec := 64
			if f.Type.Kind() == reflect.Float32 {
				prec = 32
			}
			g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, prec) }
			b.WriteString("q" + strconv.Itoa(prec) + "(" + g(f.FloatMin) + "," + g(f.FloatMax) + "," + g(f.Res) + ")")
		case KindString:
			b.WriteString("s" + strconv.Itoa(f.MaxLen))
		case KindBytes:
			b.WriteString("y" + strconv.Itoa(f.MaxLen))
		case KindByteArray:
			b.WriteString("a" + strconv.Itoa(f.Len))
		case KindArray:
			b.WriteString("[" + strconv.Itoa(f.Len) + "]")
			walk(f.Elem)
		case KindSlice:
			b.WriteString("[<=" + strconv.Itoa(f.MaxLen) + "]")
			walk(f.Elem)
		case KindPointer:
			b.WriteString("*")
			walk(f.Elem)
		case KindStruct:
			b.WriteString("{")
			for i, c := range f.Fields {
				if i > 0 {
					b.WriteString(";")
				}
				walk(c)
			}
			b.WriteString("}")
		case KindQuat:
			b.WriteString("Q" + strconv.Itoa(f.Bits) + "/" + strconv.Itoa(1<<f.Bits-2))
		case KindCustom:
			b.WriteString("c" + f.Type.String())
		case KindSparse:
			if f.Type.Kind() == reflect.Slice {
				b.WriteString("S[<=" + strconv.Itoa(f.MaxLen) + "]")
			} else {
				b.WriteString("S[" + strconv.Itoa(f.Len) + "]")
			}
			walk(f.Elem)
		case KindUnion:
			b.WriteString("U(")
			for i, m := range f.Members {
				if i > 0 {
					b.WriteString("|")
				}
				walk(m)
			}
			b.WriteString(")")
		case KindCheck:
			b.WriteString("k" + strconv.FormatUint(uint64(f.CheckHash)|1<<32, 16)[1:])
		}
	}
	if l.Root != nil {
		walk(l.Root)
	}
	return b.String()
}

// same reports whether two layout nodes are one node of the type graph.
// Every interface field has a node of its own, but all fields of one
// interface type expand to the same union.
func same(a, b *Field) bool {
	if a.Kind == KindUnion && b.Kind == KindUnion {
		return a.union == b.union && a.Type == b.Type
	}
	return a == b
}

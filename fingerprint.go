package bitpack

import (
	"hash/fnv"
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
//	<int>*<unit>           an integer with unit= (i, u or r above), the unit in
//	                       its base unit (nanoseconds for a time.Duration)
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
//	Q<bits>/<M>            quaternion, bits per component and M = 2^bits - 2 steps
//	c<type>                custom MarshalBits type (its Go type name)
//	S[<n>]<elem>           sparse array (S[<=<maxlen>] for a slice)
//	U(<m>|<m>|...)         union, members in index order
//	U<bits>(<i>:<m>|...)   union with IndexBits or At: the index width, and each
//	                       member's index
//	k<hex>                 serialize check, 8 hex digits of the hash
//	^<k>                   the node k levels up (recursive types; 1 is the parent)
//
// Clamp does not appear: it changes what the encoder accepts, not the wire.
// Recursion is written where the Go type graph closes a cycle, so two
// differently structured recursive types can describe the same bits with
// different text; the same type always gives the same text.
func (l Layout) Schema() string {
	var s schemaWriter
	if l.Root != nil {
		s.walk(l.Root)
	}
	return s.b.String()
}

// schemaWriter writes Layout.Schema: each kind's production (see the kinds
// table), with recursion written as ^k.
type schemaWriter struct {
	b     strings.Builder
	stack []*Field
}

func (s *schemaWriter) write(text string) { s.b.WriteString(text) }

// walk writes f, or a reference to it when it encloses itself.
func (s *schemaWriter) walk(f *Field) {
	for k := len(s.stack) - 1; k >= 0; k-- {
		if same(s.stack[k], f) {
			s.write("^" + strconv.Itoa(len(s.stack)-k))
			return
		}
	}
	s.stack = append(s.stack, f)
	kinds[f.Kind].schema(s, f)
	s.stack = s.stack[:len(s.stack)-1]
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

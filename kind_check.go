package bitpack

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/bitpack-go/bitpack/bitio"
)

// Serialize checks: a bitpack.Check field, aligned, then a 32-bit hash.

var checkKind = kindFuncs{name: "check",
	describe: func(f *Field) string { return fmt.Sprintf("check %q = %#08x", f.CheckName, f.CheckHash) },
	schema:   func(s *schemaWriter, f *Field) { s.write("k" + strconv.FormatUint(uint64(f.CheckHash)|1<<32, 16)[1:]) },
	maxBits:  func(*Field, func(*Field) int64) int64 { return 39 }, // up to 7 bits of alignment
	minBits:  func(*Field, func(*Field) int64) int64 { return 32 }}

var checkType = reflect.TypeFor[Check]()

func (c *compiler) appendCheck(ops *[]op, o *tagOptions, f fieldCtx, base op) (*Field, error) {
	if f.inherited || !o.checkSet {
		return nil, f.structural(nil, "a bitpack.Check field needs a tag naming the check, e.g. bits:\"check=end of packet\"")
	}
	if !only(o, func(r *tagOptions) { r.checkSet, r.check = false, "" }) {
		return nil, f.tagged(o, "check does not combine with other options")
	}
	base.kind, base.hash, base.bits, base.name = KindCheck, checkHash(o.check), 32, o.check
	*ops = append(*ops, base)
	return &Field{Type: checkType, Kind: KindCheck, Bits: 32, CheckName: o.check, CheckHash: base.hash}, nil
}

func encodeCheck(w *bitio.Writer, o *op, _ pointer, _ int) *fieldError {
	w.Align()
	w.WriteBits(uint64(o.hash), 32)
	return nil
}

func decodeCheck(d *decoder, o *op, _ pointer, start, _ int) *fieldError {
	r := d.r
	r.Align()
	if v := r.ReadBits(32); r.Err() == nil && v != uint64(o.hash) {
		return newFieldError(o.path, start, ErrCheck, "check %q read %#08x, want %#08x: reader and writer disagree before this point", o.name, v, o.hash)
	}
	return nil
}

// Check marks a serialize check: a field of type Check tagged
// bits:"check=NAME" writes an alignment and then the 32-bit hash of NAME,
// and decoding refuses any other value with ErrCheck. Placed between groups
// of fields, checks catch read and write code that disagree (in a C++ peer,
// or across versions) at the point where they part; a check named
// "end of packet" as the last field catches truncation. Each costs 32 bits
// plus up to 7 bits of padding, so use them while developing a protocol or
// where the safety is worth the bytes. Check has no size in memory.
type Check struct{}

// ErrCheck reports a serialize check that read a different value: the
// reader and the writer disagree about the fields before it.
var ErrCheck = errors.New("bitpack: serialize check failed")

// checkHash is the articles' serialize_check hash of name: starting from 0,
// for each byte c (a–z folded to A–Z): h += c; h += h << 10; h ^= h >> 6,
// in uint32 arithmetic.
func checkHash(name string) uint32 {
	var h uint32
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		h += uint32(c)
		h += h << 10
		h ^= h >> 6
	}
	return h
}

package bitpack

import "github.com/bitpack-go/bitpack/bitio"

// Columns: arrays and slices of small structs encoded a field at a time
// across many elements.

// columnWords is the size of encodeColumns' buffer of group words (512
// bytes, on the stack): Go zeroes it on every call, which a 2 KiB buffer
// made cost a slice of six small structs 5% of its encode, while bigger
// chunks gained nothing measurable on the snapshot. Arrays and slices of
// fewer than columnMin elements go through encodeValues.
const (
	columnWords = 64
	columnMin   = 4
)

// encodeColumns writes n values of plan p exactly as encodeValues does, a
// chunk of values at a time, in two passes over the chunk. The first
// computes the words of every value's groups one step at a time for all
// the values, so each loop over the values handles one kind of field
// with nothing to dispatch; the second writes the words in order, running
// the plan's other ops (strings, pointers, ...) in their places. When the
// first pass refuses a value, the chunk goes through encodeValues instead,
// which stops at the first refusal in wire order with the usual error.
func encodeColumns(w *bitio.Writer, p *plan, first pointer, stride uintptr, n int, depth int) (*fieldError, int) {
	var buf [columnWords]uint64
	g := p.groups
	chunk := columnWords / g
	for start := 0; start < n; start += chunk {
		m := min(chunk, n-start)
		base := first.index(start, stride)
		codes := buf[:m*g]
		clear(codes)
		if !fillColumns(p, codes, base, stride, m) {
			if err, k := encodeValues(w, p, base, stride, m, depth); err != nil {
				return err, start + k
			}
			continue
		}
		if len(p.encOut) == 1 { // one group, nothing else: the words back to back
			bitio.WriteUints(w, codes, int(p.encOut[0].bits))
			continue
		}
		for k := 0; k < m; k++ {
			row := codes[k*g : k*g+g]
			j := 0
			for _, out := range p.encOut {
				if out.op < 0 {
					w.WriteBitsUnchecked(row[j], int(out.bits)) // checked codes, as in encodeValue
					j++
					continue
				}
				o := &p.ops[out.op]
				at := base.index(k, stride).field(o.offset)
				var err *fieldError
				if out.pointee {
					err = encodePointee(w, o, at.elem(), depth)
				} else {
					err = encodeOp(w, o, at, depth)
				}
				if err != nil {
					return err, start + k
				}
			}
		}
	}
	return nil, 0
}

// fillColumns ORs the code of every grouped field of m values into codes,
// where value k's words start at codes[k*p.groups]. It reports false when
// a value is refused.
func fillColumns(p *plan, codes []uint64, base pointer, stride uintptr, m int) bool {
	g := p.groups
	for i := range p.enc {
		st := &p.enc[i]
		col, at := codes[st.group:], base.field(st.offset)
		var ok bool
		if st.kind >= accOp { // ops: written in the second pass
			continue
		}
		switch st.kind {
		case accU8, accU16, accU32, accU64, accI8, accI16, accI32, accI64:
			ok = intColumns(st.kind, col, g, at, stride, m, st, st.shift)
		case accRun:
			shift := st.shift
			ok = true
			for j := 0; j < int(st.count) && ok; j++ {
				ok = intColumns(st.elem, col, g, at.index(j, uintptr(st.size)), stride, m, st, shift)
				shift += st.width
			}
		case accQ32:
			ok = floatColumn(col, g, at, stride, m, st)
		case accQuat:
			ok = quatColumn(&p.ops[st.op], col, g, at, stride, m, st)
		case accPtr:
			ok = true
			for k := 0; k < m; k++ {
				if !at.index(k, stride).elem().isNil() {
					col[k*g] |= 1 << (st.shift & 63)
				}
			}
		default: // accQ64
			o := &p.ops[st.op]
			ok = true
			for k := 0; k < m && ok; k++ {
				code, err := fieldCode(o, at.index(k, stride))
				col[k*g] |= code << (st.shift & 63)
				ok = err == nil
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

package bitpack

// Strings, []byte and [N]byte: a length (but for arrays), alignment,
// then the bytes.

// string reads a string field.
func (d *decoder) string(o *op, at pointer, start int) *fieldError {
	b := d.r.ReadStringBytes(o.n)
	if d.r.Err() != nil {
		return nil // reported by plan
	}
	work, bytes := stringCharge(len(b))
	if err := d.charge(work, bytes, valuesOf(1, uintptr(len(b))), start); err != nil {
		return err.withPrefix(o.path)
	}
	if s := at.string(); *s != string(b) { // no allocation when unchanged
		*s = string(b)
		d.grow(len(b), 1)
	}
	return nil
}

// bytes reads a []byte field: its length, then the bytes, aligned.
func (d *decoder) bytes(o *op, at pointer, start int) *fieldError {
	r := d.r
	n := r.ReadBits(o.bits)
	if n > uint64(o.n) {
		return newFieldError(o.path, start, ErrRange, "length %d exceeds maxlen %d", n, o.n)
	}
	r.Align()
	if r.Err() != nil {
		return nil
	}
	if n > uint64(r.BitsRemaining()/8) {
		return newFieldError(o.path, start, ErrOverflow, "needs %d bytes, %d remain", n, r.BitsRemaining()/8)
	}
	work, bytes := elemsCharge(o, int(n))
	if err := d.charge(work, bytes, valuesOf(1, uintptr(n)), start); err != nil {
		return err.withPrefix(o.path)
	}
	b := at.bytes()
	if cap(*b) >= int(n) {
		*b = (*b)[:n]
	} else {
		*b = make([]byte, n)
		d.grow(int(n), 1)
	}
	r.ReadBytes(*b)
	return nil
}

// commitBytes commits a []byte field.
func commitBytes(d, s pointer) {
	db, sb := d.bytes(), s.bytes()
	if cap(*db) >= len(*sb) {
		*db = append((*db)[:0], *sb...)
		return
	}
	*db, *sb = *sb, nil
}

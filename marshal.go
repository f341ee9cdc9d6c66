package bitpack

import (
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/internal/frame"
)

// Marshal returns the encoding of v: a pointer to a value (the value is
// encoded, not the pointer) or a value.
func Marshal(v any) ([]byte, error) {
	if p, base, ok := planOfPointer(v); ok {
		return marshalPlan(p, p.typ, base)
	}
	t, base, err := valueOf(v, "Marshal")
	if err != nil {
		return nil, err
	}
	p, err := planOf(t)
	if err != nil {
		return nil, err
	}
	return marshalPlan(p, t, base)
}

// MarshalWithin encodes v as Marshal does, for a MarshalBits hook that
// writes a buffer of its own into its packet (a blob, which UnmarshalBits
// then decodes with UnmarshalWithin): w is the Writer the hook was handed,
// and the encode counts as part of the one that called the hook — within
// its MaxDepth, and with what UnmarshalWithin will charge for the buffer
// counted towards the packet's allowances — so that Marshal refuses the
// packets Unmarshal would. A plain Marshal inside a hook is checked on its
// own: its buffer could take the packet's decode past MaxDepth or its
// allowances, and the packet Marshal accepted would not decode. Outside a
// hook (w was not handed to one), it is Marshal.
func MarshalWithin(w *bitio.Writer, v any) ([]byte, error) {
	if w == nil {
		return nil, errors.New("bitpack: MarshalWithin with a nil *bitio.Writer")
	}
	hf := frameOfWriter(w)
	if !hf.Active || hf.Depth == 0 {
		return Marshal(v)
	}
	t, base, err := valueOf(v, "MarshalWithin")
	if err != nil {
		return nil, err
	}
	p, err := planOf(t)
	if err != nil {
		return nil, err
	}
	// The buffer's own Writer counts, as a hook's does (see endEncode);
	// its count joins the hook's.
	var bw bitio.Writer
	bw.Reset(nil)
	*frameOfWriter(&bw) = frame.Frame{Active: true, Depth: hf.Depth, Counting: true}
	ferr := encodeRoot(&bw, p, base, hf.Depth)
	if ferr == nil {
		ferr = endEncode(&bw, p, base, 0, false, false)
	}
	if ferr != nil {
		return nil, publicError("encode", t, ferr)
	}
	bf := frameOfWriter(&bw)
	hf.Work, hf.Bytes = satAdd(hf.Work, bf.Work), satAdd(hf.Bytes, bf.Bytes)
	return bw.Bytes(), nil
}

// Append appends the encoding of v to dst and returns the extended slice. It
// allocates nothing when dst has the capacity. On error it returns dst
// unchanged (bytes past len(dst) may have been overwritten).
func Append(dst []byte, v any) ([]byte, error) {
	if p, base, ok := planOfPointer(v); ok {
		return appendPlan(dst, p, p.typ, base)
	}
	t, base, err := valueOf(v, "Append")
	if err != nil {
		return dst, err
	}
	p, err := planOf(t)
	if err != nil {
		return dst, err
	}
	return appendPlan(dst, p, t, base)
}

// Encode writes v to w, so several values can share one packet. On error
// nothing of v stays in w, and w is left failed (its Err is set).
func Encode(w *bitio.Writer, v any) error {
	if w == nil {
		return errors.New("bitpack: Encode with a nil *bitio.Writer")
	}
	if p, base, ok := planOfPointer(v); ok {
		return encodeTo(w, p, p.typ, base)
	}
	t, base, err := valueOf(v, "Encode")
	if err != nil {
		return err
	}
	p, err := planOf(t)
	if err != nil {
		return err
	}
	return encodeTo(w, p, t, base)
}

// valueOf finds the type to encode and the address of the value: the
// pointee for a non-nil pointer, or a copy of a non-pointer value.
func valueOf(v any, fn string) (reflect.Type, pointer, error) {
	rv := reflect.ValueOf(v)
	switch {
	case !rv.IsValid():
		return nil, pointer{}, fmt.Errorf("bitpack: %s(nil)", fn)
	case rv.Kind() == reflect.Pointer:
		if rv.IsNil() {
			return nil, pointer{}, fmt.Errorf("bitpack: %s of a nil %s", fn, rv.Type())
		}
		if p, err := planOf(rv.Type().Elem()); err == nil {
			rememberPointerType(v, p)
		}
		return rv.Type().Elem(), pointerOf(rv), nil
	}
	c := reflect.New(rv.Type())
	c.Elem().Set(rv)
	return rv.Type(), pointerOf(c), nil
}

// scratchBuffers holds the buffers Marshal encodes into before copying the
// result into a slice of exactly the right size.
var scratchBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func marshalPlan(p *plan, t reflect.Type, base pointer) ([]byte, error) {
	bp := scratchBuffers.Get().(*[]byte)
	buf, err := appendPlan((*bp)[:0], p, t, base)
	if err != nil {
		scratchBuffers.Put(bp)
		return nil, err
	}
	out := make([]byte, len(buf))
	copy(out, buf)
	putScratchBuffer(bp, buf)
	return out, nil
}

// putScratchBuffer gives buf, grown from *bp, back to scratchBuffers —
// unless it grew past 64 KiB: one huge packet must not keep its buffer
// alive for good.
func putScratchBuffer(bp *[]byte, buf []byte) {
	if cap(buf) <= 64<<10 {
		*bp = buf[:0]
		scratchBuffers.Put(bp)
	}
}

func appendPlan(dst []byte, p *plan, t reflect.Type, base pointer) ([]byte, error) {
	var w bitio.Writer
	w.Reset(dst)
	if p.counted {
		beginEncode(&w, 8*len(dst))
	}
	var ferr *fieldError
	if p.levels <= MaxDepth {
		ferr = encodeValue(&w, p, base, 0) // encodeRoot's work, without a call
	} else {
		ferr = encodeRoot(&w, p, base, 0)
	}
	if ferr == nil && p.counted {
		ferr = endEncode(&w, p, base, 8*len(dst), true, false)
	}
	if ferr != nil {
		return dst, publicError("encode", t, ferr)
	}
	return w.Bytes(), nil
}

func encodeTo(w *bitio.Writer, p *plan, t reflect.Type, base pointer) error {
	if err := w.Err(); err != nil {
		return err
	}
	start, saved := w.BitsWritten(), *frameOfWriter(w)
	beginEncode(w, start)
	ferr := encodeRoot(w, p, base, hookDepth(w))
	if ferr == nil {
		ferr = endEncode(w, p, base, start, false, false)
	}
	if ferr != nil {
		err := publicError("encode", t, ferr)
		w.Rewind(start)
		*frameOfWriter(w) = saved
		w.Fail(err)
		return err
	}
	return nil
}

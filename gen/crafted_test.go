package gen

import (
	"math"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// craft is a packet built to test one wire rule, with a control beside
// the ones that break it.
type craft struct {
	name   string
	packet []byte
}

func float32bits(f float32) uint32 { return math.Float32bits(f) }
func float64bits(f float64) uint64 { return math.Float64bits(f) }

// absolute writes an int_relative in its absolute tier, whatever the
// difference: six zero flags, then cur in 32 bits.
func absolute(w *bitio.Writer, cur int32) {
	w.WriteBits(0, 6)
	w.WriteBits(uint64(uint32(cur)), 32)
}

// crafted returns the packets crafted for table type typ.
func crafted(t *testing.T, typ reflect.Type) []craft {
	packet := func(write func(w *bitio.Writer)) []byte {
		var w bitio.Writer
		write(&w)
		if err := w.Err(); err != nil {
			t.Fatalf("crafting a %s packet: %v", typ, err)
		}
		return w.Bytes()
	}
	switch typ {
	case reflect.TypeOf(Maps{}):
		return mapCrafts(packet)
	case reflect.TypeOf(QuatProbe{}):
		return quatCrafts(packet)
	case reflect.TypeOf(Numbered{}):
		return numberedCrafts(packet)
	case reflect.TypeOf(Text{}):
		return textCrafts(t)
	case reflect.TypeOf(World{}):
		return worldCrafts(packet)
	case reflect.TypeOf(Far{}):
		slot := func(name string, first func(w *bitio.Writer), prev int32) craft {
			return craft{name, packet(func(w *bitio.Writer) {
				w.WriteBytes(make([]byte, 130)) // Pad
				first(w)
				w.WriteBits(2, 2) // the element
				w.WriteIntRelative(prev, 70000)
			})}
		}
		return []craft{
			slot("gap 69915 in the absolute tier (canonical)", func(w *bitio.Writer) { w.WriteIntRelative(-1, 69914) }, 69914),
			slot("gap 69914 in the absolute tier (a tier holds it)", func(w *bitio.Writer) { absolute(w, 69913) }, 69913),
			slot("gap 5 in the absolute tier", func(w *bitio.Writer) { absolute(w, 4) }, 4),
			slot("index 80000 in the absolute tier", func(w *bitio.Writer) { absolute(w, 80000) }, 69999),
			slot("index -5 in the absolute tier", func(w *bitio.Writer) { absolute(w, -5) }, 0),
		}
	case reflect.TypeOf(Pinned{}):
		code := func(name string, v, w uint64) craft {
			return craft{name, packet(func(b *bitio.Writer) { b.WriteBits(v, 10); b.WriteBits(w, 11) })}
		}
		return []craft{
			code("codes M, M (control)", 1000, 2000),
			code("float32 code M+1", 1001, 0),
			code("float32 code 1023", 1023, 0),
			code("float64 code M+1", 0, 2001),
			code("float64 code 2047", 0, 2047),
		}
	case reflect.TypeOf(Envelope{}):
		return []craft{
			{"first member index 3 of 3", packet(func(w *bitio.Writer) { w.WriteBits(3, 2) })},
			{"Move, no rest, Ping (control)", packet(func(w *bitio.Writer) {
				w.WriteBits(0, 2)
				w.WriteBits(3, 4)
				w.WriteBits(4, 4)
				w.WriteBits(0, 3)
				w.WriteBits(7, 16)
			})},
			{"rest of 5 (maxlen 4)", packet(func(w *bitio.Writer) {
				w.WriteBits(1, 2)
				w.WriteBits(2, 2)
				w.WriteBits(5, 3)
			})},
		}
	case reflect.TypeOf(Ranges{}):
		return []craft{
			{"Health 1001", packet(func(w *bitio.Writer) { w.WriteBits(1001, 10); w.WriteBits(0, 64) })},
			{"Temp 86", packet(func(w *bitio.Writer) { w.WriteBits(0, 10); w.WriteBits(126, 7); w.WriteBits(0, 64) })},
		}
	}
	return nil
}

// textCrafts patches the three bytes of a valid Text packet's Name "abc"
// with byte strings bitpack refuses (and one it accepts), and sets a
// padding bit.
func textCrafts(t *testing.T) []craft {
	base, err := bitpack.Marshal(&Text{Name: "abc"})
	if err != nil {
		t.Fatal(err)
	}
	if string(base[1:4]) != "abc" {
		t.Fatalf("Text packet %x: Name is not at bytes 1..3", base)
	}
	var out []craft
	for _, s := range []struct{ name, bytes string }{
		{"euro sign (control)", "\xe2\x82\xac"},
		{"NUL", "a\x00b"},
		{"overlong NUL", "\xc0\x80a"},
		{"surrogate", "\xed\xa0\x80"},
		{"past U+10FFFF", "\xf4\x90\x80"},
		{"truncated sequence", "a\xe2\x82"},
		{"bare continuation", "\x80ab"},
		{"0xff", "a\xffb"},
	} {
		p := append([]byte(nil), base...)
		copy(p[1:4], s.bytes)
		out = append(out, craft{"Name " + s.name, p})
	}
	p := append([]byte(nil), base...)
	p[0] |= 0x80
	return append(out, craft{"a padding bit after Name's length", p})
}

// worldCrafts builds World packets around the sparse rules: indices in the
// absolute tier, past the length, going backwards.
func worldCrafts(packet func(func(*bitio.Writer)) []byte) []craft {
	obj := func(w *bitio.Writer) { w.WriteBits(1, 4); w.WriteBits(2, 16) }
	rest := func(w *bitio.Writer) {
		w.WriteBits(0, 9)         // Extra: length 0
		w.WriteIntRelative(-1, 0) // its end marker
		w.WriteIntRelative(-1, 8) // Bytes: no element
	}
	return []craft{
		{"object 5 (control)", packet(func(w *bitio.Writer) {
			w.WriteIntRelative(-1, 5)
			obj(w)
			w.WriteIntRelative(5, 40)
			rest(w)
		})},
		{"object 5 in the absolute tier", packet(func(w *bitio.Writer) {
			absolute(w, 5)
			obj(w)
			w.WriteIntRelative(5, 40)
			rest(w)
		})},
		{"end marker in the absolute tier", packet(func(w *bitio.Writer) {
			w.WriteIntRelative(-1, 5)
			obj(w)
			absolute(w, 40)
			rest(w)
		})},
		{"index 41 of 40", packet(func(w *bitio.Writer) {
			w.WriteIntRelative(-1, 41)
			obj(w)
			rest(w)
		})},
		{"index going back in the absolute tier", packet(func(w *bitio.Writer) {
			w.WriteIntRelative(-1, 5)
			obj(w)
			absolute(w, 3)
			obj(w)
			w.WriteIntRelative(5, 40)
			rest(w)
		})},
		{"Extra of 301 (maxlen 300)", packet(func(w *bitio.Writer) {
			w.WriteIntRelative(-1, 40)
			w.WriteBits(301, 9)
		})},
		{"Extra index 3 of 2", packet(func(w *bitio.Writer) {
			w.WriteIntRelative(-1, 40)
			w.WriteBits(2, 9)
			w.WriteIntRelative(-1, 3)
			obj(w)
		})},
	}
}

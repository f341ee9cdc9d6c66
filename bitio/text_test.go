package bitio_test

import (
	"bytes"
	"errors"
	"math"
	"math/bits"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bitpack-go/bitpack/bitio"
)

// textRule is the string rule as the standard library words it: valid
// UTF-8, no NUL byte.
func textRule(b []byte) bool {
	return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
}

func checkValid(t *testing.T, b []byte) {
	t.Helper()
	want := textRule(b)
	if got := bitio.ValidStringBytes(b); got != want {
		t.Fatalf("ValidStringBytes(%q) = %v, want %v", b, got, want)
	}
	if got := bitio.ValidString(string(b)); got != want {
		t.Fatalf("ValidString(%q) = %v, want %v", b, got, want)
	}
}

// TestValidStringShort: every string of up to 2 bytes, and every 3-byte
// string over bytes that matter to UTF-8 and to the word tests (0, ASCII,
// continuation bytes, every kind of lead byte, bytes never valid).
func TestValidStringShort(t *testing.T) {
	checkValid(t, nil)
	for a := range 256 {
		checkValid(t, []byte{byte(a)})
		for b := range 256 {
			checkValid(t, []byte{byte(a), byte(b)})
		}
	}
	sample := []byte{0, 1, 'a', 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff}
	for _, a := range sample {
		for _, b := range sample {
			for _, c := range sample {
				checkValid(t, []byte{a, b, c})
			}
		}
	}
}

// TestValidStringPositions: ASCII strings of every length up to 40 (the
// word loop, its overlapping last word and the short cases), with one
// thing placed at every position: a NUL, a valid character of 2, 3 and 4
// bytes, an invalid sequence; and a NUL both before and after a non-ASCII
// character (the ASCII prefix's NUL must count, and so must the rest's).
func TestValidStringPositions(t *testing.T) {
	inserts := []string{"\x00", "é", "€", "🎮", "\xff", "\x80", "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80", "\x7f", "\x01"}
	for n := range 41 {
		base := strings.Repeat("abcdefghij", 5)[:n]
		checkValid(t, []byte(base))
		for i := 0; i <= n; i++ {
			for _, in := range inserts {
				checkValid(t, []byte(base[:i]+in+base[i:]))
				checkValid(t, []byte(base[:i]+"\x00"+base[i:]+"é"))
				checkValid(t, []byte(base[:i]+"é"+base[i:]+"\x00"))
			}
		}
	}
}

func FuzzValidString(f *testing.F) {
	for _, s := range []string{"", "a", "hello world!", "žluťoučký kůň", "日本語", "🎮", "abcdefgh\x00", "abcdefghijklmno\xff", "\xed\xa0\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkValid(t, b)
	})
}

// TestWriteStringEverywhere: WriteString lays out the oracle's bits (the
// length in the bits maxlen needs, zero padding, the bytes) from every bit
// offset, for every length up to 20 and maxlens whose length fields end
// before, at and past the scratch word, ASCII or not, with the spare room
// after the buffer's length from none to 56 bytes (its path without calls
// needs 40); and it touches nothing past what Bytes returns.
func TestWriteStringEverywhere(t *testing.T) {
	const sentinel = 0xe5
	texts := []string{strings.Repeat("abcdefghij", 2), strings.Repeat("é", 10), "日本語日本語日本", "🎮🎮🎮🎮🎮"}
	for off := 0; off < 64; off++ {
		for _, maxlen := range []int{0, 1, 7, 16, 20, 255, 1 << 20, math.MaxInt} {
			lenBits := bits.Len64(uint64(maxlen))
			for n := 0; n <= min(maxlen, 20); n++ {
				for _, text := range texts {
					s := text[:n]
					if !utf8.ValidString(s) {
						continue // a character cut in two
					}
					want := append(pack(f{1<<off - 1, off}, f{uint64(n), lenBits}, f{0, -(off + lenBits) & 7}), s...)
					for room := 0; room <= 56; room++ {
						backing := bytes.Repeat([]byte{sentinel}, 16+len(want)+room)
						w := bitio.NewWriter(backing[: 16 : 16+len(want)+room][16:16])
						w.WriteBits(1<<off-1, off)
						w.WriteString(s, maxlen)
						got := w.Bytes()
						if w.Err() != nil || !bytes.Equal(got, want) || w.BitsWritten() != 8*len(want) {
							t.Fatalf("offset %d, maxlen %d, %q, room %d: % x (%v), want % x", off, maxlen, s, room, got, w.Err(), want)
						}
						for i := 16 + len(got); i < len(backing); i++ {
							if backing[i] != sentinel {
								t.Fatalf("offset %d, maxlen %d, %q, room %d: byte %d past the end overwritten", off, maxlen, s, room, i-16)
							}
						}
					}
				}
			}
		}
	}
}

// TestWriteStringRefusals: each refusal, whatever the length and room,
// writes nothing, and its error names what is wrong (the first NUL before
// anything else; the first byte that does not start a valid sequence).
func TestWriteStringRefusals(t *testing.T) {
	cases := []struct {
		s      string
		maxlen int
		want   error
		msg    string
	}{
		{"abc", 2, bitio.ErrRange, "string of 3 bytes exceeds maxlen 2"},
		{"", -1, bitio.ErrRange, "negative maxlen -1"},
		{"a\x00", 16, bitio.ErrInvalidString, "NUL byte at offset 1"},
		{"\x00", 16, bitio.ErrInvalidString, "NUL byte at offset 0"},
		{"abcdefgh\x00", 16, bitio.ErrInvalidString, "NUL byte at offset 8"},
		{"abcdefghijklmno\x00", 16, bitio.ErrInvalidString, "NUL byte at offset 15"},
		{"abcdefghijklmnopq\x00", 32, bitio.ErrInvalidString, "NUL byte at offset 17"},
		{"é\x00", 16, bitio.ErrInvalidString, "NUL byte at offset 2"},
		{"\xff\x00", 16, bitio.ErrInvalidString, "NUL byte at offset 1"},
		{"ab\xff", 16, bitio.ErrInvalidString, "invalid UTF-8 at offset 2"},
		{"abcdefghijklm\xc3", 16, bitio.ErrInvalidString, "invalid UTF-8 at offset 13"},
		{"abcdefghijklmnopqrstu\xed\xa0\x80", 32, bitio.ErrInvalidString, "invalid UTF-8 at offset 21"},
	}
	for _, c := range cases {
		for room := 0; room <= 48; room += 8 {
			backing := bytes.Repeat([]byte{0xe5}, 2+room)
			w := bitio.NewWriter(backing[:1:len(backing)])
			w.WriteBits(1, 3)
			w.WriteString(c.s, c.maxlen)
			err := w.Err()
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("%q maxlen %d room %d: %v, want %v %q", c.s, c.maxlen, room, err, c.want, c.msg)
			}
			if w.BitsWritten() != 3 || !bytes.Equal(backing[1:], bytes.Repeat([]byte{0xe5}, 1+room)) {
				t.Fatalf("%q room %d: a refused string wrote something (%d bits written)", c.s, room, w.BitsWritten())
			}
		}
	}
}

func TestStringRoundTrip(t *testing.T) {
	for _, s := range []string{"", "a", "hello world!", "žluťoučký kůň", "日本語", "🎮"} {
		w := bitio.NewWriter(nil)
		w.WriteBits(1, 1)
		w.WriteString(s, 40)
		r := bitio.NewReader(w.Bytes())
		r.ReadBits(1)
		if got := r.ReadString(40); got != s || r.Err() != nil {
			t.Errorf("%q: got %q, %v", s, got, r.Err())
		}
	}
}

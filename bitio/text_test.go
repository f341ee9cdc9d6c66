package bitio_test

import (
	"bytes"
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

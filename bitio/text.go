package bitio

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// The string rule: a string travels if it is valid UTF-8 with no NUL byte.
// ValidString and ValidStringBytes decide it; stringProblem and
// bytesProblem word a refusal. Generated Go code repeats the rule
// (bitpackText): change package bitpack's rulesVersion (generated.go) when
// you change it.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// ValidString reports whether s may travel as a string: valid UTF-8 with
// no NUL byte (what WriteString checks).
func ValidString(s string) bool {
	i, ok := asciiPrefix(s)
	if i == len(s) || !ok {
		return ok
	}
	rest := s[i:]
	return strings.IndexByte(rest, 0) < 0 && utf8.ValidString(rest)
}

// ValidStringBytes is ValidString for the bytes of a string (what
// ReadString and ReadStringBytes check).
func ValidStringBytes(b []byte) bool {
	if n := len(b); n >= 8 && n <= 16 { // asciiPrefix's test on two words, without its call
		x, y := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
		if (x|y)&highs == 0 {
			return (x+(highs-ones))&(y+(highs-ones))&highs == highs
		}
	}
	i, ok := asciiPrefix(b)
	if i == len(b) || !ok {
		return ok
	}
	rest := b[i:]
	return bytes.IndexByte(rest, 0) < 0 && utf8.Valid(rest)
}

// asciiPrefix looks at s 8 bytes at a time while they are ASCII: a word
// with no high bit set is 8 ASCII bytes, and adding 0x7f to each of them
// sets its high bit unless it is 0, with no carry between bytes. It
// returns len(s) when s is ASCII, else the index of the first word with a
// byte of 0x80 or more (a boundary between characters: every byte before
// it is ASCII), and whether the bytes before that index hold no NUL.
func asciiPrefix[T ~string | ~[]byte](s T) (int, bool) {
	n := len(s)
	if n < 8 {
		return asciiShort(s)
	}
	nonzero := uint64(highs) // a byte lane's high bit stays set while no byte seen in it is 0
	i := 0
	for ; i <= n-8; i += 8 {
		x := load64(s, i)
		if x&highs != 0 {
			return i, nonzero == highs
		}
		nonzero &= x + (highs - ones)
	}
	if i < n {
		// The last n-i bytes, read as the final 8 (the bytes before them
		// are ASCII: checking them again changes nothing).
		x := load64(s, n-8)
		if x&highs != 0 {
			return i, nonzero == highs
		}
		nonzero &= x + (highs - ones)
	}
	return n, nonzero == highs
}

// asciiShort is asciiPrefix for fewer than 8 bytes, read as one word of
// overlapping loads (each byte of the word is a byte of s).
func asciiShort[T ~string | ~[]byte](s T) (int, bool) {
	var x uint64
	switch n := len(s); {
	case n >= 4:
		x = uint64(load32(s, 0)) | uint64(load32(s, n-4))<<32
	case n >= 2:
		x = uint64(load16(s, 0)) | uint64(load16(s, n-2))<<16
		x |= x << 32
	case n == 1:
		x = uint64(s[0]) * ones
	default:
		return 0, true
	}
	if x&highs != 0 {
		return 0, true
	}
	return len(s), (x+(highs-ones))&highs == highs
}

// load64, load32 and load16 read little-endian words of s at i; the
// compiler turns each into one load.
func load64[T ~string | ~[]byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func load32[T ~string | ~[]byte](s T, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func load16[T ~string | ~[]byte](s T, i int) uint16 {
	s = s[i : i+2]
	return uint16(s[0]) | uint16(s[1])<<8
}

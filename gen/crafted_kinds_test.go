package gen

import (
	"github.com/bitpack-go/bitpack/bitio"
)

// Packets crafted around the rules of maps, quaternions and numbered
// unions, each with a control beside the ones that break a rule.

// mapCrafts are Maps packets whose Scores hold the keys given, in that
// order (each with the value 0), the other maps empty.
func mapCrafts(packet func(func(*bitio.Writer)) []byte) []craft {
	scores := func(count int, keys ...string) []byte {
		return packet(func(w *bitio.Writer) {
			w.WriteBits(uint64(count), 3)
			for _, k := range keys {
				w.WriteString(k, 6)
				w.WriteBits(100, 8) // 0, the offset from -100
			}
			w.WriteBits(0, 18) // ByID, Flags, Signed, Big, Lists, Rot, Nested[0], Nested[1], High: no entries
		})
	}
	return []craft{
		{"Scores a, b (control)", scores(2, "a", "b")},
		{"Scores b, a", scores(2, "b", "a")},
		{"Scores a, a", scores(2, "a", "a")},
		{"Scores \"\", a, ab, b (control)", scores(4, "", "a", "ab", "b")},
		{"Scores ab, a", scores(2, "ab", "a")},
		{"Scores of 5 (maxlen 4)", scores(5, "a", "b", "c", "d", "e")},
		{"Scores keys past U+FFFF after U+FFFD (control)", scores(2, "\ufffd", "\U0001f600")},
		{"Scores keys U+1F600 before U+FFFD", scores(2, "\U0001f600", "\ufffd")},
		{"Flags true, false", packet(func(w *bitio.Writer) {
			w.WriteBits(0, 3+2) // Scores, ByID
			w.WriteBits(2, 2)   // Flags: 2 entries
			w.WriteBool(true)   //
			w.WriteBits(1, 3)   //
			w.WriteBool(false)  //
			w.WriteBits(1, 3)   //
			w.WriteBits(0, 14)  // the rest empty
		})},
	}
}

// quatCrafts are QuatProbe packets with A's code as given, B and C the
// identity.
func quatCrafts(packet func(func(*bitio.Writer)) []byte) []craft {
	a := func(largest uint64, c0, c1, c2 uint64) []byte {
		return packet(func(w *bitio.Writer) {
			w.WriteBits(largest, 2)
			w.WriteBits(c0, 4)
			w.WriteBits(c1, 4)
			w.WriteBits(c2, 4)
			w.WriteBits(3, 2)
			w.WriteBits(255|255<<9|255<<18, 27) // B: codes M/2
			w.WriteBits(3, 2)
			w.WriteBits(4095|4095<<13|4095<<26, 39) // C: codes M/2
		})
	}
	return []craft{
		{"A identity (control)", a(3, 7, 7, 7)},
		{"A code 15", a(3, 7, 15, 7)},
		{"A index 0, codes 14 7 7 (the largest is y)", a(0, 14, 7, 7)},
		{"A index 3, codes 0 0 0 (w rebuilt as 0)", a(3, 0, 0, 0)},
	}
}

// numberedCrafts are Numbered packets: C's index, More empty, T's and L's
// as given.
func numberedCrafts(packet func(func(*bitio.Writer)) []byte) []craft {
	p := func(c, t, l uint64) []byte {
		return packet(func(w *bitio.Writer) {
			w.WriteBits(c, 4)
			switch c {
			case 7:
				w.WriteBits(3, 4) // Jump.H
			case 9:
				w.WriteBool(true) // Duck.Low
			}
			w.WriteBits(0, 2) // More: none
			w.WriteBits(t, 5)
			w.WriteBits(0, 8) // Up.N or Down.N
			w.WriteBits(l, 2)
			w.WriteBits(3, 2) // Solo.Q: the identity at 5 bits
			w.WriteBits(15|15<<5|15<<10, 15)
		})
	}
	return []craft{
		{"C 7, T 1, L 2 (control)", p(7, 1, 2)},
		{"C index 8", p(8, 1, 2)},
		{"C index 0", p(0, 0, 2)},
		{"T index 5 of 2 in 5 bits", p(9, 5, 2)},
		{"L index 1 (the member is 2)", p(7, 0, 1)},
	}
}

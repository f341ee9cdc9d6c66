package gen

import (
	"testing"
	"time"
)

// TestCPPDeltas runs the delta corpus through the generated C++
// (SerializeDelta, through bitpack::read_delta): every delta Go writes
// between neighbouring values of every table type is applied by the C++
// to the same base and gives the same value, written back whole byte for
// byte; damaged and random deltas are refused by both sides, or accepted
// by both with the same result; and the C++ writes, for every pair, the
// very delta Go writes. Both builds run it: AddressSanitizer and UBSan on
// the hostile deltas, and -O2 -march=native -ffp-contract=fast for the
// pinned float arithmetic of the codes compared and rebuilt.
func TestCPPDeltas(t *testing.T) {
	if raceEnabled {
		t.Skip("the C++ side does not change under Go's race detector; the plain run covers it")
	}
	gxx := requireCompiler(t)
	c := sharedCorpus(t) // the driver's dispatch holds the read and write cases too
	dc := sharedDeltaCorpus(t)
	e, err := newCPP(c.m, Options{Include: "minserialize.h"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	drivers := buildDrivers(t, gxx, cppDispatch(c, e))
	t.Logf("both builds in %v", time.Since(start))
	lines := dc.lines()
	for _, d := range drivers {
		start = time.Now()
		answers := d.run(t, lines, "delta")
		t.Logf("%s build ran in %v", d.name, time.Since(start))
		failures, reads, writes := 0, 0, 0
		for i, cmd := range dc.cmds {
			switch cmd.line[0] {
			case 'D':
				reads++
			case 'E':
				writes++
			}
			if got := answers[i]; got != cmd.want {
				failures++
				if failures <= 12 {
					t.Errorf("%s build: %s\n  Go:  %s\n  C++: %s", d.name, cmd.what, cmd.want, got)
				}
			}
		}
		if failures > 12 {
			t.Errorf("%s build: %d disagreements in all (first 12 shown)", d.name, failures)
		}
		t.Logf("%s build: %d deltas applied, %d written", d.name, reads, writes)
	}
}

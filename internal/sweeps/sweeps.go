// Package sweeps is the one reading of BITPACK_FULL, the switch between
// the tests' full sweeps and their quick ones, and the one place a sweep's
// size is chosen from it. The module's tests (the root package's,
// bitpacktest's, gen's, quant's, snapshot's and cmd/bitpack's) import it.
//
// The modes:
//
//   - BITPACK_FULL=1, as .ci/run sets it: every sweep its full count, and
//     the tests too slow for a plain go test ./... run too.
//   - unset, or any other value (.ci/run's 32-bit steps set 0 to say so):
//     every sweep its quick count, so that go test ./... stays quick.
//
// -short (.ci/run's race and 32-bit steps) caps the sweeps that honour it
// (Count) at their short count, in either mode; FullOrQuick ignores it.
package sweeps

import (
	"os"
	"testing"
)

// Var is the environment variable read here and nowhere else.
const Var = "BITPACK_FULL"

// Full reports whether the environment sets BITPACK_FULL=1.
func Full() bool { return full(os.Getenv(Var)) }

// Count is a sweep's count: full with BITPACK_FULL=1, else quick; with
// -short, at most short. It calls testing.Short, so it is for test
// functions, not for package-level variables (flags are parsed later).
func Count(full, short, quick int) int {
	return count(Full(), testing.Short(), full, short, quick)
}

// FullOrQuick is full with BITPACK_FULL=1, else quick, whatever -short
// says (gen's corpora: .ci/run's 32-bit step runs gen -short with the
// quick corpus). Package-level variables may call it.
func FullOrQuick(full, quick int) int {
	if Full() {
		return full
	}
	return quick
}

// full is Full for the environment's value v.
func full(v string) bool { return v == "1" }

// count is Count for the given mode and -short.
func count(isFull, isShort bool, full, short, quick int) int {
	n := quick
	if isFull {
		n = full
	}
	if isShort {
		n = min(n, short)
	}
	return n
}

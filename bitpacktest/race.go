//go:build race

package bitpacktest

// raceEnabled: the race detector's instrumentation allocates, so Fuzz does
// not measure allocations under it.
const raceEnabled = true

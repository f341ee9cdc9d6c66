//go:build !race

package gen

// raceEnabled: the test binary runs under the race detector.
const raceEnabled = false

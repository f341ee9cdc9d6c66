//go:build !race

package bitpacktest

const raceEnabled = false

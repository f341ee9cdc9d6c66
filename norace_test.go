//go:build !race

package bitpack_test

const raceEnabled = false

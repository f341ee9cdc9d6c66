package gen

import (
	"os"
	"testing"
)

// TestMain runs the tests, then removes what some of them built to share
// (the C++ drivers, see buildDrivers).
func TestMain(m *testing.M) {
	code := m.Run()
	removeBuiltDrivers()
	os.Exit(code)
}

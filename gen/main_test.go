package gen

import (
	"os"
	"sync"
	"testing"
)

// TestMain runs the tests, then removes what some of them built to share
// (the C++ drivers, see buildDrivers, and the shared builds).
func TestMain(m *testing.M) {
	code := m.Run()
	removeBuiltDrivers()
	sharedDirs.Lock()
	for _, dir := range sharedDirs.dirs {
		os.RemoveAll(dir)
	}
	sharedDirs.Unlock()
	os.Exit(code)
}

// sharedDirs are the directories of the shared builds.
var sharedDirs struct {
	sync.Mutex
	dirs []string
}

// sharedBuild is a build made once per test binary, in a directory of
// its own that outlives the test that made it, for every test that runs
// it (the C# and TypeScript drivers, which the cross-language and delta
// tests share; the C# and TypeScript receiver programs, which the
// receiver tests and the damaged stream share).
type sharedBuild struct {
	name string
	once sync.Once
	path string // empty if the build failed
}

// get returns the build's path, building it with build (into dir) on
// first use; build fails its test with t.Fatal.
func (b *sharedBuild) get(t *testing.T, build func(dir string) string) string {
	t.Helper()
	b.once.Do(func() {
		dir, err := sharedTempDir(b.name)
		if err != nil {
			t.Fatal(err)
		}
		b.path = build(dir)
	})
	if b.path == "" {
		t.Fatalf("building the %s failed in an earlier test", b.name)
	}
	return b.path
}

// sharedTempDir makes a directory that outlives the test that made it and
// that TestMain removes after the last test.
func sharedTempDir(name string) (string, error) {
	dir, err := os.MkdirTemp("", "bitpack-"+name)
	if err != nil {
		return "", err
	}
	sharedDirs.Lock()
	sharedDirs.dirs = append(sharedDirs.dirs, dir)
	sharedDirs.Unlock()
	return dir, nil
}

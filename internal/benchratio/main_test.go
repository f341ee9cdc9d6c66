package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	in := `goos: linux
BenchmarkMixed/write/raw-2     	  886022	      1000 ns/op	1528.84 MB/s	       0 B/op	       0 allocs/op
BenchmarkMixed/write/bitio-2   	  361952	      1500 ns/op	 669.68 MB/s	       0 B/op	       0 allocs/op
BenchmarkMixed/write/raw-2     	  886022	      1200 ns/op	1528.84 MB/s	       0 B/op	       0 allocs/op
BenchmarkMixed/write/bitio-2   	  361952	      1400 ns/op	 669.68 MB/s	       0 B/op	       0 allocs/op
BenchmarkMixed/write/raw-2     	  886022	      1100 ns/op	1528.84 MB/s	       0 B/op	       0 allocs/op
BenchmarkMixed/write/bitio-2   	  361952	      2200 ns/op	 669.68 MB/s	      16 B/op	       1 allocs/op
BenchmarkLone-2                	  100	      50 ns/op
PASS
`
	var out strings.Builder
	if err := run(strings.NewReader(in), &out, []string{"raw"}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Mixed/write/raw      ", "1100.0", "base",
		"Mixed/write/bitio", "1500.0", "1.36x",
		"Lone", "50.0",
	}
	got := out.String()
	pos := 0
	for _, w := range want {
		i := strings.Index(got[pos:], w)
		if i < 0 {
			t.Fatalf("output lacks %q after offset %d:\n%s", w, pos, got)
		}
		pos += i + len(w)
	}
	if err := run(strings.NewReader("nothing here"), &out, nil); err == nil {
		t.Fatal("no error for input without benchmarks")
	}
}

// Command benchratio turns `go test -bench` output into the ratios the
// performance targets are stated in, so a noisy machine's absolute times
// matter less: each benchmark is compared with a baseline measured in the
// same run.
//
// Benchmarks are grouped by the name up to their last '/'; in each group the
// member whose last element is one of -base (default "raw,hand,precomputed") is the
// baseline, and every other member is reported as median(ns/op) divided by
// the baseline's median. Run several counts for stable medians:
//
//	go test -run '^$' -bench . -count 10 ./bitio | go run ./internal/benchratio
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// sample is one benchmark's measurements across -count runs.
type sample struct {
	ns, bytes, allocs []float64
}

var (
	lineRE  = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)
	valueRE = regexp.MustCompile(`([\d.]+) (ns/op|B/op|allocs/op)`)
)

func main() {
	base := flag.String("base", "raw,hand,precomputed", "comma-separated names of baseline benchmarks (last path element)")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, strings.Split(*base, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "benchratio:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer, bases []string) error {
	samples := map[string]*sample{}
	var order []string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		name := m[1]
		s := samples[name]
		if s == nil {
			s = &sample{}
			samples[name] = s
			order = append(order, name)
		}
		for _, v := range valueRE.FindAllStringSubmatch(m[2], -1) {
			f, err := strconv.ParseFloat(v[1], 64)
			if err != nil {
				return err
			}
			switch v[2] {
			case "ns/op":
				s.ns = append(s.ns, f)
			case "B/op":
				s.bytes = append(s.bytes, f)
			case "allocs/op":
				s.allocs = append(s.allocs, f)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(order) == 0 {
		return fmt.Errorf("no benchmark lines on input")
	}
	baseline := func(group string) string {
		for _, name := range order {
			g, leaf := split(name)
			if g == group && slices.Contains(bases, leaf) {
				return name
			}
		}
		return ""
	}
	fmt.Fprintf(out, "%-52s %12s %8s %9s %9s\n", "benchmark", "median ns/op", "B/op", "allocs/op", "ratio")
	for _, name := range order {
		s := samples[name]
		ratio := ""
		group, _ := split(name)
		if b := baseline(group); b != "" && b != name {
			ratio = fmt.Sprintf("%.2fx", median(s.ns)/median(samples[b].ns))
		} else if b == name {
			ratio = "base"
		}
		fmt.Fprintf(out, "%-52s %12.1f %8.0f %9.0f %9s\n", strings.TrimPrefix(name, "Benchmark"), median(s.ns), median(s.bytes), median(s.allocs), ratio)
	}
	return nil
}

func split(name string) (group, leaf string) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+1:]
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Command benchtable turns the output of the bench module's benchmarks into
// the Markdown tables of README.md: for each set (Packet, Snapshot), one row
// per format with the median encode and decode times, the encoded size, the
// allocations, and ratios to the baseline format (bitpack's Codec).
//
// It reads benchmarks named Benchmark<set>/<encode|decode>/<format> and
// takes the median of every -count run:
//
//	go test -run '^$' -bench . -count 10 | tee bench.txt
//	go run ./internal/benchtable < bench.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var lineRE = regexp.MustCompile(`^Benchmark([^/\s]+)/(encode|decode)/(\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// runs holds one benchmark's measurements, by unit, across -count runs.
type runs map[string][]float64

func main() {
	base := flag.String("base", "bitpack", "format the ratios are relative to")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *base); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer, base string) error {
	type key struct{ set, op, format string }
	data := map[key]runs{}
	var sets []string
	formats := map[string][]string{} // by set, in order of appearance
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		k := key{m[1], m[2], m[3]}
		if !slices.Contains(sets, k.set) {
			sets = append(sets, k.set)
		}
		if !slices.Contains(formats[k.set], k.format) {
			formats[k.set] = append(formats[k.set], k.format)
		}
		if data[k] == nil {
			data[k] = runs{}
		}
		// The rest of the line is pairs: value unit.
		f := strings.Fields(m[4])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return fmt.Errorf("%q: %v", sc.Text(), err)
			}
			data[k][f[i+1]] = append(data[k][f[i+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(sets) == 0 {
		return fmt.Errorf("no Benchmark<set>/<encode|decode>/<format> lines on input")
	}
	get := func(set, op, format, unit string) (float64, bool) {
		r := data[key{set, op, format}][unit]
		if len(r) == 0 {
			return 0, false
		}
		return median(r), true
	}
	for _, set := range sets {
		fmt.Fprintf(out, "### %s\n\nMedians; the × columns are the format divided by %s.\n\n", set, base)
		fmt.Fprintln(out, "| format | encode ns/op | decode ns/op | bytes | encode allocs | decode allocs | encode × | decode × | size × |")
		fmt.Fprintln(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, f := range formats[set] {
			cells := []string{f}
			for _, op := range []string{"encode", "decode"} {
				cells = append(cells, number(get(set, op, f, "ns/op")))
			}
			cells = append(cells, number(get(set, "encode", f, "bytes")))
			for _, op := range []string{"encode", "decode"} {
				cells = append(cells, number(get(set, op, f, "allocs/op")))
			}
			for _, c := range []struct{ op, unit string }{{"encode", "ns/op"}, {"decode", "ns/op"}, {"encode", "bytes"}} {
				v, ok1 := get(set, c.op, f, c.unit)
				b, ok2 := get(set, c.op, base, c.unit)
				if !ok1 || !ok2 || b == 0 {
					cells = append(cells, "")
					continue
				}
				cells = append(cells, fmt.Sprintf("%.2f", v/b))
			}
			fmt.Fprintf(out, "| %s |\n", strings.Join(cells, " | "))
		}
		fmt.Fprintln(out)
	}
	return nil
}

// number formats v with three significant digits, or as an integer when it
// is large enough; it prints nothing for a missing value.
func number(v float64, ok bool) string {
	switch {
	case !ok:
		return ""
	case v >= 100 || v == float64(int64(v)):
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

package main

import (
	"fmt"
	"math"
	"os"
	"strings"
)

// writeChart writes an SVG chart of the bytes each tick cost client 0: the
// snapshot whole, what was sent (a delta, or whole when there was no
// base), and as JSON, on a logarithmic scale, with the phases marked.
func writeChart(path string, r *report, cfg config) error {
	var full, sent, js []float64
	var phaseAt []int // the index where each phase starts
	last := -1
	for _, x := range r.log {
		if x.client != 0 {
			continue
		}
		if x.phase != last {
			phaseAt = append(phaseAt, len(full))
			last = x.phase
		}
		full, sent, js = append(full, float64(x.full)), append(sent, float64(x.payload)), append(js, float64(x.json))
	}
	if len(full) == 0 {
		return fmt.Errorf("-svg: no tick was recorded")
	}
	const w, h, left, right, top, bottom = 900.0, 420.0, 70.0, 150.0, 30.0, 40.0
	top10 := math.Ceil(math.Log10(max(maxOf(js), 10)))
	x := func(i int) float64 { return left + (w-left-right)*float64(i)/float64(max(len(full)-1, 1)) }
	y := func(v float64) float64 { return top + (h-top-bottom)*(1-math.Log10(max(v, 1))/top10) }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%g" y="18" font-size="14">bytes per tick sent to client 0 (%d entities, %g Hz, %.0f%% loss), log scale</text>`+"\n", left, r.entities, cfg.hz, 100*cfg.loss)
	for e := 0.0; e <= top10; e++ { // grid lines at powers of ten
		v := math.Pow(10, e)
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%g" y="%.1f" text-anchor="end">%g</text>`+"\n",
			left, w-right, y(v), y(v), left-6, y(v)+4, v)
	}
	for p, at := range phaseAt {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="#999" stroke-dasharray="4 3"/><text x="%.1f" y="%g">%s</text>`+"\n",
			x(at), x(at), top, h-bottom, x(at)+4, h-bottom+16, phases[p].name)
	}
	series := []struct {
		name, color string
		v           []float64
	}{{"JSON", "#d62728", js}, {"full snapshot", "#1f77b4", full}, {"sent (delta)", "#2ca02c", sent}}
	for i, s := range series {
		var pts []string
		for k, v := range s.v {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(k), y(v)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", s.color, strings.Join(pts, " "))
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s" stroke-width="3"/><text x="%g" y="%g">%s</text>`+"\n",
			w-right+10, w-right+30, top+20*float64(i+1), top+20*float64(i+1), s.color, w-right+36, top+20*float64(i+1)+4, s.name)
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

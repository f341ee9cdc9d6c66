package main

import (
	"fmt"
	"os"
	"strings"
)

// writeChart writes an SVG chart of client 0's stream, tick by tick: the
// bytes of its packet against the budget (left axis), and the age of its
// stalest entity, in packets (right axis), with the phases marked.
func writeChart(path string, r *report, cfg config) error {
	var bytes, stale []float64
	var phaseAt []int // the index where each phase starts
	last := -1
	for _, x := range r.log {
		if x.client != 0 {
			continue
		}
		if x.phase != last {
			phaseAt = append(phaseAt, len(bytes))
			last = x.phase
		}
		bytes, stale = append(bytes, float64(x.bytes)), append(stale, float64(x.stalest))
	}
	if len(bytes) == 0 {
		return fmt.Errorf("-svg: no tick was recorded")
	}
	const w, h, left, right, top, bottom = 900.0, 420.0, 70.0, 190.0, 30.0, 40.0
	ymax := float64(budget) * 1.1
	amax := max(maxOf(stale), 4) * 1.1
	x := func(i int) float64 { return left + (w-left-right)*float64(i)/float64(max(len(bytes)-1, 1)) }
	y := func(v, top2 float64) float64 { return top + (h-top-bottom)*(1-v/top2) }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%g" y="18" font-size="14">client 0, tick by tick (%d entities, %g Hz, %.0f%% loss, budget %d bytes)</text>`+"\n",
		left, r.entities, cfg.hz, 100*cfg.loss, budget)
	for v := 0.0; v <= ymax; v += 200 { // bytes grid, left axis
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%g" y="%.1f" text-anchor="end">%g</text>`+"\n",
			left, w-right, y(v, ymax), y(v, ymax), left-6, y(v, ymax)+4, v)
	}
	step := max(1, float64(int(amax/5)))
	for v := 0.0; v <= amax; v += step { // age, right axis
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" fill="#9467bd">%g</text>`+"\n", w-right+6, y(v, amax)+4, v)
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle" transform="rotate(-90 %g %g)">bytes per packet</text>`+"\n", 16.0, h/2, 16.0, h/2)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle" fill="#9467bd" transform="rotate(90 %g %g)">stalest entity, packets</text>`+"\n",
		w-right+30, h/2, w-right+30, h/2)
	for p, at := range phaseAt {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="#999" stroke-dasharray="4 3"/><text x="%.1f" y="%g">%s</text>`+"\n",
			x(at), x(at), top, h-bottom, x(at)+4, h-bottom+16, phases[p].name)
	}
	fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#d62728" stroke-dasharray="6 3"/>`+"\n", left, w-right, y(budget, ymax), y(budget, ymax))
	series := []struct {
		name, color string
		v           []float64
		top         float64
	}{{"bytes sent", "#1f77b4", bytes, ymax}, {"stalest entity (packets)", "#9467bd", stale, amax}}
	for i, s := range series {
		var pts []string
		for k, v := range s.v {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(k), y(v, s.top)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", s.color, strings.Join(pts, " "))
		ly := top + 20*float64(i+1)
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s" stroke-width="3"/><text x="%g" y="%g">%s</text>`+"\n",
			w-right+40, w-right+60, ly, ly, s.color, w-right+66, ly+4, s.name)
	}
	ly := top + 60
	fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="#d62728" stroke-dasharray="6 3"/><text x="%g" y="%g">budget</text>`+"\n",
		w-right+40, w-right+60, ly, ly, w-right+66, ly+4)
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

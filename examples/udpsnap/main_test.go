package main

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun: a short run over UDP meets the targets in every tick (run fails
// otherwise), every client reads exactly the server's views, and the
// chart is well-formed SVG with its two series.
func TestRun(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "chart.svg")
	var out bytes.Buffer
	args := []string{"-entities", "400", "-clients", "3", "-hz", "300", "-ticks", "30", "-loss", "0.05", "-svg", svg}
	if err := run(args, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"a server and 3 clients over UDP on 127.0.0.1, 400 entities, 300 Hz, 30 ticks per phase, 5% of packets lost each way, budget 1200 bytes",
		"Targets met",
		"each view is exactly the server's",
		"\nat rest ", "\n1% ", "\n10% ", "\n50% ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Lines []struct{} `xml:"polyline"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil || len(doc.Lines) != 2 {
		t.Fatalf("chart: %d polylines, %v", len(doc.Lines), err)
	}
}

// TestTargets: the numbers behind the targets, from a run with heavy loss
// (views many packets old): no packet over the budget, the world whole at
// rest and 8-byte packets once it arrived, settled at 1% and 10% small packets,
// at 50% the budget binding (entities wait), and packets built on views
// older than the previous tick.
func TestTargets(t *testing.T) {
	cfg, err := parse([]string{"-entities", "500", "-clients", "2", "-hz", "400", "-ticks", "40", "-loss", "0.3", "-seed", "7"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if missed := rep.missed(); len(missed) > 0 {
		t.Fatalf("targets missed: %v", missed)
	}
	old := 0
	for p, ph := range phases {
		s := rep.stats(p)
		t.Logf("%-8s full %d B, packets %d..%d B (%d sent), settled largest %d B, stalest %d, oldest base %d",
			ph.name, s.full, s.minB, s.maxB, s.packets, s.maxLate, s.maxStale, s.maxBase)
		if s.maxB > budget {
			t.Fatalf("%s: a packet of %d bytes", ph.name, s.maxB)
		}
		old = max(old, s.maxBase)
		if ph.moving == 0.5 && s.maxB < budget-100 {
			t.Errorf("50%%: the budget never bound (largest packet %d bytes)", s.maxB)
		}
	}
	if old < 2 {
		t.Errorf("with 30%% loss no packet built on a view older than the previous tick")
	}
	if rep.decoded == 0 {
		t.Error("no packet read")
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-entities", "0"}, {"-entities", "2000"}, {"-clients", "0"}, {"-clients", "65"},
		{"-hz", "0"}, {"-ticks", "1"}, {"-loss", "1"}, {"extra"},
	} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

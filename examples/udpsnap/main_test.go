package main

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun: a short run over UDP meets the targets in every tick a delta
// was sent (run fails otherwise), every client decodes exactly the
// server's snapshots, and the chart is well-formed SVG with its three
// series.
func TestRun(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "chart.svg")
	var out bytes.Buffer
	args := []string{"-entities", "400", "-clients", "3", "-hz", "200", "-ticks", "12", "-loss", "0.05", "-svg", svg}
	if err := run(args, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"a server and 3 clients over UDP on 127.0.0.1, 400 entities, 200 Hz, 12 ticks per phase, 5% of packets lost each way",
		"Targets met in every tick",
		"each is exactly the server's",
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
	if err := xml.Unmarshal(data, &doc); err != nil || len(doc.Lines) != 3 {
		t.Fatalf("chart: %d polylines, %v", len(doc.Lines), err)
	}
}

// TestTargets: the numbers behind the targets, from a run with heavy loss
// (bases many ticks old): at rest every delta is 1 byte, at 1% every delta
// is under 1/20 of the full snapshot, at 10% under 1/5, and the clients
// decoded against bases older than the previous tick.
func TestTargets(t *testing.T) {
	cfg, err := parse([]string{"-entities", "500", "-clients", "2", "-hz", "200", "-ticks", "15", "-loss", "0.3", "-seed", "7"}, &bytes.Buffer{})
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
		t.Logf("%-8s full %d B, deltas %d..%d B (%d sent), worst %.4f, oldest base %d ticks", ph.name, s.full, s.minD, s.maxD, s.deltas, s.worst, s.maxAge)
		if s.deltas == 0 {
			t.Fatalf("%s: no delta sent", ph.name)
		}
		old = max(old, s.maxAge)
	}
	if old < 2 {
		t.Errorf("with 30%% loss no delta was against a base older than the previous tick")
	}
	if rep.decoded == 0 {
		t.Error("no snapshot decoded")
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

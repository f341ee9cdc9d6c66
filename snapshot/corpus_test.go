package snapshot_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/bitpack-go/bitpack/internal/snapcorpus"
)

var update = flag.Bool("update", false, "rewrite testdata/stream.json")

// TestRecordedStream: testdata/stream.json is the stream
// internal/snapcorpus records (run with -update to rewrite it), every kind
// of step is in it, and Go's Receiver replays it step for step — as the
// generated clients' Receivers must (internal/snapcorpus documents the
// format).
func TestRecordedStream(t *testing.T) {
	f, err := snapcorpus.Record()
	if err != nil {
		t.Fatal(err)
	}
	data, err := snapcorpus.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "stream.json")
	if *update {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stored, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored, data) {
		t.Fatalf("%s is not the stream snapcorpus records (go test -run TestRecordedStream -update ./snapshot)", path)
	}
	var file snapcorpus.File
	if err := json.Unmarshal(stored, &file); err != nil {
		t.Fatal(err)
	}
	if err := snapcorpus.Replay(&file); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, st := range file.Steps {
		switch {
		case st.Reset:
			kinds["reset"]++
		case st.Error != "":
			kinds[st.Why+" refused as "+st.Error]++
		case st.Why == "":
			kinds["accepted"]++
		default:
			kinds[st.Why+" accepted"]++
		}
	}
	t.Logf("%d steps: %v", len(file.Steps), kinds)
	for _, k := range []string{"reset", "accepted", "another client's stream, the same sequences refused as no-base",
		"a damaged check refused as no-base", "a packet whose base was evicted refused as no-base",
		"a truncated packet refused as overflow", "the old stream, after the reconnect refused as no-base",
		"the old stream's zero base, late after the reconnect refused as no-base"} {
		if kinds[k] == 0 {
			t.Errorf("no step %q", k)
		}
	}
}

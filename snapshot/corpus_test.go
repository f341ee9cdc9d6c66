package snapshot_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bitpack-go/bitpack/internal/snapcorpus"
)

var update = flag.Bool("update", false, "rewrite the recorded streams in testdata")

// TestRecordedStream: each of testdata's recorded streams (one a History
// of snapcorpus.Recordings: stream.json at 16, stream-history2.json,
// stream-history256.json) is the stream internal/snapcorpus records (run
// with -update to rewrite them), every kind of step its History can have
// is in it (the packets crafted to reach each refusal reach it), and Go's
// Receiver replays it step for step — as the generated clients' Receivers
// must (docs/wire.md documents the format).
func TestRecordedStream(t *testing.T) {
	for _, rc := range snapcorpus.Recordings {
		t.Run(rc.File, func(t *testing.T) { checkRecordedStream(t, rc) })
	}
}

func checkRecordedStream(t *testing.T, rc snapcorpus.Recording) {
	f, err := snapcorpus.Record(rc.History)
	if err != nil {
		t.Fatal(err)
	}
	data, err := snapcorpus.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", rc.File)
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
		why := st.Why
		if why == "" {
			why = "off the channel"
		}
		switch {
		case st.Reset:
			kinds["reset"]++
		case st.Error != "":
			kinds[why+" refused as "+st.Error]++
		default:
			kinds[why+" accepted"]++
			for _, k := range headerKinds(t, st.Packet) {
				kinds["accepted "+k]++
			}
		}
	}
	t.Logf("%d steps: %v", len(file.Steps), kinds)
	want := []string{"reset", "off the channel accepted", "accepted from the zero base", "accepted short",
		"another client's stream, the same sequences refused as no-base",
		"a damaged check refused as no-base", "a packet whose base was evicted refused as no-base",
		"a truncated packet refused as overflow", "the old stream's zero base, late after the reconnect refused as no-base",
		// The crafted tail reaches the refusals it is made for.
		"a long form that the short form carries refused as range", "an offset past History refused as range",
		"the current stream's zero base, older than the history refused as range", "a delta cut short refused as overflow",
		"a byte after the delta refused as trailing", "a delta that changes nothing refused as range",
		"the last packet again accepted", "the current stream's zero base, the newest accepted",
		"a packet on a view forgotten refused as no-base"}
	switch rc.History {
	case 2:
		// Views evicted every other sequence: packets off the channel
		// on a view evicted, and older than the history. Across the wrap
		// no packet is on a view: a Sender takes no Ack of 65535.
		want = append(want, "off the channel refused as no-base", "off the channel refused as range",
			"accepted short at sequence 65535", "accepted from the zero base at sequence 0")
	case 16:
		want = append(want, "the old stream, after the reconnect refused as no-base")
	case 256:
		want = append(want, "the old stream, after the reconnect refused as no-base", "accepted at offset 127",
			"accepted long", "accepted at offset 128", "accepted long on a view across the wrap")
	}
	for _, k := range want {
		if kinds[k] == 0 {
			t.Errorf("no step %q", k)
		}
	}
}

// headerKinds say what an accepted packet's header is: from the zero
// base, short or long; on a view across the wrap (its sequence less than
// its offset); at offset 127 or 128 (the edges of the short form); at
// sequence 65535, or 0 or 1 from the zero base.
func headerKinds(t *testing.T, packet string) []string {
	p, err := hex.DecodeString(packet)
	if err != nil || len(p) < 8 {
		t.Fatalf("packet %q", packet)
	}
	seq, offset, kinds := binary.LittleEndian.Uint16(p), uint16(p[2]>>1), []string{"short"}
	if p[2]&1 != 0 {
		offset, kinds = binary.LittleEndian.Uint16(p[2:])>>1, []string{"long"}
	}
	switch {
	case offset == 0 && seq < 2:
		return []string{fmt.Sprintf("from the zero base at sequence %d", seq)}
	case offset == 0:
		return []string{"from the zero base"}
	case offset > seq:
		kinds = append(kinds, kinds[0]+" on a view across the wrap")
	}
	if offset == 127 || offset == 128 {
		kinds = append(kinds, fmt.Sprintf("at offset %d", offset))
	}
	if seq == 0xffff {
		kinds = append(kinds, kinds[0]+" at sequence 65535")
	}
	return kinds
}

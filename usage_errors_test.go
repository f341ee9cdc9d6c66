package bitpack_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// ---------------------------------------------------------------------------
// Programmer errors are errors, not panics.

func TestUsageErrors(t *testing.T) {
	var nilPlayer *Player
	if _, err := bitpack.Marshal(nil); err == nil {
		t.Error("Marshal(nil) succeeded")
	}
	if _, err := bitpack.Marshal(nilPlayer); err == nil {
		t.Error("Marshal(nil pointer) succeeded")
	}
	if err := bitpack.Unmarshal(nil, Player{}); err == nil || !strings.Contains(err.Error(), "non-nil pointer") {
		t.Errorf("Unmarshal(non-pointer) = %v", err)
	}
	if err := bitpack.Unmarshal(nil, nilPlayer); err == nil {
		t.Error("Unmarshal(nil pointer) succeeded")
	}
	if err := bitpack.Encode(nil, &Player{}); err == nil {
		t.Error("Encode(nil writer) succeeded")
	}
	if err := bitpack.Decode(nil, &Player{}); err == nil {
		t.Error("Decode(nil reader) succeeded")
	}
	var c *bitpack.Codec[Player]
	if _, err := c.Marshal(&Player{}); err == nil || err.Error() != "bitpack: method called on a nil *Codec (use NewCodec)" {
		t.Errorf("nil Codec: %v", err)
	}
	c2, _ := bitpack.NewCodec[Player]()
	if _, err := c2.Append(nil, nil); err == nil || err.Error() != "bitpack: nil *bitpack_test.Player passed to Codec" {
		t.Errorf("Codec.Append(nil) = %v", err)
	}
	if _, err := bitpack.NewCodec[bMap](); err == nil {
		t.Error("NewCodec of an unsupported type succeeded")
	}
	// A value (not a pointer) marshals too.
	if b, err := bitpack.Marshal(tBools{true, false, true}); err != nil || !bytes.Equal(b, []byte{5}) {
		t.Errorf("Marshal(value) = %x, %v", b, err)
	}
}

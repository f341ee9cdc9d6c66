package bitpack_test

import (
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// ---------------------------------------------------------------------------
// Decoding hostile bytes: a gob-style bad-data table, hex in, error out.

func TestBadData(t *testing.T) {
	tests := []struct {
		name     string
		hex      string
		into     any
		sentinel error
		msg      string
	}{
		{"range", "f503", new(tRange), bitpack.ErrRange,
			"bitpack: decode bitpack_test.tRange: field Health at bit 0: value 1013 out of range [0, 1000]"},
		{"range second field", hex.EncodeToString(bitsOf(f{5, 10}, f{121, 7})), new(tRange), bitpack.ErrRange,
			"field Temp at bit 10: value 81 out of range [-40, 80]"},
		{"empty packet", "", new(tRange), bitpack.ErrOverflow, "field Health at bit 0: needs 10 bits, 0 remain"},
		{"truncated", "0500", new(tRange), bitpack.ErrOverflow, "field Temp at bit 10: needs 7 bits, 6 remain"},
		{"trailing byte", hex.EncodeToString(bitsOf(f{5, 10}, f{40, 7}, f{0, 4})) + "00", new(tRange), bitpack.ErrTrailing,
			"bitpack: decode bitpack_test.tRange: at bit 21: 1 trailing byte after the value"},
		{"string padding", hex.EncodeToString(bitsOf(f{1, 1}, f{2, 4}, f{1, 3}, raw('h', 'i'))), new(tString), bitpack.ErrPadding,
			"field Name at bit 5: padding bits 0b1 are not zero"},
		{"string length", hex.EncodeToString(bitsOf(f{0, 1}, f{15, 4}, align)), new(tString), bitpack.ErrOverflow,
			"field Name at bit 8: needs 15 bytes, 0 remain"},
		{"string UTF-8", hex.EncodeToString(bitsOf(f{0, 1}, f{2, 4}, raw(0xc3, 0x28))), new(tString), bitpack.ErrInvalidString,
			"field Name at bit 1: invalid UTF-8 at offset 0"},
		{"string NUL", hex.EncodeToString(bitsOf(f{0, 1}, f{2, 4}, raw('a', 0))), new(tString), bitpack.ErrInvalidString,
			"field Name at bit 1: NUL byte at offset 1"},
		{"[]byte length", hex.EncodeToString(bitsOf(f{0, 1}, f{7, 3}, raw(1))), new(tBytes), bitpack.ErrOverflow,
			"field Data at bit 1: needs 7 bytes, 1 remain"},
		{"slice length above maxlen", hex.EncodeToString(bitsOf(f{5, 3})), new(tSlice), bitpack.ErrRange,
			"field IDs at bit 0: length 5 exceeds maxlen 4"},
		{"slice elements past the end", hex.EncodeToString(bitsOf(f{2, 3}, f{1, 10})), new(tSlice), bitpack.ErrOverflow,
			"field IDs at bit 3: 2 elements need at least 20 bits, 13 remain"},
		{"compressed float code above M", hex.EncodeToString(bitsOf(f{1001, 10}, f{0, 10}, f{0, 11})), new(tCompressed), bitpack.ErrRange,
			"field A at bit 0: compressed float code 1001 out of range [0, 1000]"},
		{"nested path", hex.EncodeToString(bitsOf(f{2, 4}, f{0, 10}, f{0, 11}, f{0, 11}, f{0, 11}, f{0, 4}, align, f{1001, 10}, f{0, 64})), new(Snapshot), bitpack.ErrRange,
			"bitpack: decode bitpack_test.Snapshot: field Players[1].Health at bit 56: value 1001 out of range [0, 1000]"},
		{"hook refuses", hex.EncodeToString(bitsOf(f{7, 3}, f{0, 1})), new(tHook), bitpack.ErrRange,
			"field C at bit 0: hook refused the value: 7 is reserved"},
		{"depth", strings.Repeat("ff", 100), new(tNode), bitpack.ErrDepth, "more than 64 nested levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := bitpack.Unmarshal(mustHex(t, tt.hex), tt.into)
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("err = %v, want %v", err, tt.sentinel)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %q\nwant it to contain %q", err, tt.msg)
			}
			var be *bitpack.Error
			if !errors.As(err, &be) || be.Op != "decode" {
				t.Errorf("not a decode *bitpack.Error: %#v", err)
			}
			if !reflect.ValueOf(tt.into).Elem().IsZero() {
				t.Errorf("failed Unmarshal changed the value: %+v", tt.into)
			}
		})
	}
}

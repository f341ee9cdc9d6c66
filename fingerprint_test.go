package bitpack_test

import (
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// ---------------------------------------------------------------------------
// Fingerprints.

func TestFingerprintGolden(t *testing.T) {
	l, err := bitpack.Describe(&BenchPacket{})
	if err != nil {
		t.Fatal(err)
	}
	const schema = "{u64;[3]q32(-1024,1024,0.01);[4]q32(-1,1,0.0001);r0..1000;u4;[8]r0..200;b;[<=16]u32;a64}"
	if got := l.Schema(); got != schema {
		t.Fatalf("Schema =\n%s\nwant\n%s", got, schema)
	}
	// FNV-1a of the schema, computed independently.
	fp, err := bitpack.Fingerprint(&BenchPacket{})
	if err != nil || fp != 236825676 {
		t.Fatalf("Fingerprint = %d, %v", fp, err)
	}
	el, _ := bitpack.Describe(&Envelope{})
	const envelope = "{r0..1023;U({r-8..7}|{r0..3}|{s7}|{[<=3]^3});[<=4]U({r-8..7}|{r0..3}|{s7}|{[<=3]^3});k9908ace2}"
	if got := el.Schema(); got != envelope {
		t.Fatalf("Envelope schema =\n%s\nwant\n%s", got, envelope)
	}
}

// Variants of one packet, each differing from fpBase by one thing.
type (
	fpBase struct {
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpRenamed struct { // field names do not count
		Alpha int32   `bits:"range=0..1000"`
		Beta  float32 `bits:"float,min=-10,max=10,res=0.01"`
		Gamma string  `bits:"maxlen=15"`
		Delta []uint8 `bits:"maxlen=4,bits=3"`
		Eps   *bool
	}
	fpClamp struct { // clamp changes the encoder, not the wire
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.01,clamp"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpRange struct {
		A int32   `bits:"range=0..1001"`
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpRes struct {
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.02"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpMaxlen struct {
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=16"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpElem struct {
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=4"`
		E *bool
	}
	fpOrder struct {
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		A int32   `bits:"range=0..1000"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpType struct {
		A int32   `bits:"range=0..1000"`
		B float64 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
	}
	fpPointer struct {
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E bool
	}
	fpExtra struct {
		A int32   `bits:"range=0..1000"`
		B float32 `bits:"float,min=-10,max=10,res=0.01"`
		C string  `bits:"maxlen=15"`
		D []uint8 `bits:"maxlen=4,bits=3"`
		E *bool
		F bool
	}
)

func TestFingerprintVariants(t *testing.T) {
	base, err := bitpack.Fingerprint(&fpBase{})
	if err != nil {
		t.Fatal(err)
	}
	for _, same := range []any{&fpBase{}, fpBase{}, &fpRenamed{}, &fpClamp{}} {
		if fp, _ := bitpack.Fingerprint(same); fp != base {
			t.Errorf("%T: fingerprint %d, want the base's %d", same, fp, base)
		}
	}
	seen := map[uint32]string{base: "base"}
	for _, v := range []any{&fpRange{}, &fpRes{}, &fpMaxlen{}, &fpElem{}, &fpOrder{}, &fpType{}, &fpPointer{}, &fpExtra{}} {
		fp, err := bitpack.Fingerprint(v)
		if err != nil {
			t.Fatal(err)
		}
		name := reflect.TypeOf(v).Elem().Name()
		if prev, dup := seen[fp]; dup {
			t.Errorf("%s has the same fingerprint as %s (%d)", name, prev, fp)
		}
		seen[fp] = name
	}
}

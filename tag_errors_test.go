package bitpack_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// ---------------------------------------------------------------------------
// Tag errors.

type (
	bUnknown struct {
		A int32 `bits:"rnage=0..1"`
	}
	bBadNumber struct {
		A int32 `bits:"range=0..1x"`
	}
	bReversed struct {
		A int32 `bits:"range=10..1"`
	}
	bTooWide struct {
		A uint8 `bits:"range=0..300"`
	}
	bBitsWide struct {
		A int16 `bits:"bits=17"`
	}
	bBitsZero struct {
		A int16 `bits:"bits=0"`
	}
	bRes0 struct {
		A float32 `bits:"float,min=0,max=1,res=0"`
	}
	bNonFinite struct {
		A float64 `bits:"float,min=-1e400,max=1,res=0.1"`
	}
	bMinMax struct {
		A float32 `bits:"float,min=10,max=-10,res=0.01"`
	}
	bNoFloat struct {
		A float32 `bits:"min=0,max=1,res=0.1"`
	}
	bNoMaxlen   struct{ S string }
	bSliceNoMax struct{ S []int }
	bFloatOnInt struct {
		A int32 `bits:"float,min=0,max=1,res=0.1"`
	}
	bRangeFloat struct {
		A float32 `bits:"range=0..1"`
	}
	bBoolOpt struct {
		A bool `bits:"range=0..1"`
	}
	bInheritNo struct {
		V Vec3 `bits:"range=0..10"`
	}
	bInheritFit struct {
		S struct{ Kills uint8 } `bits:"range=0..300"`
	}
	bNonCanon struct {
		A float32 `bits:"float,min=0,max=100000,res=0.01"`
	}
	bUnexported struct {
		a int32 `bits:"range=0..1"` //lint:ignore U1000 the tag on an unexported field is what is tested
	}
	bMap       struct{ M map[string]int }
	bIface     struct{ I any }
	bChan      struct{ C chan int }
	bFunc      struct{ F func() }
	bComplex   struct{ C complex64 }
	bTime      struct{ T struct{ wall, ext uint64 } }
	bHalfHook  struct{ H halfHook }
	bQuatShape struct {
		Q [3]float32 `bits:"quat,bits=9"`
	}
	bQuatBits struct {
		Q Quat `bits:"quat,bits=40"`
	}
	bQuatBits3 struct {
		Q Quat `bits:"quat,bits=3"`
	}
	bSpaces struct {
		A int32 `bits:"range=0..1, bits=3"`
	}
	bTwice struct {
		A int32 `bits:"bits=3,bits=4"`
	}
	bRangeBits struct {
		A int32 `bits:"range=0..1,bits=3"`
	}
	bMaxlenNum struct {
		S string `bits:"maxlen=-1"`
	}
	bHookOpts struct {
		C counter `bits:"range=0..1"`
	}
	bSparseArrayMaxlen struct {
		P [4]*Vec3 `bits:"sparse,maxlen=4"`
	}
	bQuatTaggedParts struct {
		Q taggedQuat `bits:"quat,bits=9"`
	}
	bQuatNoBits struct {
		Q Quat `bits:"quat"`
	}
	bFloatMissing struct {
		A float32 `bits:"float,min=0,max=1"`
	}
	bEmbedUnexportedOpts struct {
		smallInts `bits:"range=0..3"`
	}
	bHiddenTagged struct {
		X int8
		taggedX
	}
)

// taggedX's X says how it is to be sent, but a struct embedding it next
// to another X never sends it.
type taggedX struct {
	X int8 `bits:"range=0..7"`
}

// taggedQuat has four floats, but each says how it is sent itself, so it
// is not a quaternion.
type taggedQuat struct {
	X, Y, Z float32 `bits:"float,min=-1,max=1,res=0.01"`
	W       float32
}

type smallInts struct{ A, B int8 }

type shadowInner struct {
	X int8
	Y bool
	Z uint8
}

type shadowOther struct {
	Z uint16
	W bool
}

type halfHook struct{}

func (halfHook) MarshalBits(w *bitio.Writer) error { return nil }

func TestTagErrors(t *testing.T) {
	tests := []struct {
		in      any
		field   string
		tag     string
		problem string
	}{
		{bUnknown{}, "A", "rnage=0..1", `unknown option "rnage"`},
		{bBadNumber{}, "A", "range=0..1x", `range bound "1x" is not an integer`},
		{bReversed{}, "A", "range=10..1", "range 10..1: A > B"},
		{bTooWide{}, "A", "range=0..300", "range 0..300 does not fit uint8"},
		{bBitsWide{}, "A", "bits=17", "bits=17 does not fit int16 (1..16)"},
		{bBitsZero{}, "A", "bits=0", "bits=0 does not fit int16"},
		{bRes0{}, "A", "float,min=0,max=1,res=0", "res must be finite and > 0"},
		{bNonFinite{}, "A", "float,min=-1e400,max=1,res=0.1", "min=-1e400 is not a finite number"},
		{bMinMax{}, "A", "float,min=10,max=-10,res=0.01", "min must be < max"},
		{bNoFloat{}, "A", "min=0,max=1,res=0.1", `add "float"`},
		{bNoMaxlen{}, "S", "", "string needs a maxlen tag"},
		{bSliceNoMax{}, "S", "", "[]int needs a maxlen tag"},
		{bFloatOnInt{}, "A", "float,min=0,max=1,res=0.1", "float does not apply to int32"},
		{bRangeFloat{}, "A", "range=0..1", "range does not apply to float32"},
		{bBoolOpt{}, "A", "range=0..1", "range does not apply to bool"},
		{bInheritNo{}, "V", "range=0..10", "applies to no field of bitpack_test.Vec3: range/bits reach no integer field"},
		{bInheritFit{}, "S", "range=0..300", "at S.Kills: range 0..300 does not fit uint8"},
		{bNonCanon{}, "A", "float,min=0,max=100000,res=0.01", "float32 cannot hold res=0.01 canonically over [0, 100000] (quant: code 3276829 decodes to 32768.29296875, which quantizes back to 3276830); use a coarser res or a float64 field"},
		{bUnexported{}, "a", "range=0..1", "unexported fields are never encoded"},
		{bMap{}, "M", "", `map[string]int needs a maxlen tag of its own, e.g. bits:"maxlen=16"`},
		{bIface{}, "I", "", "interface {} is not supported (interfaces not registered with RegisterUnion have no wire form)"},
		{bChan{}, "C", "", "chan int is not supported"},
		{bFunc{}, "F", "", "func() is not supported"},
		{bComplex{}, "C", "", "complex64 is not supported"},
		{bTime{}, "T", "", "has no exported fields and no MarshalBits/UnmarshalBits methods"},
		{bHalfHook{}, "H", "", "implements MarshalBits but not UnmarshalBits; implement both"},
		{bQuatShape{}, "Q", "quat,bits=9", "quat applies to [4]float32, [4]float64, a struct of four untagged exported float fields of one type (named W, X, Y, Z, or in the order xyzw or wxyz says), or a struct of a float w and a vector of three (mathgl's Quat{W; V}), not [3]float32"},
		{bQuatBits{}, "Q", "quat,bits=40", "quat bits=40: each component needs 4..22 bits"},
		{bQuatBits3{}, "Q", "quat,bits=3", "quat bits=3: each component needs 4..22 bits (fewer allow errors past 45°; with more, float32 cannot hold every code's own value, so decoded quaternions would not re-encode to the same bytes)"},
		{bSpaces{}, "A", "range=0..1, bits=3", "contains spaces"},
		{bTwice{}, "A", "bits=3,bits=4", `option "bits" given twice`},
		{bRangeBits{}, "A", "range=0..1,bits=3", "range and bits are alternatives"},
		{bMaxlenNum{}, "S", "maxlen=-1", "maxlen=-1 is not a count"},
		{bHookOpts{}, "C", "range=0..1", "options do not apply to bitpack_test.counter, which encodes itself"},
		{bSparseArrayMaxlen{}, "P", "sparse,maxlen=4", "maxlen does not apply to [4]*bitpack_test.Vec3 (arrays have a fixed length)"},
		{bQuatTaggedParts{}, "Q", "quat,bits=9", "quat applies to [4]float32, [4]float64, a struct of four untagged exported float fields of one type (named W, X, Y, Z, or in the order xyzw or wxyz says), or a struct of a float w and a vector of three (mathgl's Quat{W; V}), not bitpack_test.taggedQuat"},
		{bQuatNoBits{}, "Q", "quat", "quat needs bits= (bits per component, 4..22)"},
		{bFloatMissing{}, "A", "float,min=0,max=1", "float needs min=, max= and res="},
		{bEmbedUnexportedOpts{}, "smallInts", "range=0..3", `an unexported embedded struct takes no options (its exported fields are inlined; bits:"-" skips them all)`},
		{bHiddenTagged{}, "X", "range=0..7", "embedded in bitpack_test.bHiddenTagged, the field is hidden by another field named X (Go's and encoding/json's promotion rules), so it is never encoded; remove the tag or rename one of them"},
	}
	for _, tt := range tests {
		typ := reflect.TypeOf(tt.in)
		t.Run(typ.Name(), func(t *testing.T) {
			_, err := bitpack.Describe(tt.in)
			var te *bitpack.TagError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want a *TagError", err)
			}
			if te.Field != tt.field || te.Tag != tt.tag || !strings.Contains(te.Problem, tt.problem) {
				t.Errorf("got field %q tag %q problem %q\nwant field %q tag %q problem containing %q", te.Field, te.Tag, te.Problem, tt.field, tt.tag, tt.problem)
			}
			if !strings.HasPrefix(err.Error(), "bitpack: type ") {
				t.Errorf("message %q lacks the bitpack: type prefix", err)
			}
			// The same error from every entry point, and no panic.
			if _, err2 := bitpack.Marshal(tt.in); !errors.As(err2, &te) {
				t.Errorf("Marshal: %v", err2)
			}
			if err2 := bitpack.Unmarshal(nil, reflect.New(typ).Interface()); !errors.As(err2, &te) {
				t.Errorf("Unmarshal: %v", err2)
			}
		})
	}
	// The message in full (the README quotes the same words for its own type).
	_, err := bitpack.Describe(bMinMax{})
	if want := `bitpack: type bitpack_test.bMinMax field A: tag "float,min=10,max=-10,res=0.01": min must be < max`; err == nil || err.Error() != want {
		t.Errorf("message:\n got %v\nwant %s", err, want)
	}
}

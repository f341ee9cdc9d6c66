package bitpack_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitpacktest"
)

// Quaternions as other libraries declare them.
type (
	mglVec3 [3]float32
	mglQuat struct { // go-gl/mathgl's mgl32.Quat
		W float32
		V mglVec3
	}
	wFirst    struct{ W, X, Y, Z float32 } // named: by name, whatever the order
	vecStruct struct{ X, Y, Z float32 }
	vecFirst  struct {
		V vecStruct
		S float32
	}
	tShapes struct {
		Mgl   mglQuat    `bits:"quat,bits=9"`
		Arr   [4]float32 `bits:"quat,bits=9,wxyz"`
		Named wFirst     `bits:"quat,bits=9"`
		Vec   vecFirst   `bits:"quat,bits=9"`
	}
)

// TestQuatShapes: every shape of the same rotation travels as the same
// bits, and decodes into its own shape.
func TestQuatShapes(t *testing.T) {
	const h = 0.70710677 // a 90° turn about z: x = y = 0, z = w = h
	in := tShapes{
		Mgl:   mglQuat{W: h, V: mglVec3{0, 0, h}},
		Arr:   [4]float32{h, 0, 0, h}, // w first
		Named: wFirst{W: h, Z: h},
		Vec:   vecFirst{V: vecStruct{Z: h}, S: h},
	}
	// Each: L = 3 (z and w tie: the highest index), then x, y, z as codes
	// 255, 255 and 510 of M = 510.
	one := []any{f{3, 2}, f{255, 9}, f{255, 9}, f{510, 9}}
	want := bitsOf(append(append(append(one, one...), one...), one...)...)
	got, err := bitpack.Marshal(&in)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Marshal = %x, %v; want %x", got, err, want)
	}
	var out tShapes
	if err := bitpack.Unmarshal(got, &out); err != nil || out != in {
		t.Errorf("Unmarshal = %+v, %v; want %+v", out, err, in)
	}
	// The zero value of each shape is the identity (w = 1).
	var zero tShapes
	id := []any{f{3, 2}, f{255, 9}, f{255, 9}, f{255, 9}}
	if got, err := bitpack.Marshal(&zero); err != nil || !bytes.Equal(got, bitsOf(append(append(append(id, id...), id...), id...)...)) {
		t.Errorf("zero value: %x, %v", got, err)
	}
	l, err := bitpack.Describe(tShapes{})
	if err != nil {
		t.Fatal(err)
	}
	for i, paths := range [][4][]int{
		{{1, 0}, {1, 1}, {1, 2}, {0}},
		{{1}, {2}, {3}, {0}},
		{{1}, {2}, {3}, {0}},
		{{0, 0}, {0, 1}, {0, 2}, {1}},
	} {
		if got := l.Root.Fields[i].QuatPaths; !reflect.DeepEqual(got, paths) {
			t.Errorf("%s: QuatPaths %v, want %v", l.Root.Fields[i].Name, got, paths)
		}
	}
	bitpacktest.CheckRoundTrip[tShapes](t)
}

// TestQuatShapeErrors: a shape that is not a quaternion, or wxyz where the
// fields already say which component is w.
func TestQuatShapeErrors(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{struct {
			Q wFirst `bits:"quat,bits=9,wxyz"`
		}{}, "wxyz does not apply to bitpack_test.wFirst: its fields say which component is w"},
		{struct {
			Q mglQuat `bits:"quat,bits=9,wxyz"`
		}{}, "wxyz does not apply to bitpack_test.mglQuat: its fields say which component is w"},
		{struct {
			Q struct {
				W float32
				V [2]float32
			} `bits:"quat,bits=9"`
		}{}, "quat applies to [4]float32, [4]float64, a struct of four untagged exported float fields of one type (named W, X, Y, Z, or in the order xyzw or wxyz says), or a struct of a float w and a vector of three (mathgl's Quat{W; V}), not struct { W float32; V [2]float32 }"},
		{struct {
			Q struct {
				W float64
				V mglVec3
			} `bits:"quat,bits=9"`
		}{}, "quat applies to [4]float32, [4]float64, a struct of four untagged exported float fields of one type (named W, X, Y, Z, or in the order xyzw or wxyz says), or a struct of a float w and a vector of three (mathgl's Quat{W; V}), not struct { W float64; V bitpack_test.mglVec3 }"},
	} {
		_, err := bitpack.Describe(tc.v)
		var te *bitpack.TagError
		if !errors.As(err, &te) || te.Problem != tc.want {
			t.Errorf("%T: %v\nwant %s", tc.v, err, tc.want)
		}
	}
}

// gonumNumber is gonum's quat.Number: the real part first.
type gonumNumber struct{ Real, Imag, Jmag, Kmag float64 }

// TestQuatOrderOption: four floats with other names need the tag to say
// their order; with it they travel as any other shape of the rotation.
func TestQuatOrderOption(t *testing.T) {
	const h = 0.70710677
	type tagged struct {
		G gonumNumber `bits:"quat,bits=9,wxyz"`
		A [4]float32  `bits:"quat,bits=9,xyzw"`
	}
	v := tagged{G: gonumNumber{Real: h, Kmag: h}, A: [4]float32{0, 0, h, h}}
	one := []any{f{3, 2}, f{255, 9}, f{255, 9}, f{510, 9}}
	if got, err := bitpack.Marshal(&v); err != nil || !bytes.Equal(got, bitsOf(append(one, one...)...)) {
		t.Errorf("Marshal = %x, %v", got, err)
	}
	_, err := bitpack.Describe(struct {
		G gonumNumber `bits:"quat,bits=9"`
	}{})
	var te *bitpack.TagError
	if want := "the fields of bitpack_test.gonumNumber are not named W, X, Y and Z, so which one is w is not known: add wxyz (w first, then x, y, z) or xyzw (x, y, z, then w) to the tag"; !errors.As(err, &te) || te.Problem != want {
		t.Errorf("untold order: %v\nwant %s", err, want)
	}
}

// Four-float quaternion structs whose field names are not X, Y, Z, W.
type (
	// gonum.org/v1/gonum/num/quat.Number: the real (w) part first.
	gonumQuat struct{ Real, Imag, Jmag, Kmag float64 }
	quatWIJK  struct{ W, I, J, K float32 } // W is even named
	quatSXYZ  struct{ S, X, Y, Z float32 } // X, Y, Z named, S scalar
)

// TestQuatFieldNamesOutOfOrder: a struct of four floats not named
// exactly W, X, Y, Z is read in declaration order as x, y, z, w, even
// when its names say otherwise: gonum's quat.Number{Real, Imag, Jmag,
// Kmag} sends Real (its w) as x and Kmag as w; {W, I, J, K} sends the
// field named W as x; {S, X, Y, Z} sends the field named X as y. All
// three compile (QuatPaths w = [3]), so the identity Number{Real: 1}
// travels as a 180° turn about x (L = 0) — silently wrong rotations.
// The issue (15 item 7) asks to refuse other shapes "with an error that
// says how to tag them".
// Expected: a *TagError pointing at wxyz (or w read from the field the
// names make w: path [0]); never w = the last field.
func TestQuatFieldNamesOutOfOrder(t *testing.T) {
	for _, v := range []any{
		struct {
			Q gonumQuat `bits:"quat,bits=9"`
		}{},
		struct {
			Q quatWIJK `bits:"quat,bits=9"`
		}{},
		struct {
			Q quatSXYZ `bits:"quat,bits=9"`
		}{},
	} {
		l, err := bitpack.Describe(v)
		var te *bitpack.TagError
		if errors.As(err, &te) {
			continue
		}
		if err != nil {
			t.Errorf("%T: %v", v, err)
			continue
		}
		q := l.Root.Fields[0]
		if !reflect.DeepEqual(q.QuatPaths[3], []int{0}) {
			t.Errorf("%s: compiles with w read from field %v and x from %v", q.Type, q.QuatPaths[3], q.QuatPaths[0])
		}
	}
	// What the identity becomes: L = 0 (x), codes 255 255 255 — not the
	// identity's L = 3.
	id := struct {
		Q gonumQuat `bits:"quat,bits=9"`
	}{Q: gonumQuat{Real: 1}}
	if got, err := bitpack.Marshal(&id); err == nil && got[0]&3 != 3 {
		t.Errorf("Number{Real: 1}, the identity, encodes with L = %d: % x", got[0]&3, got)
	}
}

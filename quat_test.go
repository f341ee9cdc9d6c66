package bitpack_test

// Quaternions on bitpack's canonical smallest-three wire (package quant
// documents it): M = 2^b - 2 steps per component, the zero value encodes as
// the identity, decoders refuse codes no encoder writes, and every decoded
// quaternion re-encodes to the same bytes. Expected bytes and values are
// worked out by hand from quant's documented algorithm.

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
)

type (
	qEntity struct {
		ID  uint16
		Rot [4]float32 `bits:"quat,bits=9"`
	}
	qSnapshot struct {
		Entities []qEntity `bits:"maxlen=300"`
	}
	// 2 + 3×22 bits: more than a word, so not a grouped step.
	qWide struct {
		Rot Quat `bits:"quat,bits=22"`
	}
	qFloat64 struct {
		Rot [4]float64 `bits:"quat,bits=12"`
	}
	qBits23 struct {
		Rot Quat `bits:"quat,bits=23"`
	}
)

// quatType returns struct{ Rot [4]float32 `bits:"quat,bits=b"` }.
func quatType(b int) reflect.Type {
	return reflect.StructOf([]reflect.StructField{{Name: "Rot", Type: reflect.TypeFor[[4]float32](), Tag: reflect.StructTag(fmt.Sprintf(`bits:"quat,bits=%d"`, b))}})
}

// TestZeroQuaternion: Go's zero value marshals as the identity (index 3,
// every code M/2) and decodes as exactly (0, 0, 0, 1), alone, beside other
// quaternions, wide, as float64, and as the one never-initialised entity of
// a snapshot.
func TestZeroQuaternion(t *testing.T) {
	identity := [4]float32{0, 0, 0, 1}
	tests := []struct {
		name string
		in   any
		want []byte
		back any
	}{
		{"[4]float32", &struct {
			Rot [4]float32 `bits:"quat,bits=9"`
		}{}, bitsOf(f{3, 2}, f{255, 9}, f{255, 9}, f{255, 9}), &struct {
			Rot [4]float32 `bits:"quat,bits=9"`
		}{identity}},
		{"struct and float64", &tQuat{}, bitsOf(f{3, 2}, f{255, 9}, f{255, 9}, f{255, 9}, f{3, 2}, f{7, 4}, f{7, 4}, f{7, 4}),
			&tQuat{Quat{0, 0, 0, 1}, [4]float64{0, 0, 0, 1}}},
		{"negative zeros", &tQuatOnly{Q: [4]float32{float32(math.Copysign(0, -1)), 0, float32(math.Copysign(0, -1)), 0}},
			bitsOf(f{3, 2}, f{255, 9}, f{255, 9}, f{255, 9}), &tQuatOnly{identity}},
		{"wide", &qWide{}, bitsOf(f{3, 2}, f{1<<21 - 1, 22}, f{1<<21 - 1, 22}, f{1<<21 - 1, 22}), &qWide{Quat{0, 0, 0, 1}}},
		{"float64 at 12 bits", &qFloat64{}, bitsOf(f{3, 2}, f{2047, 12}, f{2047, 12}, f{2047, 12}), &qFloat64{[4]float64{0, 0, 0, 1}}},
	}
	for _, tt := range tests {
		got, err := bitpack.Marshal(tt.in)
		if err != nil || !bytes.Equal(got, tt.want) {
			t.Fatalf("%s: Marshal = %x, %v; want %x", tt.name, got, err, tt.want)
		}
		back := reflect.New(reflect.TypeOf(tt.in).Elem())
		if err := bitpack.Unmarshal(got, back.Interface()); err != nil || !reflect.DeepEqual(back.Interface(), tt.back) {
			t.Fatalf("%s: Unmarshal = %+v, %v; want %+v", tt.name, back.Interface(), err, tt.back)
		}
	}

	// A snapshot whose entity 250 was never given a rotation.
	rng := rand.New(rand.NewPCG(15, 1))
	snap := qSnapshot{Entities: make([]qEntity, 256)}
	for i := range snap.Entities {
		snap.Entities[i] = qEntity{ID: uint16(i), Rot: unitQuat(rng)}
	}
	snap.Entities[250] = qEntity{ID: 250}
	c, err := bitpack.NewCodec[qSnapshot]()
	if err != nil {
		t.Fatal(err)
	}
	for name, marshal := range map[string]func() ([]byte, error){
		"Marshal": func() ([]byte, error) { return bitpack.Marshal(&snap) },
		"Codec":   func() ([]byte, error) { return c.Append(nil, &snap) },
	} {
		packet, err := marshal()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var back qSnapshot
		if err := bitpack.Unmarshal(packet, &back); err != nil {
			t.Fatalf("%s: Unmarshal: %v", name, err)
		}
		if back.Entities[250].Rot != identity {
			t.Fatalf("%s: entity 250 decodes to %v, want %v", name, back.Entities[250].Rot, identity)
		}
	}
}

func unitQuat(rng *rand.Rand) [4]float32 {
	v := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	n := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3])
	return [4]float32{float32(v[0] / n), float32(v[1] / n), float32(v[2] / n), float32(v[3] / n)}
}

// TestQuatIdentityEveryBits: at every width a quat tag allows, the identity
// is index 3 and three codes M/2 = 2^(b-1) - 1, and decodes exactly; 3 and
// 23 bits are tag errors.
func TestQuatIdentityEveryBits(t *testing.T) {
	for b := 4; b <= 22; b++ {
		typ := quatType(b)
		in := reflect.New(typ)
		in.Elem().Field(0).Set(reflect.ValueOf([4]float32{0, 0, 0, 1}))
		mid := uint64(1)<<(b-1) - 1
		want := bitsOf(f{3, 2}, f{mid, b}, f{mid, b}, f{mid, b})
		got, err := bitpack.Marshal(in.Interface())
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("b=%d: Marshal = %x, %v; want %x", b, got, err, want)
		}
		back := reflect.New(typ)
		if err := bitpack.Unmarshal(got, back.Interface()); err != nil || back.Elem().Field(0).Interface() != [4]float32{0, 0, 0, 1} {
			t.Fatalf("b=%d: Unmarshal = %v, %v", b, back.Elem().Field(0).Interface(), err)
		}
	}
	for _, b := range []int{3, 23} {
		_, err := bitpack.Describe(reflect.New(quatType(b)).Interface())
		want := fmt.Sprintf("quat bits=%d: each component needs 4..22 bits (fewer allow errors past 45°; with more, float32 cannot hold every code's own value, so decoded quaternions would not re-encode to the same bytes)", b)
		var te *bitpack.TagError
		if !errors.As(err, &te) || te.Problem != want {
			t.Errorf("b=%d: %v\nwant the problem %q", b, err, want)
		}
	}
	_, err := bitpack.Describe(&qBits23{})
	want := `bitpack: type bitpack_test.qBits23 field Rot: tag "quat,bits=23": quat bits=23: each component needs 4..22 bits`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v\nwant it to start %q", err, want)
	}
}

// TestQuatNonUnitRefused: quaternions that are neither unit length (to
// within 1% of the squared norm) nor all zero are refused as before, on
// every encode path: a grouped word, a wide op, float64, and an element of
// a slice.
func TestQuatNonUnitRefused(t *testing.T) {
	tests := []struct {
		in  any
		msg string
	}{
		{&tQuatOnly{Q: [4]float32{0, 0, 0, 2}}, "field Q: quaternion [0 0 0 2] is not unit length (norm 2): normalise it"},
		{&tQuatOnly{Q: [4]float32{0.5, 0, 0, 0}}, "field Q: quaternion [0.5 0 0 0] is not unit length (norm 0.5): normalise it"},
		{&tQuatOnly{Q: [4]float32{0, 0, 1e-20, 0}}, "field Q: quaternion [0 0 1e-20 0] is not unit length (norm 1e-20): normalise it"},
		{&tQuatOnly{Q: [4]float32{0.5, 0.5, 0.5, 0.5101}}, "field Q: quaternion [0.5 0.5 0.5 0.5101] is not unit length (norm 1.005): normalise it"},
		{&qWide{Quat{0, 0, 0, 0.9}}, "field Rot: quaternion [0 0 0 0.9] is not unit length (norm 0.9): normalise it"},
		{&qFloat64{[4]float64{0, 1, 0, 1}}, "field Rot: quaternion [0 1 0 1] is not unit length (norm 1.414): normalise it"},
		{&qSnapshot{Entities: []qEntity{{Rot: [4]float32{0, 0, 0, 1}}, {ID: 1, Rot: [4]float32{0, 0, 0.1, 0}}}}, "field Entities[1].Rot: quaternion [0 0 0.1 0] is not unit length (norm 0.1): normalise it"},
		{&tQuatOnly{Q: [4]float32{0, 0, float32(math.Inf(1)), 0}}, "field Q: quaternion [0 0 +Inf 0] has a component that is not finite"},
	}
	for _, tt := range tests {
		_, err := bitpack.Marshal(tt.in)
		if !errors.Is(err, bitpack.ErrRange) || !strings.HasSuffix(err.Error(), tt.msg) {
			t.Errorf("Marshal(%+v) = %v\nwant ErrRange ending %q", tt.in, err, tt.msg)
		}
	}
	// Within 1% of unit length, and far from any tie or not, accepted.
	for _, q := range [][4]float32{{0, 0, 0, 1.004}, {0.5, 0.5, 0.5, 0.5075}, {0.5024, 0.5024, 0.5024, 0.5024}, {0.4975, 0.4975, 0.4975, 0.4975}} {
		packet, err := bitpack.Marshal(&tQuatOnly{Q: q})
		var back tQuatOnly
		if err != nil || bitpack.Unmarshal(packet, &back) != nil {
			t.Errorf("%v: %v", q, err)
		}
	}
}

// TestQuatBadData: codes no encoder writes are ErrRange, with the field,
// the bit offset and the reason, and leave the target untouched.
func TestQuatBadData(t *testing.T) {
	tests := []struct {
		packet []byte
		into   any
		msg    string
	}{
		{bitsOf(f{3, 2}, f{511, 9}, f{255, 9}, f{255, 9}), new(tQuatOnly),
			"bitpack: decode bitpack_test.tQuatOnly: field Q at bit 0: quaternion component code 511 out of range [0, 510]"},
		// Three components at m: squares past 1, rebuilt 0.
		{bitsOf(f{0, 2}, f{510, 9}, f{510, 9}, f{510, 9}), new(tQuatOnly),
			"field Q at bit 0: quaternion code (index 0, codes 510 510 510) is not canonical: it decodes to [0 0.70710677 0.70710677 0.70710677], which encodes with index 3"},
		// (-m, 0, 0) rebuilds m at index 0; the tie goes to index 1.
		{bitsOf(f{0, 2}, f{0, 9}, f{255, 9}, f{255, 9}), new(tQuatOnly),
			"field Q at bit 0: quaternion code (index 0, codes 0 255 255) is not canonical: it decodes to [0.70710677 -0.70710677 0 0], which encodes with index 1"},
		{bitsOf(f{3, 2}, f{255, 9}, f{255, 9}, f{255, 9}, f{0, 2}, f{14, 4}, f{14, 4}, f{14, 4}), new(tQuat),
			"field A at bit 29: quaternion code (index 0, codes 14 14 14) is not canonical: it decodes to [0 0.70710677 0.70710677 0.70710677], which encodes with index 3"},
		{bitsOf(f{3, 2}, f{1<<22 - 1, 22}, f{0, 22}, f{0, 22}), new(qWide),
			"field Rot at bit 0: quaternion component code 4194303 out of range [0, 4194302]"},
	}
	for _, tt := range tests {
		err := bitpack.Unmarshal(tt.packet, tt.into)
		if !errors.Is(err, bitpack.ErrRange) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Unmarshal(%x) = %v\nwant ErrRange containing %q", tt.packet, err, tt.msg)
		}
		if !reflect.ValueOf(tt.into).Elem().IsZero() {
			t.Errorf("failed Unmarshal changed the value: %+v", tt.into)
		}
	}
}

// TestQuatCanonical: random unit quaternions and the ±1/2 ties, on every
// encode path, decode to values that re-encode to the same bytes.
func TestQuatCanonical(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	var rots [][4]float32
	for range 3000 {
		rots = append(rots, unitQuat(rng))
	}
	for signs := range 16 {
		var v [4]float32
		for i := range v {
			v[i] = float32(0.5 - float64(signs>>i&1))
		}
		rots = append(rots, v)
	}
	snap := qSnapshot{}
	for i, r := range rots {
		values := []any{&tQuatOnly{Q: r}, &qWide{Quat{r[0], r[1], r[2], r[3]}}, &qFloat64{[4]float64{float64(r[0]), float64(r[1]), float64(r[2]), float64(r[3])}}, &tQuat{Quat{r[3], r[2], r[1], r[0]}, [4]float64{float64(r[0]), float64(r[1]), float64(r[2]), float64(r[3])}}}
		if snap.Entities = append(snap.Entities, qEntity{ID: uint16(i), Rot: r}); len(snap.Entities) == 300 || i == len(rots)-1 {
			values = append(values, &snap)
		}
		for _, v := range values {
			packet, err := bitpack.Marshal(v)
			if err != nil {
				t.Fatalf("%+v: %v", v, err)
			}
			back := reflect.New(reflect.TypeOf(v).Elem())
			if err := bitpack.Unmarshal(packet, back.Interface()); err != nil {
				t.Fatalf("%x: %v", packet, err)
			}
			if again, err := bitpack.Marshal(back.Interface()); err != nil || !bytes.Equal(again, packet) {
				t.Fatalf("%+v: decoded %+v re-encodes to %x (%v), want %x", v, back.Interface(), again, err, packet)
			}
		}
		if len(snap.Entities) == 300 {
			snap.Entities = snap.Entities[:0]
		}
	}
}

// TestQuatFingerprint: quaternion fields name the canonical wire (Q<bits>/<M>),
// so clients of the earlier wire ({Q9;Q4}, fingerprint 2847693467) do not
// match. The fingerprint is FNV-1a of the schema, computed independently.
func TestQuatFingerprint(t *testing.T) {
	l, err := bitpack.Describe(&tQuat{})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Schema(); got != "{Q9/510;Q4/14}" {
		t.Fatalf("Schema = %s, want {Q9/510;Q4/14}", got)
	}
	if fp, err := bitpack.Fingerprint(&tQuat{}); err != nil || fp != 3238749908 {
		t.Fatalf("Fingerprint = %d, %v; want 3238749908", fp, err)
	}
	if l, _ := bitpack.Describe(&qWide{}); l.Schema() != "{Q22/4194302}" {
		t.Fatalf("Schema = %s, want {Q22/4194302}", l.Schema())
	}
}

package gen

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/model"
)

// The corpus's delta commands (docs/wire.md, Delta encoding). Every
// language's driver answers them with its generated delta code:
//
//	D k <base> <delta>  read base (a packet Go accepts) as table type k,
//	                    apply the delta to it; answer as R does: OK and
//	                    the result's full encoding, TRAILING, or REFUSED
//	                    with the error (its path and bit those of the
//	                    delta packet)
//	E k <base> <value>  read base and value (packets Go accepts) as table
//	                    type k and write value's delta against base:
//	                    OK <delta>
//
// The pairs are values of the table that share most of their parts: a
// base, and a copy of it with some parts taken from another sample and
// some numbers moved a little (so deltas hold unchanged items, short and
// long forms, grown and shrunk lists, appearing pointers and changed
// union members). The first few deltas of each type are also damaged
// the way hostile adds packets.

var deltaCorpus = lazyCorpus{name: "delta corpus", build: buildDeltaCorpus}

// sharedDeltaCorpus is the corpus of delta commands, one of their own (a
// driver answers them after its read and write commands pass).
func sharedDeltaCorpus(t *testing.T) *corpus { return deltaCorpus.get(t) }

func buildDeltaCorpus(t *testing.T, entries []tableEntry, c *corpus) {
	rng := rand.New(rand.NewSource(29))
	for k, entry := range entries {
		typ := reflect.TypeOf(entry.proto)
		n, hostile := sweep(12, 6), deltaHostilePerType
		if typ == reflect.TypeOf(Far{}) {
			n = 3 // big values: a few go a long way
			if !fullSweeps() {
				hostile = 0 // see buildCorpus
			}
		}
		c.deltas(k, typ, entry.sample(int64(k)+1001, n), deltaPairsPerType, hostile, rng)
		c.deltaCrafted(k, typ)
		if typ == reflect.TypeOf(HookBox{}) {
			c.hookDeltas(k, entry.sample(int64(k)+2001, sweep(4, 2)))
		}
	}
	c.zeroBitDeltas(len(entries), rng)
}

var (
	deltaPairsPerType   = sweep(24, 8)
	deltaHostilePerType = sweep(2, 1)
	deltaRandomPerType  = sweep(10, 4)
)

// deltas adds the delta commands of pairs of table type k's samples, the
// first damaged of which are damaged the way hostile damages packets.
func (c *corpus) deltas(k int, typ reflect.Type, samples []any, pairs, damaged int, rng *rand.Rand) {
	if len(samples) < 2 {
		return
	}
	hostile := 0
	for i := 0; i < pairs; i++ {
		what := fmt.Sprintf("%s delta pair %d", typ, i)
		basePacket := mustMarshal(samples[i%len(samples)])
		var valuePacket []byte
		switch i {
		case 0:
			valuePacket = basePacket // unchanged: the delta is 00
		default:
			valuePacket = deltaNeighbour(typ, basePacket, mustMarshal(samples[(i+1)%len(samples)]), rng)
		}
		qb, qv := decodeFresh(typ, basePacket), decodeFresh(typ, valuePacket)
		d, err := bitpack.AppendDelta(nil, qb.Interface(), qv.Interface())
		if err != nil {
			panic(fmt.Sprintf("%s: AppendDelta of decoded values: %v", what, err))
		}
		c.deltaWrite(k, typ, basePacket, valuePacket, d, what)
		c.deltaRead(k, typ, basePacket, d, what)
		if len(d) > 1 && hostile < damaged {
			hostile++
			c.damaged(d, rng, func(p []byte, how string) {
				c.deltaRead(k, typ, basePacket, p, what+" "+how)
			})
		}
		if i < deltaRandomPerType {
			p := make([]byte, 1+rng.Intn(24))
			rng.Read(p)
			c.deltaRead(k, typ, basePacket, p, fmt.Sprintf("%s random delta %d", typ, i))
		}
	}
}

// deltaRead adds a D command: Go's answer is UnmarshalDelta's, the
// result written whole.
func (c *corpus) deltaRead(k int, typ reflect.Type, basePacket, d []byte, what string) {
	cmd := command{
		line:  fmt.Sprintf("D %d %x %x", k, basePacket, d),
		what:  what + ": delta " + hex.EncodeToString(d) + " against " + hex.EncodeToString(basePacket),
		exact: true,
	}
	base := decodeFresh(typ, basePacket)
	got := reflect.New(typ)
	err := bitpack.UnmarshalDelta(d, base.Interface(), got.Interface())
	var again []byte
	if err == nil {
		var werr error
		again, werr = bitpack.Marshal(got.Interface())
		switch {
		case werr != nil && strings.Contains(werr.Error(), " would take the decode past the "):
			cmd.unwritable = werr.Error()
		case werr != nil:
			err = fmt.Errorf("re-encoding an accepted delta's result failed: %w", werr)
		}
	}
	switch {
	case err == nil && cmd.unwritable != "":
		cmd.want, cmd.what = "OK", cmd.what+" (Go accepts it; its encoder refuses the result for the allowances)"
		c.add(cmd)
		c.reads++
		return
	case errors.Is(err, bitpack.ErrTrailing):
		cmd.want = "TRAILING"
	case err != nil:
		cmd.want, cmd.what = "REFUSED", cmd.what+" (Go: "+err.Error()+")"
		errors.As(err, &cmd.err)
	default:
		cmd.want = "OK " + hex.EncodeToString(again)
		cmd.quiet = quietAnswers(c.m.Roots[k], got.Elem(), cmd.want)
	}
	if hostIntRefusal(err) {
		c.twinAnswer(&cmd, k, typ, func(twin reflect.Type) (reflect.Value, error) {
			w := reflect.New(twin)
			return w, bitpack.UnmarshalDelta(d, decodeFresh(twin, basePacket).Interface(), w.Interface())
		})
		typ = wireTwins[typ]
	}
	cmd.quiet = append(cmd.quiet, quietDeltaAnswers(c.m.Roots[k], decodeFresh(typ, basePacket), d, cmd.want)...)
	c.add(cmd)
	c.reads++
}

// quietDeltaAnswers are the answers to the delta d against base (a *T)
// with the signalling NaNs of its raw float32 fields quieted, of its
// float64 fields, and of both: a runtime that quiets them reads another
// base (a delta may then change a NaN to the quiet NaN the runtime already
// holds, which it rightly refuses as no change). A refusal is written as
// the drivers write one. None when base holds no signalling NaN.
func quietDeltaAnswers(root *model.Type, base reflect.Value, d []byte, want string) []string {
	var out []string
	for _, widths := range []int{32, 64, 32 | 64} {
		qb := reflect.New(base.Type().Elem())
		qb.Elem().Set(base.Elem())
		if !quietFields(root, nil, qb.Elem(), widths) {
			continue
		}
		got := reflect.New(base.Type().Elem())
		err := bitpack.UnmarshalDelta(d, qb.Interface(), got.Interface())
		var answers []string
		var e *bitpack.Error
		switch {
		case err == nil:
			a := "OK " + hex.EncodeToString(mustMarshal(got.Interface()))
			answers = append(quietAnswers(root, got.Elem(), a), a)
		case errors.Is(err, bitpack.ErrTrailing):
			answers = []string{"TRAILING"}
		case errors.As(err, &e):
			answers = []string{fmt.Sprintf("REFUSED\t%s\t%s\t%d\t%s", goKind(err), e.Path, e.Bit, err)}
		}
		for _, a := range answers {
			if a != want && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// deltaWrite adds an E command, unless base or value holds a signalling
// NaN in a raw float: a runtime that quiets it compares other codes than
// Go does, so no single answer is right there.
func (c *corpus) deltaWrite(k int, typ reflect.Type, basePacket, valuePacket, d []byte, what string) {
	root := c.m.Roots[k]
	for _, p := range [][]byte{basePacket, valuePacket} {
		v := decodeFresh(typ, p)
		if len(quietAnswers(root, v.Elem(), "OK "+hex.EncodeToString(p))) > 0 {
			return
		}
	}
	c.add(command{
		line:  fmt.Sprintf("E %d %x %x", k, basePacket, valuePacket),
		want:  "OK " + hex.EncodeToString(d),
		what:  "write the delta of " + what + ": " + hex.EncodeToString(valuePacket) + " against " + hex.EncodeToString(basePacket),
		exact: true,
	})
}

// damaged calls add with every truncation of p, every bit of its first 64
// bytes flipped (and 256 others past them), and whole bytes appended.
func (c *corpus) damaged(p []byte, rng *rand.Rand, add func(q []byte, how string)) {
	for n := 0; n < len(p); n++ {
		add(p[:n], fmt.Sprintf("cut to %d bytes", n))
	}
	flip := func(bit int) {
		q := append([]byte(nil), p...)
		q[bit/8] ^= 1 << (bit % 8)
		add(q, fmt.Sprintf("with bit %d flipped", bit))
	}
	for bit := 0; bit < 8*min(len(p), 64); bit++ {
		flip(bit)
	}
	if len(p) > 64 {
		for i := 0; i < 256; i++ {
			flip(512 + rng.Intn(8*len(p)-512))
		}
	}
	for _, extra := range [][]byte{{0}, {0xff}, {0, 0}} {
		add(append(append([]byte(nil), p...), extra...), fmt.Sprintf("with %x appended", extra))
	}
}

func mustMarshal(v any) []byte {
	p, err := bitpack.Marshal(v)
	if err != nil {
		panic(err)
	}
	return p
}

// decodeFresh decodes a packet Go accepts into a new *typ.
func decodeFresh(typ reflect.Type, p []byte) reflect.Value {
	v := reflect.New(typ)
	if err := bitpack.Unmarshal(p, v.Interface()); err != nil {
		panic(fmt.Sprintf("%s: a packet Go wrote does not decode: %v", typ, err))
	}
	return v
}

// deltaNeighbour is the packet of a value near base's: base with parts of
// other's and small moves of numbers. A mix the tags refuse (a moved
// number out of range, a map past its maxlen) or that changes nothing is
// tried again, a few times, then other itself is taken.
func deltaNeighbour(typ reflect.Type, basePacket, otherPacket []byte, rng *rand.Rand) []byte {
	for _, moves := range []bool{true, true, true, false} {
		v, other := decodeFresh(typ, basePacket), decodeFresh(typ, otherPacket)
		mixValue(v.Elem(), other.Elem(), rng, moves, 0)
		if p, err := bitpack.Marshal(v.Interface()); err == nil && !bytes.Equal(p, basePacket) {
			return p
		}
	}
	return otherPacket
}

// mixValue changes dst (a settable value decoded from its own packet,
// sharing nothing with other) into a neighbour: each part is kept, taken
// from other, or mixed further down.
func mixValue(dst, other reflect.Value, rng *rand.Rand, moves bool, depth int) {
	if !dst.CanSet() || depth > 12 {
		return
	}
	r := rng.Float64()
	if depth == 0 {
		r = 1 // the root is always mixed part by part
	}
	if r < 0.55 {
		return // kept
	}
	if r < 0.75 {
		dst.Set(other) // taken whole
		return
	}
	if t, ok := dst.Interface().(time.Time); ok {
		if moves { // a few units of its field, whichever that is
			step := []time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond, time.Second, time.Hour}[rng.Intn(5)]
			dst.Set(reflect.ValueOf(t.Add(step * time.Duration(rng.Intn(7)-3))))
		}
		return
	}
	switch dst.Kind() {
	case reflect.Struct:
		for i := 0; i < dst.NumField(); i++ {
			mixValue(dst.Field(i), other.Field(i), rng, moves, depth+1)
		}
	case reflect.Array:
		for i := 0; i < dst.Len(); i++ {
			if rng.Intn(4) == 0 {
				mixValue(dst.Index(i), other.Index(i), rng, moves, depth+1)
			}
		}
	case reflect.Slice:
		if dst.Type().Elem().Kind() == reflect.Uint8 {
			dst.Set(other)
			return
		}
		n := min(dst.Len(), other.Len())
		for i := 0; i < n; i++ {
			if rng.Intn(4) == 0 {
				mixValue(dst.Index(i), other.Index(i), rng, moves, depth+1)
			}
		}
		switch {
		case rng.Intn(3) == 0 && dst.Len() > 0:
			dst.Set(dst.Slice(0, rng.Intn(dst.Len()))) // shrunk
		case rng.Intn(3) == 0 && other.Len() > dst.Len():
			dst.Set(reflect.AppendSlice(dst, other.Slice(dst.Len(), other.Len()))) // grown
		}
	case reflect.Pointer:
		if !dst.IsNil() && !other.IsNil() {
			mixValue(dst.Elem(), other.Elem(), rng, moves, depth+1)
		}
	case reflect.Map:
		if dst.IsNil() || other.IsNil() {
			return
		}
		for _, key := range sortedKeys(other) {
			if rng.Intn(3) == 0 {
				dst.SetMapIndex(key, other.MapIndex(key))
			}
		}
		for _, key := range sortedKeys(dst) {
			if rng.Intn(8) == 0 {
				dst.SetMapIndex(key, reflect.Value{})
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if moves {
			dst.SetInt(dst.Int() + int64(rng.Intn(7)-3))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if moves {
			dst.SetUint(dst.Uint() + uint64(rng.Intn(4)))
		}
	case reflect.Float32, reflect.Float64:
		if moves {
			scale := []float64{1e-2, 1e-4, 1e-6}[rng.Intn(3)]
			dst.SetFloat(dst.Float() * (1 + (rng.Float64()-0.5)*scale))
		}
	}
}

// TestDeltaCorpus checks the delta corpus itself: it holds both commands
// for every table type, unchanged pairs answer 00, damaged deltas are
// refused, and no command's answer depends on a value a client cannot
// hold.
func TestDeltaCorpus(t *testing.T) {
	c := sharedDeltaCorpus(t)
	reads, writes, refused, unchanged := map[string]int{}, map[string]int{}, 0, 0
	for _, cmd := range c.cmds {
		var k int
		var kind string
		fmt.Sscanf(cmd.line, "%s %d", &kind, &k)
		switch kind {
		case "D":
			reads[c.m.Roots[k].Name]++
			if cmd.want == "REFUSED" {
				refused++
			}
		case "E":
			writes[c.m.Roots[k].Name]++
			if cmd.want == "OK 00" {
				unchanged++
			}
		default:
			t.Fatalf("command %q is not a delta command", cmd.line)
		}
	}
	for k, root := range c.m.Roots {
		if reads[root.Name] < deltaPairsPerType || writes[root.Name] == 0 {
			t.Errorf("table type %d (%s): %d D and %d E commands", k, root.Name, reads[root.Name], writes[root.Name])
		}
	}
	if unchanged < len(c.m.Roots)/2 || refused == 0 {
		t.Errorf("%d unchanged pairs, %d refused deltas", unchanged, refused)
	}
	t.Logf("%d delta commands; %d refused, %d unchanged writes", len(c.cmds), refused, unchanged)
}

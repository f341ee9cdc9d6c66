package bench_test

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/fxamacker/cbor/v2"
	kbinary "github.com/kelindar/binary"
	"github.com/vmihailenco/msgpack/v5"
	"google.golang.org/protobuf/proto"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bench"
	"github.com/bitpack-go/bitpack/bench/internal/msgptypes"
	"github.com/bitpack-go/bitpack/bench/proto/benchpb"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
)

// A format is one serializer bound to one value. encode returns the value's
// encoding, valid until the next call (formats that can append into a
// buffer reuse one). decode decodes a packet into a value the format keeps
// and reuses where the library allows it; check compares the last decoded
// value with the original. Tests and benchmarks share these, so what is
// benchmarked is what is checked.
type format struct {
	name   string
	encode func() ([]byte, error)
	decode func(data []byte) error
	check  func() error
}

// Format names: the last element of each benchmark's name. "bitpack" (the
// Codec) is the baseline benchratio divides by.
const (
	fBitpack    = "bitpack"     // bitpack.Codec[T].Append / Unmarshal
	fBitpackAny = "bitpack-any" // bitpack.Append / Unmarshal
	fBitioHand  = "bitio-hand"  // written by hand against bitpack's bitio: a reference, not a peer
	fBinary     = "binary"      // encoding/binary.Append / Decode of FixedPacket (reflection)
	fBinaryHand = "binary-hand" // world.AppendRaw / DecodeRaw: hand-written against encoding/binary's byte order helpers
	fGob        = "gob"         // a fresh gob Encoder and Decoder per packet
	fGobStream  = "gob-stream"  // one gob Encoder/Decoder pair for a stream of packets
	fJSON       = "json"        // encoding/json
	fProtobuf   = "protobuf"    // google.golang.org/protobuf, generated code
	fMsgpack    = "msgpack"     // github.com/vmihailenco/msgpack/v5
	fMsgp       = "msgp"        // github.com/tinylib/msgp, generated code
	fCBOR       = "cbor"        // github.com/fxamacker/cbor/v2
	fKelindar   = "kelindar"    // github.com/kelindar/binary
)

// packetFormats returns every format bound to p, which must not change
// afterwards.
func packetFormats(tb testing.TB, p *bench.Packet) []format {
	tb.Helper()
	c, err := bitpack.NewCodec[bench.Packet]()
	if err != nil {
		tb.Fatal(err)
	}
	fixed, err := p.ToFixed()
	if err != nil {
		tb.Fatal(err)
	}
	pb := bench.PacketToProto(p)

	// The expected result of decoding bitpack: quantized floats within
	// half a quantum, everything else exact.
	checkBitpack := func(q *bench.Packet) error {
		if err := within("Position", p.Position[:], q.Position[:], 0.01, 1024); err != nil {
			return err
		}
		if err := within("Orientation", p.Orientation[:], q.Orientation[:], 0.0001, 1); err != nil {
			return err
		}
		want, got := *p, *q
		want.Position, want.Orientation = [3]float32{}, [4]float32{}
		got.Position, got.Orientation = [3]float32{}, [4]float32{}
		return diff(want, got)
	}
	exact := func(q *bench.Packet) func() error {
		return func() error { return diff(*p, *q) }
	}

	var fs []format
	{
		var buf []byte
		var q bench.Packet
		fs = append(fs, format{
			name: fBitpack,
			encode: func() (out []byte, err error) {
				buf, err = c.Append(buf[:0], p)
				return buf, err
			},
			decode: func(data []byte) error { return c.Unmarshal(data, &q) },
			check:  func() error { return checkBitpack(&q) },
		})
	}
	{
		var buf []byte
		var q bench.Packet
		fs = append(fs, format{
			name: fBitpackAny,
			encode: func() (out []byte, err error) {
				buf, err = bitpack.Append(buf[:0], p)
				return buf, err
			},
			decode: func(data []byte) error { return bitpack.Unmarshal(data, &q) },
			check:  func() error { return checkBitpack(&q) },
		})
	}
	{
		var w bitio.Writer
		var r bitio.Reader
		var q bench.Packet
		fs = append(fs, format{
			name: fBitioHand,
			encode: func() ([]byte, error) {
				w.Reset(w.Bytes()[:0])
				err := writeHandPacket(&w, p)
				return w.Bytes(), err
			},
			decode: func(data []byte) error {
				r.Reset(data)
				return readHandPacket(&r, &q)
			},
			check: func() error { return checkBitpack(&q) },
		})
	}
	{
		var buf []byte
		var q bench.FixedPacket
		fs = append(fs, format{
			name: fBinary,
			encode: func() (out []byte, err error) {
				buf, err = binary.Append(buf[:0], binary.LittleEndian, &fixed)
				return buf, err
			},
			decode: func(data []byte) error {
				n, err := binary.Decode(data, binary.LittleEndian, &q)
				switch {
				case err != nil:
					return err
				case n != len(data):
					return errTrailing
				}
				return q.Validate()
			},
			check: func() error { return diff(fixed, q) },
		})
	}
	fs = append(fs, gobFormats(p, func() *bench.Packet { return new(bench.Packet) },
		func(q *bench.Packet) { *q = bench.Packet{EventIDs: q.EventIDs[:0]} }, exact)...)
	{
		var q bench.Packet
		fs = append(fs, format{
			name:   fJSON,
			encode: func() ([]byte, error) { return json.Marshal(p) },
			decode: func(data []byte) error { return json.Unmarshal(data, &q) },
			check:  exact(&q),
		})
	}
	{
		var buf []byte
		q := new(benchpb.Packet)
		fs = append(fs, format{
			name: fProtobuf,
			encode: func() (out []byte, err error) {
				buf, err = proto.MarshalOptions{}.MarshalAppend(buf[:0], pb)
				return buf, err
			},
			decode: func(data []byte) error { return proto.Unmarshal(data, q) },
			check: func() error {
				if !proto.Equal(pb, q) {
					return fmt.Errorf("decoded message differs:\n%v\nwant\n%v", q, pb)
				}
				return diff(*p, bench.PacketFromProto(q))
			},
		})
	}
	fs = append(fs, msgpackFormat(p, exact))
	{
		var buf []byte
		var q msgptypes.Packet
		mp := (*msgptypes.Packet)(p) // same fields: a conversion, not a copy
		fs = append(fs, format{
			name: fMsgp,
			encode: func() (out []byte, err error) {
				buf, err = mp.MarshalMsg(buf[:0])
				return buf, err
			},
			decode: func(data []byte) error { return unmarshalMsgp(&q, data) },
			check:  exact((*bench.Packet)(&q)),
		})
	}
	fs = append(fs, cborFormat(p, exact), kelindarFormat(p, exact))
	return fs
}

// snapshotFormats returns every format bound to s, which must not change
// afterwards.
func snapshotFormats(tb testing.TB, s *world.Snapshot) []format {
	tb.Helper()
	c, err := bitpack.NewCodec[world.Snapshot]()
	if err != nil {
		tb.Fatal(err)
	}
	pb := bench.SnapshotToProto(s)
	mp := msgptypes.FromWorld(s)
	exact := func(q *world.Snapshot) func() error {
		return func() error { return diff(*s, *q) }
	}

	var fs []format
	{
		var buf []byte
		var q world.Snapshot
		fs = append(fs, format{
			name: fBitpack,
			encode: func() (out []byte, err error) {
				buf, err = c.Append(buf[:0], s)
				return buf, err
			},
			decode: func(data []byte) error { return c.Unmarshal(data, &q) },
			check:  func() error { return checkQuantizedSnapshot(s, &q) },
		})
	}
	{
		var buf []byte
		var q world.Snapshot
		fs = append(fs, format{
			name: fBitpackAny,
			encode: func() (out []byte, err error) {
				buf, err = bitpack.Append(buf[:0], s)
				return buf, err
			},
			decode: func(data []byte) error { return bitpack.Unmarshal(data, &q) },
			check:  func() error { return checkQuantizedSnapshot(s, &q) },
		})
	}
	{
		var w bitio.Writer
		var r bitio.Reader
		var q world.Snapshot
		fs = append(fs, format{
			name: fBitioHand,
			encode: func() ([]byte, error) {
				w.Reset(w.Bytes()[:0])
				err := writeHandSnapshot(&w, s)
				return w.Bytes(), err
			},
			decode: func(data []byte) error {
				r.Reset(data)
				return readHandSnapshot(&r, &q)
			},
			check: func() error { return checkQuantizedSnapshot(s, &q) },
		})
	}
	{
		var buf []byte
		var q world.Snapshot
		fs = append(fs, format{
			name: fBinaryHand,
			encode: func() ([]byte, error) {
				buf = world.AppendRaw(buf[:0], s)
				return buf, nil
			},
			decode: func(data []byte) error { return world.DecodeRaw(data, &q) },
			check:  exact(&q),
		})
	}
	fs = append(fs, gobFormats(s, func() *world.Snapshot { return new(world.Snapshot) }, resetSnapshot, exact)...)
	{
		var q world.Snapshot
		fs = append(fs, format{
			name:   fJSON,
			encode: func() ([]byte, error) { return json.Marshal(s) },
			decode: func(data []byte) error { return json.Unmarshal(data, &q) },
			check:  exact(&q),
		})
	}
	{
		var buf []byte
		q := new(benchpb.Snapshot)
		fs = append(fs, format{
			name: fProtobuf,
			encode: func() (out []byte, err error) {
				buf, err = proto.MarshalOptions{}.MarshalAppend(buf[:0], pb)
				return buf, err
			},
			decode: func(data []byte) error { return proto.Unmarshal(data, q) },
			check: func() error {
				if !proto.Equal(pb, q) {
					return errors.New("decoded message differs")
				}
				return diff(*s, bench.SnapshotFromProto(q))
			},
		})
	}
	fs = append(fs, msgpackFormat(s, exact))
	{
		var buf []byte
		var q msgptypes.Snapshot
		fs = append(fs, format{
			name: fMsgp,
			encode: func() (out []byte, err error) {
				buf, err = mp.MarshalMsg(buf[:0])
				return buf, err
			},
			decode: func(data []byte) error { return unmarshalMsgp(&q, data) },
			check:  func() error { return diff(*s, msgptypes.ToWorld(&q)) },
		})
	}
	fs = append(fs, cborFormat(s, exact), kelindarFormat(s, exact))
	return fs
}

var errTrailing = errors.New("trailing bytes after the value")

// gobFormats returns gob in its two modes.
//
// "gob" gives every packet a fresh Encoder and Decoder, so each packet
// carries gob's type descriptions and decodes on its own — what a datagram
// that may be lost or reordered needs.
//
// "gob-stream" uses one Encoder and one Decoder for all packets, as over a
// TCP connection: the type descriptions travel once, before the first
// packet (sent when the format is built, outside the timed loop), and each
// packet depends on the stream before it.
//
// gob leaves zero fields out and, decoding into an existing value, leaves
// the corresponding Go fields alone; reset clears a reused value first (its
// cost counts as decoding).
func gobFormats[T any](v *T, alloc func() *T, reset func(*T), exact func(*T) func() error) []format {
	var buf bytes.Buffer
	q := alloc()
	single := format{
		name: fGob,
		encode: func() ([]byte, error) {
			buf.Reset()
			err := gob.NewEncoder(&buf).Encode(v)
			return buf.Bytes(), err
		},
		decode: func(data []byte) error {
			reset(q)
			r := bytes.NewReader(data)
			if err := gob.NewDecoder(r).Decode(q); err != nil {
				return err
			}
			if r.Len() != 0 {
				return errTrailing
			}
			return nil
		},
		check: exact(q),
	}

	var out, in bytes.Buffer // the two ends of the stream
	enc, dec := gob.NewEncoder(&out), gob.NewDecoder(&in)
	qs := alloc()
	primed := false
	prime := func() error { // send and receive the type descriptions
		if primed {
			return nil
		}
		primed = true
		if err := enc.Encode(v); err != nil {
			return err
		}
		in.Write(out.Bytes())
		return dec.Decode(qs)
	}
	stream := format{
		name: fGobStream,
		encode: func() ([]byte, error) {
			if err := prime(); err != nil {
				return nil, err
			}
			out.Reset()
			err := enc.Encode(v)
			return out.Bytes(), err
		},
		decode: func(data []byte) error {
			if err := prime(); err != nil {
				return err
			}
			reset(qs)
			in.Write(data) // what the connection delivers
			if err := dec.Decode(qs); err != nil {
				return err
			}
			if in.Len() != 0 {
				return errTrailing
			}
			return nil
		},
		check: exact(qs),
	}
	return []format{single, stream}
}

// resetSnapshot zeroes s for gob, keeping its slices' capacity.
func resetSnapshot(s *world.Snapshot) {
	clear(s.Players[:cap(s.Players)])
	clear(s.Grunts[:cap(s.Grunts)])
	*s = world.Snapshot{Players: s.Players[:0], Grunts: s.Grunts[:0]}
}

// msgpackFormat uses one Encoder and Decoder, reset for each packet, as
// the library recommends for speed.
func msgpackFormat[T any](v *T, exact func(*T) func() error) format {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	var r bytes.Reader
	dec := msgpack.NewDecoder(&r)
	q := new(T)
	return format{
		name: fMsgpack,
		encode: func() ([]byte, error) {
			buf.Reset()
			err := enc.Encode(v)
			return buf.Bytes(), err
		},
		decode: func(data []byte) error {
			r.Reset(data)
			dec.Reset(&r)
			if err := dec.Decode(q); err != nil {
				return err
			}
			if r.Len() != 0 {
				return errTrailing
			}
			return nil
		},
		check: exact(q),
	}
}

// unmarshalMsgp decodes with msgp's generated code, refusing trailing bytes.
func unmarshalMsgp(v interface {
	UnmarshalMsg([]byte) ([]byte, error)
}, data []byte) error {
	rest, err := v.UnmarshalMsg(data)
	if err == nil && len(rest) != 0 {
		err = errTrailing
	}
	return err
}

// cborEnc and cborDec are fxamacker/cbor's default modes; the encoder
// writes into a caller's buffer.
var (
	cborEnc = func() cbor.UserBufferEncMode {
		em, err := cbor.EncOptions{}.UserBufferEncMode()
		if err != nil {
			panic(err)
		}
		return em
	}()
	cborDec = func() cbor.DecMode {
		dm, err := cbor.DecOptions{}.DecMode()
		if err != nil {
			panic(err)
		}
		return dm
	}()
)

func cborFormat[T any](v *T, exact func(*T) func() error) format {
	var buf bytes.Buffer
	q := new(T)
	return format{
		name: fCBOR,
		encode: func() ([]byte, error) {
			buf.Reset()
			err := cborEnc.MarshalToBuffer(v, &buf)
			return buf.Bytes(), err
		},
		decode: func(data []byte) error { return cborDec.Unmarshal(data, q) },
		check:  exact(q),
	}
}

// kelindarFormat reuses one Encoder; decoding goes through Unmarshal,
// which reuses pooled decoders itself.
func kelindarFormat[T any](v *T, exact func(*T) func() error) format {
	var buf bytes.Buffer
	enc := kbinary.NewEncoder(&buf)
	q := new(T)
	return format{
		name: fKelindar,
		encode: func() ([]byte, error) {
			buf.Reset()
			enc.Reset(&buf)
			err := enc.Encode(v)
			return buf.Bytes(), err
		},
		decode: func(data []byte) error { return kbinary.Unmarshal(data, q) },
		check:  exact(q),
	}
}

package bitpack_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// Seal adds a CRC32 keyed by a protocol id that is never sent; Open checks
// it and returns the payload.
func ExampleSeal() {
	const protocolID = 0x12345678
	payload := []byte{0x1d, 0x61, 0x64, 0x61}
	packet := bitpack.Seal(nil, protocolID, payload)
	fmt.Printf("%x\n", packet)

	got, err := bitpack.Open(protocolID, packet)
	fmt.Printf("%x %v\n", got, err)

	packet[7] ^= 1 // damaged on the way
	_, err = bitpack.Open(protocolID, packet)
	fmt.Println(errors.Is(err, bitpack.ErrChecksum))
	packet[7] ^= 1
	_, err = bitpack.Open(protocolID+1, packet) // another game, or another version
	fmt.Println(errors.Is(err, bitpack.ErrChecksum))
	// Output:
	// 8fbff4fa1d616461
	// 1d616461 <nil>
	// true
	// true
}

type ExEntity struct {
	ID     uint16 `bits:"range=0..1023"`
	Health int32  `bits:"range=0..200"`
}

type ExWorld struct {
	Tick     uint32
	Entities [256]*ExEntity `bits:"sparse"` // only the slots in use travel
}

// A data error is a *bitpack.Error: its Path names the field, Bit (when
// decoding) where it starts. A server that finds one bad entity in its
// snapshot can tell which one from the path.
func ExampleError() {
	var w ExWorld
	for _, id := range []uint16{3, 17, 250} {
		w.Entities[id] = &ExEntity{ID: id, Health: 100}
	}
	w.Entities[250].Health = 250 // a bug somewhere in the game code

	_, err := bitpack.Marshal(&w)
	var e *bitpack.Error
	if errors.As(err, &e) {
		fmt.Println(err)
		var slot int
		if _, serr := fmt.Sscanf(e.Path, "Entities[%d]", &slot); serr == nil {
			fmt.Printf("slot %d, field %s, bit %d, range error: %v\n", slot, e.Path, e.Bit, errors.Is(err, bitpack.ErrRange))
			w.Entities[slot].Health = min(w.Entities[slot].Health, 200) // or log it and leave the entity out
		}
	}
	data, err := bitpack.Marshal(&w)
	fmt.Println(len(data), err)

	// Decoding, Bit says where the refused field starts.
	err = bitpack.Unmarshal(data[:len(data)-1], &w)
	if errors.As(err, &e) {
		fmt.Println(err)
		fmt.Println(e.Op, e.Path, e.Bit, errors.Is(err, bitpack.ErrOverflow))
	}
	// Output:
	// bitpack: encode bitpack_test.ExWorld: field Entities[250].Health: value 250 out of range [0, 200]
	// slot 250, field Entities[250].Health, bit -1, range error: true
	// 15 <nil>
	// bitpack: decode bitpack_test.ExWorld: field Entities at bit 112: needs 1 bits, 0 remain
	// decode Entities 112 true
}

type ExClamped struct {
	Health int32 `bits:"range=0..200,clamp"` // out-of-range values are sent as the nearer bound
	Armor  int8  `bits:"bits=4,clamp"`       // [-8, 7]
}

// With clamp, an integer outside its range is sent as the nearer bound
// instead of failing the whole packet. Without it, encoding is
// all-or-nothing: one bad value refuses the packet.
func Example_clamp() {
	data, err := bitpack.Marshal(&ExClamped{Health: 250, Armor: -100})
	if err != nil {
		fmt.Println(err)
		return
	}
	var got ExClamped
	err = bitpack.Unmarshal(data, &got)
	fmt.Printf("%x %+v %v\n", data, got, err)
	// Output:
	// c808 {Health:200 Armor:-8} <nil>
}

type ExSquad struct {
	Slots [1024]*ExUnit `bits:"sparse"`
}

// A sparse array sends only its non-nil elements, each after its index
// relative to the previous one, then an end marker.
func Example_sparse() {
	var s ExSquad
	s.Slots[1] = &ExUnit{HP: 100}
	s.Slots[2] = &ExUnit{HP: 7}
	s.Slots[700] = &ExUnit{HP: 50}
	data, err := bitpack.Marshal(&s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d bytes: %x\n", len(data), data)

	var got ExSquad
	if err := bitpack.Unmarshal(data, &got); err != nil {
		fmt.Println(err)
		return
	}
	for i, u := range got.Slots {
		if u != nil {
			fmt.Println(i, u.HP)
		}
	}
	// Output:
	// 8 bytes: 82fc0043830cae00
	// 1 100
	// 2 7
	// 700 50
}

// ExScore encodes itself: a flag bit, then 4 bits for scores under 16 and
// 32 bits for the rest.
type ExScore uint32

func (s *ExScore) MarshalBits(w *bitio.Writer) error {
	if *s < 16 {
		w.WriteBool(false)
		w.WriteBits(uint64(*s), 4)
	} else {
		w.WriteBool(true)
		w.WriteBits(uint64(*s), 32)
	}
	return nil
}

// UnmarshalBits treats the bits as hostile: a small score in the long form
// would not re-encode to the same bits, so it is refused.
func (s *ExScore) UnmarshalBits(r *bitio.Reader) error {
	if !r.ReadBool() {
		*s = ExScore(r.ReadBits(4))
		return nil
	}
	*s = ExScore(r.ReadBits(32))
	if r.Err() == nil && *s < 16 {
		return fmt.Errorf("score %d in the long form: %w", *s, bitpack.ErrRange)
	}
	return nil
}

type ExScores struct {
	Scores [3]ExScore
}

// Types with MarshalBits and UnmarshalBits (both, on the pointer) write
// their own bits.
func ExampleMarshaler() {
	data, err := bitpack.Marshal(&ExScores{Scores: [3]ExScore{3, 15, 100000}})
	if err != nil {
		fmt.Println(err)
		return
	}
	var got ExScores
	err = bitpack.Unmarshal(data, &got)
	fmt.Printf("%d bytes: %x %v %v\n", len(data), data, got.Scores, err)

	long := []byte{0x01, 0, 0, 0, 0} // the first score, 0, in the long form
	err = bitpack.Unmarshal(long, &got)
	fmt.Println(err)
	// Output:
	// 6 bytes: c607350c0000 [3 15 100000] <nil>
	// bitpack: decode bitpack_test.ExScores: field Scores[0] at bit 0: score 0 in the long form: bitio: value out of range
}

type ExChatLog struct {
	Lines []string `bits:"maxlen=4,elem.maxlen=15"` // up to 4 lines of up to 15 bytes
}

// elem. options reach the elements of a slice: the slice's maxlen and its
// strings' maxlen in one tag.
func Example_elemMaxlen() {
	data, err := bitpack.Marshal(&ExChatLog{Lines: []string{"gg", "wp"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	var got ExChatLog
	err = bitpack.Unmarshal(data, &got)
	fmt.Printf("%x %q %v\n", data, got.Lines, err)

	_, err = bitpack.Marshal(&ExChatLog{Lines: []string{"this line is too long"}})
	fmt.Println(err)

	type Bad struct {
		Lines []string `bits:"maxlen=4"`
	}
	_, err = bitpack.Describe(&Bad{})
	fmt.Println(err)
	// Output:
	// 126767027770 ["gg" "wp"] <nil>
	// bitpack: encode bitpack_test.ExChatLog: field Lines[0]: string of 21 bytes exceeds maxlen 15
	// bitpack: type bitpack_test.Bad field Lines: tag "maxlen=4": the string elements of []string need a maxlen of their own: add elem.maxlen=N to the tag, e.g. bits:"maxlen=4,elem.maxlen=32"
}

type ExCooldown struct {
	Left time.Duration `bits:"unit=1ms,range=0..60000"` // up to a minute, in milliseconds: 16 bits
}

// unit= sends a time.Duration as a count of units. Values between two
// units round to the nearest (a quantization, like a compressed float).
func Example_duration() {
	data, err := bitpack.Marshal(&ExCooldown{Left: 1500*time.Millisecond + 600*time.Microsecond})
	if err != nil {
		fmt.Println(err)
		return
	}
	var got ExCooldown
	err = bitpack.Unmarshal(data, &got)
	fmt.Printf("%x %v %v\n", data, got.Left, err)

	l, _ := bitpack.Describe(&ExCooldown{})
	fmt.Print(l)
	// Output:
	// dd05 1.501s <nil>
	// bitpack_test.ExCooldown: 16 bits, 2 bytes
	// field  type           encoding              bits
	// Left   time.Duration  int [0, 60000] × 1ms    16
}

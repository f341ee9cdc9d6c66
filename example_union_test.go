package bitpack_test

import (
	"fmt"

	"github.com/bitpack-go/bitpack"
)

// Packet types of the union examples.
type ExMove struct {
	DX int8 `bits:"range=-8..7"` // 4 bits
	DY int8 `bits:"range=-8..7"` // 4 bits
}

type ExFire struct {
	Power uint8 `bits:"range=0..3"` // 2 bits
}

type ExChat struct {
	Text string `bits:"maxlen=31"` // 5 bits, align, bytes
}

// ExMsg is the interface the union is registered for.
type ExMsg interface{ isExMsg() }

func (ExMove) isExMsg()  {}
func (*ExFire) isExMsg() {}
func (ExChat) isExMsg()  {}

// ExEnvelope carries messages inside a packet.
type ExEnvelope struct {
	Seq  uint16  `bits:"range=0..1023"`
	Msgs []ExMsg `bits:"maxlen=4"` // 3-bit count, then index + member each
}

// exMsgs is built once: registering the same union again is a no-op, a
// different one for ExMsg an error.
var exMsgs, _ = bitpack.NewUnion(bitpack.IndexBits(4), ExMove{}, &ExFire{}, ExChat{})

func ExampleUnion() {
	// The members' positions are their type indices: 0, 1, 2 in 2 bits.
	u, err := bitpack.NewUnion(ExMove{}, &ExFire{}, ExChat{})
	if err != nil {
		fmt.Println(err)
		return
	}
	data, err := u.Marshal(&ExFire{Power: 2}) // index 1, then Power
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%x\n", data)

	v, err := u.Unmarshal(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	switch m := v.(type) { // *ExFire: it was given as a pointer
	case *ExFire:
		fmt.Println("fire", m.Power)
	case ExMove:
		fmt.Println("move", m.DX, m.DY)
	}

	_, err = u.Unmarshal([]byte{0x03}) // index 3: no such member
	fmt.Println(err)
	// Output:
	// 09
	// fire 2
	// bitpack: decode: at bit 0: union index 3 out of range [0, 2]
}

// A union registered for an interface encodes every field of that
// interface type, and slices of it.
func ExampleRegisterUnion() {
	if err := bitpack.RegisterUnion[ExMsg](exMsgs); err != nil { // in init(), usually
		fmt.Println(err)
		return
	}
	env := ExEnvelope{Seq: 7, Msgs: []ExMsg{ExMove{DX: -1, DY: 2}, &ExFire{Power: 3}}}
	data, err := bitpack.Marshal(&env)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d bytes: %x\n", len(data), data)

	var got ExEnvelope
	if err := bitpack.Unmarshal(data, &got); err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range got.Msgs {
		fmt.Printf("%T %+v\n", m, m)
	}
	// Output:
	// 4 bytes: 07084e63
	// bitpack_test.ExMove {DX:-1 DY:2}
	// *bitpack_test.ExFire &{Power:3}
}

// A union grows safely only with a fixed index width: members appended at
// the end leave the bytes of the others as they were, and an old reader
// refuses the new member's index instead of misreading it.
func ExampleIndexBits() {
	v1, _ := bitpack.NewUnion(bitpack.IndexBits(4), ExMove{}, &ExFire{})
	v2, _ := bitpack.NewUnion(bitpack.IndexBits(4), ExMove{}, &ExFire{}, ExChat{}) // ExChat appended
	a, _ := v1.Marshal(&ExFire{Power: 2})
	b, _ := v2.Marshal(&ExFire{Power: 2})
	fmt.Printf("v1 %x, v2 %x\n", a, b)

	chat, _ := v2.Marshal(ExChat{Text: "hi"})
	_, err := v1.Unmarshal(chat)
	fmt.Println(err)

	// Without IndexBits the width follows the member count: 1 bit for two
	// members, 2 for three, and every packet changes.
	w1, _ := bitpack.NewUnion(ExMove{}, &ExFire{})
	w2, _ := bitpack.NewUnion(ExMove{}, &ExFire{}, ExChat{})
	a, _ = w1.Marshal(&ExFire{Power: 2})
	b, _ = w2.Marshal(&ExFire{Power: 2})
	fmt.Printf("w1 %x, w2 %x\n", a, b)
	// Output:
	// v1 21, v2 21
	// bitpack: decode: at bit 0: union index 2 out of range [0, 1]
	// w1 05, w2 09
}

// At gives members the numbers a protocol already uses.
func ExampleAt() {
	u, err := bitpack.NewUnion(bitpack.IndexBits(8), bitpack.At(7, ExMove{}), bitpack.At(9, &ExFire{}))
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _ := u.Marshal(&ExFire{Power: 2})
	fmt.Printf("%x\n", data) // index 9 in 8 bits, then Power
	_, err = u.Unmarshal([]byte{0x08, 0x00})
	fmt.Println(err)
	// Output:
	// 0902
	// bitpack: decode: at bit 0: union index 8 names no member (7, 9)
}

// ExMsgV2 is ExMsg's next version, for the Fingerprint example: the same
// members and one more.
type ExMsgV2 interface{ isExMsg() }

type ExEnvelopeV2 struct {
	Seq  uint16    `bits:"range=0..1023"`
	Msgs []ExMsgV2 `bits:"maxlen=4"`
}

type ExUnit struct {
	HP uint8 `bits:"range=0..100"`
}

type ExFastUnit struct {
	HP uint8 `bits:"range=0..200"` // one bit more than ExUnit's
}

var exMsgsV2, _ = bitpack.NewUnion(bitpack.IndexBits(4), ExMove{}, &ExFire{}, ExChat{}, ExUnit{})

func (ExUnit) isExMsg() {}

// Fingerprint hashes everything that decides the bits, and nothing else:
// Go field names do not count, a range or a union member does. Mixed into
// the protocol id of Seal, it makes clients of another schema fail the CRC.
func ExampleFingerprint() {
	a, _ := bitpack.Fingerprint(&ExUnit{})
	b, _ := bitpack.Fingerprint(&ExFastUnit{})
	l, _ := bitpack.Describe(&ExUnit{})
	fmt.Printf("%s %08x\n", l.Schema(), a)
	l, _ = bitpack.Describe(&ExFastUnit{})
	fmt.Printf("%s %08x\n", l.Schema(), b)

	_ = bitpack.RegisterUnion[ExMsg](exMsgs)
	_ = bitpack.RegisterUnion[ExMsgV2](exMsgsV2)
	v1, _ := bitpack.Fingerprint(&ExEnvelope{})
	v2, _ := bitpack.Fingerprint(&ExEnvelopeV2{})
	fmt.Printf("envelope v1 %08x, v2 %08x\n", v1, v2)

	const appID = 0x47414d45
	payload, _ := bitpack.Marshal(&ExUnit{HP: 50})
	packet := bitpack.Seal(nil, appID^a, payload)
	_, err := bitpack.Open(appID^b, packet) // a client built with ExFastUnit
	fmt.Println(err)
	// Output:
	// {r0..100} 2a9a5a4e
	// {r0..200} 1d85c6dd
	// envelope v1 0d901a9b, v2 5c1062f9
	// bitpack: packet checksum mismatch
}

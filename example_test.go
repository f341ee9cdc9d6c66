package bitpack_test

import (
	"errors"
	"fmt"

	"github.com/bitpack-go/bitpack"
)

// Types for the examples: what a game already has, with tags added.
type ExVec3 struct{ X, Y, Z float32 }

type ExPlayer struct {
	Health int32  `bits:"range=0..1000"`                     // 10 bits
	Pos    ExVec3 `bits:"float,min=-1024,max=1024,res=0.01"` // 3 × 18 bits
	Name   string `bits:"maxlen=15"`                         // 4 bits, align, bytes
	Alive  bool   // 1 bit
}

func ExampleMarshal() {
	p := ExPlayer{Health: 731, Pos: ExVec3{102.4, -55.3, 12.75}, Name: "ada", Alive: true}
	data, err := bitpack.Marshal(&p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d bytes: %x\n", len(data), data)
	// Output: 13 bytes: db02e066a6d73e650361646101
}

func ExampleUnmarshal() {
	data := []byte{0xdb, 0x02, 0xe0, 0x66, 0xa6, 0xd7, 0x3e, 0x65, 0x03, 0x61, 0x64, 0x61, 0x01}
	var p ExPlayer
	if err := bitpack.Unmarshal(data, &p); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", p)

	// A hostile packet: Health's 10 bits say 1013, above the declared 1000.
	err := bitpack.Unmarshal([]byte{0xf5, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, &p)
	fmt.Println(err)
	fmt.Println(errors.Is(err, bitpack.ErrRange), p.Health) // p is untouched
	// Output:
	// {Health:731 Pos:{X:102.400024 Y:-55.299988 Z:12.75} Name:ada Alive:true}
	// bitpack: decode bitpack_test.ExPlayer: field Health at bit 0: value 1013 out of range [0, 1000]
	// true 731
}

func ExampleNewCodec() {
	// A Codec compiles the plan once and reports tag errors up front; its
	// Append and Unmarshal allocate nothing in steady state.
	codec, err := bitpack.NewCodec[ExPlayer]()
	if err != nil {
		fmt.Println(err)
		return
	}
	buf := make([]byte, 0, 64)
	var back ExPlayer
	for tick := int32(0); tick < 3; tick++ {
		p := ExPlayer{Health: 100 * tick, Name: "bot", Alive: tick > 0}
		buf, err = codec.Append(buf[:0], &p)
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := codec.Unmarshal(buf, &back); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(len(buf), back.Health, back.Alive)
	}
	// Output:
	// 13 0 false
	// 13 100 true
	// 13 200 true
}

func ExampleDescribe() {
	layout, err := bitpack.Describe(&ExPlayer{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(layout)
	// Output:
	// bitpack_test.ExPlayer: 69–196 bits, 9–25 bytes
	// field   type                 encoding                                  bits
	// Health  int32                int [0, 1000]                               10
	// Pos     bitpack_test.ExVec3  struct                                      54
	//   X     float32              compressed float [-1024, 1024] res 0.01     18
	//   Y     float32              compressed float [-1024, 1024] res 0.01     18
	//   Z     float32              compressed float [-1024, 1024] res 0.01     18
	// Name    string               string maxlen 15                         4–131
	// Alive   bool                 bool                                         1
}

// A tag mistake is reported when the plan compiles, naming the field and tag.
func ExampleTagError() {
	type Bad struct {
		Pos ExVec3 `bits:"float,min=10,max=-10,res=0.01"`
	}
	_, err := bitpack.Describe(&Bad{})
	fmt.Println(err)
	// Output: bitpack: type bitpack_test.Bad field Pos: tag "float,min=10,max=-10,res=0.01": min must be < max
}

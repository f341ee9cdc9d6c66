package bitio_test

import (
	"errors"
	"fmt"

	"github.com/bitpack-go/bitpack/bitio"
	"github.com/bitpack-go/bitpack/quant"
)

// The bit order of the package doc's diagram.
func Example_bitOrder() {
	w := bitio.NewWriter(nil)
	w.WriteBits(0b101, 3)
	w.WriteBits(0b1111000, 7)
	w.WriteBits(1, 1)
	fmt.Printf("%d bits: %#x\n", w.BitsWritten(), w.Bytes())
	// Output: 11 bits: 0xc507
}

func ExampleWriter() {
	w := bitio.NewWriter(make([]byte, 0, 64)) // appends; no allocation while capacity lasts
	w.WriteInt(731, 0, 1000)                  // 10 bits
	w.WriteBool(true)                         // 1 bit
	w.WriteCompressedFloat(12.75, -1024, 1024, 0.01)
	w.WriteString("ada", 15) // 4 bits of length, align, 3 bytes
	if err := w.Err(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d bits in %d bytes: %x\n", w.BitsWritten(), len(w.Bytes()), w.Bytes())
	// Output: 64 bits in 8 bytes: dbdea76c00616461
}

func ExampleReader() {
	r := bitio.NewReader([]byte{0xdb, 0xde, 0xa7, 0x6c, 0x00, 0x61, 0x64, 0x61})
	health := r.ReadInt(0, 1000)
	alive := r.ReadBool()
	x := r.ReadCompressedFloat(-1024, 1024, 0.01)
	name := r.ReadString(15)
	if err := r.Err(); err != nil { // one check covers every read above
		fmt.Println(err)
		return
	}
	fmt.Println(health, alive, x, name)
	// Output: 731 true 12.75 ada
}

// A hostile packet: the 10-bit field carries 1013, above the declared 1000.
func ExampleReader_errors() {
	r := bitio.NewReader([]byte{0xf5, 0x03})
	v := r.ReadInt(0, 1000)
	fmt.Println(v, r.Err())
	fmt.Println(errors.Is(r.Err(), bitio.ErrRange))
	// Output:
	// 0 bitio: read int at bit 0: value 1013 out of range [0, 1000]
	// true
}

// Precomputed parameters: the same bytes as WriteCompressedFloat, without
// redoing the division and ceil on every call.
func ExampleWriter_WriteQuantized() {
	pos, err := quant.NewFloat(-1024, 1024, 0.01)
	if err != nil {
		fmt.Println(err)
		return
	}
	w := bitio.NewWriter(nil)
	for _, v := range []float32{102.4, -55.3, 12.75} {
		w.WriteQuantized(&pos, v)
	}
	r := bitio.NewReader(w.Bytes())
	for i := 0; i < 3; i++ {
		fmt.Print(r.ReadQuantized(&pos), " ")
	}
	fmt.Println(pos.Bits(), "bits each")
	// Output: 102.400024 -55.299988 12.75 18 bits each
}

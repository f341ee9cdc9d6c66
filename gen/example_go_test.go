package gen_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"github.com/bitpack-go/bitpack/gen"
)

// Input is a client's input message.
type Input struct {
	Seq  uint16  `bits:"range=0..1023"`
	Aim  float32 `bits:"float,min=-1,max=1,res=0.001"`
	Fire bool
}

// Scores holds a map, which generated Go code leaves to the plan.
type Scores struct {
	ByPlayer map[uint8]uint16 `bits:"maxlen=16"`
}

// Go writes the file a package keeps beside its types (bitpack gen -lang
// go -o bitpack_gen.go . Input runs it): two functions per type and an
// init that registers them, so that a bitpack.Codec[Input] runs them.
func ExampleGo() {
	var b bytes.Buffer
	if err := gen.Go(&b, gen.Options{}, &Input{}); err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "package ") || strings.HasPrefix(line, "func bitpackAppend") || strings.HasPrefix(line, "func bitpackUnmarshal") {
			fmt.Println(line)
		}
	}
	fmt.Println(gen.Go(&b, gen.Options{}, &Scores{}))
	// Output:
	// package gen_test
	// func bitpackAppendInput(dst []byte, v *Input) ([]byte, bool) {
	// func bitpackUnmarshalInput(data []byte, v *Input) bool {
	// gen: Go: gen_test.Scores field ByPlayer: maps are not generated in Go (the plan encodes them; leave gen_test.Scores to the plan)
}

package snapshot_test

import (
	"fmt"

	"github.com/bitpack-go/bitpack/snapshot"
)

// A Sender on the server, a Receiver on the client, and the client's ack
// going back: the first packet brings the world from the zero base (an
// 11-byte header and the delta), the ones at rest are 8 bytes.
func Example() {
	type Unit struct {
		HP uint8 `bits:"range=0..100"`
	}
	type World struct {
		Tick  uint8
		Units [4]*Unit `bits:"sparse"`
	}
	opts := snapshot.Options[World]{Budget: 64, Entities: []string{"Units"}, Stream: 1}
	sender, err := snapshot.NewSender(opts)
	if err != nil {
		panic(err)
	}
	receiver, err := snapshot.NewReceiver(opts)
	if err != nil {
		panic(err)
	}
	world := World{Tick: 1}
	world.Units[2] = &Unit{HP: 100}
	var view World
	for range 3 {
		packet, err := sender.Append(nil, &world)
		if err != nil {
			panic(err)
		}
		seq, err := receiver.Read(packet, &view)
		sender.Ack(receiver.Ack())
		fmt.Println(seq, len(packet), view.Tick, view.Units[2].HP, err)
	}
	// Output:
	// 0 15 1 100 <nil>
	// 1 8 1 100 <nil>
	// 2 8 1 100 <nil>
}

package snapshot

import (
	"fmt"

	"github.com/bitpack-go/bitpack/internal/snapwire"
)

// Entity names one entity of a world: an element of one of the fields
// Options.Entities lists.
type Entity struct {
	Field string // one of Options.Entities
	Key   int64  // the element's index in an array or slice, its key in a map
}

// Options configure a Sender and a Receiver. Both ends of a stream must use
// the same History.
type Options[T any] struct {
	// Budget is the most bytes Append returns per packet, header
	// included; 0: no limit.
	Budget int
	// Entities are the Go field paths ("Players", "World.Grunts") of the
	// world's entity sets: sparse [N]*E arrays, sparse []*E slices, and
	// maps with integer keys. Each element is an entity: sent when it
	// changes, by priority when the budget binds, and only when relevant.
	// Every other field of T travels in every packet.
	Entities []string
	// Priority is an entity's priority for this client (nil: 1 for every
	// entity): what it adds to the entity's accumulator each packet it
	// waits; negative and NaN count as 0. It is called for each entity
	// waiting to be sent, once per packet, and only when Budget is set.
	Priority func(world *T, e Entity) float64
	// Relevant reports whether the client may see an entity (nil: every
	// entity is relevant). It is called for each entity of the world, once
	// per packet.
	Relevant func(world *T, e Entity) bool
	// History is how many views a Sender keeps (to build on when the
	// client acknowledges one) and a Receiver keeps (as bases); 0: 64.
	// A power of two from 2 to 32768: views are kept by their sequence
	// modulo History, which must divide 65536 for the sequences' wrap to
	// keep the last History of them.
	History int
	// Stream is the value the first stream's view ids chain from
	// (docs/wire.md); 0: a random one. Two clients' Senders must not share
	// it: it is what tells their packets apart. Tests and recorded streams
	// set it to be reproducible; Reset draws the next stream's value from
	// a generator seeded with it.
	Stream uint32
}

// defaultHistory is History's default.
const defaultHistory = snapwire.DefaultHistory

// history returns the History o asks for, checked.
func history(n int) (int, error) {
	switch {
	case n == 0:
		return defaultHistory, nil
	case n < snapwire.MinHistory || n > maxHistory || n&(n-1) != 0:
		return 0, fmt.Errorf(snapwire.History, n, defaultHistory, snapwire.MinHistory, maxHistory)
	}
	return n, nil
}

package snapshot_test

import (
	"fmt"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/bitpack-go/bitpack/snapshot"
)

// TestConvergenceProperty is item 3 of issue 28 as a property: for any
// world (seeded), budget, loss up to 10% each way (with duplicates and
// reordering), History, and movement before the world stops, every view
// is exactly the Sender's with each entity at a value it had (the
// harness checks it), and once the world stops the client's newest view
// is the quantized, relevance-filtered world within 2·⌈D/(Budget−16)⌉+8
// packets, D the size of the delta from the client's newest view to it.
func TestConvergenceProperty(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(28)
	params.MinSuccessfulTests = 25
	if testing.Short() {
		params.MinSuccessfulTests = 5
	}
	props := gopter.NewProperties(params)
	// Arguments: seed, budget, log2 of History, ticks moving, loss, moving.
	props.Property("converges within the bound", prop.ForAll(
		func(seed uint64, budget, historyBits, ticks int, loss, moving float64) string {
			opts := snapshot.Options[World]{Budget: budget, Entities: worldEntities, Relevant: relevance, History: 1 << historyBits, Stream: uint32(seed) | 1}
			h := newHarness(t, seed, opts, loss)
			h.sim = newSim(seed, 8, 150, 40)
			for range ticks {
				h.step(moving)
			}
			took, bound := h.converge(400)
			if took < 0 || took > bound {
				return fmt.Sprintf("converged in %d packets, bound %d", took, bound)
			}
			return ""
		},
		gen.UInt64Range(1, 1<<40),
		gen.OneGenOf(gen.Const(0), gen.IntRange(150, 1500)),
		gen.IntRange(3, 8), // History 8 to 256
		gen.IntRange(1, 40),
		gen.Float64Range(0, 0.1),
		gen.Float64Range(0.01, 1),
	))
	props.TestingRun(t)
}

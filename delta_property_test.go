package bitpack_test

import (
	"testing"

	"github.com/bitpack-go/bitpack/bitpacktest"
	"github.com/bitpack-go/bitpack/examples/gamestate/world"
)

// Delta properties: bitpacktest.CheckDelta over pairs of generated values
// of each shape (independent pairs and pairs that differ in a few parts):
// AppendDelta accepts them, UnmarshalDelta against the quantized base
// gives the quantized value exactly, every accepted delta re-encodes to
// itself, quantizing either side changes no delta, and a value against
// itself is 00.

func TestDeltaPropertyBenchPacket(t *testing.T) { bitpacktest.CheckDelta[BenchPacket](t) }
func TestDeltaPropertySnapshot(t *testing.T)    { bitpacktest.CheckDelta[Snapshot](t) }
func TestDeltaPropertyLobby(t *testing.T)       { bitpacktest.CheckDelta[rtLobby](t) }
func TestDeltaPropertyZone(t *testing.T)        { bitpacktest.CheckDelta[rtZone](t) }
func TestDeltaPropertyVehicle(t *testing.T)     { bitpacktest.CheckDelta[rtVehicle](t) }
func TestDeltaPropertyMatchLog(t *testing.T)    { bitpacktest.CheckDelta[rtMatchLog](t) }
func TestDeltaPropertyShapes(t *testing.T)      { bitpacktest.CheckDelta[rtShapes](t) }
func TestDeltaPropertyAdoption(t *testing.T)    { bitpacktest.CheckDelta[rtAdoption](t) }
func TestDeltaPropertyWorld(t *testing.T) {
	bitpacktest.CheckDelta[world.Snapshot](t, bitpacktest.Count(200))
}
func TestDeltaPropertyMaps(t *testing.T) { bitpacktest.CheckDelta[rtMaps](t) }
func TestDeltaPropertyMapTree(t *testing.T) {
	bitpacktest.CheckDelta[rtMapTree](t, bitpacktest.Count(300))
}

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

func TestDeltaPropertyBenchPacket(t *testing.T) {
	bitpacktest.CheckDelta[BenchPacket](t, propertyCount(1000))
}
func TestDeltaPropertySnapshot(t *testing.T) {
	bitpacktest.CheckDelta[Snapshot](t, propertyCount(1000))
}
func TestDeltaPropertyLobby(t *testing.T) { bitpacktest.CheckDelta[rtLobby](t, propertyCount(1000)) }
func TestDeltaPropertyZone(t *testing.T)  { bitpacktest.CheckDelta[rtZone](t, propertyCount(1000)) }
func TestDeltaPropertyVehicle(t *testing.T) {
	bitpacktest.CheckDelta[rtVehicle](t, propertyCount(1000))
}
func TestDeltaPropertyMatchLog(t *testing.T) {
	bitpacktest.CheckDelta[rtMatchLog](t, propertyCount(1000))
}
func TestDeltaPropertyShapes(t *testing.T) { bitpacktest.CheckDelta[rtShapes](t, propertyCount(1000)) }
func TestDeltaPropertyAdoption(t *testing.T) {
	bitpacktest.CheckDelta[rtAdoption](t, propertyCount(1000))
}
func TestDeltaPropertyWorld(t *testing.T) {
	bitpacktest.CheckDelta[world.Snapshot](t, propertyCount(200))
}
func TestDeltaPropertyMaps(t *testing.T) { bitpacktest.CheckDelta[rtMaps](t, propertyCount(1000)) }
func TestDeltaPropertyMapTree(t *testing.T) {
	bitpacktest.CheckDelta[rtMapTree](t, propertyCount(300))
}

// propertyCount is n values per property, a fifth of them with -short:
// .ci/run's race step runs these under the detector (which slows the
// Zone property from 4 s to 130 s); its tests step runs them whole.
// go test ./... without BITPACK_FULL=1 runs a tenth.
func propertyCount(n int) bitpacktest.Option {
	return bitpacktest.Count(sweep(n, n/5, n/10))
}

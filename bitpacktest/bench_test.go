package bitpacktest

import (
	"reflect"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// BenchmarkFuzzCheck measures the fuzz body per input (pre-fill, decode,
// checks): the fuzzer's throughput depends on it.
func BenchmarkFuzzCheck(b *testing.B) {
	for _, typ := range []reflect.Type{reflect.TypeFor[allKinds](), reflect.TypeFor[tree](), reflect.TypeFor[sloppyPacket]()} {
		b.Run(typ.Name(), func(b *testing.B) {
			cfg := newConfig(typ, []Option{Custom[nibble](nibbleGen()), sloppyGen()})
			cfg.zeroCustom = true
			fz, err := newFuzzer(typ, cfg)
			if err != nil {
				b.Fatal(err)
			}
			inputs := randomInputs(fz.corpus(nil), 256, 100)
			fz.calls.Store(1 << 40) // past the measured warm-up
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = fz.check(inputs[i%len(inputs)])
			}
		})
	}
}

// BenchmarkFuzzCheckSnapshot measures the fuzz body on the big snapshot
// type, over inputs that do not depend on the generated corpus (mutations
// of a 4-entity and a 64-entity snapshot, and random bytes), so versions
// of the fuzzer can be compared on the same work.
func BenchmarkFuzzCheckSnapshot(b *testing.B) {
	fz, _ := snapshotFuzzer(b)
	var slots []int
	for i := 0; i < 256; i += 4 {
		slots = append(slots, i)
	}
	var encs [][]byte
	for _, s := range []snapshot{snapSeed(0, 7, 200, 255), snapSeed(slots...)} {
		enc, err := bitpack.Marshal(&s)
		if err != nil {
			b.Fatal(err)
		}
		encs = append(encs, enc)
	}
	inputs := randomInputs(encs, 256, 2000)
	fz.calls.Store(1 << 40) // past the measured warm-up
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = fz.check(inputs[i%len(inputs)])
	}
}

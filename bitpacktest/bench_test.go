package bitpacktest

import (
	"reflect"
	"testing"
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

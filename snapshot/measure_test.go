package snapshot_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"unsafe"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/examples/udpsnap/sim"
	"github.com/bitpack-go/bitpack/snapshot"
)

// threadTime returns the CPU time of the calling thread, in nanoseconds:
// on a machine shared with other work, time the thread was not running
// does not count (Linux only; 0 elsewhere).
func threadTime() int64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	var ts syscall.Timespec
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// variant is one operation measured.
type variant struct {
	name string
	op   func()
}

// measure runs rounds of every variant in turn, each round n operations
// timed by thread CPU time, and returns the nanoseconds per operation of
// each variant in each round.
func measure(rounds, n int, vs []variant) [][]float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	out := make([][]float64, len(vs))
	for range rounds {
		for i, v := range vs {
			for range n / 10 { // warm the caches
				v.op()
			}
			t0 := threadTime()
			for range n {
				v.op()
			}
			out[i] = append(out[i], float64(threadTime()-t0)/float64(n))
		}
	}
	return out
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratios returns the median of the per-round ratios of a to b.
func ratios(a, b []float64) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	return median(r)
}

// TestMeasureStream measures the speed targets of issue 28 (the figures in
// docs/performance.md) when SNAPSHOT_MEASURE is set to the number of
// rounds: in each round, every operation runs a few hundred times, timed
// by thread CPU time, the variants interleaved; the ratios are medians of
// the per-round ratios. Run it alone, with GOMAXPROCS=1:
//
//	SNAPSHOT_MEASURE=15 GOMAXPROCS=1 go test -run TestMeasureStream -v ./snapshot
func TestMeasureStream(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("SNAPSHOT_MEASURE"))
	if rounds <= 0 {
		t.Skip("set SNAPSHOT_MEASURE to the number of rounds")
	}
	codec, err := bitpack.NewCodec[sim.Scene]()
	if err != nil {
		t.Fatal(err)
	}
	for _, pct := range []int{1, 10, 50} {
		for _, quantized := range []bool{true, false} {
			wa, wb := scenes(t, float64(pct)/100, quantized)
			qa, qb := quantizedCopy(t, codec, wa), quantizedCopy(t, codec, wb)
			dab, _ := codec.AppendDelta(nil, &qa, wb)
			dba, _ := codec.AppendDelta(nil, &qb, wa)
			buf := make([]byte, 0, 8192)
			i := 0
			ref := func() {
				if i++; i&1 == 0 {
					buf, _ = codec.AppendDelta(buf[:0], &qa, wb)
				} else {
					buf, _ = codec.AppendDelta(buf[:0], &qb, wa)
				}
			}
			a0, a1200 := newAppender(t, 0, 256, wa, wb), newAppender(t, 1200, 256, wa, wb)
			for range 512 {
				a0.append()
				a1200.append()
			}
			tick := newSceneStream(t, 0, 64, wa, wb)
			j := 0
			tickOp := func() {
				w := wb
				if j++; j&1 == 1 {
					w = wa
				}
				tick.buf, _ = tick.s.Append(tick.buf[:0], w)
				tick.s.Ack(binary.LittleEndian.Uint16(tick.buf))
			}
			var got sim.Scene
			k := 0
			unmarshal := func() {
				if k++; k&1 == 0 {
					_ = codec.UnmarshalDelta(dab, &qa, &got)
				} else {
					_ = codec.UnmarshalDelta(dba, &qb, &got)
				}
			}
			rd := newSceneStream(t, 0, 64, wa, wb)
			m := 0
			read := func() {
				p := rd.ab
				if m++; m&1 == 1 {
					p = rd.ba
				}
				if _, err := rd.r.Read(p, &rd.v); err != nil {
					t.Fatal(err)
				}
			}
			res := measure(rounds, 300, []variant{
				{"AppendDelta", ref}, {"Append", func() { a0.append() }}, {"Append, Budget 1200", func() { a1200.append() }},
				{"Append+Ack", tickOp}, {"UnmarshalDelta", unmarshal}, {"Read", read},
			})
			name := fmt.Sprintf("%d%% moving", pct)
			if !quantized {
				name += ", not quantized"
			}
			t.Logf("%s: AppendDelta %.2f µs (%d B); Append %.2f µs: %.2fx; with Budget 1200 %.2f µs: %.2fx (%.2fx Append); Append+Ack %.2f µs (%.2fx AppendDelta): %.0f clients per core at 30 Hz",
				name, median(res[0])/1e3, len(dab), median(res[1])/1e3, ratios(res[1], res[0]), median(res[2])/1e3, ratios(res[2], res[0]),
				ratios(res[2], res[1]), median(res[3])/1e3, ratios(res[3], res[0]), 1e9/30/median(res[3]))
			t.Logf("%s: UnmarshalDelta %.2f µs; Read %.2f µs: %.2fx", name, median(res[4])/1e3, median(res[5])/1e3, ratios(res[5], res[4]))
		}
	}
}

var _ = snapshot.ErrNoBase

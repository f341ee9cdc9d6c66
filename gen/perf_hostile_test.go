package gen

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/cpp"
	"github.com/bitpack-go/bitpack/gen/internal/csharp"
	"github.com/bitpack-go/bitpack/gen/internal/model"
	"github.com/bitpack-go/bitpack/gen/internal/rust"
	"github.com/bitpack-go/bitpack/gen/internal/typescript"
	"github.com/bitpack-go/bitpack/internal/zerobit"
)

// The hostile part of the performance report (-gen.perf): what packets
// that claim values no bits pay for cost each generated reader, as a
// multiple of the same reader's decode of a 1.6 KB snapshot (the root
// package's BenchmarkHostile's 64 players), in rounds that alternate the
// two (docs/performance.md, "Hostile packets": the target is at most 10
// for every packet of at most 64 bytes). The packets are internal/zerobit's
// of at most 64 bytes, and the costliest of their kin that 64 bytes can
// be: each pays for as many Chunks as the allowances let it (eight, of
// 4096 values each, for 512 bits), and is then refused.

// PerfPlayer and PerfSnapshot are BenchmarkHostile's snapshot.
type (
	PerfPlayer struct {
		Health int32    `bits:"range=0..1000"`
		Pos    Vec3     `bits:"float,min=-1024,max=1024,res=0.01"`
		Rot    QuatXYZW `bits:"quat,bits=9"`
		Name   string   `bits:"maxlen=15"`
		Alive  bool
	}
	PerfSnapshot struct {
		Players []PerfPlayer `bits:"maxlen=64"`
	}
)

// perfSnapshotPacket is the snapshot BenchmarkHostile decodes.
func perfSnapshotPacket() []byte {
	var s PerfSnapshot
	for i := range 64 {
		a := float64(i) * 0.1
		s.Players = append(s.Players, PerfPlayer{
			Health: int32(i * 15),
			Pos:    Vec3{float32(i) * 3.5, -float32(i), 12.25},
			Rot:    QuatXYZW{float32(math.Sin(a) * 0.6), 0, float32(math.Sin(a) * 0.8), float32(math.Cos(a))},
			Name:   "player-" + strconv.Itoa(i) + "-name",
			Alive:  i%3 != 0,
		})
	}
	return mustMarshal(&s)
}

// hostileCase is a packet of a zero-bit root read whole (base nil) or as
// a delta against base (a packet of the type).
type hostileCase struct {
	name   string
	proto  any
	packet []byte
	base   []byte
}

// hostileCases are the packets the report measures.
func hostileCases() []hostileCase {
	var out []hostileCase
	for _, zc := range zerobit.Cases() {
		if len(zc.Packet) <= 64 {
			out = append(out, hostileCase{name: "zerobit: " + zc.Name, proto: zc.Type, packet: zc.Packet})
		}
	}
	pad := func(p []byte) []byte { return append(p, make([]byte, 64-len(p))...) }
	ones := func(first byte, n int) []byte {
		p := []byte{first}
		for len(p) < n {
			p = append(p, 0xff)
		}
		return p
	}
	eightKeys := []byte{8, 0, 1, 2, 3, 4, 5, 6, 7}
	eightRows := []byte{8, 1, 1, 1, 1, 1, 1, 1, 1}
	var label []byte
	label = append(label, 63) // Label's length (6 bits), padding, 63 bytes
	for len(label) < 64 {
		label = append(label, 'a')
	}
	// A delta of ZeroSlice from no Chunks to eight: the root's changed
	// bit, resized, the length 8, the end of the shared elements' list.
	grow8 := (&deltaCraft{bits: []int64{1, 1, 1, 1, 8, 8, 1, 1}, pad: 64}).packet()
	mixed255 := (&deltaCraft{bits: []int64{1, 1, 1, 1, 255, 8, 1, 1}, pad: 64}).packet()
	return append(append(out,
		hostileCase{"ZeroSlice of 8 Chunks, then 63 bytes", zerobit.ZeroSlice{}, pad([]byte{8}), nil},
		hostileCase{"ZeroRows of 8 rows of a Chunk, then 55 bytes", zerobit.ZeroRows{}, pad(eightRows), nil},
		hostileCase{"ZeroMap of 8 Chunks, then 55 bytes", zerobit.ZeroMap{}, pad(eightKeys), nil},
		hostileCase{"ZeroPair, a label of 63 bytes", zerobit.ZeroPair{}, label, nil},
		hostileCase{"Leaves of 575 (paid for), 64 bytes", zerobit.Leaves{}, zerobit.LeavesPacket(575, 16, 64), nil},
		hostileCase{"BoxedLeaves of 143 (paid for), 64 bytes", zerobit.BoxedLeaves{}, zerobit.LeavesPacket(143, 15, 64), nil},
		hostileCase{"Rows of 8 (paid for), 64 bytes", zerobit.Rows{}, zerobit.RowsPacket(8, 60), nil},
		hostileCase{"SoloStream ff, then 63 bytes", zerobit.SoloStream{}, pad([]byte{0xff}), nil},
		hostileCase{"MixedStream of 255 Chunks, 64 bytes", zerobit.MixedStream{}, pad([]byte{0xff}), nil},
		hostileCase{"ZeroPointees of 255 present, 64 bytes", ZeroPointees{}, ones(0xff, 64), nil},
		hostileCase{"ZeroSparse of 255 slots, all present, 64 bytes", ZeroSparse{}, ones(0xff, 64), nil},
		hostileCase{"delta: ZeroSlice grows by 8 Chunks, 64 bytes", zerobit.ZeroSlice{}, grow8, mustMarshal(&zerobit.ZeroSlice{})},
		hostileCase{"delta: MixedStream grows by 255 Chunks, 64 bytes", zerobit.MixedStream{}, mixed255, mustMarshal(&zerobit.MixedStream{})},
	), heavyHostileCases()...)
}

// hostileProtos are the types the report's generated code holds besides
// BenchPacket.
func hostileProtos() []any {
	return append(append([]any{&PerfSnapshot{}}, zeroBitProtos()...), heavyProtos()...)
}

// hostileVerdicts are Go's answers to the cases, for the report: refused
// (with why), or accepted.
func hostileVerdict(c hostileCase) string {
	v := reflect.New(reflect.TypeOf(c.proto))
	var err error
	if c.base == nil {
		err = bitpack.Unmarshal(c.packet, v.Interface())
	} else {
		err = bitpack.UnmarshalDelta(c.packet, decodeFresh(reflect.TypeOf(c.proto), c.base).Interface(), v.Interface())
	}
	if err == nil {
		return "accepted"
	}
	return "refused"
}

// rootOf returns the model root of c's type.
func rootOf(m *model.Model, c hostileCase) *model.Type {
	for _, r := range m.Roots {
		if r.Go == reflect.TypeOf(c.proto) {
			return r
		}
	}
	panic("no root for " + reflect.TypeOf(c.proto).String())
}

func perfModel(t *testing.T) *model.Model {
	m, err := model.Build(append([]any{&BenchPacket{}}, hostileProtos()...))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// hostileCPP is the C++ report's cases (bench.cpp includes it): for each,
// its packet (with the 8 bytes serialize's reader reads past the end) and
// a function reading it into a value made once.
func hostileCPP(t *testing.T, m *model.Model) string {
	e, err := cpp.New(m, cpp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	snap := perfSnapshotPacket()
	fmt.Fprintf(&b, "static const uint8_t snapshot_packet[%d] = { %s };\n", len(snap)+8, perfBytes(snap))
	fmt.Fprintf(&b, "static PerfSnapshot * snapshot_value = new PerfSnapshot;\n")
	fmt.Fprintf(&b, "static bool read_snapshot()\n{\n    serialize::ReadStream s( snapshot_packet, %d );\n    return bitpack::read_packet( s, %d, *snapshot_value ) == bitpack::ReadResult::ok;\n}\n\n", len(snap), len(snap))
	var reads []string
	for i, c := range hostileCases() {
		n := e.TypeName(rootOf(m, c))
		fmt.Fprintf(&b, "static const uint8_t packet_%d[%d] = { %s };\n", i, len(c.packet)+8, perfBytes(c.packet))
		fmt.Fprintf(&b, "static %s * value_%d = new %s;\n", n, i, n)
		if c.base == nil {
			fmt.Fprintf(&b, "static bool read_%d()\n{\n    serialize::ReadStream s( packet_%d, %d );\n    return bitpack::read_packet( s, %d, *value_%d ) == bitpack::ReadResult::ok;\n}\n\n", i, i, len(c.packet), len(c.packet), i)
		} else {
			fmt.Fprintf(&b, "static const uint8_t base_packet_%d[%d] = { %s };\n", i, len(c.base)+8, perfBytes(c.base))
			fmt.Fprintf(&b, "static %s * base_%d = new %s;\n", n, i, n)
			fmt.Fprintf(&b, "static bool read_%d()\n{\n    serialize::ReadStream s( packet_%d, %d );\n    return bitpack::read_delta( s, %d, *base_%d, *value_%d ) == bitpack::ReadResult::ok;\n}\n\n", i, i, len(c.packet), len(c.packet), i, i)
			fmt.Fprintf(&b, "static const bool loaded_%d = load_base( base_packet_%d, %d, *base_%d );\n", i, i, len(c.base), i)
		}
		reads = append(reads, fmt.Sprintf("{ %q, %d, read_%d }", c.name, len(c.packet), i))
	}
	fmt.Fprintf(&b, "struct HostileCase { const char * name; int bytes; bool ( *read )(); };\n")
	fmt.Fprintf(&b, "static const HostileCase hostile_cases[] = {\n    %s\n};\n", strings.Join(reads, ",\n    "))
	return b.String()
}

// hostileCS is the C# report's cases (bench.cs's Hostile class runs them).
func hostileCS(t *testing.T, m *model.Model) string {
	e, err := csharp.New(m, "Perf")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, "        "+format+"\n", args...) }
	b.WriteString("namespace Perf\n{\n    static partial class Hostile\n    {\n")
	snap := perfSnapshotPacket()
	p("static readonly byte[] snapshot = { %s };", perfBytes(snap))
	p("static bool ReadSnapshot() { PerfSnapshot v; string e; return PerfSnapshot.TryRead(snapshot, out v, out e); }")
	var names, sizes, reads []string
	for i, c := range hostileCases() {
		n := e.TypeName(rootOf(m, c))
		p("static readonly byte[] p%d = { %s };", i, perfBytes(c.packet))
		if c.base == nil {
			p("static bool Read%d() { %s v; string e; return %s.TryRead(p%d, out v, out e); }", i, n, n, i)
		} else {
			p("static readonly %s b%d = Base%d();", n, i, i)
			p("static %s Base%d() { %s v; string e; %s.TryRead(new byte[] { %s }, out v, out e); return v; }", n, i, n, n, perfBytes(c.base))
			p("static bool Read%d() { %s v; string e; return %s.TryReadDelta(p%d, b%d, out v, out e); }", i, n, n, i, i)
		}
		names = append(names, strconv.Quote(c.name))
		sizes = append(sizes, strconv.Itoa(len(c.packet)))
		reads = append(reads, fmt.Sprintf("Read%d", i))
	}
	p("static readonly string[] Names = { %s };", strings.Join(names, ", "))
	p("static readonly int[] Sizes = { %s };", strings.Join(sizes, ", "))
	p("static readonly global::System.Func<bool>[] Cases = { %s };", strings.Join(reads, ", "))
	b.WriteString("    }\n}\n")
	return b.String()
}

// hostileTS is the TypeScript report's cases (bench.mjs imports them).
func hostileTS(t *testing.T, m *model.Model) string {
	e, err := typescript.New(m)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("import * as t from \"./perf.js\";\n\n")
	snap := perfSnapshotPacket()
	fmt.Fprintf(&b, "const snapshot = new Uint8Array([%s]);\n", perfBytes(snap))
	b.WriteString("export function readSnapshot() {\n  return t.readPerfSnapshot(snapshot).Players.length;\n}\n\n")
	b.WriteString("function accepts(read) {\n  try {\n    read();\n    return true;\n  } catch (e) {\n    if (!(e instanceof t.BitpackError)) {\n      throw e;\n    }\n    return false;\n  }\n}\n\n")
	b.WriteString("export const cases = [\n")
	for _, c := range hostileCases() {
		n := e.TypeName(rootOf(m, c))
		read := fmt.Sprintf("() => accepts(() => t.read%s(p))", n)
		if c.base != nil {
			read = fmt.Sprintf("() => accepts(() => t.read%sDelta(p, base))", n)
		}
		fmt.Fprintf(&b, "  ((p, base) => ({ name: %q, bytes: %d, read: %s }))(new Uint8Array([%s]), %s),\n", c.name, len(c.packet), read, perfBytes(c.packet), tsBase(n, c.base))
	}
	b.WriteString("];\n")
	return b.String()
}

func tsBase(n string, base []byte) string {
	if base == nil {
		return "null"
	}
	return fmt.Sprintf("t.read%s(new Uint8Array([%s]))", n, perfBytes(base))
}

// TestHostileCases: Go refuses every case the report measures but those
// built to be accepted (ZeroPair's label pays for its 8321 values; 575
// elements of no bits are what 64 bytes pay for), so the report measures
// refusals, what leads to them, and the most a packet may claim.
func TestHostileCases(t *testing.T) {
	for _, c := range hostileCases() {
		want := "refused"
		if strings.HasPrefix(c.name, "ZeroPair, a label") || strings.Contains(c.name, "(paid for)") {
			want = "accepted"
		}
		if got := hostileVerdict(c); got != want || len(c.packet) > 64 {
			t.Errorf("%s (%d bytes): Go says %s, want %s", c.name, len(c.packet), got, want)
		}
	}
}

// hostileRust is the Rust report's program (main.rs beside the generated
// table.rs): for each case a read into a value of its own, timed as the
// other languages' are, in this thread's CPU time.
func hostileRust(t *testing.T, m *model.Model) string {
	e := rust.New(m)
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("mod table;\n")
	p("#[repr(C)]\nstruct Timespec {\n    sec: i64,\n    nsec: i64,\n}\n")
	p("extern \"C\" {\n    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;\n}\n")
	p("// thread_seconds is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the")
	p("// machine is shared, and wall time counts the other work.")
	p("fn thread_seconds() -> f64 {\n    let mut ts = Timespec { sec: 0, nsec: 0 };\n    unsafe { clock_gettime(3, &mut ts) };\n    ts.sec as f64 + ts.nsec as f64 * 1e-9\n}\n")
	snap := perfSnapshotPacket()
	p("fn read_snapshot() -> bool {\n    static P: [u8; %d] = [%s];\n    std::hint::black_box(table::%s::read(&P)).is_ok()\n}\n", len(snap), perfBytes(snap), e.TypeName(rootOfType(m, reflect.TypeOf(PerfSnapshot{}))))
	var reads []string
	for i, c := range hostileCases() {
		n := e.TypeName(rootOf(m, c))
		if c.base == nil {
			p("fn read_%d() -> bool {\n    static P: [u8; %d] = [%s];\n    std::hint::black_box(table::%s::read(&P)).is_ok()\n}\n", i, len(c.packet), perfBytes(c.packet), n)
		} else {
			p("fn read_%d() -> bool {\n    static P: [u8; %d] = [%s];\n    static B: [u8; %d] = [%s];\n    thread_local! { static BASE: table::%s = table::%s::read(&B).expect(\"the base\"); }\n    BASE.with(|base| std::hint::black_box(table::%s::read_delta(&P, base)).is_ok())\n}\n",
				i, len(c.packet), perfBytes(c.packet), len(c.base), perfBytes(c.base), n, n, n)
		}
		reads = append(reads, fmt.Sprintf("(%q, %d, read_%d)", c.name, len(c.packet), i))
	}
	p("static CASES: [(&str, usize, fn() -> bool); %d] = [\n    %s,\n];\n", len(reads), strings.Join(reads, ",\n    "))
	p(`// main prints a row for each case: its cost as a multiple of a decode of
// the snapshot, the median of rounds alternating k of each.
fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(21);
    let k = 16;
    let mut snap = 0.0;
    for (name, bytes, read) in CASES.iter() {
        let accepted = read();
        let mut ratios = Vec::new();
        for _ in 0..rounds {
            let start = thread_seconds();
            for _ in 0..k {
                assert!(read_snapshot(), "the snapshot was refused");
            }
            let mid = thread_seconds();
            for _ in 0..k {
                read();
            }
            let end = thread_seconds();
            ratios.push((end - mid) / (mid - start));
            snap += (mid - start) / k as f64;
        }
        ratios.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let verdict = if accepted { "accepted" } else { "refused" };
        println!("| Rust | {} | {} | {} | {:.2} ({:.2}-{:.2}) |", name, bytes, verdict, ratios[rounds / 2], ratios[0], ratios[rounds - 1]);
    }
    println!("| Rust | the snapshot | %d | {:.0} ns a decode | 1 |", snap * 1e9 / (rounds * CASES.len()) as f64);
}`, len(snap))
	return b.String()
}

// rootOfType returns the model root of Go type typ.
func rootOfType(m *model.Model, typ reflect.Type) *model.Type {
	for _, r := range m.Roots {
		if r.Go == typ {
			return r
		}
	}
	panic("no root for " + typ.String())
}

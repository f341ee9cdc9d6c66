// Package bitpacktest turns any bitpack-tagged type into property tests
// and a native fuzz target, so a game team tests its own packet types the
// way bitpack tests itself.
//
//	Gen[T]()              a gopter generator of values that satisfy T's tags
//	CheckRoundTrip[T](t)  four gopter properties of Marshal/Unmarshal on T
//	CheckDelta[T](t)      the properties of AppendDelta/UnmarshalDelta on pairs of T
//	Fuzz[T](f, seeds...)  a native fuzz target feeding Unmarshal hostile bytes
//
// Everything is derived from the layout bitpack compiles from the tags
// (bitpack.Describe), so a new field needs no test changes: its tag already
// says which values are valid.
//
// # Property tests
//
//	func TestPlayerRoundTrip(t *testing.T) {
//		bitpacktest.CheckRoundTrip[Player](t)
//	}
//
// CheckRoundTrip checks that Marshal accepts every valid value, that
// Unmarshal(Marshal(x)) is x (compressed floats at their quantum,
// quaternions within the documented angle, raw floats bit for bit, a
// time.Time at its nearest unit, as the same instant in UTC), that
// re-encoding a decoded packet gives the same bytes, and that packet sizes
// stay within the layout's bounds. Runs are deterministic: the seed is
// fixed per type. A failure is shrunk to a small counterexample and names
// the seed; pass it back with bitpacktest.Seed to replay the run, and use
// Count for more (or fewer) values.
//
// CheckDelta does the same for delta snapshots, on pairs of values (two
// independent ones, and one with a few of its parts changed into the
// other's): AppendDelta accepts them, UnmarshalDelta against the quantized
// base gives the quantized value exactly, every delta re-encodes to itself
// against its base, quantizing either side changes no delta, a value
// against itself is the byte 00, and a refused delta changes neither the
// value it is decoded into nor its base (decoded into itself or not):
//
//	func TestSnapshotDelta(t *testing.T) {
//		bitpacktest.CheckDelta[Snapshot](t)
//	}
//
// Types with MarshalBits/UnmarshalBits hooks encode themselves, so
// bitpacktest cannot know their valid values: register a generator with
// Custom, for example
//
//	bitpacktest.CheckRoundTrip[Unit](t, bitpacktest.Custom[Team](gen.OneConstOf(Red, Blue)))
//
// # Fuzz your packet types in CI
//
// A server decodes bytes from anyone. Add three lines to the test file of
// the package that declares your packets, seeded with small, real values
// (a snapshot with a few entities rather than a full one: the fuzzer
// mutates the seeds, and every run costs more the longer its input is):
//
//	func FuzzPackets(f *testing.F) {
//		bitpacktest.Fuzz(f, Player{Health: 100, Name: "ann"}, Player{})
//	}
//
// and have CI run the fuzzer for a minute per target:
//
//	go test -run '^$' -fuzz=FuzzPackets -fuzztime=60s -fuzzminimizetime=1000x ./yourpkg
//
// (-fuzz must match exactly one target: run one command per target if you
// have several.) -fuzzminimizetime=1000x caps at 1000 runs the work Go
// spends shrinking each input it finds interesting. The default is up to
// a minute per input, in a number of runs that grows with the square of
// the input's length: on packets of a few hundred bytes the default
// spends most of the minute minimizing instead of fuzzing, while the
// fuzzer reports 0 execs/sec. A failing input is still shrunk (for at most
// 1000 runs) before it is written. A plain go test runs the seed corpus as
// ordinary tests. When the fuzzer finds a failing input it writes it to
// testdata/fuzz/FuzzPackets/; commit that file and every go test replays
// it from then on.
//
// The target fails an input when Unmarshal panics, returns an error that is
// not a *bitpack.Error wrapping one of bitpack's sentinels, changes the
// value when it fails, accepts a packet that does not re-encode to the same
// bits, or allocates more than the tags allow.
//
// # Generated values
//
// Gen walks the layout tree: integers anywhere in their range with the
// edges chosen often (outside it too when they clamp); strings of valid
// UTF-8 without NUL, multi-byte runes included, up to maxlen bytes; slices
// up to maxlen elements (at most MaxElems, but maxlen itself whenever it
// fits); maps likewise, with distinct keys that satisfy the key. options;
// pointers nil or not; raw floats as arbitrary bit patterns; compressed
// floats anywhere in their range, not only on quanta; random unit
// quaternions. Recursive types are cut at Depth levels. Shrinking keeps
// every value valid. Round trips compare maps entry by entry, and a nil
// slice or map equal to an empty one (they are the same on the wire).
//
// A layout kind this version does not know (a newer bitpack) is reported
// as an error naming the field rather than generated wrongly.
package bitpacktest

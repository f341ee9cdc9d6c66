package gen

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/gen/internal/cpp"
	"github.com/bitpack-go/bitpack/internal/zerobit"
)

// TestCPPDeltas runs the delta corpus through the generated C++
// (SerializeDelta, through bitpack::read_delta): every delta Go writes
// between neighbouring values of every table type is applied by the C++
// to the same base and gives the same value, written back whole byte for
// byte; damaged and random deltas are refused by both sides, or accepted
// by both with the same result; and the C++ writes, for every pair, the
// very delta Go writes. With BITPACK_FULL=1 both builds run it:
// AddressSanitizer and UBSan on the hostile deltas, and -O2 -march=native
// -ffp-contract=fast for the pinned float arithmetic of the codes compared
// and rebuilt; without, the quick (unoptimised) build.
func TestCPPDeltas(t *testing.T) {
	if raceEnabled {
		t.Skip("the C++ side does not change under Go's race detector; the plain run covers it")
	}
	t.Parallel() // each language's process runs beside another's: two cores
	gxx := requireCompiler(t)
	c := sharedCorpus(t) // the driver's dispatch holds the read and write cases too
	dc := sharedDeltaCorpus(t)
	e, err := cpp.New(c.m, cpp.Options{Include: "minserialize.h"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	drivers := buildDrivers(t, gxx, cppDispatch(c, e))
	t.Logf("builds in %v", time.Since(start))
	lines := dc.lines()
	for _, d := range drivers {
		if d.probesOnly() {
			continue // it answers no delta
		}
		start = time.Now()
		answers := d.run(t, lines, "delta")
		t.Logf("%s build ran in %v", d.name, time.Since(start))
		failures, reads, writes := 0, 0, 0
		for i, cmd := range dc.cmds {
			switch cmd.line[0] {
			case 'D':
				reads++
			case 'E':
				writes++
			}
			if got := answers[i]; !cmd.agrees(got) {
				failures++
				if failures <= 12 {
					t.Errorf("%s build: %s\n  Go:  %s\n  C++: %s", d.name, cmd.what, cmd.want, got)
				}
			}
		}
		if failures > 12 {
			t.Errorf("%s build: %d disagreements in all (first 12 shown)", d.name, failures)
		}
		t.Logf("%s build: %d deltas applied, %d written", d.name, reads, writes)
	}
}

// The types of docs/wire.md's delta examples, and a map of TestDeltaGolden's.
type (
	wirePing struct {
		Health int32   `bits:"range=0..1000"`
		Alive  bool    //
		Speed  float32 `bits:"float,min=0,max=10,res=0.01"`
	}
	wireUnit struct {
		HP uint8 `bits:"range=0..100"`
	}
	wireSquad struct {
		Slots [8]*wireUnit `bits:"sparse"`
	}
	wireBag struct {
		Ammo map[uint8]uint16 `bits:"maxlen=7,range=0..1000"`
	}
)

// ZeroClocks has time.Time fields whose zero value is not the count 0
// (see model.ZeroTime): times in arrays of arrays from year 1 (its code
// is 0, its count -62135596800 seconds), a clamped time whose range is
// after year 1 (its lower bound, -1000 units), and one whose range is
// after both (5). The C++ and Rust tests check that their zero values
// hold these counts and write Go's zero value's bytes.
type ZeroClocks struct {
	Grid [2][3]time.Time `bits:"unit=1s,range=-62135596800..0"`
	Near time.Time       `bits:"unit=1500ms,range=-1000..1000,clamp"`
	Late time.Time       `bits:"unit=1s,range=5..10,clamp"`
}

// zeroClocksCounts are ZeroClocks' counts in its zero value, worked out
// by hand as its comment says, in the order Grid (row by row), Near,
// Late.
const zeroClocksCounts = "-62135596800 -62135596800 -62135596800 -62135596800 -62135596800 -62135596800 -1000 5"

// cppDeltaExamples writes and applies deltas of the wire examples' types
// from C++ values built by hand, one answer line each (see
// TestCPPDeltaExamples).
const cppDeltaExamples = `#include <stdio.h>
#include <string.h>
#include "minserialize.h"
#include "examples.h"

static void hex_line( const char * name, const uint8_t * p, int64_t n )
{
    printf( "%s", name );
    for ( int64_t i = 0; i < n; i++ )
        printf( " %02x", p[i] );
    printf( "\n" );
}

template <typename T> static void write_delta( const char * name, T & value, const T & base )
{
    uint8_t buffer[64];
    serialize::WriteStream stream( buffer, sizeof buffer );
    if ( !value.SerializeDelta( stream, base ) )
    {
        printf( "%s REFUSED\n", name );
        return;
    }
    stream.Flush();
    hex_line( name, buffer, stream.GetBytesProcessed() );
}

// apply applies the delta (hex bytes) to base and prints the result's
// full encoding. The delta's allocation has the 8 bytes after it that
// serialize's reader loads.
// The result is read into target, or a fresh value.
template <typename T> static void apply( const char * name, const T & base, const char * hex, T * target = NULL )
{
    uint8_t * delta = new uint8_t[strlen( hex ) / 2 + 8]();
    int64_t n = 0;
    for ( unsigned int b; sscanf( hex + 2 * n, "%2x", &b ) == 1; n++ )
        delta[n] = uint8_t( b );
    T * v = target != NULL ? target : new T();
    serialize::ReadStream stream( delta, n );
    switch ( bitpack::read_delta( stream, n, base, *v ) )
    {
    case bitpack::ReadResult::ok:
    {
        uint8_t buffer[64];
        serialize::WriteStream out( buffer, sizeof buffer );
        if ( v->Serialize( out ) )
        {
            out.Flush();
            hex_line( name, buffer, out.GetBytesProcessed() );
        }
        else
            printf( "%s UNWRITABLE\n", name );
        break;
    }
    case bitpack::ReadResult::refused: printf( "%s REFUSED\n", name ); break;
    case bitpack::ReadResult::trailing: printf( "%s TRAILING\n", name ); break;
    }
    if ( v != target )
        delete v;
    delete [] delta;
}

static float f32_bits( uint32_t bits ) { float f; memcpy( &f, &bits, 4 ); return f; }

// zero_rows applies a delta (hex) from a ZeroRows base of two rows, the
// first holding one Chunk, to a target whose slots past every count hold
// a marker byte, where the base's hold another: a ZeroRows stores 255
// rows of 255 Chunks of 4 KB (266 MB), and a read that copied the base
// whole would overwrite every marker. It prints the result's encoding and
// the bytes at the marked slots.
static void zero_rows( const char * hex )
{
    ZeroRows * base = new ZeroRows; // only what is set here is read
    ZeroRows * target = new ZeroRows;
    base->R_count = 2;
    base->R[0].C_count = 1;
    memset( base->R[0].C[0].Grid, 5, sizeof base->R[0].C[0].Grid );
    base->R[1].C_count = 0;
    // Past the counts of the base and of the result: a Chunk past row 0's
    // (one in the base), past row 1's (one in the result), in row 2 (new,
    // empty), row 3 (past the result's three), the very last byte.
    const uint8_t * const slots[] = { &target->R[0].C[1].Grid[0], &target->R[1].C[1].Grid[100], &target->R[2].C[0].Grid[0],
        (const uint8_t *) &target->R[3].C_count, &target->R[254].C[254].Grid[4095] };
    const int n = int( sizeof slots / sizeof slots[0] );
    for ( int i = 0; i < n; i++ )
    {
        const size_t at = size_t( slots[i] - (const uint8_t *) target );
        ( (uint8_t *) target )[at] = 0xa5;
        ( (uint8_t *) base )[at] = 0x07;
    }
    apply( "zero rows applied", *base, hex, target );
    printf( "zero rows past the counts" );
    for ( int i = 0; i < n; i++ )
        printf( " %02x", *slots[i] );
    printf( "\n" );
    delete target;
    delete base;
}

int main( int argc, char ** argv )
{
    wirePing ping_base, ping;
    ping_base.Health = 731; ping_base.Alive = true; ping_base.Speed = f32_bits( 0x3de147aeu ); // 0.11, as decoded
    ping.Health = 740; ping.Alive = false; ping.Speed = 0.1051f;
    write_delta( "ping-delta", ping, ping_base );
    apply( "ping-delta applied", ping_base, "c301" );
    apply( "ping long form the short one carries", ping_base, "ff16" );
    apply( "ping changed, nothing changes", ping_base, "01" );
    apply( "ping trailing byte", ping_base, "c30100" );
    write_delta( "ping unchanged", ping_base, ping_base );
    ping.Health = 1001;
    write_delta( "ping out of range", ping, ping_base );
    ping.Health = 740;
    wirePing bad_base = ping_base;
    bad_base.Health = -1;
    write_delta( "ping against a base out of range", ping, bad_base );
    apply( "ping onto a base out of range", bad_base, "c301" );
    wirePing same = ping_base;
    {
        static const uint8_t packet[1 + 8] = { 0x05 };
        serialize::ReadStream stream( packet, 1 );
        printf( "ping into its own base %s\n", same.SerializeDelta( stream, same ) ? "OK" : "REFUSED" );
    }

    // A field of 0 bits (range=5..5) is no delta item in Go (Field.
    // DeltaItem): it has no changed bit, so the runtime reads and writes
    // nothing for it, a 1 after it included, and leaves the value as it
    // is. The generated code never passes one (the model's IsItem).
    {
        const bitpack::UnsignedField field( 5, 5, 0, 1, false );
        static const uint8_t packet[1 + 8] = { 0x01 };
        serialize::ReadStream stream( packet, 1 );
        uint8_t value = 9;
        const uint8_t base = 5;
        bool any = false;
        const bool ok = bitpack::delta_scalar( stream, field, value, base, true, any );
        printf( "0-bit item read %s: %d bits, value %d, changed %d\n", ok ? "OK" : "REFUSED", int( stream.GetBitsProcessed() ), value, any );
        uint8_t buffer[8 + 8] = { 0 };
        serialize::WriteStream out( buffer, 8 );
        value = 5;
        any = false;
        const bool wrote = bitpack::delta_scalar( out, field, value, base, true, any );
        printf( "0-bit item write %s: %d bits, changed %d\n", wrote ? "OK" : "REFUSED", int( out.GetBitsProcessed() ), any );
    }

    wireSquad squad_base, squad;
    memset( &squad_base, 0, sizeof squad_base );
    memset( &squad, 0, sizeof squad );
    squad_base.Slots_present[1] = true; squad_base.Slots[1].HP = 100;
    squad_base.Slots_present[2] = true; squad_base.Slots[2].HP = 7;
    squad_base.Slots_present[7] = true; squad_base.Slots[7].HP = 50;
    squad.Slots_present[1] = true; squad.Slots[1].HP = 100;
    squad.Slots_present[3] = true; squad.Slots[3].HP = 9;
    squad.Slots_present[7] = true; squad.Slots[7].HP = 49;
    squad.Slots[2].HP = 77; // not present: not compared, not sent
    write_delta( "squad-delta", squad, squad_base );
    apply( "squad-delta applied", squad_base, "8d09d505" );

    // Keys in no order, on both sides: the entries travel in key order,
    // and the applied map is stored ascending.
    wireBag bag_base, bag;
    bag_base.Ammo_count = 3;
    bag_base.Ammo_keys[0] = 9; bag_base.Ammo[0] = 90;
    bag_base.Ammo_keys[1] = 5; bag_base.Ammo[1] = 50;
    bag_base.Ammo_keys[2] = 1; bag_base.Ammo[2] = 10;
    bag.Ammo_count = 3;
    bag.Ammo_keys[0] = 7; bag.Ammo[0] = 70;
    bag.Ammo_keys[1] = 1; bag.Ammo[1] = 10;
    bag.Ammo_keys[2] = 5; bag.Ammo[2] = 53;
    write_delta( "bag", bag, bag_base );
    apply( "bag applied", bag_base, "17241f183101" );
    bag.Ammo_keys[0] = 5;
    write_delta( "bag with a key twice", bag, bag_base );

    // A value-initialised ZeroClocks is Go's zero value: its times hold
    // the counts Go writes for year 1, and a delta of nothing changed
    // against it gives Go's zero value's bytes.
    const ZeroClocks clocks = ZeroClocks();
    printf( "clocks zero" );
    for ( int i = 0; i < 6; i++ )
        printf( " %lld", (long long) clocks.Grid[i / 3][i % 3] );
    printf( " %lld %lld\n", (long long) clocks.Near, (long long) clocks.Late );
    apply( "clocks unchanged", clocks, "00" );

    if ( argc == 2 )
        zero_rows( argv[1] );
    return 0;
}
`

// TestCPPDeltaExamples checks C++ deltas against bytes written down by
// hand: docs/wire.md's worked examples (ping-delta c3 01, squad-delta
// 8d 09 d5 05, and its refused ping deltas), TestDeltaGolden's map delta
// from C++ maps whose keys are in no order, and what the C++ refuses
// beyond the corpus: values and bases out of range, a map with a key
// twice, a target that is its own base; and that the runtime's
// fixed-width item reads no changed bit for a field of 0 bits, as Go's
// delta has none. The applied deltas' results are
// compared with Go's encoding of the values the examples give.
func TestCPPDeltaExamples(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	gxx := requireCompiler(t)
	dir := t.TempDir()
	var header bytes.Buffer
	if err := CPP(&header, Options{Include: "minserialize.h"}, &wirePing{}, &wireSquad{}, &wireBag{}, &ZeroClocks{}, &zerobit.ZeroRows{}); err != nil {
		t.Fatal(err)
	}
	min, err := os.ReadFile(filepath.Join("testdata", "minserialize.h"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"examples.h": header.Bytes(), "minserialize.h": min, "examples.cpp": []byte(cppDeltaExamples)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "examples")
	args := append([]string{"-std=c++11", "-Wall", "-Wextra", "-Werror"}, cppFlags[driverBuilds()[0]]...) // sanitized with BITPACK_FULL=1, else quick
	args = append(args, "-o", bin, filepath.Join(dir, "examples.cpp"))
	if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	full := func(v any) string {
		p, err := bitpack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(fmt.Sprintf("% x", p))
	}
	// A delta that grows a ZeroRows, empties its first row and moves the
	// Chunk to the second, read into a
	// target holding markers past the counts (see zero_rows): Go's
	// result, and the markers untouched.
	c5 := zerobit.Chunk{}
	for i := range c5.Grid {
		c5.Grid[i] = 5
	}
	rowsBase := zerobit.ZeroRows{R: []zerobit.ZeroSlice{{C: []zerobit.Chunk{c5}}, {}}}
	rows := zerobit.ZeroRows{R: []zerobit.ZeroSlice{{}, {C: []zerobit.Chunk{c5}}, {}}}
	rowsDelta, err := bitpack.AppendDelta(nil, &rowsBase, &rows)
	if err != nil {
		t.Fatal(err)
	}
	var rowsBack zerobit.ZeroRows
	if err := bitpack.UnmarshalDelta(rowsDelta, &rowsBase, &rowsBack); err != nil || full(&rowsBack) != full(&rows) {
		t.Fatalf("Go's ZeroRows delta % x: %v, %s", rowsDelta, err, full(&rowsBack))
	}
	squad := wireSquad{}
	squad.Slots[1], squad.Slots[3], squad.Slots[7] = &wireUnit{HP: 100}, &wireUnit{HP: 9}, &wireUnit{HP: 49}
	want := []string{
		"ping-delta c3 01",
		"ping-delta applied " + full(&wirePing{Health: 740, Alive: false, Speed: 0.11}),
		"ping long form the short one carries REFUSED",
		"ping changed, nothing changes REFUSED",
		"ping trailing byte TRAILING",
		"ping unchanged 00",
		"ping out of range REFUSED",
		"ping against a base out of range REFUSED",
		"ping onto a base out of range REFUSED",
		"ping into its own base REFUSED",
		"0-bit item read OK: 0 bits, value 9, changed 0",
		"0-bit item write OK: 0 bits, changed 0",
		"squad-delta 8d 09 d5 05",
		"squad-delta applied " + full(&squad),
		"bag 17 24 1f 18 31 01",
		"bag applied " + full(&wireBag{Ammo: map[uint8]uint16{1: 10, 5: 53, 7: 70}}),
		"bag with a key twice REFUSED",
		"clocks zero " + zeroClocksCounts,
		"clocks unchanged " + full(&ZeroClocks{}),
		"zero rows applied " + full(&rows),
		"zero rows past the counts a5 a5 a5 a5 a5",
	}
	cmd := exec.Command(bin, fmt.Sprintf("%x", rowsDelta))
	cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0", "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	for i := range max(len(got), len(want)) {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d: C++ %q, want %q", i+1, g, w)
		}
	}
}

package gen

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// minSerializeMistakes is a program that makes, one per mode, the
// mistakes serialize's own header punishes and a lenient stand-in would
// let pass: a packet allocated at exactly its size (serialize's reader
// loads 8-byte windows), a packet read back before Flush (its writer
// keeps the last word in a scratch word), a capacity that is not a
// multiple of 8, a NULL packet. Each mistake has a twin done right.
const minSerializeMistakes = `#include <stdio.h>
#include <string.h>
#include "minserialize.h"

struct Pair
{
    uint32_t a, b;
    template <typename Stream> bool Serialize( Stream & stream )
    {
        serialize_bits( stream, a, 4 );
        serialize_bits( stream, b, 8 );
        return true;
    }
};

// Aligned is a Pair with an align between its fields.
struct Aligned
{
    uint32_t a, b;
    template <typename Stream> bool Serialize( Stream & stream )
    {
        serialize_bits( stream, a, 4 );
        serialize_align( stream );
        serialize_bits( stream, b, 8 );
        return true;
    }
};

// measure prints what a MeasureStream counts for the Pair a b and for the
// Aligned 1 b2.
static int measure( uint32_t a, uint32_t b )
{
    Pair p = { a, b };
    Aligned q = { 1, 0xb2 };
    serialize::MeasureStream pm, qm;
    if ( !p.Serialize( pm ) || !q.Serialize( qm ) )
        return 1;
    printf( "%d %d\n", (int) pm.GetBitsProcessed(), (int) qm.GetBitsProcessed() );
    return 0;
}

// read_pair reads a Pair from the packet 21 0b in an allocation of its size
// plus spare bytes.
static int read_pair( size_t spare )
{
    uint8_t * packet = new uint8_t[2 + spare];
    packet[0] = 0x21;
    packet[1] = 0x0b;
    Pair v;
    serialize::ReadStream stream( packet, 2 );
    const bool ok = v.Serialize( stream );
    delete [] packet;
    if ( !ok )
        return 1;
    printf( "%x %x\n", v.a, v.b );
    return 0;
}

// write_pair writes the Pair 1 b2 into a buffer of capacity bytes and prints
// the packet, read back with or without Flush first.
static int write_pair( int64_t capacity, bool flush )
{
    uint8_t buffer[16];
    Pair v = { 1, 0xb2 };
    serialize::WriteStream stream( buffer, capacity );
    if ( !v.Serialize( stream ) )
        return 1;
    if ( flush )
        stream.Flush();
    for ( int64_t i = 0; i < stream.GetBytesProcessed(); i++ )
        printf( "%02x", buffer[i] );
    printf( "\n" );
    return 0;
}

int main( int argc, char ** argv )
{
    const char * mode = argc > 1 ? argv[1] : "";
    if ( strcmp( mode, "exact-size" ) == 0 )
        return read_pair( 0 );
    if ( strcmp( mode, "8-spare-bytes" ) == 0 )
        return read_pair( 8 );
    if ( strcmp( mode, "no-flush" ) == 0 )
        return write_pair( 16, false );
    if ( strcmp( mode, "flush" ) == 0 )
        return write_pair( 16, true );
    if ( strcmp( mode, "capacity-12" ) == 0 )
        return write_pair( 12, true );
    if ( strcmp( mode, "measure" ) == 0 )
        return measure( 1, 0xb2 );
    if ( strcmp( mode, "measure-wide" ) == 0 )
        return measure( 16, 0xb2 );
    if ( strcmp( mode, "null-packet" ) == 0 )
    {
        serialize::ReadStream stream( NULL, 0 );
        return 0;
    }
    return 2;
}
`

// TestMinSerializeStrict: the test implementation of serialize
// (testdata/minserialize.h) fails the mistakes serialize 1.11's header
// punishes, which the harnesses once made against it unnoticed: a packet
// in an allocation of exactly its size is a heap read past its end under
// AddressSanitizer (serialize's reader loads 8 bytes at the byte it reads
// from), a packet printed without Flush holds the buffer's old bytes (the
// writer keeps the last word until Flush), a capacity of 12 bytes and a
// NULL packet abort. The same calls done right give the packet: 4 bits of
// 1 then 8 bits of b2 are 21 0b. Its MeasureStream counts as serialize's
// does: 12 bits for that Pair, 19 for one with an align between its
// fields (an align counts 7 wherever it falls), and it aborts on a value
// wider than its bits, as the writer does.
func TestMinSerializeStrict(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	gxx := requireCompiler(t)
	dir := t.TempDir()
	min, err := os.ReadFile(filepath.Join("testdata", "minserialize.h"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"minserialize.h": min, "mistakes.cpp": []byte(minSerializeMistakes)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "mistakes")
	args := []string{"-std=c++11", "-Wall", "-Wextra", "-Werror", "-O0", "-fsanitize=address", "-o", bin, filepath.Join(dir, "mistakes.cpp")}
	if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, c := range []struct {
		mode   string
		stdout string // when the program succeeds
		stderr string // when it fails: what its standard error says
	}{
		{mode: "8-spare-bytes", stdout: "1 b2\n"},
		{mode: "exact-size", stderr: "ERROR: AddressSanitizer: heap-buffer-overflow"},
		{mode: "flush", stdout: "210b\n"},
		{mode: "no-flush", stdout: "a5a5\n"}, // the stand-in's fill: serialize leaves the buffer's old bytes
		{mode: "capacity-12", stderr: "minserialize: misuse: WriteStream: capacity not a multiple of 8 bytes"},
		{mode: "null-packet", stderr: "minserialize: misuse: ReadStream: NULL buffer"},
		{mode: "measure", stdout: "12 19\n"},
		{mode: "measure-wide", stderr: "minserialize: misuse: serialize_bits: value wider than its bits"},
	} {
		cmd := exec.Command(bin, c.mode)
		cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=0")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case c.stderr == "" && err != nil:
			t.Errorf("%s: %v\n%s", c.mode, err, stderr.String())
		case c.stderr == "" && stdout.String() != c.stdout:
			t.Errorf("%s: printed %q, want %q", c.mode, stdout.String(), c.stdout)
		case c.stderr != "" && !errors.As(err, &exit):
			t.Errorf("%s: ran to the end (%v), printing %q; want it to fail with %q", c.mode, err, stdout.String(), c.stderr)
		case c.stderr != "" && !strings.Contains(stderr.String(), c.stderr):
			t.Errorf("%s: failed (%v) without saying %q:\n%s", c.mode, err, c.stderr, tail(stderr.String(), 2000))
		}
	}
}

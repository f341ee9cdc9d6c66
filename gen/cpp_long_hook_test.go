package gen

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// LongHook is a hook type whose bits run past the C++ header's stack
// buffers (BITPACK_HOOK_BYTES, 256) when it holds more than 253 bytes: 10
// bits of length, align, the bytes.
type LongHook struct {
	N    int
	Data [600]byte
}

func (h *LongHook) MarshalBits(w *bitio.Writer) error {
	if h.N < 0 || h.N > len(h.Data) {
		return errors.New("long hook: length out of range")
	}
	w.WriteBits(uint64(h.N), 10)
	w.Align()
	w.WriteBytes(h.Data[:h.N])
	return w.Err()
}

func (h *LongHook) UnmarshalBits(r *bitio.Reader) error {
	h.N = int(r.ReadBits(10))
	if h.N > len(h.Data) {
		return errors.New("long hook: length out of range")
	}
	r.Align()
	r.ReadBytes(h.Data[:h.N])
	return r.Err()
}

// LongHooked holds a LongHook.
type LongHooked struct {
	H LongHook
	N uint8
}

// longHookCPP is LongHook's C++ twin, written as a user of the header
// writes a hook type.
const longHookCPP = `struct LongHook
{
    int32_t N;
    uint8_t Data[600];

    template <typename Stream> bool Serialize( Stream & stream )
    {
        serialize_int( stream, N, 0, 1023 );
        if ( N > 600 )
            return false;
        serialize_bytes( stream, Data, N );
        return true;
    }
};
`

// TestCPPLongHook: hook values of 600 bytes, which Go accepts in a packet
// and in a delta, are read, compared and written by the C++ header with
// its default BITPACK_HOOK_BYTES (256) as Go reads and writes them. A
// delta compares hook values by writing both (bitpack::hook_differs):
// with buffers of BITPACK_HOOK_BYTES on the stack, a client's delta wrote
// its 600 bytes past them (the test's stream aborted; serialize built
// with NDEBUG overflowed the stack), and a later fix refused such values
// where Go accepts them; now each value is measured first and compared in
// a heap buffer when it does not fit. Built with AddressSanitizer and
// UBSan: neither may report anything.
func TestCPPLongHook(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	gxx := requireCompiler(t)
	v := &LongHooked{N: 1}
	v.H.N = 600
	for i := range v.H.Data {
		v.H.Data[i] = byte(i*7 + 1)
	}
	// next differs from v in the hook's last byte only, and in N.
	next := *v
	next.H.Data[599]++
	next.N = 2
	// Go's answers, each checked here: the C++ program must give the same.
	delta, err := bitpack.AppendDelta(nil, &LongHooked{}, v)
	if err != nil {
		t.Fatal(err)
	}
	full, err := bitpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	step, err := bitpack.AppendDelta(nil, v, &next)
	if err != nil {
		t.Fatal(err)
	}
	var got, again, stepped, same LongHooked
	if err := bitpack.UnmarshalDelta(delta, &LongHooked{}, &got); err != nil || got != *v {
		t.Fatalf("Go: UnmarshalDelta = %v, N %d; want the 600-byte hook accepted", err, got.H.N)
	}
	if err := bitpack.Unmarshal(full, &again); err != nil || again != *v {
		t.Fatalf("Go: Unmarshal = %v, N %d; want the 600-byte hook accepted", err, again.H.N)
	}
	if err := bitpack.UnmarshalDelta(step, v, &stepped); err != nil || stepped != next {
		t.Fatalf("Go: UnmarshalDelta(step) = %v; want next", err)
	}
	// The first delta against v itself sends a hook whose bits are the
	// base's: not canonical, refused.
	if err := bitpack.UnmarshalDelta(delta, v, &same); err == nil {
		t.Fatal("Go: a delta sending a hook equal to its base's was accepted")
	}
	var header bytes.Buffer
	if err := CPP(&header, Options{Include: "minserialize.h"}, &LongHooked{}); err != nil {
		t.Fatal(err)
	}
	min, err := os.ReadFile(filepath.Join("testdata", "minserialize.h"))
	if err != nil {
		t.Fatal(err)
	}
	main := `#include <stdio.h>
#include <string.h>
#include "minserialize.h"
#include "hook.h"
#include "net.h"

// hex_packet fills packet with hex's bytes and returns their number.
static int hex_packet( const char * hex, uint8_t * packet )
{
    const int n = (int) strlen( hex ) / 2;
    for ( int i = 0; i < n; i++ )
    {
        unsigned b;
        sscanf( hex + 2 * i, "%2x", &b );
        packet[i] = (uint8_t) b;
    }
    return n;
}

static const char delta[] = "` + hex.EncodeToString(delta) + `";
static const char full[] = "` + hex.EncodeToString(full) + `";
static const char step[] = "` + hex.EncodeToString(step) + `";
static uint8_t packet[sizeof full / 2 + 8];
static uint8_t out[sizeof full / 2 + 64];

// read_delta_hex reads the delta in hex against base into value.
static bool read_delta_hex( const char * hex, const LongHooked & base, LongHooked & value )
{
    const int n = hex_packet( hex, packet );
    serialize::ReadStream stream( packet, n );
    return bitpack::read_delta( stream, n, base, value ) == bitpack::ReadResult::ok;
}

int main()
{
    static LongHooked zero, got, value, stepped, same;
    bool ok = read_delta_hex( delta, zero, got );
    printf( "delta %s %d %d\n", ok ? "ok" : "refused", (int) got.H.N, (int) got.N );
    const int n = hex_packet( full, packet );
    serialize::ReadStream whole( packet, n );
    ok = bitpack::read_packet( whole, n, value ) == bitpack::ReadResult::ok;
    printf( "packet %s %d %d\n", ok ? "ok" : "refused", (int) value.H.N, (int) value.N );
    ok = read_delta_hex( step, value, stepped );
    printf( "step %s %d %d %d\n", ok ? "ok" : "refused", (int) stepped.H.N, (int) stepped.H.Data[599], (int) stepped.N );
    printf( "same %s\n", read_delta_hex( delta, value, same ) ? "ok" : "refused" );
    // The step written again from the value read and its base.
    serialize::WriteStream writer( out, sizeof out / 8 * 8 );
    ok = stepped.SerializeDelta( writer, value );
    writer.Flush();
    printf( "write %s ", ok ? "ok" : "refused" );
    for ( int i = 0; i < (int) writer.GetBytesProcessed(); i++ )
        printf( "%02x", out[i] );
    printf( "\n" );
    return 0;
}
`
	dir := t.TempDir()
	for name, b := range map[string][]byte{"minserialize.h": min, "hook.h": []byte(longHookCPP), "net.h": header.Bytes(), "main.cpp": []byte(main)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "hook")
	args := []string{"-std=c++11", "-Wall", "-Wextra", "-Werror", "-O0", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o", exe, filepath.Join(dir, "main.cpp")}
	if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	out, err := exec.Command(exe).CombinedOutput()
	want := fmt.Sprintf("delta ok 600 1\npacket ok 600 1\nstep ok 600 %d 2\nsame refused\nwrite ok %x", next.H.Data[599], step)
	if err != nil || strings.TrimSpace(string(out)) != want {
		t.Errorf("C++ with 600-byte hook values: %v\n%s\nwant %q", err, tail(string(out), 2000), want)
	}
}

package gen

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
)

// LongHook is a hook type whose bits run past BITPACK_HOOK_BYTES (256)
// when it holds more than 253 bytes: 10 bits of length, align, the bytes.
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

// TestCPPHookPastHookBytes: a hook value of 600 bytes, which Go accepts
// in a packet and in a delta, is refused by the C++ reader built with the
// default BITPACK_HOOK_BYTES (256), and accepted with 1024. A delta
// compares hook values by writing each into BITPACK_HOOK_BYTES bytes on
// the stack (bitpack::hook_differs): before the read refused it, a
// client's delta wrote its 600 bytes past that buffer (the test's stream
// aborted; serialize built with NDEBUG overflowed the stack), and a value
// a full packet brought would do the same as a later delta's base. Built
// with AddressSanitizer and UBSan: neither may report anything.
func TestCPPHookPastHookBytes(t *testing.T) {
	t.Parallel() // a compiler and a program of its own: beside another test's
	gxx := requireCompiler(t)
	v := &LongHooked{N: 1}
	v.H.N = 600
	for i := range v.H.Data {
		v.H.Data[i] = byte(i*7 + 1)
	}
	d, err := bitpack.AppendDelta(nil, &LongHooked{}, v)
	if err != nil {
		t.Fatal(err)
	}
	full, err := bitpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var got, again LongHooked
	if err := bitpack.UnmarshalDelta(d, &LongHooked{}, &got); err != nil || got.H.N != 600 {
		t.Fatalf("Go: UnmarshalDelta = %v, N %d; want the 600-byte hook accepted", err, got.H.N)
	}
	if err := bitpack.Unmarshal(full, &again); err != nil || again.H.N != 600 {
		t.Fatalf("Go: Unmarshal = %v, N %d; want the 600-byte hook accepted", err, again.H.N)
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

static const char delta[] = "` + hex.EncodeToString(d) + `";
static const char full[] = "` + hex.EncodeToString(full) + `";
static uint8_t packet[sizeof full / 2 + 8];

int main()
{
    static LongHooked base, next, value;
    int n = hex_packet( delta, packet );
    serialize::ReadStream stream( packet, n );
    bool ok = bitpack::read_delta( stream, n, base, next ) == bitpack::ReadResult::ok;
    printf( "delta %s %d %d\n", ok ? "ok" : "refused", (int) next.H.N, (int) next.N );
    n = hex_packet( full, packet );
    serialize::ReadStream whole( packet, n );
    ok = bitpack::read_packet( whole, n, value ) == bitpack::ReadResult::ok;
    printf( "packet %s %d %d\n", ok ? "ok" : "refused", (int) value.H.N, (int) value.N );
    return 0;
}
`
	dir := t.TempDir()
	for name, b := range map[string][]byte{"minserialize.h": min, "hook.h": []byte(longHookCPP), "net.h": header.Bytes(), "main.cpp": []byte(main)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		define string
		want   string
	}{
		// Refused after the hook's own read, which left its 600 (a refused
		// read leaves the value partly written, as the header says).
		{"", "delta refused 600 0\npacket refused 600 0"},
		{"-DBITPACK_HOOK_BYTES=1024", "delta ok 600 1\npacket ok 600 1"},
	} {
		exe := filepath.Join(dir, "hook"+strings.TrimPrefix(tc.define, "-DBITPACK_HOOK_BYTES="))
		args := []string{"-std=c++11", "-Wall", "-Wextra", "-Werror", "-O0", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o", exe, filepath.Join(dir, "main.cpp")}
		if tc.define != "" {
			args = append(args, tc.define)
		}
		if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
			t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		out, err := exec.Command(exe).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != tc.want {
			t.Errorf("%q: C++ read a 600-byte hook value: %v\n%s\nwant %q", tc.define, err, tail(string(out), 2000), tc.want)
		}
	}
}

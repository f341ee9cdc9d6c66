package bitpack_test

import (
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack/internal/sweeps"
)

// inlineGoVersion is the Go release whose inliner TestIntendedInlining
// pins: its budget decides what inlines, and CI uses it.
const inlineGoVersion = "go1.26"

// TestIntendedInlining pins the helpers the hot paths rely on being
// inlined (as Go's own test of that name does for the runtime): moving
// code between files, or growing a helper past the inliner's budget, must
// fail here rather than silently cost a call per field. It reads the
// compiler's -m output for the root package, bitio and quant.
func TestIntendedInlining(t *testing.T) {
	if !strings.HasPrefix(runtime.Version(), inlineGoVersion) || runtime.GOARCH != "amd64" {
		t.Skipf("the inliner of %s on %s decides differently; this test pins %s's on amd64", runtime.Version(), runtime.GOARCH, inlineGoVersion)
	}
	// A guard of speed, not of what is written or read, whose rebuild of
	// four packages with -m costs the README's command seconds of CPU on
	// a cold cache: .ci/run runs it (BITPACK_FULL=1).
	if !sweeps.Full() {
		t.Skip("compiles four packages with -m: BITPACK_FULL=1 runs it")
	}
	// The example program instantiates Codec[T], whose methods are only
	// compiled where they are used.
	cmd := exec.Command("go", "build", "-o", "/dev/null", "-gcflags=github.com/bitpack-go/bitpack/...=-m", ".", "./bitio", "./quant", "./examples/gamestate")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	text := string(out)
	// Helpers that must be inlinable (the -m output's "can inline NAME").
	canInline := []string{
		// the decisions and the addressing every field goes through
		"intCode", "float32InRange", "fitsIn", "pointer.field", "pointer.index", "pointer.elem",
		"pointer.isNil", "pointer.sliceLen", "pointer.sliceElem", "offset.plus", "loadAs[go.shape.uint32]",
		"storeIndex[go.shape.uint32]", "(*decoder).charge", "(*op).rawElems", "planOfPointer", "ifaceOf",
		// bitio's writes and reads
		"(*Writer).WriteBits", "(*Writer).WriteBitsUnchecked", "(*Writer).WriteBytes", "(*Writer).Align",
		"(*Writer).BitsWritten", "(*Reader).BitsRead", "(*Reader).BitsRemaining", "(*Reader).ReadBool",
		// quant's arithmetic
		"(*Float).QuantizeInRange", "(*Float).Quantize", "(*Float).Dequantize", "truncCode",
	}
	for _, name := range canInline {
		if !strings.Contains(text, "can inline "+name+" ") && !strings.Contains(text, "can inline "+name+"\n") {
			t.Errorf("%s is no longer inlinable", name)
		}
	}
	// Calls that must be inlined where the executors make them.
	inlined := []struct{ file, call string }{
		{"encode.go", "float32InRange"},
		{"encode.go", "quant.(*Float).QuantizeInRange"},
		{"encode.go", "bitio.(*Writer).WriteBitsUnchecked"},
		{"encode.go", "pointer.field"},
		{"decode_loop.go", "(*decoder).charge"},
		{"decode_store.go", "quant.(*Float).Dequantize"},
		{"decode_store.go", "storeInts[go.shape.uint32]"},
		{"kind_int.go", "intCode"},
		{"kind_float.go", "float32InRange"},
		{"kind_int.go", "intRunOf[go.shape.int32]"},
		{"kind_int.go", "intColumn[go.shape.uint16]"},
		{"codec.go", "bitpack.(*Codec[%]).check"}, // % stands for any instantiation
	}
	for _, c := range inlined {
		call := strings.ReplaceAll(regexp.QuoteMeta(c.call), "%", ".*")
		re := regexp.MustCompile(`(?m)^\./` + regexp.QuoteMeta(c.file) + `:\d+:\d+: inlining call to ` + call + `$`)
		if !re.MatchString(text) {
			t.Errorf("%s no longer inlines %s", c.file, c.call)
		}
	}
}

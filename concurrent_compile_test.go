package bitpack_test

import (
	"bytes"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// TestConcurrentFirstUse: many goroutines meet a new type at once; its plan
// is compiled exactly once and every goroutine gets the same bytes.
func TestConcurrentFirstUse(t *testing.T) {
	for round := 0; round < 8; round++ {
		// A type no other test has seen: reflect.StructOf with a fresh name.
		typ := reflect.StructOf([]reflect.StructField{
			{Name: "Health" + strconv.Itoa(round) + uniqueSuffix(), Type: reflect.TypeFor[int32](), Tag: `bits:"range=0..1000"`},
			{Name: "Pos", Type: reflect.TypeFor[Vec3](), Tag: `bits:"float,min=-10,max=10,res=0.01"`},
		})
		v := reflect.New(typ)
		v.Elem().Field(0).SetInt(731)
		start := make(chan struct{})
		results := make([][]byte, 16)
		var wg sync.WaitGroup
		for g := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				b, err := bitpack.Marshal(v.Interface())
				if err != nil {
					t.Error(err)
				}
				out := reflect.New(typ)
				if err := bitpack.Unmarshal(b, out.Interface()); err != nil {
					t.Error(err)
				}
				results[g] = b
			}()
		}
		close(start)
		wg.Wait()
		for _, r := range results {
			if !bytes.Equal(r, results[0]) {
				t.Fatalf("goroutines disagree: %x vs %x", r, results[0])
			}
		}
		if n := bitpack.CompileCount(typ); n != 1 {
			t.Fatalf("plan compiled %d times", n)
		}
	}
}

var suffixes atomic.Int64

// uniqueSuffix makes names no earlier round (or -count run) has used.
func uniqueSuffix() string { return "X" + strconv.FormatInt(suffixes.Add(1), 10) }

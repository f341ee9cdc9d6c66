package bitpack

import (
	"fmt"
	"hash/fnv"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
)

// Generated Go code: package gen's Go function writes, for a struct type,
// straight-line functions that append and decode exactly what the plan
// does, every width, bound and quantizer an immediate, and registers them
// here from the generated file's init. A Codec of the type then runs them
// first. They answer only "done" or "not done": on anything they do not
// accept (a value out of its range, a damaged packet) the Codec runs the
// plan, which is the reference and words the error. So errors are the
// plan's by construction, and a generated function that refused too much
// would cost time, never a wrong answer; one that accepted too much is
// what gen's differential fuzz target looks for.
//
// Only Append, Marshal and Unmarshal (whole packets) use them; Encode,
// Decode, the deltas and the any-typed functions run the plan.

// Generated holds the functions package gen's Go output registers for T.
// Layout is the Hash of T's layout when the code was generated; Append
// appends v's encoding to dst and reports whether it did (dst unchanged
// otherwise); Unmarshal decodes a whole packet into v and reports whether
// it did (v untouched otherwise).
type Generated[T any] struct {
	Layout    uint64
	Append    func(dst []byte, v *T) ([]byte, bool)
	Unmarshal func(data []byte, v *T) bool
}

// generatedSlot is where a type's generated functions are found: made by
// whichever of RegisterGenerated and NewCodec comes first, so a Codec made
// before the generated file's init ran (in a package-level variable) finds
// them too. stale holds the refusal of a registration for another layout.
type generatedSlot[T any] struct {
	fns   atomic.Pointer[Generated[T]]
	stale atomic.Pointer[error]
}

var generatedSlots sync.Map // reflect.Type -> *generatedSlot[T]

func slotOf[T any]() *generatedSlot[T] {
	t := reflect.TypeFor[T]()
	if s, ok := generatedSlots.Load(t); ok {
		return s.(*generatedSlot[T])
	}
	s, _ := generatedSlots.LoadOrStore(t, new(generatedSlot[T]))
	return s.(*generatedSlot[T])
}

// RegisterGenerated is called by the init function of a file package gen
// wrote; it is not meant to be called by hand. Code generated for another
// layout of T (a tag changed since, and go generate did not run) is not
// used: NewCodec[T] then fails, saying so, rather than put different bits
// on the wire; Marshal and Unmarshal, and the generator itself, work on.
// It panics when a function is missing.
func RegisterGenerated[T any](g Generated[T]) {
	t := reflect.TypeFor[T]()
	if g.Append == nil || g.Unmarshal == nil {
		panic(fmt.Sprintf("bitpack: RegisterGenerated for %v without its functions", t))
	}
	slot := slotOf[T]()
	p, err := planOf(t)
	if err != nil {
		return // NewCodec reports the plan's own error
	}
	if h, err := layoutHash(p); err != nil || h != g.Layout {
		stale := fmt.Errorf("bitpack: the generated code for %v was made for another layout of it, or by a bitpack with other wire rules (hash %#x, now %#x): generate it again", t, g.Layout, h)
		slot.stale.Store(&stale)
		return
	}
	slot.fns.Store(&g)
}

// rulesVersion numbers the rules that generated code repeats in its own
// words but that no layout shows: the arithmetic of compressed floats and
// of the code clamp (package quant's Float, Float64 and truncCode),
// quaternions' smallest three and their unit-norm tolerance (kind_quat.go,
// quatNormTolerance), string validity (no NUL, valid UTF-8: package
// bitio's ValidString and ValidStringBytes), unit= rounding (kind_int.go,
// toUnits), and every other rule of docs/wire.md. Change it when you
// change one of them: it is folded into Layout.Hash, so every file gen.Go
// wrote before is refused as stale (see RegisterGenerated) instead of
// accepting or writing what the plan no longer does. (The C++, C# and
// TypeScript clients register nowhere, so nothing refuses old ones:
// generate them again too.)
const rulesVersion = 1

// Hash is a 64-bit FNV-1a hash of the line "bitpack wire rules N" (N the
// version of the rules generated code repeats) and String: it changes with
// anything about how the type travels, what only the encoder sees (clamp)
// and the Go field names included, and with those rules. Generated Go code
// records it (see Generated).
func (l Layout) Hash() uint64 {
	h := fnv.New64a()
	h.Write([]byte("bitpack wire rules " + strconv.Itoa(rulesVersion) + "\n"))
	h.Write([]byte(l.String()))
	return h.Sum64()
}

func layoutHash(p *plan) (uint64, error) {
	l, err := p.layout()
	if err != nil {
		return 0, err
	}
	return l.Hash(), nil
}

package bitpacktest

import (
	"hash/fnv"
	"reflect"

	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
)

// Option configures Gen, CheckRoundTrip and FuzzWith. Options that do not
// concern a function are ignored by it (Gen ignores Count and Seed).
type Option func(*config)

type config struct {
	count      int
	seed       int64
	seedSet    bool
	depth      int
	maxElems   int
	custom     map[reflect.Type]gopter.Gen
	cmpOpts    []cmp.Option
	noAlloc    bool
	packets    [][]byte
	zeroCustom bool // FuzzWith: unregistered custom types generate their zero value
	budget     int  // container elements and pointees per value; 0: elemBudget
}

// Defaults. One thousand tests per property take a fraction of a second for
// a typical packet and still reach edge values of every field.
const (
	defaultCount    = 1000
	defaultDepth    = 4
	defaultMaxElems = 64
)

func newConfig(t reflect.Type, opts []Option) *config {
	c := &config{count: defaultCount, depth: defaultDepth, maxElems: defaultMaxElems, custom: map[reflect.Type]gopter.Gen{}}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if !c.seedSet {
		c.seed = typeSeed(t)
	}
	return c
}

// typeSeed is the default seed: fixed per type, so runs are reproducible
// without every type seeing the same random stream.
func typeSeed(t reflect.Type) int64 {
	h := fnv.New64a()
	h.Write([]byte(t.PkgPath() + "." + t.String()))
	return int64(h.Sum64() >> 1)
}

// Count sets how many generated values each CheckRoundTrip property must
// pass (default 1000).
func Count(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.count = n
		}
	}
}

// Seed fixes CheckRoundTrip's random seed. Without it the seed is derived
// from the type's name, so every run tests the same values; a failure
// prints the seed it ran with, and Seed replays it.
func Seed(seed int64) Option {
	return func(c *config) { c.seed, c.seedSet = seed, true }
}

// Depth bounds recursive types: past n nested trips through a pointer,
// slice, sparse field or union (interface field) that leads back to
// itself, pointers are nil, slices empty and unions hold a member that
// ends the recursion (default 4). Non-recursive nesting is never cut.
func Depth(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.depth = n
		}
	}
}

// MaxElems caps generated slice lengths (default 64; each level of a
// recursive type gets a quarter of its parent's cap); strings and byte
// slices are capped at 4×n bytes. A maxlen at or under the cap is itself
// generated often, so the largest legal packet is always tried.
func MaxElems(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxElems = n
		}
	}
}

// Custom registers the generator for values of type C, a type with
// MarshalBits/UnmarshalBits hooks (bitpack cannot know which values its
// hooks accept). g must produce values of type C; its shrinker, if any, is
// used when a property fails.
func Custom[C any](g gopter.Gen) Option {
	t := reflect.TypeFor[C]()
	return func(c *config) { c.custom[t] = g }
}

// CmpOptions adds go-cmp options to the round-trip comparisons, for
// custom types whose decoded form is equal but not identical (for example
// a type with an Equal method is compared with it already; one that
// caches derived state may need cmpopts.IgnoreUnexported).
func CmpOptions(opts ...cmp.Option) Option {
	return func(c *config) { c.cmpOpts = append(c.cmpOpts, opts...) }
}

// NoAllocCheck turns off FuzzWith's allocation bound, for types whose
// custom hooks allocate more than the bound allows for them (see Fuzz).
func NoAllocCheck() Option {
	return func(c *config) { c.noAlloc = true }
}

// Corpus adds raw packets to FuzzWith's seed corpus, such as regression
// inputs a fuzzer once found, kept next to the target that found them.
func Corpus(packets ...[]byte) Option {
	return func(c *config) { c.packets = append(c.packets, packets...) }
}

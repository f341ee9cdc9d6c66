package bitpack_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"sync"
	"testing"

	"github.com/bitpack-go/bitpack"
)

// Union members of every shape the runtime stores differently in an
// interface, registered for two interfaces at once, decoded into fresh and
// reused fields while the collector runs (run under -race, with
// -gcflags=all=-d=checkptr and GODEBUG=gccheckmark=1 too).
type (
	ifOne interface{ isIf() }
	ifTwo interface{ isIf() }

	ifVal struct {
		V uint8 `bits:"range=0..200"`
	}
	ifPtrForm struct {
		S string `bits:"maxlen=9"`
		N *uint32
	}
	ifShaped    struct{ P *uint32 }    // pointer-shaped: stored in the data word itself
	ifShapedArr struct{ A [1]*uint16 } // pointer-shaped through an array
	ifShapedIn  struct {               // pointer-shaped through a struct
		In struct{ P *uint8 }
	}
	ifZeroSize struct{ Z [0]int32 }
	ifLarge    struct {
		B   bool
		Pad [5000]byte `bits:"-"`
		S   []uint16   `bits:"maxlen=4"`
	}
	ifHolder struct {
		A  ifOne
		B  ifTwo
		L  []ifOne `bits:"maxlen=6"`
		Ar [3]ifTwo
		P  *ifOne
	}
)

func (ifVal) isIf()       {}
func (*ifPtrForm) isIf()  {}
func (ifShaped) isIf()    {}
func (ifShapedArr) isIf() {}
func (ifShapedIn) isIf()  {}
func (ifZeroSize) isIf()  {}
func (ifLarge) isIf()     {}

func init() {
	u, err := bitpack.NewUnion(ifVal{}, &ifPtrForm{}, ifShaped{}, ifShapedArr{}, ifShapedIn{}, ifZeroSize{}, ifLarge{})
	if err != nil {
		panic(err)
	}
	if err := bitpack.RegisterUnion[ifOne](u); err != nil {
		panic(err)
	}
	if err := bitpack.RegisterUnion[ifTwo](u); err != nil {
		panic(err)
	}
}

func ifRandom(rng *rand.Rand) ifOne {
	switch rng.IntN(7) {
	case 0:
		return ifVal{V: uint8(rng.IntN(201))}
	case 1:
		p := &ifPtrForm{S: fmt.Sprint(rng.IntN(1000))}
		if rng.IntN(2) == 0 {
			n := rng.Uint32()
			p.N = &n
		}
		return p
	case 2:
		if rng.IntN(3) == 0 {
			return ifShaped{}
		}
		n := rng.Uint32()
		return ifShaped{P: &n}
	case 3:
		if rng.IntN(3) == 0 {
			return ifShapedArr{}
		}
		n := uint16(rng.Uint32())
		return ifShapedArr{A: [1]*uint16{&n}}
	case 4:
		if rng.IntN(3) == 0 {
			return ifShapedIn{}
		}
		n := uint8(rng.Uint32())
		var v ifShapedIn
		v.In.P = &n
		return v
	case 5:
		return ifZeroSize{}
	}
	v := ifLarge{B: rng.IntN(2) == 0}
	for range rng.IntN(5) {
		v.S = append(v.S, uint16(rng.Uint32()))
	}
	return v
}

func ifRandomHolder(rng *rand.Rand) *ifHolder {
	h := &ifHolder{A: ifRandom(rng), B: ifRandom(rng)}
	for range rng.IntN(7) {
		h.L = append(h.L, ifRandom(rng))
	}
	for i := range h.Ar {
		h.Ar[i] = ifRandom(rng)
	}
	if rng.IntN(2) == 0 {
		x := ifRandom(rng)
		h.P = &x
	}
	return h
}

func TestUnionMemberShapesUnderGC(t *testing.T) {
	rounds := sweep(3000, 300, 300)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			reused := ifRandomHolder(rng)
			var kept []*ifHolder // decoded values kept alive across collections
			for i := range rounds {
				in := ifRandomHolder(rng)
				data, err := bitpack.Marshal(in)
				if err != nil {
					t.Error(err)
					return
				}
				fresh := new(ifHolder)
				for _, out := range []*ifHolder{fresh, reused} {
					if err := bitpack.Unmarshal(data, out); err != nil {
						t.Error(err)
						return
					}
				}
				if i%50 == 0 {
					runtime.GC()
				}
				// (Fresh values compare whole; reused ones keep empty
				// slices non-nil, so they compare by their encoding.)
				if !reflect.DeepEqual(in, fresh) {
					t.Errorf("round %d: decoded %+v, want %+v", i, fresh, in)
					return
				}
				for _, out := range []*ifHolder{fresh, reused} {
					again, err := bitpack.Marshal(out)
					if err != nil || string(again) != string(data) {
						t.Errorf("round %d: re-encode %v", i, err)
						return
					}
				}
				kept = append(kept, fresh)
				if len(kept) > 64 {
					// Check the oldest after collections, then drop it.
					old := kept[0]
					if _, err := bitpack.Marshal(old); err != nil {
						t.Error(err)
						return
					}
					kept = kept[1:]
				}
			}
		}()
	}
	wg.Wait()
}

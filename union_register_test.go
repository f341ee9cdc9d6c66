package bitpack_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bitpack-go/bitpack"
)

type (
	goodMember struct {
		A uint8 `bits:"range=0..100"`
	}
	noMaxlenMember struct{ S string }
	badRangeMember struct {
		B uint8 `bits:"range=0..300"`
	}
)

// TestNewUnionChecksMembers: NewUnion compiles every member and returns the
// first tag error (it used to return a union whose first decode of that
// member, picked by a client, failed with the tag error); a union with no
// members is refused by NewUnion and by RegisterUnion.
func TestNewUnionChecksMembers(t *testing.T) {
	for _, tc := range []struct {
		members []any
		want    string
	}{
		{[]any{goodMember{}, noMaxlenMember{}}, `bitpack: type bitpack_test.noMaxlenMember field S: string needs a maxlen tag of its own, e.g. bits:"maxlen=32"`},
		{[]any{&badRangeMember{}, noMaxlenMember{}}, `bitpack: type bitpack_test.badRangeMember field B: tag "range=0..300": range 0..300 does not fit uint8`},
	} {
		u, err := bitpack.NewUnion(tc.members...)
		var te *bitpack.TagError
		if u != nil || !errors.As(err, &te) || err.Error() != tc.want {
			t.Errorf("NewUnion(%T...) = %v, %v\nwant %s", tc.members[0], u, err, tc.want)
		}
	}
	if u, err := bitpack.NewUnion(); u != nil || err == nil || err.Error() != "bitpack: NewUnion needs at least one type" {
		t.Errorf("NewUnion() = %v, %v", u, err)
	}
	if err := bitpack.RegisterUnion[Greeting](&bitpack.Union{}); err == nil || err.Error() != "bitpack: RegisterUnion[bitpack_test.Greeting]: the Union has no members (use NewUnion)" {
		t.Errorf("RegisterUnion(&Union{}) = %v", err)
	}
}

// Two interfaces whose members hold each other: pingMsg's members hold a
// pongMsg, and pongMsg's a pingMsg.
type (
	pingMsg interface{ ping() }
	pongMsg interface{ pong() }
	pingA   struct {
		N    uint8 `bits:"range=0..9"`
		Next pongMsg
	}
	pingEnd struct {
		Code uint8 `bits:"range=7..7"`
	}
	pongB struct {
		Next pingMsg
	}
	pingHolder struct{ P pingMsg }
)

func (pingA) ping()   {}
func (pingEnd) ping() {}
func (pongB) pong()   {}

// pingUnions builds the two unions once per process (registration lasts as
// long as the process).
var pingUnions = sync.OnceValues(func() (*bitpack.Union, *bitpack.Union) {
	pings, err1 := bitpack.NewUnion(pingA{}, pingEnd{})
	pongs, err2 := bitpack.NewUnion(pongB{})
	if err1 != nil || err2 != nil {
		return nil, nil
	}
	return pings, pongs
})

var pingRan atomic.Bool

// TestMutuallyRecursiveUnions: unions that refer to each other's interfaces
// register in either order; until both are, a type that reaches the
// missing one fails to compile naming it.
func TestMutuallyRecursiveUnions(t *testing.T) {
	pings, pongs := pingUnions()
	if pings == nil {
		t.Fatal("NewUnion failed")
	}
	if pingRan.Swap(true) { // -count=N: registrations last as long as the process
		t.Skip("the unions were registered by an earlier run of this test")
	}
	if err := bitpack.RegisterUnion[pingMsg](pings); err != nil {
		t.Fatal(err)
	}
	v := pingHolder{P: pingA{N: 3, Next: pongB{Next: pingEnd{Code: 7}}}}
	if _, err := bitpack.Marshal(&v); err == nil || err.Error() != "bitpack: encode bitpack_test.pingHolder: field P: type bitpack_test.pingA field Next: bitpack_test.pongMsg is not supported (interfaces not registered with RegisterUnion have no wire form)" {
		t.Fatalf("before pongMsg is registered: %v", err)
	}
	if err := bitpack.RegisterUnion[pongMsg](pongs); err != nil {
		t.Fatal(err)
	}
	// P: index 0 (1 bit), N=3 (4 bits), Next: pongB (0 bits of index),
	// its Next: index 1 (1 bit) = pingEnd, whose range=7..7 takes 0 bits.
	data, err := bitpack.Marshal(&v)
	if want := []byte{0b100110}; err != nil || !bytes.Equal(data, want) {
		t.Fatalf("Marshal = %08b, %v; want %08b", data, err, want)
	}
	var back pingHolder
	if err := bitpack.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, v) {
		t.Fatalf("Unmarshal = %+v, %v", back, err)
	}
}

// Eight interfaces, each raced once: one goroutine registers its union
// while others compile and use a type holding it for the first time.
type (
	raceMsg0 interface{ race0() }
	raceMsg1 interface{ race1() }
	raceMsg2 interface{ race2() }
	raceMsg3 interface{ race3() }
	raceM    struct {
		V uint8 `bits:"range=0..200"`
	}
	raceHold0 struct{ M raceMsg0 }
	raceHold1 struct{ M raceMsg1 }
	raceHold2 struct{ M raceMsg2 }
	raceHold3 struct{ M raceMsg3 }
)

func (raceM) race0() {}
func (raceM) race1() {}
func (raceM) race2() {}
func (raceM) race3() {}

// raced remembers the interfaces raced already: registrations are for the
// life of the process, so under -count=N only the first run can race.
var raced sync.Map

func raceRegistration[I, H any](t *testing.T, hold func(m raceM) *H) {
	if _, done := raced.LoadOrStore(reflect.TypeFor[I](), true); done {
		if data, err := bitpack.Marshal(hold(raceM{V: 9})); err != nil || !bytes.Equal(data, []byte{9}) {
			t.Errorf("%s: %x, %v", reflect.TypeFor[I](), data, err)
		}
		return
	}
	u, err := bitpack.NewUnion(raceM{})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := bitpack.NewUnion(raceM{})
	name := reflect.TypeFor[I]()
	var wg sync.WaitGroup
	var errU, errOther error
	marshalErrs := make(chan error, 50)
	wg.Add(3)
	go func() { defer wg.Done(); errU = bitpack.RegisterUnion[I](u) }()
	go func() { defer wg.Done(); errOther = bitpack.RegisterUnion[I](other) }()
	go func() {
		defer wg.Done()
		for range 50 {
			// Before registration: refused. After: the one encoding.
			data, err := bitpack.Marshal(hold(raceM{V: 7}))
			if err == nil && !bytes.Equal(data, []byte{7}) {
				marshalErrs <- fmt.Errorf("%s: Marshal = %x", name, data)
			}
		}
	}()
	wg.Wait()
	close(marshalErrs)
	for err := range marshalErrs {
		t.Error(err)
	}
	// Exactly one of two different unions registers, whichever came first.
	want := fmt.Sprintf("bitpack: RegisterUnion[%s]: a different union is already registered for %s", name, name)
	if (errU == nil) == (errOther == nil) || errU != nil && errU.Error() != want || errOther != nil && errOther.Error() != want {
		t.Errorf("%s: RegisterUnion = %v and %v; want exactly one %q", name, errU, errOther, want)
	}
	data, err := bitpack.Marshal(hold(raceM{V: 9}))
	if err != nil || !bytes.Equal(data, []byte{9}) {
		t.Errorf("%s after the race: %x, %v", name, data, err)
	}
}

// TestRegisterUnionRace (run it with -race): registration is published in
// one step, after everything is checked.
func TestRegisterUnionRace(t *testing.T) {
	raceRegistration[raceMsg0](t, func(m raceM) *raceHold0 { return &raceHold0{M: m} })
	raceRegistration[raceMsg1](t, func(m raceM) *raceHold1 { return &raceHold1{M: m} })
	raceRegistration[raceMsg2](t, func(m raceM) *raceHold2 { return &raceHold2{M: m} })
	raceRegistration[raceMsg3](t, func(m raceM) *raceHold3 { return &raceHold3{M: m} })
}

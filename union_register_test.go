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

type (
	grow1 struct {
		X uint8 `bits:"range=0..15"`
	}
	grow2 struct{ Y uint8 }
	grow3 struct{ Z bool }
)

// TestUnionIndexWidth: a union built with IndexBits keeps its members'
// bytes when members are appended (the default width grows from 1 bit to
// 2 going from two members to three, and an old decoder would read the new
// B{Y: 7} packet as B{Y: 14}); At numbers members a protocol's own way,
// and an index that names no member is refused.
func TestUnionIndexWidth(t *testing.T) {
	two, _ := bitpack.NewUnion(grow1{}, grow2{})
	three, _ := bitpack.NewUnion(grow1{}, grow2{}, grow3{})
	old, _ := two.Marshal(grow2{Y: 7})
	grown, _ := three.Marshal(grow2{Y: 7})
	// Default widths: index 1 in 1 bit, then Y = 7: 0x0f 0x00; in 2 bits: 0x1d 0x00.
	if !bytes.Equal(old, []byte{0x0f, 0x00}) || !bytes.Equal(grown, []byte{0x1d, 0x00}) {
		t.Fatalf("default widths: %x, %x", old, grown)
	}
	fixedTwo, err := bitpack.NewUnion(bitpack.IndexBits(4), grow1{}, grow2{})
	if err != nil {
		t.Fatal(err)
	}
	fixedThree, _ := bitpack.NewUnion(bitpack.IndexBits(4), grow1{}, grow2{}, grow3{})
	for _, v := range []any{grow1{X: 9}, grow2{Y: 7}} {
		a, err1 := fixedTwo.Marshal(v)
		b, err2 := fixedThree.Marshal(v)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%T: %x, %x (%v, %v): appending a member changed the bytes", v, a, b, err1, err2)
		}
	}
	// Index 1 in 4 bits, then Y = 7 from bit 4.
	if b, _ := fixedTwo.Marshal(grow2{Y: 7}); !bytes.Equal(b, []byte{0x71, 0x00}) {
		t.Errorf("IndexBits(4): %x, want 7100", b)
	}
	// The old union refuses the new member's index rather than misread it.
	c, _ := fixedThree.Marshal(grow3{Z: true})
	if _, err := fixedTwo.Unmarshal(c); err == nil || err.Error() != "bitpack: decode: at bit 0: union index 2 out of range [0, 1]" {
		t.Errorf("old union, new member: %v", err)
	}

	numbered, err := bitpack.NewUnion(bitpack.At(7, grow1{}), bitpack.At(9, &grow2{}), grow3{})
	if err != nil {
		t.Fatal(err)
	}
	// grow3 takes index 10; the width is bits_required(0, 10) = 4.
	if b, _ := numbered.Marshal(grow3{Z: true}); !bytes.Equal(b, []byte{0x1a}) {
		t.Errorf("At: %x, want 1a", b)
	}
	if v, err := numbered.Unmarshal([]byte{0x79, 0x00}); err != nil || *v.(*grow2) != (grow2{Y: 7}) {
		t.Errorf("index 9: %v, %v", v, err)
	}
	if _, err := numbered.Unmarshal([]byte{0x08}); err == nil || err.Error() != "bitpack: decode: at bit 0: union index 8 names no member (7, 9, 10)" {
		t.Errorf("index 8: %v", err)
	}
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{bitpack.IndexBits(1), grow1{}, grow2{}, grow3{}}, "bitpack: NewUnion: IndexBits(1) cannot hold index 2"},
		{[]any{bitpack.IndexBits(40), grow1{}}, "bitpack: NewUnion argument 0: IndexBits(40): give it once, 1 to 32"},
		{[]any{bitpack.At(3, grow1{}), bitpack.At(3, grow2{})}, "bitpack: NewUnion: index 3 given to bitpack_test.grow1 and bitpack_test.grow2"},
		{[]any{bitpack.IndexBits(4)}, "bitpack: NewUnion needs at least one type"},
	} {
		if _, err := bitpack.NewUnion(tc.args...); err == nil || err.Error() != tc.want {
			t.Errorf("NewUnion(%v): %v\nwant %s", tc.args, err, tc.want)
		}
	}
}

// laterIface has no union yet when earlyMember's union is built.
type (
	laterIface  interface{ isLater() }
	laterA      struct{ A uint8 }
	laterB      struct{ B bool }
	earlyMember struct {
		L []laterIface `bits:"maxlen=100000"`
	}
)

func (laterA) isLater() {}
func (laterB) isLater() {}

// TestUnionBeforeInterfaceRegistered: NewUnion checks a member that holds an
// interface registered later only as far as it can (issue 13 item 6: in
// any order). Observed: the placeholder union op takes 0 bits, so a
// slice of the interface counts as "elements that can take no bits" and
// NewUnion refuses maxlen=100000 (at most 65536), which compiles once the
// interface's two-member union (1 bit each) is registered. Expected:
// NewUnion accepts it; the real compile decides.
func TestUnionBeforeInterfaceRegistered(t *testing.T) {
	if _, err := bitpack.NewUnion(earlyMember{}); err != nil {
		t.Errorf("NewUnion before laterIface's union: %v", err)
	}
	u, err := bitpack.NewUnion(laterA{}, laterB{})
	if err != nil {
		t.Fatal(err)
	}
	if err := bitpack.RegisterUnion[laterIface](u); err != nil {
		t.Fatal(err)
	}
	if _, err := bitpack.Describe(earlyMember{}); err != nil {
		t.Errorf("after registration: %v", err)
	}
}

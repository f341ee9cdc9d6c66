package bitpack

import (
	"reflect"
	"testing"
	"time"
)

// Types of every shape a plan's ops can take, for TestNodeWorkCountsOps.
type (
	nwLeaf struct {
		A int8 `bits:"range=5..5"`
	}
	nwQuat   struct{ X, Y, Z, W float32 }
	nwEmbed  struct{ nwInner }
	nwInner  struct{ P, Q uint8 }
	nwShapes struct {
		I      int32
		S      string `bits:"maxlen=8"`
		B      []byte `bits:"maxlen=8"`
		BA     [4]byte
		Small  [3]nwInner
		Large  [200]nwInner
		Nested [2][40]nwLeaf
		Sparse [20]*uint8 `bits:"sparse"`
		SpSl   []*uint8   `bits:"maxlen=9,sparse"`
		Ptr    *nwInner
		Sl     []nwLeaf        `bits:"maxlen=4"`
		M      map[uint8]uint8 `bits:"maxlen=4"`
		Q      nwQuat          `bits:"quat,bits=9"`
		E      nwEmbed
		T      time.Time `bits:"unit=1s,range=0..1000"`
		Z      nwLeaf
		Anon   struct{ C, D nwLeaf }
	}
)

// TestNodeWorkCountsOps: without floors, nodeWork counts what planWork
// counts from the ops, so the difference of the two nodeWork counts is
// exactly what the floors add.
func TestNodeWorkCountsOps(t *testing.T) {
	for _, v := range []any{nwShapes{}, nwLeaf{}, nwInner{}, [5]nwLeaf{}, [300]nwShapes{}} {
		p, err := planOf(reflect.TypeOf(v))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := nodeWork(p.root, false, false), planWork(p); max(got, 1) != want {
			t.Errorf("%T: nodeWork %d, planWork %d", v, got, want)
		}
	}
}

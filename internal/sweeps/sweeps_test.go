package sweeps

import (
	"fmt"
	"os"
	"testing"
)

// TestModes names what each value of BITPACK_FULL, with and without
// -short, chooses of a sweep whose counts all differ (full 200, short 50,
// quick 25; full 40, quick 12), and of one whose short count is above its
// quick one (full 300, short 100, quick 60: -short keeps the quick count).
func TestModes(t *testing.T) {
	for _, tc := range []struct {
		env   string
		short bool
		full  bool
		count int // count(200, 50, 25)
		above int // count(300, 100, 60)
		fq    int // FullOrQuick(40, 12)
	}{
		{"", false, false, 25, 60, 12},
		{"", true, false, 25, 60, 12},
		{"0", false, false, 25, 60, 12},
		{"0", true, false, 25, 60, 12},
		{"1", false, true, 200, 300, 40},
		{"1", true, true, 50, 100, 40},
		{"true", false, false, 25, 60, 12}, // only 1 is full
		{" 1", false, false, 25, 60, 12},
	} {
		t.Run(fmt.Sprintf("%q/short=%v", tc.env, tc.short), func(t *testing.T) {
			if got := full(tc.env); got != tc.full {
				t.Fatalf("full(%q) = %v, want %v", tc.env, got, tc.full)
			}
			if got := count(tc.full, tc.short, 200, 50, 25); got != tc.count {
				t.Errorf("count(200, 50, 25) = %d, want %d", got, tc.count)
			}
			if got := count(tc.full, tc.short, 300, 100, 60); got != tc.above {
				t.Errorf("count(300, 100, 60) = %d, want %d", got, tc.above)
			}
			// The exported functions read the environment (and this test
			// binary's -short, which must agree with the row).
			t.Setenv(Var, tc.env)
			if got := Full(); got != tc.full {
				t.Errorf("Full() with %s=%q = %v, want %v", Var, tc.env, got, tc.full)
			}
			if got := FullOrQuick(40, 12); got != tc.fq {
				t.Errorf("FullOrQuick(40, 12) with %s=%q = %d, want %d", Var, tc.env, got, tc.fq)
			}
			if testing.Short() == tc.short {
				if got := Count(200, 50, 25); got != tc.count {
					t.Errorf("Count(200, 50, 25) with %s=%q = %d, want %d", Var, tc.env, got, tc.count)
				}
			}
		})
	}
}

// TestUnset: with BITPACK_FULL absent from the environment (not merely
// empty) the sweeps are quick.
func TestUnset(t *testing.T) {
	t.Setenv(Var, "") // restored after the test
	os.Unsetenv(Var)
	if Full() || FullOrQuick(40, 12) != 12 {
		t.Fatalf("unset %s: Full() = %v, FullOrQuick(40, 12) = %d, want false, 12", Var, Full(), FullOrQuick(40, 12))
	}
}

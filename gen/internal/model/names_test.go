package model

import "testing"

func TestIdentifier(t *testing.T) {
	for in, want := range map[string]string{
		"Pair[int]": "Pair_int", "Pair[main.Vec3,int]": "Pair_main_Vec3_int", "x_": "x_", "9lives": "_9lives", "": "",
	} {
		if got := Identifier(in); got != want {
			t.Errorf("Identifier(%q) = %q, want %q", in, got, want)
		}
	}
}

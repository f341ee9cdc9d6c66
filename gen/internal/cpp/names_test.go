package cpp

import "testing"

func TestIdent(t *testing.T) {
	for in, want := range map[string]string{"class": "class_", "stream": "stream_", "i0": "i0_", "p12": "p12_", "Pos": "Pos", "ip": "ip"} {
		if got := cppIdent(in); got != want {
			t.Errorf("cppIdent(%q) = %q, want %q", in, got, want)
		}
	}
}

package model

import (
	"path"
	"strconv"
	"strings"
)

// name gives every type of the model a unique identifier: its Go name
// (generic arguments flattened: Pair[int] is Pair_int); types of different
// packages that share a name are qualified with their package's name
// (game_Vec3, physics_Vec3); anonymous structs take the name of the field
// that first holds them (Player_Stats for Player's field Stats); anything
// still equal gets _2, _3 in the order the types were found, so the same
// types always get the same names.
func (b *builder) name() error {
	cand := make(map[*Type]string, len(b.order))
	count := map[string]int{}
	for _, t := range b.order {
		n := Identifier(t.Go.Name())
		if n == "" {
			n = Identifier(t.suggest)
		}
		if n == "" {
			n = "Anonymous"
			if t.Kind == TypeUnion {
				n = "Union"
			}
		}
		cand[t] = n
		count[n]++
	}
	used := map[string]bool{}
	for _, t := range b.order {
		n := cand[t]
		if count[n] > 1 && t.Go.Name() != "" && t.Go.PkgPath() != "" {
			n = Identifier(path.Base(t.Go.PkgPath())) + "_" + n
		}
		if used[n] {
			k := 2
			for used[n+"_"+strconv.Itoa(k)] {
				k++
			}
			n += "_" + strconv.Itoa(k)
		}
		used[n] = true
		t.Name = n
	}
	return nil
}

// Identifier turns s into an identifier: every run of characters other
// than ASCII letters, digits and underscores becomes one underscore (none
// at the end).
func Identifier(s string) string {
	var b strings.Builder
	added := false // the last byte is an underscore this function added
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b.WriteByte(c)
			added = false
			continue
		}
		if !added && b.Len() > 0 {
			b.WriteByte('_')
			added = true
		}
	}
	out := b.String()
	if added {
		out = out[:len(out)-1]
	}
	if out != "" && out[0] >= '0' && out[0] <= '9' {
		out = "_" + out
	}
	return out
}

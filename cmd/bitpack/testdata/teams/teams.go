// Package teams is the command's test package of enums: named integer
// types whose constants name their values, one in another package of the
// module, and types whose constants must not be taken.
package teams

import (
	"time"

	"github.com/bitpack-go/bitpack/cmd/bitpack/testdata/teams/ranks"
)

// Team is an enum: its constants, in declaration order (not by value).
type Team uint8

const (
	Red Team = iota + 1
	Blue
	Spectator Team = 0
)

// Untyped constants and constants of the underlying type do not name
// Team's values.
const (
	NumTeams       = 3
	Max      uint8 = 9
)

// offset is unexported: its constants name its values all the same.
type offset int16

const (
	back    offset = -1
	forward offset = 1
)

// Plain has no constants: it stays an integer.
type Plain uint16

// Match holds them.
type Match struct {
	Home    Team          `bits:"range=0..3"`
	Away    Team          `bits:"range=0..3"`
	Rank    ranks.Rank    ``
	Step    offset        ``
	Score   Plain         ``
	Clock   time.Duration `bits:"unit=1s,range=0..5400"`
	History []Team        `bits:"maxlen=4,range=0..3"`
}

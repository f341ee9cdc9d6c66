// Package ranks declares an enum package teams uses.
package ranks

// Rank is a signed enum with a wide value.
type Rank int64

const (
	Bottom Rank = -1 << 40
	Top    Rank = 1 << 40
)

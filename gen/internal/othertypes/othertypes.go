// Package othertypes holds struct types of a package other than gen's,
// for gen's tests of generated Go code that names types it imports.
package othertypes

// Pos is a plain exported struct.
type Pos struct {
	X int16 `bits:"range=-500..500"`
	Y int16 `bits:"range=-500..500"`
}

// Tagged has a field kept off the wire and one of a named type.
type Tagged struct {
	Kind  Kind
	Note  string `bits:"maxlen=5"`
	Cache int    `bits:"-"`
}

// Kind is a named integer.
type Kind uint8

// hidden is embedded, unexported, in Wrapped: its field is on the wire
// (promoted), but code outside this package cannot name hidden.
type hidden struct {
	Secret uint8 `bits:"range=0..7"`
}

// Wrapped embeds an unexported struct whose field is on the wire.
type Wrapped struct {
	hidden
	Open bool
}

// Private has an unexported field, which is off the wire, inside an
// anonymous struct: that struct type cannot be written outside this
// package.
type Private struct {
	In struct {
		A     uint8 `bits:"bits=4"`
		cache int
	}
}

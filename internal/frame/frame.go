// Package frame is the state a bitio.Reader or Writer carries for package
// bitpack: how deep the decode or encode it is part of runs, and what the
// decode's allowances have spent. bitio keeps a Frame in an unexported
// field of each Reader and Writer, which only bitpack reaches (through
// its unsafe.go), so that code a hook runs cannot change it: a Decode or
// Encode that a hook makes on the Reader or Writer it was handed continues
// the decode or encode that called the hook — its MaxDepth and its
// allowances — and consecutive Decodes on one Reader share one allowance.
// Copying a Reader or Writer copies its Frame; Reset clears it.
package frame

// Frame is the state; the zero Frame is "not part of any decode or
// encode yet".
type Frame struct {
	Active bool // set by the first bitpack call on the Reader or Writer
	Depth  int  // the nesting depth calls on it start at

	// Decoding: the allowances (see bitpack's allowance.go) and what the
	// decodes on the Reader have spent. Encoding: what the encodes on the
	// Writer since bit Start will charge their decoder, which shares one
	// allowance between them; inside a hook (Counting), only counted, for
	// the encode that called the hook to check.
	WorkLimit, Work, BytesLimit, Bytes int64
	Start                              int
	Counting                           bool

	// Decoding in a hook: what the decode has spent lives here instead of
	// in Work and Bytes, so that every copy of the hook's Reader (a hook
	// that peeks with a copy, or saves one to backtrack) spends from the
	// same allowance rather than from a copy of it.
	Spent *Spent
}

// Spent is what a decode has spent of its allowances.
type Spent struct{ Work, Bytes int64 }

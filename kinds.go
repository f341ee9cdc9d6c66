package bitpack

// The kinds table: what each kind of field does, in one place. Every op of
// a plan is of one Kind (the same enumeration Describe reports), and each
// kind family lives in a file of its own (kind_*.go) that holds its
// compilation, its encode, decode and commit steps, its refusals, its
// allowance charges and its layout description. Fixed-width kinds (fixed)
// are run by the programs (program.go), many fields to a word; their kind
// files give the per-field paths the programs fall back to: the code of
// one value (and its refusal) and the store of one code (and its refusal).
//
// Adding a kind: its Kind constant (layout.go); a kind_*.go file with its
// compilation (called from compile.go's appendValue), its encode, decode
// and commit functions (one-line cases in encode.go's encodeOp, decode_loop.go's
// decodeOp and commit.go's commit), its charges (allowance.go) and its row
// here; its options in tags.go if it has new ones; its wire description in
// docs/wire.md.
//
// The drivers run a kind's encode, decode, commit and fixed-width code and
// store functions through switches with one-line cases (encodeOp,
// decodeOp, commit, fieldCode, decodeScalar), not through function
// values in this table: Go's escape analysis cannot see through an
// indirect call, so one would move the caller's Writer, Reader, decoder
// and value to the heap on every call. The table holds what is not on
// those paths.
type kindFuncs struct {
	name  string // for Kind.String
	fixed bool   // a fixed-width field: gathered into the programs' groups and runs

	// Layout: Field.Encoding's words, Layout.Schema's production, and the
	// most and fewest bits a value takes given its children's (see
	// size.go).
	describe func(f *Field) string
	schema   func(s *schemaWriter, f *Field)
	maxBits  func(f *Field, max func(*Field) int64) int64
	minBits  func(f *Field, min func(*Field) int64) int64
}

// kinds is the table, indexed by Kind (filled by init: its functions refer
// back to the drivers, which refer to it).
var kinds [kindCount]kindFuncs

func init() {
	kinds = [kindCount]kindFuncs{
		KindBool:            boolKind,
		KindInt:             intKind,
		KindUint:            uintKind,
		KindFloat:           floatKind,
		KindCompressedFloat: compressedFloatKind,
		KindString:          stringKind,
		KindBytes:           bytesKind,
		KindByteArray:       byteArrayKind,
		KindArray:           arrayKind,
		KindSlice:           sliceKind,
		KindPointer:         pointerKind,
		KindStruct:          structKind,
		KindQuat:            quatKind,
		KindCustom:          hookKind,
		KindSparse:          sparseKind,
		KindUnion:           unionKind,
		KindCheck:           checkKind,
		KindMap:             mapKind,
		KindTime:            timeKind,
	}
}

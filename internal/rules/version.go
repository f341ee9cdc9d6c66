package rules

// Version is a 64-bit FNV-1a hash of the code (comments aside) of the
// rules generated code repeats but no layout shows: this package's
// definitions, package quant's arithmetic (compressed floats, their
// codes and clamps, smallest-three quaternions), string validity (package
// bitio's ValidString, stringProblem and bytesProblem) and the quaternion rule
// (bitpack's quatEncodable, quatNorm2 and zeroQuat). bitpack folds it
// into Layout.Hash, so a Go file generated against other rules is
// refused as stale instead of run. TestVersion recomputes it from those
// sources and says the value to write here when one of them changed.
const Version uint64 = 0x45c9eefd509038e1

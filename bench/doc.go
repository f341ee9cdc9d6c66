// Package bench compares bitpack with other Go serializers on the reference
// packet of docs/wire.md and on a snapshot of the gamestate example's world.
//
// It is a separate module, so that users of bitpack never download the
// serializers it is compared with. The benchmarks and round-trip tests are
// in the _test.go files; README.md has the commands and the results.
//
// Generated code is committed. To regenerate it (no protoc needed):
//
//	cd bench && go generate ./...
package bench

//go:generate go run ./internal/genproto -I proto -out proto/benchpb packet.proto

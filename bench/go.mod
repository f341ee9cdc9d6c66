module github.com/bitpack-go/bitpack/bench

go 1.24

require (
	github.com/bitpack-go/bitpack v0.0.0
	github.com/bufbuild/protocompile v0.14.1
	github.com/fxamacker/cbor/v2 v2.9.6
	github.com/google/go-cmp v0.7.0
	github.com/kelindar/binary v1.0.19
	github.com/tinylib/msgp v1.6.5
	github.com/vmihailenco/msgpack/v5 v5.4.1
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/philhofer/fwd v1.2.0 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/mod v0.18.0 // indirect
	golang.org/x/sync v0.8.0 // indirect
	golang.org/x/tools v0.22.0 // indirect
)

replace github.com/bitpack-go/bitpack => ../

tool (
	github.com/tinylib/msgp
	google.golang.org/protobuf/cmd/protoc-gen-go
)

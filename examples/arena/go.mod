module github.com/bitpack-go/bitpack/examples/arena

go 1.24

require github.com/bitpack-go/bitpack v0.0.0

require github.com/gorilla/websocket v1.5.3

replace github.com/bitpack-go/bitpack => ../..

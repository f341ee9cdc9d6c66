// Package cppclient is the example of gen's README: the Go types of a small
// game protocol, and the client code generated from them by the go:generate
// lines below: net.h (C++), cs/Net.cs (C#, for Unity), ts/net.ts
// (TypeScript, for the browser), rust/net.rs (Rust), and bitpack_gen.go,
// the Go side's own straight-line encode and decode that a Codec[Snapshot]
// runs. cpp/client.cpp, cs/Client.cs, ts/client.ts and rust/main.rs are
// clients that write a snapshot the Go side reads, and read it back.
package cppclient

//go:generate go run github.com/bitpack-go/bitpack/cmd/bitpack gen -lang cpp -o net.h . Snapshot
//go:generate go run github.com/bitpack-go/bitpack/cmd/bitpack gen -lang cs -namespace Game.Net -o cs/Net.cs . Snapshot
//go:generate go run github.com/bitpack-go/bitpack/cmd/bitpack gen -lang ts -o ts/net.ts . Snapshot
//go:generate go run github.com/bitpack-go/bitpack/cmd/bitpack gen -lang go -o bitpack_gen.go . Snapshot
//go:generate go run github.com/bitpack-go/bitpack/cmd/bitpack gen -lang rust -o rust/net.rs . Snapshot

// Vec3 is a position.
type Vec3 struct{ X, Y, Z float32 }

// Player is one player's state.
type Player struct {
	ID     uint16 `bits:"range=0..999"`
	Health int32  `bits:"range=0..1000"`
	Pos    Vec3   `bits:"float,min=-1024,max=1024,res=0.01"`
	Name   string `bits:"maxlen=15"`
	Alive  bool
}

// Snapshot is what the server sends every tick.
type Snapshot struct {
	Tick    uint32
	Players []Player `bits:"maxlen=8"`
}

// AppID is the game's protocol id. Packets are sealed with
// AppID ^ Fingerprint(&Snapshot{}), so a client built from another
// version of these types fails the CRC.
const AppID = 0x47414d45

// client.ts: a TypeScript (browser) client of the example protocol, built
// on net.ts (the module bitpack gen wrote from net.go). send writes a
// snapshot and seals it as bitpack.Seal does (a Go server opens it with
// bitpack.Open and reads it with bitpack.Unmarshal); receive opens and
// reads one.
//
//   tsc --strict --module es2020 --moduleResolution bundler client.ts net.ts

import { BitpackError, type Snapshot, SnapshotFingerprint, newPlayer, open, readSnapshot, seal, writeSnapshot } from "./net.js";

const protocolId = (0x47414d45 ^ SnapshotFingerprint) >>> 0; // as bitpack.Seal(dst, AppID^fp, payload)

export function send(): Uint8Array {
  const snapshot: Snapshot = {
    Tick: 42,
    Players: [
      { ID: 7, Health: 1000, Pos: { X: 0, Y: -1024, Z: 1024 }, Name: "ada", Alive: true },
      { ...newPlayer(), ID: 999, Name: "bob" },
    ],
  };
  return seal(protocolId, writeSnapshot(snapshot)); // writeSnapshot throws what bitpack.Marshal refuses
}

export function receive(packet: Uint8Array): string {
  const body = open(protocolId, packet); // null: a damaged or foreign packet
  if (body === null) {
    return "packet refused: checksum";
  }
  try {
    const s = readSnapshot(body); // one whole Snapshot, or a BitpackError
    return `tick ${s.Tick}: ${s.Players.length} players, ${s.Players[0].Name} at y=${s.Players[0].Pos.Y}`;
  } catch (e) {
    if (e instanceof BitpackError) {
      return "packet refused: " + e.message; // names the field and bit
    }
    throw e;
  }
}

// main.rs: a Rust client of the example protocol, built on net.rs (the
// module bitpack gen wrote from net.go). It writes a snapshot and seals it
// as bitpack.Seal does (a Go server opens it with bitpack.Open and reads it
// with bitpack.Unmarshal), prints the packet in hex, then opens and reads
// it back.
//
//   rustc --edition 2021 main.rs
#![deny(warnings)]

mod net;

use net::{Player, Snapshot, Vec3};

const PROTOCOL_ID: u32 = 0x4741_4d45 ^ Snapshot::FINGERPRINT; // as bitpack.Seal(dst, AppID^fp, payload)

fn send() -> Result<Vec<u8>, net::Error> {
    let snapshot = Snapshot {
        tick: 42,
        players: vec![
            Player { id: 7, health: 1000, pos: Vec3 { x: 0.0, y: -1024.0, z: 1024.0 }, name: "ada".into(), alive: true },
            Player { id: 999, name: "bob".into(), ..Default::default() },
        ],
    };
    Ok(net::seal(PROTOCOL_ID, &snapshot.write()?)) // write refuses what bitpack.Marshal refuses
}

fn receive(packet: &[u8]) -> String {
    let body = match net::open(PROTOCOL_ID, packet) {
        Some(body) => body,
        None => return "packet refused: checksum".into(), // a damaged or foreign packet
    };
    match Snapshot::read(body) {
        Ok(s) => format!("tick {}: {} players, {} at y={}", s.tick, s.players.len(), s.players[0].name, s.players[0].pos.y),
        Err(e) => format!("packet refused: {}", e), // names the field and bit
    }
}

fn main() {
    match send() {
        Ok(packet) => {
            println!("{}", packet.iter().map(|b| format!("{:02x}", b)).collect::<String>());
            println!("{}", receive(&packet));
        }
        Err(e) => println!("refused: {}", e),
    }
}

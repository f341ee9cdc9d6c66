// floats.rs: the float and quaternion probes (probes.rs) built with
// -C opt-level=3 -C target-cpu=native: bitpack's float arithmetic must
// give the same bits there. Every other command is answered SKIP.
#![deny(warnings)]

#[path = "floats_table.rs"]
mod table;
#[path = "probes.rs"]
mod probes;

use std::io::{BufRead, Write};

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for line in stdin.lock().lines() {
        let line = line.unwrap_or_default();
        let f: Vec<&str> = line.split(' ').collect();
        let a = match (f[0], f.len()) {
            ("D", 2) => probes::probe(&probes::bytes(f[1])),
            ("P", _) => probes::encode(&f),
            ("Q", _) => probes::probe_quat(&probes::bytes(f[1])),
            ("E", 13) => probes::encode_quat(&f),
            _ => "SKIP".into(),
        };
        writeln!(out, "{}", a).unwrap_or(());
    }
}

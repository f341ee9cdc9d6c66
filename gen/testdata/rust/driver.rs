// driver.rs: the Rust side of package gen's cross-language tests, built
// with the module gen.Rust generated for the test table (table.rs) and the
// cases the Go test generates (cases.rs): one answer per line of standard
// input, as driver_cases.ts answers (OK <hex>, TRAILING, or REFUSED with
// the error's kind, path, bit and words, tab-separated).
#![deny(warnings)]

#[path = "table.rs"]
mod table;
#[path = "cases.rs"]
mod cases;
#[path = "snap.rs"]
mod snap;
#[path = "probes.rs"]
mod probes;

use std::io::{BufRead, Write};
use probes::{answer, bytes, hex};
use table::Error;

/// gen.Stamp, which encodes itself in Go: the high 4 of its 12 bits, an
/// align, the low 8; values above 4095 refused, as its MarshalBits
/// refuses them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stamp {
    pub v: u16,
}

impl table::Hook for Stamp {
    fn read(r: &mut table::Reader) -> Result<Stamp, Error> {
        let high = r.bits(4)?;
        r.align()?;
        Ok(Stamp { v: (high << 8 | r.bits(8)?) as u16 })
    }
    fn write(&self, w: &mut table::Writer) -> Result<(), Error> {
        if self.v > 4095 {
            return Err(w.refuse("stamp out of range"));
        }
        w.bits(self.v as u64 >> 8, 4);
        w.align();
        w.bits(self.v as u64 & 255, 8);
        Ok(())
    }
}

/// gen.Nib: 4 bits, of which 15 is reserved (read, but refused on write,
/// as its Go MarshalBits refuses it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Nib {
    pub v: u8,
}

impl table::Hook for Nib {
    fn read(r: &mut table::Reader) -> Result<Nib, Error> {
        Ok(Nib { v: r.bits(4)? as u8 })
    }
    fn write(&self, w: &mut table::Writer) -> Result<(), Error> {
        if self.v > 14 {
            return Err(w.refuse("nib out of range"));
        }
        w.bits(self.v as u64, 4);
        Ok(())
    }
}

/// Reads a packet as T and writes the value back.
pub fn read<T: table::wire::Root>(p: &[u8]) -> String {
    match table::wire::read::<T>(p) {
        Ok(v) => answer(table::wire::write(&v), true),
        Err(e) => answer(Err(e), false),
    }
}

/// Applies a delta to the base read from its packet; the result written whole.
pub fn delta_read<T: table::wire::Root>(base: &[u8], d: &[u8]) -> String {
    let b = match table::wire::read::<T>(base) {
        Ok(b) => b,
        Err(e) => return format!("BASE {}", e),
    };
    match table::wire::read_delta(d, &b) {
        Ok(v) => answer(table::wire::write(&v), true),
        Err(e) => answer(Err(e), false),
    }
}

/// Writes the delta of the value read from its packet against the base.
pub fn delta_write<T: table::wire::Root>(base: &[u8], value: &[u8]) -> String {
    match (table::wire::read::<T>(base), table::wire::read::<T>(value)) {
        (Ok(b), Ok(v)) => answer(table::wire::write_delta(&v, &b), true),
        _ => "BASE".into(),
    }
}

fn frame(f: &[&str]) -> String {
    let id = u32::from_str_radix(f[1], 16).unwrap_or(0);
    let p = bytes(f[2]);
    if f[0] == "S" {
        return format!("OK {}", hex(&table::seal(id, &p)));
    }
    match table::open(id, &p) {
        Some(payload) => format!("OK {}", hex(payload)),
        None => "REFUSED".into(),
    }
}

/// A step of the recorded snapshot stream: a new Receiver, a reset, or a
/// packet, answered as receiverScript words Go's answers: the verdict
/// (a refusal's category and its full text) and the ack.
fn snapshot(rx: &mut Option<snap::Receiver<snap::World>>, f: &[&str]) -> String {
    if f[1] == "new" {
        return match snap::Receiver::try_new(f[2].parse().unwrap_or(usize::MAX)) {
            Ok(r) => format!("ack {}", rx.insert(r).ack()),
            Err(e) => format!("throws {}", e),
        };
    }
    let rx = match rx {
        Some(rx) => rx,
        None => return "NO RECEIVER".into(),
    };
    if f[1] == "reset" {
        rx.reset();
        return format!("ack {}", rx.ack());
    }
    let got = match rx.read(&bytes(f[1])) {
        Ok((seq, v)) => format!("ok {} {}", seq, v.write().map(|p| hex(&p)).unwrap_or_else(|e| e.to_string())),
        Err(e) => {
            use snap::ErrorKind::*;
            let kinds = [(NoBase, "no-base"), (Range, "range"), (Overflow, "overflow"), (Padding, "padding"), (InvalidString, "invalid-string"), (Trailing, "trailing"), (Check, "check")];
            format!("refused {} {}", kinds.iter().find(|k| k.0 == e.kind()).map_or("?", |k| k.1), e)
        }
    };
    format!("{} ack {}", got, rx.ack())
}

fn main() {
    // gen.Far's 70000 slots are a [Option<Box<u8>>; 70000] inline, half a
    // megabyte, of which an unoptimised build keeps several copies on the
    // stack: the commands run on a thread with room for them.
    let run = std::thread::Builder::new().stack_size(1 << 30).spawn(answer_all);
    run.map(|h| h.join().unwrap_or(())).unwrap_or(());
}

fn answer_all() {
    let mut rx = None;
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for line in stdin.lock().lines() {
        let line = line.unwrap_or_default();
        let f: Vec<&str> = line.split(' ').collect();
        let num = |i: usize| f[i].parse::<usize>().unwrap_or(usize::MAX);
        let a = match (f[0], f.len()) {
            ("R", _) => cases::read(num(1), &bytes(f[2])),
            ("W", _) => cases::write_value(num(1)),
            ("D", 4) => cases::delta_read(num(1), &bytes(f[2]), &bytes(f[3])),
            ("D", _) => probes::probe(&bytes(f[1])),
            ("P", _) => probes::encode(&f),
            ("Q", _) => probes::probe_quat(&bytes(f[1])),
            ("E", 4) => cases::delta_write(num(1), &bytes(f[2]), &bytes(f[3])),
            ("E", _) => probes::encode_quat(&f),
            ("S", _) | ("O", _) => frame(&f),
            ("V", _) => snapshot(&mut rx, &f),
            _ => "BADLINE".into(),
        };
        writeln!(out, "{}", a).unwrap_or(());
    }
}

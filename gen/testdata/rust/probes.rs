// probes.rs: the float and quaternion probes of package gen's
// cross-language tests (D <packet> decodes a Pinned, P writes one, Q
// decodes a QuatProbe, E with twelve bit patterns writes one), shared by
// the driver and by floats.rs, the build with every optimisation.

use crate::table;
use table::{Error, ErrorKind};

pub fn hex(p: &[u8]) -> String {
    p.iter().map(|b| format!("{:02x}", b)).collect()
}

pub fn bytes(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap_or(0)).collect()
}

/// The answer to a read or write: a write's refusal has no bit (-1), as
/// Go's encode errors.
pub fn answer(r: Result<Vec<u8>, Error>, write: bool) -> String {
    match r {
        Ok(p) => format!("OK {}", hex(&p)),
        Err(e) if e.kind() == ErrorKind::Trailing => "TRAILING".into(),
        Err(e) => format!("REFUSED\t{:?}\t{}\t{}\t{}", e.kind(), e.path, if write { -1 } else { e.bit as i64 }, e),
    }
}

pub fn probe(p: &[u8]) -> String {
    match table::Pinned::read(p) {
        Ok(v) => format!("{:08x} {:08x} {:016x}", v.v.to_bits(), v.a.to_bits(), v.w.to_bits()),
        Err(_) => "REFUSED".into(),
    }
}

pub fn encode(f: &[&str]) -> String {
    let h32 = |s: &str| f32::from_bits(u32::from_str_radix(s, 16).unwrap_or(0));
    let v = table::Pinned { v: h32(f[1]), a: h32(f[2]), w: f64::from_bits(u64::from_str_radix(f[3], 16).unwrap_or(0)) };
    match v.write() {
        Ok(p) => format!("OK {}", hex(&p)),
        Err(_) => "REFUSED".into(),
    }
}

pub fn probe_quat(p: &[u8]) -> String {
    match table::QuatProbe::read(p) {
        Ok(v) => {
            let mut parts: Vec<String> = v.a.iter().chain(v.b.iter()).map(|x| format!("{:08x}", x.to_bits())).collect();
            parts.extend(v.c.iter().map(|x| format!("{:016x}", x.to_bits())));
            parts.join(" ")
        }
        Err(e) => answer(Err(e), false),
    }
}

pub fn encode_quat(f: &[&str]) -> String {
    let h32 = |s: &str| f32::from_bits(u32::from_str_radix(s, 16).unwrap_or(0));
    let h64 = |s: &str| f64::from_bits(u64::from_str_radix(s, 16).unwrap_or(0));
    let v = table::QuatProbe {
        a: [h32(f[1]), h32(f[2]), h32(f[3]), h32(f[4])],
        b: [h32(f[5]), h32(f[6]), h32(f[7]), h32(f[8])],
        c: [h64(f[9]), h64(f[10]), h64(f[11]), h64(f[12])],
    };
    answer(v.write(), true)
}



    // bitpack's canonical smallest-three quaternions (docs/wire.md,
    // "Quaternions"), every step in f32.
    const QM: f32 = 0.70710677; // float32(1/sqrt(2))
    const QD: f32 = QM + QM; // 2m, exact

    fn q_code(f: f32, steps: f32) -> u32 {
        let n = (f + QM) / QD;
        (((if n > 0.0 { n.min(1.0) } else { 0.0 } * steps) + 0.5) as u32).min(steps as u32)
    }

    /// The quaternion the index of its largest component l and the other
    /// three codes c give, and whether the code is canonical: whether the
    /// rebuilt component outranks the others (larger, or equal at a
    /// higher index).
    fn q_decode(l: usize, c: [u32; 3], steps: f32) -> ([f32; 4], bool) {
        let s = [0, 1, 2].map(|k| c[k] as f32 / steps * QD - QM);
        let rest = 1.0 - s[0] * s[0] - s[1] * s[1] - s[2] * s[2];
        let big = if rest > 0.0 { rest.sqrt() } else { 0.0 };
        let mut q = [big; 4];
        for (k, i) in (0..4).filter(|i| *i != l).enumerate() {
            q[i] = s[k];
        }
        (q, (0..4).filter(|i| *i != l).all(|i| q[i].abs() < big || q[i].abs() == big && i < l))
    }

    /// The plain smallest-three code: the largest magnitude (the last on a
    /// tie) dropped, all four negated first when its sign is, the others
    /// quantized in order.
    fn q_natural(v: [f32; 4], steps: f32) -> (usize, [u32; 3]) {
        let l = (1..4).fold(0, |l, i| if v[i].abs() >= v[l].abs() { i } else { l });
        let sign = if v[l].is_sign_negative() { -1.0 } else { 1.0 };
        let mut c = [0; 3];
        for (k, i) in (0..4).filter(|i| *i != l).enumerate() {
            c[k] = q_code(sign * v[i], steps);
        }
        (l, c)
    }

    /// bitpack's canonical code of a finite quaternion: the natural code
    /// when it decodes canonically; else the natural code of the
    /// normalised quaternion, its codes moved one step at a time toward
    /// the middle (the farthest first) until it does.
    fn q_encode(v: [f32; 4], steps: f32) -> (usize, [u32; 3]) {
        let (l, c) = q_natural(v, steps);
        if q_decode(l, c, steps).1 {
            return (l, c);
        }
        let r = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]).sqrt();
        let (l, mut c) = q_natural(v.map(|x| x / r), steps);
        let mid = steps as f64 / 2.0;
        while !q_decode(l, c, steps).1 {
            let far = (1..3).fold(0, |f, k| if (c[k] as f64 - mid).abs() > (c[f] as f64 - mid).abs() { k } else { f });
            c[far] = if c[far] as f64 > mid { c[far] - 1 } else { c[far] + 1 };
        }
        (l, c)
    }

    fn quat_text(q: [f32; 4]) -> String { format!("[{}]", q.map(|c| go_float(c as f64, true)).join(" ")) }

    /// The code bitpack writes for a quaternion, or why it refuses it: a
    /// component not finite, or a squared norm (summed in f64, in order)
    /// more than {{QUAT_NORM_TOLERANCE}} from 1; all four zero is Go's zero value, written
    /// as the identity.
    fn quat_code<T: Wire>(x: &T, s: &S) -> Result<(usize, [u32; 3]), String> {
        let q = [0, 1, 2, 3].map(|k| x.float(s.comps[k]) as f32);
        let n2 = q.iter().fold(0.0, |n, &c| n + c as f64 * c as f64);
        let encodable = q.iter().all(|&c| c == 0.0) || (n2 - 1.0).abs() <= {{QUAT_NORM_TOLERANCE}};
        if !encodable {
            if q.iter().any(|c| !c.is_finite()) {
                return Err(format!("quaternion {} has a component that is not finite", quat_text(q)));
            }
            return Err(format!("quaternion {} is not unit length (norm {}): normalise it", quat_text(q), go_g4(n2.sqrt())));
        }
        Ok(q_encode(q, ((1u32 << s.bits) - 2) as f32))
    }

    /// Reads a quaternion's code, refusing codes above M = 2^bits - 2 and
    /// codes that are not canonical at bit.
    fn quat_bits(r: &mut Reader, s: &S, bit: u64) -> Res<(usize, [u32; 3], [f32; 4])> {
        let l = r.bits(2)? as usize;
        let mut c = [0u32; 3];
        for x in c.iter_mut() {
            *x = r.bits(s.bits)? as u32;
        }
        let m = (1u32 << s.bits) - 2;
        if let Some(big) = c.iter().find(|&&x| x > m) {
            return Err(range(bit, format!("quaternion component code {} out of range [0, {}]", big, m)));
        }
        let (q, ok) = q_decode(l, c, m as f32);
        if !ok {
            let back = (1..4).fold(0, |b, i| if q[i].abs() >= q[b].abs() { i } else { b });
            let m = format!("quaternion code (index {}, codes {} {} {}) is not canonical: it decodes to {}, which encodes with index {}", l, c[0], c[1], c[2], quat_text(q), back);
            return Err(range(bit, m));
        }
        Ok((l, c, q))
    }

    fn quat_put<T: Wire>(x: &mut T, s: &S, q: [f32; 4]) { (0..4).for_each(|k| x.set_float(s.comps[k], q[k] as f64)); }

    pub fn quat_read<T: Wire>(x: &mut T, r: &mut Reader, s: &S) -> Res {
        let (_, _, q) = quat_bits(r, s, r.pos())?;
        quat_put(x, s, q);
        Ok(())
    }

    fn quat_emit(w: &mut Writer, s: &S, (l, c): (usize, [u32; 3])) {
        w.bits(l as u64, 2);
        c.iter().for_each(|&c| w.bits(c as u64, s.bits));
    }

    pub fn quat_write<T: Wire>(x: &T, w: &mut Writer, s: &S) -> Res {
        let code = quat_code(x, s).map_err(|m| w.fail(&m))?;
        quat_emit(w, s, code);
        Ok(())
    }

    pub fn quat_dread<T: Wire>(x: &mut T, r: &mut Reader, s: &S, start: u64) -> Res {
        let (l, c, q) = quat_bits(r, s, start)?;
        let old = quat_code(x, s).map_err(|m| range(start, format!("base value: {}", m)))?;
        if old == (l, c) {
            return Err(unchanged(start));
        }
        quat_put(x, s, q);
        Ok(())
    }

    pub fn quat_dwrite<T: Wire>(x: &T, b: &T, w: &mut Writer, s: &S) -> Res<bool> {
        let code = quat_code(x, s).map_err(|m| w.fail(&m))?;
        if code == quat_code(b, s).map_err(|m| w.fail(&format!("base value: {}", m)))? {
            return Ok(false);
        }
        quat_emit(w, s, code);
        Ok(true)
    }

    /// A check: align, then the 32-bit hash of its name.
    pub fn check_read(r: &mut Reader, s: &S) -> Res {
        let start = r.pos();
        r.align()?;
        let v = r.bits(32)?;
        if v != s.limit {
            let m = format!("check {} read {:#010x}, want {:#010x}: reader and writer disagree before this point", go_quote(s.text), v, s.limit);
            return Err(Error::new(Check, start, m));
        }
        Ok(())
    }

    pub fn check_write(w: &mut Writer, s: &S) -> Res {
        w.align();
        w.bits(s.limit, 32);
        Ok(())
    }

    /// A union's type index, refused when no member has it: the member's
    /// position, and where the index starts.
    pub fn union_index(r: &mut Reader, s: &S) -> Res<(usize, u64)> {
        let start = r.pos();
        let v = r.bits(s.bits)?;
        if let Some(i) = s.indices.iter().position(|&x| x == v) {
            return Ok((i, start));
        }
        if s.indices.iter().enumerate().all(|(i, &x)| x == i as u64) {
            return Err(range(start, format!("union index {} out of range [0, {}]", v, s.indices.len() - 1)));
        }
        let known: Vec<String> = s.indices.iter().map(|x| x.to_string()).collect();
        Err(range(start, format!("union index {} names no member ({})", v, known.join(", "))))
    }

    /// Charges a union's member i (whole), read at bit.
    pub fn member_charge(r: &mut Reader, s: &S, i: usize, bit: u64) -> Res {
        r.charge(s.members[i].work, round(s.members[i].bytes), 1, s.members[i].bytes, bit)
    }

    pub fn union_write(w: &mut Writer, s: &S, i: usize) {
        w.bits(s.indices[i], s.bits);
        w.charge(s.members[i].work, round(s.members[i].bytes));
    }

    /// The Rust of a Go type that encodes itself (MarshalBits and
    /// UnmarshalBits), which no generator can translate: yours to write,
    /// reading and writing the same bits as the Go code (r.bits, w.bits;
    /// r.refuse and w.refuse for what the Go code refuses).
    pub trait Hook: Clone + Default {
        fn read(r: &mut Reader) -> Res<Self>;
        fn write(&self, w: &mut Writer) -> Res;
    }

    /// A hook call, charged first (1 value, the value and HOOK_CALL bytes); the
    /// hook's refusal is at its start.
    pub fn hook_read<T: Hook>(r: &mut Reader, s: &S) -> Res<T> {
        let start = r.pos();
        r.charge(1, round(s.bytes) + HOOK_CALL, 1, s.bytes + HOOK_CALL, start)?;
        T::read(r).map_err(|e| Error { bit: if e.message.starts_with("hook refused the value: ") { start } else { e.bit }, ..e })
    }

    pub fn hook_write<T: Hook>(x: &T, w: &mut Writer, s: &S) -> Res {
        w.charge(1, round(s.bytes) + HOOK_CALL);
        x.write(w)
    }

    /// The bits a hook value writes, in a writer of their own.
    fn hook_bits<T: Hook>(x: &T) -> Res<Writer> {
        let mut w = Writer::new();
        x.write(&mut w).map(|_| w)
    }

    /// A changed hook value: refused when the bits it writes on its own
    /// are the base's, as Go compares them (its bits in the packet can
    /// differ when the hook aligns); a value that cannot be written is a
    /// change.
    pub fn hook_dread<T: Hook>(x: &mut T, r: &mut Reader, s: &S, start: u64) -> Res {
        let old = hook_bits(x).map_err(|e| range(start, format!("base value: {}", e.message)))?;
        let v = hook_read(r, s)?;
        if same_bits(&v, &old) {
            return Err(unchanged(start));
        }
        *x = v;
        Ok(())
    }

    /// A hook value written after its changed bit: whether it differs from
    /// the base's, both written on their own, as Go compares them. A value
    /// equal to the base's is unchanged and not written, as Go's, equal in
    /// memory, is (one its hook refuses included).
    pub fn hook_dwrite<T: Hook + PartialEq>(x: &T, b: &T, w: &mut Writer, s: &S) -> Res<bool> {
        if x == b {
            return Ok(false);
        }
        hook_write(x, w, s)?;
        let old = hook_bits(b).map_err(|e| w.fail(&format!("base value: {}", e.message)))?;
        Ok(!same_bits(x, &old))
    }

    /// Whether x writes, on its own, the bits old holds (a value that
    /// cannot be written does not).
    fn same_bits<T: Hook>(x: &T, old: &Writer) -> bool {
        match hook_bits(x) {
            Ok(now) => now.same_since(0, old),
            Err(_) => false,
        }
    }

    /// A generated struct type: its steps and Go name.
    pub trait Root: Wire {
        const NAME: &'static str;
        fn step() -> &'static S;
    }

    /// bitpack.Unmarshal: a whole packet, trailing bytes refused.
    pub fn read<T: Root>(p: &[u8]) -> Res<T> {
        let (s, mut r, mut v) = (T::step(), Reader::new(p), T::zero());
        r.charge(s.work, 0, 1, s.bytes, 0).and_then(|_| v.read(&mut r, s)).and_then(|_| r.finish()).map_err(|e| e.of("decode", T::NAME))?;
        Ok(v)
    }

    /// bitpack.Marshal: refuses what it refuses, the decode allowances of
    /// the packet included (a decode of what was written finds the charge
    /// that refuses it).
    pub fn write<T: Root>(v: &T) -> Res<Vec<u8>> {
        let (s, mut w) = (T::step(), Writer::new());
        w.charge(s.work, 0);
        v.write(&mut w, s).map_err(|e| e.of("encode", T::NAME))?;
        match (w.over(false), w.into_bytes()) {
            (None, p) => Ok(p),
            (_, p) => Err(read::<T>(&p).err().unwrap_or_else(|| range(0, "bitpack: past the allowances".into())).of("encode", T::NAME)),
        }
    }

    /// bitpack.UnmarshalDelta: base with the delta applied, a new value;
    /// base is not changed.
    pub fn read_delta<T: Root>(p: &[u8], base: &T) -> Res<T> {
        let (s, mut r, mut v) = (T::step(), Reader::new(p), base.clone());
        let changed = r.bits(1).map(|b| b == 1);
        match changed.and_then(|c| Ok(!c || v.items_read(&mut r, s, s.items > 1)?)) {
            Ok(true) => r.finish().map(|_| v),
            Ok(false) => Err(unchanged(0)),
            Err(e) => Err(e),
        }
        .map_err(|e| e.of("decode", T::NAME))
    }

    /// bitpack.AppendDelta's bytes: v against base.
    pub fn write_delta<T: Root>(v: &T, base: &T) -> Res<Vec<u8>> {
        let (s, mut w) = (T::step(), Writer::new());
        w.bits(1, 1);
        if std::ptr::eq(v, base) || !v.items_write(base, &mut w, s, s.items > 1).map_err(|e| e.of("encode", T::NAME))? {
            w = Writer::new();
            w.bits(0, 1);
        }
        match w.over(true) {
            Some(m) => Err(range(w.pos(), m).of("encode", T::NAME)),
            None => Ok(w.into_bytes()),
        }
    }

    // Go's words for numbers in bitpack's messages (%v of floats, %.4g,
    // time.Duration's String), so that errors read as the Go side's.

    /// v as Go's %v prints a float64 (single: a float32).
    pub fn go_float(v: f64, single: bool) -> String {
        match v {
            _ if v.is_nan() => "NaN".into(),
            _ if v.is_infinite() => if v > 0.0 { "+Inf" } else { "-Inf" }.into(),
            _ if v == 0.0 => if v.is_sign_negative() { "-0" } else { "0" }.into(),
            _ => {
                let (d, dp) = shortest(v.abs(), single);
                layout(v < 0.0, &d, dp, d.len(), true)
            }
        }
    }

    /// v as Go's %.4g prints it: 4 significant digits, half to even.
    pub fn go_g4(v: f64) -> String {
        if !v.is_finite() || v == 0.0 {
            return go_float(v, false);
        }
        let (d, dp) = exact(v);
        let (d, dp) = round_to(&d, dp, 4);
        layout(v < 0.0, &d, dp, 4, false)
    }

    /// The exact decimal digits of |v| (finite, not zero), trailing zeros
    /// trimmed, and dp: |v| = 0.digits × 10^dp.
    fn exact(v: f64) -> (Vec<u8>, i32) {
        let e = format!("{:.800e}", v.abs());
        let (m, x) = e.split_once('e').unwrap_or((&e, "0"));
        let d: Vec<u8> = m.bytes().filter(u8::is_ascii_digit).collect();
        (trim(d), x.parse::<i32>().unwrap_or(0) + 1)
    }

    fn trim(mut d: Vec<u8>) -> Vec<u8> {
        while d.len() > 1 && d[d.len() - 1] == b'0' {
            d.pop();
        }
        d
    }

    /// Digits d (of 0.d × 10^dp) rounded to p, half to even.
    fn round_to(d: &[u8], dp: i32, p: usize) -> (Vec<u8>, i32) {
        if d.len() <= p {
            return (d.to_vec(), dp);
        }
        let mut k = d[..p].to_vec();
        if d[p] > b'5' || d[p] == b'5' && (d[p + 1..].iter().any(|&c| c > b'0') || d[p - 1] % 2 == 1) {
            match k.iter().rposition(|&c| c != b'9') {
                Some(i) => {
                    k[i] += 1;
                    k.truncate(i + 1);
                }
                None => return (vec![b'1'], dp + 1),
            }
        }
        (trim(k), dp)
    }

    fn reads_back(d: &[u8], dp: i32, v: f64, single: bool) -> bool {
        let s = format!("0.{}e{}", String::from_utf8_lossy(d), dp);
        if single {
            s.parse::<f32>() == Ok(v as f32)
        } else {
            s.parse::<f64>() == Ok(v)
        }
    }

    /// Go's shortest digits of v (positive): the fewest that read back as
    /// v (as a float32 when single); of two such, the nearer, a tie going to
    /// the even digit, or up where the gap below is half the gap above (a
    /// power of two), as Go's algorithm does.
    fn shortest(v: f64, single: bool) -> (Vec<u8>, i32) {
        let (d, dp) = exact(v);
        let pow2 = if single { (v as f32).to_bits() & 0x7f_ffff == 0 } else { v.to_bits() & 0xf_ffff_ffff_ffff == 0 };
        for p in 1..d.len().min(if single { 10 } else { 18 }) {
            let down = trim(d[..p].to_vec());
            let (up, up_dp) = round_to(&[&d[..p], b"9"].concat(), dp, p);
            let (mut down_ok, up_ok) = (reads_back(&down, dp, v, single), reads_back(&up, up_dp, v, single));
            if down_ok && up_ok {
                let rest = &d[p..];
                down_ok = match rest {
                    [b'5'] => !(pow2 && (single || v != 2f64.powi(-25))) && d[p - 1] % 2 == 0,
                    _ => !(rest[0] > b'5' || rest[0] == b'5' && rest.len() > 1),
                };
            }
            if down_ok {
                return (down, dp);
            }
            if up_ok {
                return (up, up_dp);
            }
        }
        (d, dp)
    }

    /// Go's %g of the digits (0.digits × 10^dp): %e when the exponent is
    /// below -4 or at least the precision (6 in shortest form), else %f.
    fn layout(neg: bool, d: &[u8], dp: i32, prec: usize, short: bool) -> String {
        let (d, nd) = (String::from_utf8_lossy(d), d.len() as i32);
        let mut eprec = prec as i32;
        if eprec > nd && nd >= dp {
            eprec = nd;
        }
        if short {
            eprec = 6;
        }
        let (exp, sign) = (dp - 1, if neg { "-" } else { "" });
        if exp < -4 || exp >= eprec {
            let frac = if nd > 1 { format!(".{}", &d[1..]) } else { String::new() };
            return format!("{}{}{}e{}{:02}", sign, &d[..1], frac, if exp < 0 { '-' } else { '+' }, exp.abs());
        }
        let int = if dp > 0 { format!("{}{}", &d[..dp.min(nd) as usize], "0".repeat((dp - nd).max(0) as usize)) } else { "0".into() };
        let frac = if nd > dp { format!(".{}{}", "0".repeat((-dp).max(0) as usize), &d[dp.max(0) as usize..]) } else { String::new() };
        format!("{}{}{}", sign, int, frac)
    }

    /// A time.Duration (nanoseconds) as Go prints it: 1.5s, 1m0.25s, 750µs.
    pub fn duration_text(d: i128) -> String {
        let mut u = d.abs();
        let frac = |u: &mut i128, prec: usize| {
            let mut s = String::new();
            for _ in 0..prec {
                if !s.is_empty() || *u % 10 != 0 {
                    s.insert(0, (b'0' + (*u % 10) as u8) as char);
                }
                *u /= 10;
            }
            if s.is_empty() { s } else { format!(".{}", s) }
        };
        let text = if u < 1_000_000_000 {
            if u == 0 {
                return "0s".into();
            }
            let (prec, unit) = if u < 1000 { (0, "ns") } else if u < 1_000_000 { (3, "µs") } else { (6, "ms") };
            let f = frac(&mut u, prec);
            format!("{}{}{}", u, f, unit)
        } else {
            let f = frac(&mut u, 9);
            let (s, m, h) = (u % 60, u / 60 % 60, u / 3600);
            match (h, m) {
                (0, 0) => format!("{}{}s", s, f),
                (0, _) => format!("{}m{}{}s", m, s, f),
                _ => format!("{}h{}m{}{}s", h, m, s, f),
            }
        };
        if d < 0 { format!("-{}", text) } else { text }
    }

    /// Whether Go's strconv.IsPrint accepts c: ranges of printable code
    /// points, each as its distance from the end of the one before and
    /// its length minus one, in hex (from the Go that generated this file).
    fn printable(c: u32) -> bool {
        let mut end = 0;
        let mut it = "{{PRINTABLE}}".split(',').map(|h| u32::from_str_radix(h, 16).unwrap_or(0));
        while let (Some(gap), Some(len)) = (it.next(), it.next()) {
            if c < end + gap {
                return false;
            }
            end += gap + len;
            if c <= end {
                return true;
            }
        }
        false
    }

    /// s as Go's strconv.Quote writes it.
    pub fn go_quote(s: &str) -> String {
        let mut out = String::from("\"");
        for ch in s.chars() {
            let c = ch as u32;
            match ch {
                '"' | '\\' => out.extend(['\\', ch]),
                _ if printable(c) => out.push(ch),
                '\x07' => out.push_str("\\a"),
                '\x08' => out.push_str("\\b"),
                '\x0c' => out.push_str("\\f"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\x0b' => out.push_str("\\v"),
                _ if c < 0x20 || c == 0x7f => out.push_str(&format!("\\x{:02x}", c)),
                _ if c < 0x10000 => out.push_str(&format!("\\u{:04x}", c)),
                _ => out.push_str(&format!("\\U{:08x}", c)),
            }
        }
        out + "\""
    }

    /// The CRC-32 (IEEE) of p, continued from crc.
    pub fn crc32(crc: u32, p: &[u8]) -> u32 {
        !p.iter().fold(!crc, |c, &b| (0..8).fold(c ^ b as u32, |c, _| (c >> 1) ^ (0xedb8_8320 & (c & 1).wrapping_neg())))
    }

    fn frame_crc(id: u32, payload: &[u8]) -> u32 {
        let mut head = id.to_le_bytes().to_vec();
        head.extend([0; 4]);
        crc32(crc32(0, &head), payload)
    }

    /// bitpack.Seal: the CRC-32 of the protocol id's 4 little-endian bytes,
    /// four zero bytes and the payload, little-endian, then the payload.
    /// Mix a type's fingerprint into the id as the Go side does. A CRC
    /// catches accidents and foreign traffic, not attackers.
    pub fn seal(protocol_id: u32, payload: &[u8]) -> Vec<u8> {
        let mut p = frame_crc(protocol_id, payload).to_le_bytes().to_vec();
        p.extend_from_slice(payload);
        p
    }

    /// bitpack.Open: the payload of a sealed packet, or None when it is
    /// shorter than 4 bytes or its CRC does not match.
    pub fn open(protocol_id: u32, packet: &[u8]) -> Option<&[u8]> {
        let (crc, payload) = (packet.get(..4)?, &packet[4..]);
        (crc == frame_crc(protocol_id, payload).to_le_bytes()).then_some(payload)
    }


    /// How a Rust type travels by its step s: read into a fresh value
    /// (zero()) and written, whole and as a delta (docs/wire.md). A fixed
    /// width value (bool, integer, float) travels as its offset code: the
    /// provided methods. Errors leave here without the field's path, which
    /// the callers add on the way out.
    pub trait Wire: Clone {
        fn zero() -> Self;
        fn read(&mut self, r: &mut Reader, s: &S) -> Res {
            let start = r.pos();
            let c = r.bits(s.bits)? ^ s.flip;
            valid(c, s, start)?;
            self.set_code(c, s);
            Ok(())
        }
        fn write(&self, w: &mut Writer, s: &S) -> Res {
            let c = self.code(s).map_err(|m| w.fail(&m))?;
            w.bits(c ^ s.flip, s.bits);
            Ok(())
        }
        /// Applies the item's part (its changed bit read; the item starts
        /// at start) to self, which holds the base's value.
        fn dread(&mut self, r: &mut Reader, s: &S, start: u64) -> Res {
            let old = self.code(s).map_err(|m| range(start, format!("base value: {}", m)))?;
            let c = delta_code(r, old, s, start)?;
            valid(c, s, start)?;
            self.set_code(c, s);
            Ok(())
        }
        /// Writes self's part against the base's value b and reports
        /// whether it differs (if not, the caller takes back what it wrote).
        fn dwrite(&self, b: &Self, w: &mut Writer, s: &S) -> Res<bool> {
            if self.same(b) {
                return Ok(false);
            }
            let cv = self.code(s).map_err(|m| w.fail(&m))?;
            let cb = b.code(s).map_err(|m| w.fail(&format!("base value: {}", m)))?;
            let (d, h) = (cv as i128 - cb as i128, 1i128 << s.short.max(1) >> 1);
            match () {
                _ if cv == cb => return Ok(false),
                _ if s.bits == 1 => {}
                _ if s.short > 0 && -h <= d && d <= h => {
                    w.bits(0, 1);
                    w.bits((if d < 0 { d + h } else { d + h - 1 }) as u64, s.short);
                }
                _ => {
                    w.bits(1, (s.short > 0) as u32);
                    w.bits(cv ^ s.flip, s.bits);
                }
            }
            Ok(true)
        }
        /// The value's delta items (a struct's fields', flattened; any other
        /// value is one item or none), each after a changed bit when bit.
        fn items_read(&mut self, r: &mut Reader, s: &S, bit: bool) -> Res<bool> { item_read(self, r, s, bit) }
        fn items_write(&self, b: &Self, w: &mut Writer, s: &S, bit: bool) -> Res<bool> { item_write(self, b, w, s, bit) }
        /// A fixed-width value's offset code, or why it has none.
        fn code(&self, _: &S) -> Result<u64, String> { Err("bitpack: no code".into()) }
        fn set_code(&mut self, _: u64, _: &S) {}
        /// Whether a fixed-width value is the other, bit for bit.
        fn same(&self, _: &Self) -> bool { false }
        /// The float at p (a quaternion component's place) within self.
        fn float(&self, _: &[u16]) -> f64 { 0.0 }
        fn set_float(&mut self, _: &[u16], _: f64) {}
        /// A map key as Go's error paths print it.
        fn key_text(&self) -> String { String::new() }
        /// The listed slots of a sparse array or slice (of Option<Box<T>>),
        /// into a, the base's (empty, for a full read); reports whether it
        /// listed one.
        fn sparse_read(_: &mut [Self], _: &mut Reader, _: &S) -> Res<bool> { Ok(false) }
        /// Writes the list of slots of a that changed from b's (every slot
        /// there, against no base).
        fn sparse_write(_: &[Self], _: &[Self], _: &mut Writer, _: &S) -> Res<bool> { Ok(false) }
    }

    /// Refuses a code read above its limit, in bitpack's words for its kind.
    fn valid(c: u64, s: &S, bit: u64) -> Res {
        match () {
            _ if c <= s.limit => Ok(()),
            _ if s.op == Op::Comp => Err(range(bit, format!("compressed float code {} out of range [0, {}]", c, s.limit))),
            _ if s.signed => Err(range(bit, format!("value {} out of range [{}, {}]", (s.lo + c as i128) as i64, s.lo, s.hi))),
            _ => Err(range(bit, format!("value {} out of range [{}, {}]", (s.lo + c as i128) as u64, s.lo, s.hi))),
        }
    }

    pub fn unchanged(bit: u64) -> Error { range(bit, "the delta marks the value changed but it is the base's (not canonical)".into()) }

    /// Reads the change of a fixed-width value from offset code old: for
    /// one bit, the other code; else the new code whole (after a 1 when
    /// there is a short form), or a 0 and the difference in s.short bits.
    fn delta_code(r: &mut Reader, old: u64, s: &S, start: u64) -> Res<u64> {
        let h = 1u64 << s.short.max(1) >> 1;
        let c = if s.bits == 1 {
            old ^ 1
        } else if s.short == 0 || r.bits(1)? == 1 {
            let c = r.bits(s.bits)? ^ s.flip;
            if s.short > 0 && c != old && c <= s.limit && c.abs_diff(old) <= h {
                return Err(range(start, format!("code {} is within {} of the base's {}: the short form carries it (not canonical)", c, h, old)));
            }
            c
        } else {
            let e = r.bits(s.short)? as i128;
            let d = if e < h as i128 { e - h as i128 } else { e - h as i128 + 1 };
            let c = old as i128 + d;
            if c < 0 || c > s.limit as i128 {
                let sign = if d < 0 { "-" } else { "+" };
                return Err(range(start, format!("change {}{} from code {} leaves the range [0, {}]", sign, d.abs(), old, s.limit)));
            }
            c as u64
        };
        if c == old {
            return Err(unchanged(start));
        }
        Ok(c)
    }

    /// One item: its changed bit (when bit), and its part when it changed.
    pub fn item_read<T: Wire>(x: &mut T, r: &mut Reader, s: &S, bit: bool) -> Res<bool> {
        let start = r.pos();
        if s.items == 0 || bit && r.bits(1)? == 0 {
            return Ok(false);
        }
        x.dread(r, s, start)?;
        Ok(true)
    }

    pub fn item_write<T: Wire>(x: &T, b: &T, w: &mut Writer, s: &S, bit: bool) -> Res<bool> {
        if s.items == 0 {
            return Ok(false);
        }
        let mark = w.mark();
        w.bits(1, bit as u32);
        if x.dwrite(b, w, s)? {
            return Ok(true);
        }
        w.back(mark);
        w.bits(0, bit as u32);
        Ok(false)
    }

    /// The body of an element, a pointee, a member or a map value: its
    /// items, which must change something (refused at at, or where the
    /// body starts).
    pub fn body_read<T: Wire>(x: &mut T, r: &mut Reader, s: &S, at: Option<u64>) -> Res {
        let start = r.pos();
        match x.items_read(r, s, s.items > 1)? {
            true => Ok(()),
            false => Err(unchanged(at.unwrap_or(start))),
        }
    }

    pub fn body_write<T: Wire>(x: &T, b: &T, w: &mut Writer, s: &S) -> Res<bool> { x.items_write(b, w, s, s.items > 1) }

    impl Wire for bool {
        fn zero() -> bool { false }
        fn code(&self, _: &S) -> Result<u64, String> { Ok(*self as u64) }
        fn set_code(&mut self, c: u64, _: &S) { *self = c == 1; }
        fn same(&self, b: &bool) -> bool { self == b }
        fn key_text(&self) -> String { self.to_string() }
    }

    /// An integer's offset code: its value v in units, rounded half away
    /// from zero (a counted duration is its count of units already), minus
    /// lo; refused (or, with clamp, moved to the nearer bound) outside
    /// lo..hi.
    fn int_code(v: i128, s: &S) -> Result<u64, String> {
        let (q, r) = (v / s.unit.max(1), (v % s.unit.max(1)).abs());
        let u = if s.counted { v } else if s.unit > 1 && r >= s.unit - r { q + v.signum() } else { q };
        if (u < s.lo || u > s.hi) && !s.clamp {
            return Err(match () {
                {{TIME_REFUSAL}}
                // Go words the duration the count stands for, when it has one.
                _ if s.counted => {
                    let ns = v * s.unit;
                    let value = if i64::try_from(ns).is_ok() { duration_text(ns) } else { format!("{} × {}", v, s.text) };
                    format!("value {} is {} units of {}, out of range [{}, {}]", value, u, s.text, s.lo, s.hi)
                }
                _ if s.unit > 1 => {
                    let value = if s.duration { duration_text(v) } else { v.to_string() };
                    format!("value {} is {} units of {}, out of range [{}, {}]", value, u, s.text, s.lo, s.hi)
                }
                _ if s.ranged => format!("value {} out of range [{}, {}]", v, s.lo, s.hi),
                _ if s.signed => format!("value {} does not fit in {} bits (range [{}, {}])", v, s.bits, s.lo, s.hi),
                _ => format!("value {} does not fit in {} bits", v, s.bits),
            });
        }
        Ok((u.max(s.lo).min(s.hi) - s.lo) as u64)
    }

    macro_rules! ints {
        ($($t:ty),*) => {$(
            impl Wire for $t {
                fn zero() -> $t { 0 }
                fn code(&self, s: &S) -> Result<u64, String> { int_code(*self as i128, s) }
                fn set_code(&mut self, c: u64, s: &S) { *self = ((s.lo + c as i128) * if s.counted { 1 } else { s.unit.max(1) }) as $t; }
                fn same(&self, b: &$t) -> bool { self == b }
                fn key_text(&self) -> String { self.to_string() }
            }
        )*};
    }
    ints!(u8, u16, u32, u64, i8, i16, i32, i64);

    /// Refuses a compressed float outside its bounds (unless clamped) or
    /// not finite.
    fn bounded(v: f64, s: &S) -> Result<(), String> {
        match () {
            _ if v >= s.flo && v <= s.fhi || s.clamp && v.is_finite() => Ok(()),
            _ if !v.is_finite() => Err(format!("value {} cannot be quantized (NaN and ±Inf are never encoded)", go_float(v, false))),
            _ => Err(format!("value {} out of range {} (add clamp to the tag to clamp instead)", go_float(v, false), s.text)),
        }
    }

    impl Wire for f32 {
        fn zero() -> f32 { 0.0 }
        fn code(&self, s: &S) -> Result<u64, String> {
            let v = *self;
            if s.op == Op::Float {
                return Ok(v.to_bits() as u64);
            }
            bounded(v as f64, s)?;
            // quant.Float's Quantize: every step rounded to float32.
            let n = (v - s.min as f32) / s.delta as f32;
            let n = if n > 0.0 { n.min(1.0) } else { 0.0 };
            Ok((((n * s.limit as f32) + 0.5) as i64 as u64).min(s.limit))
        }
        fn set_code(&mut self, c: u64, s: &S) {
            *self = if s.op == Op::Float { f32::from_bits(c as u32) } else { c as f32 / s.limit as f32 * s.delta as f32 + s.min as f32 };
        }
        fn same(&self, b: &f32) -> bool { self.to_bits() == b.to_bits() }
        fn float(&self, _: &[u16]) -> f64 { *self as f64 }
        fn set_float(&mut self, _: &[u16], v: f64) { *self = v as f32; }
    }

    impl Wire for f64 {
        fn zero() -> f64 { 0.0 }
        fn code(&self, s: &S) -> Result<u64, String> {
            let v = *self;
            if s.op == Op::Float {
                return Ok(v.to_bits());
            }
            bounded(v, s)?;
            let n = (v - s.min) / s.delta;
            let f = ((if n > 0.0 { n.min(1.0) } else { 0.0 }) * s.limit as f64 + 0.5).floor();
            Ok(if f >= s.limit as f64 { s.limit } else { f as u64 })
        }
        fn set_code(&mut self, c: u64, s: &S) {
            *self = if s.op == Op::Float { f64::from_bits(c) } else { c as f64 / s.limit as f64 * s.delta + s.min };
        }
        fn same(&self, b: &f64) -> bool { self.to_bits() == b.to_bits() }
        fn float(&self, _: &[u16]) -> f64 { *self }
        fn set_float(&mut self, _: &[u16], v: f64) { *self = v; }
    }

    /// A string or byte block's length: s.bits bits, at most s.len.
    fn length(r: &mut Reader, s: &S, start: u64) -> Res<usize> {
        match r.bits(s.bits)? {
            n if n > s.len as u64 => Err(range(start, format!("length {} exceeds maxlen {}", n, s.len))),
            n => Ok(n as usize),
        }
    }

    /// Aligns, then takes n whole bytes, refused at bit (or after the
    /// align) when they are not there: in bytes, or in bits.
    fn take<'a>(r: &mut Reader<'a>, n: usize, bit: Option<u64>, bits: bool) -> Res<&'a [u8]> {
        r.align()?;
        if n as u64 > r.left() / 8 {
            let m = if bits { format!("needs {} bits, {} remain", 8 * n, r.left()) } else { format!("needs {} bytes, {} remain", n, r.left() / 8) };
            return Err(Error::new(Overflow, bit.unwrap_or(r.pos), m));
        }
        r.pos += 8 * n as u64;
        Ok(&r.p[(r.pos / 8) as usize - n..(r.pos / 8) as usize])
    }

    /// A string: its length, align, the bytes, UTF-8 without NUL.
    fn text(r: &mut Reader, s: &S) -> Res<String> {
        let start = r.pos();
        let n = length(r, s, start)?;
        let b = take(r, n, None, false)?;
        match text_problem(b) {
            Some(m) => Err(Error::new(InvalidString, start, m)),
            None => Ok(String::from_utf8_lossy(b).into_owned()),
        }
    }

    impl Wire for String {
        fn zero() -> String { String::new() }
        fn read(&mut self, r: &mut Reader, s: &S) -> Res {
            let start = r.pos();
            *self = text(r, s)?;
            r.charge(0, round(self.len() as i128), 1, self.len() as i128, start)
        }
        fn write(&self, w: &mut Writer, s: &S) -> Res {
            if self.len() > s.len {
                return Err(w.fail(&format!("string of {} bytes exceeds maxlen {}", self.len(), s.len)));
            }
            if let Some(m) = text_problem(self.as_bytes()) {
                return Err(Error::new(InvalidString, w.pos(), m));
            }
            w.bits(self.len() as u64, s.bits);
            w.align();
            self.bytes().for_each(|b| w.bits(b as u64, 8));
            w.charge(0, round(self.len() as i128));
            Ok(())
        }
        fn dread(&mut self, r: &mut Reader, s: &S, start: u64) -> Res {
            let v = text(r, s)?;
            if v == *self {
                return Err(unchanged(start));
            }
            r.charge(0, round(v.len() as i128), 1, v.len() as i128, start)?;
            *self = v;
            Ok(())
        }
        fn dwrite(&self, b: &String, w: &mut Writer, s: &S) -> Res<bool> {
            Ok(self != b && self.write(w, s).map(|_| true)?)
        }
        fn key_text(&self) -> String { go_quote(self) }
    }

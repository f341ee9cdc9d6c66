// ---------------------------------------------------------------------------
// bitpack's wire in Rust (edition 2021, std only, no unsafe): every module
// bitpack generates carries this runtime as its module `wire`. Bits are
// packed least significant first, as serialize packs them. Each generated
// type lists how its fields travel in steps (S, gen's model), and the
// trait Wire reads and writes each Rust type by its step.
#[macro_use]
#[allow(dead_code, unused_macros)]
pub mod wire {
    use std::collections::BTreeMap;
    use std::fmt;

    /// What kind of refusal an Error is: the Go side's sentinel errors,
    /// and the snapshot Receiver's ErrNoBase.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum ErrorKind { Overflow, Range, Padding, InvalidString, Check, Trailing, NoBase }
    use ErrorKind::*;

    /// A refused packet or value: the field path as bitpack's errors name
    /// it (Go's field names and indices), the bit where the refused field
    /// starts in the packet being read or written, and what is wrong.
    /// Display words it as bitpack does.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Error {
        pub path: String,
        pub bit: u64,
        pub message: String,
        kind: ErrorKind,
        op: &'static str,
        ty: &'static str,
    }

    impl Error {
        /// A refusal at bit (the path and the type are added on the way out).
        pub fn new(kind: ErrorKind, bit: u64, message: String) -> Error {
            Error { path: String::new(), bit, message, kind, op: "", ty: "" }
        }
        pub fn kind(&self) -> ErrorKind { self.kind }
        /// The error inside the field or element seg: Go's path joining.
        pub fn at(mut self, seg: &str) -> Error {
            let dot = !self.path.is_empty() && !seg.is_empty() && !self.path.starts_with(['[', '(']);
            self.path = format!("{}{}{}", seg, if dot { "." } else { "" }, self.path);
            self
        }
        pub(crate) fn of(mut self, op: &'static str, ty: &'static str) -> Error {
            (self.op, self.ty) = (op, ty);
            self
        }
    }

    impl fmt::Display for Error {
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
            if self.op.is_empty() {
                return f.write_str(&self.message);
            }
            write!(f, "bitpack: {} {}: ", self.op, self.ty)?;
            match (self.path.is_empty(), self.op == "decode") {
                (false, true) => write!(f, "field {} at bit {}: ", self.path, self.bit)?,
                (false, false) => write!(f, "field {}: ", self.path)?,
                (true, true) => write!(f, "at bit {}: ", self.bit)?,
                _ => {}
            }
            f.write_str(&self.message)
        }
    }

    impl std::error::Error for Error {}

    pub type Res<T = ()> = Result<T, Error>;

    pub fn range(bit: u64, message: String) -> Error { Error::new(Range, bit, message) }

    // The decode allowances (docs/wire.md, "Limits of the Go decoder"),
    // package rules' numbers: a decode of b bits may visit WORK_BASE +
    // WORK_PER_BIT·b values and allocate BYTES_BASE + BYTES_PER_BIT·b bytes,
    // having spent OVERHEAD when it starts; figures saturate at SAT; the
    // words cap them at FIGURE.
    pub(crate) const WORK_BASE: i128 = {{ALLOW_WORK_BASE}};
    pub(crate) const WORK_PER_BIT: i128 = {{ALLOW_WORK_PER_BIT}};
    pub(crate) const BYTES_BASE: i128 = {{ALLOW_BYTES_BASE}};
    pub(crate) const BYTES_PER_BIT: i128 = {{ALLOW_BYTES_PER_BIT}};
    pub(crate) const OVERHEAD: i128 = {{ALLOW_OVERHEAD}};
    /// What a hook call costs besides its value.
    pub(crate) const HOOK_CALL: i128 = {{ALLOW_HOOK_CALL}};
    /// A map of n entries takes MAP_HEADER + MAP_SLOT_FACTOR·n·slot bytes.
    pub(crate) const MAP_HEADER: i128 = {{ALLOW_MAP_HEADER}};
    pub(crate) const MAP_SLOT_FACTOR: i128 = {{ALLOW_MAP_SLOT_FACTOR}};
    /// n sparse slots visit ⌈n / SLOTS_PER_VALUE⌉ values, SLOT_BYTES each.
    pub(crate) const SLOTS_PER_VALUE: i128 = {{ALLOW_SLOTS_PER_VALUE}};
    pub(crate) const SLOT_BYTES: i128 = {{ALLOW_SLOT_BYTES}};
    const SAT: i128 = {{SATURATED}};
    const FIGURE: i128 = {{MAX_FIGURE}};

    pub fn sat(n: i128) -> i128 { n.min(SAT) }

    /// Go's allocation rounding of n bytes, as bitpack charges it.
    pub fn round(n: i128) -> i128 {
        match n {
            _ if n <= 0 => 0,
            _ if n <= {{ALLOC_SMALL}} => {{ALLOC_SMALL}},
            _ => {
                let step = if n > {{ALLOC_CLASS_LIMIT}} { {{ALLOC_PAGE}} } else { 1 << (126 - n.leading_zeros()) };
                sat(n + step - 1) & !(step - 1)
            }
        }
    }

    /// Reads bitpack's bits from a packet, and keeps what the decode has
    /// spent of its allowances.
    pub struct Reader<'a> {
        p: &'a [u8],
        pos: u64,
        end: u64,
        work: i128,
        wmax: i128,
        mem: i128,
        mmax: i128,
    }

    impl<'a> Reader<'a> {
        pub fn new(p: &'a [u8]) -> Reader<'a> {
            let b = 8 * p.len() as i128;
            Reader { p, pos: 0, end: 8 * p.len() as u64, work: 0, wmax: WORK_BASE + WORK_PER_BIT * b, mem: OVERHEAD, mmax: BYTES_BASE + BYTES_PER_BIT * b }
        }
        pub fn pos(&self) -> u64 { self.pos }
        pub fn left(&self) -> u64 { self.end - self.pos }
        /// Reads n bits (n <= 64), refusing a read past the end.
        pub fn bits(&mut self, n: u32) -> Res<u64> {
            if n as u64 > self.left() {
                return Err(Error::new(Overflow, self.pos, format!("needs {} bits, {} remain", n, self.left())));
            }
            let (mut v, mut got) = (0u64, 0u32);
            while got < n {
                let sh = (self.pos & 7) as u32;
                let take = (8 - sh).min(n - got);
                v |= ((self.p[(self.pos >> 3) as usize] >> sh) as u64 & ((1 << take) - 1)) << got;
                got += take;
                self.pos += take as u64;
            }
            Ok(v)
        }
        pub fn align(&mut self) -> Res {
            let start = self.pos;
            match self.bits(((8 - (self.pos & 7)) & 7) as u32)? {
                0 => Ok(()),
                pad => Err(Error::new(Padding, start, format!("padding bits 0b{:b} are not zero", pad))),
            }
        }
        /// A hook's refusal of the value it reads, in bitpack's words.
        pub fn refuse(&self, why: &str) -> Error { range(self.pos, format!("hook refused the value: {}", why)) }
        pub(crate) fn seek(&mut self, pos: u64) { self.pos = pos; }
        pub(crate) fn finish(&self) -> Res {
            match self.left() / 8 {
                0 => Ok(()),
                1 => Err(Error::new(Trailing, self.pos, "1 trailing byte after the value".into())),
                n => Err(Error::new(Trailing, self.pos, format!("{} trailing bytes after the value", n))),
            }
        }
        /// Charges work values and bytes (n values of size bytes in the
        /// words) at bit, or refuses them.
        pub(crate) fn charge(&mut self, work: i128, bytes: i128, n: i128, size: i128, bit: u64) -> Res {
            if work > self.wmax - self.work {
                return Err(range(bit, format!("{} values would take the decode past the {} values it may visit for this input ({{ALLOW_WORK_WORDS}}): the packet claims more values than its bits can pay for", work.min(FIGURE), self.wmax)));
            }
            if bytes > self.mmax - self.mem {
                let what = if n == 1 { format!("a value of {} bytes", size) } else { format!("{} values of {} bytes", n, size) };
                return Err(range(bit, format!("{} would take the decode past the {} bytes it may allocate for this input ({{ALLOW_BYTES_WORDS}})", what, self.mmax)));
            }
            (self.work, self.mem) = (self.work + work, self.mem + bytes);
            Ok(())
        }
        /// The count check (docs/wire.md, "Truncated packets"): n values of
        /// at least each bits must fit in what is left.
        pub(crate) fn count(&self, n: u64, each: u64, one: &str, many: &str) -> Res {
            let need = n as i128 * each as i128;
            if need <= self.left() as i128 {
                return Ok(());
            }
            let words = if n == 1 { format!("1 {} needs", one) } else { format!("{} {} need", n, many) };
            Err(Error::new(Overflow, self.pos, format!("{} at least {} bits, {} remain", words, need.min(FIGURE), self.left())))
        }
        /// An index as serialize's int_relative from prev, with bitpack's
        /// rules: it increases, fits int32, and travels in the smallest tier
        /// that holds the difference.
        pub(crate) fn rel(&mut self, prev: i64) -> Res<i64> {
            let start = self.pos;
            let mut d = self.bits(1)? as i64;
            for t in 0..5 {
                if d == 0 && self.bits(1)? == 1 {
                    d = TIER_LOW[t] + self.bits(TIER_BITS[t])? as i64;
                    if d > TIER_HIGH[t] {
                        return Err(range(start, format!("difference {} out of tier range [{}, {}]", d, TIER_LOW[t], TIER_HIGH[t])));
                    }
                }
            }
            if d == 0 {
                let a = self.bits(32)? as u32 as i32 as i64;
                return match a - prev {
                    d if d <= 0 => Err(range(start, format!("current {} is not greater than previous {}", a, prev))),
                    d if d <= TIER_HIGH[4] => Err(range(start, format!("difference {} sent in the absolute tier (non-canonical)", d))),
                    _ => Ok(a),
                };
            }
            if prev + d > i32::MAX as i64 {
                return Err(range(start, format!("previous {} + difference {} overflows int32", prev, d)));
            }
            Ok(prev + d)
        }
    }

    // serialize's int_relative tiers beyond a difference of 1.
    const TIER_LOW: [i64; 5] = [2, 7, 24, 281, 4378];
    const TIER_HIGH: [i64; 5] = [6, 23, 280, 4377, 69914];
    const TIER_BITS: [u32; 5] = [3, 5, 9, 13, 17];

    /// Writes bitpack's bits, and counts what the value's decode will
    /// charge against its allowances.
    #[derive(Default)]
    pub struct Writer {
        buf: Vec<u8>,
        pos: u64,
        work: i128,
        mem: i128,
    }

    impl Writer {
        pub fn new() -> Writer { Writer::default() }
        pub fn pos(&self) -> u64 { self.pos }
        /// Writes the low n bits of v (n <= 64).
        pub fn bits(&mut self, v: u64, n: u32) {
            let (mut v, mut n) = (if n < 64 { v & ((1 << n) - 1) } else { v }, n);
            while n > 0 {
                let sh = (self.pos & 7) as u32;
                if sh == 0 {
                    self.buf.push(0);
                }
                let (take, last) = ((8 - sh).min(n), self.buf.len() - 1);
                self.buf[last] |= ((v & ((1 << take) - 1)) << sh) as u8;
                (v, n, self.pos) = (v >> take, n - take, self.pos + take as u64);
            }
        }
        pub fn align(&mut self) { self.bits(0, ((8 - (self.pos & 7)) & 7) as u32); }
        /// A hook's refusal of the value it writes, in bitpack's words.
        pub fn refuse(&self, why: &str) -> Error { range(self.pos, format!("hook refused the value: {}", why)) }
        pub(crate) fn fail(&self, message: &str) -> Error { range(self.pos, message.to_string()) }
        /// Where the writer is, and what it counted: back() takes back
        /// everything written and counted since.
        pub(crate) fn mark(&self) -> (u64, i128, i128) { (self.pos, self.work, self.mem) }
        pub(crate) fn back(&mut self, (pos, work, mem): (u64, i128, i128)) {
            self.buf.truncate(((pos + 7) >> 3) as usize);
            if pos & 7 != 0 {
                let last = self.buf.len() - 1;
                self.buf[last] &= (1 << (pos & 7)) - 1;
            }
            (self.pos, self.work, self.mem) = (pos, work, mem);
        }
        /// Writes cur, greater than prev, as serialize's int_relative.
        pub(crate) fn rel(&mut self, prev: i64, cur: i64) {
            let d = cur - prev;
            self.bits((d == 1) as u64, 1);
            match (0..5).find(|&t| d <= TIER_HIGH[t]) {
                _ if d == 1 => {}
                Some(t) => {
                    self.bits(1 << t, t as u32 + 1);
                    self.bits((d - TIER_LOW[t]) as u64, TIER_BITS[t]);
                }
                None => {
                    self.bits(0, 5);
                    self.bits(cur as u64, 32);
                }
            }
        }
        pub(crate) fn bit_at(&self, at: u64) -> u8 { self.buf[(at >> 3) as usize] >> (at & 7) & 1 }
        /// Whether the bits written from pos on are the bits o holds.
        pub(crate) fn same_since(&self, pos: u64, o: &Writer) -> bool {
            self.pos - pos == o.pos && (0..o.pos).all(|i| self.bit_at(pos + i) == o.bit_at(i))
        }
        pub(crate) fn charge(&mut self, work: i128, bytes: i128) { (self.work, self.mem) = (sat(self.work + work), sat(self.mem + bytes)); }
        pub(crate) fn into_bytes(self) -> Vec<u8> { self.buf }
        /// Whether a decode of the bytes written charges more than their
        /// allowances; for a delta, the words of AppendDelta's refusal.
        pub(crate) fn over(&self, delta: bool) -> Option<String> {
            let b = 8 * self.buf.len() as i128;
            let (wmax, mmax) = (WORK_BASE + WORK_PER_BIT * b, BYTES_BASE + BYTES_PER_BIT * b - OVERHEAD);
            match () {
                _ if !delta => (self.work > wmax || self.mem > mmax).then(String::new),
                _ if self.work > wmax => Some(format!("what the delta adds, {} values, would take its decode past the {} values it may visit for this input ({{ALLOW_WORK_WORDS}}): the delta claims more values than its bits can pay for", self.work, wmax)),
                _ => (self.mem > mmax).then(|| format!("what the delta adds, {} bytes, would take its decode past the {} bytes it may allocate for this input ({{ALLOW_BYTES_WORDS}})", self.mem, mmax + OVERHEAD)),
            }
        }
    }

    /// Why bytes p are no string bitpack accepts (Go's UTF-8 rules, no NUL).
    pub fn text_problem(p: &[u8]) -> Option<String> {
        match p.iter().position(|&b| b == 0) {
            Some(i) => Some(format!("NUL byte at offset {}", i)),
            None => std::str::from_utf8(p).err().map(|e| format!("invalid UTF-8 at offset {}", e.valid_up_to())),
        }
    }

    /// Which step a value takes on the wire (gen's model.Op).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Op { Bool, Int, Float, Comp, Str, Bytes, ByteArray, Array, Slice, Ptr, Sparse, Struct, Union, Hook, Map, Quat, Check }

    /// How one value travels, with every number its step needs, as gen's
    /// model decided it: a struct field's Go name and member position; a
    /// fixed-width code (bits, flip, limit, short form; an integer's range
    /// lo..hi in units of unit, counted when the value is a time.Duration
    /// held as its count of units; a compressed float's min, delta and bounds
    /// flo..fhi); a length prefix of bits up to len; the element and key; a
    /// struct's fields, a union's members and indices, a quaternion's
    /// components; the words text; the value's delta items, count figure
    /// and charge (work, bytes, partial).
    pub struct S {
        pub op: Op, pub name: &'static str, pub member: usize,
        pub bits: u32, pub short: u32, pub flip: u64, pub limit: u64,
        pub lo: i128, pub hi: i128, pub unit: i128, pub clamp: bool, pub ranged: bool, pub signed: bool, pub duration: bool, pub counted: bool,
        pub min: f64, pub delta: f64, pub flo: f64, pub fhi: f64, pub text: &'static str,
        pub len: usize, pub unrolled: bool, pub elem: Option<&'static S>, pub key: Option<&'static S>,
        pub fields: &'static [S], pub members: &'static [&'static S], pub indices: &'static [u64], pub comps: [&'static [u16]; 4],
        pub items: u32, pub count: u64, pub work: i128, pub bytes: i128, pub partial: bool, pub each: i128,
    }

    /// The step every generated step starts from (..S0).
    pub const S0: S = S {
        op: Op::Bool, name: "", member: 0, bits: 0, short: 0, flip: 0, limit: 0,
        lo: 0, hi: 0, unit: 0, clamp: false, ranged: false, signed: false, duration: false, counted: false,
        min: 0.0, delta: 0.0, flo: 0.0, fhi: 0.0, text: "",
        len: 0, unrolled: false, elem: None, key: None,
        fields: &[], members: &[], indices: &[], comps: [&[]; 4],
        items: 0, count: 0, work: 0, bytes: 0, partial: false, each: 0,
    };

    impl S {
        fn e(&self) -> &'static S { self.elem.expect("bitpack: a container step without its element") }
        /// The charge of n elements of a slice step: each element's values
        /// as the step's each (at least one bit's worth for elements that
        /// take no bits), their bytes twice when they keep fields off the
        /// wire, as Go's decoder grows the caller's slice too.
        fn elems(&self, n: usize) -> (i128, i128) {
            let e = self.e();
            let bytes = round(sat(n as i128 * e.bytes));
            (sat(n as i128 * self.each), if e.partial { sat(2 * bytes) } else { bytes })
        }
    }

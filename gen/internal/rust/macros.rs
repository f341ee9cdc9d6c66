
    /// A snapshot stream's receiver (package snapshot's Receiver; the
    /// header of docs/wire.md, "Snapshot streams"): it keeps the views of
    /// the last History sequences up to the newest it read, decodes each
    /// packet's delta against the view its header names, and says what to
    /// acknowledge. A refused packet changes nothing.
    pub struct Receiver<T: Root> {
        history: usize,
        slots: Vec<Option<(T, u16, u32, u32)>>, // view, sequence, id, stream
        zero: T,
        newest: u16,
        stream: u32,
        read: bool,
        on: bool, // a packet was read since creation: stream is the current stream, which reset keeps
        left: Vec<u32>, // the last LEFT_STREAMS streams left
    }

    // package snapshot's header rules and the words of its refusals
    // (internal/snapwire), and the texts of the sentinels they wrap.
    const SHORT_HEADER: usize = {{SNAP_SHORT_HEADER}};
    const LONG_HEADER: usize = {{SNAP_LONG_HEADER}};
    const ZERO_HEADER: usize = {{SNAP_ZERO_HEADER}};
    const MAX_SHORT: u16 = {{SNAP_MAX_SHORT}};
    const MIN_HISTORY: usize = {{SNAP_MIN_HISTORY}};
    const MAX_HISTORY: usize = {{SNAP_MAX_HISTORY}};
    const MIN_PACKET: usize = {{SNAP_MIN_PACKET}};
    const DEFAULT_HISTORY: usize = {{SNAP_DEFAULT_HISTORY}};
    const LEFT_STREAMS: usize = {{SNAP_LEFT_STREAMS}};
    const NO_ACK: u16 = {{SNAP_NO_ACK}};
    const SEQ_HALF: u16 = {{SNAP_SEQ_HALF}};
{{SNAPSHOT_WORDS}}

    /// A snapshot format's words (its verbs are Go's %d and %#08x only).
    fn go_format(format: &str, args: &[u64]) -> String {
        let (mut out, mut rest, mut args) = (String::new(), format, args.iter());
        while let Some(i) = rest.find('%') {
            out.push_str(&rest[..i]);
            let a = args.next().copied().unwrap_or(0);
            let hex = rest[i..].starts_with("%#08x");
            out.push_str(&if hex { format!("{:#010x}", a) } else { a.to_string() });
            rest = &rest[i + if hex { 5 } else { 2 }..];
        }
        out.push_str(rest);
        out
    }

    /// A refusal of a packet's header in package snapshot's words: the
    /// format, then the text of the sentinel of its kind.
    fn refusal(kind: ErrorKind, format: &str, args: &[u64]) -> Error {
        let sentinel = match kind {
            Overflow => OVERFLOW_TEXT,
            Range => RANGE_TEXT,
            _ => NO_BASE_TEXT,
        };
        Error::new(kind, 0, format!("{}: {}", go_format(format, args), sentinel))
    }

    impl<T: Root> Receiver<T> {
        /// A Receiver of the Sender's History: 0 for the default
        /// ({{SNAP_DEFAULT_HISTORY}}), else a power of two in [{{SNAP_MIN_HISTORY}}, {{SNAP_MAX_HISTORY}}]; anything
        /// else panics with try_new's refusal.
        pub fn new(history: usize) -> Receiver<T> {
            Self::try_new(history).unwrap_or_else(|e| panic!("{}", e))
        }

        /// A Receiver of the Sender's History, or package snapshot's
        /// refusal of a History it cannot keep.
        pub fn try_new(history: usize) -> Result<Receiver<T>, Error> {
            let history = if history == 0 { DEFAULT_HISTORY } else { history };
            if !history.is_power_of_two() || !(MIN_HISTORY..=MAX_HISTORY).contains(&history) {
                let args = [history as u64, DEFAULT_HISTORY as u64, MIN_HISTORY as u64, MAX_HISTORY as u64];
                return Err(Error::new(Range, 0, go_format(HISTORY, &args)));
            }
            Ok(Receiver { history, slots: (0..history).map(|_| None).collect(), zero: T::zero(), newest: 0, stream: 0, read: false, on: false, left: Vec::new() })
        }

        /// The sequence to acknowledge: the newest read, NO_ACK before any.
        pub fn ack(&self) -> u16 { if self.read { self.newest } else { NO_ACK } }

        /// Forgets every view (after a reconnect); the streams it left stay
        /// left, and the one it was on is left when a packet starts another.
        pub fn reset(&mut self) {
            self.read = false;
            self.slots.iter_mut().for_each(|s| *s = None);
        }

        fn held(&self, seq: u16) -> Option<&(T, u16, u32, u32)> {
            let s = self.slots[seq as usize % self.history].as_ref()?;
            (s.1 == seq && (self.newest.wrapping_sub(seq) as usize) < self.history).then_some(s)
        }

        /// Reads one packet: its sequence and the view it gives (the
        /// Receiver's, until it leaves the history). A refusal's Display is
        /// package snapshot's error text; a delta's refusal has its path,
        /// and its bit in the packet.
        pub fn read(&mut self, packet: &[u8]) -> Result<(u16, &T), Error> {
            let no = |kind: ErrorKind, format: &str, args: &[u64]| Err(refusal(kind, format, args));
            if packet.len() < MIN_PACKET {
                return no(Overflow, TOO_SHORT, &[packet.len() as u64, MIN_PACKET as u64, SHORT_HEADER as u64]);
            }
            let word = |at: usize| u32::from_le_bytes([packet[at], packet[at + 1], packet[at + 2], packet[at + 3]]);
            let (seq, long) = (u16::from_le_bytes([packet[0], packet[1]]), packet[2] & 1 == 1);
            let offset = if long { u16::from_le_bytes([packet[2], packet[3]]) >> 1 } else { (packet[2] >> 1) as u16 };
            let n = if long { LONG_HEADER } else if offset == 0 { ZERO_HEADER } else { SHORT_HEADER };
            let (s, o, h) = (seq as u64, offset as u64, self.history as u64);
            match () {
                _ if packet.len() < n + 1 => return no(Overflow, NO_DELTA, &[s, n as u64, packet.len() as u64]),
                _ if long && offset <= MAX_SHORT => return no(Range, LONG_FORM, &[s, o, MAX_SHORT as u64]),
                _ if offset as usize >= self.history => return no(Range, OFFSET_RANGE, &[s, o, h - 1, h]),
                _ => {}
            }
            let (check, base_seq) = (word(if long { 4 } else { 3 }), seq.wrapping_sub(offset));
            let (base, stream) = match (offset, self.held(base_seq)) {
                (0, _) if crc32(0, &packet[SHORT_HEADER..ZERO_HEADER]) != check => {
                    return no(NoBase, ZERO_BASE, &[s, word(SHORT_HEADER) as u64, crc32(0, &packet[SHORT_HEADER..ZERO_HEADER]) as u64, check as u64]);
                }
                (0, _) => (&self.zero, word(SHORT_HEADER)),
                (_, Some(held)) if self.read && held.2 == check => (&held.0, held.3),
                (_, Some(held)) if self.read => return no(NoBase, NOT_BASE, &[s, base_seq as u64, check as u64, held.2 as u64]),
                _ => return no(NoBase, NOT_HELD, &[s, base_seq as u64, o]),
            };
            if self.left.contains(&stream) {
                return no(NoBase, LEFT_STREAM, &[s, stream as u64]);
            }
            let starts = offset == 0 && (!self.read || stream != self.stream);
            let takes = starts || stream == self.stream && newer(seq, self.newest);
            if !takes && self.newest.wrapping_sub(seq) as usize >= self.history {
                return no(Range, TOO_OLD, &[s, h, self.newest as u64]);
            }
            // Go's text names the bit in the delta; Error.bit is the packet's.
            let view = read_delta(&packet[n..], base)
                .map_err(|e| Error { message: format!("{}: {}", go_format(DELTA, &[s]), e), bit: e.bit + 8 * n as u64, op: "", ty: "", ..e })?;
            if starts && self.on && stream != self.stream && !self.left.contains(&self.stream) {
                self.left.push(self.stream);
                if self.left.len() > LEFT_STREAMS {
                    self.left.remove(0);
                }
            }
            if takes {
                (self.newest, self.stream, self.read, self.on) = (seq, stream, true, true);
            }
            let slot = &mut self.slots[seq as usize % self.history];
            Ok((seq, &slot.insert((view, seq, crc32(0, packet), stream)).0))
        }
    }

    /// serialize's sequence_greater_than: a is newer than b (16 bits, wrapping).
    fn newer(a: u16, b: u16) -> bool { a > b && a - b <= SEQ_HALF || a < b && b - a > SEQ_HALF }

    /// The Wire of a generated enum type (a Go named integer type with
    /// constants): its integer's.
    macro_rules! bitpack_enum {
        ($t:ident) => {
            impl wire::Wire for $t {
                fn zero() -> $t { $t(wire::Wire::zero()) }
                fn code(&self, s: &wire::S) -> Result<u64, String> { wire::Wire::code(&self.0, s) }
                fn set_code(&mut self, c: u64, s: &wire::S) { wire::Wire::set_code(&mut self.0, c, s) }
                fn same(&self, b: &$t) -> bool { self.0 == b.0 }
                fn key_text(&self) -> String { wire::Wire::key_text(&self.0) }
            }
        };
    }

    /// The Wire of a generated struct type: its fields by member position
    /// (a check has no field), in the order its step lists them.
    macro_rules! bitpack_struct {
        ($t:ident, $step:path, $name:expr, $fp:expr; $($i:literal $f:ident)*) => {
            impl wire::Wire for $t {
                fn zero() -> $t { Default::default() }
                fn read(&mut self, r: &mut wire::Reader, s: &wire::S) -> wire::Res {
                    if s.op == wire::Op::Quat {
                        return wire::quat_read(self, r, s);
                    }
                    s.fields.iter().try_for_each(|f| match f.member { $($i => wire::Wire::read(&mut self.$f, r, f),)* _ => wire::check_read(r, f) }.map_err(|e| e.at(f.name)))
                }
                fn write(&self, w: &mut wire::Writer, s: &wire::S) -> wire::Res {
                    if s.op == wire::Op::Quat {
                        return wire::quat_write(self, w, s);
                    }
                    s.fields.iter().try_for_each(|f| match f.member { $($i => wire::Wire::write(&self.$f, w, f),)* _ => wire::check_write(w, f) }.map_err(|e| e.at(f.name)))
                }
                fn dread(&mut self, r: &mut wire::Reader, s: &wire::S, start: u64) -> wire::Res { wire::quat_dread(self, r, s, start) }
                fn dwrite(&self, b: &$t, w: &mut wire::Writer, s: &wire::S) -> wire::Res<bool> { wire::quat_dwrite(self, b, w, s) }
                fn items_read(&mut self, r: &mut wire::Reader, s: &wire::S, bit: bool) -> wire::Res<bool> {
                    if s.op == wire::Op::Quat {
                        return wire::item_read(self, r, s, bit);
                    }
                    s.fields.iter().try_fold(false, |ch, f| Ok(match f.member { $($i => wire::Wire::items_read(&mut self.$f, r, f, bit),)* _ => Ok(false) }.map_err(|e| e.at(f.name))? || ch))
                }
                fn items_write(&self, b: &$t, w: &mut wire::Writer, s: &wire::S, bit: bool) -> wire::Res<bool> {
                    if s.op == wire::Op::Quat {
                        return wire::item_write(self, b, w, s, bit);
                    }
                    s.fields.iter().try_fold(false, |ch, f| Ok(match f.member { $($i => wire::Wire::items_write(&self.$f, &b.$f, w, f, bit),)* _ => Ok(false) }.map_err(|e| e.at(f.name))? || ch))
                }
                fn float(&self, p: &[u16]) -> f64 { match p[0] { $($i => wire::Wire::float(&self.$f, &p[1..]),)* _ => 0.0 } }
                fn set_float(&mut self, p: &[u16], v: f64) { match p[0] { $($i => wire::Wire::set_float(&mut self.$f, &p[1..], v),)* _ => {} } }
            }
            impl wire::Root for $t {
                const NAME: &'static str = $name;
                fn step() -> &'static wire::S { &$step }
            }
            #[allow(dead_code)]
            impl $t {
                /// bitpack.Fingerprint of the Go type: mix it into the
                /// protocol id as the Go side does (seal, open).
                pub const FINGERPRINT: u32 = $fp;
                /// Reads a whole packet as bitpack.Unmarshal does (trailing bytes refused).
                pub fn read(packet: &[u8]) -> Result<$t, wire::Error> { wire::read(packet) }
                /// Writes the packet bitpack.Marshal writes, refusing what it refuses.
                pub fn write(&self) -> Result<Vec<u8>, wire::Error> { wire::write(self) }
                /// Applies a delta as bitpack.UnmarshalDelta does: a new value, base untouched.
                pub fn read_delta(packet: &[u8], base: &$t) -> Result<$t, wire::Error> { wire::read_delta(packet, base) }
                /// Writes bitpack.AppendDelta's bytes: self against base.
                pub fn write_delta(&self, base: &$t) -> Result<Vec<u8>, wire::Error> { wire::write_delta(self, base) }
            }
        };
    }

    /// The Wire of a generated union: an enum of its members, by position.
    macro_rules! bitpack_union {
        ($t:ident; $i0:literal $v0:ident $($i:literal $v:ident)*) => {
            impl Default for $t {
                fn default() -> $t { $t::$v0(Default::default()) }
            }
            impl wire::Wire for $t {
                fn zero() -> $t { Default::default() }
                fn read(&mut self, r: &mut wire::Reader, s: &wire::S) -> wire::Res {
                    let (i, start) = wire::union_index(r, s)?;
                    wire::member_charge(r, s, i, start)?;
                    let m = s.members[i];
                    *self = match i { $($i => $t::$v(wire::Wire::zero()),)* _ => $t::$v0(wire::Wire::zero()) };
                    match self { $t::$v0(x) => wire::Wire::read(x, r, m), $($t::$v(x) => wire::Wire::read(x, r, m),)* }
                }
                fn write(&self, w: &mut wire::Writer, s: &wire::S) -> wire::Res {
                    let i = match self { $t::$v0(_) => $i0, $($t::$v(_) => $i,)* };
                    wire::union_write(w, s, i);
                    match self { $t::$v0(x) => wire::Wire::write(x, w, s.members[i]), $($t::$v(x) => wire::Wire::write(x, w, s.members[i]),)* }
                }
                /// The member's index; its body if the base holds that member, else the member whole.
                fn dread(&mut self, r: &mut wire::Reader, s: &wire::S, _: u64) -> wire::Res {
                    let (i, start) = wire::union_index(r, s)?;
                    match (i, &mut *self) {
                        ($i0, $t::$v0(x)) => return wire::body_read(x, r, s.members[i], None),
                        $(($i, $t::$v(x)) => return wire::body_read(x, r, s.members[i], None),)*
                        _ => r.seek(start),
                    }
                    wire::Wire::read(self, r, s)
                }
                fn dwrite(&self, b: &$t, w: &mut wire::Writer, s: &wire::S) -> wire::Res<bool> {
                    #[allow(unreachable_patterns)]
                    match (self, b) {
                        ($t::$v0(x), $t::$v0(y)) => wire::union_body(x, y, w, s, $i0),
                        $(($t::$v(x), $t::$v(y)) => wire::union_body(x, y, w, s, $i),)*
                        _ => wire::Wire::write(self, w, s).map(|_| true),
                    }
                }
            }
        };
    }

    /// A union member's index and body against the base's same member.
    pub fn union_body<T: Wire>(x: &T, y: &T, w: &mut Writer, s: &S, i: usize) -> Res<bool> {
        w.bits(s.indices[i], s.bits);
        body_write(x, y, w, s.members[i])
    }

    /// The Wire of a hook type (see Hook), which the module's parent declares.
    macro_rules! bitpack_hook {
        ($t:ident) => {
            impl wire::Wire for $t {
                fn zero() -> $t { Default::default() }
                fn read(&mut self, r: &mut wire::Reader, s: &wire::S) -> wire::Res { wire::hook_read(r, s).map(|v| *self = v) }
                fn write(&self, w: &mut wire::Writer, s: &wire::S) -> wire::Res { wire::hook_write(self, w, s) }
                fn dread(&mut self, r: &mut wire::Reader, s: &wire::S, start: u64) -> wire::Res { wire::hook_dread(self, r, s, start) }
                fn dwrite(&self, b: &$t, w: &mut wire::Writer, s: &wire::S) -> wire::Res<bool> { wire::hook_dwrite(self, b, w, s) }
            }
        };
    }
}

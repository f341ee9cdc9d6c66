
    fn seg(i: usize) -> String { format!("[{}]", i) }

    /// A byte of a []byte or [N]byte, read and written as an 8-bit code.
    const BYTE: S = S { op: Op::Int, bits: 8, limit: 255, hi: 255, ..S0 };

    fn byte<T: Wire>(c: u8) -> T {
        let mut x = T::zero();
        x.set_code(c as u64, &BYTE);
        x
    }

    fn fresh<T: Wire>(n: usize) -> Vec<T> { (0..n).map(|_| T::zero()).collect() }

    /// The charge of n sparse slots.
    fn slots(n: usize) -> (i128, i128) { ((n as i128 + SLOTS_PER_VALUE - 1) / SLOTS_PER_VALUE, round(SLOT_BYTES * n as i128)) }

    /// A list of changed elements among the first m of a (docs/wire.md,
    /// arrays); whether it listed one.
    fn list_read<T: Wire>(a: &mut [T], r: &mut Reader, s: &S, m: usize) -> Res<bool> {
        let mut prev = -1;
        loop {
            let pos = r.pos();
            match r.rel(prev)? {
                i if i > m as i64 => return Err(range(pos, format!("element index {} out of range for {} elements", i, m))),
                i if i == m as i64 => return Ok(prev >= 0),
                i => {
                    let at = if s.unrolled { Some(pos) } else { None }; // bitpack places an unrolled element's at its index
                    body_read(&mut a[i as usize], r, s.e(), at).map_err(|x| x.at(&seg(i as usize)))?;
                    prev = i;
                }
            }
        }
    }

    fn list_write<T: Wire>(a: &[T], b: &[T], w: &mut Writer, s: &S, m: usize) -> Res<bool> {
        let mut prev = -1;
        for i in 0..m {
            let mark = w.mark();
            w.rel(prev, i as i64);
            match body_write(&a[i], &b[i], w, s.e()).map_err(|x| x.at(&seg(i)))? {
                true => prev = i as i64,
                false => w.back(mark),
            }
        }
        w.rel(prev, m as i64);
        Ok(prev >= 0)
    }

    impl<T: Wire> Wire for Vec<T> {
        fn zero() -> Vec<T> { Vec::new() }
        fn read(&mut self, r: &mut Reader, s: &S) -> Res {
            let start = r.pos();
            let n = length(r, s, start)?;
            match s.op {
                Op::Bytes => {
                    let b = take(r, n, Some(start), false)?;
                    r.charge(0, round(n as i128), 1, n as i128, start)?;
                    *self = b.iter().map(|&c| byte(c)).collect();
                }
                Op::Sparse => {
                    let (work, bytes) = slots(n);
                    r.charge(work, bytes, n as i128, SLOT_BYTES, start)?;
                    *self = fresh(n);
                    T::sparse_read(self, r, s)?;
                }
                _ => {
                    let e = s.e();
                    r.count(n as u64, e.count, "element", "elements")?;
                    let (work, bytes) = s.elems(n);
                    r.charge(work, bytes, n as i128, e.bytes, start)?;
                    *self = fresh(n);
                    for (i, x) in self.iter_mut().enumerate() {
                        x.read(r, e).map_err(|x| x.at(&seg(i)))?;
                    }
                }
            }
            Ok(())
        }
        fn write(&self, w: &mut Writer, s: &S) -> Res {
            match self.len() {
                n if n > s.len && s.op == Op::Bytes => return Err(w.fail(&format!("{} bytes exceed maxlen {}", n, s.len))),
                n if n > s.len => return Err(w.fail(&format!("slice of {} elements exceeds maxlen {}", n, s.len))),
                n => w.bits(n as u64, s.bits),
            }
            match s.op {
                Op::Bytes => {
                    w.align();
                    self.iter().try_for_each(|x| x.write(w, &BYTE))?;
                    w.charge(0, round(self.len() as i128));
                }
                Op::Sparse => {
                    let (work, bytes) = slots(self.len());
                    w.charge(work, bytes);
                    T::sparse_write(self, &[], w, s)?;
                }
                _ => {
                    let (work, bytes) = s.elems(self.len());
                    w.charge(work, bytes);
                    for (i, x) in self.iter().enumerate() {
                        x.write(w, s.e()).map_err(|x| x.at(&seg(i)))?;
                    }
                }
            }
            Ok(())
        }
        fn dread(&mut self, r: &mut Reader, s: &S, start: u64) -> Res {
            let (body, nb) = (r.pos(), self.len());
            if s.op == Op::Bytes {
                // Read once to compare with the base's, then again whole.
                let n = length(r, s, start)?;
                let b = take(r, n, Some(start), false)?;
                if n == nb && self.iter().zip(b).all(|(x, &c)| x.same(&byte(c))) {
                    return Err(unchanged(start));
                }
                r.seek(body);
                let mut v = Vec::new();
                v.read(r, s).map_err(|e| Error { bit: if e.kind == Range { start } else { e.bit }, ..e })?;
                *self = v;
                return Ok(());
            }
            let resized = r.bits(1)? == 1;
            let pos = r.pos();
            let n = if resized { length(r, s, pos)? } else { nb };
            if resized && n == nb {
                return Err(range(pos, format!("new length {} is the base's (not canonical)", n)));
            }
            let listed = if s.op == Op::Sparse {
                if n > nb {
                    let (work, bytes) = slots(n - nb);
                    r.charge(work, bytes, (n - nb) as i128, SLOT_BYTES, pos)?;
                }
                self.resize_with(n, T::zero);
                T::sparse_read(self, r, s)?
            } else {
                list_read(&mut self[..n.min(nb)], r, s, n.min(nb))?
            };
            if !listed && !resized {
                return Err(unchanged(start));
            }
            if s.op == Op::Sparse || n <= nb {
                self.truncate(n);
                return Ok(());
            }
            let e = s.e();
            r.count((n - nb) as u64, e.count, "element", "elements")?;
            let (work, bytes) = s.elems(n - nb);
            r.charge(work, bytes, (n - nb) as i128, e.bytes, start)?;
            for i in nb..n {
                let mut x = T::zero();
                x.read(r, e).map_err(|x| x.at(&seg(i)))?;
                self.push(x);
            }
            Ok(())
        }
        fn dwrite(&self, b: &Vec<T>, w: &mut Writer, s: &S) -> Res<bool> {
            let (n, nb) = (self.len(), b.len());
            match () {
                _ if s.op == Op::Bytes && n == nb && self.iter().zip(b).all(|(x, y)| x.same(y)) => return Ok(false),
                _ if s.op == Op::Bytes => return self.write(w, s).map(|_| true),
                _ if n > s.len => return Err(w.fail(&format!("slice of {} elements exceeds maxlen {}", n, s.len))),
                _ if n == 0 && nb == 0 => return Ok(false),
                _ => w.bits((n != nb) as u64, 1),
            }
            if n != nb {
                w.bits(n as u64, s.bits);
            }
            if s.op == Op::Sparse {
                let (work, bytes) = slots(n.saturating_sub(nb));
                w.charge(work, bytes);
                return Ok(T::sparse_write(self, b, w, s)? || n != nb);
            }
            if !list_write(self, b, w, s, n.min(nb))? && n == nb {
                return Ok(false);
            }
            let (work, bytes) = s.elems(n.saturating_sub(nb));
            w.charge(work, bytes);
            for (i, x) in self.iter().enumerate().skip(nb) {
                x.write(w, s.e()).map_err(|x| x.at(&seg(i)))?;
            }
            Ok(true)
        }
    }

    impl<T: Wire, const N: usize> Wire for [T; N] {
        fn zero() -> [T; N] { std::array::from_fn(|_| T::zero()) }
        fn read(&mut self, r: &mut Reader, s: &S) -> Res {
            match s.op {
                Op::ByteArray => take(r, N, None, true).map(|b| self.iter_mut().zip(b).for_each(|(x, &c)| *x = byte(c))),
                Op::Sparse => T::sparse_read(self, r, s).map(|_| ()),
                Op::Quat => quat_read(self, r, s),
                // Integers of no bits (a range of one value) are all the
                // first one: a packet may claim tens of thousands of them.
                _ if N > 0 && s.e().op == Op::Int && s.e().bits == 0 => {
                    self[0].read(r, s.e()).map_err(|x| x.at(&seg(0)))?;
                    let first = self[0].clone();
                    self[1..].iter_mut().for_each(|x| *x = first.clone());
                    Ok(())
                }
                _ => self.iter_mut().enumerate().try_for_each(|(i, x)| x.read(r, s.e()).map_err(|x| x.at(&seg(i)))),
            }
        }
        fn write(&self, w: &mut Writer, s: &S) -> Res {
            match s.op {
                Op::ByteArray => {
                    w.align();
                    self.iter().try_for_each(|x| x.write(w, &BYTE))
                }
                Op::Sparse => T::sparse_write(self, &[], w, s).map(|_| ()),
                Op::Quat => quat_write(self, w, s),
                _ => self.iter().enumerate().try_for_each(|(i, x)| x.write(w, s.e()).map_err(|x| x.at(&seg(i)))),
            }
        }
        fn dread(&mut self, r: &mut Reader, s: &S, start: u64) -> Res {
            let listed = match s.op {
                Op::ByteArray => {
                    r.align()?;
                    let body = r.pos();
                    let same = take(r, N, Some(start), false)?.iter().zip(self.iter()).all(|(&c, x)| x.same(&byte(c)));
                    r.seek(body);
                    !same && self.read(r, s).is_ok()
                }
                Op::Sparse => T::sparse_read(self, r, s)?,
                Op::Quat => return quat_dread(self, r, s, start),
                _ => list_read(self, r, s, N)?,
            };
            if listed { Ok(()) } else { Err(unchanged(start)) }
        }
        fn dwrite(&self, b: &[T; N], w: &mut Writer, s: &S) -> Res<bool> {
            match s.op {
                Op::ByteArray if self.iter().zip(b).all(|(x, y)| x.same(y)) => Ok(false),
                Op::ByteArray => self.write(w, s).map(|_| true),
                Op::Sparse => T::sparse_write(self, b, w, s),
                Op::Quat => quat_dwrite(self, b, w, s),
                _ => list_write(self, b, w, s, N),
            }
        }
        fn float(&self, p: &[u16]) -> f64 { self[p[0] as usize].float(&p[1..]) }
        fn set_float(&mut self, p: &[u16], v: f64) { self[p[0] as usize].set_float(&p[1..], v) }
    }

    impl<T: Wire> Wire for Option<Box<T>> {
        fn zero() -> Option<Box<T>> { None }
        fn read(&mut self, r: &mut Reader, s: &S) -> Res {
            let start = r.pos();
            if r.bits(1)? == 1 {
                return self.dread(r, s, start);
            }
            *self = None;
            Ok(())
        }
        fn write(&self, w: &mut Writer, s: &S) -> Res {
            w.bits(self.is_some() as u64, 1);
            self.dwrite(&None, w, s).map(|_| ())
        }
        /// A pointer's part: the pointee whole, when the base's is nil; else
        /// 0, nil now, or 1 and the pointee's body.
        fn dread(&mut self, r: &mut Reader, s: &S, start: u64) -> Res {
            let e = s.e();
            match self {
                None => {
                    r.charge(e.work, round(e.bytes), 1, e.bytes, start)?;
                    let mut x = T::zero();
                    x.read(r, e)?;
                    *self = Some(Box::new(x));
                }
                Some(x) if r.bits(1)? == 1 => return body_read(x.as_mut(), r, e, None),
                _ => *self = None,
            }
            Ok(())
        }
        fn dwrite(&self, b: &Option<Box<T>>, w: &mut Writer, s: &S) -> Res<bool> {
            match (self, b) {
                (None, None) => Ok(false),
                (Some(x), None) => {
                    w.charge(s.e().work, round(s.e().bytes));
                    x.write(w, s.e()).map(|_| true)
                }
                (None, Some(_)) => {
                    w.bits(0, 1);
                    Ok(true)
                }
                (Some(x), Some(y)) => {
                    w.bits(1, 1);
                    body_write(x.as_ref(), y.as_ref(), w, s.e())
                }
            }
        }
        fn sparse_read(a: &mut [Self], r: &mut Reader, s: &S) -> Res<bool> {
            let (n, mut prev) = (a.len() as i64, -1);
            loop {
                let pos = r.pos();
                let i = r.rel(prev)?;
                if i > n {
                    return Err(range(pos, format!("sparse index {} out of range for length {}", i, n)));
                }
                if i == n {
                    return Ok(prev >= 0);
                }
                // A slot empty in the base (every slot, in a full read) is
                // sent whole.
                a[i as usize].dread(r, s, pos).map_err(|x| x.at(&seg(i as usize)))?;
                prev = i;
            }
        }
        fn sparse_write(a: &[Self], b: &[Self], w: &mut Writer, s: &S) -> Res<bool> {
            let mut prev = -1;
            for (i, x) in a.iter().enumerate() {
                let (y, mark) = (b.get(i).unwrap_or(&None), w.mark());
                if x.is_none() && y.is_none() {
                    continue;
                }
                w.rel(prev, i as i64);
                match x.dwrite(y, w, s).map_err(|x| x.at(&seg(i)))? {
                    true => prev = i as i64,
                    false => w.back(mark),
                }
            }
            w.rel(prev, a.len() as i64);
            Ok(prev >= 0)
        }
    }

    /// A map's key and value steps.
    fn kv(s: &S) -> (&'static S, &'static S) { (s.key.expect("bitpack: a map step without its key"), s.e()) }

    impl<K: Wire + Ord, V: Wire> Wire for BTreeMap<K, V> {
        fn zero() -> BTreeMap<K, V> { BTreeMap::new() }
        fn read(&mut self, r: &mut Reader, s: &S) -> Res {
            let (start, (ks, vs)) = (r.pos(), kv(s));
            let n = r.bits(s.bits)?;
            if n > s.len as u64 {
                return Err(range(start, format!("{} entries exceed maxlen {}", n, s.len)));
            }
            r.count(n, ks.count + vs.count, "entry", "entries")?;
            if n > 0 {
                let (slot, n) = (ks.bytes + vs.bytes + 1, n as i128);
                r.charge(sat(n * (ks.work + vs.work)), sat(2 * round(sat(MAP_HEADER + MAP_SLOT_FACTOR * n * slot))), n, slot, start)?;
            }
            for i in 0..n as usize {
                let bit = r.pos();
                let mut k = K::zero();
                k.read(r, ks).map_err(|x| x.at(&format!("[key {}]", i)))?;
                if let Some((prev, _)) = self.iter().next_back().filter(|(p, _)| **p >= k) {
                    return Err(range(bit, format!("key {} does not follow key {}: map keys travel in ascending order, each once", k.key_text(), prev.key_text())));
                }
                let mut v = V::zero();
                v.read(r, vs).map_err(|x| x.at(&format!("[{}]", k.key_text())))?;
                self.insert(k, v);
            }
            Ok(())
        }
        fn write(&self, w: &mut Writer, s: &S) -> Res {
            let (n, (ks, vs)) = (self.len(), kv(s));
            if n > s.len {
                return Err(w.fail(&format!("{} entries exceed maxlen {}", n, s.len)));
            }
            w.bits(n as u64, s.bits);
            if n > 0 {
                let (slot, n) = (ks.bytes + vs.bytes + 1, n as i128);
                w.charge(sat(n * (ks.work + vs.work)), sat(2 * round(sat(MAP_HEADER + MAP_SLOT_FACTOR * n * slot))));
            }
            self.iter().try_for_each(|(k, v)| k.write(w, ks).and_then(|_| v.write(w, vs)).map_err(|x| x.at(&format!("[{}]", k.key_text()))))
        }
        /// A map's part: its changed entries in ascending key order, each a
        /// 1, its key, then its value whole (added), or 0 (removed) or 1
        /// and its value's body; a 0 ends the list.
        fn dread(&mut self, r: &mut Reader, s: &S, start: u64) -> Res {
            let ((ks, vs), mut prev) = (kv(s), None::<K>);
            for i in 0.. {
                let pos = r.pos();
                if r.bits(1)? == 0 {
                    return match () {
                        _ if i == 0 => Err(unchanged(start)),
                        _ if self.len() > s.len => Err(range(pos, format!("the delta leaves {} entries, more than maxlen {}", self.len(), s.len))),
                        _ => Ok(()),
                    };
                }
                let mut k = K::zero();
                k.read(r, ks).map_err(|x| x.at(&format!("[key {}]", i)))?;
                if let Some(p) = prev.filter(|p| *p >= k) {
                    let m = format!("key {} does not follow key {}: a map's changed entries travel in ascending key order, each once", k.key_text(), p.key_text());
                    return Err(range(pos, m));
                }
                let at = format!("[{}]", k.key_text());
                match self.get_mut(&k) {
                    None => {
                        let (slot, mut v) = (ks.bytes + vs.bytes + 1, V::zero());
                        r.charge(sat(ks.work + vs.work), sat(2 * MAP_SLOT_FACTOR * slot), 1, slot, pos).and_then(|_| v.read(r, vs)).map_err(|x| x.at(&at))?;
                        self.insert(k.clone(), v);
                    }
                    Some(v) => match r.bits(1).map_err(|x| x.at(&at))? {
                        0 => drop(self.remove(&k)),
                        _ => body_read(v, r, vs, None).map_err(|x| x.at(&at))?,
                    },
                }
                prev = Some(k);
            }
            Ok(())
        }
        fn dwrite(&self, b: &BTreeMap<K, V>, w: &mut Writer, s: &S) -> Res<bool> {
            let ((ks, vs), mut changed) = (kv(s), false);
            if self.len() > s.len {
                return Err(w.fail(&format!("{} entries exceed maxlen {}", self.len(), s.len)));
            }
            let mut keys: Vec<&K> = self.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let mark = w.mark();
                w.bits(1, 1);
                let res = k.write(w, ks).and_then(|_| match (self.get(k), b.get(k)) {
                    (Some(v), None) => {
                        let slot = ks.bytes + vs.bytes + 1;
                        w.charge(sat(ks.work + vs.work), sat(2 * MAP_SLOT_FACTOR * slot));
                        v.write(w, vs).map(|_| true)
                    }
                    (Some(v), Some(y)) => {
                        w.bits(1, 1);
                        body_write(v, y, w, vs)
                    }
                    _ => {
                        w.bits(0, 1);
                        Ok(true)
                    }
                });
                match res.map_err(|x| x.at(&format!("[{}]", k.key_text())))? {
                    true => changed = true,
                    false => w.back(mark),
                }
            }
            w.bits(0, 1);
            Ok(changed)
        }
    }

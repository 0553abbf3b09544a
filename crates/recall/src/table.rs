//! The open-addressing table behind the scanner's per-call caches: the memo of token
//! verdicts and the cache of runs the exact tokenizer has split.

/// An entry of a [`Table`].
pub(crate) trait Slot: Copy {
    /// The entry of an empty slot.
    const EMPTY: Self;
    /// Whether this is [`Slot::EMPTY`].
    fn is_empty(&self) -> bool;
    /// Where probing for this entry starts (any bits: the table keeps the ones it needs).
    fn home(&self) -> usize;
}

/// Open addressing with linear probing, at most half full. Growing reuses the allocation the
/// table had before its last growth and [`Table::reset`] keeps both, so a table used again
/// and again stops allocating once it has reached its size.
pub(crate) struct Table<E> {
    /// A power of two of them.
    slots: Vec<E>,
    /// The slots before the last growth, kept for their allocation.
    spare: Vec<E>,
    len: usize,
    initial: usize,
}

impl<E: Slot> Table<E> {
    /// An empty table of `2^bits` slots.
    pub(crate) fn new(bits: u32) -> Table<E> {
        let mut t = Table {
            slots: Vec::new(),
            spare: Vec::new(),
            len: 0,
            initial: 1 << bits,
        };
        t.reset();
        t
    }

    /// Empties the table, back to its initial size, keeping the allocations.
    pub(crate) fn reset(&mut self) {
        self.slots.clear();
        self.slots.resize(self.initial, E::EMPTY);
        self.len = 0;
    }

    /// Bytes allocated.
    pub(crate) fn footprint(&self) -> usize {
        (self.slots.capacity() + self.spare.capacity()) * std::mem::size_of::<E>()
    }

    /// Probes from `home` for the entry `is_it` accepts: `Ok` with it, or `Err` with the
    /// empty slot where it belongs (for [`Table::fill`]).
    #[inline]
    pub(crate) fn probe(&self, home: usize, mut is_it: impl FnMut(&E) -> bool) -> Result<E, usize> {
        let mask = self.slots.len() - 1;
        let mut i = home;
        loop {
            let e = self.slots[i & mask];
            if e.is_empty() {
                return Err(i & mask);
            }
            if is_it(&e) {
                return Ok(e);
            }
            i = i.wrapping_add(1);
        }
    }

    /// Puts `e` in slot `i`, which [`Table::probe`] found empty, then grows the table when it
    /// is over half full.
    pub(crate) fn fill(&mut self, i: usize, e: E) {
        self.slots[i] = e;
        self.len += 1;
        if self.len * 2 > self.slots.len() {
            let n = self.slots.len() * 2;
            std::mem::swap(&mut self.slots, &mut self.spare);
            self.slots.clear();
            self.slots.resize(n, E::EMPTY);
            let mask = n - 1;
            for &e in self.spare.iter().filter(|e| !e.is_empty()) {
                let mut i = e.home();
                while !self.slots[i & mask].is_empty() {
                    i = i.wrapping_add(1);
                }
                self.slots[i & mask] = e;
            }
        }
    }
}

/// A probe start from a 64-bit key: a folded multiply (the two halves of a 128-bit product,
/// XORed), which mixes every key bit into every bit of the result with one `mul`.
#[inline]
pub(crate) fn mix(key: u64) -> usize {
    let p = u128::from(key) * 0x9E37_79B9_7F4A_7C15;
    ((p as u64) ^ ((p >> 64) as u64)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Key(u64);

    impl Slot for Key {
        const EMPTY: Key = Key(0);
        fn is_empty(&self) -> bool {
            self.0 == 0
        }
        fn home(&self) -> usize {
            // Few distinct homes: long probe chains, wrapping past the end.
            (self.0 % 7) as usize * 1000
        }
    }

    #[test]
    fn finds_what_it_holds_through_growth_and_reset() {
        let mut t = Table::new(2);
        for round in 0..2 {
            for k in 1..=3000u64 {
                let key = Key(k);
                let Err(i) = t.probe(key.home(), |e| *e == key) else {
                    panic!("{k} found before it was added (round {round})");
                };
                t.fill(i, key);
            }
            for k in 1..=3000u64 {
                assert_eq!(t.probe(Key(k).home(), |e| e.0 == k), Ok(Key(k)));
            }
            assert!(t.probe(Key(5000).home(), |e| e.0 == 5000).is_err());
            let footprint = t.footprint();
            t.reset();
            assert_eq!(t.footprint(), footprint, "reset keeps the allocations");
        }
    }
}

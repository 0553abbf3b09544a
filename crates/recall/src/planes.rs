//! What the window classifier (`lanes`) takes and gives, below both it and the
//! scanner: the window's size, its bit [`Planes`], the [`Filter`] tested on it, and the
//! [`Splat`]ted bytes the filter is compared with.

/// Bytes per window: one bit each in a `u64` plane.
pub(crate) const WINDOW: usize = 64;
/// Zero bytes after the text: a whole window past any start, plus a 16-byte key load.
pub(crate) const PAD: usize = WINDOW + 16;
/// A splatted byte: the same byte in each of 32 lanes, aligned so that a compare can read it
/// straight from memory.
#[derive(Clone, Copy)]
#[repr(align(32))]
pub(crate) struct Splat(pub(crate) [u8; 32]);

impl Splat {
    /// `b` in every lane.
    pub(crate) fn new(b: u8) -> Splat {
        Splat([b; 32])
    }
}

/// Bit planes of one window: bit `i` describes byte `i`.
#[derive(Default)]
#[cfg_attr(test, derive(PartialEq, Debug))]
pub(crate) struct Planes {
    /// Bytes of runs: ASCII letters and digits, and bytes of 0x80 and above.
    pub(crate) run: u64,
    /// ASCII capital letters.
    pub(crate) upper: u64,
    /// ASCII small letters.
    pub(crate) lower: u64,
    /// Bytes of 0x80 and above (parts of non-ASCII characters).
    pub(crate) high: u64,
    /// The filter's first bytes (anywhere: only those at run starts count).
    pub(crate) first: u64,
    /// Where an occurrence of one of the filter's pieces begins.
    pub(crate) piece: u64,
}

/// Most first bytes, and most pieces, a [`Filter`] tests (each costs SIMD compares on every
/// vector of a window); a condition that needs more is not applied.
const FILTER_MAX: usize = 16;

/// A necessary condition for a token to have a verdict other than `NONE` (the scanner's "matches nothing"), tested on a
/// whole window at once before any token of it is looked up: the token begins with one of
/// the first bytes, or contains one of the pieces (both compared with ASCII letters
/// lowercased). A run that fails it is counted but never looked up. Runs the general path
/// takes (camelCase, non-ASCII) are never filtered: the condition is stated on their tokens,
/// which are not their bytes.
pub(crate) struct Filter {
    /// The first bytes (folded), splatted for the compares.
    pub(crate) first: Vec<Splat>,
    /// The pieces of one, two and three bytes (folded), splatted.
    pub(crate) ones: Vec<Splat>,
    pub(crate) twos: Vec<[Splat; 2]>,
    pub(crate) threes: Vec<[Splat; 3]>,
    /// The same, as bytes (for [`Filter::passes`]).
    #[cfg(test)]
    bytes: (Vec<u8>, Vec<Vec<u8>>),
    /// Every run passes (no condition, or one too costly to test).
    pub(crate) all: bool,
}

/// `b` as the scanner compares it: an ASCII letter lowercased, anything else unchanged.
fn fold(b: u8) -> u8 {
    if b.is_ascii_alphabetic() { b | 0x20 } else { b }
}

impl Filter {
    /// The filter every run passes.
    pub(crate) fn all() -> Filter {
        Filter {
            first: Vec::new(),
            ones: Vec::new(),
            twos: Vec::new(),
            threes: Vec::new(),
            #[cfg(test)]
            bytes: (Vec::new(), Vec::new()),
            all: true,
        }
    }

    /// Tokens that begin with one of `first` or contain one of `pieces` (any token when a
    /// piece is empty or there are more than [`FILTER_MAX`] of either). A piece longer than
    /// three bytes is tested by its first three: a token containing the piece contains them.
    pub(crate) fn new(first: &[u8], pieces: &[&[u8]]) -> Filter {
        let splat = |b: u8| Splat::new(fold(b));
        let mut firsts: Vec<u8> = first.iter().map(|&b| fold(b)).collect();
        firsts.sort_unstable();
        firsts.dedup();
        let mut cut: Vec<Vec<u8>> = Vec::new();
        for piece in pieces {
            let p: Vec<u8> = piece.iter().take(3).map(|&b| fold(b)).collect();
            if p.is_empty() {
                return Filter::all();
            }
            if !cut.contains(&p) {
                cut.push(p);
            }
        }
        if firsts.len() > FILTER_MAX
            || cut.len() > FILTER_MAX
            || firsts.is_empty() && cut.is_empty()
        {
            return Filter::all();
        }
        let mut f = Filter::all();
        f.all = false;
        f.first = firsts.iter().map(|&b| splat(b)).collect();
        for p in &cut {
            match p[..] {
                [a] => f.ones.push(splat(a)),
                [a, b] => f.twos.push([splat(a), splat(b)]),
                [a, b, c, ..] => f.threes.push([splat(a), splat(b), splat(c)]),
                [] => {}
            }
        }
        #[cfg(test)]
        {
            f.bytes = (firsts, cut);
        }
        f
    }

    /// Whether `token` passes (the scalar statement of what the scanner tests).
    #[cfg(test)]
    pub(crate) fn passes(&self, token: &[u8]) -> bool {
        if self.all {
            return true;
        }
        let token: Vec<u8> = token.iter().map(|&b| fold(b)).collect();
        let (first, pieces) = &self.bytes;
        token.first().is_some_and(|b| first.contains(b))
            || pieces
                .iter()
                .any(|p| token.windows(p.len()).any(|w| w == &p[..]))
    }
}

//! How the scanner classifies a window: with the vector instructions every target has
//! ([`Portable`]: `wide`'s sixteen-byte vectors, SSE2 on x86-64, NEON on aarch64, plain arrays
//! elsewhere), or with AVX2 where the processor has it ([`Avx2`], x86-64 only), chosen once
//! per search by [`dispatch`].
//!
//! The classifier is written once ([`planes`], [`newline_plane`]), generic over a small
//! [`Vector`] trait with one implementation per instruction set, as `memchr` does.
//!
//! This is the crate's only module with `unsafe` code. Its `unsafe` blocks are of two kinds,
//! all in `mod avx2`: three calls to functions compiled for AVX2 (the one that runs the
//! search pass, compiled for BMI1, BMI2, LZCNT and POPCNT too, and the two that classify a
//! window), and the AVX2 instructions of [`Vector`] for `V256`. Each is sound exactly when the
//! processor has those features, and each is reached only through an [`Avx2`] value (a
//! `V256` is made from one): the only way to get one is [`Avx2::detect`], which asks the
//! processor at run time (`is_x86_feature_detected!`).
//!
//! Both ways compute the same [`Planes`] bit for bit (property-tested here), and the scanner's
//! and the engine's tests run with each (AVX2 where the test machine has it).

use wide::i8x16;

use crate::planes::{Filter, PAD, Planes, Splat, WINDOW};

/// A way to classify a window (see the module documentation).
pub(crate) trait Lanes: Copy {
    /// The planes of the first [`WINDOW`] bytes of `win`, of which only the first `chunks`
    /// sixteens may be anything but zeros, with `filter` tested on them (see [`Filter`]).
    fn planes(self, win: &[u8; PAD], chunks: usize, filter: &Filter) -> Planes;

    /// The newlines among the first [`WINDOW`] bytes of `win`.
    fn newline_plane(self, win: &[u8; PAD]) -> u64;

    /// Runs `work` with these lanes, inside a function compiled for their instruction set.
    fn execute<W: WithLanes>(self, work: W) -> W::Output;
}

/// Work that runs with some [`Lanes`], compiled once for each (see [`dispatch`]).
pub(crate) trait WithLanes {
    /// What the work returns.
    type Output;
    /// Does the work with `lanes`. Implementations are `#[inline(always)]`, so that under
    /// [`Avx2`] it, and whatever is inlined into it (the whole window loop), is compiled for
    /// AVX2; a function it calls that is not inlined is compiled for the baseline.
    fn run<L: Lanes>(self, lanes: L) -> Self::Output;
}

/// Runs `work` with the best [`Lanes`] this processor has.
pub(crate) fn dispatch<W: WithLanes>(work: W) -> W::Output {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = Avx2::detect() {
        return avx2.execute(work);
    }
    Portable.execute(work)
}

/// Runs `$body` once with each [`Lanes`] this machine has, bound to `$lanes` (tests check
/// every way against the same expectations).
#[cfg(test)]
macro_rules! each_lanes {
    ($lanes:ident => $body:expr) => {{
        {
            let $lanes = $crate::lanes::Portable;
            $body;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some($lanes) = $crate::lanes::Avx2::detect() {
            $body;
        }
    }};
}
#[cfg(test)]
pub(crate) use each_lanes;

/// The value every [`Lanes`] gave, collected by [`each_lanes!`] in `all`; panics, naming
/// `what`, if two differ.
#[cfg(test)]
pub(crate) fn agreed<T: PartialEq + std::fmt::Debug>(mut all: Vec<T>, what: &str) -> T {
    for other in &all[1..] {
        assert_eq!(other, &all[0], "{what}");
    }
    all.swap_remove(0)
}

/// A vector of bytes, and the few operations the window classifier needs of it: one
/// implementation per instruction set (`wide`'s [`i8x16`] everywhere, `__m256i` with AVX2),
/// and [`planes`], written once, generic over it.
///
/// A value of `Self::Proof` exists only where the instructions do (for AVX2, only
/// [`Avx2::detect`] makes one), and every vector is made from one, so the operations on a
/// vector need no other check.
pub(crate) trait Vector: Copy {
    /// What shows that the instructions exist.
    type Proof: Copy;
    /// Bytes per vector.
    const BYTES: usize;
    /// `b` in every lane.
    fn splat(proof: Self::Proof, b: u8) -> Self;
    /// The first [`Vector::BYTES`] lanes of a [`Splat`].
    fn splatted(proof: Self::Proof, s: &Splat) -> Self;
    /// [`Vector::BYTES`] bytes of `win` from `at`.
    fn load(proof: Self::Proof, win: &[u8; PAD], at: usize) -> Self;
    /// Bitwise or.
    fn or(self, other: Self) -> Self;
    /// Bitwise and.
    fn and(self, other: Self) -> Self;
    /// `!self & other`, bitwise.
    fn and_not(self, other: Self) -> Self;
    /// Lane-wise wrapping addition.
    fn add(self, other: Self) -> Self;
    /// All ones in the lanes where the bytes are equal.
    fn eq(self, other: Self) -> Self;
    /// All ones in the lanes where `self < other`, as signed bytes.
    fn lt(self, other: Self) -> Self;
    /// The lanes' top bits, lane `i` in bit `i`.
    fn mask(self) -> u64;
}

impl Vector for i8x16 {
    type Proof = ();
    const BYTES: usize = 16;
    #[inline(always)]
    fn splat((): (), b: u8) -> i8x16 {
        i8x16::splat(b as i8)
    }
    #[inline(always)]
    fn splatted((): (), s: &Splat) -> i8x16 {
        let half: [u8; 16] = s.0[..16].try_into().expect("sixteen bytes");
        wide::bytemuck::cast(half)
    }
    #[inline(always)]
    fn load((): (), win: &[u8; PAD], at: usize) -> i8x16 {
        // `wide`'s vectors are plain bytes (`bytemuck::Pod`).
        let chunk: [u8; 16] = win[at..at + 16].try_into().expect("sixteen bytes");
        wide::bytemuck::cast(chunk)
    }
    #[inline(always)]
    fn or(self, other: i8x16) -> i8x16 {
        self | other
    }
    #[inline(always)]
    fn and(self, other: i8x16) -> i8x16 {
        self & other
    }
    #[inline(always)]
    fn and_not(self, other: i8x16) -> i8x16 {
        !self & other
    }
    #[inline(always)]
    fn add(self, other: i8x16) -> i8x16 {
        self + other
    }
    #[inline(always)]
    fn eq(self, other: i8x16) -> i8x16 {
        self.simd_eq(other)
    }
    #[inline(always)]
    fn lt(self, other: i8x16) -> i8x16 {
        self.simd_lt(other)
    }
    #[inline(always)]
    fn mask(self) -> u64 {
        u64::from(self.to_bitmask())
    }
}

/// The planes of the first [`WINDOW`] bytes of `win` (see [`Lanes::planes`]), with vectors
/// `V` of which `N` make a window. Only the first `chunks` vectors are classified (with
/// `chunks` ≥ `N`, every one): the others are zeros, whose planes are empty.
// The vectors of a window are indexed together across several arrays.
// Long: the classifier of one window, inlined into the AVX2 and portable passes alike; its
// steps share every vector register, so it is kept whole for speed.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
fn planes<V: Vector, const N: usize>(
    proof: V::Proof,
    win: &[u8; PAD],
    chunks: usize,
    filter: &Filter,
) -> Planes {
    debug_assert_eq!(N * V::BYTES, WINDOW);
    let splat = |b: u8| V::splat(proof, b);
    let load = |at: usize| V::load(proof, win, at);
    let mut p = Planes::default();
    let zero = splat(0);
    let case = splat(0x20);
    let bits = |v: [V; N]| -> u64 {
        let mut m = 0;
        for k in 0..N {
            m |= v[k].mask() << (V::BYTES * k);
        }
        m
    };
    // A vector past the text is zeros, folded: what a classified vector of zeros gives.
    let mut folded = [case; N];
    for k in 0..N {
        if k >= chunks {
            break;
        }
        let x = load(V::BYTES * k);
        // Unsigned range tests as signed compares: (b - lo) as u8 < n  ⟺
        // (b - lo + 0x80) as i8 < n - 128.
        folded[k] = x.or(case);
        let letter = folded[k]
            .add(splat(0x80u8.wrapping_sub(b'a')))
            .lt(splat((i8::MIN + 26) as u8));
        let digit = x
            .add(splat(0x80u8.wrapping_sub(b'0')))
            .lt(splat((i8::MIN + 10) as u8));
        let small = x.and(case).eq(zero);
        let shift = V::BYTES * k;
        // A byte of 0x80 and above is negative: its own sign bit.
        p.run |= letter.or(digit).or(x).mask() << shift;
        p.upper |= letter.and(small).mask() << shift;
        p.lower |= small.and_not(letter).mask() << shift;
        p.high |= x.mask() << shift;
    }
    if filter.all {
        return p;
    }
    // The filter on every vector (past the text they are zeros, which are not in runs):
    // each first byte and piece compared with every vector, the results gathered per vector.
    let mut first = [zero; N];
    for b in &filter.first {
        let b = V::splatted(proof, b);
        for k in 0..N {
            first[k] = first[k].or(folded[k].eq(b));
        }
    }
    p.first = bits(first);
    let mut piece = [zero; N];
    for a in &filter.ones {
        let a = V::splatted(proof, a);
        for k in 0..N {
            piece[k] = piece[k].or(folded[k].eq(a));
        }
    }
    if !filter.twos.is_empty() || !filter.threes.is_empty() {
        // A piece starts at a byte when the bytes one and two further (loaded again from
        // there: the window has room after it) equal its next ones.
        let mut next = [zero; N];
        let mut after = [zero; N];
        for k in 0..N {
            next[k] = load(V::BYTES * k + 1).or(case);
            after[k] = load(V::BYTES * k + 2).or(case);
        }
        for [a, b] in &filter.twos {
            let (a, b) = (V::splatted(proof, a), V::splatted(proof, b));
            for k in 0..N {
                piece[k] = piece[k].or(folded[k].eq(a).and(next[k].eq(b)));
            }
        }
        for [a, b, c] in &filter.threes {
            let (a, b, c) = (
                V::splatted(proof, a),
                V::splatted(proof, b),
                V::splatted(proof, c),
            );
            for k in 0..N {
                let hit = folded[k].eq(a).and(next[k].eq(b)).and(after[k].eq(c));
                piece[k] = piece[k].or(hit);
            }
        }
    }
    p.piece = bits(piece);
    p
}

/// The newlines among the first [`WINDOW`] bytes of `win`, with vectors `V` of which `N`
/// make a window.
#[inline(always)]
fn newline_plane<V: Vector, const N: usize>(proof: V::Proof, win: &[u8; PAD]) -> u64 {
    let newline = V::splat(proof, b'\n');
    let mut m = 0;
    for k in 0..N {
        m |= V::load(proof, win, V::BYTES * k).eq(newline).mask() << (V::BYTES * k);
    }
    m
}

/// `wide`'s sixteen-byte vectors, on every target.
#[derive(Clone, Copy)]
pub(crate) struct Portable;

impl Lanes for Portable {
    #[inline(always)]
    fn planes(self, win: &[u8; PAD], chunks: usize, filter: &Filter) -> Planes {
        // A whole window (most of them) gets its own copy, whose loops, with their constant
        // count, unroll.
        if chunks >= WINDOW / 16 {
            planes::<i8x16, { WINDOW / 16 }>((), win, WINDOW / 16, filter)
        } else {
            planes::<i8x16, { WINDOW / 16 }>((), win, chunks, filter)
        }
    }

    #[inline(always)]
    fn newline_plane(self, win: &[u8; PAD]) -> u64 {
        newline_plane::<i8x16, { WINDOW / 16 }>((), win)
    }

    #[inline(always)]
    fn execute<W: WithLanes>(self, work: W) -> W::Output {
        work.run(self)
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use avx2::Avx2;

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi8, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi8,
        _mm256_cmpgt_epi8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    };

    use super::{Lanes, Splat, Vector, WithLanes, newline_plane, planes};
    use crate::planes::{Filter, PAD, Planes, WINDOW};

    /// Proof that this processor has AVX2, BMI1, BMI2, LZCNT and POPCNT: a value exists only
    /// where [`Avx2::detect`] found them.
    #[derive(Clone, Copy)]
    pub(crate) struct Avx2(());

    impl Avx2 {
        /// An `Avx2` if this processor has the features (asked once; the standard library
        /// caches the answer).
        pub(crate) fn detect() -> Option<Avx2> {
            let has = is_x86_feature_detected!("avx2")
                && is_x86_feature_detected!("bmi1")
                && is_x86_feature_detected!("bmi2")
                && is_x86_feature_detected!("lzcnt")
                && is_x86_feature_detected!("popcnt");
            has.then_some(Avx2(()))
        }
    }

    impl Lanes for Avx2 {
        /// `work.run` is inlined into a function that enables the features, so its bit loops
        /// use POPCNT, TZCNT and BLSR and its windows are classified 32 bytes at a time.
        #[inline]
        fn execute<W: WithLanes>(self, work: W) -> W::Output {
            #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
            fn with<W: WithLanes>(lanes: Avx2, work: W) -> W::Output {
                work.run(lanes)
            }
            // SAFETY: `self` exists only where `detect` found every feature `with` enables.
            unsafe { with(self, work) }
        }

        /// Classifies both halves of the window whatever `chunks` says: the zeros past the
        /// text give empty planes, and a loop without a branch per half is shorter.
        #[inline(always)]
        fn planes(self, win: &[u8; PAD], chunks: usize, filter: &Filter) -> Planes {
            debug_assert!(
                win[(16 * chunks).min(WINDOW)..WINDOW]
                    .iter()
                    .all(|&b| b == 0)
            );
            #[target_feature(enable = "avx2")]
            fn with(proof: Avx2, win: &[u8; PAD], filter: &Filter) -> Planes {
                planes::<V256, { WINDOW / 32 }>(proof, win, WINDOW / 32, filter)
            }
            // SAFETY: `self` exists only where `detect` found AVX2.
            unsafe { with(self, win, filter) }
        }

        #[inline(always)]
        fn newline_plane(self, win: &[u8; PAD]) -> u64 {
            #[target_feature(enable = "avx2")]
            fn with(proof: Avx2, win: &[u8; PAD]) -> u64 {
                newline_plane::<V256, { WINDOW / 32 }>(proof, win)
            }
            // SAFETY: `self` exists only where `detect` found AVX2.
            unsafe { with(self, win) }
        }
    }

    /// Thirty-two bytes in an AVX2 register. Every value is made from an [`Avx2`] (see
    /// [`Vector::Proof`]), so one exists only where the processor has AVX2, and each
    /// operation below, an AVX2 instruction, is sound on it. The operations are inlined
    /// into functions compiled for AVX2, where the instructions are inlined in turn.
    #[derive(Clone, Copy)]
    pub(crate) struct V256(__m256i);

    impl Vector for V256 {
        type Proof = Avx2;
        const BYTES: usize = 32;
        #[inline(always)]
        fn splat(_: Avx2, b: u8) -> V256 {
            // SAFETY: an `Avx2` exists only where `detect` found AVX2.
            V256(unsafe { _mm256_set1_epi8(b as i8) })
        }
        #[inline(always)]
        fn splatted(_: Avx2, s: &Splat) -> V256 {
            V256(wide::bytemuck::cast(s.0))
        }
        #[inline(always)]
        fn load(_: Avx2, win: &[u8; PAD], at: usize) -> V256 {
            let chunk: [u8; 32] = win[at..at + 32].try_into().expect("thirty-two bytes");
            V256(wide::bytemuck::cast(chunk))
        }
        #[inline(always)]
        fn or(self, other: V256) -> V256 {
            // SAFETY: a `V256` exists only where the processor has AVX2 (see the type).
            V256(unsafe { _mm256_or_si256(self.0, other.0) })
        }
        #[inline(always)]
        fn and(self, other: V256) -> V256 {
            // SAFETY: a `V256` exists only where the processor has AVX2 (see the type).
            V256(unsafe { _mm256_and_si256(self.0, other.0) })
        }
        #[inline(always)]
        fn and_not(self, other: V256) -> V256 {
            // SAFETY: a `V256` exists only where the processor has AVX2 (see the type).
            V256(unsafe { _mm256_andnot_si256(self.0, other.0) })
        }
        #[inline(always)]
        fn add(self, other: V256) -> V256 {
            // SAFETY: a `V256` exists only where the processor has AVX2 (see the type).
            V256(unsafe { _mm256_add_epi8(self.0, other.0) })
        }
        #[inline(always)]
        fn eq(self, other: V256) -> V256 {
            // SAFETY: a `V256` exists only where the processor has AVX2 (see the type).
            V256(unsafe { _mm256_cmpeq_epi8(self.0, other.0) })
        }
        #[inline(always)]
        fn lt(self, other: V256) -> V256 {
            // `a < b` as `b > a`.
            // SAFETY: a `V256` exists only where the processor has AVX2 (see the type).
            V256(unsafe { _mm256_cmpgt_epi8(other.0, self.0) })
        }
        #[inline(always)]
        fn mask(self) -> u64 {
            // SAFETY: a `V256` exists only where the processor has AVX2 (see the type).
            u64::from(unsafe { _mm256_movemask_epi8(self.0) } as u32)
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Bytes a window is made of: letters of both cases, digits, non-ASCII, separators,
    /// zeros, and the letters' neighbours in the ASCII table.
    const BYTES: &[u8] = b"aAbBlLrRoOvVeEyYzZ09/.-_ \n\t\0@[`{\x80\xc3\xa9\xe2\xff";

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        /// AVX2 computes the planes the portable code does, for windows of any length (the
        /// bytes after a short one are zeros, as the scanner guarantees) and any filter.
        #[test]
        fn avx2_planes_equal_portable(
            picks in proptest::collection::vec(proptest::sample::select(BYTES.to_vec()), PAD),
            len in 0usize..=PAD,
            first in proptest::collection::vec(proptest::sample::select(b"ablz09".to_vec()), 0..4),
            pieces in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(b"abloryz0".to_vec()), 0..4),
                0..4,
            ),
        ) {
            let Some(avx2) = Avx2::detect() else {
                return Ok(());
            };
            let mut win = [0u8; PAD];
            win.copy_from_slice(&picks);
            if len < WINDOW {
                win[len..].fill(0);
            }
            let chunks = len.min(WINDOW).div_ceil(16);
            let pieces: Vec<&[u8]> = pieces.iter().map(Vec::as_slice).collect();
            for filter in [Filter::new(&first, &pieces), Filter::all()] {
                proptest::prop_assert_eq!(
                    avx2.planes(&win, chunks, &filter),
                    Portable.planes(&win, chunks, &filter)
                );
            }
            proptest::prop_assert_eq!(avx2.newline_plane(&win), Portable.newline_plane(&win));
        }
    }
}

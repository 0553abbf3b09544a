//! How the scanner classifies a window: with the vector instructions every target has
//! ([`Portable`]: `wide`'s sixteen-byte vectors, SSE2 on x86-64, NEON on aarch64, plain arrays
//! elsewhere), or with AVX2 where the processor has it ([`Avx2`], x86-64 only), chosen once
//! per search by [`dispatch`].
//!
//! This is the crate's only module with `unsafe` code, and it has three `unsafe` blocks, each
//! a call to a function compiled for AVX2: the one that runs the search pass (compiled for
//! BMI1, BMI2, LZCNT and POPCNT too), and the two that classify a window. Such a call is sound
//! exactly when the processor has those features. Each is made through an [`Avx2`] value, and
//! the only way to get one is [`Avx2::detect`], which asks the processor at run time
//! (`is_x86_feature_detected!`).
//!
//! Both ways compute the same [`Planes`] bit for bit (property-tested here), and the scanner's
//! and the engine's tests run with each (AVX2 where the test machine has it).

use wide::i8x16;

use crate::scan::{Filter, PAD, Planes, WINDOW};

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

/// A splatted byte: the same byte in each of 32 lanes, aligned so that a compare can read it
/// straight from memory.
#[derive(Clone, Copy)]
#[repr(align(32))]
pub(crate) struct Splat([u8; 32]);

impl Splat {
    /// `b` in every lane.
    pub(crate) fn new(b: u8) -> Splat {
        Splat([b; 32])
    }

    /// Its first sixteen lanes.
    #[inline(always)]
    fn v16(&self) -> i8x16 {
        let half: [u8; 16] = self.0[..16].try_into().expect("sixteen bytes");
        wide::bytemuck::cast(half)
    }
}

/// `wide`'s sixteen-byte vectors, on every target.
#[derive(Clone, Copy)]
pub(crate) struct Portable;

/// Sixteen bytes of `win` from `at`, as one vector (`wide`'s vectors are plain bytes:
/// `bytemuck::Pod`).
#[inline(always)]
fn load16(win: &[u8; PAD], at: usize) -> i8x16 {
    let chunk: [u8; 16] = win[at..at + 16].try_into().expect("sixteen bytes");
    wide::bytemuck::cast(chunk)
}

impl Lanes for Portable {
    #[inline(always)]
    fn planes(self, win: &[u8; PAD], chunks: usize, filter: &Filter) -> Planes {
        // A whole window (most of them) gets its own copy, whose loops, with their constant
        // count, unroll.
        if chunks >= WINDOW / 16 {
            planes16(win, WINDOW / 16, filter)
        } else {
            planes16(win, chunks, filter)
        }
    }

    #[inline(always)]
    fn newline_plane(self, win: &[u8; PAD]) -> u64 {
        let newline = i8x16::splat(b'\n' as i8);
        let m = |k: usize| u64::from(load16(win, 16 * k).simd_eq(newline).to_bitmask()) << (16 * k);
        m(0) | m(1) | m(2) | m(3)
    }

    #[inline(always)]
    fn execute<W: WithLanes>(self, work: W) -> W::Output {
        work.run(self)
    }
}

/// [`Portable`]'s planes.
// The four chunks are indexed together across several arrays.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn planes16(win: &[u8; PAD], chunks: usize, filter: &Filter) -> Planes {
    const N: usize = WINDOW / 16;
    let mut p = Planes::default();
    let zero = i8x16::splat(0);
    let case = i8x16::splat(0x20);
    // A chunk past the text is zeros, folded: what AVX2, which classifies every chunk, has.
    let mut folded = [case; N];
    for k in 0..N {
        if k >= chunks {
            break;
        }
        let x = load16(win, 16 * k);
        // Unsigned range tests as signed compares: (b - lo) as u8 < n  ⟺
        // (b - lo + 0x80) as i8 < n - 128.
        folded[k] = x | case;
        let letter = (folded[k] + i8x16::splat(0x80u8.wrapping_sub(b'a') as i8))
            .simd_lt(i8x16::splat(i8::MIN + 26));
        let digit =
            (x + i8x16::splat(0x80u8.wrapping_sub(b'0') as i8)).simd_lt(i8x16::splat(i8::MIN + 10));
        let small = (x & case).simd_eq(zero);
        let shift = 16 * k;
        // A byte of 0x80 and above is negative: its own sign bit.
        p.run |= u64::from((letter | digit | x).to_bitmask()) << shift;
        p.upper |= u64::from((letter & small).to_bitmask()) << shift;
        p.lower |= u64::from((letter & !small).to_bitmask()) << shift;
        p.high |= u64::from(x.to_bitmask()) << shift;
    }
    if filter.all {
        return p;
    }
    // The filter on all four chunks (past the text they are zeros, which are not in runs):
    // each first byte and piece compared with every chunk, the results gathered per chunk.
    let bits = |v: [i8x16; N]| -> u64 {
        let m = |k: usize| u64::from(v[k].to_bitmask()) << (16 * k);
        m(0) | m(1) | m(2) | m(3)
    };
    let mut first = [zero; N];
    for b in &filter.first {
        let b = b.v16();
        for k in 0..N {
            first[k] |= folded[k].simd_eq(b);
        }
    }
    p.first = bits(first);
    let mut piece = [zero; N];
    for a in &filter.ones {
        let a = a.v16();
        for k in 0..N {
            piece[k] |= folded[k].simd_eq(a);
        }
    }
    if !filter.twos.is_empty() || !filter.threes.is_empty() {
        // A piece starts at a byte when the bytes one and two further (loaded again from
        // there: the window has room after it) equal its next ones.
        let mut next = [zero; N];
        let mut after = [zero; N];
        for k in 0..N {
            next[k] = load16(win, 16 * k + 1) | case;
            after[k] = load16(win, 16 * k + 2) | case;
        }
        for [a, b] in &filter.twos {
            let (a, b) = (a.v16(), b.v16());
            for k in 0..N {
                piece[k] |= folded[k].simd_eq(a) & next[k].simd_eq(b);
            }
        }
        for [a, b, c] in &filter.threes {
            let (a, b, c) = (a.v16(), b.v16(), c.v16());
            for k in 0..N {
                piece[k] |= folded[k].simd_eq(a) & next[k].simd_eq(b) & after[k].simd_eq(c);
            }
        }
    }
    p.piece = bits(piece);
    p
}

#[cfg(target_arch = "x86_64")]
pub(crate) use avx2::Avx2;

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi8, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi8,
        _mm256_cmpgt_epi8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
        _mm256_setzero_si256,
    };

    use super::{Lanes, Splat, WithLanes};
    use crate::scan::{Filter, PAD, Planes, WINDOW};

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
            // SAFETY: `self` exists only where `detect` found AVX2.
            unsafe { planes(win, filter) }
        }

        #[inline(always)]
        fn newline_plane(self, win: &[u8; PAD]) -> u64 {
            // SAFETY: `self` exists only where `detect` found AVX2.
            unsafe { newline_plane(win) }
        }
    }

    /// Thirty-two bytes of `win` from `at`, as one vector.
    #[inline(always)]
    fn load(win: &[u8; PAD], at: usize) -> __m256i {
        let chunk: [u8; 32] = win[at..at + 32].try_into().expect("thirty-two bytes");
        wide::bytemuck::cast(chunk)
    }

    #[inline(always)]
    fn splat(s: &Splat) -> __m256i {
        wide::bytemuck::cast(s.0)
    }

    /// [`Lanes::planes`] 32 bytes at a time: the same tests as [`super::Portable`]'s.
    #[target_feature(enable = "avx2")]
    #[inline]
    #[allow(clippy::needless_range_loop)]
    fn planes(win: &[u8; PAD], filter: &Filter) -> Planes {
        const N: usize = WINDOW / 32;
        let mut p = Planes::default();
        let zero = _mm256_setzero_si256();
        let case = _mm256_set1_epi8(0x20);
        let bits = |v: __m256i, k: usize| u64::from(_mm256_movemask_epi8(v) as u32) << (32 * k);
        let mut folded = [zero; N];
        for k in 0..N {
            let x = load(win, 32 * k);
            folded[k] = _mm256_or_si256(x, case);
            // `a > b` as `b < a`, the signed range tests of the portable code.
            let letter = _mm256_cmpgt_epi8(
                _mm256_set1_epi8(i8::MIN + 26),
                _mm256_add_epi8(folded[k], _mm256_set1_epi8(0x80u8.wrapping_sub(b'a') as i8)),
            );
            let digit = _mm256_cmpgt_epi8(
                _mm256_set1_epi8(i8::MIN + 10),
                _mm256_add_epi8(x, _mm256_set1_epi8(0x80u8.wrapping_sub(b'0') as i8)),
            );
            let small = _mm256_cmpeq_epi8(_mm256_and_si256(x, case), zero);
            p.run |= bits(_mm256_or_si256(_mm256_or_si256(letter, digit), x), k);
            p.upper |= bits(_mm256_and_si256(letter, small), k);
            p.lower |= bits(_mm256_andnot_si256(small, letter), k);
            p.high |= bits(x, k);
        }
        if filter.all {
            return p;
        }
        let mut first = [zero; N];
        for b in &filter.first {
            let b = splat(b);
            for k in 0..N {
                first[k] = _mm256_or_si256(first[k], _mm256_cmpeq_epi8(folded[k], b));
            }
        }
        p.first = bits(first[0], 0) | bits(first[1], 1);
        let mut piece = [zero; N];
        for a in &filter.ones {
            let a = splat(a);
            for k in 0..N {
                piece[k] = _mm256_or_si256(piece[k], _mm256_cmpeq_epi8(folded[k], a));
            }
        }
        if !filter.twos.is_empty() || !filter.threes.is_empty() {
            let mut next = [zero; N];
            let mut after = [zero; N];
            for k in 0..N {
                next[k] = _mm256_or_si256(load(win, 32 * k + 1), case);
                after[k] = _mm256_or_si256(load(win, 32 * k + 2), case);
            }
            for [a, b] in &filter.twos {
                let (a, b) = (splat(a), splat(b));
                for k in 0..N {
                    let hit = _mm256_and_si256(
                        _mm256_cmpeq_epi8(folded[k], a),
                        _mm256_cmpeq_epi8(next[k], b),
                    );
                    piece[k] = _mm256_or_si256(piece[k], hit);
                }
            }
            for [a, b, c] in &filter.threes {
                let (a, b, c) = (splat(a), splat(b), splat(c));
                for k in 0..N {
                    let hit = _mm256_and_si256(
                        _mm256_and_si256(
                            _mm256_cmpeq_epi8(folded[k], a),
                            _mm256_cmpeq_epi8(next[k], b),
                        ),
                        _mm256_cmpeq_epi8(after[k], c),
                    );
                    piece[k] = _mm256_or_si256(piece[k], hit);
                }
            }
        }
        p.piece = bits(piece[0], 0) | bits(piece[1], 1);
        p
    }

    /// [`Lanes::newline_plane`] 32 bytes at a time.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn newline_plane(win: &[u8; PAD]) -> u64 {
        let newline = _mm256_set1_epi8(b'\n' as i8);
        let m = |k: usize| {
            u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(load(win, 32 * k), newline)) as u32)
                << (32 * k)
        };
        m(0) | m(1)
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

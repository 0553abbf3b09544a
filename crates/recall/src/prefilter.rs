//! Cheap necessary conditions for a token to match a query word, each derived from the rules
//! of [`crate::similarity`] (the proof is beside each), and checked against
//! [`similarity`](crate::similarity::similarity)(crate::similarity::similarity) by property tests: a token they reject cannot
//! match. [`Probe::may_match`] is tested per token, [`scan_filter`] on 64 bytes at once by the
//! scanner.

use crate::planes::Filter;
use crate::search_options::SearchOptions;
use crate::similarity::allowed_edits;
use crate::text::{letter_bit, letter_mask, porter2, stem};

/// The letters [`stem`](crate::text::stem) strips (`-s`, `-ing`, `-ed`, `-ion` of `-tion`, `-e`, `-ies`/`-ied`)
/// or writes (`y`): two words with the same stem differ only in these.
const SUFFIX_LETTERS: u32 = {
    let mut m = 0u32;
    let letters = b"singedoy";
    let mut i = 0;
    while i < letters.len() {
        m |= letter_bit(letters[i]);
        i += 1;
    }
    m
};

/// The first four bytes of `v` as one little-endian word (padded with its last byte).
#[inline]
pub(crate) fn head4(v: &[u8]) -> u32 {
    let Some(last) = v.len().checked_sub(1) else {
        return 0;
    };
    // Past the end, the last byte again (no branch, no `memcpy` call): the prefilter only
    // compares head bytes a token has.
    let b = |k: usize| v[k.min(last)];
    u32::from_le_bytes([b(0), b(1), b(2), b(3)])
}

/// A token being classified: its bytes, [`head4`] and [`letter_mask`].
pub(crate) struct Token<'t> {
    pub(crate) bytes: &'t [u8],
    head: u32,
    mask: u32,
}

impl<'t> Token<'t> {
    #[inline]
    pub(crate) fn new(bytes: &'t [u8]) -> Token<'t> {
        Token {
            bytes,
            head: head4(bytes),
            mask: letter_mask(bytes),
        }
    }
}

/// Whether `bits` has at most `n` bits set (`n` ≤ 2; cheaper than a popcount without the
/// instruction, which the baseline x86-64 target lacks).
#[inline]
fn at_most(bits: u32, n: u32) -> bool {
    let one_less = bits & bits.wrapping_sub(1);
    let two_less = one_less & one_less.wrapping_sub(1);
    [bits, one_less, two_less][n.min(2) as usize] == 0
}

/// What the prefilter needs of a query word, packed for the loop over every token.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Probe {
    /// [`head4`] of the word.
    pub(crate) head: u32,
    /// [`letter_mask`] of the word.
    pub(crate) mask: u32,
    pub(crate) len: usize,
    /// The most edits any typo branch of [`similarity`](crate::similarity::similarity) allows for this word.
    pub(crate) max_edits: u32,
    /// Whether the word's Snowball stem is long enough to match by
    /// ([`same_porter2`](crate::similarity::same_porter2)).
    pub(crate) porter: bool,
}

impl Probe {
    /// A cheap necessary condition for `similarity(q, qs, v, _) > 0`: false means the token
    /// cannot match this word, true that it may.
    ///
    /// Every branch of [`similarity`](crate::similarity::similarity) is covered: a word of at most five bytes only matches
    /// tokens with its first byte (exact, prefixes, same stem, and its typo rule); the prefix
    /// branches imply equal first three or four bytes, and so does a stem of at least five
    /// bytes that begins the word (the stemmer may rewrite only its last byte, so the token
    /// begins with the stem's first four), and so does the same Snowball stem (see
    /// [`same_porter2`](crate::similarity::same_porter2)); everything else needs lengths within
    /// four, and the token may neither bring nor lose more than `max_edits` distinct bytes
    /// outside the stemmer's suffix letters (an edit adds or removes at most one distinct
    /// byte; two words with the same stem differ only in suffix letters).
    #[inline]
    pub(crate) fn may_match(&self, v: &Token<'_>) -> bool {
        let (lq, lv) = (self.len, v.bytes.len());
        let diff = self.head ^ v.head;
        // Evaluated without branches (`&`, `|` on bools): which way a token goes is
        // unpredictable, and a mispredicted branch costs more than the whole test. Equal
        // heads mean equal leading bytes only where both words have them; each test only
        // looks at bytes both have.
        let first = (lq > 5) | (diff & 0xff == 0);
        let near = lq.abs_diff(lv) <= 4;
        let prefix = (lq >= 3) & (lv > lq) & (diff & 0x00ff_ffff == 0)
            | (lv >= 4) & (lq > lv) & (diff == 0)
            | (lv >= 5) & (lq > 5) & (diff == 0) & near
            | self.porter & (lv >= 4) & (diff & 0x00ff_ffff == 0);
        let letters = at_most(v.mask & !self.mask & !SUFFIX_LETTERS, self.max_edits)
            & at_most(self.mask & !v.mask & !SUFFIX_LETTERS, self.max_edits);
        first & (prefix | near & letters)
    }
}

/// A necessary condition for a token to match one of `words` (see [`Filter`]), which lets the
/// scanner skip most tokens without looking them up.
///
/// Every way [`Matcher::lookup`](crate::pass) can match a token `v` to a word `q` (with stem `qs`) is
/// covered:
/// - equality, and every branch of [`similarity`](crate::similarity::similarity) for a word of at most five bytes (and every
///   word without `fuzzy`): `v` begins with `q`'s first byte;
/// - `q` begins `v` (`q` of at least three bytes), or `v` of at least four bytes begins `q`:
///   `v` contains `q[..3]`;
/// - equal stems of at least three bytes: [`stem`](crate::text::stem) keeps a prefix and may rewrite its last
///   byte, so `v` begins with `qs` less its last byte, which begins `q`: `v` contains
///   `q[..3]`, or `q[..2]` when `qs` has three bytes;
/// - `v`'s stem of at least five bytes begins `q` (a slip in the ending): `v` begins with that
///   stem's first four bytes, which begin `q`, so `v` contains `q[..3]` (and `q[..2]`);
/// - a typo, at most `k` edits of `q` (or of `qs` against `v`'s stem): see [`gap_pieces`];
///   a piece of the stem that ends in `y` is also looked for with `i` (`copies` → `copy`).
///
/// A similarity of zero is no match, whatever [`SearchOptions::min_similarity`] is.
///
/// A synonym matches only itself or a word of its stem (of at least three bytes), which
/// begins with the stem less its last byte: so a token it matches contains its first three
/// bytes (two when the stem has three), as above, and begins with its first byte. The
/// pieces are the sharper test (a synonym's first byte lets through every token that begins
/// with a common letter); they are used unless they would make the filter too costly to test,
/// and then the first bytes are.
pub(crate) fn scan_filter(words: &[Word], opts: &SearchOptions) -> Filter {
    let mut first = Vec::new();
    let mut pieces: Vec<Vec<u8>> = Vec::new();
    let (mut syn_first, mut syn_pieces) = (Vec::new(), Vec::new());
    for w in words {
        let (q, qs) = (&w.bytes[..], &w.stem[..]);
        let Some(&b0) = q.first() else {
            return Filter::all();
        };
        if w.synonym.is_some() && opts.fuzzy {
            syn_first.push(b0);
            syn_pieces.push(if qs.len() >= 3 {
                q[..if qs.len() == 3 { 2 } else { 3 }].to_vec()
            } else {
                q.to_vec()
            });
            continue;
        }
        if !opts.fuzzy || q.len() <= 5 || w.synonym.is_some() {
            first.push(b0);
            continue;
        }
        pieces.push(q[..if qs.len() == 3 { 2 } else { 3 }].to_vec());
        gap_pieces(q, allowed_edits(q.len()), &mut pieces);
        if qs.len() >= 5 {
            let from = pieces.len();
            gap_pieces(qs, allowed_edits(qs.len()), &mut pieces);
            for i in from..pieces.len() {
                if let Some((b'y', rest)) = pieces[i].split_last() {
                    pieces.push([rest, b"i"].concat());
                }
            }
        }
    }
    // A synonym whose first byte the filter tests anyway costs nothing more by it.
    let all_pieces: Vec<&[u8]> = pieces
        .iter()
        .map(Vec::as_slice)
        .chain(
            syn_pieces
                .iter()
                .zip(&syn_first)
                .filter(|(_, b)| !first.contains(b))
                .map(|(p, _)| p.as_slice()),
        )
        .collect();
    let sharp = Filter::new(&first, &all_pieces);
    if !sharp.all || syn_pieces.is_empty() {
        return sharp;
    }
    first.extend(syn_first);
    let pieces: Vec<&[u8]> = pieces.iter().map(Vec::as_slice).collect();
    Filter::new(&first, &pieces)
}

/// Pieces of `q`, one of which every string within `k` edits of `q` (insertions, deletions,
/// substitutions, transpositions of neighbours: [`osa_within`](crate::text::osa_within)) contains: `k + 1` pieces of at
/// most three bytes with a byte left out between each two. An edit touches at most one piece
/// — a transposition's two bytes cannot lie in two pieces with a byte between them, and an
/// insertion breaks at most the piece around it — so `k` edits leave one piece whole, in
/// order, and contiguous. Adds nothing for `k = 0` (no typo is allowed), and an empty piece,
/// which every token contains, when `q` is too short to leave `k + 1` pieces (never for the
/// edits [`allowed_edits`] gives: one from four bytes, two from eight).
fn gap_pieces(q: &[u8], k: u32, pieces: &mut Vec<Vec<u8>>) {
    let k = k as usize;
    if k == 0 {
        return;
    }
    let n = q.len().saturating_sub(k);
    if n < k + 1 {
        pieces.push(Vec::new());
        return;
    }
    let (base, extra) = (n / (k + 1), n % (k + 1));
    let mut at = 0;
    for i in 0..=k {
        let len = base + usize::from(i < extra);
        pieces.push(q[at..at + len.min(3)].to_vec());
        at += len + 1;
    }
}

/// A word to match against the tokens of the documents: a query word, or a synonym of one.
pub(crate) struct Word {
    pub(crate) bytes: Vec<u8>,
    pub(crate) stem: Vec<u8>,
    /// The Snowball English stem ([`porter2`]).
    pub(crate) porter: Vec<u8>,
    /// The query word it stands for (its index in the query's terms).
    pub(crate) slot: usize,
    pub(crate) is_last: bool,
    /// For a synonym, the factor its similarity is scaled by; it then matches only itself
    /// and words of its stem ([`synonym_similarity`](crate::similarity::synonym_similarity)).
    pub(crate) synonym: Option<f32>,
    pub(crate) probe: Probe,
}

impl Word {
    pub(crate) fn new(q: &[u8], slot: usize, is_last: bool, synonym: Option<f32>) -> Word {
        let bytes = q.to_vec();
        let mut buf = [0u8; 64];
        let stem = stem(&bytes, &mut buf).to_vec();
        let porter = porter2(&bytes);
        let stem_edits = if stem.len() >= 5 {
            allowed_edits(stem.len())
        } else {
            0
        };
        Word {
            probe: Probe {
                head: head4(&bytes),
                mask: letter_mask(&bytes),
                len: bytes.len(),
                max_edits: allowed_edits(bytes.len()).max(stem_edits),
                porter: porter.len() >= 4,
            },
            porter,
            bytes,
            stem,
            slot,
            is_last,
            synonym,
        }
    }

    /// See [`Probe::may_match`].
    #[inline]
    pub(crate) fn may_match(&self, v: &Token<'_>) -> bool {
        self.probe.may_match(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::Query;
    use crate::reference::mutate;
    use crate::similarity::{similarity, synonym_similarity};
    use crate::text::{osa_within, stem};

    /// A query word, alone in its query.
    fn word(q: &str, is_last: bool) -> Word {
        Word::new(q.as_bytes(), 0, is_last, None)
    }

    #[test]
    fn at_most_table() {
        for bits in [0u32, 1, 2, 3, 0x8000_0001, 0b1011, u32::MAX] {
            for n in 0..=2 {
                assert_eq!(at_most(bits, n), bits.count_ones() <= n, "{bits:b} {n}");
            }
        }
    }

    #[test]
    fn prefilter_table() {
        // (query word, token, whether similarity() matches them): every match must pass the
        // prefilter, and the filter must reject the far-off tokens it exists to skip.
        let cases: &[(&str, &str, bool)] = &[
            ("auth", "authentication", true),
            ("authentication", "auth", true),
            ("migratoin", "migration", true),
            ("checkpnt", "checkpoint", true),
            ("queries", "query", true),
            ("query", "queries", true),
            ("migrating", "migration", true),
            ("migration", "migrated", true),
            ("datbase", "database", true),
            ("rolover", "rollover", true),
            ("sha256", "sha265", true),
            ("lock", "block", false),
            ("lazy", "regex", false),
            ("rolover", "automata", false),
            ("dfa", "nfa", false),
            ("consolidaton", "consolidation", true),
            // A slip in the ending: the token's stem begins the word.
            ("migratoin", "migrated", true),
            ("migratoin", "migrations", true),
            ("parallelizaton", "parallelized", true),
            // Equal lengths, and more new letters than edits: only the stem branch admits it.
            ("chunkar", "chunked", true),
        ];
        for &(q, v, matches) in cases {
            let w = word(q, false);
            let sim = similarity(&w.bytes, &w.stem, &w.porter, v.as_bytes(), false);
            assert_eq!(sim > 0.0, matches, "{q} ~ {v}: {sim}");
            assert_eq!(w.may_match(&Token::new(v.as_bytes())), matches, "{q} ~ {v}");
            let filter = scan_filter(std::slice::from_ref(&w), &SearchOptions::default());
            assert!(!matches || filter.passes(v.as_bytes()), "{q} ~ {v}");
        }
    }

    #[test]
    // Long: a test table.
    fn scan_filter_table() {
        let opts = SearchOptions::default();
        let filter = |q: &str| {
            scan_filter(
                &Query::parse(q)
                    .terms
                    .iter()
                    .enumerate()
                    .map(|(i, t)| word(t, i + 1 == Query::parse(q).terms.len()))
                    .collect::<Vec<_>>(),
                &opts,
            )
        };
        // (query, tokens that pass, tokens that fail)
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "lazy dfa rolover bug",
                &["lazy", "dfa", "bugs", "rollover", "roll", "over", "xrolx"],
                &["the", "fixed", "automata", "regex", "ro", "ov"],
            ),
            (
                "migratoin",
                &["migration", "migrate", "mig", "rat", "attic", "oin"],
                &["fixed", "the", "store"],
            ),
            (
                "copied",
                &["copies", "copy", "cop", "ied", "bed"],
                &["the", "store", "pie"],
            ),
            // Pieces of a stem that ends in a written y also match with i.
            (
                "studies",
                &["studied", "study", "studio", "tudi"],
                &["fixed", "sample"],
            ),
        ];
        for &(q, pass, fail) in cases {
            let f = filter(q);
            for v in pass {
                assert!(f.passes(v.as_bytes()), "{q}: {v} should pass");
            }
            for v in fail {
                assert!(!f.passes(v.as_bytes()), "{q}: {v} should fail");
            }
        }
        // Matches that only the subtler pieces let through: the stem's piece with `i` for its
        // written `y` (`sxudied` is one edit from the stem `study`, two from `studies`), the
        // two-byte prefix of a three-byte stem, and the third piece of a two-edit word.
        for (q, v) in [
            ("studies", "sxudied"),
            ("stying", "sties"),
            ("migratoin", "xigratxin"),
        ] {
            let w = word(q, true);
            assert!(
                similarity(&w.bytes, &w.stem, &w.porter, v.as_bytes(), true) > 0.0,
                "{q} ~ {v}"
            );
            assert!(scan_filter(&[w], &opts).passes(v.as_bytes()), "{q} ~ {v}");
        }
        // Without fuzzy matching, only the first bytes.
        let exact = SearchOptions {
            fuzzy: false,
            ..SearchOptions::default()
        };
        let words = [word("rolover", true)];
        assert!(scan_filter(&words, &exact).passes(b"rat"));
        assert!(!scan_filter(&words, &exact).passes(b"over"));
        // Synonyms by the first bytes of their stems, not by their first byte alone.
        let q = Query::parse("lazy dfa rolover bug");
        let f = scan_filter(&q.words(&opts), &opts);
        for v in ["regressions", "glitch", "defects", "mistake"] {
            assert!(f.passes(v.as_bytes()), "{v} should pass");
        }
        for v in ["return", "merge", "gate"] {
            assert!(!f.passes(v.as_bytes()), "{v} should fail");
        }
    }

    #[test]
    fn gap_pieces_table() {
        let pieces = |q: &str, k| {
            let mut p = Vec::new();
            gap_pieces(q.as_bytes(), k, &mut p);
            p.iter()
                .map(|p| String::from_utf8_lossy(p).into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(pieces("rolover", 1), ["rol", "ver"]);
        assert_eq!(pieces("migratoin", 2), ["mig", "at", "in"]);
        assert_eq!(pieces("consolidaton", 2), ["con", "lid", "ton"]);
        assert_eq!(pieces("abc", 0), Vec::<String>::new());
        assert_eq!(pieces("ab", 1), [""]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        #[test]
        fn every_string_within_k_edits_contains_a_gap_piece(
            q in "[abc]{1,14}",
            edits in proptest::collection::vec((0u8..4, 0usize..64, proptest::sample::select(
                b"abcd".to_vec())), 0..3),
            k in 1u32..3,
        ) {
            let v = mutate(q.as_bytes(), &edits);
            let mut pieces = Vec::new();
            gap_pieces(q.as_bytes(), k, &mut pieces);
            if osa_within(q.as_bytes(), &v, k as usize).is_some() {
                proptest::prop_assert!(
                    pieces.iter().any(|p| v.windows(p.len().max(1)).any(|w| w.starts_with(p))
                        || p.is_empty()),
                    "{:?} ~ {:?}: no piece of {:?}", q, String::from_utf8_lossy(&v), pieces
                );
            }
        }
    }

    /// Snowball English suffixes and endings it rewrites, to build words of one stem.
    const SNOWBALL_ENDINGS: &[&str] = &[
        "", "s", "es", "ies", "ied", "y", "ing", "ingly", "ed", "edly", "eed", "e", "ation",
        "ational", "tional", "ization", "izer", "ize", "ator", "ate", "alism", "aliti", "alli",
        "al", "fulness", "ful", "fulli", "ousli", "ousness", "ous", "iveness", "iviti", "ive",
        "biliti", "bli", "ble", "able", "ible", "abli", "ogi", "lessli", "less", "entli", "ent",
        "ement", "ment", "enci", "ence", "anci", "ance", "icate", "iciti", "ical", "ic", "ness",
        "ative", "ism", "ist", "iti", "ity", "li", "ly", "er", "ant", "ion", "ll",
    ];

    /// The claim the prefilters rest on for the Snowball rule: a stem of four bytes or more
    /// begins with the first three bytes of the word, over every token of both evaluation
    /// corpora.
    #[test]
    fn a_long_snowball_stem_keeps_the_first_three_bytes() {
        let mut buf = Vec::new();
        let mut n = 0;
        for text in [
            include_str!("../tests/fixtures/eval_checkpoints.jsonl"),
            include_str!("../tests/fixtures/nl_corpus.jsonl"),
        ] {
            crate::text::tokenize(text, &mut buf, |t| {
                let p = crate::text::porter2(t);
                if p.len() >= 4 {
                    n += 1;
                    assert_eq!(p[..3], t[..3], "{}", String::from_utf8_lossy(t));
                }
            });
        }
        assert!(n > 50_000, "{n} tokens");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        /// Two words of one root with Snowball endings: when their stems are the same (and
        /// long enough), the prefilters let the one through for the other.
        #[test]
        fn prefilter_never_rejects_a_snowball_match(
            root in "[a-z]{0,3}[aeiouy][b-df-hj-np-tv-z][a-z]{0,4}",
            a in proptest::sample::select(SNOWBALL_ENDINGS),
            b in proptest::sample::select(SNOWBALL_ENDINGS),
            is_last: bool,
        ) {
            let (q, v) = (format!("{root}{a}"), format!("{root}{b}"));
            let w = word(&q, is_last);
            let syn = Word::new(q.as_bytes(), 0, false, Some(0.7));
            let v = v.as_bytes();
            let p = crate::text::porter2(v);
            proptest::prop_assert!(p.len() < 4 || p[..3] == v[..3], "{:?}", v);
            if crate::similarity::same_porter2(&w.bytes, &w.porter, v) {
                let opts = SearchOptions::default();
                proptest::prop_assert!(similarity(&w.bytes, &w.stem, &w.porter, v, is_last) > 0.0);
                proptest::prop_assert!(w.may_match(&Token::new(v)), "{} ~ {:?}", q, v);
                proptest::prop_assert!(scan_filter(std::slice::from_ref(&w), &opts).passes(v));
                proptest::prop_assert!(syn.may_match(&Token::new(v)));
                proptest::prop_assert!(scan_filter(std::slice::from_ref(&syn), &opts).passes(v));
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]
        #[test]
        fn prefilter_never_rejects_a_match(
            q in "[a-z0-9éü]{0,13}",
            other in "[a-zé0-9]{0,13}",
            edits in proptest::collection::vec((0u8..5, 0usize..64, proptest::sample::select(
                b"abcdegilnorstuy09\xc3\xa9".to_vec())), 0..3),
            suffix in proptest::sample::select(vec![
                "", "s", "es", "ies", "ied", "y", "ing", "ed", "d", "e", "tion", "ion", "ions",
                "ation", "er", "ers", "ly", "ness", "ational", "ization", "fulness", "ment",
                "ments", "ity", "ities", "ive", "ively", "able", "ably", "ance", "ence", "ism",
                "ist", "ful", "less", "ous", "ousness", "ically", "al", "ally", "ies",
            ]),
            strip in 0usize..5,
            is_last: bool,
        ) {
            let w = word(&q, is_last);
            let filter = scan_filter(std::slice::from_ref(&w), &SearchOptions::default());
            let mut stemmed = [0u8; 64];
            let base = mutate(q.as_bytes(), &edits);
            // Up to four bytes off the end: a slip in the ending, after a stem (see `similarity`).
            let kept = base.len().saturating_sub(strip);
            let mut candidates = vec![
                other.as_bytes().to_vec(),
                base.clone(),
                [&base[..kept], suffix.as_bytes()].concat(),
                [stem(&base, &mut stemmed), suffix.as_bytes()].concat(),
                [q.as_bytes(), suffix.as_bytes()].concat(),
            ];
            candidates.push(mutate(&candidates[2], &edits));
            // The same word as a synonym: a first byte in the filter, and its own probe.
            let syn = Word::new(q.as_bytes(), 0, false, Some(0.7));
            let syn_filter = scan_filter(std::slice::from_ref(&syn), &SearchOptions::default());
            for v in candidates {
                let s = synonym_similarity(&syn.bytes, &syn.stem, &syn.porter, &v);
                proptest::prop_assert!(
                    s <= 0.0 || syn.may_match(&Token::new(&v)) && syn_filter.passes(&v),
                    "synonym {:?} ~ {:?}: similarity {} but rejected",
                    q,
                    String::from_utf8_lossy(&v),
                    s
                );
                let sim = similarity(&w.bytes, &w.stem, &w.porter, &v, is_last);
                proptest::prop_assert!(
                    sim <= 0.0 || w.may_match(&Token::new(&v)) && filter.passes(&v),
                    "{:?} ~ {:?}: similarity {} but rejected",
                    q,
                    String::from_utf8_lossy(&v),
                    sim
                );
            }
        }
    }
}

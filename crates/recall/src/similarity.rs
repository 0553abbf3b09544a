//! What counts as a match, and how close: the single owner of the matching rules and their
//! thresholds. Change a rule here (and its tests); the prefilters in [`crate::prefilter`] are
//! checked against [`similarity`] by a property test, so a rule they no longer cover fails it.

use crate::text::{osa_within, stem};

/// How many edits [`similarity`]'s typo test allows in a word of `len` bytes.
pub(crate) fn allowed_edits(len: usize) -> u32 {
    if len >= 8 {
        2
    } else if len >= 4 {
        1
    } else {
        0
    }
}

/// Endings that make another form of the same word: inflections, and the nouns of verbs.
const ENDINGS: [&[u8]; 10] = [
    b"s", b"es", b"ed", b"ing", b"ings", b"ion", b"ions", b"ation", b"ations", b"er",
];

/// Whether `rest`, the bytes of a query word after a term's stem, is a slip in one of the
/// [`ENDINGS`]: two to four bytes, at most one edit from it. (One byte after the stem is the
/// ending itself — the stems are then equal — or any byte at all: too loose.)
fn is_ending_slip(rest: &[u8]) -> bool {
    (2..=4).contains(&rest.len()) && ENDINGS.iter().any(|e| osa_within(rest, e, 1).is_some())
}

/// How similar a vocabulary term `v` is to the query word `q` (with stem `qs`), 0–1;
/// exact equality is handled by the caller and scores 0 here only if nothing else applies.
pub(crate) fn similarity(q: &[u8], qs: &[u8], v: &[u8], is_last: bool) -> f32 {
    if v == q {
        return 1.0;
    }
    let (lq, lv) = (q.len(), v.len());
    let mut sim = 0.0f32;
    // Partial words: the query word begins a longer term ("auth" → "authentication"),
    // more readily for the last word, which may still be being typed.
    if lq >= 3 && lv > lq && v.starts_with(q) {
        let base = if is_last { 0.6 } else { 0.5 };
        sim = sim.max(base + 0.35 * lq as f32 / lv as f32);
    }
    // The other way: a shorter term begins the query word ("authentication" → "auth").
    if lv >= 4 && lq > lv && q.starts_with(v) {
        sim = sim.max(0.45 + 0.35 * lv as f32 / lq as f32);
    }
    if lq.abs_diff(lv) > 4 {
        return sim;
    }
    let mut vs_buf = [0u8; 64];
    let vs = stem(v, &mut vs_buf);
    if vs.len() >= 3 && vs == qs {
        return sim.max(0.92);
    }
    // A slip in the ending: the term's stem of at least five bytes begins the query word,
    // whose rest is at most one edit from an inflection's ending ("migratoin" → "migrated",
    // stem "migrat", "oin" ~ "ion"; not "checkout" → "checked"). Scored as the shorter term
    // that begins the word would be. (The stemmer strips at most five bytes, so the lengths
    // are within four, as above.)
    let ls = vs.len();
    if ls >= 5 && lq > ls && q.starts_with(vs) && is_ending_slip(&q[ls..]) {
        sim = sim.max(0.45 + 0.35 * ls as f32 / lq as f32);
    }
    // Typos: a bounded edit distance, allowing more edits in longer words. Short words
    // must keep their first letter ("lock" is not a typo of "block"). The stems are compared
    // too, with the allowance and the penalty of the stem's own length.
    let typo = |a: &[u8], b: &[u8]| -> Option<f32> {
        let la = a.len();
        let max = allowed_edits(la) as usize;
        if max == 0 || b.is_empty() || (la <= 5 && a[0] != b[0]) {
            return None;
        }
        let d = osa_within(a, b, max)?;
        (d > 0).then(|| (1.0 - 1.2 * d as f32 / la as f32).max(0.3))
    };
    // Stems shorter than five letters are too ambiguous for typos ("sale" ~ "same").
    let stem_typo = || if qs.len() >= 5 { typo(qs, vs) } else { None };
    if let Some(mut t) = typo(q, v).or_else(stem_typo) {
        // A different first letter is a rarer slip than one further in.
        if q.first() != v.first() {
            t *= 0.85;
        }
        sim = sim.max(t);
    }
    sim
}

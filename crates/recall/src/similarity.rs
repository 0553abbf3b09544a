//! What counts as a match, and how close: the single owner of the matching rules and their
//! thresholds. Change a rule here (and its tests); the prefilters in [`crate::prefilter`] are
//! checked against [`similarity`] by a property test, so a rule they no longer cover fails it.

use crate::text::{osa_within, porter2, stem};

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

/// How similar a vocabulary term `v` is to the query word `q` (with stem `qs` and Snowball
/// stem `qp`, see [`porter2`]), 0–1; exact equality is handled by the caller and scores 0
/// here only if nothing else applies.
pub(crate) fn similarity(q: &[u8], qs: &[u8], qp: &[u8], v: &[u8], is_last: bool) -> f32 {
    similarity_how(q, qs, qp, v, is_last, true).0
}

/// [`similarity`] for a query word that is itself a word of the store: every rule but the
/// typo. A word the store holds is most likely spelled as meant, and the words one or two
/// edits from it are other words (`policies` and `politics`); measured on the evaluation
/// sets, typos for such words let in more wrong documents than right ones (see the crate's
/// README). The score applies it once the matched terms show the word is in the store.
pub(crate) fn known_word_similarity(
    q: &[u8],
    qs: &[u8],
    qp: &[u8],
    v: &[u8],
    is_last: bool,
) -> f32 {
    similarity_how(q, qs, qp, v, is_last, false).0
}

/// Whether `v` has the Snowball stem `qp` of a word `q`: only for stems of at least four
/// bytes (shorter ones conflate too much), and only for a `v` that begins with the first
/// three bytes of `q`, which every such `v` does: Snowball English rewrites a word only from
/// its third byte on (its suffixes are removed in the region after the first vowel and
/// consonant, and each replacement keeps the first byte of what it replaces; the `y` → `i`
/// of a word such as `cry` and the `e` added to `bl` give stems of three bytes), so a stem of
/// four or more bytes begins with the first three bytes of every word it is the stem of.
/// That is what lets the prefilters ask for those three bytes.
#[inline]
pub(crate) fn same_porter2(q: &[u8], qp: &[u8], v: &[u8]) -> bool {
    qp.len() >= 4 && v.len() >= 4 && q.get(..3) == v.get(..3) && porter2(v) == qp
}

/// [`similarity`], and which rule gave it (the one with the highest similarity; for
/// explanations).
#[inline]
// Long: the matching rules in order of their similarity, kept whole for speed (every token).
fn similarity_how(
    q: &[u8],
    qs: &[u8],
    qp: &[u8],
    v: &[u8],
    is_last: bool,
    typos: bool,
) -> (f32, MatchKind) {
    if v == q {
        return (1.0, MatchKind::Exact);
    }
    let mut kind = MatchKind::Typo;
    let (lq, lv) = (q.len(), v.len());
    let mut sim = 0.0f32;
    // Partial words: the query word begins a longer term ("auth" → "authentication"),
    // more readily for the last word, which may still be being typed.
    if lq >= 3 && lv > lq && v.starts_with(q) {
        let base = if is_last { 0.6 } else { 0.5 };
        sim = base + 0.35 * lq as f32 / lv as f32;
        kind = MatchKind::Prefix;
    }
    // The other way: a shorter term begins the query word ("authentication" → "auth").
    if lv >= 4 && lq > lv && q.starts_with(v) {
        let s = 0.45 + 0.35 * lv as f32 / lq as f32;
        if s > sim {
            (sim, kind) = (s, MatchKind::Prefix);
        }
    }
    let mut vs_buf = [0u8; 64];
    let vs = stem(v, &mut vs_buf);
    // The same stem: the crate's light stemmer, or Snowball English (`inspired` ~
    // `inspiration`, `hikes` ~ `hiking`), whose suffixes may differ in length by more.
    if (lq.abs_diff(lv) <= 4 && vs.len() >= 3 && vs == qs) || same_porter2(q, qp, v) {
        return if 0.92 > sim {
            (0.92, MatchKind::Stem)
        } else {
            (sim, kind)
        };
    }
    if lq.abs_diff(lv) > 4 {
        return (sim, kind);
    }
    // A slip in the ending: the term's stem of at least five bytes begins the query word,
    // whose rest is at most one edit from an inflection's ending ("migratoin" → "migrated",
    // stem "migrat", "oin" ~ "ion"; not "checkout" → "checked"). Scored as the shorter term
    // that begins the word would be. (The stemmer strips at most five bytes, so the lengths
    // are within four, as above.)
    let ls = vs.len();
    if ls >= 5 && lq > ls && q.starts_with(vs) && is_ending_slip(&q[ls..]) {
        let s = 0.45 + 0.35 * ls as f32 / lq as f32;
        if s > sim {
            (sim, kind) = (s, MatchKind::Prefix);
        }
    }
    // Typos: a bounded edit distance, allowing more edits in longer words. Short words
    // must keep their first letter ("lock" is not a typo of "block"). The stems are compared
    // too, with the allowance and the penalty of the stem's own length.
    if !typos {
        return (sim, kind);
    }
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
        if t > sim {
            (sim, kind) = (t, MatchKind::Typo);
        }
    }
    (sim, kind)
}

/// How similar a token `v` is to a synonym `s` (with stem `ss` and Snowball stem `sp`) of a
/// query word, before the synonym's own weight: 1 for the synonym itself, 0.92 for another
/// word of its stem, light or Snowball (as [`similarity`] scores it), 0 otherwise — no typos, no partial words: a synonym is a
/// guess already. Every token it matches, [`similarity`] matches too (the same branches),
/// so the prefilters hold for synonyms as they are.
pub(crate) fn synonym_similarity(s: &[u8], ss: &[u8], sp: &[u8], v: &[u8]) -> f32 {
    if v == s {
        return 1.0;
    }
    if same_porter2(s, sp, v) {
        return 0.92;
    }
    if s.len().abs_diff(v.len()) > 4 || ss.len() < 3 {
        return 0.0;
    }
    let mut vs_buf = [0u8; 64];
    if stem(v, &mut vs_buf) == ss {
        0.92
    } else {
        0.0
    }
}

/// Which rule of [`similarity`] (or [`synonym_similarity`], or for a word the store holds,
/// `known`, [`known_word_similarity`]) matched `v` to the query word `q` (stem `qs`, Snowball
/// stem `qp`): the one that gave the similarity. For explanations,
/// computed only when one is asked for.
pub(crate) fn how(
    q: &[u8],
    qs: &[u8],
    qp: &[u8],
    v: &[u8],
    is_last: bool,
    synonym: bool,
    known: bool,
) -> MatchKind {
    if synonym {
        return MatchKind::Synonym;
    }
    similarity_how(q, qs, qp, v, is_last, !known).1
}

/// How a query word matched a term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MatchKind {
    /// The same word (after folding case and accents).
    Exact,
    /// Another form of the same word (`migrations` for `migrating`, `inspiration` for
    /// `inspired`).
    Stem,
    /// A partial word, either way (`auth` for `authentication`), or a slip in the ending
    /// after the term's stem (`migratoin` for `migrated`).
    Prefix,
    /// A typo: a few letters inserted, left out, changed or swapped.
    Typo,
    /// A synonym or abbreviation from the lexicon (`db` for `database`).
    Synonym,
}

impl MatchKind {
    /// The kind as [`format_explanation`](crate::format_explanation) and `--json` write it:
    /// `exact`, `stem`, `prefix`, `typo` or `synonym`.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Stem => "stem",
            MatchKind::Prefix => "prefix",
            MatchKind::Typo => "typo",
            MatchKind::Synonym => "synonym",
        }
    }
}

impl std::fmt::Display for MatchKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(q: &str, v: &str) -> f32 {
        let mut buf = [0u8; 64];
        let qs = stem(q.as_bytes(), &mut buf).to_vec();
        similarity(
            q.as_bytes(),
            &qs,
            &porter2(q.as_bytes()),
            v.as_bytes(),
            false,
        )
    }

    fn kind(q: &str, v: &str) -> MatchKind {
        let mut buf = [0u8; 64];
        let qs = stem(q.as_bytes(), &mut buf).to_vec();
        how(
            q.as_bytes(),
            &qs,
            &porter2(q.as_bytes()),
            v.as_bytes(),
            false,
            false,
            false,
        )
    }

    /// Each rule, with the kind an explanation gives it.
    #[test]
    fn rules_and_their_kinds() {
        let cases: &[(&str, &str, MatchKind)] = &[
            ("migration", "migration", MatchKind::Exact),
            ("migrating", "migrations", MatchKind::Stem),
            ("auth", "authentication", MatchKind::Prefix),
            ("authentication", "auth", MatchKind::Prefix),
            ("migratoin", "migrated", MatchKind::Prefix),
            ("migratoin", "migration", MatchKind::Typo),
            ("rolover", "rollover", MatchKind::Typo),
            ("datbase", "database", MatchKind::Typo),
            // Snowball English, where the light stemmer stops.
            ("inspired", "inspiration", MatchKind::Stem),
            ("hikes", "hiking", MatchKind::Stem),
            ("fulfilling", "fulfillment", MatchKind::Stem),
            ("generously", "generous", MatchKind::Stem),
        ];
        for &(q, v, want) in cases {
            assert!(sim(q, v) > 0.0, "{q} ~ {v}");
            assert_eq!(kind(q, v), want, "{q} ~ {v}");
        }
        for (q, v) in [("lock", "block"), ("checkout", "checked")] {
            assert_eq!(sim(q, v), 0.0, "{q} ~ {v}");
        }
    }

    #[test]
    fn synonyms_match_themselves_and_their_stem_only() {
        let s = |syn: &str, v: &str| {
            let mut buf = [0u8; 64];
            let ss = stem(syn.as_bytes(), &mut buf).to_vec();
            synonym_similarity(syn.as_bytes(), &ss, &porter2(syn.as_bytes()), v.as_bytes())
        };
        assert_eq!(s("database", "database"), 1.0);
        assert_eq!(s("database", "databases"), 0.92);
        assert_eq!(s("inspiration", "inspired"), 0.92);
        assert_eq!(s("database", "datbase"), 0.0);
        assert_eq!(s("login", "log"), 0.0);
        assert_eq!(s("db", "dbs"), 0.0);
    }

    #[test]
    fn a_kind_is_written_as_json_names_it() {
        let all = [
            MatchKind::Exact,
            MatchKind::Stem,
            MatchKind::Prefix,
            MatchKind::Typo,
            MatchKind::Synonym,
        ];
        for kind in all {
            let json = serde_json::to_string(&kind).expect("a unit variant serializes");
            assert_eq!(json, format!("\"{kind}\""));
        }
        assert_eq!(format!("{:<7}|", MatchKind::Typo), "typo   |");
    }
}

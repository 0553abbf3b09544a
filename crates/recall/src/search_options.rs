//! The search engine's tuning knobs, [`SearchOptions`] and its [`FieldWeights`]: a leaf that
//! every step of a search reads (the query, the prefilter, the pass, the index and scoring)
//! and that imports nothing of the crate. What each field holds is `fields`' business.

/// How much a match in each field counts. The defaults are Goldfish v4's fuse.js keys, with
/// the first line of a description (its title) above the rest, chosen on the evaluation sets.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct FieldWeights {
    /// The first line of the description. Default 3.
    pub title: f32,
    /// The rest of the description (its body) and the typed text. Default 2.
    pub description: f32,
    /// Tags. Default 1.
    pub tags: f32,
    /// The git branch. Default 0.5.
    pub branch: f32,
    /// Changed file paths. Default 0.3.
    pub files: f32,
}

impl Default for FieldWeights {
    fn default() -> Self {
        FieldWeights {
            title: 3.0,
            description: 2.0,
            tags: 1.0,
            branch: 0.5,
            files: 0.3,
        }
    }
}

/// Tuning knobs of [`search`](crate::search). The defaults were chosen on the evaluation set in
/// `tests/fixtures/`; change them only with a measurement.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SearchOptions {
    /// Field weights.
    pub weights: FieldWeights,
    /// Whether to expand query words to similar vocabulary terms (typos, stems, prefixes).
    /// With `false` the engine is plain BM25F. Default `true`.
    pub fuzzy: bool,
    /// A document must cover at least this share (0–1) of what the best-covering document
    /// covers of the query's total IDF weight. Relative, so that a long question that no
    /// checkpoint answers word for word still finds the ones that answer most of it: a query
    /// sharing a content word with some checkpoint never comes back empty. Default 0: no
    /// floor. The score already multiplies by coverage, so a document covering less ranks
    /// lower; measured on the evaluation sets, every floor dropped answers that ranked in
    /// the top 10 (LoCoMo recall@10 0.706 without, 0.696 at 0.3, 0.677 at 0.5).
    pub min_coverage: f32,
    /// Documents scoring below this share (0–1) of the best score are dropped. Default 0:
    /// order and the caller's limit give precision (0.1 and 0.2 lowered recall@10 on
    /// LoCoMo by 0.014 and 0.022, on the natural-language set by up to 0.022).
    pub relative_cutoff: f32,
    /// Vocabulary terms less similar than this (0–1) to a query word are ignored; a term
    /// with no similarity at all (0) never matches, whatever this is. Default 0.5.
    pub min_similarity: f32,
    /// How much a synonym or abbreviation from the crate's lexicon counts against the word
    /// itself (`db` for `database`, `login` for `auth`); 0 turns synonyms off. Default 0.9.
    pub synonym_weight: f32,
    /// Whether each [`Hit`](crate::Hit) carries an [`Explanation`](crate::Explanation) of its score. Default `false` (then
    /// nothing is spent on it).
    pub explain: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            weights: FieldWeights::default(),
            fuzzy: true,
            min_coverage: 0.0,
            relative_cutoff: 0.0,
            min_similarity: 0.5,
            synonym_weight: 0.9,
            explain: false,
        }
    }
}

//! The search engine's public face: its options, its hits and [`search`]. How a search runs
//! is told once, in the crate documentation ("How search works"); each step has its own
//! module: [`crate::query`] (what is searched for), [`crate::similarity`] (what counts as a
//! match, and how close), [`crate::prefilter`] (cheap necessary conditions derived from it),
//! [`crate::pass`] (the one pass over the checkpoints), [`crate::score`] (BM25F, coverage,
//! cut-off, order) and, in tests, `reference` (the slow engine the fast one must equal).

use goldfish_store::Checkpoint;

use crate::lanes::{self, Lanes, WithLanes};
use crate::pass::Pass;
// `recall` names the query through this module.
pub(crate) use crate::query::Query;
use crate::query::Word;

/// How much a match in each field counts. The defaults are Goldfish v4's fuse.js keys.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct FieldWeights {
    /// The description, title and body alike. Default 2.
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
            description: 2.0,
            tags: 1.0,
            branch: 0.5,
            files: 0.3,
        }
    }
}

/// Tuning knobs of [`search`]. The defaults were chosen on the evaluation set in
/// `tests/fixtures/`; change them only with a measurement.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SearchOptions {
    /// Field weights.
    pub weights: FieldWeights,
    /// Whether to expand query words to similar vocabulary terms (typos, stems, prefixes).
    /// With `false` the engine is plain BM25F. Default `true`.
    pub fuzzy: bool,
    /// A document must match at least this share (0–1) of the query's total IDF weight.
    /// Default 0.5.
    pub min_coverage: f32,
    /// Documents scoring below this share (0–1) of the best score are dropped. Default 0.2.
    pub relative_cutoff: f32,
    /// Vocabulary terms less similar than this (0–1) to a query word are ignored; a term
    /// with no similarity at all (0) never matches, whatever this is. Default 0.5.
    pub min_similarity: f32,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            weights: FieldWeights::default(),
            fuzzy: true,
            min_coverage: 0.5,
            relative_cutoff: 0.2,
            min_similarity: 0.5,
        }
    }
}

/// One search result: which checkpoint (an index into the searched slice) and how well it
/// matched (higher is better; only comparable within one search).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Hit {
    /// Index of the checkpoint in the slice given to [`search`].
    pub index: usize,
    /// Relevance score, greater than zero.
    pub score: f32,
}

/// Searches `checkpoints` for `query` and returns the matches, best first.
///
/// Returns an empty vector when nothing is close enough; never panics, whatever the query.
///
/// # Example
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use goldfish_recall::{search, Query, SearchOptions};
/// use goldfish_store::Checkpoint;
///
/// let t = Utc.with_ymd_and_hms(2025, 10, 13, 9, 0, 0).unwrap();
/// let cps = vec![
///     Checkpoint::new("a", t, "ws", "Refactored database queries"),
///     Checkpoint::new("b", t, "ws", "Fixed the migration script"),
/// ];
/// let hits = search(&Query::parse("migratoin"), &cps, &SearchOptions::default());
/// assert_eq!(hits.len(), 1);
/// assert_eq!(hits[0].index, 1);
/// ```
pub fn search(query: &Query, checkpoints: &[Checkpoint], opts: &SearchOptions) -> Vec<Hit> {
    search_by(query, checkpoints, opts, |work| lanes::dispatch(work))
}

/// [`search`], with the pass run by `run` (the tests run it with each [`Lanes`]).
pub(crate) fn search_by(
    query: &Query,
    checkpoints: &[Checkpoint],
    opts: &SearchOptions,
    run: impl FnOnce(PassWork<'_>) -> Pass,
) -> Vec<Hit> {
    if query.is_empty() || checkpoints.is_empty() {
        return Vec::new();
    }
    let q_len = query.terms.len();
    let words: Vec<Word> = query
        .terms
        .iter()
        .enumerate()
        .map(|(qi, q)| Word::new(q, qi + 1 == q_len))
        .collect();
    let pass = run(PassWork {
        words: &words,
        checkpoints,
        opts,
    });
    pass.score(q_len, checkpoints, opts)
}

/// [`Pass::run`] as work for [`lanes::dispatch`].
pub(crate) struct PassWork<'a> {
    words: &'a [Word],
    checkpoints: &'a [Checkpoint],
    opts: &'a SearchOptions,
}

impl WithLanes for PassWork<'_> {
    type Output = Pass;
    #[inline(always)]
    fn run<L: Lanes>(self, lanes: L) -> Pass {
        Pass::run(lanes, self.words, self.checkpoints, self.opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn cp(id: &str, minute: u32, desc: &str, tags: &[&str]) -> Checkpoint {
        let t = Utc.with_ymd_and_hms(2025, 10, 13, 9, minute, 0).unwrap();
        let mut c = Checkpoint::new(id, t, "test", desc);
        c.tags = tags.iter().map(|s| s.to_string()).collect();
        c
    }

    fn ids(q: &str, cps: &[Checkpoint]) -> Vec<String> {
        search(&Query::parse(q), cps, &SearchOptions::default())
            .into_iter()
            .map(|h| cps[h.index].id.clone())
            .collect()
    }

    /// Each query of `table` finds the checkpoints with its ids, in that order.
    fn assert_finds(cps: &[Checkpoint], table: &[(&str, &[&str])]) {
        for (q, want) in table {
            assert_eq!(ids(q, cps), *want, "query {q:?}");
        }
    }

    #[test]
    fn seed_three_checkpoints() {
        let cps = vec![
            cp("auth", 0, "Fixed auth bug", &["bug-fix", "auth"]),
            cp("oauth", 1, "Added OAuth2 support", &["feature", "auth"]),
            cp(
                "db",
                2,
                "Refactored database queries",
                &["refactor", "database"],
            ),
        ];
        let table: &[(&str, &[&str])] = &[
            ("authentication", &["auth", "oauth"]),
            ("auth", &["auth", "oauth"]),
            ("datbase", &["db"]),
            ("QUERIES", &["db"]),
            ("refactor databse queries", &["db"]),
            ("kubernetes", &[]),
            ("", &[]),
            ("the", &[]),
        ];
        assert_finds(&cps, table);
    }

    #[test]
    fn typos_and_partials() {
        let cps = vec![
            cp("m", 0, "Ran the database migration", &[]),
            cp("c", 1, "Saved a checkpoint before lunch", &[]),
            cp("x", 2, "Unrelated work on the parser", &[]),
        ];
        let table: &[(&str, &[&str])] = &[
            ("migratoin", &["m"]),
            ("checkpnt", &["c"]),
            ("migr", &["m"]),
            ("MIGRATION", &["m"]),
            ("pârser", &["x"]),
        ];
        assert_finds(&cps, table);
    }

    /// A slip in the ending of a word whose other forms are in the store: the stem "migrat" of
    /// "Migrated" begins "migratoin", whose rest "oin" is a slip of "ion". A stem followed by
    /// another ending ("important", "checkout") is another word.
    #[test]
    fn slips_in_the_ending() {
        let cps = vec![
            cp("m", 0, "Migrated the database schema to v3", &[]),
            cp("i", 1, "Imported the parser module", &[]),
            cp("c", 2, "Checked the release notes", &[]),
            cp("x", 3, "Unrelated work on the docs", &[]),
        ];
        let table: &[(&str, &[&str])] = &[
            ("migratoin", &["m"]),
            ("database migratoin", &["m"]),
            ("parser importign", &["i"]),
            ("importantly", &[]),
            ("important", &[]),
            ("checkout", &[]),
        ];
        assert_finds(&cps, table);
    }

    #[test]
    fn ties_break_by_recency() {
        let cps = vec![
            cp("old", 0, "same words", &[]),
            cp("new", 5, "same words", &[]),
        ];
        assert_eq!(ids("same words", &cps), ["new", "old"]);
    }
}

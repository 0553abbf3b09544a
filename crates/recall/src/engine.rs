//! The search engine's public face: its options, its hits and [`search`]. How a search runs
//! is told once, in the crate documentation ("How search works"); each step has its own
//! module: [`crate::query`] (what is searched for), [`crate::similarity`] (what counts as a
//! match, and how close), [`crate::prefilter`] (cheap necessary conditions derived from it),
//! [`crate::pass`] (the one pass over the checkpoints), [`crate::score`] (BM25F, coverage,
//! cut-off, order) and, in tests, `reference` (the slow engine the fast one must equal).

use goldfish_store::Checkpoint;

use crate::hit::Hit;
use crate::lanes::{self, Lanes, WithLanes};
use crate::matches::Pass;
use crate::prefilter::Word;
use crate::query::Query;
use crate::search_options::SearchOptions;

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
    let words: Vec<Word> = query.words(opts);
    let pass = run(PassWork {
        words: &words,
        checkpoints,
        opts,
    });
    pass.score(query, &words, checkpoints.len(), opts)
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
        crate::pass::run(lanes, self.words, self.checkpoints, self.opts)
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
    /// another ending ("checkout") is another word. (Snowball English gives "important" the
    /// stem of "imported", `import`: a known over-stemming, kept because the stemmer wins on
    /// the evaluation sets.)
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
            ("important", &["i"]),
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

    /// A match in a checkpoint's first line outranks the same match in another's body, even a
    /// short body against a long title: the title weighs more ([`FieldWeights::title`]).
    #[test]
    fn title_outranks_body() {
        let cps = vec![
            cp("body", 5, "Tidied the loader\nmigration", &[]),
            cp(
                "title",
                0,
                "Database migration to the v3 schema with new indexes, constraints and views",
                &[],
            ),
        ];
        assert_eq!(ids("migratoin", &cps), ["title", "body"]);
        assert_eq!(ids("migration", &cps), ["title", "body"]);
        // With the title weighed as the body, the shorter field wins: the rule is what ranks.
        let mut flat = SearchOptions::default();
        flat.weights.title = flat.weights.description;
        let hits = search(&Query::parse("migratoin"), &cps, &flat);
        assert_eq!(cps[hits[0].index].id, "body");
    }

    /// Every synonym group of the lexicon: each member finds a checkpoint that says another
    /// (and not an unrelated one), through the synonym rule.
    #[test]
    fn every_synonym_group_finds_its_members() {
        let lex = crate::lexicon::lexicon();
        for group in lex.groups() {
            for q in group {
                for other in group.iter().filter(|o| o != &q) {
                    let q = String::from_utf8_lossy(q);
                    let other = String::from_utf8_lossy(other);
                    let cps = vec![
                        cp("unrelated", 0, "Tidied the grammar of the lexer", &[]),
                        cp("it", 1, &format!("Tidied the {other} bits"), &[]),
                    ];
                    assert_eq!(ids(&q, &cps), ["it"], "{q} ~ {other}");
                }
            }
        }
        // Off, the engine does not guess.
        let cps = vec![cp("db", 0, "Moved the database to a new disk", &[])];
        let off = SearchOptions {
            synonym_weight: 0.0,
            ..SearchOptions::default()
        };
        assert!(search(&Query::parse("db"), &cps, &off).is_empty());
        assert_eq!(ids("db", &cps), ["db"]);
    }

    /// Questions and long conversational queries: the framing is not searched for, and a
    /// document that answers part of a long question is found even when none answers all
    /// of it (the coverage floor is relative to the best-covering document).
    #[test]
    fn questions_find_their_answer() {
        let cps = vec![
            cp(
                "login",
                0,
                "Raised the login page timeout to 30 s",
                &["auth"],
            ),
            cp(
                "retry",
                1,
                "Retry with exponential backoff in the sync client",
                &[],
            ),
            cp("x", 2, "Unrelated work on the docs", &[]),
        ];
        assert_finds(
            &cps,
            &[
                (
                    "how did we stop the login page from timing out?",
                    &["login"],
                ),
                ("what did we decide about retry backoff?", &["retry"]),
                (
                    "I remember we changed something so the sign in screen would not time out, \
                     what was that about exactly?",
                    &["login"],
                ),
            ],
        );
    }

    /// Stop words and punctuation alone: nothing to search for, and nothing found.
    #[test]
    fn nothing_to_search_for() {
        let cps = vec![cp("a", 0, "What is the thing that was there", &[])];
        for q in ["the", "what is it?", "...", ""] {
            assert!(Query::parse(q).is_empty(), "{q:?}");
            assert!(ids(q, &cps).is_empty(), "{q:?}");
        }
    }

    /// A 10,000-character query (words, punctuation, non-ASCII) is searched like any other:
    /// its first [`Query::MAX_TERMS`] content words, no panic, the same hits every time.
    #[test]
    fn a_huge_query() {
        let cps = crate::reference::eval_corpus(400);
        let mut text = String::new();
        let words = ["migratoin", "é—ß", "regex", "!!", "lazy", "dfa", "x", "the"];
        let mut i = 0;
        while text.len() < 10_000 {
            text.push_str(words[i % words.len()]);
            text.push_str(if i % 3 == 0 { "," } else { " " });
            i += 1;
        }
        let q = Query::parse(&text);
        assert!(q.terms().len() <= Query::MAX_TERMS && !q.is_empty());
        let first = search(&q, &cps, &SearchOptions::default());
        assert!(!first.is_empty());
        assert_eq!(first, search(&q, &cps, &SearchOptions::default()));
    }

    /// Explanations: asked for, each hit says per query word which term matched where and
    /// how, with parts that multiply out to its score; not asked for, there are none.
    #[test]
    // Long: a test table.
    fn explanations_add_up() {
        let cps = vec![
            cp(
                "m",
                0,
                "Database migration to v3\nThe auth tables too",
                &["db"],
            ),
            cp("x", 1, "Unrelated work on the parser", &[]),
        ];
        let q = Query::parse("databse migratoin login kubernetes");
        assert!(
            search(&q, &cps, &SearchOptions::default())
                .iter()
                .all(|h| h.explain.is_none())
        );
        let opts = SearchOptions {
            explain: true,
            ..SearchOptions::default()
        };
        let hits = search(&q, &cps, &opts);
        assert_eq!(hits.len(), 1);
        let e = hits[0].explain.as_deref().expect("asked for");
        assert_eq!(e.score.to_bits(), hits[0].score.to_bits());
        let sum: f32 = e
            .words
            .iter()
            .filter_map(|w| w.matched.as_ref())
            .map(|m| m.contribution)
            .sum();
        assert!((sum - e.sum).abs() <= 1e-4 * e.sum, "{sum} vs {}", e.sum);
        let how: Vec<_> = e
            .words
            .iter()
            .map(|w| {
                let m = w.matched.as_ref();
                (
                    w.word.as_str(),
                    m.map(|m| m.term.as_str()),
                    m.map(|m| m.how),
                    m.map(|m| m.fields.clone()),
                )
            })
            .collect();
        use crate::explain::MatchKind;
        use crate::fields::Field;
        assert_eq!(
            how,
            [
                (
                    "databse",
                    Some("database"),
                    Some(MatchKind::Typo),
                    Some(vec![Field::Title])
                ),
                (
                    "migratoin",
                    Some("migration"),
                    Some(MatchKind::Typo),
                    Some(vec![Field::Title])
                ),
                (
                    "login",
                    Some("auth"),
                    Some(MatchKind::Synonym),
                    Some(vec![Field::Body])
                ),
                ("kubernetes", None, None, None),
            ]
        );
        for w in &e.words {
            if let Some(m) = &w.matched {
                let product = m.similarity * m.idf * m.tf;
                assert!((product - m.contribution).abs() <= 1e-5 * m.contribution.max(1.0));
            }
        }
        let text = crate::explain::format_explanation(e);
        assert!(
            text.contains("\"login\" → \"auth\" (synonym, body)"),
            "{text}"
        );
        // Explaining changes no hit and no score.
        let plain: Vec<(usize, u32)> = search(&q, &cps, &SearchOptions::default())
            .iter()
            .map(|h| (h.index, h.score.to_bits()))
            .collect();
        assert_eq!(plain, [(hits[0].index, hits[0].score.to_bits())]);
    }
}

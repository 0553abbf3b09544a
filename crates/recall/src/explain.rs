//! Why a checkpoint matched: per query word, the term it matched, in which fields, how, and
//! the parts of the score ([`Explanation`], on each [`Hit`](crate::Hit) when
//! [`SearchOptions::explain`](crate::SearchOptions::explain) asks), and a plain-text rendering
//! for people ([`format_explanation`]). Serialises with serde for `--json`.

use std::fmt::Write as _;

use crate::fields::Field;
use crate::fusion::{ChannelPart, FusionExplanation};
pub use crate::similarity::MatchKind;

/// How a hit's score was made.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Explanation {
    /// One entry per query word, in query order (words that matched nothing too).
    pub words: Vec<WordExplanation>,
    /// The sum of the words' contributions.
    pub sum: f32,
    /// The share (0–1) of the query's weight this checkpoint covers.
    pub coverage: f32,
    /// The final score: `sum × coverage`.
    pub score: f32,
    /// With the semantic channel: the hit's place in each channel's ranking and the fused
    /// score that ordered the answer (`None` for a lexical-only search).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fusion: Option<FusionExplanation>,
}

/// What one query word contributed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct WordExplanation {
    /// The query word, folded.
    pub word: String,
    /// Its weight in the coverage (the IDF of its best match in the whole set, or half the
    /// IDF of an unseen word when nothing matched it anywhere).
    pub weight: f32,
    /// Whether it counts as covered (matched outside file paths, or exactly).
    pub covered: bool,
    /// The term that gave its best contribution here, if any.
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub matched: Option<TermMatch>,
}

/// The term a query word matched in a checkpoint.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct TermMatch {
    /// The term, folded, as found in the checkpoint.
    pub term: String,
    /// How it matched.
    pub how: MatchKind,
    /// The fields it occurs in.
    pub fields: Vec<Field>,
    /// Similarity to the query word (1 exact, less for the other kinds).
    pub similarity: f32,
    /// Inverse document frequency of the term in the searched set.
    pub idf: f32,
    /// BM25F term-frequency part: field-weighted, length-normalised, saturated.
    pub tf: f32,
    /// `similarity × idf × tf`: what it adds to the sum.
    pub contribution: f32,
}

impl Explanation {
    /// This explanation's words with nothing matched: what a hit found only by meaning says
    /// about the query's words.
    pub(crate) fn unmatched(&self) -> Explanation {
        let mut e = self.clone();
        for w in &mut e.words {
            w.matched = None;
            w.covered = false;
        }
        e.sum = 0.0;
        e.coverage = 0.0;
        e.score = 0.0;
        e.fusion = None;
        e
    }
}

/// Renders an explanation as indented plain text, one line per query word, for the CLI and
/// the MCP server.
///
/// ```text
/// score 7.12 = sum 7.12 × coverage 1.00
///   "migratoin" → "migration" (prefix, title) sim 0.82 × idf 4.21 × tf 2.06 = 7.12
///   "kubernetes" → no match (weight 3.10, not covered)
/// ```
pub fn format_explanation(e: &Explanation) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    if let Some(f) = &e.fusion {
        let part = |name: &str, what: &str, p: Option<ChannelPart>| match p {
            Some(p) => format!(
                "{name} #{} ({what} {:.2}) {:.4}",
                p.rank, p.score, p.contribution
            ),
            None => format!("{name} –"),
        };
        let _ = writeln!(
            out,
            "fused {:.4} = {} + {}",
            f.score,
            part("lexical", "score", f.lexical),
            part("semantic", "cosine", f.semantic)
        );
    }
    let _ = writeln!(
        out,
        "score {:.2} = sum {:.2} × coverage {:.2}",
        e.score, e.sum, e.coverage
    );
    for w in &e.words {
        match &w.matched {
            Some(m) => {
                let fields: Vec<&str> = m.fields.iter().map(|f| f.name()).collect();
                let how = m.how.as_str();
                let _ = writeln!(
                    out,
                    "  {:?} → {:?} ({how}, {}) sim {:.2} × idf {:.2} × tf {:.2} = {:.2}{}",
                    w.word,
                    m.term,
                    fields.join(", "),
                    m.similarity,
                    m.idf,
                    m.tf,
                    m.contribution,
                    if w.covered { "" } else { " (not covered)" }
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "  {:?} → no match (weight {:.2}, not covered)",
                    w.word, w.weight
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_every_word() {
        let e = Explanation {
            words: vec![
                WordExplanation {
                    word: "migratoin".into(),
                    weight: 4.2,
                    covered: true,
                    matched: Some(TermMatch {
                        term: "migration".into(),
                        how: MatchKind::Prefix,
                        fields: vec![Field::Title, Field::Body],
                        similarity: 0.82,
                        idf: 4.21,
                        tf: 2.06,
                        contribution: 7.11,
                    }),
                },
                WordExplanation {
                    word: "kubernetes".into(),
                    weight: 3.1,
                    covered: false,
                    matched: None,
                },
            ],
            sum: 7.11,
            coverage: 0.58,
            score: 4.12,
            fusion: None,
        };
        assert_eq!(
            format_explanation(&e),
            "score 4.12 = sum 7.11 × coverage 0.58\n  \
             \"migratoin\" → \"migration\" (prefix, title, body) sim 0.82 × idf 4.21 × tf 2.06 = 7.11\n  \
             \"kubernetes\" → no match (weight 3.10, not covered)\n"
        );
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["words"][0]["match"]["how"], "prefix");
        assert_eq!(json["words"][0]["match"]["fields"][0], "title");
        assert!(json["words"][1].get("match").is_none());
    }
}

//! What is searched for: a query's words, folded, and each prepared for matching.

use crate::prefilter::{Probe, Token, head4};
use crate::similarity::allowed_edits;
use crate::text::{is_stop_word, letter_mask, stem, tokenize};

/// A parsed query: its folded words, stop words removed (unless nothing else is left),
/// duplicates removed, at most [`Query::MAX_TERMS`] of them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    pub(crate) terms: Vec<String>,
}

impl Query {
    /// Words beyond this many are ignored: a query is a few words, not a document.
    pub const MAX_TERMS: usize = 32;

    /// Parses free text into a query. Never fails; a query without words matches nothing.
    pub fn parse(text: &str) -> Query {
        let mut all: Vec<String> = Vec::new();
        let mut buf = Vec::new();
        tokenize(text, &mut buf, |t| {
            let s = String::from_utf8_lossy(t).into_owned();
            if !all.contains(&s) {
                all.push(s);
            }
        });
        let content: Vec<String> = all
            .iter()
            .filter(|t| !is_stop_word(t.as_bytes()))
            .cloned()
            .collect();
        let mut terms = if content.is_empty() { all } else { content };
        terms.truncate(Self::MAX_TERMS);
        Query { terms }
    }

    /// The folded words that will be searched for.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// Whether the query has no words (it then matches nothing).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// A query word prepared for matching against the tokens of the documents.
pub(crate) struct Word {
    pub(crate) bytes: Vec<u8>,
    pub(crate) stem: Vec<u8>,
    pub(crate) is_last: bool,
    pub(crate) probe: Probe,
}

impl Word {
    pub(crate) fn new(q: &str, is_last: bool) -> Word {
        let bytes = q.as_bytes().to_vec();
        let mut buf = [0u8; 64];
        let stem = stem(&bytes, &mut buf).to_vec();
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
            },
            bytes,
            stem,
            is_last,
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

    #[test]
    fn query_parse_drops_stop_words() {
        assert_eq!(
            Query::parse("What did we do about the Flaky test?").terms(),
            ["flaky", "test"]
        );
        assert_eq!(Query::parse("the").terms(), ["the"]);
        assert!(Query::parse("  !! ").is_empty());
    }
}

//! What is searched for: a query's words, folded, and each prepared for matching.

use crate::error::Error;
use crate::lexicon::lexicon;
use crate::options::SearchOptions;
use crate::prefilter::{Probe, Token, head4};
use crate::similarity::allowed_edits;
use crate::text::{letter_mask, porter2, stem, tokenize};

/// A parsed query: its folded content words — stop words and the framing of a question
/// ("how did we", "what did we decide about") removed, duplicates removed — at most
/// [`Query::MAX_TERMS`] of them. A query of nothing else is empty: it has nothing to search
/// for ([`Query::try_parse`] says so as an error).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    pub(crate) terms: Vec<String>,
}

impl Query {
    /// Words beyond this many are ignored: a query is a few words, not a document.
    pub const MAX_TERMS: usize = 32;

    /// Parses free text — keywords, a question, a typo'd word — into a query. Never fails; a
    /// query without content words is empty and matches nothing.
    pub fn parse(text: &str) -> Query {
        let mut all: Vec<String> = Vec::new();
        let mut buf = Vec::new();
        tokenize(text, &mut buf, |t| {
            let s = String::from_utf8_lossy(t).into_owned();
            if !all.contains(&s) {
                all.push(s);
            }
        });
        let lex = lexicon();
        let mut terms: Vec<String> = all
            .into_iter()
            .filter(|t| !lex.is_stop_word(t.as_bytes()))
            .collect();
        terms.truncate(Self::MAX_TERMS);
        Query { terms }
    }

    /// [`Query::parse`], with a query that has nothing to search for (only stop words,
    /// question framing or punctuation) refused with an error of kind
    /// [`ErrorKind::NothingToSearch`](crate::ErrorKind::NothingToSearch), whose message says
    /// what to do instead.
    ///
    /// ```
    /// use goldfish_recall::{ErrorKind, Query};
    ///
    /// assert_eq!(Query::try_parse("how did we fix the migratoin?")?.terms(), ["fix", "migratoin"]);
    /// let err = Query::try_parse("what was it?").unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::NothingToSearch);
    /// # Ok::<(), goldfish_recall::Error>(())
    /// ```
    pub fn try_parse(text: &str) -> Result<Query, Error> {
        let q = Query::parse(text);
        if q.is_empty() {
            return Err(Error::nothing_to_search(text));
        }
        Ok(q)
    }

    /// The folded words that will be searched for.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// Whether the query has no content words: nothing to search for (it matches nothing).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The words to match: each query word (its slot is its position), then, with
    /// `opts.synonym_weight` above zero and fuzzy matching on, the synonyms the lexicon has
    /// for each, bound to that word's slot.
    pub(crate) fn words(&self, opts: &SearchOptions) -> Vec<Word> {
        let n = self.terms.len();
        let mut words: Vec<Word> = self
            .terms
            .iter()
            .enumerate()
            .map(|(slot, q)| Word::new(q.as_bytes(), slot, slot + 1 == n, None))
            .collect();
        if opts.fuzzy && opts.synonym_weight > 0.0 {
            let lex = lexicon();
            for (slot, q) in self.terms.iter().enumerate() {
                for syn in lex.synonyms(q.as_bytes()) {
                    words.push(Word::new(syn, slot, false, Some(opts.synonym_weight)));
                }
            }
        }
        words
    }
}

/// A word to match against the tokens of the documents: a query word, or a synonym of one.
pub(crate) struct Word {
    pub(crate) bytes: Vec<u8>,
    pub(crate) stem: Vec<u8>,
    /// The Snowball English stem ([`porter2`]).
    pub(crate) porter: Vec<u8>,
    /// The query word it stands for (its index in [`Query::terms`]).
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

    #[test]
    fn query_parse_drops_stop_words() {
        assert_eq!(
            Query::parse("What did we do about the Flaky test?").terms(),
            ["flaky", "test"]
        );
        assert_eq!(
            Query::parse("how did we stop the login page from timing out?").terms(),
            ["stop", "login", "page", "timing"]
        );
        assert_eq!(
            Query::parse("what did we decide about retry backoff?").terms(),
            ["retry", "backoff"]
        );
        for nothing in [
            "the",
            "  !! ",
            "",
            "what was it?",
            "is there any?",
            "--- ... ///",
        ] {
            assert!(Query::parse(nothing).is_empty(), "{nothing:?}");
            let err = Query::try_parse(nothing).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::NothingToSearch);
            assert!(err.to_string().contains("nothing to search for"), "{err}");
        }
    }

    /// A 10,000-character query keeps its first [`Query::MAX_TERMS`] content words.
    #[test]
    fn a_huge_query_is_cut() {
        let text: String = (0..2000).map(|i| format!("w{i} ")).collect();
        let q = Query::parse(&text[..10_000]);
        assert_eq!(q.terms().len(), Query::MAX_TERMS);
        assert_eq!(q.terms()[0], "w0");
    }
}

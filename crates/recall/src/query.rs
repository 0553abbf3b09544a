//! What is searched for: a query's words, folded, and each prepared for matching.

use crate::error::Error;
use crate::lexicon::lexicon;
use crate::prefilter::Word;
use crate::search_options::SearchOptions;
use crate::text::tokenize;

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

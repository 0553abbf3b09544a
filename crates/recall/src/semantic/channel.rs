//! The semantic channel as a recall takes it: a model ([`SemanticChannel`]) and how it takes
//! part in a search ([`SemanticOptions`], [`Pool`]).

use std::fmt;
use std::sync::Arc;

use super::embedder::Embedder;
use crate::fusion::Fusion;
use crate::query::Query;

/// How the semantic channel takes part in a search.
///
/// The defaults were chosen on the tuning sets by the rules of `eval/README.md` (see the
/// crate README's "Recall by meaning"): the score mix ([`Fusion::default`]) of each
/// channel's 100 best, the semantic ones the nearest entries at least 0.2 similar plus every
/// lexical candidate as similar, for searches of three content words or more.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct SemanticOptions {
    /// How many of each channel's best entries are fused (default 100).
    pub candidates: usize,
    /// Entries less similar than this (cosine) are not semantic candidates (default 0.2): a
    /// query about nothing in the store brings back nothing by meaning either.
    pub min_similarity: f32,
    /// The semantic channel takes part only in a search of at least this many content
    /// words ([`Query::terms`]; default 3); a shorter one (keywords, a file or branch name)
    /// is ranked lexically alone, and its query is not embedded.
    pub min_query_words: usize,
    /// Which entries the semantic channel ranks (default [`Pool::NearestAndLexical`]).
    pub pool: Pool,
    /// At most this many entries without a vector are embedded by one recall (default 4,
    /// about a fifth of a second on two cores);
    /// the rest rank lexically until embedded.
    pub embed_missing: usize,
    /// How the two rankings are fused (default [`Fusion::default`], the score mix).
    pub fusion: Fusion,
}

impl SemanticOptions {
    /// Whether the semantic channel takes part in a search for `query`
    /// ([`SemanticOptions::min_query_words`]).
    #[must_use]
    pub fn applies_to(&self, query: &Query) -> bool {
        query.terms().len() >= self.min_query_words
    }
}

impl Default for SemanticOptions {
    fn default() -> Self {
        SemanticOptions {
            candidates: 100,
            min_similarity: 0.2,
            min_query_words: 3,
            pool: Pool::NearestAndLexical,
            embed_missing: 4,
            fusion: Fusion::default(),
        }
    }
}

/// Which entries the semantic channel ranks, each with its cosine similarity to the query
/// (at least [`SemanticOptions::min_similarity`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Pool {
    /// The [`SemanticOptions::candidates`] entries of the searched set nearest the query.
    Nearest,
    /// Those, and every lexical candidate with its own similarity: a score mix then knows
    /// the similarity of every lexical candidate, not only of those among the nearest.
    NearestAndLexical,
    /// The lexical candidates only, re-ranked: nothing is found by meaning alone.
    Lexical,
}

/// The semantic channel of a recall: a model and how to use it.
#[derive(Clone)]
pub struct SemanticChannel {
    /// The model.
    pub embedder: Arc<dyn Embedder>,
    /// How it takes part.
    pub options: SemanticOptions,
}

impl SemanticChannel {
    /// The channel with `embedder` and default options.
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        SemanticChannel {
            embedder,
            options: SemanticOptions::default(),
        }
    }
}

impl fmt::Debug for SemanticChannel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the model's id: asking a `LazyEmbedder` for it loads the model.
        f.debug_struct("SemanticChannel")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl PartialEq for SemanticChannel {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.embedder, &other.embedder) && self.options == other.options
    }
}

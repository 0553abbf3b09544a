//! What a search returns per checkpoint ([`Hit`]): below the engine, the index and the
//! semantic channel, which all make or re-rank hits.

use crate::explain::Explanation;

/// One search result: which checkpoint (an index into the searched slice) and how well it
/// matched (higher is better; only comparable within one search).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Hit {
    /// Index of the checkpoint in the slice given to [`search`](crate::search).
    pub index: usize,
    /// Relevance score, greater than zero.
    pub score: f32,
    /// Why it matched and how its score was made, when [`SearchOptions::explain`](crate::SearchOptions::explain) asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Box<Explanation>>,
}

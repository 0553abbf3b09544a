//! What a search found, before scoring: the matched terms ([`Term`]), per matching document
//! its field lengths and matched occurrences ([`DocMatch`]), all in one [`Pass`]. The pass
//! over the checkpoints and the index both produce it, the same bit for bit, and `score`
//! consumes it.

use crate::fields::FIELDS;

/// A token that matches at least one query word.
#[derive(Clone)]
pub(crate) struct Term {
    /// Documents containing it.
    pub(crate) df: u32,
    /// The last document counted in `df`.
    pub(crate) last_doc: u32,
    /// `(query word, similarity)`, in query order.
    /// `(index of the word in the words searched for, similarity)`, in word order; the
    /// similarity of a synonym is already scaled by its weight.
    pub(crate) matches: Vec<(usize, f32)>,
    /// The token itself (folded), for explanations.
    pub(crate) text: Box<[u8]>,
}

/// A document that contains at least one matched term.
pub(crate) struct DocMatch {
    pub(crate) index: usize,
    /// The checkpoint's time (the tie-break of equal scores).
    pub(crate) timestamp: chrono::DateTime<chrono::Utc>,
    /// Tokens per field (all of them, matched or not).
    pub(crate) lens: [u32; FIELDS],
    /// End of its occurrences in the occurrence list (the start is the previous one's end).
    pub(crate) end: usize,
}

/// Per call: one pass over the documents that keeps only what can match the query —
/// matched terms with their document frequencies, and per matching document its field
/// lengths and `(term, field)` occurrences — plus the average field lengths.
pub(crate) struct Pass {
    pub(crate) terms: Vec<Term>,
    pub(crate) docs: Vec<DocMatch>,
    pub(crate) occurrences: Vec<(u32, u8)>,
    pub(crate) avg_len: [f32; FIELDS],
}

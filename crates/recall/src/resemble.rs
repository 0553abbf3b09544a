//! What a memory just saved closely resembles among the recent memories of its workspace:
//! named in the save's reply, so that the agent sees a near-repeat, and a decision or
//! incident it may be replacing, while it can still say so (`supersedes`).
//!
//! Two measures, each with its own threshold, chosen on the 82 same-subject pairs of the
//! evaluation sets (`crates/recall/tests/fixtures/same_subject_pairs.jsonl`, see
//! `eval/README.md`): of the grid the tests `resemble_eval_words` and `resemble_eval_meaning`
//! print, the pair with the most same-subject pairs named (by words alone, and by either)
//! while at least 90% of those named are on the same subject, by words alone and by either.
//! Words alone (a CLI save): precision 0.97, recall 0.76; either (the MCP server with the
//! model): precision 0.93, recall 0.95. The measures:
//! the overlap of the two memories' content words ([`word_similarity`] of their
//! descriptions, structured fields and tags, always), and, when a
//! model is given, the cosine of their embeddings, compared with the vectors the recall
//! index's cache already holds (entries without one are compared by words only).

use std::collections::HashSet;

use chrono::Duration;
use goldfish_store::{Checkpoint, MemoryType, Store};

use crate::error::Error;
use crate::lexicon::lexicon;
use crate::semantic::{SemanticChannel, embedding_text, text_key};
use crate::text::{stem, tokenize};

/// A memory is named when the share of content words the two have in common (Jaccard over
/// stems) is at least this.
pub const WORDS_THRESHOLD: f32 = 0.22;

/// A memory is named when the cosine of the two embeddings is at least this.
pub const MEANING_THRESHOLD: f32 = 0.65;

/// How far back the comparison reads: the workspace's day files of the last this many days.
pub const RESEMBLANCE_DAYS: i64 = 90;

/// At most this many memories are named.
pub const MAX_RESEMBLANCES: usize = 3;

/// Which measure named a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResembleBy {
    /// The content words they share ([`word_similarity`]).
    Words,
    /// The cosine of their embeddings.
    Meaning,
}

impl ResembleBy {
    /// `words` or `meaning`.
    pub fn as_str(self) -> &'static str {
        match self {
            ResembleBy::Words => "words",
            ResembleBy::Meaning => "meaning",
        }
    }
}

/// An earlier memory that a new one closely resembles.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Resemblance {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    /// How similar, by the measure in `by` (0–1).
    pub similarity: f32,
    /// The measure that named it (the one furthest above its threshold).
    pub by: ResembleBy,
    /// It is a decision or an incident on what looks like the same subject: the new memory
    /// may replace it. The agent decides; a save only says so.
    pub may_supersede: bool,
}

/// The content words of a text: folded tokens of at least three bytes that are not stop
/// words, stemmed.
pub(crate) fn content_words(text: &str) -> HashSet<Vec<u8>> {
    let lex = lexicon();
    let mut words = HashSet::new();
    let mut buf = Vec::new();
    tokenize(text, &mut buf, |t| {
        if t.len() >= 3 && !lex.is_stop_word(t) {
            let mut out = [0u8; 64];
            words.insert(stem(t, &mut out).to_vec());
        }
    });
    words
}

/// The text compared by words: the description, the structured fields and the tags — not
/// the type's name, which every decision would otherwise share with every other.
pub(crate) fn words_text(cp: &Checkpoint) -> String {
    let mut text = cp.description.clone();
    for (_, field) in cp.structured_text() {
        text.push('\n');
        text.push_str(&field);
    }
    for tag in &cp.tags {
        text.push('\n');
        text.push_str(tag);
    }
    text
}

/// How much two texts say in the same words: the content words they share over those of
/// either (0 when neither has any).
#[must_use]
pub fn word_similarity(a: &str, b: &str) -> f32 {
    jaccard(&content_words(a), &content_words(b))
}

pub(crate) fn jaccard(a: &HashSet<Vec<u8>>, b: &HashSet<Vec<u8>>) -> f32 {
    let common = a.intersection(b).count();
    let all = a.len() + b.len() - common;
    if all == 0 {
        0.0
    } else {
        common as f32 / all as f32
    }
}

/// The memories of `saved`'s workspace from the last [`RESEMBLANCE_DAYS`] days (by the
/// store's clock) that it closely resembles, at most [`MAX_RESEMBLANCES`], the closest
/// first: by words always, and by meaning when `semantic` is given (its model is loaded by
/// the first such call). Itself and the memories it already supersedes are left out.
///
/// An error of the model leaves the comparison by words alone: a save's reply never fails
/// for it. Reads the window's day files one at a time.
///
/// Errors: the workspace name is invalid.
pub fn resemblances(
    store: &Store,
    saved: &Checkpoint,
    semantic: Option<&SemanticChannel>,
) -> Result<Vec<Resemblance>, Error> {
    let text = embedding_text(saved);
    let words = content_words(&words_text(saved));
    let to = store.now().max(saved.timestamp);
    let from = to - Duration::days(RESEMBLANCE_DAYS);
    // The model and its cached vectors, only when both are there.
    let meaning = semantic.and_then(|s| {
        let embedder = s.embedder.as_ref();
        let v = embedder.embed_documents(&[text.as_str()]).ok()?.pop()?;
        let vectors = crate::semantic::read_vectors(store.root(), &saved.workspace, embedder);
        (vectors.len() > 0).then(|| (crate::semantic::PreparedQuery::new(v), vectors))
    });
    let mut found: Vec<(f32, Resemblance)> = Vec::new();
    store.for_each_day_between(&saved.workspace, from, to, |day| {
        for c in day.checkpoints {
            if c.id == saved.id || saved.supersedes.contains(&c.id) {
                continue;
            }
            let by_words = jaccard(&words, &content_words(&words_text(&c)));
            let by_meaning = meaning.as_ref().and_then(|(query, vectors)| {
                let (scale, values) = vectors.get(text_key(&embedding_text(&c)))?;
                Some(query.cosine(scale, values))
            });
            // Each measure against its threshold: the one furthest above it names the memory.
            let mut best = (by_words / WORDS_THRESHOLD, by_words, ResembleBy::Words);
            if let Some(m) = by_meaning
                && m / MEANING_THRESHOLD > best.0
            {
                best = (m / MEANING_THRESHOLD, m, ResembleBy::Meaning);
            }
            if best.0 < 1.0 {
                continue;
            }
            let may_supersede =
                matches!(c.memory_type, MemoryType::Decision | MemoryType::Incident);
            found.push((
                best.0,
                Resemblance {
                    title: c.title().to_string(),
                    id: c.id,
                    memory_type: c.memory_type,
                    similarity: best.1,
                    by: best.2,
                    may_supersede,
                },
            ));
        }
    })?;
    found.sort_by(|a, b| b.0.total_cmp(&a.0));
    found.truncate(MAX_RESEMBLANCES);
    Ok(found.into_iter().map(|(_, r)| r).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_content_words_over_all_of_them() {
        // "the", "to" are stop words; "tokens"/"token" and "rotate"/"rotation" meet at
        // their stems: 3 shared of 4.
        let s = word_similarity(
            "Rotate the refresh tokens",
            "Refresh token rotation to daily",
        );
        assert!((s - 0.75).abs() < 1e-6, "{s}");
        assert_eq!(word_similarity("", "anything"), 0.0);
        assert_eq!(word_similarity("the a of", "the a of"), 0.0);
        assert_eq!(word_similarity("Use Postgres", "use postgres"), 1.0);
    }
}

//! A model of the agent's own for recall by meaning, through `goldfish_recall::Embedder`.
//!
//! It stands in for a real sentence-embedding model (an ONNX runtime, a remote embedding
//! API, or goldfish's own all-MiniLM-L6-v2 with goldfish-recall's `semantic` feature): each
//! dimension is one concept, and a text's vector counts the words it uses of each. Crude, but
//! it ranks by meaning in miniature, and it shows all a model has to provide.

use goldfish_recall::Embedder;
use goldfish_recall::semantic::EmbedError;

/// The concepts, one per dimension, each with the words that express it.
const CONCEPTS: [&[&str]; 4] = [
    &[
        "retry", "backoff", "attempt", "attempts", "again", "wait", "delay", "delays", "jitter",
    ],
    &[
        "database",
        "db",
        "migration",
        "column",
        "rows",
        "connections",
        "query",
    ],
    &["login", "logged", "auth", "session", "token", "password"],
    &[
        "outage", "timed", "timeout", "down", "broke", "latency", "incident",
    ],
];

/// Counts the words of each concept in a text.
pub(crate) struct ConceptEmbedder;

impl Embedder for ConceptEmbedder {
    fn id(&self) -> &str {
        // The vector cache is keyed by this: change it whenever the model changes.
        "example-concepts-v1"
    }

    fn dimension(&self) -> usize {
        CONCEPTS.len()
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(concepts(text))
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|text| concepts(text)).collect())
    }
}

/// The concept counts of `text` (recall makes vectors unit length itself).
fn concepts(text: &str) -> Vec<f32> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).collect();
    CONCEPTS
        .iter()
        .map(|concept| words.iter().filter(|w| concept.contains(w)).count() as f32)
        .collect()
}

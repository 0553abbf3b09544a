//! The semantic channel: recall by meaning, from sentence embeddings, fused with the lexical
//! ranking.
//!
//! The model is behind [`Embedder`], so a Rust agent can plug in its own; with the
//! `semantic` cargo feature, `goldfish_embed::BertEmbedder` (all-MiniLM-L6-v2 run in
//! process by candle) implements it. Without an embedder in
//! [`RecallOptions::semantic`](crate::RecallOptions::semantic), recall is lexical and
//! nothing here runs.
//!
//! Vectors are a cache beside the recall index, like its postings: one file per workspace,
//! `{store}/.index/{workspace}.gfv`, keyed by the embedding model's id and, per entry, by a
//! 64-bit FNV-1a hash of the text embedded ([`embedding_text`]): an unchanged entry keeps its
//! vector, a changed one gets a new one, another model starts a new file. Deleting it loses
//! nothing. Vectors are unit length, stored as 8-bit integers with one scale per vector
//! (384 bytes and 4 for all-MiniLM-L6-v2 instead of 1,536).
//!
//! A recall embeds its query and at most [`SemanticOptions::embed_missing`] entries that
//! have no vector yet (the newest first); the others rank lexically only until
//! [`embed_vectors`](crate::embed_vectors) (`goldfish index rebuild`) or a later recall computes them.
//! The query is embedded on a thread of its own, which then reads the searched workspaces'
//! vector files, while the lexical search runs; with a [`LazyEmbedder`] the model is loaded
//! there too, and only by a search that ranks by meaning. Similarities are computed in
//! integers (the vectors' 8 bits times the query's 16) as each file is read, a chunk of
//! records at a time into one buffer: a recall keeps each entry's similarity, never the
//! vectors (megabytes at 100,000 entries, each page of them a fault to pay).

mod cache;
mod channel;
mod cosine;
mod embedded;
mod embedder;
mod rank;
mod vectors;

pub use crate::fusion::FusionExplanation;
pub(crate) use cache::Caches;
pub use channel::{Pool, SemanticChannel, SemanticOptions};
pub(crate) use cosine::PreparedQuery;
pub use embedded::{embedding_text, text_key};
#[cfg(feature = "semantic")]
pub use embedder::ModelEmbedder;
pub use embedder::{EmbedError, Embedder, LazyEmbedder};
pub use rank::fuse_channels;
pub(crate) use rank::{Entry, rerank};
pub use vectors::read_vector_bytes;
pub(crate) use vectors::{read_vectors, retain_keys, vectors_path, write_vectors};

#[cfg(test)]
mod tests;

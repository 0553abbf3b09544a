//! Sentence embeddings for goldfish's semantic recall.
//!
//! - [`Embedder`]: a batch of texts in, one L2-normalised `f32` vector of a known dimension per
//!   text out. A Rust agent can plug its own model through it.
//! - [`BertEmbedder`]: the pure-Rust implementation (candle's BERT and Hugging Face's tokenizer,
//!   no C or C++ build) of a sentence-transformers model such as all-MiniLM-L6-v2: the
//!   encoder read a layer at a time for the first two passes (a one-shot command fills one
//!   layer's worth of new memory) and then kept, the word-embedding rows read per text, mean pooling
//!   over the real tokens then L2 normalisation as sentence-transformers does, long inputs
//!   truncated to the model's maximum length, texts embedded in batches.
//! - [`ModelDir`]: where models live, installing one from a local sentence-transformers
//!   directory (copied atomically) or, with the `hub` feature, from the Hugging Face hub at a
//!   pinned revision with every file's SHA-256 checked; status and removal.
//!
//! The crate reads no environment variable: the binary resolves the model root
//! ([`ModelDir::resolve`] takes the values it read) and passes it in.

mod bert;
mod dir;
mod encoder;
mod error;
#[cfg(feature = "hub")]
mod hub;
mod tokenizer;
mod weights;

pub use bert::{BertEmbedder, ModelFiles};
pub use dir::{DEFAULT_MODEL, ModelDir, ModelStatus, Progress};
pub use error::Error;
#[cfg(feature = "hub")]
pub use hub::{HUB_REPO, HUB_REVISION};

/// Turns texts into vectors for semantic search.
///
/// Every vector has [`Embedder::dimension`] components and an L2 norm of 1 (so a dot product
/// is the cosine similarity); an empty text gets a vector too.
pub trait Embedder {
    /// The number of components of every vector.
    fn dimension(&self) -> usize;

    /// One vector per text, in the order of `texts`.
    ///
    /// # Errors
    /// When the model fails on the input (the implementation says why).
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, Error>;

    /// What identifies the model's vectors across processes (for [`BertEmbedder`], its name and
    /// a fingerprint of its files): a cache of vectors is keyed on it and on
    /// [`Embedder::dimension`]. `None` (the default): the vectors must not be cached.
    fn model_id(&self) -> Option<String> {
        None
    }

    /// Embeds many texts (a whole store), calling `progress(done, total)` as texts are done.
    /// The default embeds 64 texts at a time through [`Embedder::embed`].
    ///
    /// # Errors
    /// As [`Embedder::embed`].
    fn embed_many(
        &self,
        texts: &[&str],
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Vec<Vec<f32>>, Error> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(64) {
            out.extend(self.embed(chunk)?);
            progress(out.len(), texts.len());
        }
        Ok(out)
    }
}

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

//! The model behind the semantic channel: the [`Embedder`] trait a program implements to bring
//! its own, the [`LazyEmbedder`] that loads one on first use and, with the `semantic` feature,
//! goldfish's own ([`ModelEmbedder`]).

use std::fmt;

/// The error an [`Embedder`] returns: anything that can say what went wrong.
pub type EmbedError = Box<dyn std::error::Error + Send + Sync>;

/// A sentence-embedding model, as recall uses it: implement it to bring a model of your own
/// (without the `semantic` feature) and put it in [`RecallOptions::semantic`](crate::RecallOptions::semantic)
/// through [`SemanticChannel::new`](super::SemanticChannel::new).
///
/// Vectors need not be unit length (recall normalises them) but must have
/// [`dimension`](Self::dimension) numbers. An error, or a query vector of another length,
/// leaves the search lexical with a note in
/// [`RecallResult::notes`](crate::RecallResult::notes); a document vector of another length
/// is not kept, and its entry ranks lexically.
pub trait Embedder: Send + Sync {
    /// What identifies the model and its weights (name and revision): the vector cache is
    /// keyed by it, so vectors of two models are never compared.
    fn id(&self) -> &str;
    /// The length of its vectors.
    fn dimension(&self) -> usize;
    /// Embeds a search query.
    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError>;
    /// Embeds documents, one vector per text, in order.
    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// What loads a [`LazyEmbedder`]'s model.
type Loader = Box<dyn FnOnce() -> Result<Box<dyn Embedder>, EmbedError> + Send>;

/// An [`Embedder`] whose model is loaded when first used, once: a process that never
/// searches by meaning (a listing, a search of one or two words) never pays for loading it,
/// and a recall loads it on the thread that embeds its query, beside the lexical search.
///
/// A model that fails to load fails every call with the load's error (rendered as text), has
/// the empty id and dimension 0 (so no cached vector matches it).
///
/// ```
/// use goldfish_recall::semantic::{EmbedError, Embedder, LazyEmbedder};
///
/// struct Tiny;
/// impl Embedder for Tiny {
///     fn id(&self) -> &str { "tiny@1" }
///     fn dimension(&self) -> usize { 2 }
///     fn embed_query(&self, _: &str) -> Result<Vec<f32>, EmbedError> { Ok(vec![1.0, 0.0]) }
///     fn embed_documents(&self, t: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
///         Ok(vec![vec![1.0, 0.0]; t.len()])
///     }
/// }
///
/// let lazy = LazyEmbedder::new(|| Ok(Box::new(Tiny) as Box<dyn Embedder>));
/// assert!(!lazy.is_loaded());
/// assert_eq!(lazy.id(), "tiny@1"); // loads it
/// assert!(lazy.is_loaded());
/// ```
pub struct LazyEmbedder {
    load: std::sync::Mutex<Option<Loader>>,
    loaded: std::sync::OnceLock<Result<Box<dyn Embedder>, String>>,
}

impl LazyEmbedder {
    /// An embedder that calls `load` when first used.
    pub fn new(
        load: impl FnOnce() -> Result<Box<dyn Embedder>, EmbedError> + Send + 'static,
    ) -> Self {
        LazyEmbedder {
            load: std::sync::Mutex::new(Some(Box::new(load))),
            loaded: std::sync::OnceLock::new(),
        }
    }

    /// Whether the model was loaded (or failed to load) already.
    pub fn is_loaded(&self) -> bool {
        self.loaded.get().is_some()
    }

    /// The model, loaded now if it was not (a second caller meanwhile waits for the first).
    fn get(&self) -> Result<&dyn Embedder, EmbedError> {
        let loaded = self.loaded.get_or_init(|| {
            let load = self.load.lock().ok().and_then(|mut l| l.take());
            match load {
                Some(load) => load().map_err(|e| e.to_string()),
                None => Err("the model's loader was lost to an earlier panic".to_string()),
            }
        });
        match loaded {
            Ok(model) => Ok(model.as_ref()),
            Err(e) => Err(e.clone().into()),
        }
    }
}

impl fmt::Debug for LazyEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.loaded.get() {
            None => "not loaded",
            Some(Ok(_)) => "loaded",
            Some(Err(_)) => "failed",
        };
        f.debug_struct("LazyEmbedder")
            .field("state", &state)
            .finish_non_exhaustive()
    }
}

impl Embedder for LazyEmbedder {
    fn id(&self) -> &str {
        self.get().map_or("", |m| m.id())
    }
    fn dimension(&self) -> usize {
        self.get().map_or(0, |m| m.dimension())
    }
    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        self.get()?.embed_query(text)
    }
    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.get()?.embed_documents(texts)
    }
}

/// goldfish's model (`goldfish_embed::BertEmbedder`, all-MiniLM-L6-v2 by default) as an
/// [`Embedder`], with the id its vectors are cached under.
#[cfg(feature = "semantic")]
pub struct ModelEmbedder {
    model: goldfish_embed::BertEmbedder,
    id: String,
}

#[cfg(feature = "semantic")]
impl ModelEmbedder {
    /// `model`, whose vectors are cached under `id`: give a different id for different
    /// weights (the binary uses `BertEmbedder::model_id`: the model's name and a fingerprint
    /// of its files).
    pub fn new(model: goldfish_embed::BertEmbedder, id: impl Into<String>) -> Self {
        ModelEmbedder {
            model,
            id: id.into(),
        }
    }
}

#[cfg(feature = "semantic")]
impl fmt::Debug for ModelEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelEmbedder")
            .field("id", &self.id)
            .finish()
    }
}

#[cfg(feature = "semantic")]
impl Embedder for ModelEmbedder {
    fn id(&self) -> &str {
        &self.id
    }
    fn dimension(&self) -> usize {
        goldfish_embed::Embedder::dimension(&self.model)
    }
    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let mut v = goldfish_embed::Embedder::embed(&self.model, &[text])?;
        v.pop().ok_or_else(|| "the model returned no vector".into())
    }
    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(goldfish_embed::Embedder::embed(&self.model, texts)?)
    }
}

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

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use goldfish_store::Checkpoint;

use crate::engine::Hit;
use crate::explain::Explanation;
use crate::fusion::{ChannelPart, Fused, Fusion, fuse};
use crate::query::Query;

/// The error an [`Embedder`] returns: anything that can say what went wrong.
pub type EmbedError = Box<dyn std::error::Error + Send + Sync>;

/// A sentence-embedding model, as recall uses it: implement it to bring a model of your own
/// (without the `semantic` feature) and put it in [`RecallOptions::semantic`](crate::RecallOptions::semantic)
/// through [`SemanticChannel::new`].
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

/// Fuses a search's two channels as [`SemanticOptions`] say: `lexical` is the lexical
/// engine's ranking (`(key, score)`, best first), `cosines` every searched entry that has
/// a vector with its cosine similarity to the query, best first. Each channel is cut to
/// its best [`SemanticOptions::candidates`], the semantic one chosen by
/// [`SemanticOptions::pool`] among the entries at least
/// [`SemanticOptions::min_similarity`] similar, then [`fuse`]d by
/// [`SemanticOptions::fusion`]. Pure: what recall does with a search's rankings, for a
/// caller with rankings of its own.
#[must_use]
pub fn fuse_channels<K: Copy + Eq + Hash>(
    lexical: &[(K, f32)],
    cosines: &[(K, f32)],
    opts: &SemanticOptions,
) -> Vec<Fused<K>> {
    let lexical = &lexical[..lexical.len().min(opts.candidates)];
    let similar = cosines.iter().filter(|c| c.1 >= opts.min_similarity);
    let semantic: Vec<(K, f32)> = match opts.pool {
        Pool::Nearest => similar.take(opts.candidates).copied().collect(),
        Pool::NearestAndLexical | Pool::Lexical => {
            let nearest = if opts.pool == Pool::Lexical {
                0
            } else {
                opts.candidates
            };
            let ranked: HashSet<K> = lexical.iter().map(|l| l.0).collect();
            similar
                .enumerate()
                .filter(|(i, c)| *i < nearest || ranked.contains(&c.0))
                .map(|(_, c)| *c)
                .collect()
        }
    };
    fuse(lexical, &semantic, opts.fusion)
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

/// How a hit's place was made from the two channels: in
/// [`Explanation::fusion`](crate::Explanation::fusion) when the semantic channel ranked.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct FusionExplanation {
    /// The fused score: the order of the answer.
    pub score: f32,
    /// Its place in the lexical ranking, if it had one among the candidates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lexical: Option<ChannelPart>,
    /// Its place in the semantic ranking (the score is the cosine similarity), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic: Option<ChannelPart>,
}

/// The text of a checkpoint that is embedded: its description (title and body), its typed
/// fields and its tags.
#[must_use]
pub fn embedding_text(cp: &Checkpoint) -> String {
    let mut text = cp.description.clone();
    crate::fields::typed_text(cp, |t| {
        text.push('\n');
        text.push_str(t);
    });
    if !cp.tags.is_empty() {
        text.push('\n');
        text.push_str(&cp.tags.join(", "));
    }
    text
}

/// The key of an embedded text in the vector cache: its 64-bit FNV-1a hash (a hash whose
/// output never changes between builds).
#[must_use]
pub fn text_key(text: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    h.write(text.as_bytes());
    h.finish()
}

/// The vector cache file of a workspace.
pub(crate) fn vectors_path(root: &Path, workspace: &str) -> PathBuf {
    root.join(crate::index::INDEX_DIR)
        .join(format!("{workspace}.gfv"))
}

const MAGIC: [u8; 8] = *b"GFVECT\0\0";
const VERSION: u32 = 1;

/// One workspace's vectors: sorted by key, quantized.
#[derive(Debug, Clone, Default)]
pub(crate) struct Vectors {
    dim: usize,
    /// `(key, scale, quantized)`, sorted by key, keys unique; the quantized values as stored
    /// (8-bit two's complement, [`quantize`]).
    keys: Vec<u64>,
    scales: Vec<f32>,
    values: Vec<u8>,
    /// Added since read: the file is to be written.
    pub(crate) dirty: bool,
}

impl Vectors {
    fn empty(dim: usize) -> Self {
        Vectors {
            dim,
            ..Vectors::default()
        }
    }

    /// How many vectors.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether `key` has a vector.
    pub(crate) fn contains(&self, key: u64) -> bool {
        self.keys.binary_search(&key).is_ok()
    }

    /// The keys that have a vector, in order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.keys.iter().copied()
    }

    /// The place of `key`'s vector, if it has one.
    pub(crate) fn position(&self, key: u64) -> Option<usize> {
        self.keys.binary_search(&key).ok()
    }

    /// The cosine similarity of the query with `key`'s vector.
    #[cfg(test)]
    pub(crate) fn cosine(&self, key: u64, query: &PreparedQuery) -> Option<f32> {
        let i = self.position(key)?;
        Some(query.cosine(self.scales[i], self.row(i)))
    }

    /// `key`'s vector as stored: its scale and quantized values.
    pub(crate) fn get(&self, key: u64) -> Option<(f32, &[u8])> {
        let i = self.position(key)?;
        Some((self.scales[i], self.row(i)))
    }

    /// The quantized values of the vector at `i`.
    fn row(&self, i: usize) -> &[u8] {
        &self.values[i * self.dim..(i + 1) * self.dim]
    }

    /// Adds vectors (normalised and quantized here).
    pub(crate) fn insert(&mut self, new: Vec<(u64, Vec<f32>)>) {
        let quantized = new
            .into_iter()
            .filter(|(_, v)| v.len() == self.dim)
            .map(|(key, v)| {
                let (scale, q) = quantize(&v);
                (key, scale, q)
            })
            .collect();
        self.insert_quantized(quantized);
    }

    /// Adds vectors as stored (`(key, scale, quantized)`, from [`Vectors::get`] of another
    /// workspace's vectors of the same model); those of another dimension are ignored.
    pub(crate) fn insert_quantized(&mut self, new: Vec<(u64, f32, Vec<u8>)>) {
        if new.is_empty() {
            return;
        }
        let mut all: Vec<(u64, f32, Vec<u8>)> = Vec::with_capacity(self.keys.len() + new.len());
        for (i, &key) in self.keys.iter().enumerate() {
            let v = self.values[i * self.dim..(i + 1) * self.dim].to_vec();
            all.push((key, self.scales[i], v));
        }
        all.extend(new.into_iter().filter(|r| r.2.len() == self.dim));
        // The newest vector of a key wins: a stable sort keeps the later one last.
        all.sort_by_key(|r| r.0);
        all.dedup_by(|later, earlier| {
            if later.0 == earlier.0 {
                std::mem::swap(later, earlier);
                true
            } else {
                false
            }
        });
        self.keys = all.iter().map(|r| r.0).collect();
        self.scales = all.iter().map(|r| r.1).collect();
        self.values = all.into_iter().flat_map(|r| r.2).collect();
        self.dirty = true;
    }

    /// Keeps only the vectors whose keys `keep` says.
    pub(crate) fn retain(&mut self, keep: impl Fn(u64) -> bool) {
        let before = self.keys.len();
        let mut keys = Vec::new();
        let mut scales = Vec::new();
        let mut values = Vec::new();
        for (i, &key) in self.keys.iter().enumerate() {
            if keep(key) {
                keys.push(key);
                scales.push(self.scales[i]);
                values.extend_from_slice(&self.values[i * self.dim..(i + 1) * self.dim]);
            }
        }
        if keys.len() != before {
            self.dirty = true;
        }
        (self.keys, self.scales, self.values) = (keys, scales, values);
    }

    /// The file's bytes: header (magic, version, dimension, the model id), the records
    /// (key u64, scale f32, the quantized values), a CRC-32 of everything before it.
    pub(crate) fn encode(&self, model: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + model.len() + self.keys.len() * (12 + self.dim));
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.dim as u32).to_le_bytes());
        out.extend_from_slice(&(model.len() as u32).to_le_bytes());
        out.extend_from_slice(model.as_bytes());
        out.extend_from_slice(&(self.keys.len() as u64).to_le_bytes());
        for (i, key) in self.keys.iter().enumerate() {
            out.extend_from_slice(&key.to_le_bytes());
            out.extend_from_slice(&self.scales[i].to_le_bytes());
            out.extend_from_slice(self.row(i));
        }
        let sum = crc32fast::hash(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Decodes a file written by [`Vectors::encode`] for `model` of dimension `dim`; `None`
    /// when it is of another model, version or dimension, or damaged (then it is rebuilt).
    pub(crate) fn decode(bytes: &[u8], model: &str, dim: usize) -> Option<Vectors> {
        let mut v = Vectors::empty(dim);
        let records = bytes.len() / (12 + dim);
        v.keys.reserve(records);
        v.scales.reserve(records);
        v.values.reserve(records * dim);
        read_records(
            bytes,
            bytes.len() as u64,
            model,
            dim,
            &mut Vec::new(),
            |key, scale, values| {
                v.keys.push(key);
                v.scales.push(scale);
                v.values.extend_from_slice(values);
            },
        )?;
        Some(v)
    }
}

/// Records read per call of `read` by [`read_records`] (about 256 KiB for 384 numbers).
const CHUNK_RECORDS: usize = 640;

/// Reads a vector file (see [`Vectors::encode`]) of `len` bytes from `r`, for `model` of
/// dimension `dim`, giving `each` every record in order: its key, scale and quantized values.
/// `buf` holds a chunk of records at a time (kept by the caller for the next file), so a file
/// is never in memory whole. `None` when the file is of another model, version or dimension,
/// or damaged (a wrong length, keys out of order, a checksum that differs, a failed read):
/// found before the records or after them (the checksum), so a caller keeps what `each`
/// gathered only on `Some`.
fn read_records(
    mut r: impl std::io::Read,
    len: u64,
    model: &str,
    dim: usize,
    buf: &mut Vec<u8>,
    mut each: impl FnMut(u64, f32, &[u8]),
) -> Option<()> {
    let header_len = 8 + 4 + 4 + 4 + model.len() + 8;
    let record = 12 + dim;
    let mut header = vec![0u8; header_len];
    r.read_exact(&mut header).ok()?;
    let mut sum = crc32fast::Hasher::new();
    sum.update(&header);
    let u32_at = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(header.get(at..at + 4)?.try_into().ok()?))
    };
    if header[..8] != MAGIC || u32_at(8)? != VERSION || u32_at(12)? as usize != dim {
        return None;
    }
    if u32_at(16)? as usize != model.len() || &header[20..20 + model.len()] != model.as_bytes() {
        return None;
    }
    let count = u64::from_le_bytes(header[header_len - 8..].try_into().ok()?);
    let body = u64::try_from(record)
        .ok()?
        .checked_mul(count)?
        .checked_add(header_len as u64)?;
    if body.checked_add(4)? != len {
        return None;
    }
    let mut left = usize::try_from(count).ok()?;
    let mut last: Option<u64> = None;
    buf.resize(record * CHUNK_RECORDS.min(left.max(1)), 0);
    while left > 0 {
        let n = left.min(CHUNK_RECORDS);
        let chunk = &mut buf[..n * record];
        r.read_exact(chunk).ok()?;
        sum.update(chunk);
        for rec in chunk.chunks_exact(record) {
            let key = u64::from_le_bytes(rec[..8].try_into().ok()?);
            if last.is_some_and(|last| last >= key) {
                return None;
            }
            last = Some(key);
            each(
                key,
                f32::from_le_bytes(rec[8..12].try_into().ok()?),
                &rec[12..],
            );
        }
        left -= n;
    }
    let mut stored = [0u8; 4];
    r.read_exact(&mut stored).ok()?;
    (sum.finalize() == u32::from_le_bytes(stored)).then_some(())
}

/// Reads arbitrary bytes as a vector file, as a recall would (for the fuzz target): the
/// first byte is the dimension (at least 1), the second the length of the model id that
/// follows, the rest the file. Never panics; the number of vectors read, or `None` when the
/// file is refused.
#[doc(hidden)]
pub fn read_vector_bytes(data: &[u8]) -> Option<usize> {
    let (&dim, rest) = data.split_first()?;
    let (&id_len, rest) = rest.split_first()?;
    let (model, file) = rest.split_at_checked(usize::from(id_len))?;
    let model = std::str::from_utf8(model).ok()?;
    let dim = usize::from(dim.max(1));
    let query = PreparedQuery::new(vec![1.0; dim]);
    let mut count = 0;
    let mut buf = Vec::new();
    read_records(
        file,
        file.len() as u64,
        model,
        dim,
        &mut buf,
        |_, scale, values| {
            std::hint::black_box(query.cosine(scale, values));
            count += 1;
        },
    )?;
    Some(count)
}

/// Unit length, then 8-bit integers with one scale, `v[i] ≈ q[i] × scale`, stored as their
/// two's complement bytes.
fn quantize(v: &[f32]) -> (f32, Vec<u8>) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let norm = if norm > 0.0 { norm } else { 1.0 };
    let max = v.iter().fold(0f32, |m, x| m.max((x / norm).abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let q = v
        .iter()
        .map(|x| (x / norm / scale).round().clamp(-127.0, 127.0) as i8 as u8)
        .collect();
    (scale, q)
}

/// A query vector as [`Vectors::cosine_at`] takes it: unit length, in 16-bit integers with one
/// scale (`v[i] ≈ values[i] × scale`, within 1/32,766 of the largest number).
#[derive(Debug, Clone)]
pub(crate) struct PreparedQuery {
    values: Vec<i16>,
    scale: f32,
}

impl PreparedQuery {
    /// `v` made unit length and quantized.
    pub(crate) fn new(v: Vec<f32>) -> Self {
        let v = unit(v);
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / 16_383.0 } else { 1.0 };
        let values = v
            .iter()
            .map(|x| (x / scale).round().clamp(-16_383.0, 16_383.0) as i16)
            .collect();
        PreparedQuery { values, scale }
    }

    /// Its cosine similarity with a stored vector: `scale` and the quantized values as stored
    /// (see [`quantize`]).
    pub(crate) fn cosine(&self, scale: f32, values: &[u8]) -> f32 {
        // In integers: the compiler keeps many lanes of it in flight (a sum of floats must
        // be added in order), and 127 × 16,383 × the dimension stays far from overflow.
        let dot: i32 = values
            .iter()
            .zip(&self.values)
            .map(|(&a, &b)| i32::from(a as i8) * i32::from(b))
            .sum();
        dot as f32 * scale * self.scale
    }
}

/// A query vector made unit length.
pub(crate) fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in &mut v {
            *x /= norm;
        }
    }
    v
}

/// One workspace's vectors as a recall uses them: each key's cosine similarity with the
/// query, computed as its file is read (the vectors themselves are not kept), and the vectors
/// this recall embedded, written back by [`Caches::save`].
#[derive(Debug, Default)]
pub(crate) struct Similar {
    /// Sorted, unique, as in the file; `sims` in the same order.
    keys: Vec<u64>,
    sims: Vec<f32>,
    /// Embedded by this recall: the key, its similarity, and the vector to keep.
    added: Vec<(u64, f32, Vec<f32>)>,
}

impl Similar {
    const NONE: Similar = Similar {
        keys: Vec::new(),
        sims: Vec::new(),
        added: Vec::new(),
    };

    /// The similarities of the query with the vectors of `workspace`'s file under `root`
    /// (none when it has no file, or one of another model or damaged: its entries are then
    /// embedded again). `buf` is the reading buffer, kept from one file to the next.
    fn read(
        root: &Path,
        workspace: &str,
        embedder: &dyn Embedder,
        query: &PreparedQuery,
        buf: &mut Vec<u8>,
    ) -> Similar {
        let mut read = || -> Option<Similar> {
            let file = std::fs::File::open(vectors_path(root, workspace)).ok()?;
            let len = file.metadata().ok()?.len();
            let mut s = Similar::default();
            let (id, dim) = (embedder.id(), embedder.dimension());
            read_records(file, len, id, dim, buf, |key, scale, values| {
                s.keys.push(key);
                s.sims.push(query.cosine(scale, values));
            })?;
            Some(s)
        };
        read().unwrap_or_default()
    }

    /// The similarity of the query with `key`'s vector, if it has one.
    pub(crate) fn get(&self, key: u64) -> Option<f32> {
        match self.keys.binary_search(&key) {
            Ok(i) => Some(self.sims[i]),
            Err(_) => self.added.iter().rev().find(|a| a.0 == key).map(|a| a.1),
        }
    }

    /// Adds `key`'s vector `v`, just embedded (ignored when not of dimension `dim`).
    fn add(&mut self, key: u64, v: Vec<f32>, dim: usize, query: &PreparedQuery) {
        if v.len() == dim {
            let (scale, q) = quantize(&v);
            self.added.push((key, query.cosine(scale, &q), v));
        }
    }
}

/// The vectors of the workspaces one recall reads, compared with its query as they are
/// read, and those it embedded, written back (atomic replace) at the end.
///
/// The query is embedded on a thread of its own, which then reads the searched workspaces'
/// vector files, while the recall's lexical search runs: loading a model, embedding a query
/// and reading vectors cost about as much as the lexical search itself. The semantic ranking
/// waits for it ([`Caches::query`]).
pub(crate) struct Caches<'a> {
    root: &'a Path,
    pub(crate) channel: &'a SemanticChannel,
    query: QueryState,
    by_workspace: HashMap<String, Similar>,
}

impl Drop for Caches<'_> {
    /// A recall that never ranked by meaning (nothing to search) leaves the query's thread to
    /// finish its embedding (a lazily loaded model stays loaded) but read no more files.
    fn drop(&mut self) {
        if let QueryState::Pending { stop, .. } = &self.query {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// What the query's thread gives back: the query, and the vector files it read.
type Embedded = Result<(PreparedQuery, Vec<(String, Similar)>), EmbedError>;

enum QueryState {
    /// Being embedded: `stop` asks the thread to read no more vector files.
    Pending {
        thread: std::thread::JoinHandle<Embedded>,
        stop: Arc<std::sync::atomic::AtomicBool>,
    },
    Ready(PreparedQuery),
    /// The model failed; no note given yet.
    Error(EmbedError),
    /// The model failed; the note is given.
    Failed,
}

/// Embeds `query` with `embedder` and checks its length; then reads the vector files of
/// `workspaces` under `root`, until `stop` is set.
fn embed_and_read(
    embedder: &dyn Embedder,
    query: &str,
    root: &Path,
    workspaces: &[String],
    stop: &std::sync::atomic::AtomicBool,
) -> Embedded {
    let v = embedder.embed_query(query)?;
    if v.len() != embedder.dimension() {
        return Err(format!(
            "the model gave a vector of {} numbers, not its dimension {}",
            v.len(),
            embedder.dimension()
        )
        .into());
    }
    let query = PreparedQuery::new(v);
    let mut read = Vec::new();
    let mut buf = Vec::new();
    for ws in workspaces {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let similar = Similar::read(root, ws, embedder, &query, &mut buf);
        read.push((ws.clone(), similar));
    }
    Ok((query, read))
}

impl<'a> Caches<'a> {
    /// Starts embedding `query` (and reading the vectors of `workspaces`) beside the caller.
    pub(crate) fn new(
        root: &'a Path,
        channel: &'a SemanticChannel,
        query: &str,
        workspaces: &[String],
    ) -> Self {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (embedder, text, dir, list, flag) = (
            channel.embedder.clone(),
            query.to_string(),
            root.to_path_buf(),
            workspaces.to_vec(),
            stop.clone(),
        );
        let spawned = std::thread::Builder::new()
            .name("goldfish-query".into())
            .spawn(move || embed_and_read(embedder.as_ref(), &text, &dir, &list, &flag));
        let query = match spawned {
            Ok(thread) => QueryState::Pending { thread, stop },
            // No thread to be had: the query is embedded here, the files read when needed.
            Err(_) => match embed_and_read(channel.embedder.as_ref(), query, root, &[], &stop) {
                Ok((q, _)) => QueryState::Ready(q),
                Err(e) => QueryState::Error(e),
            },
        };
        Caches {
            root,
            channel,
            query,
            by_workspace: HashMap::new(),
        }
    }

    /// The query, once embedded; `None` when the model failed (then said once in `notes`,
    /// and the search stays lexical).
    pub(crate) fn query(&mut self, notes: &mut Vec<String>) -> Option<&PreparedQuery> {
        let result =
            match std::mem::replace(&mut self.query, QueryState::Failed) {
                QueryState::Pending { thread, stop } => {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    Some(thread.join().unwrap_or_else(|_| {
                        Err("the model panicked while embedding the query".into())
                    }))
                }
                QueryState::Error(e) => Some(Err(e)),
                state => {
                    self.query = state;
                    None
                }
            };
        if let Some(result) = result {
            match result {
                Ok((q, read)) => {
                    for (ws, v) in read {
                        self.by_workspace.entry(ws).or_insert(v);
                    }
                    self.query = QueryState::Ready(q);
                }
                Err(e) => notes.push(format!(
                    "the semantic channel is off for this search ({e}); ranked lexically"
                )),
            }
        }
        match &self.query {
            QueryState::Ready(q) => Some(q),
            _ => None,
        }
    }

    /// Whether the semantic channel ranked this search: its query was embedded (waited for
    /// when nothing asked for it yet, such as a search with no entry in its window).
    pub(crate) fn ranked(&mut self, notes: &mut Vec<String>) -> bool {
        self.query(notes).is_some()
    }

    /// The similarities of `workspace` read by [`Caches::read`] (none if it has none).
    fn get(&self, workspace: &str) -> &Similar {
        static NONE: Similar = Similar::NONE;
        self.by_workspace.get(workspace).unwrap_or(&NONE)
    }

    /// Reads the vectors of `workspaces` that the query's thread did not (it was asked to
    /// stop), comparing them with `query`.
    fn read(&mut self, workspaces: &[&str], query: &PreparedQuery) {
        let mut buf = Vec::new();
        for &ws in workspaces {
            if !self.by_workspace.contains_key(ws) {
                let embedder = self.channel.embedder.as_ref();
                let similar = Similar::read(self.root, ws, embedder, query, &mut buf);
                self.by_workspace.insert(ws.to_string(), similar);
            }
        }
    }

    /// Writes back the workspaces' files that gained vectors (read again, so that vectors
    /// another process added meanwhile are kept); what could not be written is noted.
    pub(crate) fn save(mut self, notes: &mut Vec<String>) {
        let embedder = self.channel.embedder.as_ref();
        for (ws, similar) in std::mem::take(&mut self.by_workspace) {
            if similar.added.is_empty() {
                continue;
            }
            let mut v = read_vectors(self.root, &ws, embedder);
            v.insert(similar.added.into_iter().map(|(k, _, v)| (k, v)).collect());
            if let Err(e) = write_vectors(self.root, &ws, &v, embedder.id()) {
                notes.push(format!(
                    "the vectors of {ws} could not be saved ({e}); they are computed again next time"
                ));
            }
        }
    }
}

pub(crate) fn read_vectors(root: &Path, workspace: &str, embedder: &dyn Embedder) -> Vectors {
    std::fs::read(vectors_path(root, workspace))
        .ok()
        .and_then(|b| Vectors::decode(&b, embedder.id(), embedder.dimension()))
        .unwrap_or_else(|| Vectors::empty(embedder.dimension()))
}

pub(crate) fn write_vectors(
    root: &Path,
    workspace: &str,
    v: &Vectors,
    model: &str,
) -> Result<(), goldfish_core::fs::FsError> {
    let path = vectors_path(root, workspace);
    // Private like the rest of the store (0600 in a 0700 directory): vectors of private text.
    let private = goldfish_core::fs::WriteOptions::private();
    if let Some(dir) = path.parent() {
        goldfish_core::fs::create_dir_all(dir, private.dir_mode)?;
    }
    goldfish_core::fs::write_atomic(&path, &v.encode(model), &private)
}

/// One searched entry, as the semantic channel sees it.
pub(crate) struct Entry<'w> {
    pub(crate) workspace: &'w str,
    pub(crate) key: u64,
}

/// Re-ranks a lexical answer with the semantic channel: `entries[i]` describes the entry
/// numbered `i` in `hits`; `text_of(i)` gives the text of an entry without a vector (for the
/// bounded number embedded now). Returns the fused hits, best first, and notes.
pub(crate) fn rerank<'w>(
    hits: Vec<Hit>,
    entries: &[Entry<'w>],
    caches: &mut Caches<'_>,
    explain: bool,
    mut text_of: impl FnMut(usize) -> Option<String>,
    notes: &mut Vec<String>,
) -> Vec<Hit> {
    let opts = caches.channel.options;
    // The query, copied out of the caches (which the missing entries' vectors go into).
    let Some(query) = caches.query(notes).cloned() else {
        return hits;
    };
    // Each entry's workspace, numbered in order of first appearance (entries come grouped by
    // workspace: the name is compared with the last one's before it is looked up), and the
    // workspaces' vectors read once each.
    let mut names: Vec<&'w str> = Vec::new();
    let mut numbers: HashMap<&'w str, usize> = HashMap::new();
    let mut slot: Vec<usize> = Vec::with_capacity(entries.len());
    for e in entries {
        let n = match slot.last() {
            Some(&last) if names[last] == e.workspace => last,
            _ => *numbers.entry(e.workspace).or_insert_with(|| {
                names.push(e.workspace);
                names.len() - 1
            }),
        };
        slot.push(n);
    }
    caches.read(&names, &query);
    // Each entry's similarity, when its text has a vector.
    let mut sims: Vec<Option<f32>> = {
        let tables: Vec<&Similar> = names.iter().map(|n| caches.get(n)).collect();
        entries
            .iter()
            .zip(&slot)
            .map(|(e, &n)| tables[n].get(e.key))
            .collect()
    };
    // Entries without a vector: the newest (last in reading order) are embedded first.
    let missing: Vec<usize> = (0..entries.len())
        .rev()
        .filter(|&i| sims[i].is_none())
        .take(opts.embed_missing)
        .collect();
    if !missing.is_empty() {
        let texts: Vec<(usize, String)> = missing
            .iter()
            .filter_map(|&i| text_of(i).map(|t| (i, t)))
            .collect();
        let refs: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).collect();
        match caches.channel.embedder.embed_documents(&refs) {
            Ok(vectors) => {
                let dim = caches.channel.embedder.dimension();
                for ((i, _), v) in texts.iter().zip(vectors) {
                    let e = &entries[*i];
                    let similar = caches.by_workspace.entry(e.workspace.to_string());
                    similar.or_default().add(e.key, v, dim, &query);
                }
                // Entries of the same text share the vector just added.
                let tables: Vec<&Similar> = names.iter().map(|n| caches.get(n)).collect();
                for (i, e) in entries.iter().enumerate() {
                    if sims[i].is_none() {
                        sims[i] = tables[slot[i]].get(e.key);
                    }
                }
            }
            Err(e) => notes.push(format!(
                "entries without a vector could not be embedded ({e}); they rank lexically"
            )),
        }
    }
    let mut cosines: Vec<(usize, f32)> = sims
        .into_iter()
        .enumerate()
        .filter_map(|(i, sim)| sim.filter(|&s| s >= opts.min_similarity).map(|s| (i, s)))
        .collect();
    // Best first; equal similarity keeps the newer entry first (later in reading order).
    cosines.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    let cut = hits.len().min(opts.candidates);
    let lexical: Vec<(usize, f32)> = hits[..cut].iter().map(|h| (h.index, h.score)).collect();
    let fused = fuse_channels(&lexical, &cosines, &opts);
    // What a hit found by meaning alone says about the query's words.
    let words = hits
        .iter()
        .find_map(|h| h.explain.as_ref().map(|e| e.unmatched()));
    // The fused hits taken out of the lexical ones (a few hundred of many thousands); the
    // others beyond the candidates keep their order after them.
    let fused_keys: HashSet<usize> = fused.iter().map(|f| f.key).collect();
    let mut by_index: HashMap<usize, Hit> = HashMap::with_capacity(fused_keys.len());
    let mut rest: Vec<Hit> = Vec::with_capacity(hits.len().saturating_sub(cut));
    for (place, hit) in hits.into_iter().enumerate() {
        if fused_keys.contains(&hit.index) {
            by_index.insert(hit.index, hit);
        } else if place >= cut {
            rest.push(hit);
        }
    }
    let mut out: Vec<Hit> = fused
        .into_iter()
        .map(|f| {
            let mut hit = by_index.remove(&f.key).unwrap_or(Hit {
                index: f.key,
                score: 0.0,
                explain: None,
            });
            hit.score = f.score;
            if explain {
                let mut e = hit
                    .explain
                    .take()
                    .map(|e| *e)
                    .or_else(|| words.clone())
                    .unwrap_or_default();
                e.fusion = Some(FusionExplanation {
                    score: f.score,
                    lexical: f.lexical,
                    semantic: f.semantic,
                });
                hit.explain = Some(Box::new(e));
            }
            hit
        })
        .collect();
    // Lexical hits beyond the candidates keep their order after the fused ones (those the
    // semantic channel fused in are there already).
    out.extend(rest);
    out
}

impl Explanation {
    /// This explanation's words with nothing matched: what a hit found only by meaning says
    /// about the query's words.
    fn unmatched(&self) -> Explanation {
        let mut e = self.clone();
        for w in &mut e.words {
            w.matched = None;
            w.covered = false;
        }
        e.sum = 0.0;
        e.coverage = 0.0;
        e.score = 0.0;
        e.fusion = None;
        e
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fused_keys(lexical: &[(u32, f32)], cosines: &[(u32, f32)], o: &SemanticOptions) -> Vec<u32> {
        fuse_channels(lexical, cosines, o)
            .iter()
            .map(|f| f.key)
            .collect()
    }

    #[test]
    fn the_pool_decides_which_entries_the_semantic_channel_ranks() {
        let lexical = [(1, 9.0), (2, 8.0), (3, 7.0)];
        // Entry 3 is a lexical candidate, but not among the two nearest.
        let cosines = [(7, 0.9), (8, 0.8), (3, 0.5), (9, 0.1)];
        let mut o = SemanticOptions {
            candidates: 2,
            fusion: Fusion::mix(1.0),
            min_similarity: 0.2,
            ..SemanticOptions::default()
        };
        let sem = |o: &SemanticOptions| -> Vec<(u32, Option<f32>)> {
            let mut v: Vec<(u32, Option<f32>)> = fuse_channels(&lexical, &cosines, o)
                .iter()
                .map(|f| (f.key, f.semantic.map(|p| p.score)))
                .collect();
            v.sort_by_key(|e| e.0);
            v
        };
        // Nearest: the two nearest (7, 8) and the two best lexical (1, 2); 3 is cut.
        o.pool = Pool::Nearest;
        assert_eq!(
            sem(&o),
            [(1, None), (2, None), (7, Some(0.9)), (8, Some(0.8))]
        );
        // With the lexical candidates: 3 is still cut (only two lexical candidates).
        o.candidates = 3;
        o.pool = Pool::NearestAndLexical;
        assert_eq!(
            sem(&o),
            [
                (1, None),
                (2, None),
                (3, Some(0.5)),
                (7, Some(0.9)),
                (8, Some(0.8))
            ]
        );
        o.candidates = 2;
        let mut three = o;
        three.candidates = 3;
        three.pool = Pool::Nearest;
        // Nearest three: 7, 8, 3; 9 is under the threshold.
        assert_eq!(fused_keys(&lexical, &cosines, &three).len(), 5);
        three.min_similarity = -1.0;
        three.candidates = 4;
        assert_eq!(fused_keys(&lexical, &cosines, &three).len(), 6);
        // Lexical only: nothing by meaning alone, the candidates re-ranked.
        o.pool = Pool::Lexical;
        o.candidates = 3;
        assert_eq!(fused_keys(&lexical, &cosines, &o), [3, 1, 2]);
    }

    #[test]
    fn short_queries_stay_lexical_under_a_minimum_of_words() {
        let mut o = SemanticOptions {
            min_query_words: 3,
            ..SemanticOptions::default()
        };
        assert!(!o.applies_to(&Query::parse("rolover plan")));
        assert!(!o.applies_to(&Query::parse("how did we fix the rolover?")));
        assert!(o.applies_to(&Query::parse("lazy dfa rolover")));
        o.min_query_words = 0;
        assert!(o.applies_to(&Query::parse("rolover")));
    }

    #[test]
    fn vectors_round_trip_and_a_damaged_file_is_refused() {
        let mut v = Vectors::empty(3);
        v.insert(vec![(9, vec![1.0, 0.0, 0.0]), (2, vec![0.0, 3.0, 4.0])]);
        v.insert(vec![(9, vec![0.0, 1.0, 0.0])]);
        let bytes = v.encode("m@1");
        let back = Vectors::decode(&bytes, "m@1", 3).expect("decodes");
        assert_eq!(back.keys, [2, 9]);
        let q = PreparedQuery::new(vec![0.0, 1.0, 0.0]);
        assert!((back.cosine(9, &q).unwrap_or(0.0) - 1.0).abs() < 0.01);
        assert!((back.cosine(2, &q).unwrap_or(0.0) - 0.6).abs() < 0.01);
        assert!(back.cosine(5, &q).is_none());
        assert!(Vectors::decode(&bytes, "other", 3).is_none());
        assert!(Vectors::decode(&bytes, "m@1", 4).is_none());
        for cut in 0..bytes.len() {
            assert!(Vectors::decode(&bytes[..cut], "m@1", 3).is_none());
        }
        let mut flipped = bytes.clone();
        flipped[40] ^= 1;
        assert!(Vectors::decode(&flipped, "m@1", 3).is_none());
    }

    #[test]
    fn quantized_cosine_is_close_to_the_exact_one() {
        let a: Vec<f32> = (0..384)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
            .collect();
        let b: Vec<f32> = (0..384)
            .map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0)
            .collect();
        let (ua, ub) = (unit(a), unit(b.clone()));
        let exact: f32 = ua.iter().zip(&ub).map(|(x, y)| x * y).sum();
        let mut v = Vectors::empty(384);
        v.insert(vec![(1, b)]);
        let got = v.cosine(1, &PreparedQuery::new(ua)).unwrap_or(f32::NAN);
        assert!((got - exact).abs() < 0.01, "{got} vs {exact}");
    }

    /// An embedder of an id and a dimension only, for the vector files (it embeds the query
    /// as the first axis and every document as the second).
    struct Shape(&'static str, usize);

    impl Embedder for Shape {
        fn id(&self) -> &str {
            self.0
        }
        fn dimension(&self) -> usize {
            self.1
        }
        fn embed_query(&self, _: &str) -> Result<Vec<f32>, EmbedError> {
            Ok((0..self.1).map(|i| f32::from(u8::from(i == 0))).collect())
        }
        fn embed_documents(&self, t: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            let v: Vec<f32> = (0..self.1).map(|i| f32::from(u8::from(i == 1))).collect();
            Ok(vec![v; t.len()])
        }
    }

    #[test]
    fn a_recall_writes_back_what_it_embedded_beside_what_another_process_added() {
        // The recall read the file when it held key 1; another process then added key 2;
        // the recall embedded key 3. Saving keeps all three.
        let two = Shape("two@1", 2);
        let root = tempfile::tempdir().expect("a temporary directory");
        let channel = SemanticChannel::new(Arc::new(Shape("two@1", 2)));
        let q = PreparedQuery::new(vec![1.0, 0.0]);
        let mut v = Vectors::empty(2);
        v.insert(vec![(1, vec![1.0, 0.0])]);
        write_vectors(root.path(), "ws", &v, "two@1").expect("written");
        let mut caches = Caches {
            root: root.path(),
            channel: &channel,
            query: QueryState::Ready(q.clone()),
            by_workspace: HashMap::new(),
        };
        caches.read(&["ws"], &q);
        assert!((caches.get("ws").get(1).unwrap_or(0.0) - 1.0).abs() < 0.01);
        v.insert(vec![(2, vec![1.0, 1.0])]);
        write_vectors(root.path(), "ws", &v, "two@1").expect("written");
        let similar = caches.by_workspace.entry("ws".to_string()).or_default();
        similar.add(3, vec![0.0, 2.0], 2, &q);
        similar.add(4, vec![1.0, 2.0, 3.0], 2, &q);
        assert!(caches.get("ws").get(3).is_some_and(|s| s.abs() < 0.01));
        assert_eq!(
            caches.get("ws").get(4),
            None,
            "another dimension is not kept"
        );
        let mut notes = Vec::new();
        caches.save(&mut notes);
        assert!(notes.is_empty(), "{notes:?}");
        let saved = read_vectors(root.path(), "ws", &two);
        assert_eq!(saved.keys().collect::<Vec<_>>(), [1, 2, 3]);
    }

    #[test]
    fn similarities_read_from_a_file_are_those_of_each_vector_looked_up() {
        // 1,500 vectors of a seeded walk (more than one chunk of records), written to a file,
        // and a query: each similarity read from the file equals the one looked up in the
        // decoded vectors, is within 0.01 of the exact one, and a vector's with itself is 1.
        // A damaged or foreign file gives no similarity at all.
        let walk = Shape("walk@1", 384);
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 2001) as f32 / 1000.0 - 1.0
        };
        let count = CHUNK_RECORDS * 2 + 220;
        let vectors: Vec<Vec<f32>> = (0..count)
            .map(|_| (0..384).map(|_| next()).collect())
            .collect();
        let mut v = Vectors::empty(384);
        let key = |k: usize| (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        v.insert(
            vectors
                .iter()
                .cloned()
                .enumerate()
                .map(|(k, x)| (key(k), x))
                .collect(),
        );
        let root = tempfile::tempdir().expect("a temporary directory");
        write_vectors(root.path(), "ws", &v, "walk@1").expect("written");
        let query = vectors[3].clone();
        let q = PreparedQuery::new(query.clone());
        let mut buf = Vec::new();
        let read = Similar::read(root.path(), "ws", &walk, &q, &mut buf);
        assert_eq!(read.keys.len(), count);
        assert!(buf.len() <= CHUNK_RECORDS * (12 + 384), "{}", buf.len());
        let uq = unit(query);
        for (k, x) in vectors.iter().enumerate() {
            let sim = read.get(key(k)).expect("read");
            assert_eq!(Some(sim), v.cosine(key(k), &q), "{k}");
            let exact: f32 = unit(x.clone()).iter().zip(&uq).map(|(a, b)| a * b).sum();
            assert!((sim - exact).abs() < 0.01, "{k}: {sim} vs {exact}");
        }
        let own = read.get(key(3)).expect("read");
        assert!((own - 1.0).abs() < 0.01, "{own}");
        assert_eq!(read.get(1), None);
        let path = vectors_path(root.path(), "ws");
        let mut bytes = std::fs::read(&path).expect("the file");
        let last = bytes.len() - 10;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).expect("damaged");
        assert!(
            Similar::read(root.path(), "ws", &walk, &q, &mut buf)
                .keys
                .is_empty()
        );
        write_vectors(root.path(), "ws", &v, "other@1").expect("written");
        assert!(
            Similar::read(root.path(), "ws", &walk, &q, &mut buf)
                .keys
                .is_empty()
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Vectors → file → vectors gives the same keys, scales and values, read whole or a
        /// chunk of records at a time; and the similarities read from the file are those of
        /// the decoded vectors.
        #[test]
        fn vector_files_round_trip(
            dim in 1usize..24,
            keys in proptest::collection::btree_set(0u64.., 0..(CHUNK_RECORDS + 40)),
            seed in 1u64..,
        ) {
            let mut x = seed;
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2001) as f32 / 1000.0 - 1.0
            };
            let mut v = Vectors::empty(dim);
            v.insert(keys.iter().map(|&k| (k, (0..dim).map(|_| next()).collect())).collect());
            let bytes = v.encode("m@1");
            let back = Vectors::decode(&bytes, "m@1", dim).expect("decodes");
            proptest::prop_assert_eq!(&back.keys, &v.keys);
            proptest::prop_assert_eq!(&back.scales, &v.scales);
            proptest::prop_assert_eq!(&back.values, &v.values);
            proptest::prop_assert_eq!(back.encode("m@1"), bytes.clone());
            let q = PreparedQuery::new((0..dim).map(|_| next()).collect());
            let mut sims = Vec::new();
            let read = read_records(&bytes[..], bytes.len() as u64, "m@1", dim, &mut Vec::new(), |k, scale, values| {
                sims.push((k, q.cosine(scale, values)));
            });
            proptest::prop_assert!(read.is_some());
            for (k, sim) in sims {
                proptest::prop_assert_eq!(Some(sim), back.cosine(k, &q));
            }
        }

        /// A damaged file (a byte changed, or cut anywhere) is refused, never a panic.
        #[test]
        fn damaged_vector_files_are_refused(at in 0usize..8192, byte in 1u8.., cut in proptest::bool::ANY) {
            let mut v = Vectors::empty(8);
            v.insert((0..40u64).map(|k| (k * 3, (0..8).map(|i| (i as f32 - k as f32) / 7.0).collect())).collect());
            let mut bytes = v.encode("m@1");
            let at = at % bytes.len();
            if cut {
                bytes.truncate(at);
            } else {
                bytes[at] ^= byte;
            }
            proptest::prop_assert!(Vectors::decode(&bytes, "m@1", 8).is_none());
        }

        /// Arbitrary bytes never panic (what the fuzz target does, briefly).
        #[test]
        fn arbitrary_vector_bytes_never_panic(bytes in proptest::collection::vec(0u8.., 0..600)) {
            let _ = read_vector_bytes(&bytes);
        }
    }
}

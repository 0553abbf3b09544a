//! The pure-Rust sentence-transformers BERT: candle's model, Hugging Face's tokenizer.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use crate::{Embedder, Error};

/// Texts embedded per forward pass: large enough to keep both cores' matrix products busy,
/// small enough that padding to the longest text of a batch wastes little (texts are sorted
/// by length first).
const BATCH: usize = 32;

/// The files of a sentence-transformers model directory, by their names in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFiles {
    /// The directory.
    pub dir: PathBuf,
}

impl ModelFiles {
    /// The files every model needs, relative to its directory.
    pub const REQUIRED: [&'static str; 4] = [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "1_Pooling/config.json",
    ];
    /// Files read when present (the maximum sequence length sentence-transformers truncates to).
    pub const OPTIONAL: [&'static str; 1] = ["sentence_bert_config.json"];

    /// The model directory `dir`.
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The path of `name` in the directory.
    #[must_use]
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Checks that every required file is there, the JSON files parse, the pooling is mean
    /// pooling and the weights file's header is whole; returns the vector dimension.
    ///
    /// # Errors
    /// The first missing, corrupt or unsupported file, named.
    pub fn check(&self) -> Result<usize, Error> {
        for name in Self::REQUIRED {
            let path = self.path(name);
            if !path.is_file() {
                return Err(Error::Missing { path });
            }
        }
        let config = self.config()?;
        let dimension = self.pooling(&config)?;
        self.max_length(&config)?;
        check_safetensors_header(&self.path("model.safetensors"))?;
        Ok(dimension)
    }

    /// 16 hex digits of a SHA-256 over what makes the model: `config.json`, the pooling and
    /// sentence-transformers configurations, `tokenizer_json` (the tokenizer's bytes, already
    /// read by the caller), the weights' header and 16 samples of 4 KiB spread over the weights.
    /// Reads about 100 KiB of the weights: cheap at load, and different weights differ in it.
    fn fingerprint(&self, tokenizer_json: &[u8]) -> Result<String, Error> {
        use sha2::Digest;
        use std::io::{Read, Seek, SeekFrom};
        let mut hash = sha2::Sha256::new();
        for name in [
            "config.json",
            "1_Pooling/config.json",
            "sentence_bert_config.json",
        ] {
            let path = self.path(name);
            match std::fs::read(&path) {
                Ok(bytes) => hash.update(&bytes),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => hash.update(b"-"),
                Err(e) => return Err(Error::io(&path, e)),
            }
        }
        hash.update(tokenizer_json);
        let path = self.path("model.safetensors");
        let mut file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
        let size = file.metadata().map_err(|e| Error::io(&path, e))?.len();
        let mut sample = vec![0u8; 4096];
        const SAMPLES: u64 = 16;
        for k in 0..SAMPLES {
            let at = (size.saturating_sub(4096)) * k / (SAMPLES - 1);
            file.seek(SeekFrom::Start(at))
                .map_err(|e| Error::io(&path, e))?;
            let n = usize::try_from(size.min(4096)).unwrap_or(4096);
            file.read_exact(&mut sample[..n])
                .map_err(|e| Error::io(&path, e))?;
            hash.update(&sample[..n]);
        }
        hash.update(size.to_le_bytes());
        Ok(hash.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect())
    }

    fn config(&self) -> Result<Config, Error> {
        read_json(&self.path("config.json"))
    }

    /// Checks the pooling configuration: mean pooling only; returns the dimension.
    fn pooling(&self, config: &Config) -> Result<usize, Error> {
        let path = self.path("1_Pooling/config.json");
        let pooling: serde_json::Map<String, serde_json::Value> = read_json(&path)?;
        let flag = |key: &str| {
            pooling
                .get(key)
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false)
        };
        if !flag("pooling_mode_mean_tokens") {
            return Err(Error::Unsupported {
                path,
                reason: "pooling_mode_mean_tokens is not true: only mean pooling is supported"
                    .into(),
            });
        }
        for (key, value) in &pooling {
            if key.starts_with("pooling_mode_")
                && key != "pooling_mode_mean_tokens"
                && value.as_bool() == Some(true)
            {
                return Err(Error::Unsupported {
                    path,
                    reason: format!("{key} is true: only mean pooling is supported"),
                });
            }
        }
        let dimension = match pooling.get("word_embedding_dimension") {
            None => config.hidden_size,
            Some(value) => value
                .as_u64()
                .and_then(|d| usize::try_from(d).ok())
                .ok_or_else(|| Error::corrupt(&path, "word_embedding_dimension is not a number"))?,
        };
        if dimension != config.hidden_size {
            return Err(Error::corrupt(
                &path,
                format!(
                    "word_embedding_dimension {dimension} differs from config.json's hidden_size {}",
                    config.hidden_size
                ),
            ));
        }
        Ok(dimension)
    }

    /// The number of tokens a text is truncated to: sentence-transformers' `max_seq_length`,
    /// else the model's position embeddings.
    fn max_length(&self, config: &Config) -> Result<usize, Error> {
        let path = self.path("sentence_bert_config.json");
        if !path.is_file() {
            return Ok(config.max_position_embeddings);
        }
        let st: serde_json::Map<String, serde_json::Value> = read_json(&path)?;
        match st.get("max_seq_length") {
            None => Ok(config.max_position_embeddings),
            Some(value) => {
                let max = value
                    .as_u64()
                    .and_then(|d| usize::try_from(d).ok())
                    .filter(|&d| d > 0)
                    .ok_or_else(|| {
                        Error::corrupt(&path, "max_seq_length is not a positive number")
                    })?;
                Ok(max.min(config.max_position_embeddings))
            }
        }
    }
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::Missing {
            path: path.to_path_buf(),
        },
        _ => Error::io(path, e),
    })?;
    serde_json::from_str(&text)
        .map_err(|e| Error::corrupt(path, format!("not a valid file of its kind: {e}")))
}

/// Reads a safetensors header (8-byte little-endian length, then JSON) and checks that every
/// tensor's data lies inside the file: a truncated download is caught here, by name.
fn check_safetensors_header(path: &Path) -> Result<(), Error> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let mut len = [0u8; 8];
    file.read_exact(&mut len)
        .map_err(|_| Error::corrupt(path, "shorter than a safetensors header"))?;
    let len = u64::from_le_bytes(len);
    if len > size.saturating_sub(8) || len > 100 << 20 {
        return Err(Error::corrupt(
            path,
            format!("header length {len} exceeds the file ({size} bytes)"),
        ));
    }
    let mut header =
        vec![0u8; usize::try_from(len).map_err(|_| Error::corrupt(path, "header too long"))?];
    file.read_exact(&mut header)
        .map_err(|e| Error::io(path, e))?;
    let header: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&header)
        .map_err(|e| Error::corrupt(path, format!("safetensors header is not JSON: {e}")))?;
    let data = size - 8 - len;
    for (name, tensor) in &header {
        if name == "__metadata__" {
            continue;
        }
        let end = tensor
            .get("data_offsets")
            .and_then(|o| o.get(1))
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| Error::corrupt(path, format!("tensor {name} has no data_offsets")))?;
        if end > data {
            return Err(Error::corrupt(
                path,
                format!("truncated: tensor {name} ends at byte {end} of {data} bytes of data"),
            ));
        }
    }
    Ok(())
}

/// A sentence-transformers BERT model (all-MiniLM-L6-v2 and its kind) run on the CPU.
pub struct BertEmbedder {
    model: BertModel,
    /// Truncates to `max_length`; pads nothing (batches are padded here, to their longest).
    tokenizer: Tokenizer,
    pad_id: u32,
    dimension: usize,
    max_length: usize,
    model_id: String,
    /// A private pool of a chosen size ([`BertEmbedder::with_threads`]); else rayon's global
    /// pool, one thread per core.
    pool: Option<rayon::ThreadPool>,
    device: Device,
}

impl std::fmt::Debug for BertEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BertEmbedder")
            .field("model_id", &self.model_id)
            .field("dimension", &self.dimension)
            .field("max_length", &self.max_length)
            .finish_non_exhaustive()
    }
}

impl BertEmbedder {
    /// Loads the model in `dir` (see [`ModelFiles`]), its weights memory-mapped.
    ///
    /// # Errors
    /// A missing, corrupt or unsupported file, named.
    pub fn load(dir: &Path) -> Result<Self, Error> {
        let files = ModelFiles::new(dir);
        let dimension = files.check()?;
        let config = files.config()?;
        let max_length = files.max_length(&config)?;
        let tokenizer_path = files.path("tokenizer.json");
        let tokenizer_json =
            std::fs::read(&tokenizer_path).map_err(|e| Error::io(&tokenizer_path, e))?;
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_json)
            .map_err(|e| Error::corrupt(&tokenizer_path, format!("not a tokenizer: {e}")))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length,
                ..TruncationParams::default()
            }))
            .map_err(|e| Error::corrupt(&tokenizer_path, format!("cannot truncate: {e}")))?;
        let pad_id = tokenizer
            .get_padding()
            .map_or(u32::try_from(config.pad_token_id).unwrap_or(0), |p| {
                p.pad_id
            });
        tokenizer.with_padding(None);
        let weights = files.path("model.safetensors");
        let model_id = format!(
            "{}@{}",
            dir.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            files.fingerprint(&tokenizer_json)?
        );
        let device = Device::Cpu;
        // SAFETY: the map is read-only and lives as long as the tensors built from it. Mapping a
        // file is unsound only if another process changes it while it is mapped; goldfish never
        // writes a model file in place (installs write a new directory and rename it over the old
        // one, so a running process keeps the old file's inode) and documents that users must
        // not either.
        #[allow(unsafe_code)]
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[&weights], DType::F32, &device) }
            .map_err(|e| Error::corrupt(&weights, e))?;
        let model = BertModel::load(vb, &config).map_err(|e| Error::corrupt(&weights, e))?;
        Ok(Self {
            model,
            tokenizer,
            pad_id,
            dimension,
            max_length,
            model_id,
            pool: None,
            device,
        })
    }

    /// Runs the model on `threads` threads of its own instead of rayon's global pool (one
    /// thread per core). The crate reads no environment variable: this is the knob.
    ///
    /// # Errors
    /// When the operating system refuses the threads.
    pub fn with_threads(mut self, threads: usize) -> Result<Self, Error> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("goldfish-embed-{i}"))
            .build()
            .map_err(|e| Error::Model(format!("cannot start {threads} threads: {e}")))?;
        self.pool = Some(pool);
        Ok(self)
    }

    /// The model's identity: its directory's name, `@`, and a fingerprint (16 hex digits of a
    /// SHA-256) of its configuration, tokenizer, weights header and samples of its weights. Two
    /// directories holding the same model share it; a different model or revision changes it,
    /// so vectors cached under one id are never mixed with another model's.
    #[must_use]
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// The number of tokens (with the special ones) a text is truncated to.
    #[must_use]
    pub fn max_length(&self) -> usize {
        self.max_length
    }

    /// The number of tokens `text` has before truncation (with the special ones).
    ///
    /// # Errors
    /// When the tokenizer fails.
    pub fn token_count(&self, text: &str) -> Result<usize, Error> {
        let mut tokenizer = self.tokenizer.clone();
        tokenizer
            .with_truncation(None)
            .map_err(|e| Error::Model(e.to_string()))?;
        let encoding = tokenizer
            .encode(text, true)
            .map_err(|e| Error::Model(e.to_string()))?;
        Ok(encoding.len())
    }

    /// One forward pass over `encodings`, padded here to the longest of them.
    fn embed_batch(&self, encodings: &[&Encoding]) -> Result<Vec<Vec<f32>>, Error> {
        let model = |e: candle_core::Error| Error::Model(e.to_string());
        let rows = encodings.len();
        let len = encodings.iter().map(|e| e.len()).max().unwrap_or(0).max(1);
        let mut ids = vec![self.pad_id; rows * len];
        let mut types = vec![0u32; rows * len];
        let mut mask = vec![0u32; rows * len];
        for (row, e) in encodings.iter().enumerate() {
            let at = row * len;
            let n = e.len();
            ids[at..at + n].copy_from_slice(e.get_ids());
            types[at..at + n].copy_from_slice(e.get_type_ids());
            mask[at..at + n].copy_from_slice(e.get_attention_mask());
        }
        let ids = Tensor::from_vec(ids, (rows, len), &self.device).map_err(model)?;
        let types = Tensor::from_vec(types, (rows, len), &self.device).map_err(model)?;
        let mask = Tensor::from_vec(mask, (rows, len), &self.device).map_err(model)?;
        let hidden = self
            .model
            .forward(&ids, &types, Some(&mask))
            .map_err(model)?;
        // Mean pooling over the real tokens (sentence-transformers' Pooling, mean mode), then
        // L2 normalisation (its Normalize module).
        let mask = mask
            .to_dtype(DType::F32)
            .map_err(model)?
            .unsqueeze(2)
            .map_err(model)?;
        let summed = hidden
            .broadcast_mul(&mask)
            .map_err(model)?
            .sum(1)
            .map_err(model)?;
        let counts = mask
            .sum(1)
            .map_err(model)?
            .clamp(1e-9f32, f32::MAX)
            .map_err(model)?;
        let mean = summed.broadcast_div(&counts).map_err(model)?;
        let norm = mean
            .sqr()
            .map_err(model)?
            .sum_keepdim(1)
            .map_err(model)?
            .sqrt()
            .map_err(model)?
            .clamp(1e-12f32, f32::MAX)
            .map_err(model)?;
        mean.broadcast_div(&norm)
            .map_err(model)?
            .to_vec2::<f32>()
            .map_err(model)
    }

    /// Embeds `texts` as [`Embedder::embed`] does, calling `progress(done, total)` after each
    /// group of batches (texts done so far, `texts.len()`), from the calling thread.
    ///
    /// Texts are tokenized once, sorted by token count so that a batch pads little, and
    /// batches run side by side, one per thread of the pool (candle's element-wise layers are
    /// single-threaded, so one batch alone leaves a core idle half of the time).
    ///
    /// # Errors
    /// When the tokenizer or the model fails.
    pub fn embed_with_progress(
        &self,
        texts: &[&str],
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Vec<Vec<f32>>, Error> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| Error::Model(e.to_string()))?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].len());
        let batches: Vec<&[usize]> = order.chunks(BATCH).collect();
        let side_by_side = self
            .pool
            .as_ref()
            .map_or_else(
                rayon::current_num_threads,
                rayon::ThreadPool::current_num_threads,
            )
            .max(1);
        let mut out = vec![Vec::new(); texts.len()];
        let mut done = 0;
        for group in batches.chunks(side_by_side) {
            let run = || {
                use rayon::prelude::*;
                group
                    .par_iter()
                    .map(|chunk| {
                        let batch: Vec<&Encoding> = chunk.iter().map(|&i| &encodings[i]).collect();
                        self.embed_batch(&batch)
                    })
                    .collect::<Result<Vec<_>, Error>>()
            };
            let vectors = match &self.pool {
                Some(pool) => pool.install(run)?,
                None => run()?,
            };
            for (chunk, vectors) in group.iter().zip(vectors) {
                for (&i, vector) in chunk.iter().zip(vectors) {
                    out[i] = vector;
                }
                done += chunk.len();
            }
            progress(done, texts.len());
        }
        Ok(out)
    }
}

impl Embedder for BertEmbedder {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, Error> {
        self.embed_with_progress(texts, &mut |_, _| {})
    }

    fn model_id(&self) -> Option<String> {
        Some(self.model_id.clone())
    }

    fn embed_many(
        &self,
        texts: &[&str],
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Vec<Vec<f32>>, Error> {
        self.embed_with_progress(texts, progress)
    }
}

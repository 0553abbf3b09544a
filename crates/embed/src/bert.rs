//! The pure-Rust sentence-transformers BERT: candle's model, Hugging Face's tokenizer.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::Config;
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use crate::encoder::Encoder;
use crate::weights::Weights;
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
        let (_, dimension, _) = self.check_configuration()?;
        Weights::open(&self.path("model.safetensors"))?;
        Ok(dimension)
    }

    /// [`ModelFiles::check`] but for the weights' header: the configuration, the vector
    /// dimension and the maximum length.
    fn check_configuration(&self) -> Result<(Config, usize, usize), Error> {
        for name in Self::REQUIRED {
            let path = self.path(name);
            if !path.is_file() {
                return Err(Error::Missing { path });
            }
        }
        let config = self.config()?;
        let dimension = self.pooling(&config)?;
        let max_length = self.max_length(&config)?;
        Ok((config, dimension, max_length))
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

    /// `config.json`, with attention heads that divide the hidden size (candle's BERT divides
    /// by their number).
    fn config(&self) -> Result<Config, Error> {
        let path = self.path("config.json");
        let config: Config = read_json(&path)?;
        let (hidden, heads) = (config.hidden_size, config.num_attention_heads);
        if hidden == 0 || heads == 0 || hidden % heads != 0 {
            return Err(Error::corrupt(
                &path,
                format!("num_attention_heads {heads} does not divide hidden_size {hidden}"),
            ));
        }
        Ok(config)
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

/// BERT's embedding layer (candle's `BertEmbeddings`), its word-embedding table left in the
/// weights file: a text reads the rows of its tokens only.
struct Embeddings {
    weights: Weights,
    /// The table's tensor name in `weights`.
    words: String,
    hidden: usize,
    position: candle_nn::Embedding,
    token_type: candle_nn::Embedding,
    layer_norm: candle_nn::LayerNorm,
}

impl Embeddings {
    /// The embeddings of `ids` (`rows` texts of `len` tokens): word, token type and position
    /// embeddings summed, then layer-normalised, as candle's BERT computes them.
    fn forward(
        &self,
        ids: &[u32],
        (rows, len): (usize, usize),
        types: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let words = self
            .weights
            .rows(&self.words, ids)?
            .reshape((rows, len, self.hidden))?;
        let types = self.token_type.forward(types)?;
        let embeddings = (&words + types)?;
        let positions: Vec<u32> = (0..u32::try_from(len).unwrap_or(u32::MAX)).collect();
        let positions = Tensor::new(positions.as_slice(), words.device())?;
        let embeddings = embeddings.broadcast_add(&self.position.forward(&positions)?)?;
        self.layer_norm.forward(&embeddings)
    }
}

/// A sentence-transformers BERT model (all-MiniLM-L6-v2 and its kind) run on the CPU.
pub struct BertEmbedder {
    embeddings: Embeddings,
    encoder: Encoder,
    /// Truncates to `max_length`; pads nothing (batches are padded here, to their longest).
    tokenizer: Tokenizer,
    pad_id: u32,
    dimension: usize,
    max_length: usize,
    model_id: String,
    /// A private pool of a chosen size ([`BertEmbedder::with_threads`]); else rayon's global
    /// pool, one thread per core.
    pool: Option<rayon::ThreadPool>,
    /// A pool of one thread, started on first use, for a call of one batch (a query, a few
    /// texts) without a private pool: it runs alone, as fast as on every core (its matrices
    /// are small) for a third less processor time, and the other cores stay free.
    single: std::sync::OnceLock<Option<rayon::ThreadPool>>,
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
    /// Loads the model in `dir` (see [`ModelFiles`]): the encoder's tensors checked in the
    /// weights' header and read when a pass needs them (a layer at a time at first), the
    /// word-embedding table left in the weights file (each text reads its tokens' rows).
    ///
    /// # Errors
    /// A missing, corrupt or unsupported file, named.
    pub fn load(dir: &Path) -> Result<Self, Error> {
        let files = ModelFiles::new(dir);
        // Checked as `ModelFiles::check` checks them; the weights' header is read once, below.
        let (config, dimension, max_length) = files.check_configuration()?;
        // The tokenizer (a JSON file of half a megabyte to parse) loads on a thread of its own
        // while the weights' header and the embedding layer are read here: rayon's pool is not
        // started for it (its idle threads cost a one-shot query a quarter of its processor
        // time).
        let (tokenizer, weights) = std::thread::scope(|scope| {
            let tokenizer = std::thread::Builder::new()
                .name("goldfish-embed-load".into())
                .spawn_scoped(scope, || Self::load_tokenizer(&files, &config, max_length));
            let weights = Self::load_weights(&files, &config);
            let tokenizer = match tokenizer {
                Ok(thread) => thread
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
                // No thread to be had: one after the other.
                Err(_) => Self::load_tokenizer(&files, &config, max_length),
            };
            (tokenizer, weights)
        });
        let (tokenizer, pad_id, fingerprint) = tokenizer?;
        let (embeddings, encoder) = weights?;
        let model_id = format!(
            "{}@{fingerprint}",
            dir.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        );
        Ok(Self {
            embeddings,
            encoder,
            tokenizer,
            pad_id,
            dimension,
            max_length,
            model_id,
            pool: None,
            single: std::sync::OnceLock::new(),
            device: Device::Cpu,
        })
    }

    /// The tokenizer, truncating to `max_length` and padding nothing; the padding token's id;
    /// the model's fingerprint (see [`BertEmbedder::model_id`]).
    fn load_tokenizer(
        files: &ModelFiles,
        config: &Config,
        max_length: usize,
    ) -> Result<(Tokenizer, u32, String), Error> {
        let tokenizer_path = files.path("tokenizer.json");
        let tokenizer_json =
            std::fs::read(&tokenizer_path).map_err(|e| Error::io(&tokenizer_path, e))?;
        let mut tokenizer = crate::tokenizer::parse(&tokenizer_json)
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
        let fingerprint = files.fingerprint(&tokenizer_json)?;
        Ok((tokenizer, pad_id, fingerprint))
    }

    /// The embedding layer and the encoder, from the weights file: the encoder's tensors
    /// checked in its header (read by the passes), the word-embedding table left in the file
    /// (its rows are read per text).
    fn load_weights(files: &ModelFiles, config: &Config) -> Result<(Embeddings, Encoder), Error> {
        let path = files.path("model.safetensors");
        let weights = Weights::open(&path)?;
        // Tensors are named `embeddings.…` and `encoder.…`, or with the model type in front
        // (`bert.embeddings.…`), as candle's BERT accepts them.
        let words = "embeddings.word_embeddings.weight";
        let prefix = match &config.model_type {
            _ if weights.contains(words) => String::new(),
            Some(model_type) if weights.contains(&format!("{model_type}.{words}")) => {
                format!("{model_type}.")
            }
            _ => return Err(Error::corrupt(&path, format!("no tensor {words}"))),
        };
        let words = format!("{prefix}{words}");
        let expected = [config.vocab_size, config.hidden_size];
        if weights.shape(&words) != Some(&expected[..]) {
            return Err(Error::corrupt(
                &path,
                format!(
                    "tensor {words} has the shape {:?}, not config.json's {expected:?}",
                    weights.shape(&words).unwrap_or_default()
                ),
            ));
        }
        let corrupt = |e: candle_core::Error| Error::corrupt(&path, e);
        let (position, token_type, layer_norm, encoder) = {
            let vb = VarBuilder::from_backend(Box::new(&weights), DType::F32, Device::Cpu);
            let vb_embeddings = vb.pp(format!("{prefix}embeddings"));
            let position = candle_nn::embedding(
                config.max_position_embeddings,
                config.hidden_size,
                vb_embeddings.pp("position_embeddings"),
            )
            .map_err(corrupt)?;
            let token_type = candle_nn::embedding(
                config.type_vocab_size,
                config.hidden_size,
                vb_embeddings.pp("token_type_embeddings"),
            )
            .map_err(corrupt)?;
            let layer_norm = candle_nn::layer_norm(
                config.hidden_size,
                config.layer_norm_eps,
                vb_embeddings.pp("LayerNorm"),
            )
            .map_err(corrupt)?;
            let encoder = Encoder::new(&weights, format!("{prefix}encoder"), config)
                .map_err(|e| Error::corrupt(&path, e))?;
            (position, token_type, layer_norm, encoder)
        };
        let embeddings = Embeddings {
            weights,
            words,
            hidden: config.hidden_size,
            position,
            token_type,
            layer_norm,
        };
        Ok((embeddings, encoder))
    }

    /// candle's `BertModel::forward` with the word embeddings read from the file: the last
    /// hidden state of every token, `(rows, len, hidden)`.
    fn forward(
        &self,
        ids: &[u32],
        (rows, len): (usize, usize),
        types: &Tensor,
        mask: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let embedded = self.embeddings.forward(ids, (rows, len), types)?;
        // BERT's extended attention mask: 0 where a token is real, the lowest f32 where it is
        // padding, broadcast over heads and query positions.
        let mask = mask.unsqueeze(1)?.unsqueeze(1)?.to_dtype(DType::F32)?;
        let mask = (mask.ones_like()? - &mask)?
            .broadcast_mul(&Tensor::try_from(f32::MIN)?.to_device(&self.device)?)?;
        self.encoder
            .forward(&self.embeddings.weights, &embedded, &mask)
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

    /// Runs `f` on the private pool; else, when `one`, on the pool of one thread; else here
    /// (rayon's global pool).
    fn on_pool<R: Send>(&self, one: bool, f: impl FnOnce() -> R + Send) -> R {
        match (&self.pool, one) {
            (Some(pool), _) => pool.install(f),
            (None, true) => match self.single() {
                Some(single) => single.install(f),
                None => f(),
            },
            (None, false) => f(),
        }
    }

    /// The pool of one thread for a call of one batch (`None` when no thread can be had).
    fn single(&self) -> Option<&rayon::ThreadPool> {
        self.single
            .get_or_init(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .thread_name(|_| "goldfish-embed-one".into())
                    .build()
                    .ok()
            })
            .as_ref()
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
        let types = Tensor::from_vec(types, (rows, len), &self.device).map_err(model)?;
        let mask = Tensor::from_vec(mask, (rows, len), &self.device).map_err(model)?;
        let hidden = self
            .forward(&ids, (rows, len), &types, &mask)
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
    /// single-threaded, so one batch alone leaves a core idle half of the time). A call of one
    /// batch (up to 32 texts) without a private pool runs on one thread of its own.
    ///
    /// # Errors
    /// When the tokenizer or the model fails.
    pub fn embed_with_progress(
        &self,
        texts: &[&str],
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Vec<Vec<f32>>, Error> {
        // Tokenizing and the model both run on the pool's threads (the tokenizer's batch and
        // the matrix products are parallel on rayon's current pool); `progress` is called
        // here, between.
        let one = self.pool.is_none() && texts.len() <= BATCH;
        let encodings = self.on_pool(one, || {
            self.tokenizer
                .encode_batch(texts.to_vec(), true)
                .map_err(|e| Error::Model(e.to_string()))
        })?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].len());
        let batches: Vec<&[usize]> = order.chunks(BATCH).collect();
        let side_by_side = if one {
            1
        } else {
            self.pool.as_ref().map_or_else(
                rayon::current_num_threads,
                rayon::ThreadPool::current_num_threads,
            )
        }
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
            let vectors = self.on_pool(one, run)?;
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

//! The pure-Rust sentence-transformers BERT: candle's model, Hugging Face's tokenizer.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

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
    tokenizer: Tokenizer,
    dimension: usize,
    max_length: usize,
    device: Device,
}

impl std::fmt::Debug for BertEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BertEmbedder")
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
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| Error::corrupt(&tokenizer_path, format!("not a tokenizer: {e}")))?;
        let pad_token = tokenizer
            .get_padding()
            .map_or_else(|| "[PAD]".to_owned(), |p| p.pad_token.clone());
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length,
                ..TruncationParams::default()
            }))
            .map_err(|e| Error::corrupt(&tokenizer_path, format!("cannot truncate: {e}")))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            pad_id: u32::try_from(config.pad_token_id).unwrap_or(0),
            pad_token,
            ..PaddingParams::default()
        }));
        let weights = files.path("model.safetensors");
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
            dimension,
            max_length,
            device,
        })
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

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, Error> {
        let model = |e: candle_core::Error| Error::Model(e.to_string());
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| Error::Model(e.to_string()))?;
        let rows = encodings.len();
        let len = encodings.first().map_or(0, tokenizers::Encoding::len);
        let mut ids = Vec::with_capacity(rows * len);
        let mut types = Vec::with_capacity(rows * len);
        let mut mask = Vec::with_capacity(rows * len);
        for e in &encodings {
            ids.extend_from_slice(e.get_ids());
            types.extend_from_slice(e.get_type_ids());
            mask.extend_from_slice(e.get_attention_mask());
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
}

impl Embedder for BertEmbedder {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, Error> {
        // Sorted by length so that a batch pads little; the vectors go back in input order.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            for (&i, vector) in chunk.iter().zip(self.embed_batch(&batch)?) {
                out[i] = vector;
            }
        }
        Ok(out)
    }
}

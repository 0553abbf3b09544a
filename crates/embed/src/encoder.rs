//! BERT's encoder (candle's `BertEncoder`), its layers read from the weights file one at a
//! time for the model's first passes, then kept.
//!
//! A one-shot command embeds one query, or a few texts: reading the whole encoder (42 MB for
//! all-MiniLM-L6-v2) into fresh memory cost it more than the pass itself, nearly all of it in
//! the kernel handing the process new pages. Layer by layer, each layer is read into the same
//! buffer (one layer's worth) and its tensors are views of it, so a pass touches one layer's
//! worth of new memory. A process that goes on embedding (a server answering queries, an index
//! rebuild) keeps the whole encoder from its third pass on and reads nothing again.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use candle_core::{CpuStorage, DType, Device, Layout, Shape, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertEncoder, Config};

use crate::weights::Weights;

/// Passes run layer by layer before the encoder is kept whole.
const PASSES_BEFORE_KEEPING: usize = 2;

/// The encoder of a BERT model whose weights are in a [`Weights`] file.
pub(crate) struct Encoder {
    config: Config,
    /// Where its tensors are in the file: `{prefix}encoder`.
    path: String,
    /// A layer's tensors (their names after `layer.{i}.`), each with its shape and where it
    /// starts in a layer's buffer; and the buffer's length.
    tensors: Vec<(&'static str, Vec<usize>, usize)>,
    layer_len: usize,
    /// Passes started so far.
    passes: AtomicUsize,
    /// The whole encoder, once kept (`None` inside when it could not be read: the passes then
    /// go on layer by layer).
    kept: OnceLock<Option<BertEncoder>>,
}

/// The tensors of one of `config`'s layers, as candle's `BertLayer` reads and names them (after
/// `layer.{i}.`), with their shapes.
fn layer_tensors(config: &Config) -> [(&'static str, Vec<usize>); 16] {
    let h = config.hidden_size;
    // The configuration's heads divide `h` (checked with it); candle's attention is
    // `heads * (h / heads)` wide.
    let heads = config.num_attention_heads.max(1);
    let all_heads = heads * (h / heads);
    let inner = config.intermediate_size;
    [
        ("attention.self.query.weight", vec![all_heads, h]),
        ("attention.self.query.bias", vec![all_heads]),
        ("attention.self.key.weight", vec![all_heads, h]),
        ("attention.self.key.bias", vec![all_heads]),
        ("attention.self.value.weight", vec![all_heads, h]),
        ("attention.self.value.bias", vec![all_heads]),
        ("attention.output.dense.weight", vec![h, h]),
        ("attention.output.dense.bias", vec![h]),
        ("attention.output.LayerNorm.weight", vec![h]),
        ("attention.output.LayerNorm.bias", vec![h]),
        ("intermediate.dense.weight", vec![inner, h]),
        ("intermediate.dense.bias", vec![inner]),
        ("output.dense.weight", vec![h, inner]),
        ("output.dense.bias", vec![h]),
        ("output.LayerNorm.weight", vec![h]),
        ("output.LayerNorm.bias", vec![h]),
    ]
}

impl Encoder {
    /// The encoder under `path` (`{prefix}encoder`) in `weights`, with `config`'s layers;
    /// checks from the file's header that every tensor its layers read is there with its
    /// shape (the error names the first that is not), so that a damaged file is refused when
    /// the model loads, not at its first text.
    pub(crate) fn new(weights: &Weights, path: String, config: &Config) -> Result<Self, String> {
        let shapes = layer_tensors(config);
        for layer in 0..config.num_hidden_layers {
            for (name, shape) in &shapes {
                let name = format!("{path}.layer.{layer}.{name}");
                match weights.shape(&name) {
                    Some(s) if s == shape.as_slice() => {}
                    Some(s) => {
                        return Err(format!(
                            "tensor {name} has the shape {s:?}, not config.json's {shape:?}"
                        ));
                    }
                    None => return Err(format!("no tensor {name} of a floating-point type")),
                }
            }
        }
        let mut layer_len = 0;
        let tensors = shapes
            .into_iter()
            .map(|(name, shape)| {
                let at = layer_len;
                layer_len += shape.iter().product::<usize>();
                (name, shape, at)
            })
            .collect();
        Ok(Self {
            config: config.clone(),
            path,
            tensors,
            layer_len,
            passes: AtomicUsize::new(0),
            kept: OnceLock::new(),
        })
    }

    /// The encoder's output for `hidden` (the embeddings) under the attention `mask`.
    pub(crate) fn forward(
        &self,
        weights: &Weights,
        hidden: &Tensor,
        mask: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let keep = self.passes.fetch_add(1, Ordering::Relaxed) >= PASSES_BEFORE_KEEPING;
        let kept = match self.kept.get() {
            Some(kept) => kept.as_ref(),
            // Loading it reads the file and converts on this thread, never on rayon's pool: a
            // pass waiting here on a pool thread cannot be the one the loading waits for.
            None if keep => self
                .kept
                .get_or_init(|| {
                    let vb = VarBuilder::from_backend(Box::new(weights), DType::F32, Device::Cpu);
                    BertEncoder::load(vb.pp(&self.path), &self.config).ok()
                })
                .as_ref(),
            None => None,
        };
        if let Some(encoder) = kept {
            return encoder.forward(hidden, mask);
        }
        // candle's encoder of one layer, reading `layer.0.…` from the buffer that holds layer
        // `layer`.
        let one = Config {
            num_hidden_layers: 1,
            ..self.config.clone()
        };
        let buffer = Tensor::zeros(self.layer_len, DType::F32, &Device::Cpu)?;
        let mut hidden = hidden.clone();
        for layer in 0..self.config.num_hidden_layers {
            buffer.inplace_op1(&ReadLayer {
                encoder: self,
                weights,
                layer,
            })?;
            let views = Views {
                encoder: self,
                buffer: &buffer,
                names: format!("{}.layer.0.", self.path),
            };
            let vb = VarBuilder::from_backend(Box::new(views), DType::F32, Device::Cpu);
            // The layer's tensors (views of the buffer) are dropped with it, before the buffer
            // is filled again.
            hidden = BertEncoder::load(vb.pp(&self.path), &one)?.forward(&hidden, mask)?;
        }
        Ok(hidden)
    }
}

/// Reads layer `layer`'s tensors into a layer's buffer, each at its place.
struct ReadLayer<'a> {
    encoder: &'a Encoder,
    weights: &'a Weights,
    layer: usize,
}

impl candle_core::InplaceOp1 for ReadLayer<'_> {
    fn name(&self) -> &'static str {
        "read-bert-layer"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> candle_core::Result<()> {
        let CpuStorage::F32(values) = storage else {
            candle_core::bail!("a layer's buffer holds f32 values");
        };
        let values = match layout.contiguous_offsets() {
            Some((start, end)) if end - start == self.encoder.layer_len => {
                values.get_mut(start..end)
            }
            _ => None,
        };
        let Some(values) = values else {
            candle_core::bail!("a layer's buffer is not one run of its length");
        };
        let path = &self.encoder.path;
        for (name, shape, at) in &self.encoder.tensors {
            let len = shape.iter().product::<usize>();
            let Some(out) = values.get_mut(*at..at + len) else {
                candle_core::bail!("a layer's buffer is too short for {name}");
            };
            let name = format!("{path}.layer.{}.{name}", self.layer);
            self.weights.load_into(&name, out)?;
        }
        Ok(())
    }
}

/// The tensors of the layer in `buffer`, named `{names}…`, as views of it.
struct Views<'a> {
    encoder: &'a Encoder,
    buffer: &'a Tensor,
    names: String,
}

impl Views<'_> {
    fn view(&self, name: &str) -> candle_core::Result<Tensor> {
        let found = name
            .strip_prefix(&self.names)
            .and_then(|rest| self.encoder.tensors.iter().find(|(n, _, _)| *n == rest));
        let Some((_, shape, at)) = found else {
            candle_core::bail!("no tensor {name} in a layer of the encoder");
        };
        self.buffer
            .narrow(0, *at, shape.iter().product())?
            .reshape(shape.as_slice())
    }
}

impl candle_nn::var_builder::SimpleBackend for Views<'_> {
    fn get(
        &self,
        s: Shape,
        name: &str,
        _: candle_nn::Init,
        dtype: DType,
        dev: &Device,
    ) -> candle_core::Result<Tensor> {
        crate::weights::of_shape(self.get_unchecked(name, dtype, dev)?, s, name)
    }

    fn get_unchecked(&self, name: &str, dtype: DType, dev: &Device) -> candle_core::Result<Tensor> {
        self.view(name)?.to_dtype(dtype)?.to_device(dev)
    }

    fn contains_tensor(&self, name: &str) -> bool {
        name.strip_prefix(&self.names)
            .is_some_and(|rest| self.encoder.tensors.iter().any(|(n, _, _)| *n == rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    /// A weights file of a random two-layer encoder (hidden size 8, two heads) under `dir`,
    /// named as the encoder reads it.
    fn random_encoder(
        dir: &std::path::Path,
    ) -> Result<(Weights, Config), Box<dyn std::error::Error>> {
        let config = Config {
            hidden_size: 8,
            num_hidden_layers: 2,
            num_attention_heads: 2,
            intermediate_size: 16,
            ..Config::default()
        };
        let dev = Device::Cpu;
        let mut tensors = std::collections::HashMap::new();
        for layer in 0..2 {
            for (name, shape) in layer_tensors(&config) {
                let t = Tensor::randn(0f32, 0.5, shape, &dev)?;
                tensors.insert(format!("encoder.layer.{layer}.{name}"), t);
            }
        }
        let path = dir.join("model.safetensors");
        candle_core::safetensors::save(&tensors, &path)?;
        Ok((Weights::open(&path)?, config))
    }

    #[test]
    fn two_passes_run_layer_by_layer_then_the_encoder_is_kept_and_the_answers_agree() -> TestResult
    {
        let tmp = tempfile::tempdir()?;
        let (weights, config) = random_encoder(tmp.path())?;
        let encoder = Encoder::new(&weights, "encoder".into(), &config)?;
        let hidden = Tensor::randn(0f32, 1.0, (2, 5, 8), &Device::Cpu)?;
        let mask = Tensor::zeros((2, 1, 1, 5), DType::F32, &Device::Cpu)?;
        let first = encoder
            .forward(&weights, &hidden, &mask)?
            .flatten_all()?
            .to_vec1::<f32>()?;
        assert!(encoder.kept.get().is_none(), "kept after one pass");
        let second = encoder
            .forward(&weights, &hidden, &mask)?
            .flatten_all()?
            .to_vec1::<f32>()?;
        assert!(encoder.kept.get().is_none(), "kept after two passes");
        let third = encoder
            .forward(&weights, &hidden, &mask)?
            .flatten_all()?
            .to_vec1::<f32>()?;
        assert!(
            matches!(encoder.kept.get(), Some(Some(_))),
            "not kept at the third pass"
        );
        assert_eq!(first, second);
        assert_eq!(first, third);
        // Every layer counts: the output is not the input, nor one layer's.
        let input = hidden.flatten_all()?.to_vec1::<f32>()?;
        assert_ne!(first, input);
        let one = Encoder::new(
            &weights,
            "encoder".into(),
            &Config {
                num_hidden_layers: 1,
                ..config
            },
        )?;
        assert_ne!(
            one.forward(&weights, &hidden, &mask)?
                .flatten_all()?
                .to_vec1::<f32>()?,
            first
        );
        Ok(())
    }
}

//! A tiny randomly initialised BERT written by the tests themselves (config, safetensors
//! weights, tokenizer.json, pooling config): loading, batching, truncation, the model
//! directory, and every corrupt or missing file named in the error.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{Device, Tensor};
use goldfish_embed::{BertEmbedder, Embedder, Error, ModelDir, ModelFiles};

type TestResult = Result<(), Box<dyn std::error::Error>>;

const HIDDEN: usize = 8;
const LAYERS: usize = 2;
const INTERMEDIATE: usize = 16;
/// Small on purpose: a text longer than this must be truncated, or the position embeddings
/// would be indexed out of range.
const MAX_POSITIONS: usize = 16;
const WORDS: [&str; 12] = [
    "the", "cat", "dog", "sat", "on", "mat", "ran", "far", "goldfish", "memory", "plan", "recall",
];

fn vocab() -> Vec<&'static str> {
    let mut v = vec!["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
    v.extend(WORDS);
    v
}

/// Writes the tiny model into `dir` with weights drawn from a fixed-seed-free normal law
/// (the assertions hold for any weights).
fn write_tiny_model(dir: &Path) -> TestResult {
    std::fs::create_dir_all(dir.join("1_Pooling"))?;
    let vocab = vocab();
    std::fs::write(
        dir.join("config.json"),
        serde_json::json!({
            "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
            "hidden_size": HIDDEN, "num_hidden_layers": LAYERS, "num_attention_heads": 2,
            "intermediate_size": INTERMEDIATE, "max_position_embeddings": MAX_POSITIONS,
            "type_vocab_size": 2, "vocab_size": vocab.len(), "layer_norm_eps": 1e-12,
            "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
            "initializer_range": 0.02, "pad_token_id": 0,
            "position_embedding_type": "absolute", "use_cache": true
        })
        .to_string(),
    )?;
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        serde_json::json!({
            "word_embedding_dimension": HIDDEN, "pooling_mode_cls_token": false,
            "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false,
            "pooling_mode_mean_sqrt_len_tokens": false
        })
        .to_string(),
    )?;
    let ids: serde_json::Map<String, serde_json::Value> = vocab
        .iter()
        .enumerate()
        .map(|(i, w)| ((*w).to_owned(), i.into()))
        .collect();
    std::fs::write(
        dir.join("tokenizer.json"),
        serde_json::json!({
            "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
            "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                           "strip_accents": null, "lowercase": true},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {
                "type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                           {"Sequence": {"id": "A", "type_id": 0}},
                           {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                         {"Sequence": {"id": "A", "type_id": 0}},
                         {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                         {"Sequence": {"id": "B", "type_id": 1}},
                         {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                "special_tokens": {
                    "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                    "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}
                }
            },
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": ids}
        })
        .to_string(),
    )?;
    let dev = Device::Cpu;
    let mut t: HashMap<String, Tensor> = HashMap::new();
    let mut randn = |name: String, shape: &[usize]| -> TestResult {
        t.insert(name, Tensor::randn(0f32, 0.5, shape, &dev)?);
        Ok(())
    };
    randn(
        "embeddings.word_embeddings.weight".into(),
        &[vocab.len(), HIDDEN],
    )?;
    randn(
        "embeddings.position_embeddings.weight".into(),
        &[MAX_POSITIONS, HIDDEN],
    )?;
    randn(
        "embeddings.token_type_embeddings.weight".into(),
        &[2, HIDDEN],
    )?;
    for l in 0..LAYERS {
        let p = format!("encoder.layer.{l}");
        for m in [
            "attention.self.query",
            "attention.self.key",
            "attention.self.value",
            "attention.output.dense",
        ] {
            randn(format!("{p}.{m}.weight"), &[HIDDEN, HIDDEN])?;
            randn(format!("{p}.{m}.bias"), &[HIDDEN])?;
        }
        randn(
            format!("{p}.intermediate.dense.weight"),
            &[INTERMEDIATE, HIDDEN],
        )?;
        randn(format!("{p}.intermediate.dense.bias"), &[INTERMEDIATE])?;
        randn(format!("{p}.output.dense.weight"), &[HIDDEN, INTERMEDIATE])?;
        randn(format!("{p}.output.dense.bias"), &[HIDDEN])?;
    }
    let mut norms = vec!["embeddings.LayerNorm".to_owned()];
    for l in 0..LAYERS {
        norms.push(format!("encoder.layer.{l}.attention.output.LayerNorm"));
        norms.push(format!("encoder.layer.{l}.output.LayerNorm"));
    }
    for n in norms {
        t.insert(
            format!("{n}.weight"),
            Tensor::ones(HIDDEN, candle_core::DType::F32, &dev)?,
        );
        t.insert(
            format!("{n}.bias"),
            Tensor::zeros(HIDDEN, candle_core::DType::F32, &dev)?,
        );
    }
    candle_core::safetensors::save(&t, dir.join("model.safetensors"))?;
    Ok(())
}

fn tiny() -> Result<(tempfile::TempDir, PathBuf), Box<dyn std::error::Error>> {
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("tiny");
    write_tiny_model(&dir)?;
    Ok((tmp, dir))
}

/// `count` phrases of the test words, the `i`th of `words(i)` words, each starting a word later.
fn phrases(count: usize, words: impl Fn(usize) -> usize) -> Vec<String> {
    (0..count)
        .map(|i| {
            WORDS
                .iter()
                .cycle()
                .skip(i)
                .take(words(i))
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
}

#[test]
fn vectors_are_normalised_and_a_text_alone_equals_it_in_a_padded_batch() -> TestResult {
    let (_tmp, dir) = tiny()?;
    let model = BertEmbedder::load(&dir)?;
    assert_eq!(model.dimension(), HIDDEN);
    let texts = phrases(70, |i| 1 + i % 9);
    let mut refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    refs.push("");
    let batch = model.embed(&refs)?;
    assert_eq!(batch.len(), refs.len());
    for (text, v) in refs.iter().zip(&batch) {
        assert_eq!(v.len(), HIDDEN);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "{text:?}: norm {norm}");
        // Alone, the text has no padding: padding must not change its vector.
        let alone = model.embed(&[text])?;
        assert!(
            close(&alone[0], v),
            "{text:?}: alone {:?} in a batch {v:?}",
            alone[0]
        );
    }
    // Different texts, different vectors.
    assert!(!close(&batch[0], &batch[1]));
    Ok(())
}

#[test]
fn long_texts_are_truncated_to_the_maximum_length() -> TestResult {
    let (_tmp, dir) = tiny()?;
    let model = BertEmbedder::load(&dir)?;
    assert_eq!(model.max_length(), MAX_POSITIONS);
    let head = "goldfish memory plan recall the cat sat on the mat the dog ran far";
    let long_a = format!("{head} {}", "cat ".repeat(500));
    let long_b = format!("{head} {}", "dog ran ".repeat(700));
    assert!(model.token_count(&long_a)? > 500);
    let v = model.embed(&[&long_a, &long_b, "cat"])?;
    // Both keep the same first 14 words, so they embed alike after truncation.
    assert!(close(&v[0], &v[1]), "{:?} vs {:?}", v[0], v[1]);
    assert!(!close(&v[0], &v[2]));
    Ok(())
}

#[test]
fn sentence_bert_config_sets_the_maximum_length() -> TestResult {
    let (_tmp, dir) = tiny()?;
    std::fs::write(
        dir.join("sentence_bert_config.json"),
        r#"{"max_seq_length": 6}"#,
    )?;
    let model = BertEmbedder::load(&dir)?;
    assert_eq!(model.max_length(), 6);
    let v = model.embed(&["the cat sat on the mat", "the cat sat on the dog"])?;
    // [CLS] + 4 words + [SEP]: the fifth word is cut in both.
    assert!(close(&v[0], &v[1]));
    std::fs::write(
        dir.join("sentence_bert_config.json"),
        r#"{"max_seq_length": "long"}"#,
    )?;
    let err = BertEmbedder::load(&dir)
        .err()
        .ok_or("a bad max_seq_length loaded")?;
    assert!(
        err.to_string().contains("sentence_bert_config.json"),
        "{err}"
    );
    Ok(())
}

#[test]
fn every_missing_file_is_named() -> TestResult {
    for name in ModelFiles::REQUIRED {
        let (_tmp, dir) = tiny()?;
        std::fs::remove_file(dir.join(name))?;
        let err = BertEmbedder::load(&dir)
            .err()
            .ok_or("loaded without a file")?;
        assert!(
            matches!(err, Error::Missing { ref path } if path.ends_with(name)),
            "{name}: {err}"
        );
        assert!(err.to_string().contains(name), "{err}");
    }
    Ok(())
}

#[test]
fn every_corrupt_file_is_named() -> TestResult {
    let weights_len = {
        let (_tmp, dir) = tiny()?;
        std::fs::metadata(dir.join("model.safetensors"))?.len()
    };
    let cases: [(&str, Vec<u8>); 6] = [
        ("config.json", b"{\"hidden_size\": ".to_vec()),
        ("tokenizer.json", b"{\"model\": 3}".to_vec()),
        ("1_Pooling/config.json", b"not json".to_vec()),
        ("model.safetensors", b"\x01".to_vec()),
        (
            "model.safetensors",
            b"garbage header, long enough to pass the length".to_vec(),
        ),
        // A well-formed header whose data stops early: a truncated download.
        ("model.safetensors", Vec::new()),
    ];
    for (name, bytes) in cases {
        let (_tmp, dir) = tiny()?;
        let path = dir.join(name);
        if bytes.is_empty() {
            let full = std::fs::read(&path)?;
            std::fs::write(&path, &full[..usize::try_from(weights_len)? - 100])?;
        } else {
            std::fs::write(&path, bytes)?;
        }
        let err = BertEmbedder::load(&dir)
            .err()
            .ok_or("loaded a corrupt file")?;
        assert!(matches!(err, Error::Corrupt { .. }), "{name}: {err:?}");
        assert!(err.to_string().contains(name), "{name}: {err}");
    }
    // Weights that lack a tensor the config asks for.
    let (_tmp, dir) = tiny()?;
    let config = std::fs::read_to_string(dir.join("config.json"))?.replace(
        &format!("\"num_hidden_layers\":{LAYERS}"),
        "\"num_hidden_layers\":3",
    );
    std::fs::write(dir.join("config.json"), config)?;
    let err = BertEmbedder::load(&dir)
        .err()
        .ok_or("loaded without layer 2")?;
    assert!(err.to_string().contains("model.safetensors"), "{err}");
    // A layer's tensor of another shape than the configuration's: refused at load, by name.
    let (_tmp, dir) = tiny()?;
    let path = dir.join("model.safetensors");
    let mut tensors = candle_core::safetensors::load(&path, &Device::Cpu)?;
    let name = "encoder.layer.1.intermediate.dense.weight";
    let wrong = tensors.remove(name).ok_or("no such tensor")?;
    tensors.insert(name.to_owned(), wrong.reshape((HIDDEN, INTERMEDIATE))?);
    candle_core::safetensors::save(&tensors, &path)?;
    let err = BertEmbedder::load(&dir)
        .err()
        .ok_or("loaded a tensor of the wrong shape")?;
    assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
    assert!(err.to_string().contains("model.safetensors"), "{err}");
    assert!(err.to_string().contains(name), "{err}");
    // Attention heads that do not divide the hidden size.
    let (_tmp, dir) = tiny()?;
    let config = std::fs::read_to_string(dir.join("config.json"))?
        .replace("\"num_attention_heads\":2", "\"num_attention_heads\":3");
    std::fs::write(dir.join("config.json"), config)?;
    let err = BertEmbedder::load(&dir)
        .err()
        .ok_or("loaded 3 heads over 8 dimensions")?;
    assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
    assert!(err.to_string().contains("config.json"), "{err}");
    Ok(())
}

#[test]
fn pooling_other_than_mean_is_refused_by_name() -> TestResult {
    let (_tmp, dir) = tiny()?;
    let pooling = dir.join("1_Pooling/config.json");
    std::fs::write(
        &pooling,
        r#"{"word_embedding_dimension": 8, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#,
    )?;
    let err = BertEmbedder::load(&dir).err().ok_or("loaded CLS pooling")?;
    assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
    assert!(
        err.to_string().contains("1_Pooling/config.json") && err.to_string().contains("mean"),
        "{err}"
    );
    std::fs::write(
        &pooling,
        r#"{"word_embedding_dimension": 8, "pooling_mode_max_tokens": true, "pooling_mode_mean_tokens": true}"#,
    )?;
    let err = BertEmbedder::load(&dir)
        .err()
        .ok_or("loaded mean+max pooling")?;
    assert!(err.to_string().contains("pooling_mode_max_tokens"), "{err}");
    std::fs::write(
        &pooling,
        r#"{"word_embedding_dimension": 9, "pooling_mode_mean_tokens": true}"#,
    )?;
    let err = BertEmbedder::load(&dir)
        .err()
        .ok_or("loaded a wrong dimension")?;
    assert!(err.to_string().contains("hidden_size"), "{err}");
    Ok(())
}

#[test]
fn install_status_reinstall_and_remove() -> TestResult {
    let (tmp, source) = tiny()?;
    let models = ModelDir::new(tmp.path().join("models"));
    assert_eq!(models.status("tiny")?, None);
    let mut seen = Vec::new();
    let status = models.install_from_dir("tiny", &source, &mut |p| seen.push(p.clone()))?;
    assert_eq!(status.dimension, HIDDEN);
    assert_eq!(status.path, models.path("tiny"));
    let last = seen.last().ok_or("no progress")?;
    assert_eq!(Some(last.done), last.total);
    assert_eq!(last.done, status.size);
    assert_eq!(models.status("tiny")?, Some(status.clone()));
    let a = models.load("tiny")?.embed(&["the cat"])?;
    assert_eq!(a, BertEmbedder::load(&source)?.embed(&["the cat"])?);

    // A failed reinstall (corrupt source) leaves the installed model whole and no staging.
    let (_tmp2, bad) = tiny()?;
    std::fs::write(bad.join("tokenizer.json"), "{")?;
    let err = models
        .install_from_dir("tiny", &bad, &mut |_| {})
        .err()
        .ok_or("installed a corrupt model")?;
    assert!(err.to_string().contains("tokenizer.json"), "{err}");
    assert_eq!(models.load("tiny")?.embed(&["the cat"])?, a);
    let entries: Vec<_> = std::fs::read_dir(models.root())?.collect::<Result<_, _>>()?;
    assert_eq!(entries.len(), 1, "{entries:?}");

    // A reinstall from another model replaces it.
    let (_tmp3, other) = tiny()?;
    models.install_from_dir("tiny", &other, &mut |_| {})?;
    assert_ne!(models.load("tiny")?.embed(&["the cat"])?, a);
    assert_eq!(std::fs::read_dir(models.root())?.count(), 1);

    // A file lost after the install: status names it.
    std::fs::remove_file(models.path("tiny").join("tokenizer.json"))?;
    let err = models
        .status("tiny")
        .err()
        .ok_or("status of a broken model")?;
    assert!(err.to_string().contains("tokenizer.json"), "{err}");

    assert!(models.remove("tiny")?);
    assert!(!models.remove("tiny")?);
    assert_eq!(models.status("tiny")?, None);
    assert!(matches!(models.load("tiny"), Err(Error::Missing { .. })));
    Ok(())
}

#[test]
fn the_model_root_is_resolved_in_order() -> TestResult {
    let r = |a: Option<&str>, b: Option<&str>, c: Option<&str>| {
        ModelDir::resolve(a.map(Into::into), b.map(Into::into), c.map(Into::into))
            .map(|d| d.root().to_path_buf())
    };
    assert_eq!(r(Some("/m"), Some("/x"), Some("/h"))?, PathBuf::from("/m"));
    assert_eq!(
        r(Some(""), Some("/x"), Some("/h"))?,
        PathBuf::from("/x/goldfish/models")
    );
    assert_eq!(
        r(None, Some("rel"), Some("/h"))?,
        PathBuf::from("/h/.cache/goldfish/models")
    );
    assert_eq!(
        r(None, None, Some("/h"))?,
        PathBuf::from("/h/.cache/goldfish/models")
    );
    assert!(matches!(r(None, None, None), Err(Error::NoModelDir)));
    Ok(())
}

#[test]
fn many_texts_of_mixed_lengths_embed_as_one_at_a_time_with_progress() -> TestResult {
    let (_tmp, dir) = tiny()?;
    // Two threads of its own: batches run side by side whatever the machine has.
    let model = BertEmbedder::load(&dir)?.with_threads(2)?;
    // 150 texts (several batches of 32), 0 to 40 words: some padded, some truncated, and the
    // lengths out of order so that sorting by token count and putting back is exercised.
    let texts = phrases(150, |i| (i * 7) % 41);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut calls = Vec::new();
    let many = model.embed_many(&refs, &mut |done, total| calls.push((done, total)))?;
    assert_eq!(many.len(), refs.len());
    // Progress rises to the total, and the last call says all are done.
    assert!(calls.windows(2).all(|w| w[0].0 < w[1].0), "{calls:?}");
    assert_eq!(calls.last(), Some(&(refs.len(), refs.len())));
    for (text, v) in refs.iter().zip(&many) {
        let alone = model.embed(&[text])?;
        assert!(
            close(&alone[0], v),
            "{text:?}: alone {:?} among many {v:?}",
            alone[0]
        );
    }
    // The global pool gives the same vectors as the private one.
    let global = BertEmbedder::load(&dir)?.embed(&refs)?;
    assert!(many.iter().zip(&global).all(|(a, b)| close(a, b)));
    Ok(())
}

#[test]
fn the_model_id_names_the_model_and_changes_with_its_weights() -> TestResult {
    let (tmp, dir) = tiny()?;
    let model = BertEmbedder::load(&dir)?;
    let id = model.model_id().to_owned();
    assert!(id.starts_with("tiny@"), "{id}");
    assert_eq!(Embedder::model_id(&model), Some(id.clone()));
    // The same files elsewhere under the same name: the same id.
    let copy = tmp.path().join("copy/tiny");
    for name in ModelFiles::REQUIRED.iter().chain(&ModelFiles::OPTIONAL) {
        let from = dir.join(name);
        if from.is_file() {
            std::fs::create_dir_all(copy.join(name).parent().ok_or("no parent")?)?;
            std::fs::copy(from, copy.join(name))?;
        }
    }
    assert_eq!(BertEmbedder::load(&copy)?.model_id(), id);
    // One weight changed (the last bytes of the file): another id.
    let weights = copy.join("model.safetensors");
    let mut bytes = std::fs::read(&weights)?;
    let last = bytes.len() - 2;
    bytes[last] ^= 0x01;
    std::fs::write(&weights, bytes)?;
    assert_ne!(BertEmbedder::load(&copy)?.model_id(), id);
    Ok(())
}

#[test]
fn passes_layer_by_layer_and_with_the_encoder_kept_give_the_same_vectors() -> TestResult {
    let (_tmp, dir) = tiny()?;
    let texts = ["the cat sat on the mat", "goldfish memory plan", ""];
    // The first passes read the encoder a layer at a time into one buffer; the later ones
    // use it kept whole. Bit for bit the same.
    let model = BertEmbedder::load(&dir)?;
    let first = model.embed(&texts)?;
    for pass in 2..=4 {
        assert_eq!(model.embed(&texts)?, first, "pass {pass}");
    }
    // Weights stored as f16 are converted as they are read, the same way in both.
    let path = dir.join("model.safetensors");
    let halves = candle_core::safetensors::load(&path, &Device::Cpu)?
        .into_iter()
        .map(|(name, t)| Ok((name, t.to_dtype(candle_core::DType::F16)?)))
        .collect::<Result<HashMap<_, _>, candle_core::Error>>()?;
    candle_core::safetensors::save(&halves, &path)?;
    let model = BertEmbedder::load(&dir)?;
    let half = model.embed(&texts)?;
    for pass in 2..=4 {
        assert_eq!(model.embed(&texts)?, half, "f16, pass {pass}");
    }
    for (h, f) in half.iter().zip(&first) {
        assert!(
            h.iter().zip(f).all(|(a, b)| (a - b).abs() < 0.02),
            "{h:?} vs {f:?}"
        );
        assert_ne!(h, f, "the f16 weights were not the ones used");
    }
    // One call of many batches side by side, from the model's first pass: the first batches
    // run layer by layer, the later ones with the encoder kept (loaded while others run). The
    // same vectors as the same call once the encoder is kept.
    let texts = phrases(150, |i| 1 + i % 11);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let model = BertEmbedder::load(&dir)?;
    let crossing = model.embed(&refs)?;
    assert_eq!(model.embed(&refs)?, crossing);
    Ok(())
}

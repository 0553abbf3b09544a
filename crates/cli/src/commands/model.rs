//! `goldfish model install|status|remove`: the semantic recall's embedding model.

use std::io::IsTerminal;
use std::path::PathBuf;

use goldfish_embed::{DEFAULT_MODEL, ModelDir, ModelFiles, ModelStatus, Progress};
use serde_json::json;

use crate::cli::ModelCommand;
use crate::output::Report;

/// The model directory from the environment: `GOLDFISH_MODEL_DIR`, else
/// `$XDG_CACHE_HOME/goldfish/models`, else `~/.cache/goldfish/models`.
pub(crate) fn model_dir() -> anyhow::Result<ModelDir> {
    Ok(ModelDir::resolve(
        std::env::var_os("GOLDFISH_MODEL_DIR"),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    )?)
}

/// The installed default model as recall's semantic channel; `None` when none is
/// installed (or no model directory can be found). The model is loaded when a search first
/// needs it (see `goldfish_recall::LazyEmbedder`): a recall of one or two words, or none,
/// never loads it. Its vectors are cached under the model's fingerprint, so reinstalling
/// other weights starts a new cache.
pub(crate) fn load_installed() -> Option<goldfish_recall::SemanticChannel> {
    let dir = model_dir().ok()?;
    if !dir.path(DEFAULT_MODEL).exists() {
        return None;
    }
    let embedder = goldfish_recall::LazyEmbedder::new(move || {
        // Checked while loading (every file read once); a failure names the file.
        let model = dir
            .load(DEFAULT_MODEL)
            .map_err(|e| format!("{:#}", anyhow::Error::from(e)))?;
        // The model's fingerprint (its name and a hash of its files): other weights, other id.
        let id = model.model_id().to_string();
        Ok(
            Box::new(goldfish_recall::semantic::ModelEmbedder::new(model, id))
                as Box<dyn goldfish_recall::Embedder>,
        )
    });
    Some(goldfish_recall::SemanticChannel::new(std::sync::Arc::new(
        embedder,
    )))
}

/// Runs `goldfish model …`.
pub(crate) fn run(command: ModelCommand, json: bool) -> anyhow::Result<Report> {
    let dir = model_dir()?;
    match command {
        ModelCommand::Install { from } => install(&dir, from, json),
        ModelCommand::Status => Ok(match dir.status(DEFAULT_MODEL)? {
            Some(status) => Report::new(render(&status), status_json(&status)),
            None => Report::new(
                format!(
                    "{DEFAULT_MODEL} is not installed (in {}): recall is lexical only; \
                     `goldfish model install` installs it",
                    dir.root().display()
                ),
                json!({
                    "installed": false,
                    "model": DEFAULT_MODEL,
                    "path": dir.path(DEFAULT_MODEL),
                }),
            ),
        }),
        ModelCommand::Remove => {
            let path = dir.path(DEFAULT_MODEL);
            let removed = dir.remove(DEFAULT_MODEL)?;
            let text = if removed {
                format!("Removed {DEFAULT_MODEL} ({})", path.display())
            } else {
                format!("{DEFAULT_MODEL} was not installed ({})", path.display())
            };
            Ok(Report::new(
                text,
                json!({"removed": removed, "model": DEFAULT_MODEL, "path": path}),
            ))
        }
    }
}

fn install(dir: &ModelDir, from: Option<PathBuf>, json: bool) -> anyhow::Result<Report> {
    // A progress bar on a terminal only: a pipe or a file gets nothing but the report.
    let tty = std::io::stderr().is_terminal() && !json;
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut progress = |p: &Progress| {
        if !tty {
            return;
        }
        let bar = bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new(p.total.unwrap_or(0));
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "installing {bar:30} {bytes}/{total_bytes} {msg}",
            ) {
                bar.set_style(style);
            }
            bar
        });
        bar.set_message(p.file.clone());
        bar.set_position(p.done);
    };
    if let Some(source) = from.as_deref().filter(|s| !s.is_dir()) {
        anyhow::bail!(
            "--from {}: not a directory (it takes a sentence-transformers model directory)",
            source.display()
        );
    }
    let status = match from {
        Some(source) => dir
            .install_from_dir(DEFAULT_MODEL, &source, &mut progress)
            .map_err(|e| match e {
                // A file missing from the directory given, not from an installed model: what
                // `--from` takes, not "reinstall".
                goldfish_embed::Error::Missing { .. } => anyhow::anyhow!(
                    "{e} (`--from` takes a sentence-transformers directory with {})",
                    ModelFiles::REQUIRED.join(", ")
                ),
                e => e.into(),
            })?,
        None => dir.install_from_hub(&hub_endpoint(), &mut progress)?,
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(Report::new(
        format!("Installed {}", render(&status)),
        status_json(&status),
    ))
}

/// The hub to download from: `HF_ENDPOINT` when set (the variable Hugging Face's own tools
/// read, for a mirror), else <https://huggingface.co>. The files and their digests are the
/// same pinned ones either way.
fn hub_endpoint() -> String {
    std::env::var("HF_ENDPOINT")
        .ok()
        .filter(|url| !url.trim().is_empty())
        .unwrap_or_else(|| "https://huggingface.co".to_string())
}

fn render(s: &ModelStatus) -> String {
    format!(
        "{} ({} dimensions, {:.1} MB) in {}",
        s.model,
        s.dimension,
        s.size as f64 / 1e6,
        s.path.display()
    )
}

fn status_json(s: &ModelStatus) -> serde_json::Value {
    json!({
        "installed": true,
        "model": s.model,
        "path": s.path,
        "size": s.size,
        "dimension": s.dimension,
    })
}

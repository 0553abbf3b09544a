//! Helpers: real git in temp directories, the example binary as merge driver and saver.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use goldfish_store::chrono::{DateTime, NaiveDate, Utc};
use goldfish_store::{Checkpoint, Store, parse_day_file};

pub(crate) type TestResult<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// The `sync_tool` example (built by `cargo test`): `merge-driver`, `sync`, `save`.
pub(crate) fn tool() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    // target/debug/deps/all-… → target/debug/examples/sync_tool
    let debug = exe
        .parent()
        .and_then(Path::parent)
        .expect("test binary in target/<profile>/deps");
    let tool = debug
        .join("examples")
        .join(format!("sync_tool{}", std::env::consts::EXE_SUFFIX));
    // `cargo test --test all` does not build examples, and one left from an earlier build
    // would test old code: build it (a no-op when it is fresh) once per test run.
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let target = debug.parent().expect("target directory");
        let status = Command::new(cargo)
            .args([
                "build",
                "-q",
                "-p",
                "goldfish-sync",
                "--example",
                "sync_tool",
            ])
            .arg("--target-dir")
            .arg(target)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the sync_tool example failed");
    });
    assert!(tool.exists(), "{} not built", tool.display());
    tool
}

/// Runs git in `dir` and returns its stdout; panics with git's message on failure.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=test", "-c", "user.email=test@localhost"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A bare repository to serve as the shared remote.
pub(crate) fn bare_remote(dir: &Path) -> PathBuf {
    let remote = dir.join("remote.git");
    let out = Command::new("git")
        .args(["init", "-q", "--bare", "-b", "main"])
        .arg(&remote)
        .output()
        .expect("git runs");
    assert!(out.status.success());
    remote
}

pub(crate) fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .expect("test timestamp")
        .with_timezone(&Utc)
}

pub(crate) fn store_at(root: &Path, now: &str) -> TestResult<Store> {
    let clock = Arc::new(goldfish_core::time::ManualClock::new(at(now)));
    Ok(Store::open(root)?.with_clock(clock))
}

/// Every file of `dir` but git's own and lock files, with its bytes: the store as a reader
/// sees it. Two snapshots are equal when no store byte changed.
pub(crate) fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == ".git" || goldfish_core::fs::is_lock_file_name(&name) {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
            } else if let Ok(bytes) = std::fs::read(&path) {
                let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
                out.insert(rel, bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// All checkpoints of `workspace` in the store at `root`, by id; asserts every day file parses
/// without a problem and holds no conflict marker.
pub(crate) fn all_checkpoints(root: &Path, workspace: &str) -> BTreeMap<String, Checkpoint> {
    let mut out = BTreeMap::new();
    let dir = root.join(workspace).join("checkpoints");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".md") else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let date = NaiveDate::parse_from_str(stem, "%Y-%m-%d").expect("day file name");
        let text = std::fs::read_to_string(entry.path()).expect("day file is UTF-8");
        assert_no_markers(&text, &entry.path());
        let day = parse_day_file(&text, workspace, date);
        assert!(day.problems.is_empty(), "{name}: {:?}", day.problems);
        let mut times: Vec<_> = day.checkpoints.iter().map(|c| c.timestamp).collect();
        let sorted = {
            let mut t = times.clone();
            t.sort();
            t
        };
        assert_eq!(times, sorted, "{name}: entries in time order");
        times.clear();
        for c in day.checkpoints {
            assert!(
                out.insert(c.id.clone(), c).is_none(),
                "{name}: duplicate id"
            );
        }
    }
    out
}

pub(crate) fn assert_no_markers(text: &str, path: &Path) {
    for line in text.lines() {
        for marker in ["<<<<<<<", "=======", ">>>>>>>"] {
            assert!(
                !line.starts_with(marker),
                "{}: conflict marker {line:?}",
                path.display()
            );
        }
    }
}

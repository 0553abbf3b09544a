//! Shared helpers: timestamps, fixtures, waiting, and re-executing this binary as a child.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

pub(crate) type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Env var telling a re-executed test binary which child job to run.
pub(crate) const CHILD_ENV: &str = "GOLDFISH_SIGNALS_CHILD";
/// Env var naming the worktree the child works in.
pub(crate) const WORKTREE_ENV: &str = "GOLDFISH_SIGNALS_WORKTREE";

pub(crate) fn utc(text: &str) -> DateTime<Utc> {
    goldfish_core::time::parse_utc(text).expect("test timestamps are valid")
}

pub(crate) fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Re-runs this test binary as a child process running only `test` with `job`.
pub(crate) fn spawn_child(test: &str, job: &str, worktree: &Path) -> std::io::Result<Child> {
    Command::new(std::env::current_exe()?)
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, job)
        .env(WORKTREE_ENV, worktree)
        .stdout(Stdio::null())
        .spawn()
}

/// Runs a child to completion and fails unless it succeeded.
pub(crate) fn run_child(test: &str, job: &str, worktree: &Path) -> TestResult {
    let status = spawn_child(test, job, worktree)?.wait()?;
    if !status.success() {
        return Err(format!("child {job} failed: {status}").into());
    }
    Ok(())
}

/// Polls `f` every few milliseconds until it returns `Some`, failing after a generous guard
/// (this is a hang guard, not a speed assertion).
pub(crate) fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> Result<T, String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(v) = f() {
            return Ok(v);
        }
        if Instant::now() > deadline {
            return Err(format!("gave up waiting for {what}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

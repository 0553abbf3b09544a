//! The integration tests of goldfish-store: one binary, one module per area.

mod bad_input;
mod choose;
mod concurrency;
mod duplicate;
mod elsewhere;
mod faults;
mod forget;
mod git;
mod links;
mod plan_action;
mod plan_edit;
mod plan_heading;
mod redaction;
mod reredact;
mod roundtrip;
mod seed;
mod supersede;
mod v4;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use goldfish_core::time::ManualClock;
use goldfish_store::Store;

/// The result type of every test.
pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The day of the examples: 2025-10-13, 09:30 UTC.
pub fn seed_time() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 10, 13, 9, 30, 0)
        .single()
        .expect("valid time")
}

/// 2025-10-13.
pub fn seed_date() -> NaiveDate {
    NaiveDate::from_ymd_opt(2025, 10, 13).expect("valid date")
}

/// A store in `dir` whose clock stands at [`seed_time`] and returns the clock to move it.
pub fn store_at(dir: &Path) -> Result<(Store, Arc<ManualClock>), goldfish_store::Error> {
    let clock = Arc::new(ManualClock::new(seed_time()));
    Ok((Store::open(dir)?.with_clock(clock.clone()), clock))
}

/// Runs git in `dir` with a fixed identity; fails the test when git fails.
pub fn git(dir: &Path, args: &[&str]) -> Result<String, Box<dyn std::error::Error>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()?;
    if !out.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A git repository in `dir` with one commit of `README.md` on branch `main`.
pub fn repo_with_commit(dir: &Path) -> TestResult {
    std::fs::create_dir_all(dir)?;
    git(dir, &["init", "-q"])?;
    std::fs::write(dir.join("README.md"), "hello\n")?;
    git(dir, &["add", "README.md"])?;
    git(dir, &["commit", "-q", "-m", "first"])?;
    Ok(())
}
